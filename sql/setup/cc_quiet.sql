-- VACUUM marks a page all-visible only when no snapshot older than its rows exists:
-- before each VACUUM, wait (at most a minute) until no other session (an autovacuum
-- ANALYZE of a table just filled, say) holds a snapshot from before now
CREATE FUNCTION cc_quiet() RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  x xid := (pg_snapshot_xmin(pg_current_snapshot())::text::int8 % 4294967296)::text::xid;
BEGIN
  FOR i IN 1 .. 600 LOOP
    EXIT WHEN NOT EXISTS (SELECT 1 FROM pg_stat_activity
                          WHERE pid <> pg_backend_pid() AND backend_xmin IS NOT NULL
                            AND age(backend_xmin) > age(x));
    PERFORM pg_sleep(0.1);
  END LOOP;
END $$;
