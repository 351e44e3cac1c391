--
-- Star joins (issue 20): a fact table joined to several dimensions, grouped by
-- their attributes, each query with pg_gpu off and forced.  NULL fact keys,
-- duplicate dimension keys (a join that multiplies rows), an empty dimension,
-- text group keys, a snowflake chain, and a GPU failure that falls back.
--
SET extra_float_digits = 0;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE sd_date (d_key int4, d_year int4, d_month text);
INSERT INTO sd_date SELECT 19920000 + (i / 12) * 10000 + (i % 12 + 1) * 100 + 1, 1992 + i / 12,
  (ARRAY['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'])[i % 12 + 1]
  FROM generate_series(0, 83) i;
-- a dimension row whose key is NULL joins nothing
INSERT INTO sd_date VALUES (NULL, 2001, 'Xxx');
CREATE TABLE sd_nation (n_name text, n_region text);
INSERT INTO sd_nation VALUES ('CHINA', 'ASIA'), ('JAPAN', 'ASIA'), ('INDIA', 'ASIA'),
  ('FRANCE', 'EUROPE'), ('GERMANY', 'EUROPE'), ('PERU', 'AMERICA'), ('CANADA', 'AMERICA'),
  ('BRAZIL', 'AMERICA'), ('KENYA', 'AFRICA');
CREATE TABLE sd_cust (c_key int4, c_name text, c_nation text, c_region text, c_seg text);
INSERT INTO sd_cust SELECT i, 'Customer#' || lpad(i::text, 5, '0'), n_name, n_region,
  CASE WHEN i % 13 = 0 THEN NULL ELSE (ARRAY['AUTO', 'BUILD', 'HOUSE'])[i % 3 + 1] END
  FROM generate_series(1, 450) i
  JOIN (SELECT n_name, n_region, row_number() OVER (ORDER BY n_name) - 1 AS r FROM sd_nation) n
    ON n.r = i % 9;
CREATE TABLE sd_part (p_key int4, p_cat text, p_brand text, p_size char(6), p_weight float8);
INSERT INTO sd_part SELECT i, 'C' || (i % 4 + 1), 'C' || (i % 4 + 1) || lpad((i % 23)::text, 2, '0'),
  (ARRAY['S', 'M', 'L', 'XL'])[i % 4 + 1], CASE WHEN i % 17 = 0 THEN NULL ELSE i * 0.25 END
  FROM generate_series(1, 800) i;
-- a dimension whose keys repeat: each fact row joins two or three of its rows
CREATE TABLE sd_dup (s_key int4, s_tag text);
INSERT INTO sd_dup SELECT i % 400 + 1, 't' || (i % 5) FROM generate_series(0, 999) i;
-- a dimension whose key is unique and whose carried columns are words (an int2 and a
-- date with NULLs, CASE results): its keys and columns collected where the GPU reads
-- it; a row whose key is NULL joins nothing
CREATE TABLE sd_ord (o_key int4, o_pri text, o_flag int2, o_day date);
INSERT INTO sd_ord SELECT i,
  (ARRAY['1-URGENT', '2-HIGH', '3-MEDIUM', '4-NOT SPECIFIED', '5-LOW'])[i % 5 + 1],
  CASE WHEN i % 7 = 0 THEN NULL ELSE i % 3 END,
  CASE WHEN i % 11 = 0 THEN NULL ELSE date '1995-01-01' + i % 40 END
  FROM generate_series(1, 6000) i;
INSERT INTO sd_ord VALUES (NULL, '1-URGENT', 1, date '2000-01-01');
-- keys that repeat, a word carried
CREATE TABLE sd_dupi (k int4, v int4);
INSERT INTO sd_dupi SELECT i % 400 + 1, i % 5 FROM generate_series(0, 999) i;
CREATE TABLE sd_empty (e_key int4);
-- rows whose key is NULL, twice the same: they join nothing, and repeat harmlessly
CREATE TABLE sd_nk (k int4, tag text);
INSERT INTO sd_nk VALUES (1, 'a'), (2, 'b'), (3, 'a'), (NULL, 'z'), (NULL, 'z');
-- dimensions joined to each other as well as to the fact table (TPC-H Q5, Q7):
-- customers and suppliers of one nation number (NULL in some rows), nations named
CREATE TABLE sd_cn (k int4, nk int4, nation text);
INSERT INTO sd_cn SELECT i, CASE WHEN i % 29 = 0 THEN NULL ELSE i % 9 END,
  (ARRAY['CHINA', 'JAPAN', 'INDIA', 'FRANCE', 'GERMANY', 'PERU', 'CANADA', 'BRAZIL', 'KENYA'])[i % 9 + 1]
  FROM generate_series(1, 460) i;
CREATE TABLE sd_sn (s_key int4, s_nk int4, s_nation text);
INSERT INTO sd_sn SELECT i, CASE WHEN i % 19 = 0 THEN NULL ELSE i % 7 END,
  (ARRAY['CHINA', 'JAPAN', 'INDIA', 'FRANCE', 'GERMANY', 'PERU', 'CANADA'])[i % 7 + 1]
  FROM generate_series(1, 820) i;
