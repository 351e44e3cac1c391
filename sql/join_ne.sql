--
-- EXISTS / NOT EXISTS with a second condition inner.b <> outer.x beside the
-- key equality (TPC-H Q4's and Q21's shape, issue 31 item 3): the key set keeps
-- each key's least and greatest non-NULL b, and a probe row matches when its
-- key has a b other than its x (docs/SEMANTICS.md 29)
--
SET max_parallel_workers_per_gather = 0;
-- the probe side: NULL keys, NULL x, keys the build side lacks
CREATE TABLE ne_o (id int4, k int4, x int4, k8 int8, x8 int8, x2 int2, d date, t timestamp);
INSERT INTO ne_o SELECT i, CASE WHEN i % 17 = 0 THEN NULL ELSE i % 60 END,
  CASE WHEN i % 13 = 0 THEN NULL ELSE (i / 60) % 5 END,
  CASE WHEN i % 17 = 0 THEN NULL ELSE i % 60 + 5000000000 END,
  CASE WHEN i % 13 = 0 THEN NULL ELSE (i / 60) % 5 + 3000000000 END,
  CASE WHEN i % 13 = 0 THEN NULL ELSE (i / 60) % 5 END,
  CASE WHEN i % 11 = 0 THEN NULL ELSE date '2020-01-01' + (i / 60 + 1) % 5 END,
  CASE WHEN i % 11 = 0 THEN NULL ELSE timestamp '2020-01-01' + ((i / 60 + 2) % 5) * interval '1 hour' END
  FROM generate_series(1, 4000) i;
-- the build side, by key: 0-9 one row; 10-19 six rows of one b; 20-29 two
-- distinct b; 30-34 every b NULL; 35-39 NULL and one b; 40-44 NULL and two b;
-- 45-49 every b of 0..4; 50-59 no row; and rows of a NULL key
CREATE TABLE ne_i (k int4, b int4, k8 int8, b8 int8, bd date, bt timestamp, f int4);
INSERT INTO ne_i (k, b, f) SELECT k, k % 5, k % 3 FROM generate_series(0, 9) k;
INSERT INTO ne_i (k, b, f) SELECT k, k % 5, r % 3 FROM generate_series(10, 19) k, generate_series(1, 6) r;
INSERT INTO ne_i (k, b, f) SELECT k, k % 5 + r % 2, r % 3 FROM generate_series(20, 29) k, generate_series(1, 4) r;
INSERT INTO ne_i (k, b, f) SELECT k, NULL, r FROM generate_series(30, 34) k, generate_series(1, 3) r;
INSERT INTO ne_i (k, b, f) SELECT k, CASE WHEN r = 1 THEN NULL ELSE k % 5 END, r % 3
  FROM generate_series(35, 39) k, generate_series(1, 3) r;
INSERT INTO ne_i (k, b, f) SELECT k, CASE WHEN r = 1 THEN NULL ELSE (k + r) % 5 END, r % 3
  FROM generate_series(40, 44) k, generate_series(1, 3) r;
INSERT INTO ne_i (k, b, f) SELECT k, r, r % 3 FROM generate_series(45, 49) k, generate_series(0, 4) r;
INSERT INTO ne_i (k, b, f) VALUES (NULL, 1, 1), (NULL, NULL, 2), (NULL, 3, 0);
UPDATE ne_i SET k8 = k + 5000000000, b8 = b + 3000000000, bd = date '2020-01-01' + b,
  bt = timestamp '2020-01-01' + b * interval '1 hour';
CREATE TABLE ne_e (k int4, b int4);
-- a probe side joined first (GpuSemiJoin over a child plan)
CREATE TABLE ne_p (id int4, g int4);
INSERT INTO ne_p SELECT i, i % 3 FROM generate_series(1, 4000) i;
-- a build side joined first
CREATE TABLE ne_f (k int4, ok bool);
INSERT INTO ne_f SELECT k, k % 4 <> 1 FROM generate_series(0, 59) k;
-- a tiny TPC-H: Q21's tables
CREATE TABLE ne_nation (n_nationkey int4, n_name char(25));
INSERT INTO ne_nation VALUES (0, 'ALGERIA'), (1, 'BRAZIL'), (2, 'SAUDI ARABIA'), (3, 'JAPAN'), (4, 'PERU');
CREATE TABLE ne_supplier (s_suppkey int4, s_name char(25), s_nationkey int4);
INSERT INTO ne_supplier SELECT i, 'Supplier#' || lpad(i::text, 9, '0'), i % 5 FROM generate_series(1, 40) i;
CREATE TABLE ne_orders (o_orderkey int8, o_orderstatus char(1));
INSERT INTO ne_orders SELECT i, CASE WHEN i % 5 < 3 THEN 'F' WHEN i % 5 = 3 THEN 'O' ELSE 'P' END
  FROM generate_series(1, 3000) i;
