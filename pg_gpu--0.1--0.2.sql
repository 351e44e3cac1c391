/* pg_gpu 0.1 -> 0.2: the GPU service (issue 21) */
\echo Use "ALTER EXTENSION pg_gpu UPDATE TO '0.2'" to load this file. \quit

-- The GPU service: its process, whether it has the GPU, its task channels, the
-- tasks it has run since the server started, and its GPU memory after the last
-- task ended: held by tasks, and kept in its pool for the next ones, and the
-- times it restarted after a fault (no row: pg_gpu.service is off or pg_gpu is
-- not preloaded).
CREATE FUNCTION pg_gpu_service(
    OUT pid int,
    OUT state text,
    OUT gpu text,
    OUT gpu_start_ms float8,
    OUT channels int,
    OUT channels_in_use int,
    OUT tasks bigint,
    OUT memory_in_use bigint,
    OUT memory_cached bigint,
    OUT restarts int)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'pg_gpu_service_status'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;
