-- each HAVING below runs with pg_gpu off, then forced (agg_having.sql)
SELECT g, sum(a) FROM hv GROUP BY g HAVING sum(a) > 1000.50 ORDER BY g;
SELECT g, sum(a), count(*) FROM hv GROUP BY g HAVING sum(a) >= -7000 AND count(*) > 96 ORDER BY g;
SELECT g, count(*) FROM hv GROUP BY g HAVING 100 < count(*) ORDER BY g;
SELECT g, count(a) FROM hv GROUP BY g HAVING count(a) >= 130 ORDER BY g;
SELECT g, sum(a) FROM hv GROUP BY g HAVING sum(a) <> 0 AND sum(a) < -3000 ORDER BY g;
-- a constant with a digit below the column's scale: tested by PostgreSQL only
SELECT g, sum(a) FROM hv GROUP BY g HAVING sum(a) < -2999.995 ORDER BY g;
SELECT g, sum(b) FROM hv GROUP BY g HAVING sum(b) > 30000 ORDER BY g;
SELECT g, sum(c) FROM hv GROUP BY g HAVING sum(c) <= -63664946161 ORDER BY g;
SELECT g, sum(s) FROM hv GROUP BY g HAVING sum(s) >= 2500 ORDER BY g;
SELECT g, sum(d) FROM hv GROUP BY g HAVING sum(d) > 700 ORDER BY g;
-- NULL sums (group 7's a is always NULL) fail every comparison
SELECT g, sum(a) FROM hv GROUP BY g HAVING sum(a) > -1000000000 AND g % 7 = 0 ORDER BY g;
SELECT g, sum(a) FROM hv GROUP BY g HAVING sum(a) IS NULL ORDER BY g;
-- NaN is above every number; a 39-digit constant is beyond the GPU's 128 bits
SELECT g FROM hv GROUP BY g HAVING sum(a) > 'NaN' ORDER BY g;
SELECT g FROM hv GROUP BY g HAVING sum(a) < 'NaN' AND g < 5 ORDER BY g;
SELECT g FROM hv GROUP BY g HAVING sum(a) < 999999999999999999999999999999999999999 AND g < 3 ORDER BY g;
-- OR, and aggregates the pre-filter does not test, beside ones it does
SELECT g, sum(a) FROM hv GROUP BY g HAVING sum(a) > 2000 OR count(*) < 96 ORDER BY g;
SELECT g, max(a), avg(a) FROM hv GROUP BY g HAVING max(a) > 99.5 AND sum(a) > 0 AND avg(a) > 1 ORDER BY g;
-- a float input anywhere: no pre-filter (its overflow is raised per group)
SELECT g, sum(f), sum(a) FROM hv GROUP BY g HAVING sum(a) > 1000 ORDER BY g;
-- two keys, one text
SELECT g % 5 AS g5, t, count(*), sum(a) FROM hv GROUP BY g % 5, t HAVING count(*) >= 400 AND sum(a) > -10000 ORDER BY 1, 2;
-- a term that raises for small groups, written first: PostgreSQL evaluates it
-- before count(*) > 150 (equal costs, written order), so no group may be held
-- back before it runs (no pre-filter beside a term that may raise)
SELECT g FROM hv GROUP BY g HAVING hv_check(count(*)) AND count(*) > 150 ORDER BY g;
SELECT g FROM hv GROUP BY g HAVING hv_check(count(*) + 100) AND count(*) > 150 ORDER BY g;
-- PostgreSQL tests the cheaper term first: max(s) > 100 fails every group, so
-- the division by a zero count(a) (groups 57, 77, 147) never runs
SELECT g FROM hv GROUP BY g HAVING sum(b) / count(a) > 2 AND max(s) > 100 ORDER BY g;
