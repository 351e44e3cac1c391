--
-- pg_gpu loaded without shared_preload_libraries (issue 30).  CREATE EXTENSION
-- loads the library in this session: it warns once and works, without the
-- GPU service and its column cache, whose settings exist only when preloaded.
-- Run by scripts/regress.sh on a server that does not preload pg_gpu.
--
CREATE EXTENSION pg_gpu;
SHOW pg_gpu.force;
SHOW pg_gpu.service;
SELECT count(*) AS services FROM pg_gpu_service();
CREATE TABLE nl AS SELECT i, i * 0.5::float8 AS f, (i % 7)::numeric / 4 AS n FROM generate_series(1, 20000) i;
VACUUM ANALYZE nl;
SET pg_gpu.force = on;
EXPLAIN (COSTS OFF) SELECT count(*), sum(i), avg(f) FROM nl WHERE i > 10;
SET pg_gpu.enabled = off;
SELECT count(*), sum(i), avg(f) FROM nl WHERE i > 10;
SET pg_gpu.enabled = on;
SELECT count(*), sum(i), avg(f) FROM nl WHERE i > 10;
-- the engine's code on the CPU, in this backend (there is no service)
SET pg_gpu.emulate_gpu = on;
SELECT count(*), sum(i), avg(f) FROM nl WHERE i > 10;
SELECT emulated_runs > 0 AS emulated FROM pg_gpu_stats WHERE node = 'GpuAgg';
RESET pg_gpu.emulate_gpu;
SELECT gpu_sum(i), gpu_avg(f), gpu_sum(n), pg_typeof(gpu_sum(n)) FROM nl;
SELECT pg_gpu_cache_table('nl');
SELECT count(*) AS entries FROM pg_gpu_cache;
-- a new session knows nothing of pg_gpu until it loads the library
\c
SHOW pg_gpu.force;
SELECT gpu_max(i) FROM nl;
SHOW pg_gpu.force;
LOAD 'pg_gpu';
DROP TABLE nl;
DROP EXTENSION pg_gpu;