CREATE TABLE ne_lineitem (l_orderkey int8, l_linenumber int4, l_suppkey int4,
  l_commitdate date, l_receiptdate date);
INSERT INTO ne_lineitem SELECT o, n, (o * 7 + n * n * 13) % 40 + 1,
  date '1995-01-01' + (o * 3 + n) % 90, date '1995-01-01' + (o * 5 + n * 11) % 93
  FROM generate_series(1, 3000) o, generate_series(1, 7) n WHERE n <= 1 + o % 7;
-- one supplier on every line of some orders
UPDATE ne_lineitem SET l_suppkey = 9 WHERE l_orderkey % 97 = 0;
VACUUM ANALYZE ne_o, ne_i, ne_e, ne_p, ne_f, ne_nation, ne_supplier, ne_orders, ne_lineitem;

SET pg_gpu.enabled = off;
\i sql/include/join_ne_q.sql
SET pg_gpu.enabled = on;
SET pg_gpu.force = on;
\i sql/include/join_ne_q.sql

-- where the build side's keys came from: the build table's pages, collected by
-- the GPU with each key's least and greatest b, or its plan, run by PostgreSQL
-- ('ok' also where no GPU runs the join)
CREATE FUNCTION ne_keys_from(q text, want text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  p jsonb;
  ks text;
BEGIN
  EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, FORMAT JSON) ' || q INTO p;
  IF jsonb_path_query_first(p, 'strict $.**."Fallback"') #>> '{}' IN ('no gpu', 'not compiled') THEN
    RETURN 'ok';
  END IF;
  ks := jsonb_path_query_first(p, 'strict $.**."Key Set"') #>> '{}';
  IF ks NOT LIKE '%, where % <> %' THEN
    RETURN coalesce(ks, 'no key set');
  END IF;
  IF (ks LIKE '%collected on the GPU from % pages)' AND want = 'pages') OR
     (ks NOT LIKE '%collected on the GPU from %' AND want = 'plan') THEN
    RETURN 'ok';
  END IF;
  RETURN ks;
END $$;
SELECT ne_keys_from('SELECT count(*) FROM ne_o o WHERE EXISTS (SELECT 1 FROM ne_i i WHERE i.k = o.k AND i.b <> o.x)', 'pages');
SELECT ne_keys_from('SELECT id FROM ne_o o WHERE NOT EXISTS (SELECT 1 FROM ne_i i WHERE i.k = o.k AND i.bd <> o.d)', 'pages');
SELECT ne_keys_from('SELECT count(*) FROM ne_o o JOIN ne_p p ON p.id = o.id WHERE p.g = 1 AND EXISTS (SELECT 1 FROM ne_i i WHERE i.k = o.k AND i.b <> o.x)', 'pages');
SELECT ne_keys_from('SELECT count(*) FROM ne_o o WHERE EXISTS (SELECT 1 FROM (SELECT * FROM ne_i OFFSET 0) i WHERE i.k = o.k AND i.b <> o.x)', 'plan');
SELECT ne_keys_from('SELECT count(*) FROM ne_o o JOIN ne_p p ON p.id = o.id WHERE p.g = 1 AND NOT EXISTS (SELECT 1 FROM ne_i i JOIN ne_f f ON f.k = i.k AND f.ok WHERE i.k = o.k AND i.b <> o.x)', 'plan');
-- the same, emulated in every pass: the keys and distinct keys counted
CREATE FUNCTION ne_key_set(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  p jsonb;
BEGIN
  EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, FORMAT JSON) ' || q INTO p;
  RETURN regexp_replace(jsonb_path_query_first(p, 'strict $.**."Key Set"') #>> '{}',
                        'from \d+ pages', 'from N pages');
END $$;
SET pg_gpu.emulate_gpu = on;
-- rows of a NULL b or a NULL key are not kept: 30-34 and 50-59 have no key
SELECT ne_key_set('SELECT count(*) FROM ne_o o WHERE EXISTS (SELECT 1 FROM ne_i i WHERE i.k = o.k AND i.b <> o.x)');
SELECT ne_key_set('SELECT count(*) FROM ne_o o WHERE NOT EXISTS (SELECT 1 FROM (SELECT * FROM ne_i OFFSET 0) i WHERE i.k = o.k AND i.b <> o.x)');
SELECT ne_key_set('SELECT count(*) FROM ne_o o WHERE EXISTS (SELECT 1 FROM ne_e e WHERE e.k = o.k AND e.b <> o.x)');
RESET pg_gpu.emulate_gpu;
DROP FUNCTION ne_key_set(text);
DROP FUNCTION ne_keys_from(text, text);

