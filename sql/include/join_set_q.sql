-- semi-joins: IN and EXISTS; each probe row once, however many keys match
SELECT count(*), sum(id), count(w) FROM js_w WHERE w IN (SELECT k FROM js_k);
SELECT count(*), sum(id) FROM js_w WHERE EXISTS (SELECT 1 FROM js_k WHERE k = w);
SELECT count(*), min(id), max(i8) FROM js_w WHERE v IN (SELECT v FROM js_k);
SELECT count(*), sum(id) FROM js_w WHERE c IN (SELECT c FROM js_k);
SELECT count(*), sum(id) FROM js_w WHERE i4 IN (SELECT i4 FROM js_k);
SELECT count(*), sum(id) FROM js_w WHERE i2 IN (SELECT i8 FROM js_k);
SELECT count(*), sum(id) FROM js_w WHERE i8 IN (SELECT i8 FROM js_k);
SELECT count(*), sum(id) FROM js_w WHERE d IN (SELECT d FROM js_k);
SELECT count(*), sum(id) FROM js_w WHERE w IN (SELECT k FROM js_k WHERE i4 % 2 = 0) AND id % 3 = 0;
SELECT count(*), sum(id) FROM js_w WHERE i4 IN (SELECT i4 FROM js_k) AND w IN (SELECT k FROM js_u);
-- grouped, and direct groups
SELECT i4 % 5 AS g, count(*), sum(id), min(w) FROM js_w WHERE w IN (SELECT k FROM js_k) GROUP BY 1 ORDER BY 1;
SELECT c, count(*) FROM js_w WHERE c IN (SELECT c FROM js_k) GROUP BY c ORDER BY c;
-- anti-joins: NULL probe keys have no match, so they stay
SELECT count(*), sum(id), count(w) FROM js_w WHERE NOT EXISTS (SELECT 1 FROM js_k WHERE k = w);
SELECT count(*), sum(id) FROM js_w WHERE NOT EXISTS (SELECT 1 FROM js_k WHERE js_k.i4 = js_w.i4);
-- NOT IN: a NULL in the set means no row qualifies
SELECT count(*) FROM js_w WHERE w NOT IN (SELECT k FROM js_k);
SELECT count(*), sum(id) FROM js_w WHERE w NOT IN (SELECT k FROM js_k WHERE k IS NOT NULL);
-- inner joins: once per match (count(*) weighs each row by its key's count)
SELECT count(*) FROM js_w JOIN js_k ON w = k;
SELECT count(*) FROM js_w JOIN js_k ON js_w.i4 = js_k.i4;
SELECT count(*) FROM js_w JOIN js_k ON js_w.i4 = js_k.i4 WHERE js_w.id % 2 = 1;
-- other aggregates need each key once: here unique, there duplicated (the CPU joins)
SELECT count(*), sum(id), min(js_w.i4) FROM js_w JOIN js_u ON w = k;
SELECT count(*), sum(id), min(js_w.i4) FROM js_w JOIN js_k ON w = k;
SELECT js_w.i4 % 4 AS g, count(*) FROM js_w JOIN js_u ON js_w.i4 = js_u.i4 GROUP BY 1 ORDER BY 1;
-- empty build side, empty probe side
SELECT count(*), sum(id) FROM js_w WHERE w IN (SELECT k FROM js_empty);
SELECT count(*), sum(id) FROM js_w WHERE NOT EXISTS (SELECT 1 FROM js_empty e WHERE e.i4 = js_w.i4);
SELECT count(*) FROM js_w JOIN js_empty ON w = k;
SELECT count(*), sum(id) FROM js_w_empty WHERE w IN (SELECT k FROM js_k);
SELECT count(*) FROM js_w_empty JOIN js_k ON w = k;
-- a compressed probe value
SELECT count(*), sum(id) FROM js_toast WHERE w IN (SELECT k FROM js_k);
SELECT count(*) FROM js_w WHERE w IN (SELECT w FROM js_toast);
-- the build table as this transaction sees it (its keys collected from its pages),
-- keys from an expression, and a build filter the GPU cannot run (its plan runs)
BEGIN;
DELETE FROM js_k WHERE i4 % 2 = 0;
INSERT INTO js_k VALUES (md5('1'), 'v1', '1', 1, 1, NULL);
SELECT count(*), sum(id) FROM js_w WHERE w IN (SELECT k FROM js_k);
SELECT count(*), sum(id) FROM js_w WHERE NOT EXISTS (SELECT 1 FROM js_k WHERE js_k.i8 = js_w.i8);
SELECT count(*), sum(id) FROM js_w WHERE w NOT IN (SELECT k FROM js_k WHERE k IS NOT NULL);
ROLLBACK;
SELECT count(*), sum(id) FROM js_w WHERE i8 IN (SELECT i4 * 2 FROM js_k);
SELECT count(*), sum(id) FROM js_w WHERE -i4 IN (SELECT -i4 FROM js_k WHERE i4 > 100);
SELECT count(*), sum(id) FROM js_w WHERE w IN (SELECT k FROM js_k WHERE k ~ '^[0-7]');
-- x [NOT] IN (SELECT ...) left as a subplan: its keys, with IN's NULL rules
SELECT count(*), sum(id) FROM js_w WHERE w NOT IN (SELECT k FROM js_u);
SELECT count(*), sum(id) FROM js_w WHERE w NOT IN (SELECT k FROM js_k);
SELECT count(*), sum(id) FROM js_w WHERE w NOT IN (SELECT k FROM js_empty);
SELECT count(*), sum(id) FROM js_w WHERE i4 NOT IN (SELECT i4 FROM js_u);
SELECT count(*), sum(id) FROM js_w WHERE i8 NOT IN (SELECT i4 FROM js_k WHERE i4 IS NOT NULL);
SELECT count(*), sum(id) FROM js_w WHERE c NOT IN (SELECT c FROM js_k WHERE c IS NOT NULL);
SELECT count(*), sum(id) FROM js_w WHERE d NOT IN (SELECT d FROM js_k WHERE d IS NOT NULL);
SELECT count(*), sum(id) FROM js_w WHERE w IN (SELECT k FROM js_k) OR id < 100;
SELECT count(*), sum(id) FROM js_w WHERE (w IN (SELECT k FROM js_k)) IS NULL;
SELECT count(*), sum(id) FROM js_w WHERE v NOT IN (SELECT v FROM js_k WHERE v IS NOT NULL) AND w NOT IN (SELECT k FROM js_u);
SELECT count(*), sum(id) FROM js_w_empty WHERE w NOT IN (SELECT k FROM js_k);
-- rows, not aggregates: ORDER BY over a semi-, anti- or inner join whose output is
-- one table's (GpuSort over that table, probing the key set)
SELECT id, i4, d FROM js_w WHERE w IN (SELECT k FROM js_k) ORDER BY id LIMIT 8;
SELECT count(*), sum(id), max(id) FROM (SELECT id FROM js_w WHERE w IN (SELECT k FROM js_k) ORDER BY id OFFSET 5) s;
SELECT id, i4 FROM js_w WHERE NOT EXISTS (SELECT 1 FROM js_k WHERE k = w) ORDER BY i4 DESC NULLS FIRST, id LIMIT 8;
SELECT id, i4 FROM js_w WHERE i4 IN (SELECT i4 FROM js_u) AND id % 2 = 0 ORDER BY i4 DESC, id LIMIT 8;
SELECT js_w.id, js_w.d FROM js_w JOIN js_u ON w = k ORDER BY js_w.d, js_w.id LIMIT 8;
SELECT js_w.id FROM js_w JOIN js_k ON w = k ORDER BY js_w.id LIMIT 5;
SELECT id FROM js_w_empty WHERE w IN (SELECT k FROM js_k) ORDER BY id;
SELECT id FROM js_w WHERE w IN (SELECT k FROM js_empty) ORDER BY id;
-- rows of a join, no ORDER BY (GpuSemiJoin, GpuHashJoin: the probe table's tuples that pass, in
-- no order; an inner join's once per equal key); compared as sorted digests
SELECT count(*), sum(id), md5(string_agg(id || ':' || coalesce(w, '-'), ',' ORDER BY id))
  FROM (SELECT id, w FROM js_w WHERE w IN (SELECT k FROM js_k) OFFSET 0) s;
SELECT count(*), sum(id), md5(string_agg(id::text, ',' ORDER BY id))
  FROM (SELECT id FROM js_w WHERE EXISTS (SELECT 1 FROM js_k WHERE js_k.i4 = js_w.i4) OFFSET 0) s;
SELECT count(*), sum(id), count(w), md5(string_agg(id::text, ',' ORDER BY id))
  FROM (SELECT id, w FROM js_w WHERE NOT EXISTS (SELECT 1 FROM js_k WHERE k = w) OFFSET 0) s;
SELECT count(*), sum(id), md5(string_agg(id || ':' || c, ',' ORDER BY id))
  FROM (SELECT id, c FROM js_w WHERE c IN (SELECT c FROM js_k) OFFSET 0) s;
SELECT count(*), sum(x), md5(string_agg(x || ':' || u, ',' ORDER BY x, u))
  FROM (SELECT id % 7 AS x, upper(w) AS u FROM js_w WHERE i8 IN (SELECT i8 FROM js_k) AND id % 3 = 0 OFFSET 0) s;
-- inner joins: duplicate build keys repeat the row
SELECT count(*), sum(id), md5(string_agg(id || ':' || i4, ',' ORDER BY id))
  FROM (SELECT js_w.id, js_w.i4 FROM js_w JOIN js_k ON w = k OFFSET 0) s;
SELECT count(*), sum(id), md5(string_agg(id::text, ',' ORDER BY id))
  FROM (SELECT js_w.id FROM js_w JOIN js_k ON js_w.i4 = js_k.i4 WHERE js_w.id % 2 = 1 OFFSET 0) s;
SELECT count(*), sum(id) FROM (SELECT js_w.id FROM js_w JOIN js_u ON w = k OFFSET 0) s;
-- inner joins whose output reads the build side too (its rows kept, paired with
-- each matching probe row): duplicate and NULL keys, NULL columns, bpchar padding
-- on both sides, mixed integer types, a key from an expression, an empty side
SELECT count(*), md5(string_agg(id || ':' || k, ',' ORDER BY id, k))
  FROM (SELECT js_w.id, js_k.k FROM js_w JOIN js_k ON w = k OFFSET 0) s;
SELECT count(*), sum(id), md5(string_agg(id || ':' || coalesce(i8::text, '-') || ':' || coalesce(d::text, '-') || ':' || v, ',' ORDER BY id, i8, d, v))
  FROM (SELECT js_w.id, js_k.i8, js_k.d, js_k.v FROM js_w JOIN js_k ON js_w.i4 = js_k.i4 OFFSET 0) s;
SELECT count(*), md5(string_agg(id || ':[' || wc || ']:[' || kc || ']', ',' ORDER BY id, kc))
  FROM (SELECT js_w.id, js_w.c::text AS wc, js_k.c::text AS kc FROM js_w JOIN js_k ON js_w.c = js_k.c WHERE js_w.id % 40 = 1 OR js_w.id > 30000 OFFSET 0) s;
SELECT count(*), sum(x), md5(string_agg(id || ':' || x, ',' ORDER BY id, x))
  FROM (SELECT js_w.id, js_k.i4 * 2 + js_w.i2 AS x FROM js_w JOIN js_k ON js_w.i2 = js_k.i8 OFFSET 0) s;
SELECT count(*), md5(string_agg(id || ':' || k, ',' ORDER BY id, k))
  FROM (SELECT js_w.id, js_k.k FROM js_w JOIN js_k ON js_w.i8 = js_k.i4 * 2 WHERE js_w.id % 3 = 0 OFFSET 0) s;
SELECT count(*), sum(id), md5(string_agg(id || ':' || k || ':' || u, ',' ORDER BY id, k, u))
  FROM (SELECT w.id, k.k, u.i4 AS u FROM js_w w JOIN js_k k ON w.w = k.k JOIN js_u u ON u.k = k.k OFFSET 0) s;
SELECT count(*) FROM (SELECT js_w.id, e.i4 FROM js_w JOIN js_empty e ON w = e.k OFFSET 0) s;
SELECT count(*) FROM (SELECT e.id, js_k.i4 FROM js_w_empty e JOIN js_k ON e.w = js_k.k OFFSET 0) s;
-- empty sides, a compressed probe value, and a LIMIT
SELECT count(*) FROM (SELECT id FROM js_w WHERE w IN (SELECT k FROM js_empty) OFFSET 0) s;
SELECT count(*) FROM (SELECT js_w.id FROM js_w JOIN js_empty ON w = k OFFSET 0) s;
SELECT count(*) FROM (SELECT id FROM js_w_empty WHERE w IN (SELECT k FROM js_k) OFFSET 0) s;
SELECT count(*), sum(id) FROM (SELECT id FROM js_toast WHERE w IN (SELECT k FROM js_k) OFFSET 0) s;
SELECT count(*) FROM (SELECT id FROM js_w WHERE w IN (SELECT k FROM js_k) LIMIT 10) s;
-- a join's rows under another join, rescanned under a nested loop, through a
-- scrollable cursor, with a parameter, and a self-join
SELECT count(*), sum(w.id), md5(string_agg(w.id || ':' || k.k, ',' ORDER BY w.id, k.k))
  FROM (SELECT js_w.id, js_w.w, js_w.i4 FROM js_w JOIN js_u ON w = k OFFSET 0) w
  JOIN js_k k ON w.i4 = k.i4;
SELECT count(*), sum(w.id) FROM js_w w JOIN js_u u ON w.w = u.k JOIN js_k k ON w.i4 = k.i4;
SELECT g, (SELECT count(*) FROM (SELECT id FROM js_w WHERE w IN (SELECT k FROM js_k) OFFSET 0) s
           WHERE s.id % 7 = g) AS n
  FROM generate_series(0, 3) g;
BEGIN;
DECLARE js_cur SCROLL CURSOR FOR SELECT count(*) OVER () AS n, i8 > 0 AS pos FROM js_w WHERE i8 IN (SELECT i8 FROM js_k) AND i8 > 0;
FETCH 2 FROM js_cur;
FETCH BACKWARD 1 FROM js_cur;
FETCH ABSOLUTE -1 FROM js_cur;
COMMIT;
PREPARE js_p(int) AS SELECT count(*), sum(id) FROM (SELECT id FROM js_w WHERE w IN (SELECT k FROM js_k) AND id > $1 OFFSET 0) s;
EXECUTE js_p(10);
EXECUTE js_p(100);
EXECUTE js_p(1000);
EXECUTE js_p(5000);
EXECUTE js_p(10000);
EXECUTE js_p(15000);
DEALLOCATE js_p;
SELECT count(*), sum(id) FROM (SELECT a.id FROM js_w a WHERE a.w IN (SELECT b.w FROM js_w b WHERE b.id < 2000) OFFSET 0) s;
-- not a SELECT, or rows to lock: PostgreSQL's join
BEGIN;
DELETE FROM js_w WHERE w IN (SELECT k FROM js_k) AND id % 5 = 0;
SELECT count(*), sum(id) FROM (SELECT id FROM js_w WHERE w IN (SELECT k FROM js_k) OFFSET 0) s;
ROLLBACK;
SELECT count(*) FROM (SELECT id FROM js_w WHERE i4 IN (SELECT i4 FROM js_u) FOR UPDATE) s;
-- rows in order over an inner join: GpuSort repeats each row per equal key
SELECT js_w.id, js_w.i4 FROM js_w JOIN js_k ON js_w.i4 = js_k.i4 ORDER BY js_w.i4 DESC, js_w.id LIMIT 12;
-- long IN lists and = ANY / <> ALL over arrays: a key set with IN's NULL rules
SELECT count(*), sum(id) FROM js_w WHERE i4 IN (1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,4999);
SELECT count(*) FROM js_w WHERE i4 IN (1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,NULL);
SELECT count(*) FROM js_w WHERE (i4 IN (1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,NULL)) IS NULL;
SELECT count(*) FROM js_w WHERE i4 NOT IN (1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20);
SELECT count(*) FROM js_w WHERE i4 NOT IN (1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,NULL);
SELECT count(*), sum(id) FROM js_w WHERE i8 = ANY (ARRAY[0,1000000007,2000000014,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18]::int8[]);
SELECT count(*), sum(id) FROM js_w WHERE d = ANY (ARRAY(SELECT date '2020-01-01' + i FROM generate_series(0, 400, 3) i));
SELECT count(*), sum(id) FROM js_w WHERE w = ANY ((SELECT array_agg(k) FROM js_k)::text[]);
SELECT count(*), sum(id) FROM js_w WHERE v IN ('v1','v2','v3','v4','v5','v6','v7','v8','v9','v10','v11','v12','v13','v14','v15','v16','v17','ab ','äöü');
SELECT count(*), sum(id) FROM js_w WHERE c IN ('1','2','3','4','5','6','7','8','9','10','11','12','13','14','15','16','17','ab','日本 ');
SELECT count(*), sum(id) FROM js_w WHERE c <> ALL ('{1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,ab}'::bpchar[]);
SELECT i2 % 3 AS g, count(*) FROM js_w WHERE i2 IN (1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,800) GROUP BY 1 ORDER BY 1;
-- GpuSort's filter probes the same way
SELECT id, i4 FROM js_w WHERE i4 IN (1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,4999) ORDER BY i4 DESC, id LIMIT 12;
