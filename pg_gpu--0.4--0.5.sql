/* pg_gpu 0.4 -> 0.5: a GPU service worker per GPU (issue 32) */
\echo Use "ALTER EXTENSION pg_gpu UPDATE TO '0.5'" to load this file. \quit

-- The GPU service, a row per GPU it runs on (pg_gpu.service_devices): the
-- worker's place (device, from 0) and its CUDA_VISIBLE_DEVICES (NULL: the
-- server's), its process, whether it has the GPU, its task channels, the
-- tasks it has run since the server started, its GPU memory after the last
-- task ended (held by tasks, and kept in its pool), and the times it
-- restarted after a fault (no row: pg_gpu.service is off or pg_gpu is not
-- preloaded).
DROP FUNCTION pg_gpu_service();
CREATE FUNCTION pg_gpu_service(
    OUT device int,
    OUT pid int,
    OUT state text,
    OUT gpu text,
    OUT gpu_start_ms float8,
    OUT channels int,
    OUT channels_in_use int,
    OUT tasks bigint,
    OUT memory_in_use bigint,
    OUT memory_cached bigint,
    OUT restarts int,
    OUT visible_device text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'pg_gpu_service_status'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

-- The column cache: each GPU keeps its own, so a table may be listed once
-- per GPU; device says whose.
DROP VIEW pg_gpu_cache;
DROP FUNCTION pg_gpu_cache_entries();
CREATE FUNCTION pg_gpu_cache_entries(
    OUT datid oid,
    OUT relid oid,
    OUT attnums int2[],
    OUT blocks bigint,
    OUT bytes bigint,
    OUT scans bigint,
    OUT hits bigint,
    OUT last_use timestamptz,
    OUT emulated bool,
    OUT device int)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'pg_gpu_cache_entries'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;
CREATE VIEW pg_gpu_cache AS
  SELECT d.datname AS database,
         CASE WHEN e.datid = (SELECT oid FROM pg_database WHERE datname = current_database())
                   AND (pg_has_role('pg_read_all_stats', 'MEMBER')
                        OR has_table_privilege(e.relid, 'SELECT'))
              THEN e.relid::regclass END AS "table",
         CASE WHEN e.datid = (SELECT oid FROM pg_database WHERE datname = current_database())
                   AND (pg_has_role('pg_read_all_stats', 'MEMBER')
                        OR has_table_privilege(e.relid, 'SELECT'))
              THEN (SELECT array_agg(a.attname ORDER BY a.attnum) FROM pg_attribute a
                     WHERE a.attrelid = e.relid AND a.attnum = ANY (e.attnums)) END AS columns,
         e.blocks, e.bytes, e.scans, e.hits, e.last_use, e.emulated, e.device
    FROM pg_gpu_cache_entries() e
    LEFT JOIN pg_database d ON d.oid = e.datid;
GRANT SELECT ON pg_gpu_cache TO PUBLIC;
