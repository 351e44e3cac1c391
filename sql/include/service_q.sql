-- ungrouped
SELECT count(*), sum(y), avg(x), stddev(x) FROM sv WHERE g < 5000;
-- 10,008 groups: more than one window of the service's answers
SELECT count(*), sum(s), sum(c), min(g), max(g) FROM (SELECT g, sum(y) s, count(*) c FROM sv GROUP BY g) q;
SELECT g, count(*), sum(y), avg(x) FROM sv GROUP BY g ORDER BY g LIMIT 3 OFFSET 9000;
-- text keys, one of 1,500 bytes, and NULLs
SELECT count(*), sum(length(t)), sum(c) FROM (SELECT t, count(*) c FROM sv GROUP BY t) q;
SELECT left(t, 12), length(t), count(*), sum(y) FROM sv GROUP BY t ORDER BY length(t) DESC, t LIMIT 3;
SELECT count(*), sum(c) FROM (SELECT g % 4, t, count(*) c FROM sv GROUP BY g % 4, t) q;
-- a cursor closed before its last group
BEGIN;
DECLARE c CURSOR FOR SELECT g, count(*) FROM sv GROUP BY g HAVING g = 17;
FETCH 1 FROM c;
CLOSE c;
COMMIT;
-- an error while the groups are handed out
SELECT g, 1 / (count(*) - 6) FROM sv GROUP BY g;
-- key sets held by the service: collected from a table's pages, sent from a
-- subquery's rows, an IN list, text keys, a grouped probe
SELECT count(*), sum(y) FROM sv WHERE g IN (SELECT g FROM sv WHERE y % 1000 = 0);
SELECT count(*) FROM sv WHERE g IN (SELECT i * 3 FROM generate_series(1, 3000) i);
SELECT count(*), min(y) FROM sv WHERE g IN (1, 5, 17, 10006, NULL);
SELECT count(*) FROM sv WHERE t IN (SELECT t FROM sv WHERE g = 33);
SELECT g % 3, count(*) FROM sv WHERE g NOT IN (SELECT g FROM sv WHERE y % 7 = 0) GROUP BY 1 ORDER BY 1;
-- sorts and joins that return rows (issue 32): the rows come back a window at
-- a time.  A top-N; a whole sort of about 3 MB of tuples (several windows),
-- checksummed in order; text keys; a cursor closed before its last row
SELECT y, g, x FROM sv ORDER BY x DESC, y LIMIT 5;
SELECT md5(string_agg(y::text || ':' || coalesce(t, '-'), ',')) FROM (SELECT y, t FROM sv ORDER BY t DESC NULLS LAST, y) q;
SELECT left(t, 8), length(t), y FROM sv ORDER BY length(t) DESC NULLS LAST, y LIMIT 3;
BEGIN;
DECLARE r CURSOR FOR SELECT y, g FROM sv ORDER BY g, y;
FETCH 2 FROM r;
CLOSE r;
COMMIT;
-- a semi-join's rows in key order (its set held by the service) and an
-- inner join that returns a column of its build side (the kept rows chained
-- by the set's ordinals, which the service sends back)
SELECT y, t FROM sv WHERE g IN (SELECT g FROM sv WHERE y % 997 = 0) ORDER BY t, y LIMIT 4;
SELECT count(*), sum(q.y), sum(length(q.t2)) FROM (SELECT sv.y, d.t AS t2 FROM sv JOIN (SELECT DISTINCT ON (g) g, t FROM sv WHERE g < 300 ORDER BY g, y) d USING (g) OFFSET 0) q;
-- over a child plan: a sort of a join's rows (the words encoded here, sorted in
-- the service) and a semi-join whose probe rows come from an Append (its set held
-- and probed in the service)
SELECT md5(string_agg(y::text, ',')) FROM (SELECT a.y FROM sv a JOIN (SELECT DISTINCT g, 'k' || g AS gk FROM sv WHERE g < 100) d USING (g) ORDER BY d.gk DESC, a.t DESC NULLS LAST, a.y) q;
SELECT count(*), sum(q.y) FROM (SELECT y, t FROM sv WHERE y % 3 = 0 UNION ALL SELECT y, t FROM sv WHERE y % 3 = 1) q WHERE q.t IN (SELECT t FROM sv WHERE g = 33);
