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

-- Explicit GPU aggregates: gpu_min, gpu_max, gpu_sum, gpu_avg and the variance and
-- standard-deviation family over int2/4/8 and float4/8.  The transition function
-- collects the group's values; the final function reduces them on the GPU when
-- there are at least pg_gpu.min_rows of them (else on the CPU), with the same exact
-- state arithmetic as GpuAgg, and finishes with the built-in aggregate's own final
-- function, so results equal the built-ins' type for type.  Partial aggregation
-- (parallel plans) combines and serialises the collected values.
CREATE FUNCTION pg_gpu_collect(internal, anyelement) RETURNS internal
AS 'MODULE_PATHNAME', 'pg_gpu_collect' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE FUNCTION pg_gpu_collect_combine(internal, internal) RETURNS internal
AS 'MODULE_PATHNAME', 'pg_gpu_collect_combine' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE FUNCTION pg_gpu_collect_serialize(internal) RETURNS bytea
AS 'MODULE_PATHNAME', 'pg_gpu_collect_serialize' LANGUAGE C STRICT PARALLEL SAFE;
CREATE FUNCTION pg_gpu_collect_deserialize(bytea, internal) RETURNS internal
AS 'MODULE_PATHNAME', 'pg_gpu_collect_deserialize' LANGUAGE C STRICT PARALLEL SAFE;

CREATE FUNCTION pg_gpu_final_min_int2(internal) RETURNS int2
AS 'MODULE_PATHNAME', 'pg_gpu_final_min' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE AGGREGATE gpu_min(int2) (SFUNC = pg_gpu_collect, STYPE = internal, FINALFUNC = pg_gpu_final_min_int2,
  COMBINEFUNC = pg_gpu_collect_combine, SERIALFUNC = pg_gpu_collect_serialize,
  DESERIALFUNC = pg_gpu_collect_deserialize, PARALLEL = SAFE);
CREATE FUNCTION pg_gpu_final_min_int4(internal) RETURNS int4
AS 'MODULE_PATHNAME', 'pg_gpu_final_min' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE AGGREGATE gpu_min(int4) (SFUNC = pg_gpu_collect, STYPE = internal, FINALFUNC = pg_gpu_final_min_int4,
  COMBINEFUNC = pg_gpu_collect_combine, SERIALFUNC = pg_gpu_collect_serialize,
  DESERIALFUNC = pg_gpu_collect_deserialize, PARALLEL = SAFE);
CREATE FUNCTION pg_gpu_final_min_int8(internal) RETURNS int8
AS 'MODULE_PATHNAME', 'pg_gpu_final_min' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE AGGREGATE gpu_min(int8) (SFUNC = pg_gpu_collect, STYPE = internal, FINALFUNC = pg_gpu_final_min_int8,
  COMBINEFUNC = pg_gpu_collect_combine, SERIALFUNC = pg_gpu_collect_serialize,
  DESERIALFUNC = pg_gpu_collect_deserialize, PARALLEL = SAFE);
CREATE FUNCTION pg_gpu_final_min_float4(internal) RETURNS float4
AS 'MODULE_PATHNAME', 'pg_gpu_final_min' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE AGGREGATE gpu_min(float4) (SFUNC = pg_gpu_collect, STYPE = internal, FINALFUNC = pg_gpu_final_min_float4,
  COMBINEFUNC = pg_gpu_collect_combine, SERIALFUNC = pg_gpu_collect_serialize,
  DESERIALFUNC = pg_gpu_collect_deserialize, PARALLEL = SAFE);
CREATE FUNCTION pg_gpu_final_min_float8(internal) RETURNS float8
AS 'MODULE_PATHNAME', 'pg_gpu_final_min' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE AGGREGATE gpu_min(float8) (SFUNC = pg_gpu_collect, STYPE = internal, FINALFUNC = pg_gpu_final_min_float8,
  COMBINEFUNC = pg_gpu_collect_combine, SERIALFUNC = pg_gpu_collect_serialize,
  DESERIALFUNC = pg_gpu_collect_deserialize, PARALLEL = SAFE);
