-- Built after the load: the primary keys of the eight tables and the indexes on the
-- foreign keys that the correlated subqueries (Q2, Q17, Q20, Q21, Q22) and the joins
-- look rows up by.  tpch.py runs each statement in its own session, side by side.
ALTER TABLE region   ADD PRIMARY KEY (r_regionkey);
ALTER TABLE nation   ADD PRIMARY KEY (n_nationkey);
ALTER TABLE part     ADD PRIMARY KEY (p_partkey);
ALTER TABLE supplier ADD PRIMARY KEY (s_suppkey);
ALTER TABLE partsupp ADD PRIMARY KEY (ps_partkey, ps_suppkey);
ALTER TABLE customer ADD PRIMARY KEY (c_custkey);
ALTER TABLE orders   ADD PRIMARY KEY (o_orderkey);
ALTER TABLE lineitem ADD PRIMARY KEY (l_orderkey, l_linenumber);
CREATE INDEX nation_n_regionkey ON nation (n_regionkey);
CREATE INDEX supplier_s_nationkey ON supplier (s_nationkey);
CREATE INDEX customer_c_nationkey ON customer (c_nationkey);
CREATE INDEX partsupp_ps_suppkey ON partsupp (ps_suppkey);
CREATE INDEX orders_o_custkey ON orders (o_custkey);
CREATE INDEX lineitem_l_partkey_l_suppkey ON lineitem (l_partkey, l_suppkey);
