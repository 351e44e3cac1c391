-- text, varchar and bpchar keys, NULL keys forming their own group
SELECT left(t, 12) AS t12, octet_length(t), count(*), sum(f8), min(id), max(id) FROM tx GROUP BY t ORDER BY t COLLATE "C";
SELECT v, count(*), avg(f8) FROM tx GROUP BY v ORDER BY v COLLATE "C";
SELECT c, octet_length(c), count(*), sum(id) FROM tx GROUP BY c ORDER BY c COLLATE "C";
SELECT b::text, count(*), sum(id) FROM tx GROUP BY b ORDER BY b::text COLLATE "C";
SELECT v, c, count(*), sum(f8) FROM tx GROUP BY v, c ORDER BY v COLLATE "C", c COLLATE "C";
SELECT t, id % 2 AS odd, count(*) FROM tx WHERE id > 29000 GROUP BY t, 2 ORDER BY t COLLATE "C", 2;
SELECT octet_length(t), count(*) FROM tx WHERE id > 30000 GROUP BY t ORDER BY 1, 2;
-- 100,000 groups of md5 keys
SELECT count(*), sum(c), sum(s), min(w), max(w) FROM (SELECT w, count(*) AS c, sum(n) AS s FROM tx_md5 GROUP BY w) x;
SELECT w, count(*), sum(n) FROM tx_md5 GROUP BY w ORDER BY 3 DESC, 1 LIMIT 3;
-- = <> IN NOT IN on text, varchar and bpchar
SELECT count(*), sum(id) FROM tx WHERE t = 'w7';
SELECT count(*), sum(id) FROM tx WHERE t <> 'w7';
SELECT count(*), sum(id) FROM tx WHERE t = '';
SELECT count(*), sum(id) FROM tx WHERE t = 'a' OR t = 'a ';
SELECT count(*), sum(id) FROM tx WHERE v = 'v1' AND t IN ('w1', 'w2', 'w3');
SELECT count(*), sum(id) FROM tx WHERE v NOT IN ('v1', 'v2');
SELECT count(*), sum(id) FROM tx WHERE v NOT IN ('v1', NULL);
SELECT count(*), sum(id) FROM tx WHERE c = '1';
SELECT count(*), sum(id) FROM tx WHERE c = 'a   ';
SELECT count(*), sum(id) FROM tx WHERE b = 'x';
SELECT count(*), sum(id) FROM tx WHERE b IN ('y', 'a');
SELECT count(*), sum(id) FROM tx WHERE t = '日本語' OR v = 'ä';
SELECT count(*), sum(id) FROM tx WHERE t = repeat('long', 300);
SELECT count(*), sum(id) FROM tx WHERE t IS NULL OR v IS NULL;
SELECT count(*) FROM tx WHERE t = 'no such value';
-- ordering comparisons under "C"
SELECT count(*), sum(id) FROM tx WHERE t < 'w3' COLLATE "C";
SELECT count(*), sum(id) FROM tx WHERE t >= 'w45' COLLATE "C" AND t <= 'w5' COLLATE "C";
SELECT count(*), sum(id) FROM tx WHERE t COLLATE "C" BETWEEN 'a' AND 'w1';
SELECT count(*), sum(id) FROM tx WHERE c > '2' COLLATE "C";
-- text filters with text keys
SELECT t, count(*) FROM tx WHERE v = 'v0' AND t IN ('w0', 'w3', 'w6') GROUP BY t ORDER BY t COLLATE "C";
-- count of a text column reads only its NULL-ness
SELECT count(t), count(*) FROM tx_toast;
SELECT count(t), count(*) FROM tx_ext;
-- compressed and out-of-line values
SELECT t, count(*) FROM tx_ext GROUP BY t ORDER BY t LIMIT 3;
SELECT count(*) FROM tx_toast WHERE t = 'k1';
