--
-- GpuAgg: count(DISTINCT x).  The GPU groups by the GROUP BY keys and x; GpuAgg
-- folds the groups of equal keys, merging the other aggregates' states and
-- counting the non-NULL x (docs/SEMANTICS.md 25).
--
SET extra_float_digits = 0;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE td (id int4, g int4, h int4, x int4, y int8, d date, t text,
                 c char(4), b bpchar, f float8, n numeric(10,2));
INSERT INTO td SELECT i,
  CASE WHEN i % 101 = 0 THEN NULL ELSE i % 7 END,
  i % 3,
  CASE WHEN i % 13 = 0 THEN NULL ELSE (i * 7) % 500 END,
  (i % 211)::int8 * 10000000000,
  date '2020-01-01' + (i % 97),
  CASE WHEN i % 17 = 0 THEN NULL ELSE 't' || (i % 40) END,
  (i % 9)::text,
  CASE i % 3 WHEN 0 THEN 'x' WHEN 1 THEN 'x  ' ELSE 'y ' END,
  (i % 50) / 4.0,
  (i % 60) / 4.0
  FROM generate_series(1, 20000) i;
-- a group whose x are all NULL, trailing blanks, -0 and NaN, 1.0 and 1.00
INSERT INTO td VALUES
  (30001, 99, 0, NULL, NULL, NULL, 'a', 'a', 'a', -0.0, 1.0),
  (30002, 99, 1, NULL, 1, NULL, 'a ', 'a  ', 'a   ', 0.0, 1.00),
  (30003, 99, 2, NULL, 2, NULL, 'a  ', 'b', 'b ', 'NaN', 2),
  (30004, 98, 0, 5, 3, NULL, '', '', '', 'NaN', 1.000),
  (30005, 98, 0, 5, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
CREATE TABLE tde (g int4, x int4, t text);
-- beside internal states: numeric(15,2) sums and averages, int8 sums
-- (serialized partial states, deserialized and finished by PostgreSQL's
-- functions); group 7's values are all NULL, group NULL has one row
CREATE TABLE tdn (g int4, u int4, amt numeric(15,2), qty numeric(15,2), big int8, q int4);
INSERT INTO tdn SELECT i % 6,
  CASE WHEN i % 19 = 0 THEN NULL ELSE (i * 13) % 400 END,
  CASE WHEN i % 23 = 0 THEN NULL ELSE ((i * 7919) % 2000000 - 1000000) / 100.0 END,
  CASE WHEN i % 29 = 0 THEN NULL ELSE (i % 1000) / 4.0 END,
  CASE WHEN i % 31 = 0 THEN NULL ELSE (i::int8 * 1000003) % 9000000000000000000 * (1 - 2 * (i % 2)) END,
  CASE WHEN i % 37 = 0 THEN NULL ELSE i % 100000 - 50000 END
  FROM generate_series(1, 12000) i;
INSERT INTO tdn VALUES (7, 1, NULL, NULL, NULL, NULL), (7, 2, NULL, NULL, NULL, NULL),
  (7, NULL, NULL, NULL, NULL, NULL), (NULL, 5, 1.25, 2.50, 9223372036854775807, 2147483647),
  (8, 3, 9999999999999.99, 9999999999999.99, 9223372036854775807, 2147483647),
  (8, 4, 9999999999999.99, 9999999999999.99, 9223372036854775807, 2147483647),
  (8, 4, -0.01, 0.01, -9223372036854775808, -2147483648);
-- 200,000 rows: 10,000 (g, x) pairs, and 200,000 values of v (the GPU's table grows)
CREATE TABLE td_big (g int4, x int4, v int4) WITH (autovacuum_enabled = off);
INSERT INTO td_big SELECT i % 4, i % 10000, i FROM generate_series(1, 200000) i;
-- dimensions: unique keys, and repeated ones (the executor gives those back)
CREATE TABLE tdim (k int4 PRIMARY KEY, name text, grp int4);
INSERT INTO tdim SELECT i, 'n' || (i % 3), i % 4 FROM generate_series(0, 90) i;
CREATE TABLE tdup (k int4, name text);
INSERT INTO tdup SELECT i % 5, 'd' || i FROM generate_series(0, 9) i;
VACUUM ANALYZE td, tde, tdim, tdup, tdn;
VACUUM td_big;

SET pg_gpu.enabled = off;
\i sql/include/agg_distinct_q.sql
SET pg_gpu.enabled = on;
SET pg_gpu.force = on;
\i sql/include/agg_distinct_q.sql
SET pg_gpu.chunk_pages = 16;
SET pg_gpu.direct_groups = off;
\i sql/include/agg_distinct_q.sql
RESET pg_gpu.direct_groups;
RESET pg_gpu.chunk_pages;
-- groups whose keys' hashes collide (one bit kept): the fold sorts them apart
SET pg_gpu.debug_fold_hash_bits = 1;
\i sql/include/agg_distinct_q.sql
RESET pg_gpu.debug_fold_hash_bits;

-- the GPU node, x among its keys
EXPLAIN (COSTS OFF) SELECT count(DISTINCT x) FROM td;
EXPLAIN (COSTS OFF) SELECT g, count(DISTINCT x), sum(h), count(*) FROM td WHERE id > 10 GROUP BY g;
EXPLAIN (COSTS OFF) SELECT g, h, count(DISTINCT t) FROM td GROUP BY g, h HAVING count(DISTINCT t) > 3;
EXPLAIN (COSTS OFF) SELECT b, count(DISTINCT c) FROM td GROUP BY b ORDER BY 2 DESC LIMIT 2;
EXPLAIN (COSTS OFF) SELECT tdim.grp, count(DISTINCT td.x) FROM td JOIN tdim ON td.h = tdim.k GROUP BY tdim.grp;
-- aggregates with internal states beside it: GpuAgg deserializes and finishes them
EXPLAIN (COSTS OFF) SELECT g, count(DISTINCT u), sum(amt), avg(qty), sum(big), avg(big), avg(q), sum(q) FROM tdn GROUP BY g;
EXPLAIN (COSTS OFF) SELECT count(DISTINCT u), sum(amt), avg(big), variance(q), stddev(big) FROM tdn;
EXPLAIN (COSTS OFF) SELECT g, count(DISTINCT u), sum(amt) FROM tdn GROUP BY g HAVING sum(amt) > 0;
-- PostgreSQL's plan: numeric x, two distinct arguments, sum(DISTINCT),
-- FILTER, ORDER BY in the aggregate, float avg beside a distinct count
EXPLAIN (COSTS OFF) SELECT count(DISTINCT n) FROM td;
EXPLAIN (COSTS OFF) SELECT count(DISTINCT x), count(DISTINCT y) FROM td;
EXPLAIN (COSTS OFF) SELECT sum(DISTINCT x) FROM td;
EXPLAIN (COSTS OFF) SELECT count(DISTINCT x) FILTER (WHERE g = 1) FROM td;
EXPLAIN (COSTS OFF) SELECT g, count(DISTINCT x), avg(f) FROM td GROUP BY g;
EXPLAIN (COSTS OFF) SELECT count(DISTINCT x ORDER BY x) FROM td;
-- the fallback: the GPU fails after one chunk, PostgreSQL's sorted aggregate answers
SET pg_gpu.expect_gpu = off;
SET pg_gpu.chunk_pages = 8;
SET pg_gpu.debug_fail_after_chunks = 1;
SELECT g, count(DISTINCT x), sum(x), count(*) FROM td GROUP BY g ORDER BY g;
SELECT count(DISTINCT x), count(*) FROM td;
SELECT g, count(DISTINCT u), sum(amt), avg(big) FROM tdn GROUP BY g ORDER BY g;
RESET pg_gpu.debug_fail_after_chunks;
-- repeated dimension keys: the CPU joins
SELECT tdup.name, count(DISTINCT td.x), count(*) FROM td JOIN tdup ON td.g = tdup.k GROUP BY tdup.name ORDER BY 1;
SELECT count(DISTINCT td.x), count(*) FROM td JOIN tdup ON td.g = tdup.k;
RESET pg_gpu.chunk_pages;
RESET pg_gpu.expect_gpu;

RESET pg_gpu.force;
RESET pg_gpu.enabled;
DROP TABLE td, tde, td_big, tdim, tdup, tdn;
