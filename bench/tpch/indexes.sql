-- Built after the load: the primary keys of the eight tables and the indexes on the
-- foreign keys that the correlated subqueries (Q2, Q17, Q20, Q21, Q22) and the joins
-- look rows up by.  The keys are built as unique indexes first, so that all the
-- CREATE INDEX statements can run side by side (tpch.py runs each in its own
-- session), then made primary keys (which takes no scan: the columns are NOT NULL).
CREATE UNIQUE INDEX lineitem_pkey ON lineitem (l_orderkey, l_linenumber);
CREATE INDEX lineitem_l_partkey_l_suppkey ON lineitem (l_partkey, l_suppkey);
CREATE UNIQUE INDEX orders_pkey ON orders (o_orderkey);
CREATE INDEX orders_o_custkey ON orders (o_custkey);
CREATE UNIQUE INDEX partsupp_pkey ON partsupp (ps_partkey, ps_suppkey);
CREATE INDEX partsupp_ps_suppkey ON partsupp (ps_suppkey);
CREATE UNIQUE INDEX customer_pkey ON customer (c_custkey);
CREATE INDEX customer_c_nationkey ON customer (c_nationkey);
CREATE UNIQUE INDEX part_pkey ON part (p_partkey);
CREATE UNIQUE INDEX supplier_pkey ON supplier (s_suppkey);
CREATE INDEX supplier_s_nationkey ON supplier (s_nationkey);
CREATE UNIQUE INDEX nation_pkey ON nation (n_nationkey);
CREATE INDEX nation_n_regionkey ON nation (n_regionkey);
CREATE UNIQUE INDEX region_pkey ON region (r_regionkey);
ALTER TABLE lineitem ADD CONSTRAINT lineitem_pkey PRIMARY KEY USING INDEX lineitem_pkey;
ALTER TABLE orders   ADD CONSTRAINT orders_pkey   PRIMARY KEY USING INDEX orders_pkey;
ALTER TABLE partsupp ADD CONSTRAINT partsupp_pkey PRIMARY KEY USING INDEX partsupp_pkey;
ALTER TABLE customer ADD CONSTRAINT customer_pkey PRIMARY KEY USING INDEX customer_pkey;
ALTER TABLE part     ADD CONSTRAINT part_pkey     PRIMARY KEY USING INDEX part_pkey;
ALTER TABLE supplier ADD CONSTRAINT supplier_pkey PRIMARY KEY USING INDEX supplier_pkey;
ALTER TABLE nation   ADD CONSTRAINT nation_pkey   PRIMARY KEY USING INDEX nation_pkey;
ALTER TABLE region   ADD CONSTRAINT region_pkey   PRIMARY KEY USING INDEX region_pkey;
