--
-- Join keys from the nullable side of an outer join (PlaceHolderVars, issue 18,
-- item 4): no GPU key set is built on them (planning failed with "unrecognized
-- node type"); PostgreSQL's join runs.
--
SET max_parallel_workers_per_gather = 0;
CREATE TABLE ph_a AS SELECT i AS x FROM generate_series(1, 5000) i;
CREATE TABLE ph_b AS SELECT i AS y FROM generate_series(1, 5) i;
ANALYZE ph_a, ph_b;

SET pg_gpu.enabled = off;
\i sql/include/join_placeholder_q.sql
SET pg_gpu.enabled = on;
SET pg_gpu.force = on;
\i sql/include/join_placeholder_q.sql

RESET pg_gpu.force;
RESET pg_gpu.enabled;
DROP TABLE ph_a, ph_b;
