-- semi-joins: each probe row once, however many keys match
SELECT count(*), sum(id), count(w) FROM jp_w WHERE w IN (SELECT k FROM jp_k);
SELECT count(*), sum(id) FROM jp_w WHERE EXISTS (SELECT 1 FROM jp_k WHERE k = w);
SELECT count(*), sum(id) FROM jp_w WHERE c IN (SELECT c FROM jp_k);
SELECT count(*), sum(id) FROM jp_w WHERE i2 IN (SELECT i8 FROM jp_k);
SELECT count(*), sum(id) FROM jp_w WHERE i4 IN (SELECT i4 FROM jp_k);
SELECT count(*), sum(id) FROM jp_w WHERE d IN (SELECT d FROM jp_k);
SELECT count(*), sum(id) FROM jp_w WHERE w IN (SELECT k FROM jp_k WHERE i4 % 2 = 0) AND id % 3 = 0;
SELECT id, length(w) FROM jp_w WHERE w IN (SELECT k FROM jp_k) AND id > 30000 ORDER BY id;
-- anti-joins: NULL probe keys match nothing, so they stay
SELECT count(*), sum(id), count(w) FROM jp_w WHERE NOT EXISTS (SELECT 1 FROM jp_k WHERE k = w);
SELECT count(*), sum(id) FROM jp_w WHERE NOT EXISTS (SELECT 1 FROM jp_k WHERE jp_k.i4 = jp_w.i4);
-- inner joins: once per match, the build side's columns beside the probe's
SELECT count(*), sum(id), sum(jp_k.i8), md5(string_agg(id || ':' || coalesce(jp_k.i8::text, '-'), ','
  ORDER BY id, jp_k.i8)) FROM jp_w JOIN jp_k ON w = k;
SELECT count(*), sum(id), md5(string_agg(id || ':' || jp_k.c || ':' || jp_w.c, ',' ORDER BY id, jp_k.i4))
  FROM jp_w JOIN jp_k ON jp_w.c = jp_k.c;
SELECT count(*), sum(jp_w.id), sum(jp_k.i4) FROM jp_w JOIN jp_k ON jp_w.i8 = jp_k.i8;
SELECT count(*), sum(id) FROM jp_w JOIN jp_k ON jp_w.d = jp_k.d;
-- ... with neither side a plain table (the larger probes)
SELECT count(*), sum(id), sum(kk.i8), md5(string_agg(id || ':' || coalesce(kk.i8::text, '-') || ':' ||
  length(kk.k), ',' ORDER BY id, kk.i8)) FROM jp_w JOIN (SELECT * FROM jp_k OFFSET 0) kk ON w = kk.k;
SELECT count(*), sum(id), md5(string_agg(id || ':' || kk.c, ',' ORDER BY id, kk.i4))
  FROM jp_w JOIN (SELECT * FROM jp_k OFFSET 0) kk ON jp_w.c = kk.c;
SELECT count(*), sum(id), sum(kk.i4) FROM jp_w JOIN (SELECT * FROM jp_k OFFSET 0) kk ON jp_w.i2 = kk.i8;
SELECT count(*), sum(kk.i4) FROM (SELECT i4 FROM jp_w OFFSET 0) a JOIN (SELECT * FROM jp_k OFFSET 0) kk
  ON a.i4 = kk.i4;
-- the probe side a subquery, an aggregate, a join; the key an expression
SELECT count(*), sum(a.id) FROM (SELECT id, w FROM jp_w ORDER BY id LIMIT 5000) a
  WHERE a.w IN (SELECT k FROM jp_k);
SELECT count(*), sum(n) FROM (SELECT w, count(*) AS n FROM jp_w GROUP BY w) g
  WHERE g.w IN (SELECT k FROM jp_k);
SELECT count(*), sum(jp_w.id), sum(jp_t.g) FROM jp_w JOIN jp_t ON jp_w.id = jp_t.id
  WHERE jp_w.i4 IN (SELECT i4 FROM jp_k);
SELECT count(*), sum(s.j) FROM (SELECT id, i4 + 1 AS j FROM jp_w OFFSET 0) a
  JOIN (SELECT i4 * 2 AS j FROM jp_k OFFSET 0) s ON a.j = s.j;
-- empty build side, empty probe side
SELECT count(*), sum(id) FROM jp_w WHERE w IN (SELECT k FROM jp_empty);
SELECT count(*), sum(id) FROM jp_w WHERE NOT EXISTS (SELECT 1 FROM jp_empty WHERE k = w);
SELECT count(*) FROM jp_w JOIN jp_empty ON w = k;
SELECT count(*) FROM jp_w JOIN (SELECT * FROM jp_empty OFFSET 0) e ON w = e.k;
SELECT count(*) FROM (SELECT * FROM jp_w WHERE id < 0) e JOIN (SELECT * FROM jp_k OFFSET 0) kk ON e.w = kk.k;
SELECT count(*) FROM (SELECT * FROM jp_w WHERE id < 0) e WHERE e.w IN (SELECT k FROM jp_k);
-- rows: ordered, limited, rescanned (correlated), under another join
SELECT jp_w.id, kk.i4 FROM jp_w JOIN (SELECT * FROM jp_k OFFSET 0) kk ON w = kk.k
  ORDER BY jp_w.id DESC, kk.i4 LIMIT 5;
SELECT o.g, (SELECT count(*) FROM jp_w WHERE jp_w.i4 % 7 = o.g AND w IN (SELECT k FROM jp_k))
  FROM generate_series(0, 3) o(g);
SELECT count(*), sum(x.id) FROM jp_t x JOIN (SELECT jp_w.id FROM jp_w JOIN jp_k ON w = k OFFSET 0) y
  ON x.id = y.id;
SELECT count(*), sum(x.id), sum(y.i4) FROM jp_t x
  JOIN (SELECT jp_w.id, kk.i4 FROM jp_w JOIN (SELECT * FROM jp_k OFFSET 0) kk ON w = kk.k OFFSET 0) y
  ON x.id = y.id;
-- an empty build side: no probe key is computed (nor by PostgreSQL's hash join)
SELECT count(*) FROM jp_w WHERE EXISTS (SELECT 1 FROM jp_k
  WHERE jp_k.k = jp_w.w || (1 / (jp_w.id - 5000))::text AND jp_k.i4 < 0);
