--
-- The GPU service's column cache (issue 21): columns deformed once from
-- all-visible pages, kept for every session, read per block while the
-- visibility map shows the block unchanged.  Every answer is PostgreSQL's:
-- after INSERT, UPDATE, DELETE, ROLLBACK, savepoints, VACUUM, TRUNCATE,
-- VACUUM FULL, a rewriting ALTER TABLE, in a second database, and a role
-- without SELECT gets PostgreSQL's error.  Emulated (the service runs the
-- engine on the CPU), so the bookkeeping is the same as on a GPU.
--
SET max_parallel_workers_per_gather = 0;
SET pg_gpu.table_cache_size = 0;
-- VACUUM marks a page all-visible only once its inserts' commits are flushed
SET synchronous_commit = on;
\i sql/setup/cc_quiet.sql
CREATE TABLE cc (id int4 NOT NULL, g int4, v int8, f float8, s text);
INSERT INTO cc SELECT i, CASE WHEN i % 11 = 0 THEN NULL ELSE i % 1000 END, i * 7, i * 0.25, 's' || i
  FROM generate_series(1, 100000) i;
SELECT cc_quiet();
VACUUM ANALYZE cc;
-- where a query's blocks came from: "N blocks from cache, M from pages (K to cache)"
CREATE FUNCTION cc_line(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE l text;
BEGIN
  FOR l IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
    IF l LIKE '%GPU Cache:%' THEN RETURN regexp_replace(l, '^\s*GPU Cache: ', ''); END IF;
  END LOOP;
  RETURN 'no cache';
END $$;
CREATE VIEW cc_q AS SELECT 'SELECT count(*), sum(v), min(id), max(id), avg(f), sum(g) FROM cc'::text AS q;
SET pg_gpu.emulate_gpu = on;
SELECT pg_gpu_cache_table('cc', ARRAY['id', 'g', 'v', 'f']) = relpages AS all_cached
  FROM pg_class WHERE relname = 'cc';
SELECT "table", columns, blocks > 0 AS has_blocks, emulated FROM pg_gpu_cache WHERE "table" = 'cc'::regclass;
SET pg_gpu.force = on;
SELECT cc_line(q) FROM cc_q;

-- 1. as loaded
SET pg_gpu.enabled = off;
\i sql/include/colcache_q.sql
SET pg_gpu.enabled = on;
\i sql/include/colcache_q.sql

-- 2. INSERT: the new blocks, and the block that took rows, come from pages
INSERT INTO cc SELECT i, i % 1000, i * 7, i * 0.25, 'n' || i FROM generate_series(100001, 101000) i;
SELECT cc_line(q) FROM cc_q;
SET pg_gpu.enabled = off;
\i sql/include/colcache_q.sql
SET pg_gpu.enabled = on;
\i sql/include/colcache_q.sql

-- 3. UPDATE and DELETE in the middle of the table
UPDATE cc SET v = v + 1 WHERE id BETWEEN 40000 AND 40100;
DELETE FROM cc WHERE id BETWEEN 70000 AND 70500;
SET pg_gpu.enabled = off;
\i sql/include/colcache_q.sql
SET pg_gpu.enabled = on;
\i sql/include/colcache_q.sql

-- 4. a transaction that changes rows sees them, and after ROLLBACK nobody does
BEGIN;
UPDATE cc SET v = 0 WHERE id <= 20000;
SET LOCAL pg_gpu.enabled = off;
\i sql/include/colcache_q.sql
SET LOCAL pg_gpu.enabled = on;
\i sql/include/colcache_q.sql
ROLLBACK;
SET pg_gpu.enabled = off;
\i sql/include/colcache_q.sql
SET pg_gpu.enabled = on;
\i sql/include/colcache_q.sql

-- 5. savepoints
BEGIN;
SAVEPOINT a;
DELETE FROM cc WHERE id % 3 = 0;
SET LOCAL pg_gpu.enabled = off;
\i sql/include/colcache_q.sql
SET LOCAL pg_gpu.enabled = on;
\i sql/include/colcache_q.sql
ROLLBACK TO SAVEPOINT a;
SET LOCAL pg_gpu.enabled = off;
\i sql/include/colcache_q.sql
SET LOCAL pg_gpu.enabled = on;
\i sql/include/colcache_q.sql
COMMIT;

-- 6. VACUUM marks the changed blocks all-visible again: the VM pages' LSNs move,
--    their blocks are read from pages and cached again, then come from the cache
SELECT cc_quiet();
VACUUM cc;
SELECT cc_line(q) FROM cc_q;
SELECT cc_line(q) FROM cc_q;
SET pg_gpu.enabled = off;
\i sql/include/colcache_q.sql
SET pg_gpu.enabled = on;
\i sql/include/colcache_q.sql

-- 7. TRUNCATE, VACUUM FULL, a rewriting ALTER TABLE: a new relfilenode each
BEGIN;
TRUNCATE cc;
INSERT INTO cc SELECT i, i % 100, -i, i * 0.5, 't' || i FROM generate_series(1, 30000) i;
COMMIT;
SELECT cc_quiet();
VACUUM cc;
SELECT cc_line(q) FROM cc_q;
SET pg_gpu.enabled = off;
\i sql/include/colcache_q.sql
SET pg_gpu.enabled = on;
\i sql/include/colcache_q.sql
DELETE FROM cc WHERE id > 20000;
VACUUM FULL cc;
SELECT cc_quiet();
VACUUM cc;
SET pg_gpu.enabled = off;
\i sql/include/colcache_q.sql
SET pg_gpu.enabled = on;
\i sql/include/colcache_q.sql
ALTER TABLE cc ALTER COLUMN g TYPE int8;
SELECT cc_quiet();
VACUUM cc;
SET pg_gpu.enabled = off;
\i sql/include/colcache_q.sql
SET pg_gpu.enabled = on;
\i sql/include/colcache_q.sql
SELECT cc_line(q) FROM cc_q;

-- 8. a role without SELECT on the table gets PostgreSQL's error, cache or not
CREATE ROLE cc_nobody;
GRANT SELECT ON cc_q TO cc_nobody;
SET ROLE cc_nobody;
SELECT count(*) FROM cc;
SELECT pg_gpu_cache_table('cc');
SELECT pg_gpu_uncache('cc');
-- the counters are readable by every role, as PostgreSQL's statistics views
-- are; the cache's entries too, but a table is named only to its readers
SELECT count(*) > 0 AS stats FROM pg_gpu_stats;
SELECT count(*) >= 0 AS fallbacks FROM pg_gpu_fallbacks;
SELECT count(*) > 0 AS entries, count("table") AS named FROM pg_gpu_cache
  WHERE database = current_database();
RESET ROLE;
-- dropping entries takes what VACUUM takes (the table's or the database's
-- owner, a superuser): a role that may only read the table cannot, and
-- pg_gpu_uncache() without a table drops only what the role may
CREATE ROLE cc_reader;
GRANT SELECT ON cc TO cc_reader;
SET ROLE cc_reader;
SELECT "table", blocks > 0 AS has_blocks FROM pg_gpu_cache WHERE "table" = 'cc'::regclass;
SELECT pg_gpu_uncache('cc');
SELECT pg_gpu_uncache();
RESET ROLE;
SELECT count(*) AS still FROM pg_gpu_cache WHERE "table" = 'cc'::regclass;
ALTER TABLE cc OWNER TO cc_reader;
SET ROLE cc_reader;
SELECT pg_gpu_uncache();
RESET ROLE;
ALTER TABLE cc OWNER TO CURRENT_USER;
SELECT count(*) AS left FROM pg_gpu_cache WHERE "table" = 'cc'::regclass;
SELECT cc_line(q) FROM cc_q;

-- 9. tables that are never cached, and why: text columns only, unlogged and
--    temporary tables, catalogs; a table without an all-visible page has
--    nothing to cache yet
CREATE UNLOGGED TABLE cc_u AS SELECT i AS id FROM generate_series(1, 1000) i;
SELECT cc_quiet();
VACUUM cc_u;
SELECT pg_gpu_cache_table('cc_u');
SELECT pg_gpu_cache_table('cc', ARRAY['s']);
SELECT pg_gpu_cache_table('cc', ARRAY['nope']);
CREATE TEMP TABLE cc_t AS SELECT i AS id FROM generate_series(1, 1000) i;
SELECT cc_quiet();
VACUUM cc_t;
SELECT pg_gpu_cache_table('cc_t');
DROP TABLE cc_t;
SELECT pg_gpu_cache_table('pg_class');
SELECT pg_gpu_cache_table(NULL);
BEGIN;
CREATE TABLE cc_new AS SELECT i AS id FROM generate_series(1, 1000) i;
SELECT pg_gpu_cache_table('cc_new');
ROLLBACK;
CREATE TABLE cc_nv AS SELECT i AS id FROM generate_series(1, 1000) i;
SELECT pg_gpu_cache_table('cc_nv');
DROP TABLE cc_nv;

-- 10. a second database: its own entry for a table of the same name
\set regdb :DBNAME
CREATE DATABASE cc_other;
\c cc_other
SET max_parallel_workers_per_gather = 0;
SET synchronous_commit = on;
CREATE EXTENSION pg_gpu;
\i sql/setup/cc_quiet.sql
CREATE TABLE cc (id int4 NOT NULL, g int4, v int8, f float8, s text);
INSERT INTO cc SELECT i, i % 10, i, i, 'o' FROM generate_series(1, 5000) i;
SELECT cc_quiet();
VACUUM cc;
SET pg_gpu.emulate_gpu = on;
SELECT pg_gpu_cache_table('cc') > 0 AS cached;
SET pg_gpu.force = on;
SET pg_gpu.enabled = off;
\i sql/include/colcache_q.sql
SET pg_gpu.enabled = on;
\i sql/include/colcache_q.sql
SELECT count(*) FILTER (WHERE database = current_database() AND "table"::text = 'cc') AS here,
       count(*) FILTER (WHERE database = :'regdb') > 0 AS there
  FROM pg_gpu_cache;
\c :regdb
DROP DATABASE cc_other;
SET max_parallel_workers_per_gather = 0;
SET pg_gpu.emulate_gpu = on;
SET pg_gpu.force = on;
SET pg_gpu.enabled = off;
\i sql/include/colcache_q.sql
SET pg_gpu.enabled = on;
\i sql/include/colcache_q.sql

-- 11. pg_gpu_uncache drops the table's entry; the next scan caches it again
SELECT pg_gpu_uncache('cc');
SELECT count(*) AS left FROM pg_gpu_cache WHERE "table" = 'cc'::regclass;
SET pg_gpu.use_cache = off;
SELECT cc_line(q) FROM cc_q;
RESET pg_gpu.use_cache;
SELECT cc_line(q) FROM cc_q;
SELECT cc_line(q) FROM cc_q;

-- 12. a star join over a cached fact table: the dimensions' key sets (their
--     columns as payload) are built in the service, the fact's blocks come
--     from the cache, and the groups' bound is the product of the payload's
--     distinct values (each plus one for NULL).  (\c above reset the session:
--     VACUUM marks pages all-visible only once their commits are flushed.)
SET synchronous_commit = on;
CREATE TABLE ccf (a int4, b int4, x int8);
INSERT INTO ccf SELECT i % 300, CASE WHEN i % 13 = 0 THEN NULL ELSE i % 40 END, i
  FROM generate_series(1, 60000) i;
