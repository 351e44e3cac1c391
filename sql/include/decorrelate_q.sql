-- TPC-H Q17's shape: avg of the same table per outer key, the outer table's own quals
SELECT sum(dl.price) / 7.0 AS avg_yearly
  FROM dl, dp
 WHERE dp.pk = dl.pk AND dp.brand = 'B3' AND dp.box = 'MED'
   AND dl.qty < (SELECT 0.2 * avg(dl2.qty) FROM dl dl2 WHERE dl2.pk = dp.pk);
-- the key on either side of =, the subquery on either side of the comparison
SELECT count(*), sum(dl.qty) FROM dl, dp
 WHERE dp.pk = dl.pk AND dp.brand = 'B1'
   AND (SELECT max(dl2.qty) FROM dl dl2 WHERE dp.pk = dl2.pk) > dl.qty + 40;
-- TPC-H Q2's shape: min over a join, equal to the outer row's value
SELECT dp.pk, ds.sk, dps.cost FROM dp, dps, ds
 WHERE dp.pk = dps.pk AND ds.sk = dps.sk AND dp.box = 'LG' AND ds.region = 2
   AND dps.cost = (SELECT min(x.cost) FROM dps x, ds y WHERE x.pk = dp.pk AND y.sk = x.sk AND y.region = 2)
 ORDER BY 1, 2 LIMIT 30;
-- two correlation keys (TPC-H Q20's), inside an IN subquery
SELECT count(*) FROM ds WHERE ds.sk IN
  (SELECT dps.sk FROM dps WHERE dps.pk IN (SELECT pk FROM dp WHERE brand = 'B2')
      AND dps.avail > (SELECT 0.5 * sum(dl.qty) FROM dl WHERE dl.pk = dps.pk AND dl.sk = dps.sk AND dl.day < 200));
-- keys without rows: NULL, so the row goes (also for a NULL outer key)
SELECT count(*) FROM dp WHERE dp.pk2 IS NULL OR true
   AND dp.weight > (SELECT avg(dl.qty) FROM dl WHERE dl.pk = dp.pk2);
SELECT count(*) FROM dp WHERE dp.weight > (SELECT avg(dl.qty) FROM dl WHERE dl.pk = dp.pk2);
SELECT count(*) FROM dp WHERE dp.weight <= (SELECT coalesce(sum(dl.qty), 0) FROM dl WHERE dl.pk = dp.pk);
SELECT count(*) FROM dp WHERE 0 = (SELECT count(*) FROM dl WHERE dl.pk = dp.pk);
-- other correlations, other aggregates, other levels: left as they are
SELECT count(*) FROM dp WHERE dp.weight > (SELECT avg(dl.qty) FROM dl WHERE dl.pk > dp.pk + 900);
SELECT count(*) FROM dp WHERE dp.weight > (SELECT avg(dl.qty) FROM dl WHERE dl.pk = dp.pk AND dl.qty < dp.weight);
SELECT count(*) FROM dp WHERE dp.weight::numeric > (SELECT avg(dl.qty) FROM dl WHERE dl.pk::int8 = dp.pk);
SELECT count(*) FROM dp WHERE dp.weight > (SELECT avg(dl.qty) FILTER (WHERE dl.sk > 3) FROM dl WHERE dl.pk = dp.pk);
SELECT count(*) FROM dp WHERE dp.weight > (SELECT random() * 0 + avg(dl.qty) FROM dl WHERE dl.pk = dp.pk);
SELECT dp.pk FROM dp WHERE dp.weight > (SELECT avg(dl.qty) FROM dl WHERE dl.pk = dp.pk) ORDER BY 1 LIMIT 5;
