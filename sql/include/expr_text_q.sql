-- LIKE and NOT LIKE: TPC-H's patterns
SELECT count(*), sum(id) FROM et WHERE t LIKE '%green%';
SELECT count(*), sum(id) FROM et WHERE t LIKE 'PROMO%';
SELECT count(*), sum(id) FROM et WHERE t LIKE '%BRASS';
SELECT count(*), sum(id) FROM et WHERE t LIKE '%special%requests%';
SELECT count(*), sum(id) FROM et WHERE t LIKE 'MED BAG';
SELECT count(*), sum(id) FROM et WHERE t NOT LIKE '%Customer%Complaints%';
SELECT count(*), sum(id) FROM et WHERE t LIKE 'Customer%1%Complaints';
-- _ is one character, multibyte ones too; empty pattern, %, %%
SELECT count(*), sum(id) FROM et WHERE t LIKE '_';
SELECT count(*), sum(id) FROM et WHERE t LIKE '__';
SELECT count(*), sum(id) FROM et WHERE t LIKE '___';
SELECT count(*), sum(id) FROM et WHERE t LIKE '日_語';
SELECT count(*), sum(id) FROM et WHERE t LIKE 'a_b';
SELECT count(*), sum(id) FROM et WHERE t LIKE '%ä%';
SELECT count(*), sum(id) FROM et WHERE v LIKE 'v1_ä';
SELECT count(*), sum(id) FROM et WHERE v LIKE '%ä_';
SELECT count(*), sum(id) FROM et WHERE t LIKE '';
SELECT count(*), sum(id) FROM et WHERE t LIKE '%';
SELECT count(*), sum(id) FROM et WHERE t LIKE '%%';
SELECT count(*), sum(id) FROM et WHERE t NOT LIKE '%';
SELECT count(*), sum(id) FROM et WHERE t LIKE 'w1%' OR t LIKE '%2';
SELECT count(*), sum(id) FROM et WHERE t LIKE '%_%_%' AND t NOT LIKE 'w%';
SELECT count(*), sum(id) FROM et WHERE t LIKE '%s%s%s%';
-- escapes: \% \_ \\, ESCAPE 'x', no escape at all
SELECT count(*), sum(id) FROM et WHERE t LIKE 'a\%b';
SELECT count(*), sum(id) FROM et WHERE t LIKE 'a\_b';
SELECT count(*), sum(id) FROM et WHERE t LIKE 'a\\b';
SELECT count(*), sum(id) FROM et WHERE t LIKE 'a\b';
SELECT count(*), sum(id) FROM et WHERE t LIKE '\%';
SELECT count(*), sum(id) FROM et WHERE t LIKE 'a!%b' ESCAPE '!';
SELECT count(*), sum(id) FROM et WHERE v LIKE 'a!%b' ESCAPE '!';
SELECT count(*), sum(id) FROM et WHERE t LIKE 'a\b' ESCAPE '';
SELECT count(*), sum(id) FROM et WHERE t LIKE 'a%b' ESCAPE '';
-- NULLs: a NULL value, a NULL pattern
SELECT count(*), sum(id) FROM et WHERE (t LIKE 'w%') IS NULL;
SELECT count(*), sum(id) FROM et WHERE (t NOT LIKE 'w%') IS NULL;
SELECT count(*) FROM et WHERE t LIKE NULL;
-- varchar, and bpchar: LIKE sees the blank-padded value; ::text drops the blanks
SELECT count(*), sum(id) FROM et WHERE v LIKE 'v1%';
SELECT count(*), sum(id) FROM et WHERE v NOT LIKE '%ää';
SELECT count(*), sum(id) FROM et WHERE c LIKE 'abc';
SELECT count(*), sum(id) FROM et WHERE c LIKE 'abc%';
SELECT count(*), sum(id) FROM et WHERE c LIKE 'abc   ';
SELECT count(*), sum(id) FROM et WHERE c LIKE 'abc  %';
SELECT count(*), sum(id) FROM et WHERE c NOT LIKE 'ab%';
SELECT count(*), sum(id) FROM et WHERE c LIKE 'x_y%';
SELECT count(*), sum(id) FROM et WHERE c::text LIKE 'abc';
SELECT count(*), sum(id) FROM et WHERE c::text = 'abc';
SELECT count(*), sum(id) FROM et WHERE b LIKE 'x';
SELECT count(*), sum(id) FROM et WHERE b LIKE 'x%';
SELECT count(*), sum(id) FROM et WHERE b LIKE 'y_';
SELECT count(*), sum(id) FROM et WHERE b::text LIKE 'y';
SELECT count(*), sum(id) FROM et WHERE 'abc'::char(5) LIKE 'abc';
SELECT count(*), sum(id) FROM et WHERE like(t, 'w1%') AND notlike(t, '%0');
-- CASE: searched, simple, without ELSE; the branch not taken is not evaluated
SELECT sum(CASE WHEN n <> 0 THEN 1000 / n END), count(CASE WHEN n <> 0 THEN 1000 / n END) FROM et;
SELECT sum(CASE WHEN n = 0 THEN 0 ELSE 1000 / n END) FROM et;
SELECT count(*) FROM et WHERE CASE WHEN n = 0 THEN false ELSE 100 / n > 30 END;
SELECT sum(CASE n WHEN 1 THEN 10 WHEN 2 THEN 20 WHEN -1 THEN 100 / n END), count(*) FROM et;
SELECT sum(CASE n % 3 WHEN 0 THEN 1 WHEN 1 THEN 2 ELSE 3 END) FROM et;
SELECT sum(CASE WHEN t LIKE 'PROMO%' THEN f8 * 2 ELSE 0 END), sum(f8) FROM et;
SELECT 100.00 * sum(CASE WHEN t LIKE 'PROMO%' THEN f8 * (1 - n) ELSE 0 END) / sum(f8 * (1 - n)) FROM et;
SELECT sum(CASE WHEN n > 0 THEN CASE WHEN n > 2 THEN n * 100 ELSE n END ELSE -1 END) FROM et;
SELECT sum(CASE CASE WHEN n > 0 THEN 1 ELSE 0 END WHEN 1 THEN n END) FROM et;
SELECT count(*) FROM et WHERE CASE c WHEN 'abc' THEN true WHEN 'ab' THEN n > 0 END;
SELECT count(*) FROM et WHERE CASE WHEN t IS NULL THEN 'null' WHEN t LIKE 'w%' THEN 'w' ELSE t END = 'w';
SELECT count(*), sum(CASE WHEN f8 > 100 THEN f8 END) FROM et WHERE CASE WHEN n IS NULL THEN true END;
-- COALESCE and NULLIF
SELECT sum(COALESCE(n, 1000)), count(COALESCE(n, NULL)), sum(COALESCE(NULLIF(n, 0), 500)) FROM et;
SELECT sum(100 / NULLIF(n, 0)), count(NULLIF(n, 1)) FROM et;
SELECT count(*) FROM et WHERE COALESCE(t, v, 'none') LIKE 'v%';
SELECT count(*) FROM et WHERE NULLIF(t, 'MED BAG') IS NULL;
SELECT count(*) FROM et WHERE COALESCE(n, 100 / n) > 2;
-- substring, substr, left: characters, not bytes
SELECT count(*), sum(id) FROM et WHERE substring(t from 1 for 2) IN ('w1', 'PR', '日本', 'aä');
SELECT count(*), sum(id) FROM et WHERE substring(t from 2 for 1) = 'ä';
SELECT count(*), sum(id) FROM et WHERE substring(t from 2 for 2) = '本語';
SELECT count(*), sum(id) FROM et WHERE substr(t, 0, 3) = 'w1';
SELECT count(*), sum(id) FROM et WHERE substr(t, -5, 3) = '';
SELECT count(*), sum(id) FROM et WHERE substring(t from 3) = 'een metallic 1';
SELECT count(*), sum(id) FROM et WHERE substr(t, 2) LIKE 'ROMO%';
SELECT count(*), sum(id) FROM et WHERE substring(t from 2 for 2147483647) = 'b';
SELECT count(*), sum(id) FROM et WHERE substring(t from 100 for 2) = '';
SELECT count(*), sum(id) FROM et WHERE left(t, 2) = 'ab' OR left(v, 0) <> '';
SELECT count(*), sum(id) FROM et WHERE substring(c from 1 for 3) = 'abc';
SELECT count(*), sum(id) FROM et WHERE substring(c from 4) = '';
SELECT count(*), sum(id) FROM et WHERE substring(c from 2 for 2) = 'äy';
SELECT count(*), sum(id) FROM et WHERE substring(v from 2 for 2) LIKE '_ä';
-- GROUP BY keys: substrings, CASE; aggregate inputs with LIKE
SELECT * FROM (SELECT substring(t from 1 for 2) AS p, count(*), sum(f8) FROM et GROUP BY 1) s
  ORDER BY p COLLATE "C";
SELECT * FROM (SELECT substr(c, 2, 2) AS p, left(v, 2) AS q, count(*) FROM et GROUP BY 1, 2) s
  ORDER BY p COLLATE "C", q COLLATE "C";
SELECT * FROM (SELECT c::text AS ct, count(*), sum(n) FROM et GROUP BY 1) s ORDER BY ct COLLATE "C";
SELECT CASE WHEN n < 0 THEN 1 WHEN n > 0 THEN 2 END AS s, count(*), sum(n) FROM et GROUP BY 1 ORDER BY 1;
SELECT CASE WHEN t LIKE '%green%' THEN 1 WHEN t LIKE 'PROMO%' THEN 2 ELSE 0 END AS k,
  sum(CASE WHEN v LIKE '%ä%' THEN 1 ELSE 0 END), count(*) FROM et GROUP BY 1 ORDER BY 1;
SELECT * FROM (SELECT substring(t from 1 for 1) AS p, sum(CASE WHEN n <> 0 THEN 12 / n ELSE 0 END)
  FROM et WHERE t NOT LIKE '%green%' GROUP BY 1) s ORDER BY p COLLATE "C";
