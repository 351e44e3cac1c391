-- star joins: a fact table joined to dimensions, grouped by dimension attributes
-- 2-way: one dimension, an integer group key
SELECT d_year, count(*), sum(f_rev) FROM sf_fact JOIN sd_date ON f_date = d_key
  GROUP BY d_year ORDER BY d_year;
-- 3-way: a date and a text key, dimension filters on both
SELECT d_year, c_nation, count(*), sum(f_rev - f_cost) AS profit
  FROM sf_fact, sd_date, sd_cust
  WHERE f_date = d_key AND f_cust = c_key AND c_region = 'ASIA' AND d_year BETWEEN 1993 AND 1996
  GROUP BY d_year, c_nation ORDER BY d_year, c_nation;
-- 4-way, fact filters too, text group keys from two dimensions, ORDER BY an aggregate
SELECT c_nation, p_brand, d_year, sum(f_rev) AS revenue
  FROM sd_cust, sf_fact, sd_part, sd_date
  WHERE f_cust = c_key AND f_part = p_key AND f_date = d_key
    AND c_region = 'AMERICA' AND p_cat = 'C2' AND f_qty < 30 AND f_disc BETWEEN 1 AND 6
  GROUP BY c_nation, p_brand, d_year ORDER BY d_year, revenue DESC, c_nation, p_brand LIMIT 12;
-- no GROUP BY: one row
SELECT count(*), sum(f_rev::int8 * f_disc), min(d_month), max(c_name)
  FROM sf_fact, sd_date, sd_cust
  WHERE f_date = d_key AND f_cust = c_key AND d_month = 'Mar' AND c_nation <> 'PERU';
-- NULL fact keys join nothing; NULL dimension attributes form their own group
SELECT c_seg, count(*), sum(f_rev) FROM sf_fact JOIN sd_cust ON f_cust = c_key
  GROUP BY c_seg ORDER BY c_seg NULLS FIRST;
SELECT count(*) FROM sf_fact WHERE f_cust IS NULL;
-- duplicate dimension keys: a join that multiplies the fact rows
SELECT s_tag, count(*), sum(f_rev) FROM sf_fact JOIN sd_dup ON f_part = s_key
  GROUP BY s_tag ORDER BY s_tag;
SELECT d_year, s_tag, count(*) FROM sf_fact, sd_dup, sd_date
  WHERE f_part = s_key AND f_date = d_key GROUP BY d_year, s_tag ORDER BY d_year, s_tag;
-- an empty dimension: nothing joins
SELECT count(*), sum(f_rev) FROM sf_fact JOIN sd_empty ON f_part = e_key;
SELECT d_year, count(*) FROM sf_fact, sd_date, sd_empty
  WHERE f_date = d_key AND f_cust = e_key GROUP BY d_year;
-- semi-joins on dimension filters (IN, EXISTS) beside an inner join
SELECT d_year, count(*), sum(f_rev) FROM sf_fact JOIN sd_date ON f_date = d_key
  WHERE f_cust IN (SELECT c_key FROM sd_cust WHERE c_region = 'EUROPE')
    AND EXISTS (SELECT 1 FROM sd_part WHERE p_key = f_part AND p_cat <> 'C1')
  GROUP BY d_year ORDER BY d_year;
-- a snowflake: the customer dimension joined to its nation dimension
SELECT n_name, n_region, count(*), sum(f_rev) FROM sf_fact, sd_cust, sd_nation
  WHERE f_cust = c_key AND c_nation = n_name AND n_region IN ('ASIA', 'EUROPE')
  GROUP BY n_name, n_region ORDER BY n_name;
-- HAVING and LIMIT on the groups
SELECT p_brand, sum(f_rev) AS revenue FROM sf_fact JOIN sd_part ON f_part = p_key
  GROUP BY p_brand HAVING sum(f_rev) > 100000 ORDER BY revenue DESC, p_brand LIMIT 5;