CREATE FUNCTION pg_gpu_final_max_int2(internal) RETURNS int2
AS 'MODULE_PATHNAME', 'pg_gpu_final_max' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE AGGREGATE gpu_max(int2) (SFUNC = pg_gpu_collect, STYPE = internal, FINALFUNC = pg_gpu_final_max_int2,
  COMBINEFUNC = pg_gpu_collect_combine, SERIALFUNC = pg_gpu_collect_serialize,
  DESERIALFUNC = pg_gpu_collect_deserialize, PARALLEL = SAFE);
CREATE FUNCTION pg_gpu_final_max_int4(internal) RETURNS int4
AS 'MODULE_PATHNAME', 'pg_gpu_final_max' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE AGGREGATE gpu_max(int4) (SFUNC = pg_gpu_collect, STYPE = internal, FINALFUNC = pg_gpu_final_max_int4,
  COMBINEFUNC = pg_gpu_collect_combine, SERIALFUNC = pg_gpu_collect_serialize,
  DESERIALFUNC = pg_gpu_collect_deserialize, PARALLEL = SAFE);
CREATE FUNCTION pg_gpu_final_max_int8(internal) RETURNS int8
AS 'MODULE_PATHNAME', 'pg_gpu_final_max' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE AGGREGATE gpu_max(int8) (SFUNC = pg_gpu_collect, STYPE = internal, FINALFUNC = pg_gpu_final_max_int8,
  COMBINEFUNC = pg_gpu_collect_combine, SERIALFUNC = pg_gpu_collect_serialize,
  DESERIALFUNC = pg_gpu_collect_deserialize, PARALLEL = SAFE);
CREATE FUNCTION pg_gpu_final_max_float4(internal) RETURNS float4
AS 'MODULE_PATHNAME', 'pg_gpu_final_max' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE AGGREGATE gpu_max(float4) (SFUNC = pg_gpu_collect, STYPE = internal, FINALFUNC = pg_gpu_final_max_float4,
  COMBINEFUNC = pg_gpu_collect_combine, SERIALFUNC = pg_gpu_collect_serialize,
  DESERIALFUNC = pg_gpu_collect_deserialize, PARALLEL = SAFE);
CREATE FUNCTION pg_gpu_final_max_float8(internal) RETURNS float8
AS 'MODULE_PATHNAME', 'pg_gpu_final_max' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE AGGREGATE gpu_max(float8) (SFUNC = pg_gpu_collect, STYPE = internal, FINALFUNC = pg_gpu_final_max_float8,
  COMBINEFUNC = pg_gpu_collect_combine, SERIALFUNC = pg_gpu_collect_serialize,
  DESERIALFUNC = pg_gpu_collect_deserialize, PARALLEL = SAFE);
CREATE FUNCTION pg_gpu_final_sum_int2(internal) RETURNS int8
AS 'MODULE_PATHNAME', 'pg_gpu_final_sum' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE AGGREGATE gpu_sum(int2) (SFUNC = pg_gpu_collect, STYPE = internal, FINALFUNC = pg_gpu_final_sum_int2,
  COMBINEFUNC = pg_gpu_collect_combine, SERIALFUNC = pg_gpu_collect_serialize,
  DESERIALFUNC = pg_gpu_collect_deserialize, PARALLEL = SAFE);
CREATE FUNCTION pg_gpu_final_sum_int4(internal) RETURNS int8
AS 'MODULE_PATHNAME', 'pg_gpu_final_sum' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE AGGREGATE gpu_sum(int4) (SFUNC = pg_gpu_collect, STYPE = internal, FINALFUNC = pg_gpu_final_sum_int4,
  COMBINEFUNC = pg_gpu_collect_combine, SERIALFUNC = pg_gpu_collect_serialize,
  DESERIALFUNC = pg_gpu_collect_deserialize, PARALLEL = SAFE);
