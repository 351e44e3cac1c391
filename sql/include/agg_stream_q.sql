SELECT count(*), sum(a), min(a), max(a), avg(b), stddev(b), var_pop(c), sum(c) FROM st_t;
