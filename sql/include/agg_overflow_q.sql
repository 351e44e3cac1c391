SELECT g, avg(x) FROM ov GROUP BY g ORDER BY g;
SELECT g, stddev(x) FROM ov GROUP BY g ORDER BY g;
SELECT g, var_pop(x) FROM ov GROUP BY g ORDER BY g;
SELECT g, var_samp(y), avg(y) FROM ov GROUP BY g ORDER BY g;
SELECT avg(x) FROM ov;
SELECT g, count(*) FROM ov WHERE g = 2 GROUP BY g;
SELECT g, avg(x) FROM ov WHERE g = 2 GROUP BY g;
-- large but safe: no overflow in any order
SELECT g, count(*), avg(x) / 1e140 AS a, sum(x) / 1e140 AS s FROM ov_ok GROUP BY g ORDER BY g;
SELECT g, round((stddev(x) / 1e140)::numeric, 6) FROM ov_ok WHERE g < 3 GROUP BY g ORDER BY g;
-- float8 and float4 sums: float8pl and float4pl overflow
SELECT g, sum(x) FROM ov_sum GROUP BY g ORDER BY g;
SELECT g, avg(x) FROM ov_sum GROUP BY g ORDER BY g;
SELECT g, sum(y) FROM ov_f4 GROUP BY g;
SELECT g, avg(y) FROM ov_f4 GROUP BY g;