CREATE FUNCTION pg_gpu_final_sum_int8(internal) RETURNS numeric
AS 'MODULE_PATHNAME', 'pg_gpu_final_sum' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE AGGREGATE gpu_sum(int8) (SFUNC = pg_gpu_collect, STYPE = internal, FINALFUNC = pg_gpu_final_sum_int8,
  COMBINEFUNC = pg_gpu_collect_combine, SERIALFUNC = pg_gpu_collect_serialize,
  DESERIALFUNC = pg_gpu_collect_deserialize, PARALLEL = SAFE);
CREATE FUNCTION pg_gpu_final_sum_float4(internal) RETURNS float4
AS 'MODULE_PATHNAME', 'pg_gpu_final_sum' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE AGGREGATE gpu_sum(float4) (SFUNC = pg_gpu_collect, STYPE = internal, FINALFUNC = pg_gpu_final_sum_float4,
  COMBINEFUNC = pg_gpu_collect_combine, SERIALFUNC = pg_gpu_collect_serialize,
  DESERIALFUNC = pg_gpu_collect_deserialize, PARALLEL = SAFE);
CREATE FUNCTION pg_gpu_final_sum_float8(internal) RETURNS float8
AS 'MODULE_PATHNAME', 'pg_gpu_final_sum' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE AGGREGATE gpu_sum(float8) (SFUNC = pg_gpu_collect, STYPE = internal, FINALFUNC = pg_gpu_final_sum_float8,
  COMBINEFUNC = pg_gpu_collect_combine, SERIALFUNC = pg_gpu_collect_serialize,
  DESERIALFUNC = pg_gpu_collect_deserialize, PARALLEL = SAFE);
CREATE FUNCTION pg_gpu_final_avg_int2(internal) RETURNS numeric
AS 'MODULE_PATHNAME', 'pg_gpu_final_avg' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE AGGREGATE gpu_avg(int2) (SFUNC = pg_gpu_collect, STYPE = internal, FINALFUNC = pg_gpu_final_avg_int2,
  COMBINEFUNC = pg_gpu_collect_combine, SERIALFUNC = pg_gpu_collect_serialize,
  DESERIALFUNC = pg_gpu_collect_deserialize, PARALLEL = SAFE);
CREATE FUNCTION pg_gpu_final_avg_int4(internal) RETURNS numeric
AS 'MODULE_PATHNAME', 'pg_gpu_final_avg' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE AGGREGATE gpu_avg(int4) (SFUNC = pg_gpu_collect, STYPE = internal, FINALFUNC = pg_gpu_final_avg_int4,
  COMBINEFUNC = pg_gpu_collect_combine, SERIALFUNC = pg_gpu_collect_serialize,
  DESERIALFUNC = pg_gpu_collect_deserialize, PARALLEL = SAFE);
CREATE FUNCTION pg_gpu_final_avg_int8(internal) RETURNS numeric
AS 'MODULE_PATHNAME', 'pg_gpu_final_avg' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE AGGREGATE gpu_avg(int8) (SFUNC = pg_gpu_collect, STYPE = internal, FINALFUNC = pg_gpu_final_avg_int8,
  COMBINEFUNC = pg_gpu_collect_combine, SERIALFUNC = pg_gpu_collect_serialize,
  DESERIALFUNC = pg_gpu_collect_deserialize, PARALLEL = SAFE);
CREATE FUNCTION pg_gpu_final_avg_float4(internal) RETURNS float8
AS 'MODULE_PATHNAME', 'pg_gpu_final_avg' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE AGGREGATE gpu_avg(float4) (SFUNC = pg_gpu_collect, STYPE = internal, FINALFUNC = pg_gpu_final_avg_float4,
  COMBINEFUNC = pg_gpu_collect_combine, SERIALFUNC = pg_gpu_collect_serialize,
  DESERIALFUNC = pg_gpu_collect_deserialize, PARALLEL = SAFE);
