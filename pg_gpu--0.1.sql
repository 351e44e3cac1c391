/* pg_gpu--0.1.sql */
\echo Use "CREATE EXTENSION pg_gpu" to load this file. \quit

CREATE FUNCTION pg_gpu_devices(
    OUT ordinal int,
    OUT name text,
    OUT compute_capability text,
    OUT multiprocessors int,
    OUT total_memory bigint,
    OUT free_memory bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'pg_gpu_devices'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

-- Register the shared buffer pool with the GPU now and wait for it (it otherwise
-- happens in the background on the first large scan).  False if impossible.
CREATE FUNCTION pg_gpu_register_buffer_pool()
RETURNS boolean
AS 'MODULE_PATHNAME', 'pg_gpu_register_buffer_pool'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

-- Cluster-wide counters kept in shared memory (pg_gpu must be preloaded).
CREATE FUNCTION pg_gpu_stats(
    OUT node text,
    OUT gpu_executions bigint,
    OUT cpu_fallbacks bigint,
    OUT bytes_moved bigint,
    OUT gpu_time_ms double precision,
    OUT emulated_runs bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'pg_gpu_stats'
LANGUAGE C STRICT VOLATILE PARALLEL SAFE;

CREATE FUNCTION pg_gpu_fallbacks(
    OUT node text,
    OUT reason text,
    OUT count bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'pg_gpu_fallbacks'
LANGUAGE C STRICT VOLATILE PARALLEL SAFE;

CREATE FUNCTION pg_gpu_stats_reset()
RETURNS void
AS 'MODULE_PATHNAME', 'pg_gpu_stats_reset'
LANGUAGE C STRICT VOLATILE PARALLEL SAFE;

CREATE VIEW pg_gpu_stats AS SELECT * FROM pg_gpu_stats();
CREATE VIEW pg_gpu_fallbacks AS SELECT * FROM pg_gpu_fallbacks() WHERE count > 0;

REVOKE ALL ON FUNCTION pg_gpu_stats_reset() FROM PUBLIC;
