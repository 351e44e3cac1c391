-- comparisons between columns and constants, every type
SELECT count(*), sum(i4), min(f8), max(i8) FROM wh WHERE i4 > 0;
SELECT count(*), sum(i8) FROM wh WHERE i2 = 2;
SELECT count(*), sum(i4) FROM wh WHERE i2 <> 2 AND i4 <= 100;
SELECT count(*), avg(f8) FROM wh WHERE f8 >= 100.5 AND f4 < 2;
SELECT count(*) FROM wh WHERE f8 = 'NaN';
SELECT count(*) FROM wh WHERE f8 > 'Infinity';
SELECT count(*), min(f8) + 0, max(f8) + 0 FROM wh WHERE f8 = 0;
SELECT count(*), sum(i4) FROM wh WHERE i4 < i2 * 100;
SELECT count(*), sum(i4) FROM wh WHERE f4 = f8;
SELECT count(*) FROM wh WHERE i8 > 40000000000;
SELECT count(*) FROM wh WHERE d = date '2024-02-29';
SELECT count(*) FROM wh WHERE d BETWEEN date '2024-02-28' AND date '2024-03-01';
SELECT count(*) FROM wh WHERE ts >= timestamp '2024-01-01 03:00';
-- AND / OR / NOT, NULLs, BETWEEN, IN lists
SELECT count(*), sum(i4) FROM wh WHERE i4 BETWEEN -100 AND 100;
SELECT count(*), sum(i4) FROM wh WHERE i4 NOT BETWEEN -9000 AND 9000;
SELECT count(*), sum(id) FROM wh WHERE i2 IN (1, 3, NULL);
SELECT count(*), sum(id) FROM wh WHERE i2 NOT IN (1, 3);
SELECT count(*), sum(id) FROM wh WHERE i2 NOT IN (1, 3, NULL);
SELECT count(*) FROM wh WHERE f8 IN (0.5, 1.5, 'NaN');
SELECT count(*) FROM wh WHERE i2 IS NULL;
SELECT count(*), sum(i2) FROM wh WHERE i2 IS NOT NULL AND NOT (i2 > 0);
SELECT count(*) FROM wh WHERE i2 > 2 OR i4 < -9990 OR f8 IS NULL;
SELECT count(*) FROM wh WHERE NOT (i2 > 2 OR i4 IS NULL);
-- arithmetic
SELECT count(*), sum(i4) FROM wh WHERE i4 + i2 * 3 - 7 > 5000;
SELECT count(*), sum(i4) FROM wh WHERE i4 / 7 = 100 OR i4 % 100 = -7;
SELECT count(*) FROM wh WHERE -i4 > 9000;
SELECT count(*), sum(f8) FROM wh WHERE f8 * 2 - 1 < 10 AND f8 / 4 > 1;
SELECT count(*) FROM wh WHERE i8 / 1000003 = id;
SELECT count(*) FROM wh WHERE i4::float8 / 3 > 3000;
SELECT count(*) FROM wh WHERE i2::int8 * 4000000000 > 8000000000;
-- filters that keep nothing, everything, one row
SELECT count(*), sum(i4), min(f8) FROM wh WHERE i4 > 1000000;
SELECT count(*), sum(i4) FROM wh WHERE i4 IS NULL OR i4 IS NOT NULL;
SELECT count(*), sum(i4), max(f8) FROM wh WHERE id = 777;
-- sum(a*b) with a range filter on a third column
SELECT sum(i4 * i2), sum(f8 * i2), count(*) FROM wh WHERE id BETWEEN 1000 AND 30000;
-- errors raised inside filters: PostgreSQL's own message
SELECT count(*) FROM wh WHERE i4 / (i2 - i2) > 0;
SELECT count(*) FROM wh WHERE i4 % (i2 - i2) > 0;
SELECT count(*) FROM wh WHERE i4 * 1000000 > 0;
SELECT count(*) FROM wh WHERE i2 * 10000::int2 > 0;
SELECT count(*) FROM wh WHERE f8 * 1e308 > 0;
SELECT count(*) FROM wh WHERE f8 / 0 > 0;
SELECT sum(i4 * 1000000) FROM wh;
-- ... but not where PostgreSQL's evaluation order never reaches them
SELECT count(*) FROM wh WHERE i2 <> 0 AND i4 / i2 > 1000;
SELECT count(*) FROM wh WHERE i2 = 0 OR i4 / i2 > 1000;
SELECT count(*) FROM wh WHERE i2 IS NULL AND i4 / 0 > 1;
