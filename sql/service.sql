--
-- The GPU service (issue 21): one background process runs the aggregations of
-- every backend.  Without a GPU it runs them emulated (pg_gpu.emulate_gpu), so
-- the protocol between backend and service is tested here: chunks, answers that
-- take several windows of groups or sorted rows, text keys, a cursor closed early, an error
-- while groups are handed out, key sets the service holds for the task that
-- probes them.  Every channel is free again afterwards.
--
SET max_parallel_workers_per_gather = 0;
-- a table kept in the backend's own GPU memory stays with its own engine
SET pg_gpu.table_cache_size = 0;
SELECT state, channels, channels_in_use FROM pg_gpu_service();
CREATE TABLE sv (g int4, t text, x float8, y int8);
INSERT INTO sv SELECT i % 10007, 'key ' || (i % 5003), i * 0.5, i FROM generate_series(1, 60000) i;
INSERT INTO sv VALUES (1, repeat('long', 375), 1, 1), (NULL, NULL, 2, 2), (3, NULL, 3, 3);
VACUUM ANALYZE sv;
CREATE TEMP TABLE sv_before AS SELECT tasks FROM pg_gpu_service();

SET pg_gpu.enabled = off;
\i sql/include/service_q.sql
SET pg_gpu.enabled = on;
SET pg_gpu.force = on;
SET pg_gpu.emulate_gpu = on;
\i sql/include/service_q.sql

-- the forced half ran in the service, and left every channel free
SELECT s.tasks - b.tasks >= 20 AS through_service, s.channels_in_use
  FROM pg_gpu_service() s, sv_before b;

RESET pg_gpu.emulate_gpu;
RESET pg_gpu.force;
RESET pg_gpu.enabled;
RESET pg_gpu.table_cache_size;
DROP TABLE sv;
