-- queries over cct's char(n) and varchar(n) columns (run with pg_gpu off, then forced)
SELECT rf, ls, sum(qty) AS sum_qty, sum(price) AS sum_price, sum(price * (1 - disc)) AS sum_disc,
       avg(qty) AS avg_qty, avg(price) AS avg_price, count(*) AS count_order
  FROM cct WHERE d <= date '1998-12-01' - interval '90' day GROUP BY rf, ls ORDER BY 1, 2;
SELECT mode, count(*), sum(qty) FROM cct WHERE mode IN ('MAIL', 'SHIP', '') GROUP BY mode ORDER BY 1;
SELECT mode, sum(CASE WHEN pri = '1-URGENT' OR pri = '2-HIGH' THEN 1 ELSE 0 END) AS high,
       sum(CASE WHEN pri <> '1-URGENT' AND pri <> '2-HIGH' THEN 1 ELSE 0 END) AS low
  FROM cct WHERE mode IN ('MAIL', 'SHIP') AND d >= date '1994-01-01' AND d < date '1995-01-01'
  GROUP BY mode ORDER BY mode;
SELECT pri, count(*), min(id), max(id) FROM cct WHERE pri <> '2-HIGH' GROUP BY pri ORDER BY 1;
SELECT count(*), sum(qty) FROM cct WHERE pri LIKE '%URGENT' OR mode LIKE 'REG%';
SELECT count(*), count(pri), count(tag), count(rf) FROM cct WHERE pri IS NULL OR tag IS NULL;
-- trailing blanks: a varchar keeps them, a bpchar compares without them
SELECT tag || '|' AS tag_end, count(*) FROM cct GROUP BY tag ORDER BY 1;
SELECT count(*) FROM cct WHERE tag = 'x';
SELECT count(*) FROM cct WHERE tag = 'ab';
SELECT count(*) FROM cct WHERE tag IN ('x', 'ab ');
SELECT count(*) FROM cct WHERE tag = 'x ';
SELECT count(*) FROM cct WHERE tag = '';
SELECT count(*) FROM cct WHERE mode = 'AIR';
SELECT count(*) FROM cct WHERE mode = 'AIR  ';
SELECT count(*) FROM cct WHERE mode = '';
SELECT substring(pri from 1 for 1) AS p1, rf, count(*) FROM cct GROUP BY 1, 2 ORDER BY 1, 2;
