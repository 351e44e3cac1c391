--
-- dictionaries: named key sets for repeated lookups, as a hash table or a
-- LOUDS trie (issue 5)
--
SET extra_float_digits = 0;
SET max_parallel_workers_per_gather = 0;
-- keys: duplicates, NULLs, the empty string, keys that are prefixes of others,
-- multibyte UTF-8, an in-line key over 1 kB and a compressed (TOASTed) one
CREATE TABLE dict_k (id int4, k text);
INSERT INTO dict_k SELECT i, md5((i * 7)::text) FROM generate_series(1, 3000) i;
INSERT INTO dict_k SELECT 3000 + i, md5((i * 7)::text) FROM generate_series(1, 50) i;
INSERT INTO dict_k VALUES (4001, NULL), (4002, ''), (4003, 'app'), (4004, 'apple'), (4005, 'ap'),
  (4006, 'äöü'), (4007, '日本語'), (4008, repeat('long', 400)), (4009, repeat('abc', 20000)),
  (4010, NULL), (4011, 'app');
CREATE TABLE dict_c (c char(8));
INSERT INTO dict_c VALUES ('ab'), ('ab   '), ('app'), (NULL), ('日本');
-- probes: hits, misses, NULLs, near misses (prefixes, extensions), all in line
CREATE TABLE dict_p (id int4, w text);
ALTER TABLE dict_p ALTER COLUMN w SET STORAGE PLAIN;
INSERT INTO dict_p SELECT i,
  CASE WHEN i % 97 = 0 THEN NULL ELSE md5((i % 9000)::text) END
  FROM generate_series(1, 30000) i;
INSERT INTO dict_p VALUES (30001, ''), (30002, 'app'), (30003, 'appl'), (30004, 'apples'),
  (30005, 'äöü'), (30006, 'äö'), (30007, '日本語'), (30008, repeat('long', 400)),
  (30009, repeat('long', 400) || 'x'), (30010, 'ab'), (30011, 'ab '), (30012, '日本'),
  (30013, 'a'), (30014, 'ap');
-- a compressed probe value (the same 60 kB key): the CPU re-runs the query
CREATE TABLE dict_t (id int4, w text);
INSERT INTO dict_t SELECT i, md5((i * 7)::text) FROM generate_series(1, 500) i;
INSERT INTO dict_t VALUES (501, repeat('abc', 20000)), (502, repeat('abd', 20000));
VACUUM ANALYZE dict_k, dict_c, dict_p, dict_t;

SELECT pg_gpu_dict_create('dh', 'SELECT k FROM dict_k ORDER BY id');
SELECT pg_gpu_dict_create('dt', 'SELECT k FROM dict_k ORDER BY id', 'trie');
SELECT pg_gpu_dict_create('dc', 'SELECT c FROM dict_c', 'trie');
SELECT pg_gpu_dict_create('de', 'SELECT k FROM dict_k WHERE false');
SELECT pg_gpu_dict_create('det', 'SELECT k FROM dict_k WHERE false', 'trie');
CREATE DOMAIN dict_word AS varchar(20) CHECK (VALUE <> 'x');
SELECT pg_gpu_dict_create('d1', 'SELECT ''only''::dict_word', 'trie');
SELECT name, kind, keys, distinct_keys, trie_nodes IS NOT NULL AS trie, host_bytes > 0 AS bytes, query
  FROM pg_gpu_dict_list() ORDER BY name;

-- ordinals: the position among the query's non-NULL keys, the first of equals
SELECT left(k, 12) AS k, length(k), pg_gpu_dict_lookup('dh', k) AS hash, pg_gpu_dict_lookup('dt', k) AS trie
  FROM dict_k WHERE id > 4000 ORDER BY id;
SELECT count(*) AS wrong FROM
  (SELECT k, min(rn) AS o FROM
    (SELECT k, row_number() OVER (ORDER BY id) AS rn FROM dict_k WHERE k IS NOT NULL) x GROUP BY k) y
  WHERE pg_gpu_dict_lookup('dh', k) IS DISTINCT FROM o OR pg_gpu_dict_lookup('dt', k) IS DISTINCT FROM o;
