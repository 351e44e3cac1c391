--
-- GpuSemiJoin and GpuHashJoin over a child plan that gives the probe rows (a
-- partitioned table, a subquery, a join): the rows pass through the CPU in
-- batches, their keys are probed on the GPU (issue 5)
--
SET extra_float_digits = 0;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE jp_w (id int4, w text, c char(6), i2 int2, i4 int4, i8 int8, d date)
  PARTITION BY HASH (id);
CREATE TABLE jp_w0 PARTITION OF jp_w FOR VALUES WITH (MODULUS 3, REMAINDER 0);
CREATE TABLE jp_w1 PARTITION OF jp_w FOR VALUES WITH (MODULUS 3, REMAINDER 1);
CREATE TABLE jp_w2 PARTITION OF jp_w FOR VALUES WITH (MODULUS 3, REMAINDER 2);
INSERT INTO jp_w SELECT i,
  CASE WHEN i % 101 = 0 THEN NULL ELSE md5((i % 2500)::text) END,
  CASE WHEN i % 103 = 0 THEN NULL ELSE (i % 50)::text END,
  (i % 900)::int2, CASE WHEN i % 107 = 0 THEN NULL ELSE i % 4000 END, (i % 2000)::int8 * 1000000007,
  date '2020-01-01' + (i % 400)
  FROM generate_series(1, 12000) i;
-- bpchar padding, multibyte UTF-8, empty strings, a long in-line value and a
-- compressed one (keys computed on the CPU: both fine)
INSERT INTO jp_w VALUES
  (30001, '', '', 1, 1, 1, NULL), (30002, 'ab', 'ab', 2, 2, 2, NULL),
  (30003, 'ab ', 'ab    ', 3, 3, 3, NULL), (30004, 'äöü', 'äöü', 4, 4, 4, NULL),
  (30005, '日本語', '日本', 5, 5, 5, NULL),
  (30006, repeat('long', 400), 'l', 6, 6, 6, NULL),
  (30007, repeat('z', 100000), 'z', 7, 7, 7, NULL);
-- keys: duplicates, NULLs, padding, multibyte, the long ones
CREATE TABLE jp_k (k text, c char(4), i4 int4, i8 int8, d date);
INSERT INTO jp_k SELECT md5((i * 7)::text), (i % 40 + 5)::text, i * 3,
  (i * 2)::int8 * 1000000007, date '2020-03-01' + i
  FROM generate_series(1, 500) i;
INSERT INTO jp_k SELECT md5((i * 7)::text), (i % 40 + 5)::text, i * 3, NULL, NULL
  FROM generate_series(1, 40) i;
INSERT INTO jp_k VALUES (NULL, NULL, NULL, NULL, NULL), ('', '', 1, 1, NULL),
  ('ab', 'ab', 2, 2, NULL), ('äöü', 'äöü', 4, 4, NULL), ('日本語', '日本', 5, 5, NULL),
  (repeat('long', 400), 'l', 6, 6, NULL), (repeat('z', 100000), 'z', 7, 7, NULL);
CREATE TABLE jp_empty (k text, i4 int4);
CREATE TABLE jp_t (id int4, g int4);
INSERT INTO jp_t SELECT i, i % 7 FROM generate_series(1, 12000, 2) i;
VACUUM ANALYZE jp_w, jp_k, jp_empty, jp_t;

-- the plans: the probe side a partitioned table, a subquery, a join
SET pg_gpu.force = on;
EXPLAIN (COSTS OFF) SELECT id FROM jp_w WHERE w IN (SELECT k FROM jp_k);
EXPLAIN (COSTS OFF) SELECT count(*) FROM jp_w WHERE NOT EXISTS (SELECT 1 FROM jp_k WHERE k = w);
EXPLAIN (COSTS OFF) SELECT jp_w.id, kk.i8 FROM jp_w JOIN (SELECT * FROM jp_k OFFSET 0) kk ON w = kk.k;
EXPLAIN (COSTS OFF) SELECT a.id FROM (SELECT id, w FROM jp_w ORDER BY id LIMIT 5000) a
  WHERE a.w IN (SELECT k FROM jp_k);
EXPLAIN (COSTS OFF) SELECT jp_w.id, jp_t.g FROM jp_w JOIN jp_t ON jp_w.id = jp_t.id
  WHERE jp_w.i4 IN (SELECT i4 FROM jp_k);
RESET pg_gpu.force;

