/* pg_gpu 0.2 -> 0.3: the GPU service's column cache (issue 21) */
\echo Use "ALTER EXTENSION pg_gpu UPDATE TO '0.3'" to load this file. \quit

-- Keep a table's columns in the GPU service's cache now (default: every
-- fixed-width column, 16 at most): a forced GPU scan of the table caches each
-- all-visible page.  Returns the table's blocks in the cache.
CREATE FUNCTION pg_gpu_cache_table(tab regclass, columns text[] DEFAULT NULL)
RETURNS bigint
AS 'MODULE_PATHNAME', 'pg_gpu_cache_table'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

-- Drop a table's columns (NULL: every table of this database) from the cache;
-- returns the entries dropped.
CREATE FUNCTION pg_gpu_uncache(tab regclass DEFAULT NULL)
RETURNS int
AS 'MODULE_PATHNAME', 'pg_gpu_uncache'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

CREATE FUNCTION pg_gpu_cache_entries(
    OUT datid oid,
    OUT relid oid,
    OUT attnums int2[],
    OUT blocks bigint,
    OUT bytes bigint,
    OUT scans bigint,
    OUT hits bigint,
    OUT last_use timestamptz,
    OUT emulated bool)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'pg_gpu_cache_entries'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

-- What the cache holds, for the whole cluster: a table's name and columns show
-- for tables of this database only.
CREATE VIEW pg_gpu_cache AS
  SELECT d.datname AS database,
         CASE WHEN e.datid = (SELECT oid FROM pg_database WHERE datname = current_database())
              THEN e.relid::regclass END AS "table",
         CASE WHEN e.datid = (SELECT oid FROM pg_database WHERE datname = current_database())
              THEN (SELECT array_agg(a.attname ORDER BY a.attnum) FROM pg_attribute a
                     WHERE a.attrelid = e.relid AND a.attnum = ANY (e.attnums)) END AS columns,
         e.blocks, e.bytes, e.scans, e.hits, e.last_use, e.emulated
    FROM pg_gpu_cache_entries() e
    LEFT JOIN pg_database d ON d.oid = e.datid;