-- the rows themselves, in order
SELECT md5(string_agg(f_id || ':' || c_name || ':' || d_key, ',' ORDER BY f_id))
  FROM sf_fact, sd_cust, sd_date WHERE f_cust = c_key AND f_date = d_key AND c_nation = 'JAPAN';
-- dimension columns in the aggregates' arguments and in key expressions
SELECT d_year / 2 AS biennium, sum(f_rev + d_year) AS s1, max(d_year * 100 + f_qty) AS m1
  FROM sf_fact JOIN sd_date ON f_date = d_key GROUP BY d_year / 2 ORDER BY 1;
-- a bpchar and a float dimension column as group keys, NULL attributes included
SELECT p_size, p_weight, count(*), sum(f_qty)
  FROM sf_fact JOIN sd_part ON f_part = p_key WHERE p_key < 40
  GROUP BY p_size, p_weight ORDER BY 1, 2;
SELECT p_size, d_month, avg(p_weight) AS w, count(*)
  FROM sf_fact, sd_part, sd_date
  WHERE f_part = p_key AND f_date = d_key AND d_year BETWEEN 1993 AND 1996
  GROUP BY p_size, d_month ORDER BY p_size, d_month;
-- HAVING on a dimension column
SELECT c_region, d_year, count(*) FROM sf_fact, sd_cust, sd_date
  WHERE f_cust = c_key AND f_date = d_key
  GROUP BY c_region, d_year HAVING c_region < 'B' AND d_year > 1995 ORDER BY 1, 2;
-- an empty dimension whose columns are grouped on
SELECT e_key, count(*), sum(f_rev) FROM sf_fact JOIN sd_empty ON f_part = e_key GROUP BY e_key;
SELECT d_year, e_key, count(*) FROM sf_fact, sd_date, sd_empty
  WHERE f_date = d_key AND f_cust = e_key GROUP BY d_year, e_key;
-- NULL dimension keys that repeat
SELECT tag, count(*), sum(f_rev) FROM sf_fact JOIN sd_nk ON f_qty = k GROUP BY tag ORDER BY tag;
-- columns reached through an aliased join (EXPLAIN names them by their table)
SELECT d_year, count(*) FROM (sf_fact JOIN sd_part ON f_part = p_key) x JOIN sd_date ON x.f_date = d_key
  WHERE x.f_qty < 40 GROUP BY 1 ORDER BY 1;
SELECT count(*) FROM (sf_fact f CROSS JOIN (SELECT 1) s) x WHERE x.f_qty < 3;
-- a dimension carrying words (CASE results, an int2 and a date with NULLs)
SELECT f_qty % 4 AS m,
  sum(CASE WHEN o_pri = '1-URGENT' OR o_pri = '2-HIGH' THEN 1 ELSE 0 END) AS high,
  sum(CASE WHEN o_pri <> '1-URGENT' AND o_pri <> '2-HIGH' THEN 1 ELSE 0 END) AS low,
  count(o_flag), sum(o_flag), min(o_day), max(o_day)
  FROM sf_fact JOIN sd_ord ON f_part = o_key WHERE f_disc < 8 GROUP BY 1 ORDER BY 1;
SELECT o_flag, o_day, count(*), sum(f_rev) FROM sf_fact JOIN sd_ord ON f_part = o_key
  GROUP BY o_flag, o_day ORDER BY 1 NULLS FIRST, 2 NULLS FIRST LIMIT 25;
SELECT d_year, o_flag, count(*) FROM sf_fact, sd_ord, sd_date
  WHERE f_part = o_key AND f_date = d_key AND o_pri < '3' GROUP BY 1, 2 ORDER BY 1, 2;
