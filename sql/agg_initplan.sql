--
-- InitPlan parameters in GpuAgg (issue 31, TPC-H Q22's c_acctbal > (SELECT
-- avg(c_acctbal) ...)): the value of an uncorrelated scalar subquery is a
-- constant of the task, written into it before the scan runs.  numeric (at
-- scale 16, compared only; a value of more digits runs on the CPU), integers,
-- floats, dates, timestamps; NULL; with an anti-join set, in HAVING, in an
-- aggregate's argument, twice in one filter.
--
SET extra_float_digits = 0;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE ip (id int4, g int4, a numeric(12,2), b int8, f float8, d date, ts timestamp, t text);
INSERT INTO ip SELECT i, i % 7,
  CASE WHEN i % 11 = 0 THEN NULL ELSE ((i * 7919) % 20000 - 10000) / 100.0 END,
  (i * 37) % 1000 - 200, i / 7.0, date '2020-01-01' + i % 400,
  timestamp '2020-01-01' + (i % 1000) * interval '1 hour', (i % 13 + 10)::text || 'x'
  FROM generate_series(1, 20000) i;
CREATE TABLE ip_o (k int4);
INSERT INTO ip_o SELECT i * 3 FROM generate_series(1, 5000) i;
VACUUM ANALYZE ip, ip_o;

SET pg_gpu.enabled = off;
\i sql/include/agg_initplan_q.sql
SET pg_gpu.enabled = on;
SET pg_gpu.force = on;
\i sql/include/agg_initplan_q.sql

-- the plans: the parameter in the GPU filter (Q22's shape: an anti-join set too)
EXPLAIN (COSTS OFF) SELECT substring(t from 1 for 1) AS c, count(*), sum(a) FROM ip
  WHERE a > (SELECT avg(a) FROM ip WHERE a > 0.00) AND NOT EXISTS (SELECT 1 FROM ip_o WHERE k = id)
  GROUP BY 1 ORDER BY 1;
EXPLAIN (COSTS OFF) SELECT count(*) FROM ip WHERE d > (SELECT min(d) + 200 FROM ip);
-- a text parameter stays on the CPU (no GPU filter reads it)
EXPLAIN (COSTS OFF) SELECT count(*) FROM ip WHERE t = (SELECT min(t) FROM ip);

RESET pg_gpu.force;
RESET pg_gpu.enabled;
DROP TABLE ip, ip_o;
