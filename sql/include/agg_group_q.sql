-- integer keys, all aggregates
SELECT i2, count(*), count(i4), sum(i4), sum(i8), avg(i4), avg(i8), min(f8) + 0, max(f4), sum(f4),
  round(stddev(i4), 6), round(var_pop(i8), 6), round(stddev_samp(f8)::numeric, 6), avg(f8)
  FROM gr GROUP BY i2 ORDER BY i2;
SELECT i4 % 10 AS k, count(*), sum(i2), min(i8), max(i8), variance(i2) FROM gr GROUP BY 1 ORDER BY 1;
SELECT i8 % 3 AS k, count(*), sum(id) FROM gr GROUP BY 1 ORDER BY 1;
-- float keys: all NaNs one group, -0 and 0 one group
SELECT CASE WHEN f8 = 0 THEN 0 ELSE f8 END AS f8, count(*), sum(i4) FROM gr WHERE id > 69000 OR f8 < 0.5 GROUP BY f8 ORDER BY 1;
SELECT CASE WHEN f4 = 0 THEN 0 ELSE f4 END AS f4, count(*), min(id), max(id) FROM gr GROUP BY f4 ORDER BY 1;
-- date, timestamp, timestamptz keys
SELECT d, count(*), sum(i4), avg(f8) FROM gr GROUP BY d ORDER BY d;
SELECT ts, count(*), max(i8) FROM gr GROUP BY ts ORDER BY ts;
SELECT tz, count(*), min(i2) FROM gr GROUP BY tz ORDER BY tz;
-- several keys, NULL keys forming their own groups
SELECT i2, d, count(*), sum(i4) FROM gr GROUP BY i2, d ORDER BY i2, d;
SELECT i2 IS NULL AS n, count(*) FROM gr GROUP BY i2 HAVING i2 IS NULL OR i2 > 2 ORDER BY 1, 2;
-- one group
SELECT one, count(*), sum(i4), min(f8), max(f8) FROM gr GROUP BY one ORDER BY one;
-- 10k groups, HAVING and ORDER BY above
SELECT id % 10000 AS k, count(*), sum(i4) FROM gr GROUP BY 1 HAVING sum(i4) > 9900 ORDER BY 3 DESC, 1 LIMIT 5;
SELECT count(*), sum(c), min(s), max(s) FROM (SELECT id % 10000 AS k, count(*) AS c, sum(i4) AS s FROM gr GROUP BY 1) x;
-- 1M groups
SELECT count(*), sum(c), sum(s), min(k), max(k) FROM (SELECT id AS k, count(*) AS c, sum(i4) AS s FROM gr_big GROUP BY id) x;
SELECT count(*), max(c) FROM (SELECT id % 999983 AS k, count(*) AS c FROM gr_big GROUP BY 1) x;
-- keys only, and aggregate arguments that are expressions
SELECT i2 FROM gr GROUP BY i2 ORDER BY i2;
SELECT i2, sum(i4 * i2), sum(f8 * 2), max(i8 - id) FROM gr GROUP BY i2 ORDER BY i2;
-- grouped with a filter that keeps nothing
SELECT i2, count(*) FROM gr WHERE i4 > 1000000 GROUP BY i2;
-- min/max of date, timestamp and timestamptz: NULLs, +-infinity (the extreme
-- integers), BC values; plain, grouped, with count(DISTINCT), HAVING, no rows
SELECT min(d), max(d), min(ts), max(ts), min(tz), max(tz), count(*) FROM gdt;
SELECT min(d), max(d), min(ts), max(ts) FROM gdt WHERE g IN (0, 2, 3);
SELECT min(d), max(d), min(ts), max(tz) FROM gdt WHERE g = 3;
SELECT min(d), max(d), min(ts), max(ts) FROM gdt WHERE x < 0;
SELECT g, min(d), max(d), min(ts), max(ts), min(tz), max(tz), count(d) FROM gdt GROUP BY g ORDER BY g;
SELECT x, min(d), max(ts), max(tz) FROM gdt GROUP BY x ORDER BY x;
SELECT d, min(ts), max(ts) FROM gdt WHERE g >= 2 GROUP BY d ORDER BY d LIMIT 5;
SELECT g, count(DISTINCT x), max(d), min(ts), max(tz) FROM gdt GROUP BY g ORDER BY g;
SELECT count(DISTINCT x), min(d), max(d), min(ts), max(ts) FROM gdt;
SELECT g, max(d) FROM gdt GROUP BY g HAVING max(d) > date '2040-01-01' OR min(ts) < timestamp '1900-01-01' ORDER BY g;
SELECT g, min(d) FROM gdt WHERE x > 100 GROUP BY g;
