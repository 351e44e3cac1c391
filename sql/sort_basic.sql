--
-- GpuSort: ORDER BY over one table, every key type, directions and NULL
-- placements, NaN/Inf/-0, LIMIT/OFFSET, WITH TIES, filters, cursors
--
SET extra_float_digits = 0;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE so (id int4, i2 int2, i4 int4, i8 int8, f4 float4, f8 float8, d date,
                 ts timestamp, tz timestamptz, t text);
INSERT INTO so SELECT i,
  CASE WHEN i % 11 = 0 THEN NULL ELSE (i % 7 - 3)::int2 END,
  CASE WHEN i % 13 = 0 THEN NULL ELSE ((i::int8 * 7919) % 20011 - 10000)::int4 END,
  CASE WHEN i % 17 = 0 THEN NULL ELSE (i::int8 * 1000003) % 1000 - 500 END,
  CASE WHEN i % 19 = 0 THEN NULL ELSE ((i % 41) - 20) / 4.0 END,
  CASE WHEN i % 23 = 0 THEN NULL ELSE ((i * 31) % 97 - 48) / 8.0 END,
  date '2024-02-27' + (i % 5),
  timestamp '2024-01-01 00:00' + (i % 6) * interval '90 minutes',
  timestamptz '2024-01-01 00:00+00' + (i % 4) * interval '1 day',
  'r' || (i % 100)
  FROM generate_series(1, 30000) i;
INSERT INTO so (id, f4, f8, i8) VALUES
  (40001, 'NaN', 'NaN', 9223372036854775807), (40002, 'NaN', 'NaN', -9223372036854775808),
  (40003, '-0', '-0', 0), (40004, '0', '0', 0),
  (40005, 'Infinity', 'Infinity', 1), (40006, '-Infinity', '-Infinity', -1);
CREATE TABLE so_empty (id int4, f8 float8);
VACUUM ANALYZE so, so_empty;

SET pg_gpu.enabled = off;
\i sql/include/sort_basic_q.sql
SET pg_gpu.enabled = on;
SET pg_gpu.force = on;
\i sql/include/sort_basic_q.sql
SET pg_gpu.chunk_pages = 8;
\i sql/include/sort_basic_q.sql
RESET pg_gpu.chunk_pages;

-- plan shapes: GpuSort with PostgreSQL's sort as its fallback child; what stays on
-- the CPU (expression keys; text keys sort on the GPU under the C collation)
EXPLAIN (COSTS OFF) SELECT * FROM so ORDER BY f8, id;
EXPLAIN (COSTS OFF) SELECT id FROM so WHERE i4 > 0 ORDER BY i4 DESC LIMIT 3;
EXPLAIN (COSTS OFF) SELECT id FROM so ORDER BY t COLLATE "C", id;
EXPLAIN (COSTS OFF) SELECT id FROM so ORDER BY i4 + 1, id;
EXPLAIN (COSTS OFF) DECLARE c SCROLL CURSOR FOR SELECT id FROM so ORDER BY i8, id;
-- a GPU failure after two chunks: the sort still completes on the CPU
SET pg_gpu.expect_gpu = off;
SET pg_gpu.chunk_pages = 8;
SET pg_gpu.debug_fail_after_chunks = 2;
SELECT md5(string_agg(id::text, ',')) FROM (SELECT id FROM so ORDER BY f8 DESC, id) x;
RESET pg_gpu.debug_fail_after_chunks;
RESET pg_gpu.chunk_pages;
RESET pg_gpu.expect_gpu;
RESET pg_gpu.force;
RESET pg_gpu.enabled;
DROP TABLE so, so_empty;
