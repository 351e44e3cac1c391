--
-- GPU paths planned beside PostgreSQL's parallel plans (issue 18, item 1): ORDER BY
-- over a Gather Merge, with low and high row estimates, sorted partial index
-- scans, LIMIT and joins.  create_ordered_paths may free an input path that it
-- added to the ordered rel (the backend crashed planning GpuSort's fallback from
-- it); GPU paths now build on the ordered rel's live paths only.
--
SET extra_float_digits = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET min_parallel_index_scan_size = 0;
CREATE TABLE pp (id int8, g int4, i2 int2, i4 int4, f4 float4);
INSERT INTO pp SELECT i, i / 1500, (i % 7)::int2, i % 1000,
  CASE i % 500 WHEN 0 THEN 'NaN'::float4 WHEN 1 THEN 'Infinity' WHEN 2 THEN '-Infinity'
               WHEN 3 THEN '-0' ELSE (i % 977)::float4 / 3 END
  FROM generate_series(1, 150000) i;
-- dead and updated rows, not vacuumed
DELETE FROM pp WHERE id % 97 = 0;
UPDATE pp SET g = g + 1 WHERE id % 89 = 0;
CREATE INDEX pp_g ON pp (g);
ANALYZE pp;
CREATE TABLE pp_dim AS SELECT i AS g, 'd' || i AS name FROM generate_series(0, 40) i;
ANALYZE pp_dim;

-- PostgreSQL's plans: Gather Merge already sorted on the keys
SET pg_gpu.enabled = off;
EXPLAIN (COSTS OFF) SELECT g FROM pp WHERE f4 >= 1e10 ORDER BY g;
SET random_page_cost = 0.129;
SET cpu_index_tuple_cost = 0;
EXPLAIN (COSTS OFF) SELECT g FROM pp WHERE f4 >= 1e10 ORDER BY g;
RESET random_page_cost;
RESET cpu_index_tuple_cost;

\i sql/include/plan_parallel_q.sql
SET pg_gpu.enabled = on;
SET pg_gpu.force = on;
\i sql/include/plan_parallel_q.sql

-- the same with sorted partial index scans cheapest
SET pg_gpu.enabled = off;
SET random_page_cost = 0.129;
SET cpu_index_tuple_cost = 0;
\i sql/include/plan_parallel_q.sql
SET pg_gpu.enabled = on;
SET pg_gpu.force = on;
\i sql/include/plan_parallel_q.sql

-- and with sequential scans off
SET pg_gpu.enabled = off;
RESET random_page_cost;
RESET cpu_index_tuple_cost;
SET enable_seqscan = off;
\i sql/include/plan_parallel_q.sql
SET pg_gpu.enabled = on;
SET pg_gpu.force = on;
\i sql/include/plan_parallel_q.sql
RESET enable_seqscan;

-- the GPU's fallback is PostgreSQL's own sorted plan
EXPLAIN (COSTS OFF) SELECT g FROM pp WHERE f4 >= 1e10 ORDER BY g;
EXPLAIN (COSTS OFF) SELECT id, g, i2, i4 FROM pp WHERE f4 >= 1e300
  ORDER BY g, i2 DESC, i4, id LIMIT 10;
SET random_page_cost = 0.129;
SET cpu_index_tuple_cost = 0;
EXPLAIN (COSTS OFF) SELECT g FROM pp WHERE f4 >= 1e10 ORDER BY g;
RESET random_page_cost;
RESET cpu_index_tuple_cost;

RESET pg_gpu.force;
RESET pg_gpu.enabled;
DROP TABLE pp, pp_dim;