CREATE TABLE sd_nn (nn_key int4, nn_name text);
INSERT INTO sd_nn SELECT i, 'N' || i FROM generate_series(0, 8) i;
CREATE TABLE sf_fact (f_id int4, f_date int4, f_cust int4, f_part int4, f_qty int4,
  f_disc int4, f_rev int4, f_cost int4);
INSERT INTO sf_fact SELECT i,
  19920000 + ((i * 7) % 84 / 12) * 10000 + ((i * 7) % 84 % 12 + 1) * 100 + 1,
  CASE WHEN i % 97 = 0 THEN NULL ELSE (i * 31) % 460 + 1 END,
  (i * 17) % 820 + 1, i % 50 + 1, i % 11, 1000 + (i * 37) % 9000, 500 + (i * 13) % 4000
  FROM generate_series(1, 30000) i;
VACUUM ANALYZE sd_date, sd_nation, sd_cust, sd_part, sd_dup, sd_ord, sd_dupi, sd_empty, sd_nk,
  sd_cn, sd_sn, sd_nn, sf_fact;
-- the plan under force: one GpuAgg scans the fact table, probes a key set per
-- dimension (their group columns its payload) and groups on the GPU; the
-- children are PostgreSQL's plan (the fallback) and each dimension's plan
SET pg_gpu.force = on;
EXPLAIN (COSTS OFF) SELECT d_year, c_nation, count(*), sum(f_rev - f_cost) AS profit
  FROM sf_fact, sd_date, sd_cust
  WHERE f_date = d_key AND f_cust = c_key AND c_region = 'ASIA' AND d_year BETWEEN 1993 AND 1996
  GROUP BY d_year, c_nation ORDER BY d_year, c_nation;
-- ... and a dimension carrying words only: its set made where the GPU reads it
EXPLAIN (COSTS OFF) SELECT f_qty % 4 AS m,
  sum(CASE WHEN o_pri = '1-URGENT' OR o_pri = '2-HIGH' THEN 1 ELSE 0 END) AS high,
  count(o_flag), min(o_day)
  FROM sf_fact JOIN sd_ord ON f_part = o_key GROUP BY 1 ORDER BY 1;
-- ... and two dimensions joined to each other: each its own set, the clause
-- between them tested on the GPU with both payloads (GPU Join Filter)
EXPLAIN (COSTS OFF) SELECT nn_name, count(*), sum(f_rev)
  FROM sf_fact, sd_cn, sd_sn, sd_nn
  WHERE f_cust = k AND f_part = s_key AND nk = s_nk AND nk = nn_key
  GROUP BY nn_name ORDER BY 1;
EXPLAIN (COSTS OFF) SELECT nation, s_nation, count(*) FROM sf_fact, sd_cn, sd_sn
  WHERE f_cust = k AND f_part = s_key
    AND ((nation = 'FRANCE' AND s_nation = 'GERMANY') OR (nation = 'GERMANY' AND s_nation = 'FRANCE'))
  GROUP BY 1, 2 ORDER BY 1, 2;
-- ... and a dimension with clauses beside its equality (TPC-H Q19's OR of
-- brands and quantities): its text tests carried as bools, the OR tested per
-- fact row with the fact row's columns (GPU Join Filter)
EXPLAIN (COSTS OFF) SELECT count(*), sum(f_rev) FROM sf_fact, sd_part
  WHERE (f_part = p_key AND p_cat = 'C1' AND p_size = 'S' AND f_qty BETWEEN 1 AND 10)
     OR (f_part = p_key AND p_cat = 'C2' AND f_qty BETWEEN 10 AND 20);
RESET pg_gpu.force;
SET pg_gpu.enabled = off;
\i sql/include/star_join_q.sql
SET pg_gpu.enabled = on;
SET pg_gpu.force = on;
\i sql/include/star_join_q.sql
-- a GPU failure after the first chunk of each scan (8 pages a chunk): PostgreSQL's
-- plan answers; these fall back on purpose
SET pg_gpu.expect_gpu = off;
SET pg_gpu.chunk_pages = 8;
SET pg_gpu.debug_fail_after_chunks = 1;
\i sql/include/star_join_q.sql
-- ... and at the first chunk of every GPU scan: the dimensions' rows tasks and key
-- collections give their sets back to the dimensions' plans, then the fact scan
-- gives the query back
SET pg_gpu.debug_fail_after_chunks = 0;
\i sql/include/star_join_q.sql
RESET pg_gpu.debug_fail_after_chunks;
RESET pg_gpu.chunk_pages;
RESET pg_gpu.expect_gpu;
RESET pg_gpu.force;
DROP TABLE sd_date, sd_nation, sd_cust, sd_part, sd_dup, sd_ord, sd_dupi, sd_empty, sd_nk,
  sd_cn, sd_sn, sd_nn, sf_fact;
