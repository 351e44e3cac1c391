SELECT a.x FROM ph_a a LEFT JOIN (SELECT 3 AS k) s ON a.x = 1 JOIN ph_b b ON s.k = b.y;
SELECT a.x FROM ph_a a LEFT JOIN (SELECT 3 AS k) s ON a.x = 1 WHERE s.k IN (SELECT y FROM ph_b);
SELECT count(*) FROM ph_a a LEFT JOIN (SELECT 3 AS k) s ON a.x = 1 JOIN ph_b b ON s.k = b.y;
SELECT count(*) FROM ph_a a LEFT JOIN (SELECT 3 AS k) s ON a.x = 1
  WHERE s.k IN (SELECT y FROM ph_b);
SELECT a.x FROM ph_a a LEFT JOIN (SELECT 3 AS k) s ON a.x = 1 JOIN ph_b b ON s.k = b.y ORDER BY 1;
SELECT a.x FROM ph_a a LEFT JOIN (SELECT 3 AS k) s ON a.x < 4
  WHERE s.k IN (SELECT y FROM ph_b) ORDER BY 1;
SELECT a.x FROM ph_a a LEFT JOIN (SELECT x + 0 AS k FROM ph_a WHERE x < 3) s ON a.x = s.k
  WHERE coalesce(s.k, 2) IN (SELECT y FROM ph_b) ORDER BY 1 LIMIT 5;
SELECT count(*) FROM ph_a a LEFT JOIN (SELECT x, 7 AS k FROM ph_a WHERE x < 100) s ON a.x = s.x
  WHERE s.k NOT IN (SELECT y FROM ph_b);
