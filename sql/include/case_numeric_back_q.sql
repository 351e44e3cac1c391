-- NaN and +-Infinity in a CASE's branches
SELECT sum(CASE WHEN k < 0 THEN v ELSE 0 END), avg(CASE WHEN k < 0 THEN v ELSE 0 END) FROM cn_special;
SELECT sum(CASE WHEN k > 0 THEN v ELSE 0 END), sum(CASE WHEN k > -2 THEN v END) FROM cn_special;
SELECT sum(CASE WHEN k = -2 THEN w ELSE 1 END), sum(CASE WHEN k <= -2 THEN w ELSE 1 END),
       max(CASE WHEN k < 0 THEN w END), min(CASE WHEN k < 0 THEN w END)
  FROM cn_special;
SELECT k % 3 AS r, sum(CASE WHEN k % 2 = 0 THEN v ELSE w END) FROM cn_special GROUP BY 1 ORDER BY 1;
SELECT sum(CASE WHEN k = 1 THEN 'NaN'::numeric ELSE v END),
       sum(CASE WHEN k = 1 THEN 'Infinity'::numeric ELSE 0 END)
  FROM cn_special WHERE k > 0;
