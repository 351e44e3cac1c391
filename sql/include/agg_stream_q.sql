SELECT count(*), sum(a), min(a), max(a), avg(b), round(stddev(b)::numeric, 8), var_pop(c), sum(c) FROM st_t;
