-- empty table: one row back, NULLs and zero counts
SELECT count(*), count(i4), sum(i4), sum(i8), avg(i2), min(f8), max(f4), stddev(i8), var_pop(f8), sum(f4) FROM sp_empty;
-- all NULL
SELECT count(*), count(i4), sum(i4), sum(i8), avg(i2), avg(i8), min(f8), max(f4), stddev(i8), var_pop(f8), var_samp(i4), sum(f4) FROM sp_nulls;
-- one row: samp -> NULL, pop -> 0
SELECT var_samp(i4), var_pop(i4), stddev_samp(i8), stddev_pop(i8), var_samp(f8), var_pop(f8), stddev_pop(f4), avg(i2) FROM sp_one;
-- NaN is largest; -0 equals 0; infinities
SELECT min(f8), max(f8), min(f4), max(f4), count(f8) FROM sp_float;
SELECT sum(f8), avg(f8), var_pop(f8), stddev(f8) FROM sp_float;
SELECT min(f8), max(f8), sum(f8) FROM sp_float WHERE false;
SELECT min(f8), max(f8), sum(f8), avg(f8) FROM sp_nonan;
SELECT var_pop(f8), var_samp(f8), stddev_pop(f4) FROM sp_oneinf;
SELECT min(f8), max(f8), sum(f8), avg(f4) FROM sp_negzero;
-- int8 extremes: sums and squares beyond 64 bits, exact
SELECT sum(i8), avg(i8), min(i8), max(i8) FROM sp_big;
SELECT var_pop(i8), var_samp(i8), stddev_pop(i8), stddev_samp(i8) FROM sp_big;
SELECT sum(i4), avg(i4), var_samp(i4), sum(i2), avg(i2), stddev_pop(i2) FROM sp_big;
-- avg of integers keeps at least 16 significant digits
SELECT avg(i4), avg(i8), avg(i2) FROM sp_twelve;
-- overflow raises PostgreSQL's own errors
SELECT sum(f8) FROM sp_over8;
SELECT avg(f8) FROM sp_over8;
SELECT max(f8), count(*) FROM sp_over8;
SELECT stddev(f8) FROM sp_sxx;
SELECT sum(f8) FROM sp_sxx;
SELECT sum(f4) FROM sp_over4;
SELECT avg(f4), max(f4) FROM sp_over4;
SELECT sum(i4) FROM sp_sum8;
SELECT sum(i8), avg(i4) FROM sp_sum8;