CREATE FUNCTION pg_gpu_final_avg_float8(internal) RETURNS float8
AS 'MODULE_PATHNAME', 'pg_gpu_final_avg' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE AGGREGATE gpu_avg(float8) (SFUNC = pg_gpu_collect, STYPE = internal, FINALFUNC = pg_gpu_final_avg_float8,
  COMBINEFUNC = pg_gpu_collect_combine, SERIALFUNC = pg_gpu_collect_serialize,
  DESERIALFUNC = pg_gpu_collect_deserialize, PARALLEL = SAFE);
CREATE FUNCTION pg_gpu_final_stddev_int2(internal) RETURNS numeric
AS 'MODULE_PATHNAME', 'pg_gpu_final_stddev' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE AGGREGATE gpu_stddev(int2) (SFUNC = pg_gpu_collect, STYPE = internal, FINALFUNC = pg_gpu_final_stddev_int2,
  COMBINEFUNC = pg_gpu_collect_combine, SERIALFUNC = pg_gpu_collect_serialize,
  DESERIALFUNC = pg_gpu_collect_deserialize, PARALLEL = SAFE);
CREATE FUNCTION pg_gpu_final_stddev_int4(internal) RETURNS numeric
AS 'MODULE_PATHNAME', 'pg_gpu_final_stddev' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE AGGREGATE gpu_stddev(int4) (SFUNC = pg_gpu_collect, STYPE = internal, FINALFUNC = pg_gpu_final_stddev_int4,
  COMBINEFUNC = pg_gpu_collect_combine, SERIALFUNC = pg_gpu_collect_serialize,
  DESERIALFUNC = pg_gpu_collect_deserialize, PARALLEL = SAFE);
CREATE FUNCTION pg_gpu_final_stddev_int8(internal) RETURNS numeric
AS 'MODULE_PATHNAME', 'pg_gpu_final_stddev' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE AGGREGATE gpu_stddev(int8) (SFUNC = pg_gpu_collect, STYPE = internal, FINALFUNC = pg_gpu_final_stddev_int8,
  COMBINEFUNC = pg_gpu_collect_combine, SERIALFUNC = pg_gpu_collect_serialize,
  DESERIALFUNC = pg_gpu_collect_deserialize, PARALLEL = SAFE);
CREATE FUNCTION pg_gpu_final_stddev_float4(internal) RETURNS float8
AS 'MODULE_PATHNAME', 'pg_gpu_final_stddev' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE AGGREGATE gpu_stddev(float4) (SFUNC = pg_gpu_collect, STYPE = internal, FINALFUNC = pg_gpu_final_stddev_float4,
  COMBINEFUNC = pg_gpu_collect_combine, SERIALFUNC = pg_gpu_collect_serialize,
  DESERIALFUNC = pg_gpu_collect_deserialize, PARALLEL = SAFE);
CREATE FUNCTION pg_gpu_final_stddev_float8(internal) RETURNS float8
AS 'MODULE_PATHNAME', 'pg_gpu_final_stddev' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE AGGREGATE gpu_stddev(float8) (SFUNC = pg_gpu_collect, STYPE = internal, FINALFUNC = pg_gpu_final_stddev_float8,
  COMBINEFUNC = pg_gpu_collect_combine, SERIALFUNC = pg_gpu_collect_serialize,
  DESERIALFUNC = pg_gpu_collect_deserialize, PARALLEL = SAFE);
CREATE FUNCTION pg_gpu_final_stddev_samp_int2(internal) RETURNS numeric
AS 'MODULE_PATHNAME', 'pg_gpu_final_stddev_samp' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE AGGREGATE gpu_stddev_samp(int2) (SFUNC = pg_gpu_collect, STYPE = internal, FINALFUNC = pg_gpu_final_stddev_samp_int2,
  COMBINEFUNC = pg_gpu_collect_combine, SERIALFUNC = pg_gpu_collect_serialize,
  DESERIALFUNC = pg_gpu_collect_deserialize, PARALLEL = SAFE);
