SELECT sum(v), avg(v), count(v) FROM nm_back;
SELECT k % 3 AS r, sum(v) FROM nm_back GROUP BY k % 3 ORDER BY r;
SELECT sum(w), max(w) FROM nm_back;
SELECT sum(v), avg(v) FROM nm_wide;
SELECT sum(w), avg(w) FROM nm_wide;
SELECT sum(w * w) FROM nm_wide WHERE k > 0;
SELECT min(x), max(x), sum(x) FROM nm_wide;
SELECT sum(v) FROM nm_wide WHERE k < 0;
SELECT sum(s20 + s4), sum(s20 - qty) FROM nm;
