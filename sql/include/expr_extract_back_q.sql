-- numeric +-Infinity: the year of an infinite date or timestamp
SELECT id, min(extract(year FROM d)) AS y, min(extract(epoch FROM ts)) AS e
  FROM ex_edge GROUP BY id ORDER BY id;
SELECT max(extract(isoyear FROM d)), min(extract(century FROM ts)) FROM ex_edge;
SELECT extract(year FROM d) AS y, count(*) FROM ex_edge GROUP BY 1 ORDER BY 1;
-- date_part(text, date) of a date past the timestamp range raises
SELECT max(date_part('year', d)) FROM ex_edge;
-- a unit a date does not have
SELECT sum(extract(hour FROM d)) FROM ex_edge;
SELECT sum(extract(julian FROM ts)) FROM ex_edge WHERE ts > '-infinity' AND ts < 'infinity';
