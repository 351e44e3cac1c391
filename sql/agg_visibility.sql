--
-- GpuAgg: visibility.  Pages that are not all-visible get per-tuple visibility from
-- PostgreSQL for the query's snapshot; dead tuples, HOT chains and the running
-- transaction's own changes must be seen exactly as PostgreSQL sees them.  Columns
-- before the aggregated ones include TOASTed, compressed and short varlena values,
-- a dropped column and NULLs, which the GPU must step over.
--
SET extra_float_digits = 0;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE vis_t (id int4, pad text, dropme int8, big text, v int8, w float8)
  WITH (fillfactor = 60);
ALTER TABLE vis_t ALTER COLUMN big SET STORAGE EXTERNAL;
INSERT INTO vis_t
SELECT i,
       CASE WHEN i % 9 = 0 THEN NULL ELSE repeat(chr(65 + i % 26), i % 300) END,
       i,
       CASE WHEN i % 500 = 0 THEN repeat(md5(i::text), 100)   -- 3.2 kB, stored out of line
            WHEN i % 501 = 0 THEN repeat('z', 3000)           -- compressible
            ELSE NULL END,
       CASE WHEN i % 4 = 0 THEN NULL ELSE i * 3 END,
       i / 2.0
FROM generate_series(1, 20000) i;
ALTER TABLE vis_t DROP COLUMN dropme;
VACUUM ANALYZE vis_t;

-- all pages all-visible
SET pg_gpu.enabled = off;
\i sql/include/agg_visibility_q.sql
SET pg_gpu.enabled = on;
SET pg_gpu.force = on;
\i sql/include/agg_visibility_q.sql

-- dead tuples and HOT updates (not vacuumed: pages lose all-visible)
DELETE FROM vis_t WHERE id % 7 = 0;
UPDATE vis_t SET w = w + 1 WHERE id % 5 = 0;       -- HOT (fillfactor leaves room)
UPDATE vis_t SET v = -v WHERE id % 11 = 0;
SET pg_gpu.enabled = off;
\i sql/include/agg_visibility_q.sql
SET pg_gpu.enabled = on;
SET pg_gpu.force = on;
\i sql/include/agg_visibility_q.sql
SET pg_gpu.register_min_pages = 0;
SET pg_gpu.pin_workers = 2;
SET pg_gpu.pin_workers_min_pages = 0;
\i sql/include/agg_visibility_q.sql
RESET pg_gpu.register_min_pages;
RESET pg_gpu.pin_workers;
RESET pg_gpu.pin_workers_min_pages;

-- changes inside the running transaction are seen by it, and only by it
BEGIN;
DELETE FROM vis_t WHERE id % 3 = 0;
UPDATE vis_t SET v = v + 1000000 WHERE id % 13 = 0;
INSERT INTO vis_t (id, v, w) SELECT i, i, i FROM generate_series(1, 500) i;
SET LOCAL pg_gpu.enabled = off;
\i sql/include/agg_visibility_q.sql
SET LOCAL pg_gpu.enabled = on;
SET LOCAL pg_gpu.force = on;
\i sql/include/agg_visibility_q.sql
-- the same with pages pinned, and visibility decided, by parallel workers
SET LOCAL pg_gpu.register_min_pages = 0;
SELECT count(*) FROM (SELECT pg_gpu_register_buffer_pool()) AS registered;
SET LOCAL pg_gpu.pin_workers = 2;
SET LOCAL pg_gpu.pin_workers_min_pages = 0;
\i sql/include/agg_visibility_q.sql
ROLLBACK;

-- after the rollback the table is back to the committed state
SET pg_gpu.enabled = off;
\i sql/include/agg_visibility_q.sql
SET pg_gpu.enabled = on;
SET pg_gpu.force = on;
\i sql/include/agg_visibility_q.sql

-- a column added with a default has "missing" values in old tuples: CPU plan
ALTER TABLE vis_t ADD COLUMN extra int4 DEFAULT 5;
EXPLAIN (COSTS OFF) SELECT sum(extra) FROM vis_t;
SELECT sum(extra), count(extra) FROM vis_t;
-- but the other columns still go to the GPU
EXPLAIN (COSTS OFF) SELECT sum(v) FROM vis_t;

RESET pg_gpu.force;
RESET pg_gpu.enabled;
DROP TABLE vis_t;
