--
-- HAVING tested on the GPU (issue 31, TPC-H Q18: 15 million groups, 624 pass
-- HAVING sum(l_quantity) > 300): GpuAgg hands back only the groups that may
-- pass the terms it can test on a finished group: count(*), count(x) and sum(x)
-- of integer and numeric inputs compared with a constant (docs/SEMANTICS.md 31).
-- PostgreSQL's evaluation of the whole HAVING still runs on every group that
-- comes back.  NULL sums, constants the column's scale cannot hold, NaN, OR,
-- untested aggregates beside tested ones, float inputs (no pre-filter).
--
SET extra_float_digits = 0;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE hv (g int4, t text, a numeric(12,2), b int4, c int8, s int2, d numeric, f float8);
INSERT INTO hv SELECT CASE WHEN i % 3 = 0 THEN i % 50 ELSE i % 200 END, (ARRAY['x', 'y', 'zz'])[i % 3 + 1],
  CASE WHEN (CASE WHEN i % 3 = 0 THEN i % 50 ELSE i % 200 END) IN (57, 77, 147) THEN NULL
       WHEN i % 67 = 0 THEN NULL ELSE ((i::int8 * 7919) % 20000 - 10000) / 100.0 + (i % 200 - 100) END,
  (i * 13) % 700 - 30, (i::int8 * 104729) % 100000000000 - 2000000000, (i % 60)::int2,
  CASE i % 3 WHEN 0 THEN round(i / 7.0, 3) WHEN 1 THEN NULL ELSE round(-i / 9.0, 1) END / 100,
  i / 3.0
  FROM generate_series(1, 20000) i;
VACUUM ANALYZE hv;
CREATE FUNCTION hv_check(bigint) RETURNS bool LANGUAGE plpgsql COST 1 AS
$$BEGIN IF $1 < 70 THEN RAISE EXCEPTION 'a small group'; END IF; RETURN true; END$$;

SET pg_gpu.enabled = off;
\i sql/include/agg_having_q.sql
SET pg_gpu.enabled = on;
SET pg_gpu.force = on;
\i sql/include/agg_having_q.sql

-- the plans: which terms the GPU tests
EXPLAIN (COSTS OFF) SELECT g, sum(a) FROM hv GROUP BY g HAVING sum(a) >= -7000 AND count(*) > 96;
EXPLAIN (COSTS OFF) SELECT g, sum(a) FROM hv GROUP BY g HAVING sum(a) < -2999.995;
EXPLAIN (COSTS OFF) SELECT g, max(a) FROM hv GROUP BY g HAVING max(a) > 99.5 AND sum(a) > 0;
EXPLAIN (COSTS OFF) SELECT g, sum(f) FROM hv GROUP BY g HAVING sum(a) > 1000;
EXPLAIN (COSTS OFF) SELECT g FROM hv GROUP BY g HAVING hv_check(count(*)) AND count(*) > 150;

RESET pg_gpu.force;
RESET pg_gpu.enabled;
DROP TABLE hv;
DROP FUNCTION hv_check(bigint);
