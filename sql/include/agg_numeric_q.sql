-- TPC-H Q1's shape: grouped sums of products at scales 2, 4 and 6, averages
SELECT g, sum(qty), sum(price), sum(price * (1 - disc)), sum(price * (1 - disc) * (1 + tax)),
       avg(qty), avg(price), avg(disc), count(*)
  FROM nm WHERE disc <= 0.09 GROUP BY g ORDER BY g;
-- TPC-H Q6's shape
SELECT sum(price * disc) FROM nm WHERE disc BETWEEN 0.05 AND 0.07 AND qty < 24;
SELECT sum(price * disc) FROM nm WHERE disc BETWEEN 0.06 - 0.01 AND 0.06 + 0.01 AND qty < 24;
-- min/max keep the column's scale; negatives, zeros, extremes
SELECT min(qty), max(qty), min(price), max(price), min(s0), max(s0), min(s4), max(s4),
       min(-price), max(price - qty) FROM nm;
SELECT g, min(s4), max(s4), min(disc * tax), max(disc * tax) FROM nm GROUP BY g ORDER BY g;
-- scale 20, its sum and average
SELECT sum(s20), avg(s20), count(s20) FROM nm;
SELECT sum(s20 * 2), sum(s20 + disc), sum(s20 - tax) FROM nm;
-- typmod-less: each value's dscale; sum prints the largest, avg divides at select_div_scale
SELECT sum(free), avg(free), count(free) FROM nm;
SELECT g, sum(free), avg(free), sum(free * disc), sum(free + 1) FROM nm GROUP BY g ORDER BY g;
SELECT sum(free) FROM nm WHERE k % 6 = 0;
SELECT avg(free) FROM nm WHERE k % 6 = 4;
-- integers to numeric, unary minus and plus, constants of several scales
SELECT sum(qty * 2), sum(k::numeric), sum(qty * k), avg(-qty), sum(+price), sum(qty * 1.5000)
  FROM nm;
SELECT sum(qty - 0.005), sum(0.1 + disc), sum(disc * 100), sum(qty * -1.0) FROM nm;
-- comparisons across scales: 1.0 = 1.00, between columns of different scales
SELECT count(*), sum(qty) FROM nm WHERE qty = 1.0;
SELECT count(*), sum(qty) FROM nm WHERE qty = 1.000000;
SELECT count(*) FROM nm WHERE price > s4;
SELECT count(*), sum(disc) FROM nm WHERE disc <> 0.05 AND tax >= 0.04 AND s0 < 0;
SELECT count(*) FROM nm WHERE free < 100.5 OR free > 1000000;
SELECT count(*) FROM nm WHERE free IS NULL;
SELECT count(*), sum(price) FROM nm WHERE price * (1 - disc) > 50000;
-- empty input, only NULLs, NULL inputs in a group
SELECT sum(qty), avg(qty), min(qty), max(qty), sum(free), avg(free), count(qty) FROM nm_empty;
SELECT sum(qty), avg(qty), min(qty), max(qty), sum(free), avg(free), count(qty) FROM nm_nulls;
SELECT g, sum(qty), avg(qty), min(qty) FROM nm WHERE k < 0 GROUP BY g ORDER BY g;
