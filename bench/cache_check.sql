-- The column cache on the GPU: grouped and plain answers with pg_gpu off, then
-- forced twice (the first scan fills the cache, the second reads it).
SET max_parallel_workers_per_gather = 0;
SET synchronous_commit = on;
DROP TABLE IF EXISTS ccx;
CREATE TABLE ccx AS SELECT i AS id, i % 1000 AS g, (i * 7)::int8 AS v, (i * 0.25)::float8 AS f
  FROM generate_series(1, 5000000) i;
SELECT pg_sleep(0.5);
VACUUM ANALYZE ccx;
SELECT relallvisible = relpages AS all_visible FROM pg_class WHERE relname = 'ccx';
SET pg_gpu.enabled = off;
CREATE TEMP TABLE want AS SELECT g % 37 AS k, count(*) AS n, sum(v) AS s, min(f) AS m FROM ccx GROUP BY 1;
CREATE TEMP TABLE want1 AS SELECT count(*) AS n, sum(v) AS s, avg(f) AS a FROM ccx WHERE id % 3 = 0;
SET pg_gpu.enabled = on;
SET pg_gpu.force = on;
SELECT 'fill' AS run, (SELECT count(*) FROM (SELECT g % 37 AS k, count(*) AS n, sum(v) AS s, min(f) AS m FROM ccx GROUP BY 1
        EXCEPT SELECT * FROM want) d) AS grouped_diff;
SELECT 'cache' AS run, (SELECT count(*) FROM (SELECT g % 37 AS k, count(*) AS n, sum(v) AS s, min(f) AS m FROM ccx GROUP BY 1
        EXCEPT SELECT * FROM want) d) AS grouped_diff,
       (SELECT count(*) FROM (SELECT count(*) AS n, sum(v) AS s, avg(f) AS a FROM ccx WHERE id % 3 = 0
        EXCEPT SELECT * FROM want1) d) AS plain_diff;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT g % 37 AS k, count(*), sum(v), min(f) FROM ccx GROUP BY 1;
SELECT * FROM pg_gpu_cache;
