/* pg_gpu 0.3 -> 0.4: gpu_* over numeric, monitoring for every role (issue 30) */
\echo Use "ALTER EXTENSION pg_gpu UPDATE TO '0.4'" to load this file. \quit

-- gpu_* over numeric.  Without these, numeric arguments took the implicit cast
-- to float8 and gpu_sum(numeric) returned an inexact double precision.  Now
-- each is exact and numeric-typed, as the built-in is: it accumulates with
-- PostgreSQL's own numeric transition, combine and final functions (on the
-- CPU: numeric is not a GPU type yet), so values, scales and types equal
-- sum/avg/min/max/stddev/variance over numeric, in parallel plans and windows
-- too.
CREATE AGGREGATE gpu_min(numeric) (SFUNC = numeric_smaller, STYPE = numeric,
  COMBINEFUNC = numeric_smaller, SORTOP = <, PARALLEL = SAFE);
CREATE AGGREGATE gpu_max(numeric) (SFUNC = numeric_larger, STYPE = numeric,
  COMBINEFUNC = numeric_larger, SORTOP = >, PARALLEL = SAFE);
CREATE AGGREGATE gpu_sum(numeric) (SFUNC = numeric_avg_accum, STYPE = internal, SSPACE = 128,
  FINALFUNC = numeric_sum, COMBINEFUNC = numeric_avg_combine,
  SERIALFUNC = numeric_avg_serialize, DESERIALFUNC = numeric_avg_deserialize,
  MSFUNC = numeric_avg_accum, MINVFUNC = numeric_accum_inv, MSTYPE = internal, MSSPACE = 128,
  MFINALFUNC = numeric_sum, PARALLEL = SAFE);
CREATE AGGREGATE gpu_avg(numeric) (SFUNC = numeric_avg_accum, STYPE = internal, SSPACE = 128,
  FINALFUNC = numeric_avg, COMBINEFUNC = numeric_avg_combine,
  SERIALFUNC = numeric_avg_serialize, DESERIALFUNC = numeric_avg_deserialize,
  MSFUNC = numeric_avg_accum, MINVFUNC = numeric_accum_inv, MSTYPE = internal, MSSPACE = 128,
  MFINALFUNC = numeric_avg, PARALLEL = SAFE);
CREATE AGGREGATE gpu_stddev(numeric) (SFUNC = numeric_accum, STYPE = internal, SSPACE = 128,
  FINALFUNC = numeric_stddev_samp, COMBINEFUNC = numeric_combine,
  SERIALFUNC = numeric_serialize, DESERIALFUNC = numeric_deserialize,
  MSFUNC = numeric_accum, MINVFUNC = numeric_accum_inv, MSTYPE = internal, MSSPACE = 128,
  MFINALFUNC = numeric_stddev_samp, PARALLEL = SAFE);
CREATE AGGREGATE gpu_stddev_samp(numeric) (SFUNC = numeric_accum, STYPE = internal, SSPACE = 128,
  FINALFUNC = numeric_stddev_samp, COMBINEFUNC = numeric_combine,
  SERIALFUNC = numeric_serialize, DESERIALFUNC = numeric_deserialize,
  MSFUNC = numeric_accum, MINVFUNC = numeric_accum_inv, MSTYPE = internal, MSSPACE = 128,
  MFINALFUNC = numeric_stddev_samp, PARALLEL = SAFE);
CREATE AGGREGATE gpu_stddev_pop(numeric) (SFUNC = numeric_accum, STYPE = internal, SSPACE = 128,
  FINALFUNC = numeric_stddev_pop, COMBINEFUNC = numeric_combine,
  SERIALFUNC = numeric_serialize, DESERIALFUNC = numeric_deserialize,
  MSFUNC = numeric_accum, MINVFUNC = numeric_accum_inv, MSTYPE = internal, MSSPACE = 128,
  MFINALFUNC = numeric_stddev_pop, PARALLEL = SAFE);
CREATE AGGREGATE gpu_variance(numeric) (SFUNC = numeric_accum, STYPE = internal, SSPACE = 128,
  FINALFUNC = numeric_var_samp, COMBINEFUNC = numeric_combine,
  SERIALFUNC = numeric_serialize, DESERIALFUNC = numeric_deserialize,
  MSFUNC = numeric_accum, MINVFUNC = numeric_accum_inv, MSTYPE = internal, MSSPACE = 128,
  MFINALFUNC = numeric_var_samp, PARALLEL = SAFE);
CREATE AGGREGATE gpu_var_samp(numeric) (SFUNC = numeric_accum, STYPE = internal, SSPACE = 128,
  FINALFUNC = numeric_var_samp, COMBINEFUNC = numeric_combine,
  SERIALFUNC = numeric_serialize, DESERIALFUNC = numeric_deserialize,
  MSFUNC = numeric_accum, MINVFUNC = numeric_accum_inv, MSTYPE = internal, MSSPACE = 128,
  MFINALFUNC = numeric_var_samp, PARALLEL = SAFE);
CREATE AGGREGATE gpu_var_pop(numeric) (SFUNC = numeric_accum, STYPE = internal, SSPACE = 128,
  FINALFUNC = numeric_var_pop, COMBINEFUNC = numeric_combine,
  SERIALFUNC = numeric_serialize, DESERIALFUNC = numeric_deserialize,
  MSFUNC = numeric_accum, MINVFUNC = numeric_accum_inv, MSTYPE = internal, MSSPACE = 128,
  MFINALFUNC = numeric_var_pop, PARALLEL = SAFE);

-- Monitoring, readable as PostgreSQL's statistics views are: the counters by
-- every role (the functions behind them always were); resetting them stays
-- with superusers, as pg_stat_reset() does.  The column cache names a table
-- and its columns only to a role that may read the table, or to members of
-- pg_read_all_stats, as pg_stat_activity hides other roles' queries.
CREATE OR REPLACE VIEW pg_gpu_cache AS
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
         e.blocks, e.bytes, e.scans, e.hits, e.last_use, e.emulated
    FROM pg_gpu_cache_entries() e
    LEFT JOIN pg_database d ON d.oid = e.datid;
GRANT SELECT ON pg_gpu_stats, pg_gpu_fallbacks, pg_gpu_cache TO PUBLIC;
