-- every field of a date, summed (exact integers)
SELECT count(*), sum(extract(year FROM d)), sum(extract(month FROM d)), sum(extract(day FROM d)),
       sum(extract(quarter FROM d)), sum(extract(dow FROM d)), sum(extract(isodow FROM d)),
       sum(extract(doy FROM d)), sum(extract(week FROM d)), sum(extract(isoyear FROM d))
  FROM ex;
SELECT sum(extract(decade FROM d)), sum(extract(century FROM d)), sum(extract(millennium FROM d)),
       sum(extract(julian FROM d)), sum(extract(epoch FROM d)), count(extract(year FROM d))
  FROM ex;
-- every field of a timestamp (seconds and epochs at scale 6, milliseconds at 3)
SELECT sum(extract(year FROM ts)), sum(extract(month FROM ts)), sum(extract(day FROM ts)),
       sum(extract(hour FROM ts)), sum(extract(minute FROM ts)), sum(extract(second FROM ts)),
       sum(extract(milliseconds FROM ts)), sum(extract(microseconds FROM ts)),
       sum(extract(epoch FROM ts))
  FROM ex;
SELECT sum(extract(quarter FROM ts)), sum(extract(dow FROM ts)), sum(extract(isodow FROM ts)),
       sum(extract(doy FROM ts)), sum(extract(week FROM ts)), sum(extract(isoyear FROM ts)),
       sum(extract(decade FROM ts)), sum(extract(century FROM ts)), sum(extract(millennium FROM ts))
  FROM ex;
-- min, max, avg; unit spellings as PostgreSQL decodes them
SELECT min(extract(year FROM d)), max(extract(year FROM d)), avg(extract(month FROM d)),
       min(extract(second FROM ts)), max(extract('SECONDS' FROM ts)), max(extract('msec' FROM ts)),
       avg(extract(hour FROM ts)), max(extract('Years' FROM ts)), min(extract('mon' FROM d))
  FROM ex;
-- in WHERE: =, BETWEEN, <>, with other quals
SELECT count(*), sum(id) FROM ex WHERE extract(year FROM d) = 1995;
SELECT count(*), sum(id) FROM ex WHERE extract(year FROM d) BETWEEN 1993 AND 1997
  AND extract(month FROM d) <> 2;
SELECT count(*), sum(amount) FROM ex WHERE extract(dow FROM ts) IN (0, 6);
SELECT count(*) FROM ex WHERE extract(hour FROM ts) >= 12 AND extract(second FROM ts) < 30.5;
SELECT count(*) FROM ex WHERE extract(month FROM d) = 2 AND extract(day FROM d) = 29;
-- arithmetic and CASE
SELECT sum(extract(year FROM d) * 100 + extract(month FROM d)), sum(extract(day FROM d) - 15),
       sum(CASE WHEN extract(quarter FROM d) <= 2 THEN amount ELSE -amount END),
       sum(CASE extract(dow FROM d) WHEN 0 THEN 1 WHEN 6 THEN 1 ELSE 0 END)
  FROM ex;
-- GROUP BY: TPC-H Q9's nation and year, ordered by it
SELECT nation, extract(year FROM d) AS y, sum(amount), count(*) FROM ex
  WHERE extract(year FROM d) BETWEEN 1995 AND 1998 GROUP BY 1, 2 ORDER BY 1, 2 DESC;
SELECT extract(quarter FROM d) AS q, extract(isodow FROM d) AS w, count(*), sum(id)
  FROM ex GROUP BY 1, 2 ORDER BY 1, 2;
SELECT extract(decade FROM d) AS dec, count(*) FROM ex GROUP BY 1 ORDER BY 1;
SELECT extract(second FROM ts) AS s, count(*) FROM ex WHERE id % 1000 = 7 GROUP BY 1 ORDER BY 1;
SELECT extract(year FROM ts) AS y, extract(hour FROM ts) AS h, count(*) FROM ex
  WHERE id < 400 GROUP BY 1, 2 ORDER BY 1, 2 LIMIT 12;
-- date_part: float8 (date_part(text, date) goes through timestamp)
SELECT sum(date_part('year', d)), sum(date_part('doy', d)), sum(date_part('epoch', d)),
       sum(date_part('hour', ts)), max(date_part('second', ts)), min(date_part('milliseconds', ts)),
       max(date_part('epoch', ts)), min(date_part('julian', ts)), max(date_part('julian', d))
  FROM ex;
SELECT date_part('month', d) AS m, count(*) FROM ex GROUP BY 1 ORDER BY 1;
-- the edges, row by row (+-infinity: NULL for the repeating fields)
SELECT id, min(extract(month FROM d)) AS mon, min(extract(day FROM d)) AS day,
       min(extract(dow FROM d)) AS dow, min(extract(isodow FROM d)) AS idow,
       min(extract(doy FROM d)) AS doy, min(extract(week FROM d)) AS wk,
       min(extract(quarter FROM d)) AS q
  FROM ex_edge GROUP BY id ORDER BY id;
SELECT id, min(extract(year FROM d)) AS y, min(extract(isoyear FROM d)) AS iy,
       min(extract(decade FROM d)) AS dec, min(extract(century FROM d)) AS c,
       min(extract(millennium FROM d)) AS m, min(extract(julian FROM d)) AS j,
       min(extract(epoch FROM d)) AS e
  FROM ex_edge WHERE d > '-infinity' AND d < 'infinity' GROUP BY id ORDER BY id;
SELECT id, min(extract(year FROM ts)) AS y, min(extract(month FROM ts)) AS mon,
       min(extract(day FROM ts)) AS day, min(extract(hour FROM ts)) AS h,
       min(extract(minute FROM ts)) AS mi, min(extract(second FROM ts)) AS s,
       min(extract(milliseconds FROM ts)) AS ms, min(extract(epoch FROM ts)) AS e
  FROM ex_edge WHERE ts > '-infinity' AND ts < 'infinity' GROUP BY id ORDER BY id;
SELECT id, min(extract(week FROM ts)) AS wk, min(extract(isoyear FROM ts)) AS iy,
       min(extract(dow FROM ts)) AS dow, min(extract(doy FROM ts)) AS doy,
       min(extract(century FROM ts)) AS c, min(extract(decade FROM ts)) AS dec,
       min(date_part('julian', ts)) AS j, min(date_part('epoch', ts)) AS e
  FROM ex_edge WHERE ts > '-infinity' AND ts < 'infinity' GROUP BY id ORDER BY id;
SELECT id, min(date_part('year', ts)) AS y, min(date_part('hour', ts)) AS h,
       min(date_part('month', d)) AS m
  FROM ex_edge WHERE id >= 17 GROUP BY id ORDER BY id;
SELECT extract(year FROM d) AS y, count(*) FROM ex_edge
  WHERE d > '-infinity' AND d < 'infinity' GROUP BY 1 ORDER BY 1;
