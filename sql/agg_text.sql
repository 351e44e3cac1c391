--
-- GpuAgg with text, varchar and bpchar: GROUP BY keys, and = <> IN in WHERE
-- (ordering comparisons only under a byte-order collation)
--
SET extra_float_digits = 0;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE tx (id int4, t text, v varchar(12), c char(5), b bpchar, f8 float8);
INSERT INTO tx SELECT i,
  CASE WHEN i % 97 = 0 THEN NULL ELSE 'w' || (i % 50) END,
  CASE WHEN i % 89 = 0 THEN NULL ELSE 'v' || (i % 3) END,
  (i % 4)::text,
  CASE i % 3 WHEN 0 THEN 'x' WHEN 1 THEN 'x  ' ELSE 'y ' END,
  (i % 1000) / 8.0
  FROM generate_series(1, 20000) i;
-- empty strings, trailing blanks that count (text) and do not (bpchar),
-- multibyte UTF-8, and in-line values over 1 kB
INSERT INTO tx VALUES
  (30001, '', '', '', '', 1), (30002, '', NULL, ' ', '   ', 2),
  (30003, 'a', 'a', 'a', 'a', 3), (30004, 'a ', 'a ', 'a  ', 'a   ', 4),
  (30005, 'ä', 'ä', 'ä', 'ä', 5), (30006, '日本語', '日本語', '日本', '日本 ', 6),
  (30007, repeat('long', 300), 'l', 'l', 'l', 7), (30008, repeat('long', 300), 'l', 'l', 'l', 8),
  (30009, repeat('long', 300) || 'x', 'l', 'l', 'l', 9);
ALTER TABLE tx ALTER COLUMN t SET STORAGE PLAIN;
-- 100,000 distinct md5 keys in a table without statistics: the planner guesses
-- 200 groups, so the GPU's tables grow
CREATE TABLE tx_md5 (w text, n int4) WITH (autovacuum_enabled = off);
INSERT INTO tx_md5 SELECT md5((i % 100000)::text), i FROM generate_series(1, 150000) i;
-- a compressed value and an out-of-line one: the CPU re-runs the query
CREATE TABLE tx_toast (id int4, t text);
INSERT INTO tx_toast SELECT i, 'k' || (i % 3) FROM generate_series(1, 1000) i;
INSERT INTO tx_toast VALUES (2001, repeat('z', 100000));
CREATE TABLE tx_ext (id int4, t text);
ALTER TABLE tx_ext ALTER COLUMN t SET STORAGE EXTERNAL;
INSERT INTO tx_ext SELECT i, 'k' || (i % 3) FROM generate_series(1, 1000) i;
INSERT INTO tx_ext VALUES (2001, repeat('z', 5000));
VACUUM ANALYZE tx, tx_toast, tx_ext;
VACUUM tx_md5;

SET pg_gpu.enabled = off;
\i sql/include/agg_text_q.sql
SET pg_gpu.enabled = on;
SET pg_gpu.force = on;
\i sql/include/agg_text_q.sql
SET pg_gpu.direct_groups = off;
SET pg_gpu.chunk_pages = 16;
\i sql/include/agg_text_q.sql
RESET pg_gpu.chunk_pages;
RESET pg_gpu.direct_groups;

-- what runs on the GPU, and what must not: text ordering under a collation that
-- is not byte order, and any comparison or key under a nondeterministic one
EXPLAIN (COSTS OFF) SELECT t, count(*) FROM tx GROUP BY t;
EXPLAIN (COSTS OFF) SELECT count(*) FROM tx WHERE t = 'w1' AND v <> 'v2';
EXPLAIN (COSTS OFF) SELECT count(*) FROM tx WHERE t < 'w3' COLLATE "C";
EXPLAIN (COSTS OFF) SELECT count(*) FROM tx WHERE t < 'w3' COLLATE "und-x-icu";
CREATE COLLATION tx_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
EXPLAIN (COSTS OFF) SELECT count(*) FROM tx WHERE t = 'W3' COLLATE tx_ci;
EXPLAIN (COSTS OFF) SELECT t COLLATE tx_ci, count(*) FROM tx GROUP BY 1;
SELECT count(*) FROM tx WHERE t = 'W3' COLLATE tx_ci;
-- a key that is an expression stays on the CPU
EXPLAIN (COSTS OFF) SELECT upper(t), count(*) FROM tx GROUP BY 1;

RESET pg_gpu.force;
RESET pg_gpu.enabled;
DROP TABLE tx, tx_md5, tx_toast, tx_ext;
DROP COLLATION tx_ci;
