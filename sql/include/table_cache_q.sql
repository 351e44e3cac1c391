SELECT count(*), sum(id), avg(f8), min(w), max(w) FROM tc_t;
SELECT count(*), sum(id) FROM tc_t WHERE g < 5;
SELECT g, count(*), sum(id), avg(f8) FROM tc_t GROUP BY g ORDER BY g;
SELECT count(*), sum(id) FROM tc_t WHERE w = ANY (ARRAY(SELECT md5(i::text) FROM generate_series(1, 40) i));
SELECT count(*), sum(id) FROM tc_t WHERE w IN (SELECT k FROM tc_k);
SELECT count(*), sum(id) FROM tc_t WHERE NOT EXISTS (SELECT 1 FROM tc_k WHERE k = w);
SELECT id, f8, ctid FROM tc_t WHERE g = 3 ORDER BY f8 DESC, id LIMIT 5;
SELECT id, w FROM tc_t WHERE w IN (SELECT k FROM tc_k) ORDER BY id LIMIT 5;
