--
-- A cancel or statement_timeout ends a GPU query soon, in every node, whatever
-- it is doing, and leaves the session usable (README's promise; issue 30, item
-- 5): a GpuSort top-N, a full GpuSort, a GpuAgg and a GpuSemiJoin over a table
-- that takes each of them a second or more emulated, each timed out 200 ms in
-- (while it reads pages) and halfway through its own run (a sort then sorts:
-- the emulation's one std::stable_sort of a run took seconds without a pause).
-- Each must end within 800 ms of its timeout on a loaded machine (it takes
-- milliseconds), and then answer as PostgreSQL does.  Only booleans are
-- printed.  Without a GPU and emulation, PostgreSQL's own plans run and are
-- timed out the same way.  On a GPU the queries take milliseconds and end
-- before their timeouts: scripts/faults.py times out larger ones there.
--
SET max_parallel_workers_per_gather = 0;
CREATE UNLOGGED TABLE cx_t AS
  SELECT i AS id, i % 1000 AS g, ((i::int8 * 7919) % 1000003)::float8 AS f8
  FROM generate_series(1, 3000000) i;
CREATE TABLE cx_dim AS SELECT i AS g FROM generate_series(0, 999, 3) i;
ANALYZE cx_t, cx_dim;

-- half a query's own time, in ms (at least 100)
CREATE FUNCTION cx_half_ms(q text) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
  t0 timestamptz := clock_timestamp();
BEGIN
  EXECUTE q;
  RETURN greatest(100, (extract(epoch FROM clock_timestamp() - t0) * 500)::int);
END $$;
-- whether q ended within bound_ms of its timeout_ms: cancelled, or (on a GPU,
-- where each query takes milliseconds) finished before its timeout came
CREATE FUNCTION cx_cancelled(q text, timeout_ms int, bound_ms int) RETURNS bool
LANGUAGE plpgsql AS $$
DECLARE
  t0 timestamptz := clock_timestamp();
BEGIN
  EXECUTE q;
  RETURN clock_timestamp() - t0 < make_interval(secs => timeout_ms / 1000.0);
EXCEPTION WHEN query_canceled THEN
  RETURN clock_timestamp() - t0 < make_interval(secs => (timeout_ms + bound_ms) / 1000.0);
END $$;

SET pg_gpu.force = on;
EXPLAIN (COSTS OFF) SELECT id FROM cx_t ORDER BY f8 DESC, id LIMIT 3;
EXPLAIN (COSTS OFF) SELECT id, f8 FROM cx_t ORDER BY f8, id OFFSET 2999999;
EXPLAIN (COSTS OFF) SELECT g, count(*), sum(f8), min(id) FROM cx_t GROUP BY g ORDER BY g LIMIT 2;
EXPLAIN (COSTS OFF) SELECT count(*), sum(id) FROM (SELECT id FROM cx_t WHERE g IN (SELECT g FROM cx_dim) OFFSET 0) s;

-- GpuSort, top-N
SELECT cx_half_ms($$SELECT id FROM cx_t ORDER BY f8 DESC, id LIMIT 3$$) AS half \gset
SET statement_timeout = 200;
SELECT cx_cancelled($$SELECT id FROM cx_t ORDER BY f8 DESC, id LIMIT 3$$, 200, 800) AS "top-N, 200 ms";
SET statement_timeout = :half;
SELECT cx_cancelled($$SELECT id FROM cx_t ORDER BY f8 DESC, id LIMIT 3$$, :half, 800) AS "top-N, halfway";
RESET statement_timeout;
SELECT id FROM cx_t ORDER BY f8 DESC, id LIMIT 3;

-- GpuSort, every row
SELECT cx_half_ms($$SELECT id, f8 FROM cx_t ORDER BY f8, id OFFSET 2999999$$) AS half \gset
SET statement_timeout = 200;
SELECT cx_cancelled($$SELECT id, f8 FROM cx_t ORDER BY f8, id OFFSET 2999999$$, 200, 800) AS "sort, 200 ms";
SET statement_timeout = :half;
SELECT cx_cancelled($$SELECT id, f8 FROM cx_t ORDER BY f8, id OFFSET 2999999$$, :half, 800) AS "sort, halfway";
RESET statement_timeout;
SELECT id, f8 FROM cx_t ORDER BY f8, id OFFSET 2999999;

-- GpuAgg
SELECT cx_half_ms($$SELECT g, count(*), sum(f8), min(id) FROM cx_t GROUP BY g ORDER BY g LIMIT 2$$) AS half \gset
SET statement_timeout = 200;
SELECT cx_cancelled($$SELECT g, count(*), sum(f8), min(id) FROM cx_t GROUP BY g ORDER BY g LIMIT 2$$, 200, 800) AS "agg, 200 ms";
SET statement_timeout = :half;
SELECT cx_cancelled($$SELECT g, count(*), sum(f8), min(id) FROM cx_t GROUP BY g ORDER BY g LIMIT 2$$, :half, 800) AS "agg, halfway";
RESET statement_timeout;
SELECT g, count(*), sum(f8), min(id) FROM cx_t GROUP BY g ORDER BY g LIMIT 2;

-- GpuSemiJoin
SELECT cx_half_ms($$SELECT count(*), sum(id) FROM (SELECT id FROM cx_t WHERE g IN (SELECT g FROM cx_dim) OFFSET 0) s$$) AS half \gset
SET statement_timeout = 200;
SELECT cx_cancelled($$SELECT count(*), sum(id) FROM (SELECT id FROM cx_t WHERE g IN (SELECT g FROM cx_dim) OFFSET 0) s$$, 200, 800) AS "semi-join, 200 ms";
SET statement_timeout = :half;
SELECT cx_cancelled($$SELECT count(*), sum(id) FROM (SELECT id FROM cx_t WHERE g IN (SELECT g FROM cx_dim) OFFSET 0) s$$, :half, 800) AS "semi-join, halfway";
RESET statement_timeout;
SELECT count(*), sum(id) FROM (SELECT id FROM cx_t WHERE g IN (SELECT g FROM cx_dim) OFFSET 0) s;

RESET pg_gpu.force;
DROP FUNCTION cx_half_ms(text), cx_cancelled(text, int, int);
DROP TABLE cx_t, cx_dim;
