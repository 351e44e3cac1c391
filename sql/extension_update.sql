--
-- The extension's versions and its update path (issue 22).  From 0.1 on, every
-- change to the SQL objects comes with pg_gpu--<old>--<new>.sql, and a cluster
-- created at any earlier version reaches the default one with ALTER EXTENSION
-- pg_gpu UPDATE: this test creates the oldest version and updates it.  A new
-- default_version without its update script fails here.
--
SELECT extversion = (SELECT default_version FROM pg_available_extensions WHERE name = 'pg_gpu')
  AS at_default FROM pg_extension WHERE extname = 'pg_gpu';
SELECT version FROM pg_available_extension_versions WHERE name = 'pg_gpu' ORDER BY version;
-- every earlier version has a path to the default one
SELECT source, target, path IS NOT NULL AS has_path
  FROM pg_extension_update_paths('pg_gpu') e, pg_available_extensions a
  WHERE a.name = 'pg_gpu' AND e.target = a.default_version AND e.source <> e.target
  ORDER BY source;
DROP EXTENSION pg_gpu;
CREATE EXTENSION pg_gpu VERSION '0.1';
ALTER EXTENSION pg_gpu UPDATE;
SELECT extversion = (SELECT default_version FROM pg_available_extensions WHERE name = 'pg_gpu')
  AS updated FROM pg_extension WHERE extname = 'pg_gpu';
-- the objects are there after the update
SELECT count(*) > 0 AS stats FROM pg_gpu_stats;
SELECT count(*) = 1 AS service FROM pg_gpu_service();
SELECT gpu_sum(x) FROM (VALUES (1), (2), (3)) v(x);
-- 0.4: gpu_* over numeric are numeric, and every role may read the monitoring views
SELECT gpu_sum(x), pg_typeof(gpu_sum(x)) FROM (VALUES (0.1), (0.2)) v(x);
SELECT relname, relacl::text LIKE '%,=r/%' OR relacl::text LIKE '{=r/%' AS public_select
  FROM pg_class WHERE relname IN ('pg_gpu_stats', 'pg_gpu_fallbacks', 'pg_gpu_cache') ORDER BY relname;
-- 0.5: a row of pg_gpu_service() per GPU, and pg_gpu_cache says whose entry
SELECT device, visible_device IS NULL AS servers_devices FROM pg_gpu_service() ORDER BY device;
SELECT count(*) AS entries_of_no_gpu FROM pg_gpu_cache WHERE device IS NULL;