CREATE FUNCTION pg_gpu_final_stddev_samp_int4(internal) RETURNS numeric
AS 'MODULE_PATHNAME', 'pg_gpu_final_stddev_samp' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE AGGREGATE gpu_stddev_samp(int4) (SFUNC = pg_gpu_collect, STYPE = internal, FINALFUNC = pg_gpu_final_stddev_samp_int4,
  COMBINEFUNC = pg_gpu_collect_combine, SERIALFUNC = pg_gpu_collect_serialize,
  DESERIALFUNC = pg_gpu_collect_deserialize, PARALLEL = SAFE);
CREATE FUNCTION pg_gpu_final_stddev_samp_int8(internal) RETURNS numeric
AS 'MODULE_PATHNAME', 'pg_gpu_final_stddev_samp' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE AGGREGATE gpu_stddev_samp(int8) (SFUNC = pg_gpu_collect, STYPE = internal, FINALFUNC = pg_gpu_final_stddev_samp_int8,
  COMBINEFUNC = pg_gpu_collect_combine, SERIALFUNC = pg_gpu_collect_serialize,
  DESERIALFUNC = pg_gpu_collect_deserialize, PARALLEL = SAFE);
CREATE FUNCTION pg_gpu_final_stddev_samp_float4(internal) RETURNS float8
AS 'MODULE_PATHNAME', 'pg_gpu_final_stddev_samp' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE AGGREGATE gpu_stddev_samp(float4) (SFUNC = pg_gpu_collect, STYPE = internal, FINALFUNC = pg_gpu_final_stddev_samp_float4,
  COMBINEFUNC = pg_gpu_collect_combine, SERIALFUNC = pg_gpu_collect_serialize,
  DESERIALFUNC = pg_gpu_collect_deserialize, PARALLEL = SAFE);
CREATE FUNCTION pg_gpu_final_stddev_samp_float8(internal) RETURNS float8
AS 'MODULE_PATHNAME', 'pg_gpu_final_stddev_samp' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE AGGREGATE gpu_stddev_samp(float8) (SFUNC = pg_gpu_collect, STYPE = internal, FINALFUNC = pg_gpu_final_stddev_samp_float8,
  COMBINEFUNC = pg_gpu_collect_combine, SERIALFUNC = pg_gpu_collect_serialize,
  DESERIALFUNC = pg_gpu_collect_deserialize, PARALLEL = SAFE);
CREATE FUNCTION pg_gpu_final_stddev_pop_int2(internal) RETURNS numeric
AS 'MODULE_PATHNAME', 'pg_gpu_final_stddev_pop' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE AGGREGATE gpu_stddev_pop(int2) (SFUNC = pg_gpu_collect, STYPE = internal, FINALFUNC = pg_gpu_final_stddev_pop_int2,
  COMBINEFUNC = pg_gpu_collect_combine, SERIALFUNC = pg_gpu_collect_serialize,
  DESERIALFUNC = pg_gpu_collect_deserialize, PARALLEL = SAFE);
CREATE FUNCTION pg_gpu_final_stddev_pop_int4(internal) RETURNS numeric
AS 'MODULE_PATHNAME', 'pg_gpu_final_stddev_pop' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE AGGREGATE gpu_stddev_pop(int4) (SFUNC = pg_gpu_collect, STYPE = internal, FINALFUNC = pg_gpu_final_stddev_pop_int4,
  COMBINEFUNC = pg_gpu_collect_combine, SERIALFUNC = pg_gpu_collect_serialize,
  DESERIALFUNC = pg_gpu_collect_deserialize, PARALLEL = SAFE);
CREATE FUNCTION pg_gpu_final_stddev_pop_int8(internal) RETURNS numeric
AS 'MODULE_PATHNAME', 'pg_gpu_final_stddev_pop' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE AGGREGATE gpu_stddev_pop(int8) (SFUNC = pg_gpu_collect, STYPE = internal, FINALFUNC = pg_gpu_final_stddev_pop_int8,
  COMBINEFUNC = pg_gpu_collect_combine, SERIALFUNC = pg_gpu_collect_serialize,
  DESERIALFUNC = pg_gpu_collect_deserialize, PARALLEL = SAFE);
