--
-- GpuSort over a child plan (the slot path): joins, subqueries, UNION ALL, a
-- partitioned table, keys computed below the sort; LIMIT and WITH TIES, backward
-- cursors, rescans; tuplesort when the rows exceed pg_gpu.slot_sort_memory
--
SET extra_float_digits = 0;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE sa (id int4, g int4, t text COLLATE "C", n numeric, f4 float4, d date,
                 ts timestamptz, s int2, ok bool, tu text COLLATE "und-x-icu");
CREATE TABLE sb (g int4, name varchar(20) COLLATE "C", f float8, c char(4) COLLATE "C");
INSERT INTO sa SELECT i, i % 120,
  CASE WHEN i % 19 = 0 THEN NULL ELSE md5((i % 3000)::text) END,
  CASE WHEN i % 23 = 0 THEN NULL ELSE ((i * 37) % 2001 - 1000) / 7.0 END,
  CASE WHEN i % 29 = 0 THEN 'NaN'::float4 WHEN i % 31 = 0 THEN '-0'::float4 ELSE ((i * 13) % 101 - 50) / 4.0 END,
  date '2020-01-01' + (i * 7) % 900,
  timestamptz '2021-06-01 00:00+00' + ((i * 11) % 5000) * interval '1 minute',
  ((i * 17) % 300 - 150)::int2,
  CASE WHEN i % 5 = 0 THEN NULL ELSE i % 3 = 0 END,
  'u' || (i % 50)
  FROM generate_series(1, 20000) i;
-- groups 100 .. 119 have no match (outer joins give NULLs)
INSERT INTO sb SELECT i, 'g' || (i % 37), CASE WHEN i % 11 = 0 THEN NULL ELSE i / 3.0 END,
  CASE WHEN i % 3 = 0 THEN 'ab' ELSE 'a' || (i % 4) END
  FROM generate_series(0, 99) i;
CREATE TABLE sp (id int4, k int4, v text COLLATE "C") PARTITION BY RANGE (k);
CREATE TABLE sp0 PARTITION OF sp FOR VALUES FROM (0) TO (500);
CREATE TABLE sp1 PARTITION OF sp FOR VALUES FROM (500) TO (1000);
INSERT INTO sp SELECT i, (i * 7) % 1000, md5(i::text) FROM generate_series(1, 8000) i;
VACUUM ANALYZE sa, sb, sp;

SET pg_gpu.enabled = off;
\i sql/include/sort_slot_q.sql
SET pg_gpu.enabled = on;
SET pg_gpu.force = on;
\i sql/include/sort_slot_q.sql
-- more rows than the memory a GpuSort over a child plan keeps: tuplesort
SET pg_gpu.slot_sort_memory = '256kB';
\i sql/include/sort_slot_q.sql
RESET pg_gpu.slot_sort_memory;

\i sql/include/fn_gpusort_did.sql
SELECT gpusort_did('SELECT sa.id, sb.name FROM sa JOIN sb USING (g) ORDER BY sb.f DESC, sa.t, sa.id', 'gpu');
SELECT gpusort_did('SELECT * FROM sp ORDER BY v, id', 'gpu');
SELECT gpusort_did('SELECT id FROM (SELECT id, t FROM sa UNION ALL SELECT g, name FROM sb) u ORDER BY t, id', 'gpu');
SET pg_gpu.slot_sort_memory = '256kB';
SELECT gpusort_did('SELECT sa.id, sb.name FROM sa JOIN sb USING (g) ORDER BY sb.f DESC, sa.t, sa.id', 'over slot_sort_memory');
RESET pg_gpu.slot_sort_memory;
-- keys equal in their first 64 bytes and longer: tuplesort sorts them
SET pg_gpu.expect_gpu = off;
SELECT gpusort_did('SELECT sa.id FROM sa JOIN sb USING (g) ORDER BY repeat(sb.c, 20) || sa.t, sa.id', 'long key ties');
SELECT md5(string_agg(id::text, ',')) FROM (SELECT sa.id FROM sa JOIN sb USING (g) ORDER BY repeat(sb.c, 20) || sa.t, sa.id) x;
SET pg_gpu.enabled = off;
SELECT md5(string_agg(id::text, ',')) FROM (SELECT sa.id FROM sa JOIN sb USING (g) ORDER BY repeat(sb.c, 20) || sa.t, sa.id) x;
SET pg_gpu.enabled = on;
RESET pg_gpu.expect_gpu;

-- plan shapes: a join, a partitioned table and a key computed below the sort go
-- through GpuSort; a key under an ICU collation keeps PostgreSQL's Sort; a
-- backward cursor gets a Material node above GpuSort
EXPLAIN (COSTS OFF) SELECT sa.id, sb.name FROM sa JOIN sb USING (g) ORDER BY sb.f DESC, sa.t, sa.id;
EXPLAIN (COSTS OFF) SELECT * FROM sp ORDER BY v, id;
EXPLAIN (COSTS OFF) SELECT sa.id * 2 AS x FROM sa JOIN sb USING (g) ORDER BY x DESC NULLS LAST;
EXPLAIN (COSTS OFF) SELECT sa.id FROM sa JOIN sb USING (g) ORDER BY sa.tu, sa.id;
EXPLAIN (COSTS OFF) DECLARE cur SCROLL CURSOR FOR SELECT sa.id FROM sa JOIN sb USING (g) ORDER BY sa.n, sa.id;
RESET pg_gpu.force;
RESET pg_gpu.enabled;
DROP FUNCTION gpusort_did(text, text);
DROP TABLE sa, sb, sp;
