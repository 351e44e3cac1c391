--
-- Cursors over GPU plans (issue 18, items 2 and 3): a cursor over a sorted query
-- fetches backward without SCROLL, as over PostgreSQL's Sort (GpuSort keeps its
-- rows for it); WHERE CURRENT OF over a GPU node says what it says over
-- PostgreSQL's Sort, Hash Join or Agg.
--
SET extra_float_digits = 0;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE cur_a AS SELECT i AS x, i % 10 AS y, 'r' || i AS t FROM generate_series(1, 20000) i;
CREATE TABLE cur_b AS SELECT i AS y FROM generate_series(1, 5) i;
ANALYZE cur_a, cur_b;

SET pg_gpu.enabled = off;
\i sql/include/sort_cursor_q.sql
SET pg_gpu.enabled = on;
SET pg_gpu.force = on;
\i sql/include/sort_cursor_q.sql

EXPLAIN (COSTS OFF) DECLARE c CURSOR FOR SELECT * FROM cur_a ORDER BY x;
EXPLAIN (COSTS OFF) DECLARE c CURSOR FOR SELECT cur_a.x FROM cur_a WHERE y IN (SELECT y FROM cur_b);
RESET pg_gpu.force;
RESET pg_gpu.enabled;
DROP TABLE cur_a, cur_b;
