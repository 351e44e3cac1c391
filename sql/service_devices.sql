--
-- Two GPU service workers (issue 32): pg_gpu.service_devices = '0,0' starts one
-- per entry, here both on the first GPU (both emulated where there is none), so
-- the placement is tested on any machine.  Each task goes to the less busy
-- worker, ties in turn, so one session's tasks run on both; each keeps its own
-- column cache.  Answers as PostgreSQL's (the include runs off, then forced).
--
SET max_parallel_workers_per_gather = 0;
SET pg_gpu.table_cache_size = 0;
SELECT device, state, channels, channels_in_use, visible_device FROM pg_gpu_service() ORDER BY device;
SELECT count(DISTINCT pid) AS processes FROM pg_gpu_service();
CREATE TABLE sv (g int4, t text, x float8, y int8);
INSERT INTO sv SELECT i % 10007, 'key ' || (i % 5003), i * 0.5, i FROM generate_series(1, 60000) i;
INSERT INTO sv VALUES (1, repeat('long', 375), 1, 1), (NULL, NULL, 2, 2), (3, NULL, 3, 3);
VACUUM ANALYZE sv;
CREATE TEMP TABLE sv_before AS SELECT device, tasks FROM pg_gpu_service();

SET pg_gpu.enabled = off;
\i sql/include/service_q.sql
SET pg_gpu.enabled = on;
SET pg_gpu.force = on;
SET pg_gpu.emulate_gpu = on;
\i sql/include/service_q.sql

-- both workers ran the forced half's tasks, and left every channel free
SELECT s.device, s.tasks - b.tasks >= 5 AS ran_tasks, s.channels_in_use
  FROM pg_gpu_service() s JOIN sv_before b USING (device) ORDER BY s.device;

-- the column cache: each worker keeps its own copy, both are read, both go
SELECT pg_gpu_cache_table('sv') > 0 AS cached;
SELECT device, blocks > 0 AS has_blocks, emulated FROM pg_gpu_cache
  WHERE "table" = 'sv'::regclass ORDER BY device;
SELECT count(*), sum(y), sum(g) FROM sv WHERE x < 10000;
SELECT count(*), sum(y), sum(g) FROM sv WHERE x < 10000;
SELECT count(*), sum(y), sum(g) FROM sv WHERE x < 10000;
SELECT count(*), sum(y), sum(g) FROM sv WHERE x < 10000;
SELECT device, hits > 0 AS read FROM pg_gpu_cache WHERE "table" = 'sv'::regclass ORDER BY device;
SELECT pg_gpu_uncache('sv');
SELECT count(*) AS left_in_cache FROM pg_gpu_cache WHERE "table" = 'sv'::regclass;

RESET pg_gpu.emulate_gpu;
RESET pg_gpu.force;
RESET pg_gpu.enabled;
RESET pg_gpu.table_cache_size;
DROP TABLE sv;
