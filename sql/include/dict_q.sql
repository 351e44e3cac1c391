-- dictionary lookups; run with pg_gpu off and forced (dict.sql)
SELECT count(*), sum(pg_gpu_dict_lookup('dh', w)), sum(pg_gpu_dict_lookup('dt', w)), min(id), max(id)
  FROM dict_p WHERE pg_gpu_dict_contains('dh', w);
SELECT count(*) FROM dict_p WHERE pg_gpu_dict_contains('dt', w);
SELECT count(*) FROM dict_p WHERE w IN (SELECT k FROM dict_k);
SELECT count(*) FROM dict_p WHERE NOT pg_gpu_dict_contains('dt', w);
SELECT count(*) FROM dict_p WHERE pg_gpu_dict_contains('dh', w) IS NULL;
SELECT id % 5 AS g, count(*), count(pg_gpu_dict_lookup('dt', w)), sum(pg_gpu_dict_lookup('dh', w))
  FROM dict_p GROUP BY 1 ORDER BY 1;
SELECT count(*) FROM dict_p WHERE pg_gpu_dict_contains('dt', w) AND NOT pg_gpu_dict_contains('dh', w);
SELECT count(*), count(w) FROM dict_p WHERE pg_gpu_dict_contains('de', w) OR pg_gpu_dict_contains('det', w) IS NULL;
SELECT count(*) FROM dict_p WHERE pg_gpu_dict_contains('dc', w);
SELECT id, left(w, 8), pg_gpu_dict_lookup('dt', w) FROM dict_p
  WHERE pg_gpu_dict_contains('dt', w) AND id > 29990 ORDER BY id;
SELECT id FROM dict_p WHERE pg_gpu_dict_lookup('dt', w) BETWEEN 100 AND 103 ORDER BY w, id;
SELECT count(*), sum(id), sum(pg_gpu_dict_lookup('dt', w)) FROM dict_t WHERE pg_gpu_dict_contains('dh', w);
