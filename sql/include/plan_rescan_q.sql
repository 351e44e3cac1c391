-- TPC-H Q2: the cheapest supplier of each part, a correlated scalar subquery
SELECT s_acctbal, s_name, n_name, p_partkey
  FROM rs_part, rs_supplier, rs_partsupp, rs_nation, rs_region
  WHERE p_partkey = ps_partkey AND s_suppkey = ps_suppkey AND p_size = 15
    AND s_nationkey = n_nationkey AND n_regionkey = r_regionkey AND r_name = 'R1'
    AND ps_supplycost = (SELECT min(ps_supplycost)
                           FROM rs_partsupp, rs_supplier, rs_nation, rs_region
                           WHERE p_partkey = ps_partkey AND s_suppkey = ps_suppkey
                             AND s_nationkey = n_nationkey AND n_regionkey = r_regionkey
                             AND r_name = 'R1')
  ORDER BY s_acctbal DESC, n_name, s_name, p_partkey LIMIT 10;
-- TPC-H Q20: a correlated subquery in a filter on partsupp
SELECT s_name FROM rs_supplier, rs_nation
  WHERE s_suppkey IN (SELECT ps_suppkey FROM rs_partsupp
                        WHERE ps_partkey IN (SELECT p_partkey FROM rs_part WHERE p_name LIKE 'forest%')
                          AND ps_availqty > (SELECT 0.5 * sum(l_quantity) FROM rs_lineitem
                                               WHERE l_partkey = ps_partkey AND l_suppkey = ps_suppkey
                                                 AND l_shipdate >= date '1995-01-01'
                                                 AND l_shipdate < date '1996-01-01'))
    AND s_nationkey = n_nationkey AND n_name = 'N3'
  ORDER BY s_name;
-- a correlated subquery in the output, and the same as a LATERAL subquery
SELECT s.s_suppkey,
       (SELECT count(*) FROM rs_partsupp ps JOIN rs_part p ON p.p_partkey = ps.ps_partkey
          WHERE ps.ps_suppkey = s.s_suppkey AND p.p_size < 10) AS small
  FROM rs_supplier s ORDER BY 2 DESC, 1 LIMIT 5;
SELECT s.s_suppkey, t.small, t.qty
  FROM rs_supplier s,
       LATERAL (SELECT count(*) AS small, sum(ps.ps_availqty) AS qty
                  FROM rs_partsupp ps JOIN rs_part p ON p.p_partkey = ps.ps_partkey
                  WHERE ps.ps_suppkey = s.s_suppkey AND p.p_size < 10) t
  ORDER BY 3 DESC NULLS LAST, 1 LIMIT 5;
-- an uncorrelated subquery runs once
SELECT count(*) FROM rs_partsupp
  WHERE ps_supplycost > (SELECT avg(ps_supplycost) FROM rs_partsupp JOIN rs_part ON p_partkey = ps_partkey
                           WHERE p_size < 25);
-- a region, one row estimated, joined to a join the GPU does
SELECT count(*), sum(s.s_acctbal) FROM rs_region r, rs_nation n, rs_supplier s
  WHERE s.s_nationkey = n.n_nationkey AND r.r_regionkey = n.n_regionkey
    AND r.r_regionkey + s.s_suppkey > 0 AND r.r_name = 'R1';
-- a GPU join as the outer side of a parameterized nested loop
SELECT count(*), sum(ps.ps_availqty) FROM rs_part p, rs_partsupp ps, rs_supplier s, rs_nation n
  WHERE p.p_partkey = ps.ps_partkey AND ps.ps_suppkey = s.s_suppkey AND s.s_nationkey = n.n_nationkey
    AND p.p_size + n.n_regionkey = 7 AND p.p_partkey < 200;