CREATE FUNCTION pg_gpu_final_stddev_pop_float4(internal) RETURNS float8
AS 'MODULE_PATHNAME', 'pg_gpu_final_stddev_pop' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE AGGREGATE gpu_stddev_pop(float4) (SFUNC = pg_gpu_collect, STYPE = internal, FINALFUNC = pg_gpu_final_stddev_pop_float4,
  COMBINEFUNC = pg_gpu_collect_combine, SERIALFUNC = pg_gpu_collect_serialize,
  DESERIALFUNC = pg_gpu_collect_deserialize, PARALLEL = SAFE);
CREATE FUNCTION pg_gpu_final_stddev_pop_float8(internal) RETURNS float8
AS 'MODULE_PATHNAME', 'pg_gpu_final_stddev_pop' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE AGGREGATE gpu_stddev_pop(float8) (SFUNC = pg_gpu_collect, STYPE = internal, FINALFUNC = pg_gpu_final_stddev_pop_float8,
  COMBINEFUNC = pg_gpu_collect_combine, SERIALFUNC = pg_gpu_collect_serialize,
  DESERIALFUNC = pg_gpu_collect_deserialize, PARALLEL = SAFE);
CREATE FUNCTION pg_gpu_final_variance_int2(internal) RETURNS numeric
AS 'MODULE_PATHNAME', 'pg_gpu_final_variance' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE AGGREGATE gpu_variance(int2) (SFUNC = pg_gpu_collect, STYPE = internal, FINALFUNC = pg_gpu_final_variance_int2,
  COMBINEFUNC = pg_gpu_collect_combine, SERIALFUNC = pg_gpu_collect_serialize,
  DESERIALFUNC = pg_gpu_collect_deserialize, PARALLEL = SAFE);
CREATE FUNCTION pg_gpu_final_variance_int4(internal) RETURNS numeric
AS 'MODULE_PATHNAME', 'pg_gpu_final_variance' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE AGGREGATE gpu_variance(int4) (SFUNC = pg_gpu_collect, STYPE = internal, FINALFUNC = pg_gpu_final_variance_int4,
  COMBINEFUNC = pg_gpu_collect_combine, SERIALFUNC = pg_gpu_collect_serialize,
  DESERIALFUNC = pg_gpu_collect_deserialize, PARALLEL = SAFE);
CREATE FUNCTION pg_gpu_final_variance_int8(internal) RETURNS numeric
AS 'MODULE_PATHNAME', 'pg_gpu_final_variance' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE AGGREGATE gpu_variance(int8) (SFUNC = pg_gpu_collect, STYPE = internal, FINALFUNC = pg_gpu_final_variance_int8,
  COMBINEFUNC = pg_gpu_collect_combine, SERIALFUNC = pg_gpu_collect_serialize,
  DESERIALFUNC = pg_gpu_collect_deserialize, PARALLEL = SAFE);
CREATE FUNCTION pg_gpu_final_variance_float4(internal) RETURNS float8
AS 'MODULE_PATHNAME', 'pg_gpu_final_variance' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE AGGREGATE gpu_variance(float4) (SFUNC = pg_gpu_collect, STYPE = internal, FINALFUNC = pg_gpu_final_variance_float4,
  COMBINEFUNC = pg_gpu_collect_combine, SERIALFUNC = pg_gpu_collect_serialize,
  DESERIALFUNC = pg_gpu_collect_deserialize, PARALLEL = SAFE);
CREATE FUNCTION pg_gpu_final_variance_float8(internal) RETURNS float8
AS 'MODULE_PATHNAME', 'pg_gpu_final_variance' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE AGGREGATE gpu_variance(float8) (SFUNC = pg_gpu_collect, STYPE = internal, FINALFUNC = pg_gpu_final_variance_float8,
  COMBINEFUNC = pg_gpu_collect_combine, SERIALFUNC = pg_gpu_collect_serialize,
  DESERIALFUNC = pg_gpu_collect_deserialize, PARALLEL = SAFE);
