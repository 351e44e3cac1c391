-- the TPC-H Q13 shape: count of the nullable side's column per preserved key
SELECT c_count, count(*) AS custdist
  FROM (SELECT lc.k, count(lo.id) FROM lc LEFT JOIN lo ON lc.k = lo.ck AND lo.note NOT LIKE '%special%requests%'
         GROUP BY lc.k) AS t (k, c_count)
 GROUP BY c_count ORDER BY custdist DESC, c_count DESC;
-- count(*) is 1 for a key without rows; sums NULL, counts 0
SELECT lc.k, count(*), count(lo.id), sum(lo.v), min(lo.v), max(lo.w), avg(lo.v)
  FROM lc LEFT JOIN lo ON lc.k = lo.ck GROUP BY lc.k ORDER BY lc.k LIMIT 40;
SELECT count(*), sum(n), sum(c1), sum(s) FROM
  (SELECT lc.k, count(*) AS n, count(lo.v) AS c1, sum(lo.v) AS s FROM lc LEFT JOIN lo ON lc.k = lo.ck GROUP BY lc.k) x;
-- the preserved side filtered; the nullable side filtered in ON
SELECT lc.k, count(lo.id), sum(lo.w) FROM lc LEFT JOIN lo ON lc.k = lo.ck AND lo.v > 50
 WHERE lc.flag GROUP BY lc.k ORDER BY 2 DESC, 1 LIMIT 25;
-- HAVING over the groups without rows
SELECT lc.k, count(*) FROM lc LEFT JOIN lo ON lc.k = lo.ck GROUP BY lc.k HAVING count(lo.id) = 0 ORDER BY 1 LIMIT 20;
SELECT count(*) FROM (SELECT lc.k FROM lc LEFT JOIN lo ON lc.k = lo.ck GROUP BY lc.k HAVING count(*) = 1) x;
SELECT count(*) FROM (SELECT lc.k FROM lc LEFT JOIN lo ON lc.k = lo.ck GROUP BY lc.k HAVING count(*) > 3) x;
-- output expressions over the aggregates and the key
SELECT lc.k * 2, coalesce(sum(lo.v), -1), count(lo.id) + 1 FROM lc LEFT JOIN lo ON lc.k = lo.ck
 GROUP BY lc.k ORDER BY 1 DESC LIMIT 10;
-- bigint and smallint keys
SELECT k8, count(o8.id), sum(o8.v) FROM l8 LEFT JOIN o8 ON l8.k8 = o8.c8 GROUP BY k8 ORDER BY k8 LIMIT 15;
SELECT k2, count(*), count(o2.id) FROM l2 LEFT JOIN o2 ON l2.k2 = o2.c2 GROUP BY k2 ORDER BY k2 LIMIT 15;
-- a preserved side with duplicate keys, or a NULL key: PostgreSQL's join
SELECT ld.k, count(*), count(lo.id) FROM ld LEFT JOIN lo ON ld.k = lo.ck GROUP BY ld.k ORDER BY 1 LIMIT 12;
SELECT ln.k, count(*), count(lo.id) FROM ln LEFT JOIN lo ON ln.k = lo.ck GROUP BY ln.k ORDER BY 1 NULLS FIRST LIMIT 12;
-- an empty preserved side
SELECT lc.k, count(lo.id) FROM lc LEFT JOIN lo ON lc.k = lo.ck WHERE lc.k < 0 GROUP BY lc.k;
-- shapes left to PostgreSQL: an argument not NULL for a row without a match,
-- grouped by the nullable side's key, two keys
SELECT lc.k, count(coalesce(lo.v, 0)) FROM lc LEFT JOIN lo ON lc.k = lo.ck GROUP BY lc.k ORDER BY 2, 1 LIMIT 5;
SELECT lo.ck, count(*) FROM lc LEFT JOIN lo ON lc.k = lo.ck GROUP BY lo.ck ORDER BY 2 DESC, 1 LIMIT 5;
SELECT lc.k, lc.flag, count(lo.id) FROM lc LEFT JOIN lo ON lc.k = lo.ck GROUP BY lc.k, lc.flag ORDER BY 3 DESC, 1 LIMIT 5;
