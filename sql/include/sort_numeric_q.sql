-- numeric keys in both directions with both NULL placements (checksums of the
-- whole order by a total key, then rows to read)
SELECT md5(string_agg(id::text, ',')) FROM (SELECT id FROM nx ORDER BY n, id) x;
SELECT md5(string_agg(id::text, ',')) FROM (SELECT id FROM nx ORDER BY n DESC, id) x;
SELECT md5(string_agg(id::text, ',')) FROM (SELECT id FROM nx ORDER BY n NULLS FIRST, id DESC) x;
SELECT md5(string_agg(id::text, ',')) FROM (SELECT id FROM nx ORDER BY n DESC NULLS LAST, id) x;
SELECT md5(string_agg(id::text, ',')) FROM (SELECT id FROM nx ORDER BY m, n DESC, id) x;
SELECT md5(string_agg(id::text, ',')) FROM (SELECT id FROM nx ORDER BY i DESC, m NULLS FIRST, id) x;
SELECT md5(string_agg(id::text, ',')) FROM (SELECT id FROM nx WHERE i = 3 ORDER BY m DESC, id) x;
SELECT id, left(n::text, 24) AS n FROM nx WHERE id < 0 ORDER BY n, id;
SELECT id, left(n::text, 24) AS n FROM nx WHERE id < 0 ORDER BY n DESC NULLS LAST, id;
SELECT id, m FROM nx ORDER BY m NULLS FIRST, id LIMIT 8;
SELECT id, n FROM nx ORDER BY n DESC, id LIMIT 5 OFFSET 20;
SELECT id, m, n FROM nx WHERE i = 1 ORDER BY m DESC, n, id LIMIT 6;
SELECT md5(string_agg(id::text, ',')) FROM (SELECT id FROM nx WHERE id > 0 ORDER BY n DESC, id) x;
