--
-- CASE producing numeric (issue 31; docs/SEMANTICS.md 30): branches of
-- different scales brought to one on the GPU while each value keeps its own
-- dscale (`ELSE 0` sums as dscale 0), integer branches, NULL branches, nested
-- and simple CASE, COALESCE, sum/avg/min/max of CASE with and without GROUP BY;
-- then star joins whose CASE tests a dimension's text (TPC-H Q14's p_type
-- LIKE 'PROMO%', Q8's nation = 'BRAZIL'), the test carried as a bool payload
-- of the dimension's key set.  NaN and +-Infinity go back to PostgreSQL.
--
SET extra_float_digits = 0;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE cn (k int4, g int2, i int4, a numeric(12,2), b numeric(10,4), f numeric, t text);
INSERT INTO cn SELECT i, (i % 6)::int2, i % 1000 - 500,
  CASE WHEN i % 53 = 0 THEN NULL ELSE ((i::int8 * 7919) % 2000000 - 1000000) / 100.0 END,
  CASE WHEN i % 41 = 0 THEN NULL ELSE (i % 10000) / 10000.0 END,
  -- typmod-less: dscales 0, 3 and 1, and NULLs
  CASE i % 4 WHEN 0 THEN i WHEN 1 THEN round(i / 7.0, 3) WHEN 2 THEN NULL ELSE round(-i / 8.0, 1) END,
  (ARRAY['PROMO A', 'STD B', NULL, 'promo c'])[i % 4 + 1]
  FROM generate_series(1, 30000) i;
-- NaN and +-Infinity (numeric(p,s) holds NaN, only a typmod-less column infinities)
CREATE TABLE cn_special (k int4, v numeric(12,2), w numeric);
INSERT INTO cn_special SELECT i, i / 4.0, i / 8.0 FROM generate_series(1, 3000) i;
INSERT INTO cn_special VALUES (-1, 'NaN', 'NaN'), (-2, 12.5, 'Infinity'), (-3, 1.25, '-Infinity');
-- TPC-H-like: a fact table, parts (some p_type NULL, some keys never joined),
-- suppliers and their nations (char(25)), orders
CREATE TABLE cp_part (p_partkey int4, p_type varchar(25), p_size int4);
INSERT INTO cp_part SELECT i,
  CASE WHEN i % 29 = 0 THEN NULL
       ELSE (ARRAY['PROMO BRUSHED TIN', 'STANDARD POLISHED STEEL', 'ECONOMY ANODIZED STEEL',
                   'PROMO PLATED COPPER', 'LARGE BURNISHED BRASS', 'promo lower'])[i % 6 + 1] END,
  i % 50
  FROM generate_series(1, 2000) i;
CREATE TABLE cp_nation (n_nationkey int4, n_name char(25));
INSERT INTO cp_nation VALUES (0, 'ALGERIA'), (1, 'ARGENTINA'), (2, 'BRAZIL'), (3, 'CANADA'),
  (4, 'PERU');
CREATE TABLE cp_supp (s_suppkey int4, s_nationkey int4);
INSERT INTO cp_supp SELECT i, (i * 7) % 5 FROM generate_series(1, 100) i;
CREATE TABLE cp_orders (o_orderkey int4, o_orderdate date);
INSERT INTO cp_orders SELECT i, date '1994-06-01' + (i * 37) % 1100 FROM generate_series(1, 8000) i;
CREATE TABLE cp_line (l_orderkey int4, l_partkey int4, l_suppkey int4,
  l_extendedprice numeric(15,2), l_discount numeric(15,2), l_shipdate date);
INSERT INTO cp_line SELECT i / 4 + 1,
  CASE WHEN i % 101 = 0 THEN NULL ELSE (i::int8 * 7919 % 2100)::int4 + 1 END,
  i % 100 + 1, (i::int8 * 31 % 100000) / 100.0 + 900, (i % 11) / 100.0,
  date '1995-01-01' + i % 700
  FROM generate_series(1, 30000) i;
