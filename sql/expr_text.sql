--
-- Expressions over text and lazy ones: LIKE / NOT LIKE with constant patterns
-- (%, _ as one UTF-8 character, escapes, bpchar's padding), CASE (searched,
-- simple, no ELSE; the branch not taken is not evaluated), COALESCE, NULLIF,
-- substring/substr/left with constant bounds, in WHERE, aggregate inputs and
-- GROUP BY keys
--
SET extra_float_digits = 0;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE et (id int4, t text, v varchar(20), c char(6), b bpchar, n int4, f8 float8);
INSERT INTO et SELECT i,
  CASE WHEN i % 101 = 0 THEN NULL
       WHEN i % 7 = 0 THEN 'forest green metallic ' || (i % 11)
       WHEN i % 7 = 1 THEN 'PROMO BRUSHED ' || (i % 5)
       WHEN i % 7 = 2 THEN 'STANDARD POLISHED BRASS'
       WHEN i % 7 = 3 THEN 'special ' || (i % 3) || ' requests'
       WHEN i % 7 = 4 THEN 'MED BAG'
       WHEN i % 7 = 5 THEN 'Customer ' || (i % 13) || ' Complaints'
       ELSE 'w' || (i % 50) END,
  CASE WHEN i % 89 = 0 THEN NULL ELSE 'v' || (i % 3) || repeat('ä', i % 4) END,
  CASE i % 5 WHEN 0 THEN 'abc' WHEN 1 THEN 'abc  ' WHEN 2 THEN 'ab' WHEN 3 THEN NULL ELSE 'xäy' END,
  CASE i % 3 WHEN 0 THEN 'x' WHEN 1 THEN 'x  ' ELSE 'y ' END,
  CASE WHEN i % 61 = 0 THEN NULL ELSE i % 9 - 4 END,
  (i % 1000) / 8.0
  FROM generate_series(1, 20000) i;
-- wildcards and escapes as data, multibyte characters, empty strings
INSERT INTO et VALUES
  (30001, '', '', '', '', 0, 1), (30002, 'a%b', 'a_b', 'a%b', 'a%b', 1, 2),
  (30003, 'axb', 'axb', 'axb', 'axb', 2, 3), (30004, 'a_b', 'a%b', 'a_b', 'a_b', 3, 4),
  (30005, 'a\b', 'a\b', 'a\b', 'a\b', 4, 5), (30006, 'ä', 'ä', 'ä', 'ä', 5, 6),
  (30007, '日本語', '日本語', '日本', '日本 ', 6, 7), (30008, 'aäb', 'aäb', 'aäb', 'aäb', 7, 8),
  (30009, 'a', 'a', 'a', 'a', 8, 9), (30010, 'ab', 'ab', 'ab', 'ab', NULL, 10),
  (30011, '%', '_', '%', '_', 0, 11), (30012, 'a!b', 'a!%b', 'a!b', 'a!b', 0, 12);
VACUUM ANALYZE et;

SET pg_gpu.enabled = off;
\i sql/include/expr_text_q.sql
SET pg_gpu.enabled = on;
SET pg_gpu.force = on;
\i sql/include/expr_text_q.sql

-- what runs on the GPU
EXPLAIN (COSTS OFF) SELECT count(*) FROM et WHERE t LIKE '%green%' AND v NOT LIKE 'v1%';
EXPLAIN (COSTS OFF) SELECT count(*) FROM et WHERE c LIKE 'abc%' OR b LIKE 'x_';
EXPLAIN (COSTS OFF) SELECT count(*) FROM et WHERE t LIKE 'a!%b' ESCAPE '!';
EXPLAIN (COSTS OFF)
  SELECT sum(CASE WHEN t LIKE 'PROMO%' THEN f8 * 2 ELSE 0 END), sum(CASE WHEN n <> 0 THEN 100 / n END)
  FROM et;
EXPLAIN (COSTS OFF)
  SELECT sum(CASE n WHEN 1 THEN 10 WHEN 2 THEN 20 END), sum(COALESCE(n, 7)), sum(100 / NULLIF(n, 0))
  FROM et;
EXPLAIN (COSTS OFF)
  SELECT substring(t from 1 for 2) AS p, count(*) FROM et
  WHERE substring(c from 1 for 2) IN ('ab', 'xä') GROUP BY 1;
EXPLAIN (COSTS OFF) SELECT substr(c, 2, 2), left(v, 2), count(*) FROM et GROUP BY 1, 2;
EXPLAIN (COSTS OFF)
  SELECT CASE WHEN n < 0 THEN 1 WHEN n > 0 THEN 2 END AS s, count(*) FROM et GROUP BY 1;
-- and what stays on the CPU: a pattern that is not a constant, one ending in a
-- lone escape, ILIKE, a negative substring length, a text key that is not a
-- column's bytes, a nondeterministic collation
EXPLAIN (COSTS OFF) SELECT count(*) FROM et WHERE t LIKE v;
EXPLAIN (COSTS OFF) SELECT count(*) FROM et WHERE t LIKE 'zz\';
SELECT count(*) FROM et WHERE t LIKE 'a\';
EXPLAIN (COSTS OFF) SELECT count(*) FROM et WHERE t ILIKE '%GREEN%';
EXPLAIN (COSTS OFF) SELECT count(*) FROM et WHERE substring(t from 2 for -1) = '';
SELECT count(*) FROM et WHERE substring(t from 2 for -1) = '';
EXPLAIN (COSTS OFF)
  SELECT CASE WHEN n < 0 THEN 'neg' ELSE t END AS k, count(*) FROM et GROUP BY 1;
CREATE COLLATION et_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
SELECT count(*) FROM et WHERE t LIKE 'w1%' COLLATE et_ci;

RESET pg_gpu.force;
RESET pg_gpu.enabled;
DROP TABLE et;
DROP COLLATION et_ci;
