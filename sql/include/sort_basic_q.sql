-- every key type, ascending and descending, NULLs last/first (checksums of the
-- whole order by a total key, then the first rows)
SELECT md5(string_agg(id::text, ',')) FROM (SELECT id FROM so ORDER BY i2, id) x;
SELECT md5(string_agg(id::text, ',')) FROM (SELECT id FROM so ORDER BY i4 DESC, id) x;
SELECT md5(string_agg(id::text, ',')) FROM (SELECT id FROM so ORDER BY i8 NULLS FIRST, id DESC) x;
SELECT md5(string_agg(id::text, ',')) FROM (SELECT id FROM so ORDER BY f4 DESC NULLS LAST, id) x;
SELECT md5(string_agg(id::text, ',')) FROM (SELECT id FROM so ORDER BY f8, id) x;
SELECT md5(string_agg(id::text, ',')) FROM (SELECT id FROM so ORDER BY d DESC, ts, tz DESC, id) x;
SELECT md5(string_agg(id::text, ',')) FROM (SELECT id FROM so ORDER BY i2 DESC NULLS LAST, f8 NULLS FIRST, id) x;
-- NaN above Infinity, -0 equal to 0, int8 extremes
SELECT id, f4, f8, i8 FROM so WHERE id > 40000 ORDER BY f8, id;
SELECT id, f4, f8, i8 FROM so WHERE id > 40000 ORDER BY f4 DESC, id;
SELECT id, i8 FROM so WHERE id > 40000 ORDER BY i8, id;
-- whole rows, projections, filters
SELECT * FROM so ORDER BY i4, id LIMIT 5;
SELECT id, i4 * 2 AS twice, t FROM so WHERE i2 = 1 AND f8 > 0 ORDER BY i4 DESC NULLS LAST, id LIMIT 7;
SELECT count(*), sum(id) FROM (SELECT id FROM so WHERE i4 BETWEEN -100 AND 100 ORDER BY f8, id) x;
SELECT id FROM so WHERE i4 > 100000 ORDER BY i4;
SELECT id FROM so_empty ORDER BY f8;
-- LIMIT, OFFSET, WITH TIES
SELECT id, f8 FROM so ORDER BY f8 DESC, id LIMIT 4 OFFSET 10;
SELECT id, i2 FROM so ORDER BY i2, id LIMIT 3 OFFSET 29990;
SELECT i2, count(*) FROM (SELECT i2 FROM so ORDER BY i2 FETCH FIRST 5 ROWS WITH TIES) x GROUP BY i2;
-- a scrollable cursor fetching backward
BEGIN;
DECLARE c SCROLL CURSOR FOR SELECT id, i8 FROM so ORDER BY i8, id;
FETCH 3 FROM c;
FETCH BACKWARD 2 FROM c;
FETCH ABSOLUTE 20000 FROM c;
FETCH LAST FROM c;
COMMIT;
