--
-- GpuHashJoin with the build side's rows read by a rows task: a build side
-- that is one table grouped on the GPU by (key, the columns the join outputs),
-- each group kept once per row it had; its plan never runs (unless the GPU
-- gives the task back)
--
SET extra_float_digits = 0;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE jr_p (id int4, k int4, t text);
INSERT INTO jr_p SELECT i, CASE WHEN i % 211 = 0 THEN NULL ELSE i % 400 END, 't' || (i % 350)
  FROM generate_series(1, 6000) i;
-- unique keys, every output type
CREATE TABLE jr_b (k int4, i8 int8, d date, n numeric(15,2), c char(6), t text, v varchar(10));
INSERT INTO jr_b SELECT i, i * 1000000007::int8, date '2020-01-01' + i, i / 7.0,
  CASE WHEN i % 13 = 0 THEN NULL ELSE 'c' || (i % 9) END, 't' || i, 'v' || (i % 5)
  FROM generate_series(0, 299) i;
INSERT INTO jr_b VALUES (NULL, 1, NULL, NULL, 'nul', 'tnull', NULL);
-- repeated keys, repeated whole rows, NULL keys and columns
CREATE TABLE jr_d (k int4, x int4, c char(4));
INSERT INTO jr_d SELECT i % 120, i % 6, 'c' || (i % 5) FROM generate_series(1, 700) i;
INSERT INTO jr_d SELECT 5, 1, 'dup' FROM generate_series(1, 4);
INSERT INTO jr_d SELECT NULL, 2, 'nk' FROM generate_series(1, 3);
INSERT INTO jr_d VALUES (11, NULL, NULL), (11, NULL, NULL), (12, 3, NULL);
CREATE TABLE jr_e (k int4, x int4);
-- a compressed value
CREATE TABLE jr_z (k int4, w text, x int4);
INSERT INTO jr_z SELECT i, 'w' || i, i % 3 FROM generate_series(1, 200) i;
INSERT INTO jr_z VALUES (17, repeat('z', 100000), 5);
VACUUM ANALYZE jr_p, jr_b, jr_d, jr_e, jr_z;

SET pg_gpu.enabled = off;
\i sql/include/join_rows_q.sql
SET pg_gpu.enabled = on;
SET pg_gpu.force = on;
\i sql/include/join_rows_q.sql

-- where the build rows came from: a rows task over the build table's pages
-- ('gpu'), or its plan ('plan'); 'ok' also where no GPU runs the join
CREATE FUNCTION jr_rows_from(q text, want text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  p jsonb;
  ks text;
BEGIN
  EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, FORMAT JSON) ' || q INTO p;
  IF jsonb_path_query_first(p, 'strict $.**."Fallback"') #>> '{}' IN ('no gpu', 'not compiled') THEN
    RETURN 'ok';
  END IF;
  ks := jsonb_path_query_first(p, 'strict $.**."Key Set"') #>> '{}';
  IF (ks ~ 'rows collected on the GPU from \d+ pages as \d+ distinct\)$' AND want = 'gpu') OR
     (ks NOT LIKE '%collected on the GPU%' AND want = 'plan') THEN
    RETURN 'ok';
  END IF;
  RETURN coalesce(ks, 'no key set');
END $$;
SELECT jr_rows_from('SELECT p.id, b.i8, b.d, b.k FROM jr_p p JOIN jr_b b ON p.k = b.k', 'gpu');
SELECT jr_rows_from('SELECT p.id, b.c, b.t, b.v FROM jr_p p JOIN jr_b b ON p.k = b.k', 'gpu');
SELECT jr_rows_from('SELECT p.id, d.x, d.c FROM jr_p p JOIN jr_d d ON p.k = d.k', 'gpu');
SELECT jr_rows_from('SELECT p.id, d.x FROM jr_p p JOIN jr_d d ON p.k = d.k WHERE d.x > 3 AND d.c <> ''c3''', 'gpu');
SELECT jr_rows_from('SELECT p.id, b.i8 FROM jr_p p JOIN jr_b b ON p.t = b.t', 'gpu');
SELECT jr_rows_from('SELECT p.id, e.x FROM jr_p p JOIN jr_e e ON p.k = e.k', 'gpu');
-- numeric, and more columns than a rows task groups by: the plan's rows
SELECT jr_rows_from('SELECT p.id, b.n FROM jr_p p JOIN jr_b b ON p.k = b.k', 'plan');
SELECT jr_rows_from('SELECT p.id, b.i8, b.d, b.c, b.t FROM jr_p p JOIN jr_b b ON p.k = b.k', 'plan');
-- the compressed value: the rows task gives it back, the plan runs
SELECT jr_rows_from('SELECT p.id, z.w FROM jr_p p JOIN jr_z z ON p.k = z.k', 'plan');
-- in a transaction that changed the build table
BEGIN;
UPDATE jr_b SET i8 = -1 WHERE k = 7;
SELECT jr_rows_from('SELECT p.id, b.i8 FROM jr_p p JOIN jr_b b ON p.k = b.k', 'gpu');
ROLLBACK;
-- the multiplicity as EXPLAIN counts it (emulated in every pass): the keys
-- are the rows, the distinct rows the groups
CREATE FUNCTION jr_key_set(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  p jsonb;
BEGIN
  EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, FORMAT JSON) ' || q INTO p;
  RETURN regexp_replace(jsonb_path_query_first(p, 'strict $.**."Key Set"') #>> '{}',
                        'from \d+ pages', 'from N pages');
END $$;
SET pg_gpu.emulate_gpu = on;
SELECT jr_key_set('SELECT p.id, d.x, d.c FROM jr_p p JOIN jr_d d ON p.k = d.k');
SELECT jr_key_set('SELECT p.id, d.x FROM jr_p p JOIN jr_d d ON p.k = d.k WHERE d.x = 1');
SELECT jr_key_set('SELECT p.id, e.x FROM jr_p p JOIN jr_e e ON p.k = e.k');
RESET pg_gpu.emulate_gpu;
DROP FUNCTION jr_key_set(text);
DROP FUNCTION jr_rows_from(text, text);
DROP TABLE jr_p, jr_b, jr_d, jr_e, jr_z;
