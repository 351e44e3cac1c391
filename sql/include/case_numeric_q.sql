-- CASE producing numeric, over one table
-- a numeric THEN and an integer ELSE: the 0 is numeric 0 of dscale 0
SELECT sum(CASE WHEN i > 0 THEN a * (1 - b) ELSE 0 END) FROM cn;
-- groups where no row takes the THEN sum only zeros: 0, not 0.000000
SELECT g, sum(CASE WHEN g = 5 AND i > 0 THEN a * b ELSE 0 END), count(*)
  FROM cn GROUP BY g ORDER BY g;
-- branches at scales 2, 4, 1 and 3
SELECT g, sum(CASE WHEN i < -200 THEN a WHEN i < 0 THEN b WHEN i < 200 THEN 0.5 ELSE 0.000 END)
  FROM cn GROUP BY g ORDER BY g;
SELECT g, sum(CASE WHEN i < -490 THEN b WHEN i < 0 THEN 0.5 ELSE 0 END)
  FROM cn GROUP BY g ORDER BY g;
-- integer columns in a branch (numeric(i), dscale 0)
SELECT sum(CASE WHEN k % 2 = 0 THEN a ELSE i END), sum(CASE WHEN k % 2 = 0 THEN i ELSE 0.25 END),
       avg(CASE WHEN k % 3 = 0 THEN k::int8 ELSE b END)
  FROM cn;
-- no ELSE: NULL
SELECT g, sum(CASE WHEN i % 7 = 0 THEN a END), count(CASE WHEN i % 7 = 0 THEN a END),
       avg(CASE WHEN i % 7 = 0 THEN b END)
  FROM cn GROUP BY g ORDER BY g;
-- no row takes the THEN: a sum of NULLs is NULL, of zeros 0 at the ELSE's dscale
SELECT sum(CASE WHEN i > 10000 THEN a END), sum(CASE WHEN i > 10000 THEN a ELSE 0 END),
       sum(CASE WHEN i > 10000 THEN a ELSE 0.00 END), avg(CASE WHEN i > 10000 THEN a ELSE 0 END)
  FROM cn;
-- nested CASE, and simple CASE over a numeric operand
SELECT g, sum(CASE WHEN i > 0 THEN CASE WHEN b > 0.5 THEN a * b ELSE 1 END
                   ELSE CASE WHEN a IS NULL THEN -1.5 END END)
  FROM cn GROUP BY g ORDER BY g;
SELECT sum(CASE b WHEN 0.5 THEN a WHEN 0.25 THEN 1 ELSE b END),
       sum(CASE a * 2 WHEN 0 THEN 100 WHEN 2.5 THEN 0.001 ELSE a END),
       count(CASE b * 4 WHEN 1 THEN 1 END)
  FROM cn;
-- CASE inside arithmetic and comparisons, and in WHERE
SELECT sum(CASE WHEN i > 0 THEN a ELSE 0 END * 2 + b), sum(a - CASE WHEN i < 0 THEN b ELSE 1 END)
  FROM cn;
SELECT count(*), sum(a) FROM cn WHERE CASE WHEN i > 0 THEN a ELSE b END > 100;
-- COALESCE of numeric arguments of different scales
SELECT sum(COALESCE(a, b, 0)), sum(COALESCE(b, 7)), avg(COALESCE(a, i)) FROM cn;
-- a typmod-less column: each value's own dscale
SELECT g, sum(CASE WHEN k % 3 = 0 THEN f ELSE 0 END), avg(CASE WHEN k % 3 = 1 THEN f ELSE b END)
  FROM cn GROUP BY g ORDER BY g;
-- min/max when every branch has one scale (NULL branches aside); and when not
SELECT g, min(CASE WHEN i > 0 THEN a END), max(CASE WHEN i > 0 THEN a ELSE 0.00 END),
       min(CASE WHEN i < 0 THEN a * b ELSE b * a END)
  FROM cn GROUP BY g ORDER BY g;
