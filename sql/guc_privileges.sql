--
-- Who may set pg_gpu's parameters (issue 18, item 7): the planner's switches and
-- costs and per-query host memory are for every user, as PostgreSQL's enable_*,
-- *_cost and work_mem are; what takes the GPU and its memory, and the test
-- settings, are for superusers.
--
SELECT name, context FROM pg_settings WHERE name LIKE 'pg_gpu.%' ORDER BY name;
CREATE ROLE regress_pg_gpu_user;
SET ROLE regress_pg_gpu_user;
SET pg_gpu.force = on;
SET pg_gpu.enabled = off;
SET pg_gpu.enable_gpusort = off;
SET pg_gpu.startup_cost = 10;
SET pg_gpu.slot_sort_memory = '64MB';
SET pg_gpu.debug_fail_after_chunks = 1;
SET pg_gpu.emulate_gpu = on;
SET pg_gpu.expect_gpu = on;
SET pg_gpu.device_memory_limit = '1GB';
SET pg_gpu.table_cache_size = '8GB';
SET pg_gpu.register_buffers = off;
SET pg_gpu.register_min_pages = 1;
SET pg_gpu.chunk_pages = 16;
SET pg_gpu.pin_workers = 64;
SET pg_gpu.pin_workers_min_pages = 1;
SET pg_gpu.pin_workers_early = off;
RESET ROLE;
SET pg_gpu.debug_fail_after_chunks = 1;
RESET pg_gpu.debug_fail_after_chunks;
RESET pg_gpu.force;
RESET pg_gpu.enabled;
RESET pg_gpu.enable_gpusort;
RESET pg_gpu.startup_cost;
RESET pg_gpu.slot_sort_memory;
DROP ROLE regress_pg_gpu_user;
