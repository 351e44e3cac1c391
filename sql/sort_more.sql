--
-- GpuSort: text, varchar, bpchar and bool keys (byte order under the C collation
-- only; an ICU collation keeps PostgreSQL's sort), text keys longer than the
-- GPU's 64-byte prefix, and sorts larger than the GPU memory budget (sorted runs,
-- merged)
--
SET extra_float_digits = 0;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE sx (id int4, t text COLLATE "C", v varchar(200) COLLATE "C",
                 b char(6) COLLATE "C", ok bool, f8 float8, tu text COLLATE "und-x-icu",
                 lt text COLLATE "C");
INSERT INTO sx SELECT i,
  -- md5 keys with duplicates, NULLs and empty strings
  CASE WHEN i % 29 = 0 THEN NULL WHEN i % 31 = 0 THEN '' ELSE md5((i % 5000)::text) END,
  -- prefixes of one another, multibyte UTF-8, values of 96 bytes (longer than
  -- the prefix, told apart within it)
  CASE WHEN i % 37 = 0 THEN NULL
       WHEN i % 5 = 0 THEN left(md5((i % 300)::text), i % 9)
       WHEN i % 5 = 1 THEN 'é' || (i % 50) || 'ü'
       WHEN i % 5 = 2 THEN md5((i % 700)::text) || md5(i::text) || md5((i + 1)::text)
       ELSE 'Z' || (i % 40) END,
  -- trailing blanks are not significant in char(n); a tab sorts below nothing
  CASE WHEN i % 43 = 0 THEN NULL
       WHEN i % 4 = 0 THEN 'ab'
       WHEN i % 4 = 1 THEN 'ab ' || chr(9)
       WHEN i % 4 = 2 THEN 'a' || (i % 10)
       ELSE '' END,
  CASE WHEN i % 3 = 0 THEN NULL ELSE i % 2 = 0 END,
  ((i * 31) % 97 - 48) / 8.0,
  'w' || (i % 100),
  -- longer than the prefix and equal in it: the GPU cannot order them
  repeat('q', 70) || (i % 5)
  FROM generate_series(1, 30000) i;
VACUUM ANALYZE sx;

SET pg_gpu.enabled = off;
\i sql/include/sort_more_q.sql
SET pg_gpu.enabled = on;
SET pg_gpu.force = on;
\i sql/include/sort_more_q.sql
-- larger than the GPU memory budget: sorted runs of at most 128 pages merged
SET pg_gpu.device_memory_limit = '4MB';
\i sql/include/sort_more_q.sql
RESET pg_gpu.device_memory_limit;

\i sql/include/fn_gpusort_did.sql
SELECT gpusort_did('SELECT * FROM sx ORDER BY t, id', 'gpu');
-- a small LIMIT: the GPU selects the candidates, then sorts only them
SELECT gpusort_did('SELECT id FROM sx ORDER BY f8 DESC, id LIMIT 10', 'topn');
SELECT gpusort_did('SELECT id FROM sx ORDER BY ok, t DESC, id LIMIT 7 OFFSET 3', 'topn');
SET pg_gpu.device_memory_limit = '4MB';
SELECT gpusort_did('SELECT * FROM sx ORDER BY t, id', 'runs');
SELECT gpusort_did('SELECT * FROM sx ORDER BY b, t DESC, id', 'runs');
SELECT gpusort_did('SELECT id FROM sx WHERE ok ORDER BY f8 DESC, id LIMIT 10', 'runs');
-- a run of long text keys is sorted, but runs of them are not merged
SELECT gpusort_did('SELECT id FROM sx ORDER BY v, id', 'long key ties');
RESET pg_gpu.device_memory_limit;
SELECT gpusort_did('SELECT id FROM sx ORDER BY v, id', 'gpu');

