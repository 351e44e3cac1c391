-- what the GPU did (where there is none, the fallback to PostgreSQL is all there is
-- to see): sorted, sorted in merged runs, or gave the sort back for a reason
CREATE FUNCTION gpusort_did(q text, want text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  p json;
BEGIN
  EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, FORMAT JSON) ' || q INTO p;
  p := p -> 0 -> 'Plan';
  WHILE p IS NOT NULL AND coalesce(p ->> 'Custom Plan Provider', '') <> 'GpuSort' LOOP
    p := p -> 'Plans' -> 0;
  END LOOP;
  IF p IS NULL THEN
    RETURN 'no GpuSort';
  ELSIF p ->> 'Fallback' IN ('no gpu', 'not compiled') THEN
    RETURN 'ok';
  ELSIF want = 'runs' AND p ->> 'Fallback' IS NULL AND (p ->> 'Sorted Runs Merged')::int > 1 THEN
    RETURN 'ok';
  ELSIF want = 'gpu' AND p ->> 'Fallback' IS NULL AND p ->> 'Sorted Runs Merged' IS NULL THEN
    RETURN 'ok';
  -- a LIMIT's top-N selection (the emulation sorts everything, then cuts)
  ELSIF want = 'topn' AND p ->> 'Fallback' IS NULL AND
        (p ->> 'Top-N Rows Kept' IS NOT NULL OR p ->> 'Page Access' = 'emulated on the CPU') THEN
    RETURN 'ok';
  ELSIF p ->> 'Fallback' = want THEN
    RETURN 'ok';
  END IF;
  RETURN coalesce(p ->> 'Fallback', 'runs: ' || coalesce(p ->> 'Sorted Runs Merged', 'none'));
END $$;
