SELECT sum(price * (1 - disc)), avg(qty), min(price), max(price), sum(x), avg(x), count(x)
  FROM ccn WHERE disc BETWEEN 0.05 AND 0.07;
SELECT id % 4 AS r, sum(qty * price), avg(disc), min(qty), max(disc), count(x)
  FROM ccn WHERE d < date '1996-01-01' AND price > 950.5 GROUP BY id % 4 ORDER BY r;