SELECT min(CASE WHEN i > 0 THEN a ELSE 0 END), max(CASE WHEN i > 0 THEN -a ELSE 0 END),
       max(CASE WHEN i > 10000 THEN a ELSE 0 END)
  FROM cn;
-- a CASE whose branches share one scale as a GROUP BY key (its scaled integer)
SELECT CASE WHEN g < 3 THEN 1.5 ELSE g * 0.5 END AS h, count(*), sum(a) FROM cn
  GROUP BY 1 ORDER BY 1;
-- a text test in the condition
SELECT g, sum(CASE WHEN t LIKE 'PROMO%' THEN a ELSE 0 END), sum(CASE WHEN t NOT LIKE '%c' THEN b END)
  FROM cn GROUP BY g ORDER BY g;

-- star joins: CASE over a dimension's text
-- TPC-H Q14
SELECT 100.00 * sum(CASE WHEN p_type LIKE 'PROMO%' THEN l_extendedprice * (1 - l_discount) ELSE 0 END)
       / sum(l_extendedprice * (1 - l_discount)) AS promo_revenue
  FROM cp_line, cp_part
  WHERE l_partkey = p_partkey AND l_shipdate >= date '1995-09-01'
    AND l_shipdate < date '1995-09-01' + interval '1' month;
-- the sums per month (from March the second one sums only zeros: 0)
SELECT extract(month FROM l_shipdate) AS m,
       sum(CASE WHEN p_type LIKE 'PROMO%' THEN l_extendedprice * (1 - l_discount) ELSE 0 END),
       sum(CASE WHEN p_type LIKE 'PROMO%' AND l_shipdate < date '1995-03-01'
                THEN l_extendedprice * (1 - l_discount) ELSE 0 END),
       sum(CASE WHEN p_type NOT LIKE 'PROMO%' THEN l_extendedprice END),
       avg(CASE WHEN p_type LIKE '%STEEL' THEN l_discount ELSE 0.5 END), count(*)
  FROM cp_line, cp_part
  WHERE l_partkey = p_partkey AND l_shipdate < date '1995-12-31'
  GROUP BY 1 ORDER BY 1;
-- NULL p_type: LIKE is NULL, the CASE takes its ELSE; a nested CASE on a
-- dimension's integer and the fact's columns; the dimension's text as a group key too
SELECT p_type, count(*),
       sum(CASE WHEN p_type LIKE '%STEEL' THEN l_extendedprice
                WHEN p_size > 25 THEN CASE WHEN l_discount > 0.05 THEN l_discount ELSE 1 END
                ELSE 0 END),
       min(CASE WHEN p_type LIKE 'PROMO%' THEN l_extendedprice END),
       max(CASE WHEN p_type LIKE 'PROMO%' THEN l_extendedprice END)
  FROM cp_line JOIN cp_part ON l_partkey = p_partkey
  GROUP BY p_type ORDER BY p_type NULLS FIRST;
-- TPC-H Q8's shape
SELECT o_year, sum(CASE WHEN nation = 'BRAZIL' THEN volume ELSE 0 END) / sum(volume) AS mkt_share,
       sum(CASE WHEN nation = 'BRAZIL' THEN volume ELSE 0 END) AS brazil
  FROM (SELECT extract(year FROM o_orderdate) AS o_year,
               l_extendedprice * (1 - l_discount) AS volume, n2.n_name AS nation
          FROM cp_line, cp_orders, cp_supp, cp_nation n2, cp_part
          WHERE l_orderkey = o_orderkey AND l_suppkey = s_suppkey
            AND s_nationkey = n2.n_nationkey AND p_partkey = l_partkey
            AND p_type = 'ECONOMY ANODIZED STEEL'
            AND o_orderdate BETWEEN date '1995-01-01' AND date '1996-12-31') AS all_nations
  GROUP BY o_year ORDER BY o_year;
