--
-- GpuAgg over numeric: decoded on the GPU into exact scaled 128-bit integers
-- (short and long headers, scales 0 to 20, negative weights, typmod-less values
-- of differing dscales), + - * and comparisons at PostgreSQL's scales, and
-- sum/avg/min/max whose text equals PostgreSQL's.  NaN, +-Infinity, dscales
-- beyond the column's reading scale and magnitudes past 2^90 go back to the CPU.
--
SET extra_float_digits = 0;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE nm (k int4, g int2,
  qty numeric(15,2), price numeric(15,2), disc numeric(15,2), tax numeric(15,2),
  s0 numeric(12,0), s4 numeric(20,4), s20 numeric(30,20), free numeric);
INSERT INTO nm SELECT i, (i % 5)::int2,
  (i % 50) + 1,
  ((i::int8 * 7919) % 10000000) / 100.0 + 900,
  (i % 11) / 100.0,
  (i % 9) / 100.0,
  CASE WHEN i % 7 = 0 THEN NULL ELSE (i::int8 * 104729) % 2000003 - 1000001 END,
  ((i::int8 * 15485863) % 200000001 - 100000000) / 10000.0,
  CASE WHEN i % 4 = 0 THEN 0 ELSE (i % 13) * 1e-20 + (i % 3) * 1e-7 - 0.5 END,
  -- typmod-less: scales 0 to 6 by row, some whole numbers, small and large weights
  CASE i % 6 WHEN 0 THEN i WHEN 1 THEN round(i / 7.0, 3) WHEN 2 THEN round(-i / 4.0, 2)
             WHEN 3 THEN round(i * 1000003.0 / 13, 6) WHEN 4 THEN 0.000001 * i
             ELSE NULL END
  FROM generate_series(1, 30000) i;
-- extremes within what the GPU keeps (min/max in 64 bits, the rest below 2^90), zeros
-- of several dscales, negative zero as written
INSERT INTO nm VALUES
  (-1, 0, 0, 0.00, 0, 0, 0, 0.0000, 0, 0.000),
  (-2, 0, -0.00, -0, 0.1, 0.01, -0, -0.0001, 1e-20, -0.000),
  (-3, 1, 9999999999999.99, 9999999999999.99, 0.99, 0.99, 999999999999, 99999999999999.9999,
   999999.99999999999999999999, 1e15),
  (-4, 1, -9999999999999.99, -9999999999999.99, -0.99, -0.99, -999999999999, -99999999999999.9999,
   -999999.99999999999999999999, -1e15),
  (-5, 2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
  (-6, 2, 10000, 10000.5, 0.05, 0.05, 10000, 0.0001, 0.00000000000000000001, 100000000),
  (-7, 3, 1, 1.00, 0.06, 0.07, 1, 1.0000, 1, 1.00000000);
CREATE TABLE nm_empty (k int4, qty numeric(15,2), free numeric);
CREATE TABLE nm_nulls (k int4, qty numeric(15,2), free numeric);
INSERT INTO nm_nulls SELECT i, NULL, NULL FROM generate_series(1, 2000) i;
-- values the GPU gives back: NaN, +-Infinity, typmod-less dscale 20, 1e40 and
-- 1e300 (a long header: weight above 63), min/max past 64 bits
CREATE TABLE nm_back (k int4, v numeric, w numeric(50,2));
INSERT INTO nm_back SELECT i, i / 8.0, i FROM generate_series(1, 3000) i;
INSERT INTO nm_back VALUES (-1, 'NaN', 1), (-2, 'Infinity', 2), (-3, '-Infinity', 3);
CREATE TABLE nm_wide (k int4, v numeric, w numeric(50,2), x numeric(30,20));
INSERT INTO nm_wide SELECT i, i / 7.0, i, i / 3.0 FROM generate_series(1, 3000) i;
INSERT INTO nm_wide VALUES (-1, 1, 1e40, 999999.99999999999999999999), (-2, 1e300, 1, 1);
-- dates compared with timestamp constants (date + interval folds into one):
-- midnights, hours into a day, +-infinity, the ends of both types' ranges
CREATE TABLE nm_dates (d date, v int4);
INSERT INTO nm_dates SELECT date '1993-12-25' + (i % 20), i FROM generate_series(1, 2000) i;
INSERT INTO nm_dates VALUES ('infinity', 1), ('-infinity', 2), (NULL, 3), ('5874897-12-31', 4),
  ('4713-01-01 BC', 5);
VACUUM ANALYZE nm, nm_empty, nm_nulls, nm_back, nm_wide, nm_dates;

SET pg_gpu.enabled = off;
\i sql/include/agg_numeric_q.sql
\i sql/include/agg_numeric_dates_q.sql
SET pg_gpu.enabled = on;
SET pg_gpu.force = on;
\i sql/include/agg_numeric_q.sql
\i sql/include/agg_numeric_dates_q.sql

-- forced plans put these on the GPU
EXPLAIN (COSTS OFF)
SELECT g, sum(qty), sum(price * (1 - disc)), sum(price * (1 - disc) * (1 + tax)), avg(qty),
       avg(disc), count(*)
  FROM nm WHERE disc <= 0.09 GROUP BY g;
EXPLAIN (COSTS OFF)
SELECT sum(price * disc) FROM nm WHERE disc BETWEEN 0.05 AND 0.07 AND qty < 24;
EXPLAIN (COSTS OFF) SELECT sum(free), avg(free) FROM nm;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM nm_dates WHERE d >= date '1994-01-01' AND d < date '1994-01-01' + interval '1' year;
-- min/max of a typmod-less column print each value's own dscale: not on the GPU
EXPLAIN (COSTS OFF) SELECT max(free) FROM nm;
-- scales beyond PG_GPU_DEC_MAX_SCALE (24): s20 * s20 stays on the CPU
EXPLAIN (COSTS OFF) SELECT sum(s20 * s20) FROM nm;

-- values the GPU cannot keep exactly: the query re-runs on the CPU, same answer
SET pg_gpu.expect_gpu = off;
SET pg_gpu.enabled = off;
\i sql/include/agg_numeric_back_q.sql
SET pg_gpu.enabled = on;
\i sql/include/agg_numeric_back_q.sql
RESET pg_gpu.expect_gpu;

RESET pg_gpu.force;
RESET pg_gpu.enabled;
DROP TABLE nm, nm_empty, nm_nulls, nm_back, nm_wide, nm_dates;
