-- every aggregate over every type (run once with the GPU off, once forced);
-- float var/stddev are rounded: their last bits depend on the order of addition
SELECT count(*), count(i2), count(i4), count(i8), count(f4), count(f8), count(txt), count(id) FROM agg_t;
SELECT min(i2), max(i2), sum(i2), avg(i2) FROM agg_t;
SELECT stddev(i2), stddev_samp(i2), stddev_pop(i2) FROM agg_t;
SELECT variance(i2), var_samp(i2), var_pop(i2) FROM agg_t;
SELECT min(i4), max(i4), sum(i4), avg(i4) FROM agg_t;
SELECT stddev(i4), stddev_samp(i4), stddev_pop(i4) FROM agg_t;
SELECT variance(i4), var_samp(i4), var_pop(i4) FROM agg_t;
SELECT min(i8), max(i8), sum(i8), avg(i8) FROM agg_t;
SELECT stddev(i8), stddev_samp(i8), stddev_pop(i8) FROM agg_t;
SELECT variance(i8), var_samp(i8), var_pop(i8) FROM agg_t;
SELECT min(f4), max(f4), sum(f4), avg(f4) FROM agg_t;
SELECT round(stddev(f4)::numeric, 9), round(stddev_samp(f4)::numeric, 9), round(stddev_pop(f4)::numeric, 9) FROM agg_t;
SELECT round(variance(f4)::numeric, 7), round(var_samp(f4)::numeric, 7), round(var_pop(f4)::numeric, 7) FROM agg_t;
SELECT min(f8), max(f8), sum(f8), avg(f8) FROM agg_t;
SELECT round(stddev(f8)::numeric, 6), round(stddev_samp(f8)::numeric, 6), round(stddev_pop(f8)::numeric, 6) FROM agg_t;
SELECT round(variance(f8)::numeric, 4), round(var_samp(f8)::numeric, 4), round(var_pop(f8)::numeric, 4) FROM agg_t;
-- any mix in one query, expressions over aggregates, HAVING
SELECT avg(f8), min(i2), max(f4), count(*), stddev_pop(i8), var_samp(i4), sum(i2), count(txt), round(stddev(f8)::numeric, 6) FROM agg_t;
SELECT max(i4) - min(i4) AS spread, sum(i8) / count(i8) AS mean8, sum(f8) * 2 AS twice FROM agg_t;
SELECT sum(i4) FROM agg_t HAVING count(*) > 10;
SELECT sum(i4) FROM agg_t HAVING count(*) > 1000000;
SELECT count(*) AS n, count(*) AS n_again, max(i4) AS m1, max(i4) AS m2 FROM agg_t;
