--
-- The table cache: a table scanned on the GPU a second time is copied to GPU
-- memory, and later scans read the copies only while the visibility map shows
-- the table unchanged (every block all-visible, no VM page's LSN moved)
--
SET extra_float_digits = 0;
SET max_parallel_workers_per_gather = 0;
-- the backend's own table cache, not the GPU service's column cache
SET pg_gpu.use_cache = off;
-- VACUUM marks a page all-visible only once its rows' commit hint bits are set,
-- which waits for the commit's WAL to be flushed: commit synchronously
SET synchronous_commit = on;
-- the cache is the backend's own GPU memory: a backend that has not started CUDA
-- (the GPU service runs its aggregations) fills none, so start it here (false
-- without a GPU)
SELECT pg_gpu_register_buffer_pool() IS NOT NULL AS engine_asked;
CREATE TABLE tc_t (id int4, w text, f8 float8, g int4);
INSERT INTO tc_t SELECT i, md5((i % 3000)::text), i * 0.25, i % 10
  FROM generate_series(1, 40000) i;
CREATE TABLE tc_k (k text, n int4);
INSERT INTO tc_k SELECT md5((i * 7)::text), i FROM generate_series(1, 300) i;
\i sql/setup/cc_quiet.sql
SELECT cc_quiet();
VACUUM ANALYZE tc_t, tc_k;

-- the table cache's use by a scan: 'none', 'filled', 'read'; on a machine without a
-- GPU the node falls back, and that is all it may do
CREATE FUNCTION tc_is(q text, want text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  p jsonb;
  n jsonb;
  got text;
BEGIN
  EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, FORMAT JSON) ' || q INTO p;
  n := jsonb_path_query_first(p, 'strict $.** ? (@."Custom Plan Provider" like_regex "^Gpu")');
  IF n IS NULL THEN
    RETURN 'no GPU node';
  END IF;
  IF n->>'Fallback' IN ('no gpu', 'not compiled') THEN
    RETURN 'ok';
  END IF;
  got := CASE WHEN n->>'Table Cache' = 'read from GPU memory' THEN 'read'
              WHEN n->>'Table Cache' = 'filled' THEN 'filled'
              WHEN n->>'Table Cache' IS NULL OR n->>'Table Cache' LIKE 'not used:%' THEN 'none'
              ELSE n->>'Table Cache' END;
  IF got = want THEN
    RETURN 'ok';
  END IF;
  RETURN coalesce(n->>'Table Cache', 'none') || coalesce(' (' || (n->>'Fallback') || ')', '');
END $$;

SET pg_gpu.enabled = off;
\i sql/include/table_cache_q.sql
SET pg_gpu.enabled = on;
SET pg_gpu.force = on;
-- first scan: nothing; second: copied as it is read; then read from the copies
SELECT tc_is('SELECT count(*) FROM tc_t', 'none');
SELECT tc_is('SELECT count(*) FROM tc_t', 'filled');
SELECT tc_is('SELECT count(*) FROM tc_t', 'read');
SELECT tc_is('SELECT id FROM tc_t ORDER BY f8 DESC LIMIT 3', 'read');
-- pg_gpu_table_cache() lists it (without a GPU nothing is cached)
SELECT CASE WHEN current_setting('pg_gpu.emulate_gpu') = 'off'
              AND (SELECT sum(gpu_executions) FROM pg_gpu_stats) = 0
         THEN 'ok'
       WHEN EXISTS (SELECT 1 FROM pg_gpu_table_cache() c JOIN pg_class r ON r.oid = c.relation
                    WHERE c.relation = 'tc_t'::regclass AND c.state = 'copied' AND c.pages = r.relpages
                      AND c.bytes = r.relpages * 8192 AND c.scans >= 2 AND c.reads >= 2)
         THEN 'ok'
       ELSE (SELECT string_agg(c::text, '; ') FROM pg_gpu_table_cache() c) END AS tc_listed;
\i sql/include/table_cache_q.sql
SELECT tc_is('SELECT count(*) FROM tc_t', 'read');
\i sql/include/table_cache_q.sql

-- a change not yet committed (the query sees its own): the copies are not read,
-- nor after the rollback (the change cleared the VM bits)
BEGIN;
DELETE FROM tc_t WHERE id % 7 = 0;
UPDATE tc_t SET f8 = -f8, w = 'changed' WHERE id % 11 = 0;
SELECT tc_is('SELECT count(*) FROM tc_t', 'none');
SET pg_gpu.enabled = off;
\i sql/include/table_cache_q.sql
SET pg_gpu.enabled = on;
\i sql/include/table_cache_q.sql
ROLLBACK;
SELECT tc_is('SELECT count(*) FROM tc_t', 'none');
SET pg_gpu.enabled = off;
\i sql/include/table_cache_q.sql
SET pg_gpu.enabled = on;
\i sql/include/table_cache_q.sql

-- VACUUM sets the bits again (a new VM page LSN): copied afresh, then read
SELECT cc_quiet();
VACUUM tc_t;
SELECT tc_is('SELECT count(*) FROM tc_t', 'filled');
SELECT tc_is('SELECT count(*) FROM tc_t', 'read');

-- committed changes, then VACUUM: every bit set again, but the old copies are stale
DELETE FROM tc_t WHERE id % 5 = 0;
UPDATE tc_t SET f8 = f8 + 1 WHERE id % 13 = 0;
SELECT cc_quiet();
VACUUM tc_t;
SELECT tc_is('SELECT count(*) FROM tc_t', 'filled');
SET pg_gpu.enabled = off;
\i sql/include/table_cache_q.sql
SET pg_gpu.enabled = on;
\i sql/include/table_cache_q.sql
SELECT tc_is('SELECT count(*) FROM tc_t', 'read');

-- inserts reusing the line pointers VACUUM freed, and new blocks
INSERT INTO tc_t SELECT i, md5((i * 7)::text), i, i % 10 FROM generate_series(50001, 53000) i;
SELECT tc_is('SELECT count(*) FROM tc_t', 'none');
SELECT cc_quiet();
VACUUM tc_t;
SET pg_gpu.enabled = off;
\i sql/include/table_cache_q.sql
SET pg_gpu.enabled = on;
\i sql/include/table_cache_q.sql
SELECT tc_is('SELECT count(*) FROM tc_t', 'read');

-- a new relfilenode (TRUNCATE, VACUUM FULL) with the same rows count and blocks
BEGIN;
CREATE TEMP TABLE tc_save AS SELECT * FROM tc_t;
TRUNCATE tc_t;
INSERT INTO tc_t SELECT id, w, f8 + 100, g FROM tc_save;
COMMIT;
SELECT cc_quiet();
VACUUM tc_t;
SELECT tc_is('SELECT count(*) FROM tc_t', 'filled');
SELECT cc_quiet();
VACUUM FULL tc_t;
SELECT cc_quiet();
VACUUM tc_t;
SELECT tc_is('SELECT count(*) FROM tc_t', 'filled');
SET pg_gpu.enabled = off;
\i sql/include/table_cache_q.sql
SET pg_gpu.enabled = on;
\i sql/include/table_cache_q.sql

-- changes inside a savepoint, rolled back: the bits stay cleared
SELECT tc_is('SELECT count(*) FROM tc_t', 'read');
BEGIN;
SAVEPOINT a;
UPDATE tc_t SET w = 'x' WHERE id = 17;
ROLLBACK TO a;
SELECT tc_is('SELECT count(*) FROM tc_t', 'none');
SELECT count(*), sum(id), min(w) FROM tc_t;
COMMIT;

-- an error while a key set is built, with tc_t's fill under way (in a subtransaction,
-- then at the top): the next scans fill and read
SELECT cc_quiet();
VACUUM tc_t, tc_k;
DO $$
BEGIN
  PERFORM count(*) FROM tc_t WHERE w IN (SELECT k FROM tc_k WHERE 1 / (n - 150) > 0 OR n < 150);
