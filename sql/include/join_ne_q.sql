-- EXISTS / NOT EXISTS with inner.b <> outer.x beside the key (join_ne.sql)
-- semi: per class of build keys (NULL: the probe rows of a NULL key)
SELECT o.k / 5 AS cls, count(*), sum(id), count(x) FROM ne_o o
  WHERE EXISTS (SELECT 1 FROM ne_i i WHERE i.k = o.k AND i.b <> o.x) GROUP BY 1 ORDER BY 1;
-- anti: NULL keys, NULL x, keys without rows, keys whose b are all NULL stay
SELECT o.k / 5 AS cls, count(*), sum(id), count(x) FROM ne_o o
  WHERE NOT EXISTS (SELECT 1 FROM ne_i i WHERE i.k = o.k AND i.b <> o.x) GROUP BY 1 ORDER BY 1;
-- the rows themselves (GpuSort), and unordered (GpuSemiJoin) under an aggregate
SELECT id, k, x FROM ne_o o WHERE EXISTS (SELECT 1 FROM ne_i i WHERE i.k = o.k AND i.b <> o.x)
  AND id % 23 = 0 ORDER BY id;
SELECT id, k, x FROM ne_o o WHERE NOT EXISTS (SELECT 1 FROM ne_i i WHERE i.k = o.k AND i.b <> o.x)
  AND (k IS NULL OR x IS NULL OR k BETWEEN 30 AND 34 OR id % 29 = 0) AND id < 1200 ORDER BY id;
SELECT count(*), md5(string_agg(id::text, ',' ORDER BY id)) FROM ne_o o
  WHERE EXISTS (SELECT 1 FROM ne_i i WHERE i.k = o.k AND o.x <> i.b);
SELECT count(*), md5(string_agg(id::text, ',' ORDER BY id)) FROM ne_o o
  WHERE NOT EXISTS (SELECT 1 FROM ne_i i WHERE i.k = o.k AND o.x <> i.b);
-- one row per key, equal b, two distinct b: x equal to every b, to one, to none
SELECT o.k, o.x, count(*) FROM ne_o o
  WHERE o.k IN (3, 4, 13, 14, 23, 24, 37, 42, 47) AND EXISTS (SELECT 1 FROM ne_i i WHERE i.k = o.k AND i.b <> o.x)
  GROUP BY 1, 2 ORDER BY 1, 2;
SELECT o.k, o.x, count(*) FROM ne_o o
  WHERE o.k IN (3, 4, 13, 14, 23, 24, 32, 37, 42, 47, 55) AND NOT EXISTS (SELECT 1 FROM ne_i i WHERE i.k = o.k AND i.b <> o.x)
  GROUP BY 1, 2 ORDER BY 1, 2;
-- int8 keys and b, mixed integer types, dates, timestamps
SELECT count(*), sum(id) FROM ne_o o WHERE EXISTS (SELECT 1 FROM ne_i i WHERE i.k8 = o.k8 AND i.b8 <> o.x8);
SELECT count(*), sum(id) FROM ne_o o WHERE NOT EXISTS (SELECT 1 FROM ne_i i WHERE i.k8 = o.k8 AND i.b8 <> o.x8);
SELECT count(*), sum(id) FROM ne_o o WHERE EXISTS (SELECT 1 FROM ne_i i WHERE i.k = o.k8 AND i.b <> o.x2);
SELECT count(*), sum(id) FROM ne_o o WHERE NOT EXISTS (SELECT 1 FROM ne_i i WHERE i.k8 = o.k AND i.b8 <> o.x);
SELECT count(*), sum(id) FROM ne_o o WHERE EXISTS (SELECT 1 FROM ne_i i WHERE i.k = o.k AND i.bd <> o.d);
SELECT count(*), sum(id) FROM ne_o o WHERE NOT EXISTS (SELECT 1 FROM ne_i i WHERE i.k = o.k AND o.d <> i.bd);
SELECT count(*), sum(id) FROM ne_o o WHERE EXISTS (SELECT 1 FROM ne_i i WHERE i.k = o.k AND i.bt <> o.t);
SELECT count(*), sum(id) FROM ne_o o WHERE NOT EXISTS (SELECT 1 FROM ne_i i WHERE i.k = o.k AND i.bt <> o.t);
-- a filter on the build side; one that passes nothing; an empty build side
SELECT count(*), sum(id) FROM ne_o o WHERE EXISTS (SELECT 1 FROM ne_i i WHERE i.k = o.k AND i.b <> o.x AND i.f = 1);
SELECT count(*), sum(id) FROM ne_o o WHERE NOT EXISTS (SELECT 1 FROM ne_i i WHERE i.k = o.k AND i.b <> o.x AND i.f = 1);
SELECT count(*), sum(id) FROM ne_o o WHERE EXISTS (SELECT 1 FROM ne_i i WHERE i.k = o.k AND i.b <> o.x AND i.f > 10);
SELECT count(*), sum(id) FROM ne_o o WHERE NOT EXISTS (SELECT 1 FROM ne_i i WHERE i.k = o.k AND i.b <> o.x AND i.f > 10);
SELECT count(*), sum(id) FROM ne_o o WHERE EXISTS (SELECT 1 FROM ne_e e WHERE e.k = o.k AND e.b <> o.x);
SELECT count(*), sum(id) FROM ne_o o WHERE NOT EXISTS (SELECT 1 FROM ne_e e WHERE e.k = o.k AND e.b <> o.x);
-- the build side a plan: a subquery, a join
SELECT count(*), sum(id) FROM ne_o o
  WHERE EXISTS (SELECT 1 FROM (SELECT * FROM ne_i OFFSET 0) i WHERE i.k = o.k AND i.b <> o.x);
