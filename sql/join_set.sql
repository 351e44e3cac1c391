--
-- exact-match lookups against a key set: IN / EXISTS / NOT EXISTS / inner
-- joins under an aggregate, and long IN lists (issue 5)
--
SET extra_float_digits = 0;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE js_w (id int4, w text, v varchar(40), c char(6), i2 int2, i4 int4, i8 int8, d date);
INSERT INTO js_w SELECT i,
  CASE WHEN i % 101 = 0 THEN NULL ELSE md5((i % 3000)::text) END,
  'v' || (i % 700),
  CASE WHEN i % 103 = 0 THEN NULL ELSE (i % 50)::text END,
  (i % 900)::int2, CASE WHEN i % 107 = 0 THEN NULL ELSE i % 5000 END, (i % 2000)::int8 * 1000000007,
  date '2020-01-01' + (i % 400)
  FROM generate_series(1, 20000) i;
-- bpchar padding, multibyte UTF-8, empty strings, and in-line values over 1 kB
ALTER TABLE js_w ALTER COLUMN w SET STORAGE PLAIN;
INSERT INTO js_w VALUES
  (30001, '', '', '', 1, 1, 1, NULL), (30002, 'ab', 'ab', 'ab', 2, 2, 2, NULL),
  (30003, 'ab ', 'ab ', 'ab    ', 3, 3, 3, NULL), (30004, 'äöü', 'äöü', 'äöü', 4, 4, 4, NULL),
  (30005, '日本語', '日本語', '日本', 5, 5, 5, NULL),
  (30006, repeat('long', 400), 'l', 'l', 6, 6, 6, NULL),
  (30007, repeat('long', 400) || 'x', 'l', 'l', 7, 7, 7, NULL);
-- keys: duplicates, NULLs, padding, multibyte, a long one
CREATE TABLE js_k (k text, v varchar(40), c char(4), i4 int4, i8 int8, d date);
INSERT INTO js_k SELECT md5((i * 7)::text), 'v' || (i * 3), (i % 40 + 5)::text, i * 3,
  (i * 2)::int8 * 1000000007, date '2020-03-01' + i
  FROM generate_series(1, 600) i;
INSERT INTO js_k SELECT md5((i * 7)::text), 'v' || (i * 3), (i % 40 + 5)::text, i * 3, NULL, NULL
  FROM generate_series(1, 40) i;
INSERT INTO js_k VALUES (NULL, NULL, NULL, NULL, NULL, NULL), ('', '', '', 1, 1, NULL),
  ('ab', 'ab', 'ab', 2, 2, NULL), ('äöü', 'äöü', 'äöü', 4, 4, NULL), ('日本語', '日本語', '日本', 5, 5, NULL),
  (repeat('long', 400), 'l', 'l', 6, 6, NULL);
-- the same keys without duplicates or NULLs
CREATE TABLE js_u AS SELECT DISTINCT k, i4 FROM js_k WHERE k IS NOT NULL AND i4 IS NOT NULL;
CREATE TABLE js_empty (k text, i4 int4);
CREATE TABLE js_w_empty (LIKE js_w);
-- a compressed probe value: the CPU re-runs the query
CREATE TABLE js_toast (id int4, w text);
INSERT INTO js_toast SELECT i, md5((i * 7)::text) FROM generate_series(1, 1000) i;
INSERT INTO js_toast VALUES (2001, repeat('z', 100000));
VACUUM ANALYZE js_w, js_k, js_u, js_empty, js_w_empty, js_toast;

SET pg_gpu.enabled = off;
\i sql/include/join_set_q.sql
SET pg_gpu.enabled = on;
SET pg_gpu.force = on;
\i sql/include/join_set_q.sql
SET pg_gpu.chunk_pages = 16;
\i sql/include/join_set_q.sql
RESET pg_gpu.chunk_pages;
-- parallel workers pin the pages in place; a join's probe-side workers start
-- before its key set is built (by a scan with workers of its own) when its
-- plans are parallel-safe
SET pg_gpu.register_min_pages = 0;
SET pg_gpu.pin_workers = 3;
SET pg_gpu.pin_workers_min_pages = 0;
SET max_parallel_workers_per_gather = 2;
\i sql/include/join_set_q.sql
SET max_parallel_workers_per_gather = 0;
RESET pg_gpu.register_min_pages;
RESET pg_gpu.pin_workers;
RESET pg_gpu.pin_workers_min_pages;
-- a build side that is not parallel-safe runs before the probe's pin workers start
CREATE FUNCTION js_unsafe(k text) RETURNS text LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE AS $$
BEGIN
  BEGIN
    RETURN k;
  EXCEPTION WHEN OTHERS THEN
    RETURN NULL;
  END;
