-- plain: NULLs not counted; no rows gives one row with 0
SELECT count(DISTINCT x) FROM td;
SELECT count(DISTINCT x), count(*), count(x), sum(x), min(x), max(x), avg(x) FROM td;
SELECT count(DISTINCT x), count(*), sum(x) FROM td WHERE id < 0;
SELECT count(DISTINCT x), count(*), sum(x), max(t) FROM tde;
SELECT count(DISTINCT x) FROM td WHERE g = 99;
SELECT count(DISTINCT x) FROM td WHERE id % 5 = 1 AND t <> 't3';
-- grouped: NULL keys, a group of NULL x only, other aggregates beside
SELECT g, count(DISTINCT x), sum(h), avg(x), min(d), max(d), min(x), count(*), count(x) FROM td GROUP BY g ORDER BY g;
SELECT g, count(DISTINCT x), sum(y) FROM td GROUP BY g ORDER BY g;
SELECT g, h, count(DISTINCT x), sum(x) FROM td WHERE id % 3 <> 0 GROUP BY g, h ORDER BY g, h;
SELECT g, count(DISTINCT x) FROM tde GROUP BY g;
SELECT g, count(DISTINCT x), count(DISTINCT x) + 1 AS plus, sum(h) FROM td GROUP BY g ORDER BY g;
SELECT g, count(DISTINCT g), count(*) FROM td GROUP BY g ORDER BY g;
SELECT h, count(DISTINCT x % 7), sum(f) FROM td GROUP BY h ORDER BY h;
-- int8, date, text, char(n), bpchar, float8 arguments
SELECT h, count(DISTINCT y), min(y), max(y) FROM td GROUP BY h ORDER BY h;
SELECT g, count(DISTINCT d) FROM td GROUP BY g ORDER BY g;
SELECT g, count(DISTINCT t), max(t) FROM td GROUP BY g ORDER BY g;
SELECT count(DISTINCT t) FROM td WHERE g = 99;
SELECT count(DISTINCT c), count(DISTINCT b) FROM td WHERE g = 99;
SELECT g, count(DISTINCT c) FROM td GROUP BY g ORDER BY g;
SELECT g, count(DISTINCT b) FROM td GROUP BY g ORDER BY g;
SELECT count(DISTINCT f) FROM td WHERE g = 99;
SELECT g, count(DISTINCT f) FROM td GROUP BY g ORDER BY g;
SELECT count(DISTINCT n) FROM td WHERE g IN (98, 99);
-- text and bpchar keys fold by their equality ('x' and 'x  ' one group)
SELECT t, octet_length(t), count(DISTINCT x), count(*) FROM td WHERE id > 19900 OR g >= 98 GROUP BY t ORDER BY t COLLATE "C";
SELECT b::text, count(DISTINCT x), count(*), sum(x) FROM td GROUP BY b ORDER BY b::text COLLATE "C";
SELECT c, h, count(DISTINCT d) FROM td GROUP BY c, h ORDER BY c COLLATE "C", h;
-- HAVING and ORDER BY on the distinct count
SELECT g, count(DISTINCT x) FROM td GROUP BY g HAVING count(DISTINCT x) > 400 ORDER BY g;
SELECT g, h, count(DISTINCT t) FROM td GROUP BY g, h HAVING count(DISTINCT t) > 3 AND sum(x) > 0 ORDER BY g, h;
SELECT count(DISTINCT x) FROM td HAVING count(DISTINCT x) > 1000;
SELECT h, count(DISTINCT x) AS cd FROM td GROUP BY h ORDER BY cd DESC, h LIMIT 2;
SELECT g, count(DISTINCT y) FROM td GROUP BY g ORDER BY count(DISTINCT y) DESC, g LIMIT 3;
-- many groups
SELECT g, count(DISTINCT x), sum(v), count(*) FROM td_big GROUP BY g ORDER BY g;
SELECT count(DISTINCT x), count(DISTINCT x) * 2, count(*) FROM td_big WHERE v % 3 = 0;
SELECT count(DISTINCT v) FROM td_big;
-- over a join with a dimension of unique keys
SELECT tdim.grp, count(DISTINCT td.x), count(*), sum(td.h) FROM td JOIN tdim ON td.g = tdim.k GROUP BY tdim.grp ORDER BY 1;
SELECT tdim.name, count(DISTINCT td.t) FROM td JOIN tdim ON td.h = tdim.k WHERE td.id % 4 = 0 GROUP BY tdim.name ORDER BY 1;
SELECT count(DISTINCT td.x), count(*) FROM td JOIN tdim ON td.g = tdim.k WHERE tdim.grp = 1;
SELECT count(DISTINCT td.d) FROM td WHERE td.g IN (SELECT k FROM tdim WHERE grp = 2);
-- beside aggregates whose state is internal: numeric(15,2) sum/avg, int8
-- sum/avg, integer variances; avg and sum of int4 mixed in; NULLs, a group of
-- NULLs only (7), extremes (8), no rows
SELECT g, count(DISTINCT u), sum(amt), avg(qty), sum(big), avg(big), avg(q), sum(q), count(*) FROM tdn GROUP BY g ORDER BY g;
SELECT g, count(DISTINCT u), variance(q), stddev_pop(q), var_samp(big), stddev(big), avg(amt) FROM tdn GROUP BY g ORDER BY g;
SELECT count(DISTINCT u), sum(amt), avg(qty), sum(big), avg(big), avg(q), sum(q), variance(q) FROM tdn;
SELECT count(DISTINCT u), sum(amt), avg(qty), sum(big), avg(big), avg(q), sum(q), count(*) FROM tdn WHERE g < 0;
SELECT g, count(DISTINCT u), sum(amt), avg(big) FROM tdn WHERE g < 0 GROUP BY g;
SELECT count(DISTINCT u), sum(amt), avg(qty), sum(big), avg(big), stddev(q) FROM tdn WHERE g = 7;
SELECT g, u % 3 AS m, count(DISTINCT q), sum(amt), avg(big) FROM tdn WHERE u IS NOT NULL GROUP BY g, u % 3 ORDER BY g, m;
SELECT g, count(DISTINCT big), sum(qty), avg(amt) FROM tdn WHERE g IS NOT NULL GROUP BY g ORDER BY g;
-- HAVING on a numeric sum, and expressions over the finished values
SELECT g, count(DISTINCT u), sum(amt) FROM tdn GROUP BY g HAVING sum(amt) > 0 ORDER BY g;
SELECT g, count(DISTINCT u) FROM tdn GROUP BY g HAVING avg(qty) < 125 OR sum(big) IS NULL ORDER BY g;
SELECT g, sum(amt) / count(DISTINCT u) AS per_user, avg(big) * 2 FROM tdn WHERE u IS NOT NULL GROUP BY g ORDER BY g;
SELECT count(DISTINCT u), sum(amt) FROM tdn HAVING sum(amt) > 0;
SELECT g, count(DISTINCT x), sum(n), avg(n), sum(y), avg(y), avg(x), sum(x) FROM td GROUP BY g ORDER BY g;
SELECT tdim.grp, count(DISTINCT tdn.u), sum(tdn.amt), avg(tdn.big) FROM tdn JOIN tdim ON tdn.g = tdim.k GROUP BY tdim.grp ORDER BY 1;
