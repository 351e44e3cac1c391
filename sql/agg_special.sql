--
-- GpuAgg: empty input, NULLs, one row, NaN/Inf/-0, int8 extremes, overflow errors
--
SET extra_float_digits = 0;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE sp_empty (i2 int2, i4 int4, i8 int8, f4 float4, f8 float8);
CREATE TABLE sp_nulls (i2 int2, i4 int4, i8 int8, f4 float4, f8 float8);
INSERT INTO sp_nulls SELECT NULL, NULL, NULL, NULL, NULL FROM generate_series(1, 1000);
CREATE TABLE sp_one (i2 int2, i4 int4, i8 int8, f4 float4, f8 float8);
INSERT INTO sp_one VALUES (7, 42, -9000000000, 2.5, 1e-300);
CREATE TABLE sp_float (f4 float4, f8 float8);
INSERT INTO sp_float SELECT (i % 100)::float4, (i % 1000) / 8.0 FROM generate_series(1, 3000) i;
INSERT INTO sp_float VALUES ('NaN', 'NaN'), ('Infinity', 'Infinity'), ('-Infinity', '-Infinity'),
  ('-0', '-0'), (NULL, NULL);
CREATE TABLE sp_nonan (f8 float8);
INSERT INTO sp_nonan SELECT i / 2.0 FROM generate_series(-500, 500) i;
INSERT INTO sp_nonan VALUES ('Infinity'), ('-Infinity');
CREATE TABLE sp_oneinf (f4 float4, f8 float8);
INSERT INTO sp_oneinf VALUES ('Infinity', 'Infinity');
CREATE TABLE sp_negzero (f4 float4, f8 float8);
INSERT INTO sp_negzero VALUES ('-0', '-0'), ('-0', '-0');
CREATE TABLE sp_big (i2 int2, i4 int4, i8 int8);
INSERT INTO sp_big SELECT 32767, 2147483647, 9223372036854775807 FROM generate_series(1, 3000);
INSERT INTO sp_big SELECT -32768, -2147483648, -9223372036854775808 FROM generate_series(1, 1000);
CREATE TABLE sp_twelve (i2 int2, i4 int4, i8 int8);
INSERT INTO sp_twelve VALUES (1, 1, 1), (2, 2, 2), (2, 2, 2);
CREATE TABLE sp_over8 (f8 float8);
INSERT INTO sp_over8 SELECT 1e308 FROM generate_series(1, 2000);
CREATE TABLE sp_sxx (f8 float8);
INSERT INTO sp_sxx SELECT CASE WHEN i % 2 = 0 THEN 1e200 ELSE -1e200 END FROM generate_series(1, 2000) i;
CREATE TABLE sp_over4 (f4 float4);
INSERT INTO sp_over4 SELECT 3e38 FROM generate_series(1, 2000);
CREATE TABLE sp_sum8 (i4 int4, i8 int8);
INSERT INTO sp_sum8 SELECT 2147483647, 9223372036854775807 FROM generate_series(1, 10);
VACUUM ANALYZE sp_empty, sp_nulls, sp_one, sp_float, sp_nonan, sp_oneinf, sp_negzero,
  sp_big, sp_twelve, sp_over8, sp_sxx, sp_over4, sp_sum8;

SET pg_gpu.enabled = off;
\i sql/include/agg_special_q.sql
SET pg_gpu.enabled = on;
SET pg_gpu.force = on;
\i sql/include/agg_special_q.sql

RESET pg_gpu.force;
RESET pg_gpu.enabled;
DROP TABLE sp_empty, sp_nulls, sp_one, sp_float, sp_nonan, sp_oneinf, sp_negzero,
  sp_big, sp_twelve, sp_over8, sp_sxx, sp_over4, sp_sum8;
