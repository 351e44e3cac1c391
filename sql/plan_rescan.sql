--
-- Plans that never rerun a GPU node per outer row (issue 31, item 4).  No GPU
-- node inside a correlated subquery (a SubPlan with parameters, a LATERAL
-- subquery), and none on the inner side of a nested loop unless a Materialize
-- keeps its rows: none of the nodes keeps its work across a rescan.  Forced
-- plans too; an uncorrelated subquery keeps its GPU nodes.  A small TPC-H.
--
SET extra_float_digits = 0;
SET max_parallel_workers_per_gather = 0;
-- the correlated subqueries as written (sql/decorrelate.sql plans them as joins)
SET pg_gpu.decorrelate = off;
CREATE TABLE rs_region (r_regionkey int4 PRIMARY KEY, r_name text);
CREATE TABLE rs_nation (n_nationkey int4 PRIMARY KEY, n_name text, n_regionkey int4);
CREATE TABLE rs_supplier (s_suppkey int4 PRIMARY KEY, s_name text, s_nationkey int4,
  s_acctbal numeric(12, 2));
CREATE TABLE rs_part (p_partkey int4 PRIMARY KEY, p_name text, p_size int4);
CREATE TABLE rs_partsupp (ps_partkey int4, ps_suppkey int4, ps_availqty int4,
  ps_supplycost numeric(12, 2), PRIMARY KEY (ps_partkey, ps_suppkey));
CREATE TABLE rs_lineitem (l_orderkey int4, l_linenumber int4, l_partkey int4, l_suppkey int4,
  l_quantity numeric(12, 2), l_shipdate date, PRIMARY KEY (l_orderkey, l_linenumber));
CREATE INDEX rs_lineitem_part_supp ON rs_lineitem (l_partkey, l_suppkey);
INSERT INTO rs_region SELECT i, 'R' || i FROM generate_series(0, 4) i;
INSERT INTO rs_nation SELECT i, 'N' || i, i % 5 FROM generate_series(0, 24) i;
INSERT INTO rs_supplier SELECT i, 'S' || lpad(i::text, 3, '0'), (i * 7) % 25, (i * 37 % 10000) / 100.0
  FROM generate_series(1, 100) i;
INSERT INTO rs_part SELECT i, CASE WHEN i % 7 = 0 THEN 'forest ' ELSE 'plain ' END || i, i % 50
  FROM generate_series(1, 2000) i;
INSERT INTO rs_partsupp SELECT p, (p * 3 + k * 37) % 100 + 1, (p * 13 + k) % 1000,
  ((p * 7 + k * 11) % 10000) / 100.0 FROM generate_series(1, 2000) p, generate_series(0, 3) k;
INSERT INTO rs_lineitem SELECT o, l, (o * 7 + l) % 2000 + 1,
  (((o * 7 + l) % 2000 + 1) * 3 + (l % 4) * 37) % 100 + 1, (o + l) % 50 + 1,
  date '1995-01-01' + ((o + l) % 700)
  FROM generate_series(1, 5000) o, generate_series(1, 4) l;
VACUUM ANALYZE rs_region, rs_nation, rs_supplier, rs_part, rs_partsupp, rs_lineitem;

SET pg_gpu.force = on;
-- Q2: GPU joins in the outer query, none in the SubPlan (TPC-H scale 5 ran one
-- there 11,138 times)
EXPLAIN (COSTS OFF) SELECT s_acctbal, s_name, n_name, p_partkey
  FROM rs_part, rs_supplier, rs_partsupp, rs_nation, rs_region
  WHERE p_partkey = ps_partkey AND s_suppkey = ps_suppkey AND p_size = 15
    AND s_nationkey = n_nationkey AND n_regionkey = r_regionkey AND r_name = 'R1'
    AND ps_supplycost = (SELECT min(ps_supplycost)
                           FROM rs_partsupp, rs_supplier, rs_nation, rs_region
                           WHERE p_partkey = ps_partkey AND s_suppkey = ps_suppkey
                             AND s_nationkey = n_nationkey AND n_regionkey = r_regionkey
                             AND r_name = 'R1')
  ORDER BY s_acctbal DESC, n_name, s_name, p_partkey LIMIT 10;