END $$;
SET pg_gpu.register_min_pages = 0;
SET pg_gpu.pin_workers = 3;
SET pg_gpu.pin_workers_min_pages = 0;
SET max_parallel_workers_per_gather = 2;
SELECT count(*), sum(id) FROM js_w WHERE w IN (SELECT js_unsafe(k) FROM js_k);
SELECT count(*), sum(id) FROM (SELECT id FROM js_w WHERE w IN (SELECT js_unsafe(k) FROM js_k) OFFSET 0) s;
SET pg_gpu.enabled = off;
SELECT count(*), sum(id) FROM js_w WHERE w IN (SELECT js_unsafe(k) FROM js_k);
SET pg_gpu.enabled = on;
SET max_parallel_workers_per_gather = 0;
RESET pg_gpu.register_min_pages;
RESET pg_gpu.pin_workers;
RESET pg_gpu.pin_workers_min_pages;
DROP FUNCTION js_unsafe(text);
-- keys over pg_gpu.slot_sort_memory: PostgreSQL's join runs
SET pg_gpu.slot_sort_memory = '64kB';
SELECT count(*), sum(id) FROM js_w WHERE w IN (SELECT k || repeat('x', 100) FROM js_k UNION ALL SELECT k FROM js_k);
SELECT count(*) FROM js_w JOIN js_k ON js_w.i4 = js_k.i4;
RESET pg_gpu.slot_sort_memory;

-- where the build side's keys came from: the build table's pages, collected
-- by the GPU, or its plan, run by PostgreSQL
CREATE FUNCTION js_keys_from(q text, want text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  p jsonb;
  ks text;
BEGIN
  EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, FORMAT JSON) ' || q INTO p;
  IF jsonb_path_query_first(p, 'strict $.**."Fallback"') #>> '{}' IN ('no gpu', 'not compiled') THEN
    RETURN 'ok';
  END IF;
  ks := jsonb_path_query_first(p, 'strict $.**."Key Set"') #>> '{}';
  IF (ks LIKE '%collected on the GPU from % pages)' AND want = 'pages') OR
     (ks NOT LIKE '%collected on the GPU from %' AND want = 'plan') THEN
    RETURN 'ok';
  END IF;
  RETURN coalesce(ks, 'no key set');
