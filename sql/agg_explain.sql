--
-- Interfaces: pg_gpu_stats, pg_gpu_fallbacks, GUCs, EXPLAIN shape
--
SET max_parallel_workers_per_gather = 0;
SELECT node FROM pg_gpu_stats ORDER BY node;
SELECT count(*) >= 0 AS ok FROM pg_gpu_fallbacks;
SELECT name, CASE WHEN name LIKE '%_cost' THEN '(calibrated)' ELSE setting END AS setting
  FROM pg_settings WHERE name LIKE 'pg_gpu.%' AND name NOT IN ('pg_gpu.expect_gpu', 'pg_gpu.emulate_gpu', 'pg_gpu.table_cache_size')
  ORDER BY name;
CREATE TABLE ex_t (a int4, b float8);
INSERT INTO ex_t SELECT i, i FROM generate_series(1, 1000) i;
ANALYZE ex_t;
SET pg_gpu.force = on;
EXPLAIN (COSTS OFF) SELECT count(*), max(b) FROM ex_t;
EXPLAIN (COSTS OFF, VERBOSE) SELECT count(*), max(b) FROM ex_t;
-- WHERE and GROUP BY run on the GPU; the aggregate below is the fallback.
-- Grouped, GpuAgg finishes the groups (HAVING on top of it), internal states
-- (avg(int8)) through their deserialize and final functions ...
EXPLAIN (COSTS OFF) SELECT a % 10, count(*), avg(b) FROM ex_t WHERE a > 10 AND b < 500 GROUP BY 1;
EXPLAIN (COSTS OFF) SELECT a % 10, count(*) * 2 FROM ex_t GROUP BY 1 HAVING max(b) > 10 ORDER BY 2;
EXPLAIN (COSTS OFF) SELECT a % 10, count(*), avg(a::int8) FROM ex_t GROUP BY 1;
-- ... unless pg_gpu.direct_groups is off: PostgreSQL's Finalize Aggregate
-- does, over one row per group
SET pg_gpu.direct_groups = off;
EXPLAIN (COSTS OFF) SELECT a % 10, count(*), avg(a::int8) FROM ex_t GROUP BY 1;
RESET pg_gpu.direct_groups;
EXPLAIN (COSTS OFF) SELECT sum(a * 2) FROM ex_t WHERE a IN (1, 2, 3) OR b IS NULL;
-- a filter or key the GPU cannot evaluate keeps PostgreSQL's plan
EXPLAIN (COSTS OFF) SELECT count(*) FROM ex_t WHERE abs(a) > 10;
EXPLAIN (COSTS OFF) SELECT a::text, count(*) FROM ex_t GROUP BY 1;
-- a prepared statement keeps working across executions
PREPARE q AS SELECT count(*), sum(a), max(b) FROM ex_t;
EXECUTE q;
INSERT INTO ex_t VALUES (5000, 5000);
EXECUTE q;
DEALLOCATE q;
-- in a subquery and a CTE
SELECT (SELECT sum(a) FROM ex_t) + 1 AS s;
WITH x AS (SELECT avg(b) AS m FROM ex_t) SELECT round(m::numeric, 6) FROM x;
-- bad settings are refused
SET pg_gpu.chunk_pages = 0;
SET pg_gpu.device_memory_limit = -1;
RESET pg_gpu.force;
DROP TABLE ex_t;
