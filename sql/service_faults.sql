--
-- Faults in the GPU service (issue 21): a CUDA error, and the service's thread
-- out of host memory, fail that task only; an error the service cannot recover
-- from, and a task that never finishes (the watchdog, pg_gpu.service_timeout),
-- restart the service.  Each time the queries in flight run on PostgreSQL's
-- plan and give its answers, the session goes on, and the service (restarted or
-- not) runs the next tasks.
--
SET max_parallel_workers_per_gather = 0;
SET pg_gpu.table_cache_size = 0;
-- VACUUM marks a page all-visible (so cacheable) only once its inserts' commits
-- are flushed (the GPU host runs synchronous_commit = off)
SET synchronous_commit = on;
CREATE TABLE svf (g int4, y int8);
INSERT INTO svf SELECT i % 100, i FROM generate_series(1, 100000) i;
\i sql/setup/cc_quiet.sql
SELECT cc_quiet();
VACUUM ANALYZE svf;
-- wait (up to 30 s) until the service runs again, after n restarts in all
CREATE FUNCTION svf_ready(n int) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  s record;
BEGIN
  FOR i IN 1 .. 300 LOOP
    SELECT * INTO s FROM pg_gpu_service();
    IF s.state = 'ready' AND s.restarts - (SELECT r FROM svf_base) >= n THEN
      RETURN 'ready after ' || n || ' restarts';
    END IF;
    PERFORM pg_sleep(0.1);
  END LOOP;
  RETURN 'not ready: ' || s::text;
END $$;
CREATE TABLE svf_base AS SELECT restarts AS r, tasks AS t FROM pg_gpu_service();

SET pg_gpu.enabled = off;
\i sql/include/service_faults_q.sql
SET pg_gpu.enabled = on;
SET pg_gpu.force = on;
SET pg_gpu.emulate_gpu = on;
-- a CUDA error in the service's task
SET pg_gpu.debug_service_fault = 'error';
\i sql/include/service_faults_q.sql
SELECT svf_ready(0);
-- the service out of host memory: std::bad_alloc thrown in its thread, in the
-- task's column cache fill.  The thread's catch fails that task only: the query
-- runs on PostgreSQL's plan, counted as such, and the same process goes on
-- serving (no restart), its cache usable (the fill's room given back, its lock
-- free), its channels free
CREATE TABLE svf_oom AS
  SELECT (SELECT pid FROM pg_gpu_service()) AS pid,
         (SELECT coalesce(sum(count), 0) FROM pg_gpu_fallbacks
           WHERE reason = 'out of memory in the gpu service') AS fb;
SET pg_gpu.debug_service_fault = 'alloc';
\i sql/include/service_faults_q.sql
-- without the column cache: thrown as the chunk starts
SET pg_gpu.use_cache = off;
\i sql/include/service_faults_q.sql
RESET pg_gpu.use_cache;
SELECT s.pid = o.pid AS same_service, s.state, s.restarts - b.r AS restarts,
       s.channels_in_use,
       (SELECT sum(count) FROM pg_gpu_fallbacks
         WHERE reason = 'out of memory in the gpu service') - o.fb AS oom_fallbacks
  FROM pg_gpu_service() s, svf_oom o, svf_base b;
-- the next tasks run in the service, without a fallback, and fill its cache
RESET pg_gpu.debug_service_fault;
UPDATE svf_oom SET fb = (SELECT coalesce(sum(count), 0) FROM pg_gpu_fallbacks);
CREATE TABLE svf_tasks AS SELECT tasks AS t FROM pg_gpu_service();
\i sql/include/service_faults_q.sql
SELECT s.pid = o.pid AS same_service, s.tasks - t.t AS tasks,
       (SELECT sum(count) FROM pg_gpu_fallbacks) - o.fb AS fallbacks,
       (SELECT blocks > 0 FROM pg_gpu_cache WHERE "table" = 'svf'::regclass) AS cached
  FROM pg_gpu_service() s, svf_oom o, svf_tasks t;
DROP TABLE svf_oom, svf_tasks;
-- an error the service restarts for
SET pg_gpu.debug_service_fault = 'exit';
\i sql/include/service_faults_q.sql
SELECT svf_ready(1);
-- a task that never finishes: the watchdog restarts the service
SET pg_gpu.service_timeout = '300ms';
SET pg_gpu.debug_service_fault = 'hang';
\i sql/include/service_faults_q.sql
SELECT svf_ready(2);
-- no fault: the restarted service runs the tasks
RESET pg_gpu.debug_service_fault;
RESET pg_gpu.service_timeout;
\i sql/include/service_faults_q.sql
SELECT s.tasks > b.t AS ran, s.channels_in_use FROM pg_gpu_service() s, svf_base b;

RESET pg_gpu.emulate_gpu;
RESET pg_gpu.force;
RESET pg_gpu.enabled;
RESET pg_gpu.table_cache_size;
DROP TABLE svf, svf_base;
DROP FUNCTION svf_ready(int);
DROP FUNCTION cc_quiet();
