--
-- GpuAgg: CPU fallback.  A GPU failure mid-query, or too little GPU memory, hands
-- the query to PostgreSQL's own plan (kept as GpuAgg's child): it still succeeds.
-- Queries GpuAgg does not support keep PostgreSQL's plan.
--
SET extra_float_digits = 0;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE fb_t (a int4, b float8, n numeric, t text);
INSERT INTO fb_t SELECT i, i / 3.0, i, i::text FROM generate_series(1, 30000) i;
VACUUM ANALYZE fb_t;

SET pg_gpu.enabled = off;
SELECT sum(a), avg(b), stddev(a) FROM fb_t;
SELECT a % 3 AS k, sum(a), round(avg(b)::numeric, 6) FROM fb_t WHERE a > 100 GROUP BY 1 ORDER BY 1;
SET pg_gpu.enabled = on;
SET pg_gpu.force = on;
-- these fall back on purpose: not a sign that the GPU is missing
SET pg_gpu.expect_gpu = off;
-- the GPU "fails" after two chunks; the child plan finishes the query
SET pg_gpu.chunk_pages = 8;
SET pg_gpu.debug_fail_after_chunks = 2;
SELECT sum(a), avg(b), stddev(a) FROM fb_t;
SELECT a % 3 AS k, sum(a), round(avg(b)::numeric, 6) FROM fb_t WHERE a > 100 GROUP BY 1 ORDER BY 1;
RESET pg_gpu.debug_fail_after_chunks;
RESET pg_gpu.chunk_pages;
-- a GPU memory cap too small for even one chunk
SET pg_gpu.device_memory_limit = '8kB';
SELECT sum(a), avg(b), stddev(a) FROM fb_t;
SELECT a % 3 AS k, sum(a), round(avg(b)::numeric, 6) FROM fb_t WHERE a > 100 GROUP BY 1 ORDER BY 1;
RESET pg_gpu.device_memory_limit;
-- serializable transactions need per-tuple predicate locks: CPU
BEGIN ISOLATION LEVEL SERIALIZABLE;
SELECT sum(a), avg(b), stddev(a) FROM fb_t;
COMMIT;
RESET pg_gpu.expect_gpu;

-- not supported by GpuAgg (yet): PostgreSQL's plan, no Custom Scan
EXPLAIN (COSTS OFF) SELECT stddev(n) FROM fb_t;
EXPLAIN (COSTS OFF) SELECT min(t) FROM fb_t;
EXPLAIN (COSTS OFF) SELECT sum(a) FROM fb_t WHERE abs(a) > 5;
EXPLAIN (COSTS OFF) SELECT n, sum(a) FROM fb_t GROUP BY 1;
EXPLAIN (COSTS OFF) SELECT sum(DISTINCT a) FROM fb_t;
EXPLAIN (COSTS OFF) SELECT sum(a) FILTER (WHERE a > 3) FROM fb_t;
EXPLAIN (COSTS OFF) SELECT sum(n / 3) FROM fb_t;
EXPLAIN (COSTS OFF) SELECT sum(a) FROM fb_t WHERE false;
-- count(x) of any type counts non-NULL values on the GPU
EXPLAIN (COSTS OFF) SELECT count(t), count(n) FROM fb_t;
SELECT count(t), count(n) FROM fb_t;
-- temporary tables live in local buffers: CPU
CREATE TEMP TABLE fb_temp AS SELECT * FROM fb_t;
EXPLAIN (COSTS OFF) SELECT sum(a) FROM fb_temp;
DROP TABLE fb_temp;
-- the master switch
SET pg_gpu.enabled = off;
EXPLAIN (COSTS OFF) SELECT sum(a) FROM fb_t;
RESET pg_gpu.enabled;
SET pg_gpu.enable_gpuagg = off;
EXPLAIN (COSTS OFF) SELECT sum(a) FROM fb_t;
RESET pg_gpu.enable_gpuagg;
-- without force, a table whose scan costs less than starting GPU work stays on
-- PostgreSQL's plan
RESET pg_gpu.force;
CREATE TABLE fb_small AS SELECT * FROM fb_t LIMIT 100;
ANALYZE fb_small;
EXPLAIN (COSTS OFF) SELECT sum(a) FROM fb_small;
DROP TABLE fb_t, fb_small;
