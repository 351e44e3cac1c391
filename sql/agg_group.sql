--
-- GpuAgg with GROUP BY: every key type, NULL/NaN/-0 keys, 1 to 1M groups,
-- multiple and expression keys, HAVING and ORDER BY above the aggregate
--
SET extra_float_digits = 0;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE gr (id int8, i2 int2, i4 int4, i8 int8, f4 float4, f8 float8,
                 d date, ts timestamp, tz timestamptz, one int4);
INSERT INTO gr SELECT i, (i % 7 - 3)::int2, ((i::int8 * 7919) % 20011 - 10000)::int4, i::int8 * 1000003,
  (i % 13) / 4.0, (i % 1000) / 8.0,
  date '2024-02-27' + (i % 5), timestamp '2024-01-01 00:00' + (i % 6) * interval '90 minutes',
  timestamptz '2024-01-01 00:00+00' + (i % 4) * interval '1 day', 1
  FROM generate_series(1, 60000) i;
-- NULLs in every column, and special float keys
INSERT INTO gr SELECT i, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL FROM generate_series(60001, 60100) i;
INSERT INTO gr (id, i2, i4, f4, f8, one) VALUES
  (70001, 1, 1, 'NaN', 'NaN', 1), (70002, 2, 2, 'NaN', 'NaN', 1),
  (70003, 3, 3, '-0', '-0', 1), (70004, 4, 4, '0', '0', 1),
  (70005, 5, 5, 'Infinity', 'Infinity', 1), (70006, 6, 6, '-Infinity', '-Infinity', 1);
CREATE TABLE gr_big (id int8, i4 int4);
INSERT INTO gr_big SELECT i, i % 1000 FROM generate_series(1, 1000000) i;
-- min/max of dates and timestamps: NULLs, +-infinity, BC values; group 3 has
-- only NULLs, group 4 only +infinity, group 5 only -infinity
CREATE TABLE gdt (g int4, x int4, d date, ts timestamp, tz timestamptz);
INSERT INTO gdt SELECT i % 3, i % 11,
  CASE WHEN i % 7 = 0 THEN NULL ELSE date '2000-02-29' + (i * 37) % 40000 - 20000 END,
  CASE WHEN i % 9 = 0 THEN NULL ELSE timestamp '1999-12-31 23:59:59.5' + ((i * 7919) % 100000 - 50000) * interval '1 hour 1.25 second' END,
  CASE WHEN i % 5 = 0 THEN NULL ELSE timestamptz '2020-03-08 10:00+00' + (i % 1000 - 500) * interval '37 minutes' END
  FROM generate_series(1, 3000) i;
INSERT INTO gdt VALUES
  (0, 1, '4713-01-01 BC', '4713-01-01 00:00:00 BC', '4713-01-01 00:00:00+00 BC'),
  (0, 2, '0001-12-31 BC', '0001-12-31 23:59:59.999999 BC', '0001-01-01 00:00:00+00 BC'),
  (1, 3, 'infinity', 'infinity', 'infinity'),
  (1, 4, '5874897-12-31', '294276-12-31 23:59:59.999999', '294276-12-31 23:59:59.999999+00'),
  (2, 5, '-infinity', '-infinity', '-infinity'),
  (2, 6, '0001-01-01', '0001-01-01 00:00:00', '0001-01-01 00:00:00+00'),
  (3, 7, NULL, NULL, NULL), (3, NULL, NULL, NULL, NULL),
  (4, 8, 'infinity', 'infinity', 'infinity'), (4, 9, 'infinity', 'infinity', 'infinity'),
  (5, 8, '-infinity', '-infinity', '-infinity'), (5, NULL, NULL, NULL, NULL),
  (NULL, 1, '2024-02-29', '2024-02-29 12:00', '2024-02-29 12:00+00');
VACUUM ANALYZE gr, gr_big, gdt;

SET pg_gpu.enabled = off;
\i sql/include/agg_group_q.sql
SET pg_gpu.enabled = on;
SET pg_gpu.force = on;
\i sql/include/agg_group_q.sql
-- partial states to a Finalize Aggregate instead of finished groups, and small
-- chunks
SET pg_gpu.direct_groups = off;
SET pg_gpu.chunk_pages = 64;
\i sql/include/agg_group_q.sql
RESET pg_gpu.direct_groups;
-- min/max of date and timestamp on the GPU, with count(DISTINCT) too
EXPLAIN (COSTS OFF) SELECT g, min(d), max(d), min(ts), max(ts), min(tz), max(tz) FROM gdt GROUP BY g;
EXPLAIN (COSTS OFF) SELECT min(d), max(ts) FROM gdt;
EXPLAIN (COSTS OFF) SELECT g, count(DISTINCT x), max(d), min(ts) FROM gdt GROUP BY g;

RESET pg_gpu.chunk_pages;
RESET pg_gpu.direct_groups;
RESET pg_gpu.force;
RESET pg_gpu.enabled;
DROP TABLE gr, gr_big, gdt;
