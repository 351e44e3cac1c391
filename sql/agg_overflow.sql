--
-- Float overflow in grouped aggregates (issue 18, item 5).  PostgreSQL raises
-- "value out of range: overflow" when finite inputs make an infinite sum or
-- Youngs-Cramer Sxx, even from rounding noise; a GPU group whose magnitudes could
-- do that goes back to PostgreSQL's plan (which decides), smaller ones stay.
--
SET extra_float_digits = 0;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE ov (g int4, x float8, y float4);
INSERT INTO ov SELECT 1, 2.4e301, 1 FROM generate_series(1, 6);
INSERT INTO ov SELECT 2, i * 1e10, i FROM generate_series(1, 1000) i;
CREATE TABLE ov_ok (g int4, x float8);
INSERT INTO ov_ok SELECT i % 3, 1e140 * (1 + (i % 7)) FROM generate_series(1, 60) i;
INSERT INTO ov_ok SELECT 5, 'Infinity' FROM generate_series(1, 3);
INSERT INTO ov_ok SELECT 6, x FROM (VALUES (1e300), ('NaN'), (-1e300)) v(x);
CREATE TABLE ov_sum (g int4, x float8);
INSERT INTO ov_sum SELECT 1, 1.5e308 FROM generate_series(1, 4);
INSERT INTO ov_sum SELECT 2, 1 FROM generate_series(1, 4);
CREATE TABLE ov_f4 (g int4, y float4);
INSERT INTO ov_f4 SELECT 1, 3e38 FROM generate_series(1, 4);

SET pg_gpu.enabled = off;
\i sql/include/agg_overflow_q.sql
SET pg_gpu.enabled = on;
SET pg_gpu.force = on;
\i sql/include/agg_overflow_q.sql

RESET pg_gpu.force;
RESET pg_gpu.enabled;
DROP TABLE ov, ov_ok, ov_sum, ov_f4;
