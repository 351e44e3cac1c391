SELECT count(*), sum(v), min(v), max(v), avg(w), count(pad), count(big) FROM vis_t;
SELECT sum(v), round(stddev_pop(w)::numeric, 8), count(*) FROM vis_t;