-- keys that repeat, a word carried
SELECT v, count(*), sum(f_qty) FROM sf_fact JOIN sd_dupi ON f_part = k GROUP BY v ORDER BY v;
-- dimensions joined to each other (the clause tested per fact row): an equality
-- through three tables (an equivalence class), NULL nation numbers joining nothing
SELECT nn_name, count(*), sum(f_rev), min(f_cost)
  FROM sf_fact, sd_cn, sd_sn, sd_nn
  WHERE f_cust = k AND f_part = s_key AND nk = s_nk AND nk = nn_key
  GROUP BY nn_name ORDER BY 1;
SELECT nk, count(*), sum(f_qty) FROM sf_fact, sd_cn, sd_sn
  WHERE f_cust = k AND f_part = s_key AND nk = s_nk AND f_disc < 6 GROUP BY nk ORDER BY 1;
-- pairs of names (TPC-H Q7's shape), a comparison that is no equality, IS DISTINCT FROM
SELECT nation, s_nation, count(*), sum(f_rev) FROM sf_fact, sd_cn, sd_sn
  WHERE f_cust = k AND f_part = s_key
    AND ((nation = 'FRANCE' AND s_nation = 'GERMANY') OR (nation = 'GERMANY' AND s_nation = 'FRANCE'))
  GROUP BY 1, 2 ORDER BY 1, 2;
SELECT s_nation, count(*) FROM sf_fact, sd_cn, sd_sn
  WHERE f_cust = k AND f_part = s_key AND nk < s_nk GROUP BY 1 ORDER BY 1;
SELECT count(*), sum(f_rev) FROM sf_fact, sd_cn, sd_sn
  WHERE f_cust = k AND f_part = s_key AND nk IS DISTINCT FROM s_nk;
-- a dimension with clauses beside its equality (TPC-H Q19's shape): an OR over
-- both tables' columns with bpchar padding, a float with NULLs, IS NOT DISTINCT
-- FROM, a grouped form, two dimensions, and keys that repeat (PostgreSQL's join
-- answers)
SELECT count(*), sum(f_rev) FROM sf_fact, sd_part
  WHERE (f_part = p_key AND p_cat = 'C1' AND p_size = 'S' AND f_qty BETWEEN 1 AND 10)
     OR (f_part = p_key AND p_cat = 'C2' AND p_size = 'M     ' AND f_qty BETWEEN 10 AND 20)
     OR (f_part = p_key AND p_weight > f_qty * 3 AND p_cat IN ('C3', 'C4'));
SELECT count(*), sum(f_cost) FROM sf_fact JOIN sd_part ON f_part = p_key AND f_disc IS NOT DISTINCT FROM p_key % 11;
SELECT p_cat, count(*), sum(f_qty) FROM sf_fact JOIN sd_part ON f_part = p_key AND f_disc < p_key % 11
  GROUP BY p_cat ORDER BY 1;
SELECT d_year, count(*), sum(f_rev) FROM sf_fact, sd_date, sd_part
  WHERE f_date = d_key AND f_part = p_key AND (p_weight < f_rev / 40.0 OR p_brand LIKE '%07')
  GROUP BY d_year ORDER BY 1;
SELECT count(*), sum(f_qty) FROM sf_fact JOIN sd_dupi ON f_part = k AND v < f_qty % 5;
-- a dimension that is a subquery, its text read inside an aggregate (the fuzzer's
-- seed 43 crashed the planner naming such an expression over a subquery's columns)
SELECT d_year, count(*), sum(CASE WHEN x.c_seg LIKE 'A%' THEN f_rev ELSE 0 END)
  FROM sf_fact, sd_date, (SELECT * FROM sd_cust OFFSET 0) x
  WHERE f_date = d_key AND f_cust = x.c_key GROUP BY d_year ORDER BY 1;
SELECT x.v, count(*), sum(CASE WHEN x.tag NOT LIKE 'a%' THEN f_rev END)
  FROM sf_fact JOIN (SELECT k, tag, k % 2 AS v FROM sd_nk OFFSET 0) x ON f_qty = x.k
  GROUP BY 1 ORDER BY 1;
