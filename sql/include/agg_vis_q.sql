SELECT count(*), sum(v), min(v), max(v), avg(w), count(pad), count(big) FROM vis_t;
SELECT sum(v), stddev_pop(w), count(*) FROM vis_t;
