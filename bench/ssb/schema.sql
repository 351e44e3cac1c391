-- The Star Schema Benchmark's five tables (O'Neil, O'Neil, Chen, Revilak, "Star
-- Schema Benchmark", revision 3), as bench/ssb/ssb.py creates them.  Integer
-- columns where the specification's values are integers (prices and costs in cents,
-- dates as yyyymmdd keys), text where it names strings.
DROP TABLE IF EXISTS lineorder, customer, supplier, part, date;

CREATE TABLE date (
  d_datekey          int4,      -- yyyymmdd
  d_date             text,      -- 'December 22, 1998'
  d_dayofweek        text,      -- 'Monday'
  d_month            text,      -- 'December'
  d_year             int4,
  d_yearmonthnum     int4,      -- 199812
  d_yearmonth        text,      -- 'Dec1998'
  d_daynuminweek     int4,      -- 1 (Sunday) .. 7
  d_daynuminmonth    int4,
  d_daynuminyear     int4,
  d_monthnuminyear   int4,
  d_weeknuminyear    int4,      -- 1 + (day of year - 1) / 7
  d_sellingseason    text,
  d_lastdayinweekfl  bool,
  d_lastdayinmonthfl bool,
  d_holidayfl        bool,
  d_weekdayfl        bool
);

CREATE TABLE customer (
  c_custkey    int4,
  c_name       text,
  c_address    text,
  c_city       text,            -- first 9 letters of the nation, padded, and a digit
  c_nation     text,
  c_region     text,
  c_phone      text,
  c_mktsegment text
);

CREATE TABLE supplier (
  s_suppkey int4,
  s_name    text,
  s_address text,
  s_city    text,
  s_nation  text,
  s_region  text,
  s_phone   text
);

CREATE TABLE part (
  p_partkey   int4,
  p_name      text,
  p_mfgr      text,             -- 'MFGR#1' .. 'MFGR#5'
  p_category  text,             -- 'MFGR#11' .. 'MFGR#55'
  p_brand1    text,             -- p_category || '01' .. '40'
  p_color     text,
  p_type      text,
  p_size      int4,
  p_container text
);

CREATE TABLE lineorder (
  lo_orderkey      int8,
  lo_linenumber    int4,
  lo_custkey       int4,
  lo_partkey       int4,
  lo_suppkey       int4,
  lo_orderdate     int4,        -- a d_datekey
  lo_orderpriority text,
  lo_shippriority  text,
  lo_quantity      int4,        -- 1 .. 50
  lo_extendedprice int4,        -- cents: quantity * the part's price
  lo_ordtotalprice int4,        -- cents
  lo_discount      int4,        -- per cent, 0 .. 10
  lo_revenue       int4,        -- extendedprice * (100 - discount) / 100
  lo_supplycost    int4,        -- cents
  lo_tax           int4,        -- 0 .. 8
  lo_commitdate    int4,        -- a d_datekey
  lo_shipmode      text
);
