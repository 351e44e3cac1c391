-- every key type through a join, both directions, both NULL placements (checksums
-- of the whole order by a total key, then rows to read)
SELECT md5(string_agg(id::text, ',')) FROM (SELECT sa.id FROM sa JOIN sb USING (g) ORDER BY sb.f DESC, sa.t, sa.id) x;
SELECT md5(string_agg(id::text, ',')) FROM (SELECT sa.id FROM sa LEFT JOIN sb USING (g) ORDER BY sb.name NULLS FIRST, sa.n DESC, sa.id) x;
SELECT md5(string_agg(id::text, ',')) FROM (SELECT sa.id FROM sa JOIN sb USING (g) ORDER BY sb.c DESC, sa.f4, sa.id DESC) x;
SELECT md5(string_agg(id::text, ',')) FROM (SELECT sa.id FROM sa JOIN sb USING (g) ORDER BY sa.ok NULLS FIRST, sa.d DESC, sa.s, sa.id) x;
SELECT md5(string_agg(id::text, ',')) FROM (SELECT sa.id FROM sa JOIN sb USING (g) ORDER BY sa.ts DESC, sa.f4 DESC NULLS LAST, sa.id) x;
SELECT md5(string_agg(id::text, ',')) FROM (SELECT sa.id, sa.id % 7 * sb.g AS x FROM sa JOIN sb USING (g) ORDER BY x, sa.id DESC) x;
SELECT md5(string_agg(id::text, ',')) FROM (SELECT id FROM (SELECT id, t FROM sa UNION ALL SELECT g, name FROM sb) u ORDER BY t, id) x;
SELECT md5(string_agg(id::text, ',')) FROM (SELECT id FROM sp ORDER BY v, id) x;
SELECT md5(string_agg(id::text, ',')) FROM (SELECT id FROM sp WHERE k < 700 ORDER BY k DESC, id) x;
SELECT sa.id, sb.name, sa.n FROM sa LEFT JOIN sb USING (g) ORDER BY sb.name NULLS FIRST, sa.n DESC NULLS LAST, sa.id LIMIT 5;
SELECT sa.id, sb.f, sa.f4 FROM sa JOIN sb USING (g) ORDER BY sb.f DESC NULLS LAST, sa.f4, sa.id LIMIT 4 OFFSET 10;
SELECT sa.g, sb.c FROM sa JOIN sb USING (g) WHERE sa.id < 400 ORDER BY sb.c, sa.g FETCH FIRST 3 ROWS WITH TIES;
-- a sort inside a correlated subquery runs again for every outer row
SELECT sb.g, (SELECT x.id FROM (SELECT sa.id FROM sa JOIN sb s2 ON s2.g = sa.g
                                WHERE sa.g = sb.g ORDER BY sa.t DESC NULLS LAST, sa.id LIMIT 1) x) AS top
  FROM sb WHERE sb.g < 5 ORDER BY sb.g;
-- ... with the parameter on the hashed side of its join (the hash table is rebuilt)
SELECT sb.g, (SELECT string_agg(x.id::text, ',') FROM (SELECT sa.id FROM sa JOIN sb s2 ON s2.g = sa.g
                WHERE s2.c = sb.c ORDER BY sa.t DESC NULLS LAST, sa.id LIMIT 3) x) AS top
  FROM sb WHERE sb.g < 6 ORDER BY sb.g;
-- a scroll cursor reads backward
BEGIN;
DECLARE cur SCROLL CURSOR FOR SELECT sa.id, sa.n FROM sa JOIN sb USING (g) ORDER BY sa.n, sa.id;
FETCH 2 FROM cur;
FETCH LAST FROM cur;
FETCH BACKWARD 2 FROM cur;
COMMIT;