CREATE FUNCTION pg_gpu_final_var_samp_int2(internal) RETURNS numeric
AS 'MODULE_PATHNAME', 'pg_gpu_final_var_samp' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE AGGREGATE gpu_var_samp(int2) (SFUNC = pg_gpu_collect, STYPE = internal, FINALFUNC = pg_gpu_final_var_samp_int2,
  COMBINEFUNC = pg_gpu_collect_combine, SERIALFUNC = pg_gpu_collect_serialize,
  DESERIALFUNC = pg_gpu_collect_deserialize, PARALLEL = SAFE);
CREATE FUNCTION pg_gpu_final_var_samp_int4(internal) RETURNS numeric
AS 'MODULE_PATHNAME', 'pg_gpu_final_var_samp' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE AGGREGATE gpu_var_samp(int4) (SFUNC = pg_gpu_collect, STYPE = internal, FINALFUNC = pg_gpu_final_var_samp_int4,
  COMBINEFUNC = pg_gpu_collect_combine, SERIALFUNC = pg_gpu_collect_serialize,
  DESERIALFUNC = pg_gpu_collect_deserialize, PARALLEL = SAFE);
CREATE FUNCTION pg_gpu_final_var_samp_int8(internal) RETURNS numeric
AS 'MODULE_PATHNAME', 'pg_gpu_final_var_samp' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE AGGREGATE gpu_var_samp(int8) (SFUNC = pg_gpu_collect, STYPE = internal, FINALFUNC = pg_gpu_final_var_samp_int8,
  COMBINEFUNC = pg_gpu_collect_combine, SERIALFUNC = pg_gpu_collect_serialize,
  DESERIALFUNC = pg_gpu_collect_deserialize, PARALLEL = SAFE);
CREATE FUNCTION pg_gpu_final_var_samp_float4(internal) RETURNS float8
AS 'MODULE_PATHNAME', 'pg_gpu_final_var_samp' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE AGGREGATE gpu_var_samp(float4) (SFUNC = pg_gpu_collect, STYPE = internal, FINALFUNC = pg_gpu_final_var_samp_float4,
  COMBINEFUNC = pg_gpu_collect_combine, SERIALFUNC = pg_gpu_collect_serialize,
  DESERIALFUNC = pg_gpu_collect_deserialize, PARALLEL = SAFE);
CREATE FUNCTION pg_gpu_final_var_samp_float8(internal) RETURNS float8
AS 'MODULE_PATHNAME', 'pg_gpu_final_var_samp' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE AGGREGATE gpu_var_samp(float8) (SFUNC = pg_gpu_collect, STYPE = internal, FINALFUNC = pg_gpu_final_var_samp_float8,
  COMBINEFUNC = pg_gpu_collect_combine, SERIALFUNC = pg_gpu_collect_serialize,
  DESERIALFUNC = pg_gpu_collect_deserialize, PARALLEL = SAFE);
CREATE FUNCTION pg_gpu_final_var_pop_int2(internal) RETURNS numeric
AS 'MODULE_PATHNAME', 'pg_gpu_final_var_pop' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE AGGREGATE gpu_var_pop(int2) (SFUNC = pg_gpu_collect, STYPE = internal, FINALFUNC = pg_gpu_final_var_pop_int2,
  COMBINEFUNC = pg_gpu_collect_combine, SERIALFUNC = pg_gpu_collect_serialize,
  DESERIALFUNC = pg_gpu_collect_deserialize, PARALLEL = SAFE);
CREATE FUNCTION pg_gpu_final_var_pop_int4(internal) RETURNS numeric
AS 'MODULE_PATHNAME', 'pg_gpu_final_var_pop' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE AGGREGATE gpu_var_pop(int4) (SFUNC = pg_gpu_collect, STYPE = internal, FINALFUNC = pg_gpu_final_var_pop_int4,
  COMBINEFUNC = pg_gpu_collect_combine, SERIALFUNC = pg_gpu_collect_serialize,
  DESERIALFUNC = pg_gpu_collect_deserialize, PARALLEL = SAFE);