END $$;
SELECT js_keys_from('SELECT count(*) FROM js_w WHERE w IN (SELECT k FROM js_k)', 'pages');
SELECT js_keys_from('SELECT count(*) FROM js_w WHERE NOT EXISTS (SELECT 1 FROM js_k WHERE js_k.i4 = js_w.i4)', 'pages');
SELECT js_keys_from('SELECT count(*) FROM js_w WHERE i8 IN (SELECT i4 * 2 FROM js_k WHERE k <> '''')', 'pages');
SELECT js_keys_from('SELECT count(*) FROM js_w JOIN js_k ON w = k', 'pages');
SELECT js_keys_from('SELECT id FROM js_w WHERE c IN (SELECT c FROM js_k) ORDER BY id', 'pages');
-- x [NOT] IN (SELECT ...) left as a subplan that scans one table
SELECT js_keys_from('SELECT count(*) FROM js_w WHERE w NOT IN (SELECT k FROM js_k)', 'pages');
SELECT js_keys_from('SELECT count(*) FROM js_w WHERE i8 NOT IN (SELECT i4 FROM js_k WHERE i4 IS NOT NULL)', 'pages');
SELECT js_keys_from('SELECT count(*) FROM js_w WHERE w IN (SELECT k FROM js_k) OR id < 100', 'pages');
SET pg_gpu.chunk_pages = 1;
SELECT js_keys_from('SELECT count(*) FROM js_w WHERE w IN (SELECT k FROM js_k)', 'pages');
SELECT js_keys_from('SELECT count(*) FROM js_w WHERE w NOT IN (SELECT k FROM js_k WHERE k IS NOT NULL)', 'pages');
RESET pg_gpu.chunk_pages;
-- a compressed key: the build plan runs instead; so it does for a filter the
-- GPU cannot run, and for a build side that is not one table
SELECT js_keys_from('SELECT count(*) FROM js_w WHERE w IN (SELECT w FROM js_toast)', 'plan');
SELECT js_keys_from('SELECT count(*) FROM js_w WHERE w IN (SELECT k FROM js_k WHERE k ~ ''^[0-7]'')', 'plan');
SELECT js_keys_from('SELECT count(*) FROM js_w WHERE w IN (SELECT k FROM js_k UNION ALL SELECT k FROM js_u)', 'plan');
SELECT js_keys_from('SELECT count(*) FROM js_w WHERE w NOT IN (SELECT k FROM js_k UNION ALL SELECT k FROM js_u)', 'plan');
SELECT js_keys_from('SELECT count(*) FROM js_w WHERE w NOT IN (SELECT w FROM js_toast)', 'plan');
DROP FUNCTION js_keys_from(text, text);

-- the rows of a join came from the GPU (GpuHashJoin or GpuSemiJoin ran with no
-- fallback), or it fell back for the reason wanted
CREATE FUNCTION js_gpujoin(q text, want text DEFAULT NULL) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  p jsonb;
  fb text;
BEGIN
  EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, FORMAT JSON) ' || q INTO p;
  IF NOT jsonb_path_exists(p, 'strict $.** ? (@."Custom Plan Provider" like_regex "^Gpu(Hash|Semi)Join$")') THEN
    RETURN 'no GPU join';
  END IF;
  fb := jsonb_path_query_first(p, 'strict $.** ? (@."Custom Plan Provider" like_regex "^Gpu(Hash|Semi)Join$")."Fallback"') #>> '{}';
  IF fb IN ('no gpu', 'not compiled') OR (fb IS NOT DISTINCT FROM want) OR
     (want = 'runs' AND fb IS NULL AND (jsonb_path_query_first(p,
       'strict $.** ? (@."Custom Plan Provider" like_regex "^Gpu(Hash|Semi)Join$")."Sorted Runs Merged"') #>> '{}')::int > 1) THEN
    RETURN 'ok';
  END IF;
  RETURN coalesce(fb, 'ran on the GPU');
END $$;
SELECT js_gpujoin('SELECT id, w FROM js_w WHERE w IN (SELECT k FROM js_k)');
SELECT js_gpujoin('SELECT id FROM js_w WHERE NOT EXISTS (SELECT 1 FROM js_k WHERE js_k.i4 = js_w.i4)');
SELECT js_gpujoin('SELECT js_w.id FROM js_w JOIN js_k ON w = k');
SELECT js_gpujoin('SELECT js_w.* FROM js_w JOIN js_k ON js_w.i8 = js_k.i8 WHERE js_w.id > 5');
SELECT js_gpujoin('SELECT id % 7, upper(w) FROM js_w WHERE c IN (SELECT c FROM js_k)');
SELECT js_gpujoin('SELECT js_w.id, js_k.i8, js_k.d FROM js_w JOIN js_k ON js_w.i4 = js_k.i4');
SELECT js_gpujoin('SELECT js_w.*, js_k.c FROM js_w JOIN js_k ON js_w.c = js_k.c WHERE js_w.id > 100');
-- aggregates the GPU does not run, over a join's rows from the GPU
SELECT js_gpujoin('SELECT string_agg(w, '','') FROM js_w WHERE w IN (SELECT k FROM js_k)');
SELECT js_gpujoin('SELECT sum(DISTINCT js_w.i4) FROM js_w JOIN js_k ON w = k WHERE js_w.i4 % 2 = 0');
-- a compressed probe value: GpuSemiJoin gives the rows back to PostgreSQL's join
SELECT js_gpujoin('SELECT id FROM js_toast WHERE w IN (SELECT k FROM js_k)', 'toasted value');
SELECT count(*), sum(id) FROM js_toast WHERE w IN (SELECT k FROM js_k);
-- more rows than the GPU memory budget holds: sorted runs, merged; the build
-- side's rows still paired in the order of their keys' ordinals
SET pg_gpu.device_memory_limit = '4MB';
SELECT js_gpujoin('SELECT js_w.id, js_k.i8 FROM js_w JOIN js_k ON js_w.w = js_k.k', 'runs');
SELECT js_gpujoin('SELECT js_w.id FROM js_w WHERE w IN (SELECT k FROM js_k)', 'runs');
SELECT count(*), sum(id), md5(string_agg(id || ':' || coalesce(i8::text, '-') || ':' || k, ',' ORDER BY id, i8, k))
  FROM (SELECT js_w.id, js_k.i8, js_k.k FROM js_w JOIN js_k ON js_w.w = js_k.k OFFSET 0) s;
SELECT count(*), sum(id), md5(string_agg(id::text, ',' ORDER BY id))
  FROM (SELECT js_w.id FROM js_w JOIN js_k ON js_w.i4 = js_k.i4 OFFSET 0) s;
RESET pg_gpu.device_memory_limit;
SET pg_gpu.enabled = off;
SELECT count(*), sum(id), md5(string_agg(id || ':' || coalesce(i8::text, '-') || ':' || k, ',' ORDER BY id, i8, k))
  FROM (SELECT js_w.id, js_k.i8, js_k.k FROM js_w JOIN js_k ON js_w.w = js_k.k OFFSET 0) s;
SELECT count(*), sum(id), md5(string_agg(id::text, ',' ORDER BY id))
  FROM (SELECT js_w.id FROM js_w JOIN js_k ON js_w.i4 = js_k.i4 OFFSET 0) s;
SET pg_gpu.enabled = on;
-- a compressed probe value: GpuHashJoin reading the build side gives the rows back too
SELECT js_gpujoin('SELECT js_toast.id, js_k.i4 FROM js_toast JOIN js_k ON js_toast.w = js_k.k', 'toasted value');
SELECT count(*), sum(id), sum(i4) FROM (SELECT js_toast.id, js_k.i4 FROM js_toast JOIN js_k ON js_toast.w = js_k.k OFFSET 0) s;
-- an error while GpuHashJoin hands out rows paired with kept build rows, then
-- queries that make memory contexts of their own
SELECT sum(x) FROM (SELECT js_w.id / (js_k.i4 - 3) AS x FROM js_w JOIN js_k ON js_w.w = js_k.k OFFSET 0) s;
SELECT i2 % 3 AS g, count(DISTINCT i4), md5(string_agg(DISTINCT c, ',' ORDER BY c)) FROM js_w GROUP BY 1 ORDER BY 1;
SELECT count(*), sum(id) FROM (SELECT js_w.id, js_k.i8 FROM js_w JOIN js_k ON js_w.w = js_k.k OFFSET 0) s;
DROP FUNCTION js_gpujoin(text, text);

-- plans: the key set's source is the GpuAgg's second child
EXPLAIN (COSTS OFF) SELECT count(*) FROM js_w WHERE w IN (SELECT k FROM js_k);
EXPLAIN (COSTS OFF) SELECT count(*) FROM js_w WHERE NOT EXISTS (SELECT 1 FROM js_k WHERE k = w);
EXPLAIN (COSTS OFF) SELECT count(*) FROM js_w JOIN js_k ON w = k;
-- rows in order: GpuSort over the probe table, an inner join's rows repeated per
-- equal key; rows in no order: GpuHashJoin or GpuSemiJoin, with PostgreSQL's
-- join as its fallback
EXPLAIN (COSTS OFF) SELECT id FROM js_w WHERE w IN (SELECT k FROM js_k) ORDER BY id;
EXPLAIN (COSTS OFF) SELECT js_w.id FROM js_w JOIN js_k ON w = k ORDER BY js_w.id;
EXPLAIN (COSTS OFF) SELECT id, w FROM js_w WHERE w IN (SELECT k FROM js_k);
EXPLAIN (COSTS OFF) SELECT js_w.id FROM js_w JOIN js_k ON js_w.i4 = js_k.i4 WHERE js_w.id > 10;
EXPLAIN (COSTS OFF) SELECT id % 7 FROM js_w WHERE NOT EXISTS (SELECT 1 FROM js_k WHERE k = w);
-- the build side's columns in the output: GpuHashJoin keeps the build plan's rows
-- (the keys then come from that plan, not from pages)
EXPLAIN (COSTS OFF) SELECT js_w.id, js_k.k, js_k.i8 FROM js_w JOIN js_k ON w = k;
-- a system column of the probe table beside the build side's columns: not from the
-- pages; GpuHashJoin takes the rows of the table's scan as its probe plan
EXPLAIN (COSTS OFF) SELECT js_w.ctid, js_k.k FROM js_w JOIN js_k ON w = k;
-- NOT IN (SELECT ...): the subplan's keys; a correlated subplan stays on the CPU
EXPLAIN (COSTS OFF) SELECT count(*) FROM js_w WHERE w NOT IN (SELECT k FROM js_k);
EXPLAIN (COSTS OFF) SELECT count(*) FROM js_w WHERE w NOT IN (SELECT k FROM js_k WHERE js_k.i4 = js_w.i4);
-- a subplan too big to hash in work_mem: the plain one, rescanned per row on the CPU
SET work_mem = '64kB';
EXPLAIN (COSTS OFF) SELECT count(*), sum(i4) FROM js_u WHERE k NOT IN (SELECT w FROM js_w WHERE w IS NOT NULL);
SELECT count(*), sum(i4) FROM js_u WHERE k NOT IN (SELECT w FROM js_w WHERE w IS NOT NULL);
SET pg_gpu.enabled = off;
SELECT count(*), sum(i4) FROM js_u WHERE k NOT IN (SELECT w FROM js_w WHERE w IS NOT NULL);
SET pg_gpu.enabled = on;
RESET work_mem;
EXPLAIN (COSTS OFF) SELECT i4 % 3, count(*) FROM js_w WHERE i4 IN (SELECT i4 FROM js_k WHERE i8 > 0) GROUP BY 1;
EXPLAIN (COSTS OFF) SELECT count(*) FROM js_w WHERE i4 IN (1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20);
-- stays on the CPU: two join clauses, an outer join, a key from both sides,
-- a float key, a nondeterministic collation
EXPLAIN (COSTS OFF) SELECT count(*) FROM js_w WHERE EXISTS (SELECT 1 FROM js_k WHERE k = w AND js_k.i4 = js_w.i4);
EXPLAIN (COSTS OFF) SELECT count(*) FROM js_w LEFT JOIN js_k ON w = k;
EXPLAIN (COSTS OFF) SELECT count(k) FROM js_w JOIN js_k ON w = k;
EXPLAIN (COSTS OFF) SELECT count(*) FROM js_w WHERE i4::float8 IN (SELECT i4::float8 FROM js_k);
CREATE COLLATION js_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
EXPLAIN (COSTS OFF) SELECT count(*) FROM js_w WHERE w COLLATE js_ci IN (SELECT k FROM js_k);
SELECT count(*) FROM js_w WHERE upper(w) COLLATE js_ci IN (SELECT k FROM js_k);
EXPLAIN (COSTS OFF) SELECT count(*) FROM js_w WHERE w COLLATE js_ci NOT IN (SELECT k FROM js_k);
SET pg_gpu.enable_gpujoin = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM js_w WHERE w IN (SELECT k FROM js_k);
EXPLAIN (COSTS OFF) SELECT count(*) FROM js_w WHERE w NOT IN (SELECT k FROM js_k);
RESET pg_gpu.enable_gpujoin;

RESET pg_gpu.force;
RESET pg_gpu.enabled;
DROP TABLE js_w, js_k, js_u, js_empty, js_w_empty, js_toast;
DROP COLLATION js_ci;