CREATE TABLE cda (k int4, name text, grp int4);
INSERT INTO cda SELECT i, 'n' || (i % 7), CASE WHEN i % 9 = 0 THEN NULL ELSE i % 3 END
  FROM generate_series(0, 299) i;
CREATE TABLE cdb (k int4, tag text);
INSERT INTO cdb SELECT i, CASE WHEN i % 5 = 0 THEN NULL ELSE 't' || (i % 4) END
  FROM generate_series(0, 39) i;
SELECT cc_quiet();
VACUUM ANALYZE ccf, cda, cdb;
CREATE FUNCTION cc_lines(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE l text;
BEGIN
  FOR l IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
    IF l ~ '(GPU Cache|Groups Bound|Custom Scan \(GpuAgg\))' THEN
      RETURN NEXT regexp_replace(l, '^\s*(->\s*)?', '');
    END IF;
  END LOOP;
END $$;
CREATE VIEW cc_star AS SELECT 'SELECT name, grp, tag, count(*), sum(x) FROM ccf, cda, cdb
  WHERE a = cda.k AND b = cdb.k AND x % 3 <> 1 GROUP BY name, grp, tag'::text AS q;
SELECT cc_lines(q) FROM cc_star;
SELECT cc_lines(q) FROM cc_star;
SET pg_gpu.enabled = off;
SELECT name, grp, tag, count(*), sum(x) FROM ccf, cda, cdb
  WHERE a = cda.k AND b = cdb.k AND x % 3 <> 1 GROUP BY name, grp, tag ORDER BY 1, 2, 3;
SET pg_gpu.enabled = on;
SELECT name, grp, tag, count(*), sum(x) FROM ccf, cda, cdb
  WHERE a = cda.k AND b = cdb.k AND x % 3 <> 1 GROUP BY name, grp, tag ORDER BY 1, 2, 3;
-- the fact table and a dimension change: answers follow
UPDATE ccf SET x = x + 1000000 WHERE a = 7;
DELETE FROM ccf WHERE a = 8;
UPDATE cda SET name = 'changed' WHERE k = 9;
SET pg_gpu.enabled = off;
SELECT name, grp, tag, count(*), sum(x) FROM ccf, cda, cdb
  WHERE a = cda.k AND b = cdb.k AND x % 3 <> 1 GROUP BY name, grp, tag ORDER BY 1, 2, 3;
SET pg_gpu.enabled = on;
SELECT name, grp, tag, count(*), sum(x) FROM ccf, cda, cdb
  WHERE a = cda.k AND b = cdb.k AND x % 3 <> 1 GROUP BY name, grp, tag ORDER BY 1, 2, 3;
SELECT cc_lines(q) FROM cc_star;
DROP VIEW cc_star;
DROP FUNCTION cc_lines(text);
DROP TABLE ccf, cda, cdb;

-- 13. a table with no all-visible page makes no entry (nothing to cache yet);
--     after VACUUM its scan caches it
CREATE TABLE ccn (a int4, b int8);
INSERT INTO ccn SELECT i, i * 2 FROM generate_series(1, 20000) i;
SELECT count(*), sum(b) FROM ccn;
SELECT count(*) AS entries FROM pg_gpu_cache WHERE "table" = 'ccn'::regclass;
SELECT cc_quiet();
VACUUM ccn;
SELECT count(*), sum(b) FROM ccn;
SELECT count(*) AS entries, sum(blocks) > 0 AS has_blocks FROM pg_gpu_cache
  WHERE "table" = 'ccn'::regclass;
DROP TABLE ccn;

-- 14. without the extension (the library stays preloaded) no GPU path is
--     planned, and DROP EXTENSION takes the database's cache entries along
--     (every scan through the service: \c above restored the table cache)
SET pg_gpu.table_cache_size = 0;
SELECT count(*) > 0 AS cached FROM pg_gpu_cache WHERE database = current_database();
DROP EXTENSION pg_gpu;
EXPLAIN (COSTS OFF) SELECT count(*), sum(v) FROM cc;
SELECT count(*), sum(v) FROM cc;
CREATE EXTENSION pg_gpu;
SELECT count(*) AS entries FROM pg_gpu_cache WHERE database = current_database();
EXPLAIN (COSTS OFF) SELECT count(*), sum(v) FROM cc;
SELECT count(*), sum(v) FROM cc;

-- 15. right after a fault made the service restart (which empties the cache),
--     pg_gpu_cache_table waits for the new service instead of caching nothing
SELECT pg_gpu_uncache('cc');
SET pg_gpu.debug_service_fault = 'exit';
SELECT count(*), sum(v) FROM cc;
RESET pg_gpu.debug_service_fault;
SELECT pg_gpu_cache_table('cc') = relpages AS all_cached FROM pg_class WHERE relname = 'cc';
SELECT state <> 'down' AS up, restarts > 0 AS restarted FROM pg_gpu_service();
SELECT cc_line(q) FROM cc_q;
RESET pg_gpu.table_cache_size;

-- 16. numeric(p,s) columns are kept decoded (DECIMAL at scale s); a value the GPU
--     does not keep (NaN) is marked in the cache and sends the query to the CPU
SET pg_gpu.table_cache_size = 0;
CREATE TABLE ccn (id int4, qty numeric(15,2), price numeric(15,2), disc numeric(15,2),
  x numeric(30,20), free numeric, d date);
INSERT INTO ccn SELECT i, i % 50 + 1, (i * 7919 % 100000) / 100.0 + 900, (i % 11) / 100.0,
  CASE WHEN i % 5 = 0 THEN NULL ELSE round(i / 3.0, 20) END, i / 8.0, date '1994-01-01' + i % 2000
  FROM generate_series(1, 50000) i;
SELECT cc_quiet();
VACUUM ANALYZE ccn;
SELECT pg_gpu_cache_table('ccn') = relpages AS all_cached FROM pg_class WHERE relname = 'ccn';
SELECT columns FROM pg_gpu_cache WHERE "table" = 'ccn'::regclass;
SELECT cc_line('SELECT sum(price * (1 - disc)), avg(qty) FROM ccn WHERE disc BETWEEN 0.05 AND 0.07');
SET pg_gpu.enabled = off;
\i sql/include/colcache_numeric_q.sql
SET pg_gpu.enabled = on;
\i sql/include/colcache_numeric_q.sql
SELECT pg_gpu_cache_table('ccn', ARRAY['free']);
UPDATE ccn SET price = 'NaN' WHERE id = 77;
SELECT cc_quiet();
VACUUM ccn;
SET pg_gpu.expect_gpu = off;
SET pg_gpu.enabled = off;
\i sql/include/colcache_numeric_q.sql
SET pg_gpu.enabled = on;
\i sql/include/colcache_numeric_q.sql
RESET pg_gpu.expect_gpu;
DROP TABLE ccn;
RESET pg_gpu.table_cache_size;

-- 17. char(n) and varchar(n) columns are kept as short varlenas in cells of 4,
--     8, 16 or 32 bytes (char(n)'s padding as stored), read as a page's values:
--     GROUP BY (TPC-H Q1's and Q12's shapes), =, <>, IN, LIKE, substring, NULLs,
--     empty strings.  text and varchar(40) are not kept.  A value too long for
--     its cell (multi-byte characters) is marked there and sends a query that
--     reads it to the CPU
SET pg_gpu.table_cache_size = 0;
CREATE TABLE cct (id int4, rf char(1), ls char(1), mode char(10), pri varchar(15),
  tag varchar(3), qty int8, price numeric(15,2), disc numeric(15,2), d date,
  note text, cmt varchar(40));
INSERT INTO cct SELECT i,
  CASE WHEN i % 17 = 0 THEN NULL ELSE substr('ANR', i % 3 + 1, 1) END,
  substr('FO', i % 2 + 1, 1),
  (ARRAY['AIR', 'MAIL', 'SHIP', 'TRUCK', 'REG AIR', 'FOB', ''])[i % 7 + 1],
  CASE WHEN i % 23 = 0 THEN NULL
    ELSE (ARRAY['1-URGENT', '2-HIGH', '3-MEDIUM', '4-NOT SPECIFIED', '5-LOW'])[i % 5 + 1] END,
  CASE i % 6 WHEN 0 THEN '' WHEN 1 THEN 'x ' WHEN 2 THEN 'x' WHEN 3 THEN 'ab ' WHEN 4 THEN 'é' END,
  i % 50 + 1, (i * 7919 % 100000) / 100.0 + 900, (i % 11) / 100.0,
  date '1992-01-01' + i % 2500, 'n' || i, 'c' || i
  FROM generate_series(1, 50000) i;
SELECT cc_quiet();
VACUUM ANALYZE cct;
SELECT pg_gpu_cache_table('cct') = relpages AS all_cached FROM pg_class WHERE relname = 'cct';
SELECT columns FROM pg_gpu_cache WHERE "table" = 'cct'::regclass;
SELECT pg_gpu_cache_table('cct', ARRAY['note']);
SELECT pg_gpu_cache_table('cct', ARRAY['cmt']);
CREATE FUNCTION cc_fb(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE l text;
BEGIN
  FOR l IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
    IF l ~ '(GPU Cache|Fallback|Key Set:)' THEN RETURN NEXT regexp_replace(l, '^\s*', ''); END IF;
  END LOOP;
END $$;
SELECT cc_fb('SELECT rf, ls, count(*), sum(qty) FROM cct WHERE d <= date ''1998-09-02'' GROUP BY rf, ls');
SELECT cc_fb('SELECT mode, count(*) FROM cct WHERE mode IN (''MAIL'', ''SHIP'') AND pri LIKE ''1%'' GROUP BY mode');
SET pg_gpu.enabled = off;
\i sql/include/colcache_text_q.sql
SET pg_gpu.enabled = on;
\i sql/include/colcache_text_q.sql
-- rows changed after caching: their blocks are read from pages
UPDATE cct SET rf = 'Z', tag = 'new', mode = 'AIR' WHERE id % 1000 = 5;
DELETE FROM cct WHERE id % 1000 = 6;
SELECT cc_fb('SELECT rf, ls, count(*), sum(qty) FROM cct WHERE d <= date ''1998-09-02'' GROUP BY rf, ls');
SET pg_gpu.enabled = off;
\i sql/include/colcache_text_q.sql
SET pg_gpu.enabled = on;
\i sql/include/colcache_text_q.sql
-- a char(10) of ten 2-byte characters does not fit its 16-byte cell: after
-- VACUUM caches it again, a query that reads mode gives its work back to
-- PostgreSQL; one that does not still reads the cache
UPDATE cct SET mode = 'éééééééééé' WHERE id = 77;
SELECT cc_quiet();
VACUUM cct;
SET pg_gpu.expect_gpu = off;
SELECT cc_fb('SELECT rf, ls, count(*), sum(qty) FROM cct WHERE d <= date ''1998-09-02'' GROUP BY rf, ls');
SELECT cc_fb('SELECT rf, ls, count(*), sum(qty) FROM cct WHERE d <= date ''1998-09-02'' GROUP BY rf, ls');
SELECT cc_fb('SELECT mode, count(*) FROM cct GROUP BY mode');
SET pg_gpu.enabled = off;
SELECT mode, count(*) FROM cct GROUP BY mode ORDER BY 1;
\i sql/include/colcache_text_q.sql
SET pg_gpu.enabled = on;
SELECT mode, count(*) FROM cct GROUP BY mode ORDER BY 1;
\i sql/include/colcache_text_q.sql
-- a star join: the dimension's char(n) and varchar(n) payload (its rows task's
-- text keys) and the fact's columns come from the cache
CREATE TABLE ccd (k int4, name char(12), region varchar(10));
INSERT INTO ccd SELECT i, 'name' || (i % 7), CASE WHEN i % 4 = 0 THEN NULL ELSE 'r' || (i % 3) END
  FROM generate_series(0, 49) i;
SELECT cc_quiet();
VACUUM ANALYZE ccd;
SELECT cc_fb('SELECT name, region, count(*), sum(qty) FROM cct, ccd WHERE qty = ccd.k AND rf <> ''N'' GROUP BY name, region');
SELECT cc_fb('SELECT name, region, count(*), sum(qty) FROM cct, ccd WHERE qty = ccd.k AND rf <> ''N'' GROUP BY name, region');
SET pg_gpu.enabled = off;
SELECT name, region, count(*), sum(qty) FROM cct, ccd WHERE qty = ccd.k AND rf <> 'N'
  GROUP BY name, region ORDER BY 1, 2;
SET pg_gpu.enabled = on;
SELECT name, region, count(*), sum(qty) FROM cct, ccd WHERE qty = ccd.k AND rf <> 'N'
  GROUP BY name, region ORDER BY 1, 2;
RESET pg_gpu.expect_gpu;
DROP FUNCTION cc_fb(text);
DROP TABLE cct, ccd;
RESET pg_gpu.table_cache_size;

-- 18. DROP TABLE takes the table's entries along at once (a dropped table, a
--     Citus shard moved to another worker say, would otherwise hold GPU memory
--     until least recently used); a DROP rolled back has lost only the cached
--     copy, and the next scan caches the table again
SET pg_gpu.table_cache_size = 0;
CREATE TABLE ccx (a int4, b int8);
INSERT INTO ccx SELECT i, i * 3 FROM generate_series(1, 20000) i;
SELECT cc_quiet();
VACUUM ccx;
SELECT pg_gpu_cache_table('ccx') > 0 AS cached;
SELECT 'ccx'::regclass::oid AS ccx_oid \gset
BEGIN;
DROP TABLE ccx;
ROLLBACK;
SELECT count(*) AS after_rollback FROM pg_gpu_cache_entries() WHERE relid = :ccx_oid;
SELECT count(*), sum(b), min(a), max(a) FROM ccx;
SELECT pg_gpu_cache_table('ccx') > 0 AS cached_again;
SELECT cc_line('SELECT count(*), sum(b), min(a), max(a) FROM ccx');
SELECT count(*), sum(b), min(a), max(a) FROM ccx;
DROP TABLE ccx;
SELECT count(*) AS after_drop FROM pg_gpu_cache_entries() WHERE relid = :ccx_oid;
RESET pg_gpu.table_cache_size;

RESET pg_gpu.enabled;
RESET pg_gpu.force;
RESET pg_gpu.emulate_gpu;
DROP VIEW cc_q;
DROP FUNCTION cc_line(text);
DROP FUNCTION cc_quiet();
DROP TABLE cc, cc_u;
DROP ROLE cc_nobody;
DROP ROLE cc_reader;
