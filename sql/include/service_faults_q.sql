SELECT count(*), sum(y), min(y) FROM svf;
SELECT g % 5, count(*), sum(y) FROM svf GROUP BY 1 ORDER BY 1;
