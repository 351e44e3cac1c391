-- numeric, with an anti-join set (TPC-H Q22's shape)
SELECT substring(t from 1 for 1) AS c, count(*), sum(a) FROM ip
  WHERE a > (SELECT avg(a) FROM ip WHERE a > 0.00) AND NOT EXISTS (SELECT 1 FROM ip_o WHERE k = id)
  GROUP BY 1 ORDER BY 1;
-- integers, floats, dates, timestamps
SELECT g, count(*) FROM ip WHERE b < (SELECT max(b) - 500 FROM ip WHERE g = 2) GROUP BY g ORDER BY g;
SELECT count(*), sum(b) FROM ip WHERE f >= (SELECT avg(f) FROM ip);
SELECT g, min(d), count(*) FROM ip WHERE d > (SELECT min(d) + 200 FROM ip) GROUP BY g ORDER BY g;
SELECT count(*), max(ts) FROM ip WHERE ts <= (SELECT max(ts) - interval '10 days' FROM ip);
-- NULL: nothing compares true
SELECT count(*), sum(a) FROM ip WHERE a > (SELECT avg(a) FROM ip WHERE g = 99);
SELECT count(*) FROM ip WHERE b <> (SELECT max(b) FROM ip WHERE g = 99) OR g = 1;
-- values of 20 and more digits, negative ones, equality with them (exact at
-- any number of digits: docs/SEMANTICS.md 34)
SELECT g, count(*) FROM ip WHERE a > (SELECT avg(a) FROM ip) GROUP BY g ORDER BY g;
SELECT count(*) FROM ip WHERE a >= (SELECT avg(a) FROM ip WHERE g = 3);
SELECT count(*) FROM ip WHERE a < (SELECT avg(a) - 30 FROM ip WHERE g = 6);
SELECT count(*) FROM ip WHERE a <= (SELECT -1.0 / 3);
SELECT count(*) FROM ip WHERE (SELECT avg(a) FROM ip WHERE g = 2) < a;
SELECT count(*) FROM ip WHERE (SELECT -1.0 / 3) >= a;
SELECT g, count(*) FROM ip WHERE (SELECT max(b) FROM ip) - 300 > b GROUP BY g ORDER BY g;
SELECT count(*) FROM ip WHERE a = (SELECT avg(a) FROM ip WHERE g = 1);
SELECT count(*) FROM ip WHERE a <> (SELECT 1.0 / 3);
SELECT count(*), sum(a) FROM ip WHERE a = (SELECT max(a) FROM ip) OR a = (SELECT 5.00000000000000000000);
SELECT count(*) FROM ip WHERE a > (SELECT 1.0 / 3000000);
SELECT count(*) FROM ip WHERE a > (SELECT 5.000000000000000000000000000001);
-- arithmetic over the parameter: PostgreSQL's plan (no GPU filter reads it)
SELECT g, count(*) FROM ip WHERE a * 2 <= (SELECT avg(a) FROM ip) + 1 GROUP BY g ORDER BY g;
-- the same parameter twice, two parameters
SELECT count(*), sum(a) FROM ip
  WHERE a > (SELECT avg(a) FROM ip WHERE g = 4) AND a < (SELECT avg(a) + 50 FROM ip WHERE g = 4);
SELECT count(*) FROM ip WHERE a BETWEEN (SELECT min(a) FROM ip WHERE g = 5) AND (SELECT avg(a) FROM ip);
-- NaN: PostgreSQL's plan answers (the task holds no NaN)
SET pg_gpu.expect_gpu = off;
SELECT count(*) FROM ip WHERE a < (SELECT 'NaN'::numeric);
RESET pg_gpu.expect_gpu;
-- in an aggregate's argument, in HAVING
SELECT g, sum(CASE WHEN b > (SELECT avg(b) FROM ip) THEN 1 ELSE 0 END) FROM ip GROUP BY g ORDER BY g;
SELECT g, sum(a) FROM ip GROUP BY g HAVING sum(a) > (SELECT sum(a) / 20 FROM ip) ORDER BY g;