-- plans: the <> beside the key in the Key Set line, PostgreSQL's Join Filter
-- in the fallback
EXPLAIN (COSTS OFF) SELECT count(*), sum(id) FROM ne_o o WHERE EXISTS (SELECT 1 FROM ne_i i WHERE i.k = o.k AND i.b <> o.x);
EXPLAIN (COSTS OFF) SELECT md5(string_agg(id::text, ',' ORDER BY id)) FROM ne_o o
  WHERE NOT EXISTS (SELECT 1 FROM ne_i i WHERE i.k = o.k AND o.x <> i.b);
EXPLAIN (COSTS OFF) SELECT id, k, x FROM ne_o o WHERE EXISTS (SELECT 1 FROM ne_i i WHERE i.k = o.k AND i.b <> o.x)
  ORDER BY id;
EXPLAIN (COSTS OFF) SELECT count(*), sum(o.id) FROM ne_o o JOIN ne_p p ON p.id = o.id
  WHERE p.g = 1 AND NOT EXISTS (SELECT 1 FROM ne_i i WHERE i.k = o.k AND i.b <> o.x);
-- Q21: its GPU nodes and their key sets (each GPU node's fallback repeats them)
CREATE FUNCTION ne_gpu_nodes(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  l text;
  seen text[] := '{}';
BEGIN
  FOR l IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    l := btrim(regexp_replace(l, '^ *(->)? *', ''));
    IF (l LIKE 'Custom Scan%' OR l LIKE 'Key Set:%') AND NOT l = ANY (seen) THEN
      seen := seen || l;
      RETURN NEXT l;
    END IF;
  END LOOP;
END $$;
SELECT ne_gpu_nodes($q$SELECT s_name, count(*) AS numwait
  FROM ne_supplier, ne_lineitem l1, ne_orders, ne_nation
 WHERE s_suppkey = l1.l_suppkey AND o_orderkey = l1.l_orderkey AND o_orderstatus = 'F'
   AND l1.l_receiptdate > l1.l_commitdate
   AND EXISTS (SELECT * FROM ne_lineitem l2
                WHERE l2.l_orderkey = l1.l_orderkey AND l2.l_suppkey <> l1.l_suppkey)
   AND NOT EXISTS (SELECT * FROM ne_lineitem l3
                    WHERE l3.l_orderkey = l1.l_orderkey AND l3.l_suppkey <> l1.l_suppkey
                      AND l3.l_receiptdate > l3.l_commitdate)
   AND s_nationkey = n_nationkey AND n_name = 'SAUDI ARABIA'
 GROUP BY s_name ORDER BY numwait DESC, s_name LIMIT 100$q$);
DROP FUNCTION ne_gpu_nodes(text);
-- stays on the CPU: a <> of an expression, of text, of floats, two of them,
-- another comparison, a text key, an inner join
EXPLAIN (COSTS OFF) SELECT count(*) FROM ne_o o WHERE EXISTS (SELECT 1 FROM ne_i i WHERE i.k = o.k AND i.b + 1 <> o.x);
EXPLAIN (COSTS OFF) SELECT count(*) FROM ne_o o WHERE EXISTS (SELECT 1 FROM ne_i i WHERE i.k = o.k AND i.b::text <> o.x::text);
EXPLAIN (COSTS OFF) SELECT count(*) FROM ne_o o WHERE EXISTS (SELECT 1 FROM ne_i i WHERE i.k = o.k AND i.b::float8 <> o.x::float8);
EXPLAIN (COSTS OFF) SELECT count(*) FROM ne_o o WHERE EXISTS (SELECT 1 FROM ne_i i WHERE i.k = o.k AND i.b <> o.x AND i.f <> o.x);
EXPLAIN (COSTS OFF) SELECT count(*) FROM ne_o o WHERE EXISTS (SELECT 1 FROM ne_i i WHERE i.k = o.k AND i.b < o.x);
EXPLAIN (COSTS OFF) SELECT count(*) FROM ne_o o WHERE EXISTS (SELECT 1 FROM ne_i i WHERE i.k::text = o.k::text AND i.b <> o.x);
EXPLAIN (COSTS OFF) SELECT count(*) FROM ne_o o JOIN ne_i i ON i.k = o.k AND i.b <> o.x;

RESET pg_gpu.force;
RESET pg_gpu.enabled;
DROP TABLE ne_o, ne_i, ne_e, ne_p, ne_f, ne_nation, ne_supplier, ne_orders, ne_lineitem;
