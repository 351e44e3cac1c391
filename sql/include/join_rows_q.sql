-- GpuHashJoin whose build side's rows are read by a rows task (join_rows.sql)
-- unique build keys: int8, date, int
SELECT p.id, b.i8, b.d, b.k FROM jr_p p JOIN jr_b b ON p.k = b.k WHERE p.id % 97 = 0 ORDER BY p.id;
SELECT count(*), sum(b.i8), min(b.d), max(b.d) FROM jr_p p JOIN jr_b b ON p.k = b.k;
-- char(n), text, varchar
SELECT p.id, b.c, b.t, b.v FROM jr_p p JOIN jr_b b ON p.k = b.k WHERE p.id % 89 = 0 ORDER BY p.id;
SELECT b.c, count(*), string_agg(DISTINCT b.t, ',' ORDER BY b.t) FROM jr_p p JOIN jr_b b ON p.k = b.k
  GROUP BY b.c ORDER BY b.c;
-- numeric(15,2): the plan's rows
SELECT p.id, b.n, b.c FROM jr_p p JOIN jr_b b ON p.k = b.k WHERE p.id % 97 = 0 ORDER BY p.id;
-- repeated keys, and whole rows repeated: each one pairs
SELECT p.id, d.x, d.c FROM jr_p p JOIN jr_d d ON p.k = d.k WHERE p.id % 53 = 0 ORDER BY p.id, d.x, d.c;
SELECT d.k, d.x, d.c, count(*) FROM jr_p p JOIN jr_d d ON p.k = d.k GROUP BY 1, 2, 3 ORDER BY 1, 2, 3 LIMIT 30;
SELECT count(*), sum(d.x), count(d.c), count(DISTINCT d.c) FROM jr_p p JOIN jr_d d ON p.k = d.k;
-- filters on the build side
SELECT count(*), sum(d.x), string_agg(DISTINCT d.c, ',' ORDER BY d.c) FROM jr_p p JOIN jr_d d ON p.k = d.k
  WHERE d.x > 3 AND d.c <> 'c3';
SELECT p.id, b.d, b.t FROM jr_p p JOIN jr_b b ON p.k = b.k WHERE b.d < date '2020-02-01' AND p.id < 600
  ORDER BY p.id;
-- NULL keys (on both sides), NULL columns
SELECT count(*), count(d.c), count(d.x) FROM jr_p p JOIN jr_d d ON p.k = d.k WHERE d.c IS NULL OR d.x IS NULL;
-- text keys
SELECT p.id, b.i8, b.c FROM jr_p p JOIN jr_b b ON p.t = b.t WHERE p.id % 61 = 0 ORDER BY p.id, b.i8;
-- an empty build side, and one whose filter passes nothing
SELECT count(*), sum(e.x) FROM jr_p p JOIN jr_e e ON p.k = e.k;
SELECT count(*), sum(b.i8) FROM jr_p p JOIN jr_b b ON p.k = b.k WHERE b.i8 < 0;
-- a compressed value: the rows task gives the build side back, its plan runs
SELECT count(*), sum(length(z.w)), count(DISTINCT z.x) FROM jr_p p JOIN jr_z z ON p.k = z.k;
-- a row updated in this transaction
BEGIN;
UPDATE jr_b SET i8 = -1, c = 'upd' WHERE k = 7;
DELETE FROM jr_d WHERE k = 9 AND x = 1;
INSERT INTO jr_d VALUES (9, 100, 'new');
SELECT count(*), sum(b.i8), count(*) FILTER (WHERE b.c = 'upd') FROM jr_p p JOIN jr_b b ON p.k = b.k;
SELECT d.x, d.c, count(*) FROM jr_p p JOIN jr_d d ON p.k = d.k WHERE d.k = 9 GROUP BY 1, 2 ORDER BY 1, 2;
ROLLBACK;
SELECT d.x, d.c, count(*) FROM jr_p p JOIN jr_d d ON p.k = d.k WHERE d.k = 9 GROUP BY 1, 2 ORDER BY 1, 2;
