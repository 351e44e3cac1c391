-- queries over the cached table cc (run with pg_gpu off, then forced)
SELECT count(*), sum(v), min(id), max(id), avg(f), sum(g) FROM cc;
SELECT count(*), sum(v), count(g) FROM cc WHERE id % 7 = 3;
SELECT g % 5 AS k, count(*), sum(v), min(f) FROM cc GROUP BY 1 ORDER BY 1;
SELECT count(*) FROM cc WHERE g IS NULL;
