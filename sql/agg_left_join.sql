--
-- A LEFT JOIN grouped by its preserved side's key on the GPU (issue 31, TPC-H
-- Q13): GpuAgg scans the nullable table, probes the preserved side's key set,
-- groups the rows by their key, and makes every key no row matched a group of
-- its own: count(*) 1, count(x) 0, other aggregates NULL (docs/SEMANTICS.md
-- 32).  Keys not unique or NULL on the preserved side: PostgreSQL's join.
--
SET extra_float_digits = 0;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE lc (k int4 NOT NULL, flag bool);
INSERT INTO lc SELECT i, i % 3 <> 0 FROM generate_series(1, 3000) i;
CREATE TABLE lo (id int4, ck int4, v int4, w int8, note text);
-- keys above 3000 match no preserved row; NULL keys match none
INSERT INTO lo SELECT i, CASE WHEN i % 97 = 0 THEN NULL ELSE (i * 7) % 3600 END,
  CASE WHEN i % 11 = 0 THEN NULL ELSE i % 100 END, i::int8 * 1000003,
  CASE WHEN i % 5 = 0 THEN 'some special late requests' ELSE 'ordinary note ' || i END
  FROM generate_series(1, 20000) i;
CREATE TABLE l8 (k8 int8);
INSERT INTO l8 SELECT i * 10000000000 FROM generate_series(1, 400) i;
CREATE TABLE o8 (id int4, c8 int8, v int2);
INSERT INTO o8 SELECT i, (i % 300) * 20000000000, (i % 50)::int2 FROM generate_series(1, 5000) i;
CREATE TABLE l2 (k2 int2);
INSERT INTO l2 SELECT i FROM generate_series(-100, 100) i;
CREATE TABLE o2 (id int4, c2 int2);
INSERT INTO o2 SELECT i, (i % 150)::int2 FROM generate_series(1, 3000) i;
CREATE TABLE ld (k int4);
INSERT INTO ld SELECT i % 500 FROM generate_series(1, 1000) i;
CREATE TABLE ln (k int4);
INSERT INTO ln SELECT CASE WHEN i % 100 = 0 THEN NULL ELSE i END FROM generate_series(1, 1000) i;
VACUUM ANALYZE lc, lo, l8, o8, l2, o2, ld, ln;

SET pg_gpu.enabled = off;
\i sql/include/agg_left_join_q.sql
SET pg_gpu.enabled = on;
SET pg_gpu.force = on;
\i sql/include/agg_left_join_q.sql

-- the plans
EXPLAIN (COSTS OFF) SELECT lc.k, count(lo.id) FROM lc LEFT JOIN lo ON lc.k = lo.ck AND lo.note NOT LIKE '%special%requests%'
 GROUP BY lc.k;
EXPLAIN (COSTS OFF) SELECT lc.k, count(coalesce(lo.v, 0)) FROM lc LEFT JOIN lo ON lc.k = lo.ck GROUP BY lc.k;

RESET pg_gpu.force;
RESET pg_gpu.enabled;
DROP TABLE lc, lo, l8, o8, l2, o2, ld, ln;
