--
-- GpuAgg with WHERE: comparisons, arithmetic with PostgreSQL's errors, AND/OR/NOT,
-- IS NULL, BETWEEN, IN lists, date/timestamp constants; filters that keep nothing,
-- everything, one row
--
SET extra_float_digits = 0;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE wh (id int8, i2 int2, i4 int4, i8 int8, f4 float4, f8 float8, d date, ts timestamp);
INSERT INTO wh SELECT i, (i % 7 - 3)::int2, ((i::int8 * 7919) % 20011 - 10000)::int4, i::int8 * 1000003,
  (i % 13) / 4.0, (i % 1000) / 8.0, date '2024-02-27' + (i % 5),
  timestamp '2024-01-01 00:00' + (i % 6) * interval '90 minutes'
  FROM generate_series(1, 50000) i;
INSERT INTO wh SELECT i, NULL, NULL, NULL, NULL, NULL, NULL, NULL FROM generate_series(50001, 50050) i;
INSERT INTO wh (id, i4, f8) VALUES (60001, 5, 'NaN'), (60002, 6, 'Infinity'), (60003, 7, '-0');
VACUUM ANALYZE wh;

SET pg_gpu.enabled = off;
\i sql/include/agg_where_q.sql
SET pg_gpu.enabled = on;
SET pg_gpu.force = on;
\i sql/include/agg_where_q.sql

RESET pg_gpu.force;
RESET pg_gpu.enabled;
DROP TABLE wh;