SET pg_gpu.enabled = off;
\i sql/include/join_slot_q.sql
SET pg_gpu.enabled = on;
SET pg_gpu.force = on;
\i sql/include/join_slot_q.sql
-- batches of 7 rows: an inner join's matches and the probe rows across batches
SET pg_gpu.join_batch_rows = 7;
\i sql/include/join_slot_q.sql
RESET pg_gpu.join_batch_rows;

-- each GPU join ran on the GPU (or, without one, fell back for that reason only)
CREATE FUNCTION jp_gpujoin(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  p jsonb;
  n jsonb;
BEGIN
  EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, FORMAT JSON) ' || q INTO p;
  n := jsonb_path_query_first(p, 'strict $.** ? (@."Custom Plan Provider" like_regex "^Gpu(Hash|Semi)Join$")');
  IF n IS NULL OR n->>'Probe' IS NULL THEN
    RETURN 'no GPU join over a child plan';
  END IF;
  IF n->>'Fallback' IN ('no gpu', 'not compiled') OR (n->>'Rows Probed')::int8 >= 0 THEN
    RETURN 'ok';
  END IF;
  RETURN coalesce(n->>'Fallback', 'did not run');
END $$;
SELECT jp_gpujoin('SELECT id FROM jp_w WHERE w IN (SELECT k FROM jp_k)');
SELECT jp_gpujoin('SELECT id FROM jp_w WHERE NOT EXISTS (SELECT 1 FROM jp_k WHERE jp_k.i4 = jp_w.i4)');
SELECT jp_gpujoin('SELECT jp_w.id, kk.i8, kk.k FROM jp_w JOIN (SELECT * FROM jp_k OFFSET 0) kk ON w = kk.k');
SELECT jp_gpujoin('SELECT jp_w.id FROM jp_w JOIN (SELECT * FROM jp_k OFFSET 0) kk ON jp_w.c = kk.c');
SELECT jp_gpujoin('SELECT count(*) FROM (SELECT i4 FROM jp_w OFFSET 0) a JOIN (SELECT * FROM jp_k OFFSET 0) kk ON a.i4 = kk.i4');
SELECT jp_gpujoin('SELECT a.id FROM (SELECT id, w FROM jp_w ORDER BY id LIMIT 5000) a WHERE a.w IN (SELECT k FROM jp_k)');
SELECT jp_gpujoin('SELECT jp_w.id FROM jp_w JOIN jp_t ON jp_w.id = jp_t.id WHERE jp_w.i4 IN (SELECT i4 FROM jp_k)');
-- a cursor, read backwards (PostgreSQL adds a Material node)
BEGIN;
DECLARE cur SCROLL CURSOR FOR SELECT jp_w.id, kk.i4 FROM jp_w JOIN (SELECT * FROM jp_k OFFSET 0) kk
  ON w = kk.k WHERE jp_w.id = 30004;
MOVE FORWARD ALL IN cur;
FETCH BACKWARD 1 IN cur;
FETCH ABSOLUTE 1 IN cur;
COMMIT;
-- an error while the rows go up, then the session goes on
SELECT jp_w.id / (kk.i4 - 7) FROM jp_w JOIN (SELECT * FROM jp_k OFFSET 0) kk ON w = kk.k;
SELECT count(*), sum(id) FROM jp_w WHERE w IN (SELECT k FROM jp_k);
-- with a parameter
PREPARE jp_q(int) AS SELECT count(*), sum(id) FROM jp_w WHERE w IN (SELECT k FROM jp_k WHERE i4 > $1);
EXECUTE jp_q(100);
EXECUTE jp_q(1000);
DEALLOCATE jp_q;
-- no GPU join inside a recursive query (a worktable has one read position, which a
-- fallback would share) or beside volatile functions (a fallback runs them again)
SET pg_gpu.slot_sort_memory = '64kB';
WITH RECURSIVE r(n, d) AS (SELECT g, 0 FROM generate_series(1, 300) g
  UNION ALL SELECT jp_t.id + 1, r.d + 1 FROM jp_t JOIN r ON jp_t.id = r.n WHERE r.d < 3)
SELECT d, count(*) FROM r GROUP BY d ORDER BY d;
RESET pg_gpu.slot_sort_memory;
EXPLAIN (COSTS OFF) SELECT id, random() < 2 FROM jp_w WHERE w IN (SELECT k FROM jp_k);
RESET pg_gpu.force;
-- without pg_gpu.force a table this small keeps PostgreSQL's join
EXPLAIN (COSTS OFF) SELECT id FROM jp_w WHERE w IN (SELECT k FROM jp_k);
DROP FUNCTION jp_gpujoin(text);
DROP TABLE jp_w, jp_k, jp_empty, jp_t;
