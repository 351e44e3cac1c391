--
-- EXTRACT(field FROM date | timestamp) (numeric since PostgreSQL 14) and
-- date_part (float8) on the GPU: every field over dates from 1900 to 2100, leap
-- days, year boundaries, BC dates, +-infinity and NULLs, timestamps with time
-- parts before and after 2000; in WHERE, arithmetic, CASE, aggregates and as
-- GROUP BY keys (TPC-H Q9's nation, year).  numeric +-Infinity (the year of an
-- infinite date) and timestamptz (the session's time zone) stay on the CPU.
--
SET extra_float_digits = 0;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE ex (id int4, nation int4, d date, ts timestamp, amount numeric(12,2));
INSERT INTO ex SELECT i, i % 5,
  CASE WHEN i % 97 = 0 THEN NULL ELSE date '1900-01-01' + (i::int8 * 7919 % 73415)::int4 END,
  CASE WHEN i % 89 = 0 THEN NULL
       ELSE timestamp '2000-01-01' + ((i::int8 * 1047293 % 6311520000) - 3155760000) * interval '1 second'
            + (i % 1000000) * interval '1 microsecond' END,
  (i % 1000) / 4.0
  FROM generate_series(1, 30000) i;
VACUUM ANALYZE ex;
-- edges: leap days, year and century boundaries, BC dates, the ends of the ranges
CREATE TABLE ex_edge (id int4, d date, ts timestamp);
INSERT INTO ex_edge VALUES
  (1, '2000-02-29', '2000-02-29 23:59:59.999999'),
  (2, '1900-02-28', '1900-03-01 00:00:00'),
  (3, '2100-12-31', '2100-12-31 12:30:45.5'),
  (4, '1999-12-31', '1999-12-31 23:59:59.999999'),
  (5, '2000-01-01', '2000-01-01 00:00:00'),
  (6, '2004-12-31', '2005-01-01 00:00:00.000001'),
  (7, '2008-12-29', '2009-12-31 06:00:00'),
  (8, '2010-01-03', '2010-01-04 00:00:00'),
  (9, '0001-01-01', '0001-01-01 00:00:00'),
  (10, '0001-12-31 BC', '0001-12-31 23:59:59 BC'),
  (11, '0044-03-15 BC', '0044-03-15 12:00:00 BC'),
  (12, '0100-01-01 BC', '0101-01-01 00:00:00 BC'),
  (13, '1000-01-01 BC', '1001-12-31 23:00:00 BC'),
  (14, '4713-11-24 BC', '4713-11-24 00:00:00 BC'),
  (15, '5874897-12-31', '294276-12-31 23:59:59.999999'),
  (16, '1969-07-20', '1969-07-20 20:17:40.5'),
  (17, '1970-01-01', '1970-01-01 00:00:00'),
  (18, 'infinity', 'infinity'),
  (19, '-infinity', '-infinity'),
  (20, NULL, NULL),
  (21, '2021-01-01', '2021-01-03 23:59:59'),
  (22, '2020-12-31', '2020-12-28 00:00:00'),
  (23, '0001-01-02 BC', '0002-12-31 BC'),
  (24, '2000-12-31', '1600-02-29 01:02:03.004005');
VACUUM ANALYZE ex_edge;

SET pg_gpu.enabled = off;
\i sql/include/expr_extract_q.sql
SET pg_gpu.enabled = on;
SET pg_gpu.force = on;
\i sql/include/expr_extract_q.sql

-- what runs on the GPU
EXPLAIN (COSTS OFF)
  SELECT nation, extract(year FROM d) AS y, sum(amount) FROM ex
  WHERE extract(year FROM d) BETWEEN 1995 AND 1998 GROUP BY 1, 2 ORDER BY 1, 2 DESC;
EXPLAIN (COSTS OFF)
  SELECT sum(extract(epoch FROM ts)), max(date_part('second', ts)), sum(date_part('year', d)) FROM ex;
EXPLAIN (COSTS OFF)
  SELECT extract(quarter FROM d), count(*) FROM ex GROUP BY 1;
-- and what stays on the CPU: timestamptz (the session's time zone), a field that
-- is not a constant, a timestamp's numeric Julian day (a division), numeric keys
-- whose dscale varies
EXPLAIN (COSTS OFF) SELECT sum(extract(year FROM ts::timestamptz)) FROM ex;
EXPLAIN (COSTS OFF) SELECT sum(extract(julian FROM ts)) FROM ex;
EXPLAIN (COSTS OFF) SELECT sum(date_part(CASE WHEN id > 5 THEN 'year' ELSE 'month' END, d)) FROM ex;

-- values the GPU cannot give (numeric +-Infinity, a date past the timestamp
-- range) and units a type does not have: PostgreSQL answers or raises
SET pg_gpu.expect_gpu = off;
SET pg_gpu.enabled = off;
\i sql/include/expr_extract_back_q.sql
SET pg_gpu.enabled = on;
\i sql/include/expr_extract_back_q.sql
RESET pg_gpu.expect_gpu;

RESET pg_gpu.force;
RESET pg_gpu.enabled;
DROP TABLE ex, ex_edge;