EXCEPTION WHEN division_by_zero THEN
  RAISE NOTICE 'division by zero caught';
END $$;
SELECT count(*) FROM tc_t WHERE w IN (SELECT k FROM tc_k WHERE 1 / (n - 150) > 0 OR n < 150);
SELECT tc_is('SELECT count(*) FROM tc_t', 'filled');
SELECT tc_is('SELECT count(*) FROM tc_t', 'read');

-- a GPU failure in a fill leaves no copies; the scan after it fills them
UPDATE tc_t SET f8 = f8 WHERE id = 99;
SELECT cc_quiet();
VACUUM tc_t;
SET pg_gpu.debug_fail_after_chunks = 0;
SELECT count(*), sum(id) FROM tc_t;
RESET pg_gpu.debug_fail_after_chunks;
SELECT tc_is('SELECT count(*) FROM tc_t', 'filled');
SELECT tc_is('SELECT count(*) FROM tc_t', 'read');

-- an expression that raises an error on a row in the middle of the table, in the
-- scan that fills: the engine stops there and makes no copies of the chunks after
-- it, so none are kept, and later scans see every row (they saw only the first
-- chunks' rows)
UPDATE tc_t SET f8 = f8 WHERE id = 98;
SELECT cc_quiet();
VACUUM tc_t;
SELECT id AS tc_mid FROM tc_t WHERE ctid >= '(100,1)'::tid ORDER BY ctid LIMIT 1 \gset
SET pg_gpu.chunk_pages = 16;
SELECT sum(100 / (id - :tc_mid)) FROM tc_t;
SELECT count(*), sum(id) FROM tc_t;
SELECT tc_is('SELECT count(*) FROM tc_t', 'read');
SELECT count(*), sum(id) FROM tc_t;
RESET pg_gpu.chunk_pages;

-- no copies beyond pg_gpu.table_cache_size, nor with it 0; tables that are not
-- WAL-logged are never copied
SET pg_gpu.table_cache_size = '64kB';
SELECT tc_is('SELECT count(*) FROM tc_t', 'none');
SET pg_gpu.table_cache_size = 0;
SELECT tc_is('SELECT count(*) FROM tc_t', 'none');
RESET pg_gpu.table_cache_size;
CREATE UNLOGGED TABLE tc_u AS SELECT * FROM tc_t;
SELECT cc_quiet();
VACUUM tc_u;
SELECT tc_is('SELECT count(*) FROM tc_u', 'none');
SELECT tc_is('SELECT count(*) FROM tc_u', 'none');
SELECT count(*), sum(id) FROM tc_u;

-- COPY FREEZE into a table truncated in this transaction adds rows to all-visible
-- pages without touching the visibility map: no copies of it until the commit
CREATE TABLE tc_f (v int4);
BEGIN;
TRUNCATE tc_f;
COPY tc_f FROM PROGRAM 'seq 1 1000' WITH (FREEZE);
SELECT tc_is('SELECT count(*), sum(v) FROM tc_f', 'none');
SELECT tc_is('SELECT count(*), sum(v) FROM tc_f', 'none');
COPY tc_f FROM PROGRAM 'seq 1001 1010' WITH (FREEZE);
SELECT tc_is('SELECT count(*), sum(v) FROM tc_f', 'none');
SELECT count(*), sum(v) FROM tc_f;
COMMIT;
SELECT tc_is('SELECT count(*), sum(v) FROM tc_f', 'none');
SELECT tc_is('SELECT count(*), sum(v) FROM tc_f', 'filled');
SELECT tc_is('SELECT count(*), sum(v) FROM tc_f', 'read');
SELECT count(*), sum(v) FROM tc_f;
SET pg_gpu.enabled = off;
SELECT count(*), sum(v) FROM tc_f;
SET pg_gpu.enabled = on;
RESET pg_gpu.force;

DROP FUNCTION tc_is(text, text);
DROP FUNCTION cc_quiet();
DROP TABLE tc_t, tc_k, tc_u, tc_f;
