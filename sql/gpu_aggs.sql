--
-- Explicit GPU aggregates gpu_min ... gpu_var_pop: equal to the built-ins, type for
-- type, reduced on the GPU (pg_gpu.min_rows = 0) or on the CPU, in plain queries,
-- joins, GROUP BY and parallel plans
--
SET extra_float_digits = 0;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE ga (id int4, i2 int2, i4 int4, i8 int8, f4 float4, f8 float8);
INSERT INTO ga SELECT i, (i % 100 - 50)::int2, (i * 7) % 100003 - 50000, i::int8 * 1234567,
  (i % 100) / 4.0, (i % 10000) / 16.0 FROM generate_series(1, 40000) i;
INSERT INTO ga VALUES (40001, NULL, NULL, NULL, NULL, NULL);
CREATE TABLE ga_special (f4 float4, f8 float8, i8 int8);
INSERT INTO ga_special VALUES ('NaN', 'NaN', 9223372036854775807), ('-0', '-0', 9223372036854775807),
  ('Infinity', 'Infinity', 1);
CREATE TABLE ga_over (f8 float8);
INSERT INTO ga_over SELECT 1e308 FROM generate_series(1, 3);
CREATE TABLE ga_empty (i4 int4, f8 float8);
VACUUM ANALYZE ga, ga_special, ga_over, ga_empty;
ALTER TABLE ga SET (parallel_workers = 2);

-- the built-ins, for reference
SELECT min(i2), max(i4), sum(i2), sum(i4), sum(i8), sum(f4), sum(f8), avg(i2), avg(i4), avg(i8), avg(f4), avg(f8) FROM ga;
SELECT stddev(i2), stddev_samp(i4), stddev_pop(i8), variance(i4), var_samp(i8), var_pop(i2) FROM ga;
SELECT round(stddev(f8)::numeric, 9), round(var_pop(f4)::numeric, 9), round(var_samp(f8)::numeric, 6), pg_typeof(stddev(f4)) FROM ga;
SET pg_gpu.enabled = off;
\i sql/include/gpu_aggs_q.sql
SET pg_gpu.enabled = on;
SET pg_gpu.min_rows = 0;
\i sql/include/gpu_aggs_q.sql
-- parallel plans combine and serialise the collected values
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
EXPLAIN (COSTS OFF) SELECT gpu_avg(i4) FROM ga;
\i sql/include/gpu_aggs_q.sql
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
-- small groups stay on the CPU
SET pg_gpu.min_rows = 1000000;
\i sql/include/gpu_aggs_q.sql

RESET pg_gpu.min_rows;
RESET pg_gpu.enabled;

-- numeric: exact and numeric-typed, as the built-ins (not the implicit cast to
-- float8 that gave 0.30000000000000004); PostgreSQL's numeric arithmetic
CREATE TABLE ga_num (id int, n numeric, m numeric(15,2));
INSERT INTO ga_num VALUES (1, 0.1, 0.10), (2, 0.2, 1.25), (3, 12345678901234567890123, -3.5),
  (4, NULL, NULL), (5, -0.000000000000000000001, 99999999999.99), (6, 1e-30, 0);
SELECT gpu_sum(n), pg_typeof(gpu_sum(n)), gpu_avg(n), pg_typeof(gpu_avg(n)), gpu_min(n), gpu_max(n) FROM ga_num;
SELECT sum(n), avg(n), min(n), max(n) FROM ga_num;
SELECT gpu_sum(n) FROM ga_num WHERE id <= 2;
SELECT gpu_stddev(m), gpu_stddev_samp(m), gpu_stddev_pop(m), gpu_variance(m), gpu_var_samp(m), gpu_var_pop(m),
       pg_typeof(gpu_var_pop(m)) FROM ga_num;
SELECT stddev(m), stddev_samp(m), stddev_pop(m), variance(m), var_samp(m), var_pop(m) FROM ga_num;
SELECT id % 2 AS k, gpu_sum(m), gpu_avg(m) FROM ga_num GROUP BY 1 ORDER BY 1;
SELECT id, gpu_sum(m) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM ga_num ORDER BY id;
-- NaN, ±Infinity, no rows
SELECT gpu_sum(x), gpu_avg(x), gpu_max(x), gpu_min(x) FROM (VALUES (1.5), ('NaN'), ('-Infinity')) v(x);
SELECT gpu_sum(x), gpu_avg(x) FROM (VALUES ('Infinity'::numeric), ('-Infinity')) v(x);
SELECT gpu_sum(n), gpu_avg(n), gpu_stddev(n) FROM ga_num WHERE false;
-- parallel plans combine and serialise numeric states as the built-ins do
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT gpu_sum(i8::numeric) = sum(i8::numeric) AS s, gpu_avg(i4::numeric / 7) = avg(i4::numeric / 7) AS a,
       gpu_var_pop(i8::numeric) = var_pop(i8::numeric) AS v FROM ga;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
DROP TABLE ga_num;
DROP TABLE ga, ga_special, ga_over, ga_empty;