SELECT c, pg_gpu_dict_contains('dc', c::text), pg_gpu_dict_lookup('dc', 'ab'),
  pg_gpu_dict_lookup('dc', 'ab '), pg_gpu_dict_contains('d1', 'only')
  FROM dict_c ORDER BY c;

SET pg_gpu.enabled = off;
\i sql/include/dict_q.sql
SET pg_gpu.enabled = on;
SET pg_gpu.force = on;
\i sql/include/dict_q.sql
SET pg_gpu.chunk_pages = 16;
\i sql/include/dict_q.sql
RESET pg_gpu.chunk_pages;

-- plans: the dictionary is a key set of the GpuAgg; a name that is not a
-- constant keeps PostgreSQL's plan
EXPLAIN (COSTS OFF) SELECT count(*), sum(pg_gpu_dict_lookup('dt', w)) FROM dict_p WHERE pg_gpu_dict_contains('dt', w);
EXPLAIN (COSTS OFF) SELECT count(*) FROM dict_p WHERE pg_gpu_dict_contains(CASE WHEN id > 0 THEN 'dt' END, w);
RESET pg_gpu.force;

-- a snapshot: later changes to the source do not reach it
INSERT INTO dict_k VALUES (5000, 'new key');
SELECT pg_gpu_dict_contains('dh', 'new key'), pg_gpu_dict_contains('dt', 'new key');

-- bad input
SELECT pg_gpu_dict_create('dh', 'SELECT k FROM dict_k');
SELECT pg_gpu_dict_create('bad', 'SELECT id FROM dict_k');
SELECT pg_gpu_dict_create('bad', 'SELECT k, id FROM dict_k');
SELECT pg_gpu_dict_create('bad', 'INSERT INTO dict_k VALUES (1, ''x'')');
SELECT pg_gpu_dict_create('bad', 'DELETE FROM dict_k WHERE id < 0 RETURNING k');
SELECT pg_gpu_dict_create('bad', 'WITH d AS (DELETE FROM dict_k WHERE id < 0 RETURNING k) SELECT k FROM d');
SELECT pg_gpu_dict_create('bad', 'SELECT k FROM dict_k FOR SHARE');
SELECT pg_gpu_dict_create('bad', 'SELECT k FROM no_such_table');
SELECT pg_gpu_dict_create('bad', 'SELECT k FROM dict_k', 'tree');
SELECT pg_gpu_dict_create(NULL, 'SELECT k FROM dict_k');
SELECT pg_gpu_dict_create('bad', NULL);
SELECT pg_gpu_dict_create('bad', 'SELECT k FROM dict_k', NULL);
SELECT pg_gpu_dict_create('', 'SELECT k FROM dict_k');
SELECT pg_gpu_dict_create(repeat('n', 64), 'SELECT k FROM dict_k');
SELECT pg_gpu_dict_contains('nope', 'a');
SELECT pg_gpu_dict_lookup(NULL, 'a');
SELECT pg_gpu_dict_contains('dh', NULL), pg_gpu_dict_lookup('dt', NULL);
SELECT pg_gpu_dict_drop('nope');
SELECT pg_gpu_dict_drop(NULL);
SET pg_gpu.force = on;
SELECT count(*) FROM dict_p WHERE pg_gpu_dict_contains(repeat('d', 70), w);
RESET pg_gpu.force;
SELECT count(*) FROM pg_gpu_dict_list() WHERE name = 'bad';

-- drop; dictionaries belong to their session
SELECT pg_gpu_dict_drop('dh');
SELECT pg_gpu_dict_contains('dh', 'app');
SELECT pg_gpu_dict_create('dh', 'SELECT ''app''', 'hash');
SELECT pg_gpu_dict_lookup('dh', 'app');
\c
SELECT pg_gpu_dict_contains('dt', 'app');
SELECT count(*) FROM pg_gpu_dict_list();