CREATE FUNCTION pg_gpu_final_var_pop_int8(internal) RETURNS numeric
AS 'MODULE_PATHNAME', 'pg_gpu_final_var_pop' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE AGGREGATE gpu_var_pop(int8) (SFUNC = pg_gpu_collect, STYPE = internal, FINALFUNC = pg_gpu_final_var_pop_int8,
  COMBINEFUNC = pg_gpu_collect_combine, SERIALFUNC = pg_gpu_collect_serialize,
  DESERIALFUNC = pg_gpu_collect_deserialize, PARALLEL = SAFE);
CREATE FUNCTION pg_gpu_final_var_pop_float4(internal) RETURNS float8
AS 'MODULE_PATHNAME', 'pg_gpu_final_var_pop' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE AGGREGATE gpu_var_pop(float4) (SFUNC = pg_gpu_collect, STYPE = internal, FINALFUNC = pg_gpu_final_var_pop_float4,
  COMBINEFUNC = pg_gpu_collect_combine, SERIALFUNC = pg_gpu_collect_serialize,
  DESERIALFUNC = pg_gpu_collect_deserialize, PARALLEL = SAFE);
CREATE FUNCTION pg_gpu_final_var_pop_float8(internal) RETURNS float8
AS 'MODULE_PATHNAME', 'pg_gpu_final_var_pop' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE AGGREGATE gpu_var_pop(float8) (SFUNC = pg_gpu_collect, STYPE = internal, FINALFUNC = pg_gpu_final_var_pop_float8,
  COMBINEFUNC = pg_gpu_collect_combine, SERIALFUNC = pg_gpu_collect_serialize,
  DESERIALFUNC = pg_gpu_collect_deserialize, PARALLEL = SAFE);

-- Dictionaries: named key sets for repeated exact-match lookups, kept by the
-- session that creates them (in its memory and on its GPU) until dropped or the
-- session ends.  A snapshot of the query's keys (one text, varchar or bpchar
-- column), built as a 'hash' table or a 'trie' (LOUDS); matching is byte for
-- byte.  A key's ordinal is its position among the query's non-NULL keys.
-- Inside GpuAgg and GpuSort the lookups run in the GPU's page kernels.
CREATE FUNCTION pg_gpu_dict_create(name text, query text, kind text DEFAULT 'hash')
RETURNS bigint
AS 'MODULE_PATHNAME', 'pg_gpu_dict_create'
LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL UNSAFE;

CREATE FUNCTION pg_gpu_dict_contains(name text, key text)
RETURNS boolean
AS 'MODULE_PATHNAME', 'pg_gpu_dict_contains'
LANGUAGE C CALLED ON NULL INPUT STABLE PARALLEL RESTRICTED;

CREATE FUNCTION pg_gpu_dict_lookup(name text, key text)
RETURNS bigint
AS 'MODULE_PATHNAME', 'pg_gpu_dict_lookup'
LANGUAGE C CALLED ON NULL INPUT STABLE PARALLEL RESTRICTED;

CREATE FUNCTION pg_gpu_dict_drop(name text)
RETURNS void
AS 'MODULE_PATHNAME', 'pg_gpu_dict_drop'
LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL UNSAFE;

-- the table cache of this session: each table copied, or scanned once (issue 5)
CREATE FUNCTION pg_gpu_table_cache(
    OUT relation regclass,
    OUT state text,
    OUT pages bigint,
    OUT bytes bigint,
    OUT scans bigint,
    OUT reads bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'pg_gpu_table_cache'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

CREATE FUNCTION pg_gpu_dict_list(
    OUT name text,
    OUT kind text,
    OUT keys bigint,
    OUT distinct_keys bigint,
    OUT trie_nodes bigint,
    OUT host_bytes bigint,
    OUT device_bytes bigint,
    OUT build_ms double precision,
    OUT upload_ms double precision,
    OUT created timestamptz,
    OUT query text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'pg_gpu_dict_list'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;