-- Q20: no forced GPU join reads partsupp whole, which would run the correlated
-- filter on every row
EXPLAIN (COSTS OFF) SELECT s_name FROM rs_supplier, rs_nation
  WHERE s_suppkey IN (SELECT ps_suppkey FROM rs_partsupp
                        WHERE ps_partkey IN (SELECT p_partkey FROM rs_part WHERE p_name LIKE 'forest%')
                          AND ps_availqty > (SELECT 0.5 * sum(l_quantity) FROM rs_lineitem
                                               WHERE l_partkey = ps_partkey AND l_suppkey = ps_suppkey
                                                 AND l_shipdate >= date '1995-01-01'
                                                 AND l_shipdate < date '1996-01-01'))
    AND s_nationkey = n_nationkey AND n_name = 'N3'
  ORDER BY s_name;
-- a SubPlan in the output, a LATERAL subquery: PostgreSQL's plans inside
EXPLAIN (COSTS OFF) SELECT s.s_suppkey,
       (SELECT count(*) FROM rs_partsupp ps JOIN rs_part p ON p.p_partkey = ps.ps_partkey
          WHERE ps.ps_suppkey = s.s_suppkey AND p.p_size < 10) AS small
  FROM rs_supplier s ORDER BY 2 DESC, 1 LIMIT 5;
EXPLAIN (COSTS OFF) SELECT s.s_suppkey, t.small, t.qty
  FROM rs_supplier s,
       LATERAL (SELECT count(*) AS small, sum(ps.ps_availqty) AS qty
                  FROM rs_partsupp ps JOIN rs_part p ON p.p_partkey = ps.ps_partkey
                  WHERE ps.ps_suppkey = s.s_suppkey AND p.p_size < 10) t
  ORDER BY 3 DESC NULLS LAST, 1 LIMIT 5;
-- an InitPlan runs once: its GPU join stays (and the outer GpuAgg reads its
-- value as a constant: docs/SEMANTICS.md 34)
EXPLAIN (COSTS OFF) SELECT count(*) FROM rs_partsupp
  WHERE ps_supplycost > (SELECT avg(ps_supplycost) FROM rs_partsupp JOIN rs_part ON p_partkey = ps_partkey
                           WHERE p_size < 25);
-- nested loops only: the GPU join on the inner side sits under a Materialize
-- (PostgreSQL charges a forced path nothing per rescan); one on the outer side
-- of a parameterized loop runs once as it is (GpuAgg off: it would take the
-- first join whole, a star join with a join filter)
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET pg_gpu.enable_gpuagg = off;
EXPLAIN (COSTS OFF) SELECT count(*), sum(s.s_acctbal) FROM rs_region r, rs_nation n, rs_supplier s
  WHERE s.s_nationkey = n.n_nationkey AND r.r_regionkey = n.n_regionkey
    AND r.r_regionkey + s.s_suppkey > 0 AND r.r_name = 'R1';
EXPLAIN (COSTS OFF) SELECT count(*), sum(ps.ps_availqty)
  FROM rs_part p, rs_partsupp ps, rs_supplier s, rs_nation n
  WHERE p.p_partkey = ps.ps_partkey AND ps.ps_suppkey = s.s_suppkey AND s.s_nationkey = n.n_nationkey
    AND p.p_size + n.n_regionkey = 7 AND p.p_partkey < 200;
RESET pg_gpu.enable_gpuagg;
RESET enable_hashjoin;
RESET enable_mergejoin;

-- the answers, off and forced
SET pg_gpu.enabled = off;
\i sql/include/plan_rescan_q.sql
SET pg_gpu.enabled = on;
SET pg_gpu.force = on;
\i sql/include/plan_rescan_q.sql
-- and with nested loops only
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET pg_gpu.enabled = off;
\i sql/include/plan_rescan_q.sql
SET pg_gpu.enabled = on;
SET pg_gpu.force = on;
\i sql/include/plan_rescan_q.sql
RESET enable_hashjoin;
RESET enable_mergejoin;

RESET pg_gpu.decorrelate;
RESET pg_gpu.force;
RESET pg_gpu.enabled;
DROP TABLE rs_region, rs_nation, rs_supplier, rs_part, rs_partsupp, rs_lineitem;
