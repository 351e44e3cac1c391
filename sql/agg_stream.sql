--
-- GpuAgg: streaming.  Tables of many chunks, in place and through staging buffers,
-- and a table larger than a deliberately small GPU memory cap.
--
SET extra_float_digits = 0;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE st_t (a int4, b float8, c int2);
INSERT INTO st_t SELECT i, (i % 1000) / 4.0, (i % 30000)::int2 FROM generate_series(1, 200000) i;
DELETE FROM st_t WHERE a % 10 = 3;
SELECT pg_relation_size('st_t') / 8192 > 800 AS many_pages;

SET pg_gpu.enabled = off;
\i sql/include/agg_stream_q.sql
SET pg_gpu.enabled = on;
SET pg_gpu.force = on;
-- several chunks, pages read in place from shared buffers
SET pg_gpu.register_min_pages = 0;
SELECT count(*) FROM (SELECT pg_gpu_register_buffer_pool()) AS registered;
SET pg_gpu.chunk_pages = 16;
\i sql/include/agg_stream_q.sql
-- one page per chunk; the second run pins through the recent-buffer cache
SET pg_gpu.chunk_pages = 1;
SELECT count(*), sum(a) FROM st_t;
SELECT count(*), sum(a) FROM st_t;
-- parallel workers pin the pages; the leader hands them to the GPU
SET pg_gpu.pin_workers = 3;
SET pg_gpu.pin_workers_min_pages = 0;
\i sql/include/agg_stream_q.sql
RESET pg_gpu.pin_workers;
RESET pg_gpu.pin_workers_min_pages;
-- pages copied through pinned staging buffers
SET pg_gpu.register_buffers = off;
SET pg_gpu.chunk_pages = 37;
\i sql/include/agg_stream_q.sql
-- the table (~9 MB) is larger than a 4 MB cap on GPU memory: it streams in
-- chunks sized to the cap
SET pg_gpu.device_memory_limit = '4MB';
RESET pg_gpu.chunk_pages;
\i sql/include/agg_stream_q.sql
VACUUM st_t;
\i sql/include/agg_stream_q.sql
RESET pg_gpu.device_memory_limit;
RESET pg_gpu.register_buffers;
RESET pg_gpu.register_min_pages;
RESET pg_gpu.force;
RESET pg_gpu.enabled;
DROP TABLE st_t;
