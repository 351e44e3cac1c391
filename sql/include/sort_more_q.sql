-- text, varchar, bpchar and bool keys in both directions with both NULL
-- placements (checksums of the whole order by a total key, then the first rows)
SELECT md5(string_agg(id::text, ',')) FROM (SELECT id FROM sx ORDER BY t, id) x;
SELECT md5(string_agg(id::text, ',')) FROM (SELECT id FROM sx ORDER BY t DESC NULLS LAST, id) x;
SELECT md5(string_agg(id::text, ',')) FROM (SELECT id FROM sx ORDER BY v, id DESC) x;
SELECT md5(string_agg(id::text, ',')) FROM (SELECT id FROM sx ORDER BY v DESC, id) x;
SELECT md5(string_agg(id::text, ',')) FROM (SELECT id FROM sx ORDER BY b, id) x;
SELECT md5(string_agg(id::text, ',')) FROM (SELECT id FROM sx ORDER BY b DESC NULLS FIRST, id) x;
SELECT md5(string_agg(id::text, ',')) FROM (SELECT id FROM sx ORDER BY ok, t DESC, id) x;
SELECT md5(string_agg(id::text, ',')) FROM (SELECT id FROM sx ORDER BY ok DESC NULLS LAST, f8, id) x;
SELECT md5(string_agg(id::text, ',')) FROM (SELECT id FROM sx ORDER BY b, v DESC, id) x;
SELECT md5(string_agg(id::text, ',')) FROM (SELECT id FROM sx WHERE f8 > 0 ORDER BY f8 DESC, id) x;
SELECT id, t, v FROM sx ORDER BY t NULLS FIRST, id LIMIT 5;
SELECT id, v, length(v) FROM sx ORDER BY v, id LIMIT 6;
SELECT id, v FROM sx ORDER BY v DESC, id LIMIT 3 OFFSET 100;
SELECT id, '[' || b || ']' AS b, octet_length(b) FROM sx WHERE id < 12 ORDER BY b, id;
SELECT id, ok FROM sx WHERE id < 8 ORDER BY ok NULLS FIRST, id;
SELECT id, ok, t FROM sx ORDER BY ok, t DESC, id LIMIT 7 OFFSET 3;
SELECT id, f8 FROM sx ORDER BY f8 DESC, id LIMIT 10;
SELECT count(*), sum(id) FROM (SELECT id FROM sx ORDER BY t, id) x;
SELECT ctid, id FROM sx WHERE id % 1000 = 7 ORDER BY t DESC, id LIMIT 4;