-- plan shapes: text keys under C sort on the GPU; under an ICU collation, or with
-- a COLLATE to one, PostgreSQL sorts
EXPLAIN (COSTS OFF) SELECT id FROM sx ORDER BY t, id;
EXPLAIN (COSTS OFF) SELECT id FROM sx ORDER BY ok, b DESC, id;
EXPLAIN (COSTS OFF) SELECT id FROM sx ORDER BY tu, id;
EXPLAIN (COSTS OFF) SELECT id FROM sx ORDER BY t COLLATE "und-x-icu", id;
-- three text keys need more sort words than a row has
EXPLAIN (COSTS OFF) SELECT id FROM sx ORDER BY t, v, b, id;
-- keys equal in their first 64 bytes and longer: PostgreSQL re-runs the sort
SET pg_gpu.expect_gpu = off;
SELECT gpusort_did('SELECT id FROM sx ORDER BY lt, id', 'long key ties');
SELECT md5(string_agg(id::text, ',')) FROM (SELECT id FROM sx ORDER BY lt, id) x;
SET pg_gpu.enabled = off;
SELECT md5(string_agg(id::text, ',')) FROM (SELECT id FROM sx ORDER BY lt, id) x;
SET pg_gpu.enabled = on;
-- the same under LIMIT, with a next key that would order the ties wrongly, and
-- values of 70, 65 and 65 bytes that differ only after byte 64 ('P' < 'a' < 'b'):
-- PostgreSQL's order (issue 18: the H200 gave the next key's order with LIMIT)
CREATE TABLE sx_long (id int4, t text COLLATE "C", i2 int2);
INSERT INTO sx_long SELECT i,
  CASE WHEN i % 400 = 0 THEN repeat('P', 70) WHEN i % 400 = 1 THEN repeat('P', 64) || 'a'
       WHEN i % 400 = 2 THEN repeat('P', 64) || 'b' WHEN i % 50 = 3 THEN ''
       WHEN i % 30 = 4 THEN NULL ELSE 'k' || (i % 600) END,
  ((i * 7919) % 2001 - 1000)::int2
  FROM generate_series(1, 40000) i;
VACUUM ANALYZE sx_long;
SELECT gpusort_did('SELECT id FROM sx_long ORDER BY t, i2, id LIMIT 1000 OFFSET 50', 'long key ties');
SELECT md5(string_agg(id::text, ',')) FROM
  (SELECT id FROM sx_long ORDER BY t, i2, id LIMIT 1000 OFFSET 50) x;
SELECT id, left(t, 3), length(t), i2 FROM sx_long WHERE t LIKE 'PPP%'
  ORDER BY t, i2 DESC, id LIMIT 5 OFFSET 98;
SELECT md5(string_agg(id::text, ',')) FROM (SELECT id FROM sx ORDER BY lt, f8, id LIMIT 60 OFFSET 5) x;
SET pg_gpu.enabled = off;
SELECT md5(string_agg(id::text, ',')) FROM
  (SELECT id FROM sx_long ORDER BY t, i2, id LIMIT 1000 OFFSET 50) x;
SELECT id, left(t, 3), length(t), i2 FROM sx_long WHERE t LIKE 'PPP%'
  ORDER BY t, i2 DESC, id LIMIT 5 OFFSET 98;
SELECT md5(string_agg(id::text, ',')) FROM (SELECT id FROM sx ORDER BY lt, f8, id LIMIT 60 OFFSET 5) x;
SET pg_gpu.enabled = on;
DROP TABLE sx_long;
-- a compressed key value: PostgreSQL re-runs the sort
CREATE TABLE sx_toast (id int4, t text COLLATE "C");
INSERT INTO sx_toast SELECT i, 'k' || (i % 3) FROM generate_series(1, 1000) i;
INSERT INTO sx_toast VALUES (2001, repeat('z', 100000));
VACUUM ANALYZE sx_toast;
SELECT gpusort_did('SELECT id FROM sx_toast ORDER BY t, id', 'toasted value');
SELECT id, length(t) FROM sx_toast ORDER BY t DESC, id LIMIT 2;
SET pg_gpu.enabled = off;
SELECT id, length(t) FROM sx_toast ORDER BY t DESC, id LIMIT 2;
SET pg_gpu.enabled = on;
RESET pg_gpu.expect_gpu;
RESET pg_gpu.force;
RESET pg_gpu.enabled;
DROP FUNCTION gpusort_did(text, text);
DROP TABLE sx, sx_toast;
