-- every function, every type; types as the built-ins'
SELECT gpu_min(i2), gpu_max(i4), gpu_sum(i2), gpu_sum(i4), gpu_sum(i8), gpu_sum(f4), gpu_sum(f8), gpu_avg(i2), gpu_avg(i4), gpu_avg(i8), gpu_avg(f4), gpu_avg(f8) FROM ga;
SELECT gpu_stddev(i2), gpu_stddev_samp(i4), gpu_stddev_pop(i8), gpu_variance(i4), gpu_var_samp(i8), gpu_var_pop(i2) FROM ga;
SELECT round(gpu_stddev(f8)::numeric, 9), round(gpu_var_pop(f4)::numeric, 9), round(gpu_var_samp(f8)::numeric, 6), pg_typeof(gpu_stddev(f4)) FROM ga;
SELECT gpu_min(i8), gpu_max(i2), gpu_min(f4), gpu_max(f8), pg_typeof(gpu_sum(i8)), pg_typeof(gpu_avg(i4)), pg_typeof(gpu_sum(f4)), pg_typeof(gpu_max(i2)) FROM ga;
-- against the built-ins directly
SELECT gpu_sum(i8) = sum(i8) AS s, gpu_avg(i8) = avg(i8) AS a, gpu_var_pop(i8) = var_pop(i8) AS v, gpu_stddev_samp(i2) = stddev_samp(i2) AS sd, gpu_avg(f8) = avg(f8) AS af FROM ga;
-- GROUP BY and a join
SELECT i2 % 5 AS k, gpu_sum(i4), gpu_avg(i4), gpu_max(f8), round(gpu_stddev_pop(f8)::numeric, 6) FROM ga GROUP BY 1 ORDER BY 1;
SELECT v.k, gpu_sum(g.i8), gpu_min(g.f4), gpu_var_samp(g.i4) FROM ga g JOIN (VALUES (1), (7), (13)) v(k) ON g.i2 = v.k GROUP BY v.k ORDER BY v.k;
SELECT count(*), sum(s) FROM (SELECT id % 1000 AS k, gpu_sum(i4) AS s FROM ga GROUP BY 1) x;
-- no rows, NULLs only, one row, NaN/Inf/-0, int8 beyond 64 bits, overflow
SELECT gpu_sum(i4), gpu_avg(f8), gpu_max(i4), gpu_stddev(f8) FROM ga_empty;
SELECT gpu_sum(i4), gpu_avg(f8), gpu_var_samp(i8) FROM ga WHERE id = 40001;
SELECT gpu_var_samp(i4), gpu_var_pop(i4), gpu_stddev_pop(f8), gpu_avg(i8) FROM ga WHERE id = 7;
SELECT gpu_max(f8), gpu_min(f8), gpu_sum(f4), gpu_var_pop(f8), gpu_sum(i8), gpu_avg(i8) FROM ga_special;
SELECT gpu_sum(f8) FROM ga_over;