VACUUM ANALYZE cn, cn_special, cp_part, cp_nation, cp_supp, cp_orders, cp_line;

SET pg_gpu.enabled = off;
\i sql/include/case_numeric_q.sql
SET pg_gpu.enabled = on;
SET pg_gpu.force = on;
\i sql/include/case_numeric_q.sql

-- on the GPU: a numeric CASE over one table
EXPLAIN (COSTS OFF)
SELECT g, sum(CASE WHEN i > 0 THEN a * (1 - b) ELSE 0 END) FROM cn GROUP BY g;
-- min/max of a CASE whose values' dscales differ (0 and 0.00 print differently)
-- stay on the CPU
EXPLAIN (COSTS OFF) SELECT min(CASE WHEN i > 0 THEN a ELSE 0 END) FROM cn;
-- TPC-H Q14: one GpuAgg scans the fact table, probing the parts' key set, which
-- carries p_type LIKE 'PROMO%' (a bool computed where the parts are read)
EXPLAIN (COSTS OFF)
SELECT 100.00 * sum(CASE WHEN p_type LIKE 'PROMO%' THEN l_extendedprice * (1 - l_discount) ELSE 0 END)
       / sum(l_extendedprice * (1 - l_discount)) AS promo_revenue
  FROM cp_line, cp_part
  WHERE l_partkey = p_partkey AND l_shipdate >= date '1995-09-01'
    AND l_shipdate < date '1995-09-01' + interval '1' month;
-- TPC-H Q8's shape: three dimensions, one of them a join (suppliers and their
-- nations) carrying n_name = 'BRAZIL', another the orders' dates (the plan down
-- to GpuAgg's children: the fallback and the dimensions' plans, long when forced)
CREATE FUNCTION cn_plan(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  l text;
  seen bool := false;
BEGIN
  FOR l IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    IF seen AND l ~ '^\s*->' THEN
      RETURN;
    END IF;
    seen := seen OR l ~ 'GpuAgg';
    RETURN NEXT l;
  END LOOP;
END $$;
SELECT cn_plan($$
SELECT o_year, sum(CASE WHEN nation = 'BRAZIL' THEN volume ELSE 0 END) / sum(volume) AS mkt_share
  FROM (SELECT extract(year FROM o_orderdate) AS o_year,
               l_extendedprice * (1 - l_discount) AS volume, n2.n_name AS nation
          FROM cp_line, cp_orders, cp_supp, cp_nation n2, cp_part
          WHERE l_orderkey = o_orderkey AND l_suppkey = s_suppkey
            AND s_nationkey = n2.n_nationkey AND p_partkey = l_partkey
            AND p_type = 'ECONOMY ANODIZED STEEL'
            AND o_orderdate BETWEEN date '1995-01-01' AND date '1996-12-31') AS all_nations
  GROUP BY o_year ORDER BY o_year$$);
-- a dimension expression that may raise (a regular expression: not leakproof)
-- is not carried, so no star join can read p_type: PostgreSQL aggregates the
-- rows of a GPU join
EXPLAIN (COSTS OFF)
SELECT sum(CASE WHEN p_type ~ '^PROMO' THEN l_extendedprice ELSE 0 END)
  FROM cp_line, cp_part WHERE l_partkey = p_partkey;

-- NaN and +-Infinity: the GPU gives the query back, PostgreSQL answers
SET pg_gpu.expect_gpu = off;
SET pg_gpu.enabled = off;
\i sql/include/case_numeric_back_q.sql
SET pg_gpu.enabled = on;
\i sql/include/case_numeric_back_q.sql
RESET pg_gpu.expect_gpu;

RESET pg_gpu.force;
RESET pg_gpu.enabled;
DROP FUNCTION cn_plan(text);
DROP TABLE cn, cn_special, cp_part, cp_nation, cp_supp, cp_orders, cp_line;
