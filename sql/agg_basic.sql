--
-- GpuAgg: each aggregate x type, on data with NULLs spread over ~550 heap pages
--
SET extra_float_digits = 0;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE agg_t (id int8, i2 int2, i4 int4, i8 int8, f4 float4, f8 float8, txt text, g int4);
INSERT INTO agg_t
SELECT i,
       CASE WHEN i % 17 = 0 THEN NULL ELSE ((i * 7919) % 65535 - 32767)::int2 END,
       CASE WHEN i % 13 = 0 THEN NULL ELSE ((i::int8 * 104729) % 2000000001 - 1000000000)::int4 END,
       CASE WHEN i % 11 = 0 THEN NULL
            ELSE i::int8 * 1000000007 * (CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END) END,
       CASE WHEN i % 7 = 0 THEN NULL ELSE ((i * 31) % 201 - 100)::float4 END,
       CASE WHEN i % 5 = 0 THEN NULL ELSE ((i * 37) % 100001 - 50000) / 4.0 END,
       CASE WHEN i % 3 = 0 THEN NULL ELSE repeat('x', i % 50) END,
       i % 10
FROM generate_series(1, 50000) i;
VACUUM ANALYZE agg_t;

SET pg_gpu.enabled = off;
\i sql/include/agg_basic_q.sql
SET pg_gpu.enabled = on;
SET pg_gpu.force = on;
\i sql/include/agg_basic_q.sql

-- the forced plan really is GpuAgg under PostgreSQL's Finalize Aggregate
EXPLAIN (COSTS OFF) SELECT min(f8), max(f8), avg(f8), stddev(f8) FROM agg_t;
EXPLAIN (COSTS OFF) SELECT sum(i4) FROM agg_t HAVING count(*) > 10;

RESET pg_gpu.force;
RESET pg_gpu.enabled;
DROP TABLE agg_t;