SELECT count(*), sum(id) FROM ne_o o
  WHERE NOT EXISTS (SELECT 1 FROM (SELECT * FROM ne_i OFFSET 0) i WHERE i.k = o.k AND i.b <> o.x);
SELECT count(*), sum(id) FROM ne_o o
  WHERE EXISTS (SELECT 1 FROM ne_i i JOIN ne_f f ON f.k = i.k AND f.ok WHERE i.k = o.k AND i.b <> o.x);
SELECT count(*), sum(id) FROM ne_o o
  WHERE NOT EXISTS (SELECT 1 FROM ne_i i JOIN ne_f f ON f.k = i.k AND f.ok WHERE i.k = o.k AND i.bd <> o.d);
-- the probe side a join (its rows through the CPU)
SELECT p.g, count(*), sum(o.id), count(o.x) FROM ne_o o JOIN ne_p p ON p.id = o.id
  WHERE p.g <> 2 AND EXISTS (SELECT 1 FROM ne_i i WHERE i.k = o.k AND i.b <> o.x) GROUP BY 1 ORDER BY 1;
SELECT p.g, count(*), sum(o.id), count(o.x) FROM ne_o o JOIN ne_p p ON p.id = o.id
  WHERE p.g <> 2 AND NOT EXISTS (SELECT 1 FROM ne_i i WHERE i.k = o.k AND i.b <> o.x) GROUP BY 1 ORDER BY 1;
SELECT count(*), sum(o.id) FROM ne_o o JOIN ne_p p ON p.id = o.id
  WHERE p.g = 1 AND NOT EXISTS (SELECT 1 FROM ne_i i JOIN ne_f f ON f.k = i.k AND f.ok WHERE i.k = o.k AND i.b <> o.x);
-- a build table changed in this transaction
BEGIN;
UPDATE ne_i SET b = 4 WHERE k = 3;
DELETE FROM ne_i WHERE k = 23 AND b = k % 5;
INSERT INTO ne_i (k, b) VALUES (33, 2), (55, NULL);
SELECT o.k / 5 AS cls, count(*), sum(id) FROM ne_o o
  WHERE EXISTS (SELECT 1 FROM ne_i i WHERE i.k = o.k AND i.b <> o.x) GROUP BY 1 ORDER BY 1;
SELECT o.k / 5 AS cls, count(*), sum(id) FROM ne_o o
  WHERE NOT EXISTS (SELECT 1 FROM ne_i i WHERE i.k = o.k AND i.b <> o.x) GROUP BY 1 ORDER BY 1;
ROLLBACK;
-- TPC-H Q21 over the tiny tables, and its two halves alone
SELECT s_name, count(*) AS numwait
  FROM ne_supplier, ne_lineitem l1, ne_orders, ne_nation
 WHERE s_suppkey = l1.l_suppkey AND o_orderkey = l1.l_orderkey AND o_orderstatus = 'F'
   AND l1.l_receiptdate > l1.l_commitdate
   AND EXISTS (SELECT * FROM ne_lineitem l2
                WHERE l2.l_orderkey = l1.l_orderkey AND l2.l_suppkey <> l1.l_suppkey)
   AND NOT EXISTS (SELECT * FROM ne_lineitem l3
                    WHERE l3.l_orderkey = l1.l_orderkey AND l3.l_suppkey <> l1.l_suppkey
                      AND l3.l_receiptdate > l3.l_commitdate)
   AND s_nationkey = n_nationkey AND n_name = 'SAUDI ARABIA'
 GROUP BY s_name ORDER BY numwait DESC, s_name LIMIT 100;
SELECT n_name, count(*) AS numwait
  FROM ne_supplier, ne_lineitem l1, ne_orders, ne_nation
 WHERE s_suppkey = l1.l_suppkey AND o_orderkey = l1.l_orderkey AND o_orderstatus = 'F'
   AND l1.l_receiptdate > l1.l_commitdate
   AND EXISTS (SELECT * FROM ne_lineitem l2
                WHERE l2.l_orderkey = l1.l_orderkey AND l2.l_suppkey <> l1.l_suppkey)
   AND NOT EXISTS (SELECT * FROM ne_lineitem l3
                    WHERE l3.l_orderkey = l1.l_orderkey AND l3.l_suppkey <> l1.l_suppkey
                      AND l3.l_receiptdate > l3.l_commitdate)
   AND s_nationkey = n_nationkey
 GROUP BY n_name ORDER BY n_name;
SELECT count(*), sum(l1.l_suppkey) FROM ne_lineitem l1
 WHERE EXISTS (SELECT * FROM ne_lineitem l2 WHERE l2.l_orderkey = l1.l_orderkey AND l2.l_suppkey <> l1.l_suppkey);
SELECT count(*), sum(l1.l_suppkey) FROM ne_lineitem l1
 WHERE l1.l_receiptdate > l1.l_commitdate
   AND NOT EXISTS (SELECT * FROM ne_lineitem l3 WHERE l3.l_orderkey = l1.l_orderkey
                     AND l3.l_suppkey <> l1.l_suppkey AND l3.l_receiptdate > l3.l_commitdate);
