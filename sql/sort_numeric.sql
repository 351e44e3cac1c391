--
-- GpuSort: numeric keys (PostgreSQL's order: NaN above +Infinity, -Infinity below
-- every finite value, 1.0 = 1.00), both directions, both NULL placements, values
-- longer than the GPU's 64-digit prefix, and sorted runs merged
--
SET extra_float_digits = 0;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE nx (id int4, n numeric, m numeric(12, 2), i int4, w numeric);
INSERT INTO nx SELECT g,
  -- magnitudes from 1e-10 to 1e12 with scales 0 to 9, both signs, duplicates
  CASE WHEN g % 17 = 0 THEN NULL
       ELSE round((((g * 7919) % 20011 - 10005) * 10.0 ^ ((g % 23) - 10))::numeric, g % 10) END,
  CASE WHEN g % 13 = 0 THEN NULL ELSE (((g::int8 * 104729) % 1000003) - 500000) / 100.0 END,
  g % 7,
  -- 70 significant digits that differ only after the 64th: the GPU cannot order them
  CASE WHEN g % 11 = 0 THEN NULL
       ELSE ('1' || repeat('0', 68) || (g % 9))::numeric END
  FROM generate_series(1, 40000) g;
INSERT INTO nx VALUES
  (-1, 'NaN', 'NaN', 0, 1), (-2, 'Infinity', 9999999999.99, 0, 1), (-3, '-Infinity', -9999999999.99, 0, 1),
  (-4, 0, 0, 0, 1), (-5, 0.000, -0.00, 0, 1), (-6, 1.0, 1, 0, 1), (-7, 1.00, 1.00, 0, 1),
  (-8, -1.5, -1.5, 0, 1), (-9, -1.50001, -1.50, 0, 1), (-10, 1e-30, 0.01, 0, 1),
  (-11, -1e-30, -0.01, 0, 1), (-12, 1e30, 99999.99, 0, 1), (-13, -1e30, -99999.99, 0, 1),
  -- 70 digits, told apart within the prefix
  (-14, ('1' || repeat('2', 69))::numeric, 1, 0, 1), (-15, ('1' || repeat('3', 69))::numeric, 1, 0, 1),
  (-16, 10000, 10000, 0, 1), (-17, 9999.9999, 9999.99, 0, 1), (-18, 0.0001, 0.01, 0, 1),
  (-19, 100000000, 0, 0, 1), (-20, 'NaN', NULL, 0, 1), (-21, 1e-200, 0, 0, 1),
  (-22, -1e200, 0, 0, 1), (-23, 'Infinity', 'NaN', 1, 1), (-24, '-Infinity', NULL, 1, 1);
VACUUM ANALYZE nx;

SET pg_gpu.enabled = off;
\i sql/include/sort_numeric_q.sql
SET pg_gpu.enabled = on;
SET pg_gpu.force = on;
\i sql/include/sort_numeric_q.sql
-- larger than the GPU memory budget: sorted runs merged (runs holding values
-- longer than the prefix are not merged: PostgreSQL sorts those)
SET pg_gpu.device_memory_limit = '4MB';
\i sql/include/sort_numeric_q.sql
RESET pg_gpu.device_memory_limit;

\i sql/include/fn_gpusort_did.sql
SELECT gpusort_did('SELECT * FROM nx ORDER BY n, id', 'gpu');
SELECT gpusort_did('SELECT id FROM nx ORDER BY m DESC, n, id', 'gpu');
SET pg_gpu.device_memory_limit = '4MB';
SELECT gpusort_did('SELECT * FROM nx WHERE id > 0 ORDER BY n DESC, id', 'runs');
SELECT gpusort_did('SELECT * FROM nx ORDER BY n, id', 'long key ties');
SELECT gpusort_did('SELECT * FROM nx ORDER BY i, m DESC NULLS LAST, id', 'runs');
RESET pg_gpu.device_memory_limit;

-- plan shapes: a numeric column sorts on the GPU; an expression over one does not
EXPLAIN (COSTS OFF) SELECT id FROM nx ORDER BY n, id;
EXPLAIN (COSTS OFF) SELECT id FROM nx ORDER BY n + 1, id;
-- numeric is a sort key only: a filter on it keeps PostgreSQL's plan
EXPLAIN (COSTS OFF) SELECT id FROM nx WHERE n > 0 ORDER BY n, id;
-- keys equal in their first 64 digits and longer: PostgreSQL re-runs the sort
SET pg_gpu.expect_gpu = off;
SELECT gpusort_did('SELECT id FROM nx ORDER BY w, id', 'long key ties');
SELECT md5(string_agg(id::text, ',')) FROM (SELECT id FROM nx ORDER BY w, id) x;
SET pg_gpu.enabled = off;
SELECT md5(string_agg(id::text, ',')) FROM (SELECT id FROM nx ORDER BY w, id) x;
SET pg_gpu.enabled = on;
RESET pg_gpu.expect_gpu;
RESET pg_gpu.force;
RESET pg_gpu.enabled;
DROP FUNCTION gpusort_did(text, text);
DROP TABLE nx;
