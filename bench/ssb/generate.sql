-- The Star Schema Benchmark's data, generated inside PostgreSQL: the functions
-- below, and the statements bench/ssb/ssb.py runs with them (in parallel).  Written from the specification's
-- table sizes and value domains (O'Neil et al., "Star Schema Benchmark", rev. 3), not
-- from its dbgen program.  Every value is a deterministic function of the row's key,
-- so a scale factor always gives the same tables and the same answers.
--
-- Sizes at scale factor SF: customer 30,000 x SF, supplier 2,000 x SF, part
-- 200,000 x floor(1 + log2 SF) (SF < 1: 200,000 x SF, at least 1,000), date the 7
-- years 1992-1998, lineorder 1,500,000 x SF orders of 1 to 7 lines (6,000,000 x SF
-- lines on average).

-- The functions the generating statements (in ssb.py) use.
-- ssb_rand(k, salt, n): a deterministic value in 0 .. n-1
CREATE OR REPLACE FUNCTION ssb_rand(k int8, salt int8, n int8) RETURNS int8
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT (hashint8extended(k, salt) & 9223372036854775807) % n $$;

-- the 25 nations and their regions (the specification's list)
CREATE OR REPLACE FUNCTION ssb_nation(i int8) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT (ARRAY['ALGERIA', 'ARGENTINA', 'BRAZIL', 'CANADA', 'EGYPT', 'ETHIOPIA',
    'FRANCE', 'GERMANY', 'INDIA', 'INDONESIA', 'IRAN', 'IRAQ', 'JAPAN', 'JORDAN',
    'KENYA', 'MOROCCO', 'MOZAMBIQUE', 'PERU', 'CHINA', 'ROMANIA', 'SAUDI ARABIA',
    'VIETNAM', 'RUSSIA', 'UNITED KINGDOM', 'UNITED STATES'])[i + 1] $$;
CREATE OR REPLACE FUNCTION ssb_region(i int8) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT (ARRAY['AFRICA', 'AMERICA', 'AMERICA', 'AMERICA', 'MIDDLE EAST', 'AFRICA',
    'EUROPE', 'EUROPE', 'ASIA', 'ASIA', 'MIDDLE EAST', 'MIDDLE EAST', 'ASIA',
    'MIDDLE EAST', 'AFRICA', 'AFRICA', 'AFRICA', 'AMERICA', 'ASIA', 'EUROPE',
    'MIDDLE EAST', 'ASIA', 'EUROPE', 'EUROPE', 'AMERICA'])[i + 1] $$;
-- a city: the nation's first 9 letters, blank-padded, and a digit
CREATE OR REPLACE FUNCTION ssb_city(nation text, d int8) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT rpad(left(nation, 9), 9, ' ') || d::text $$;
-- a part's price in cents (900.00 .. 2,098.99)
CREATE OR REPLACE FUNCTION ssb_price(k int8) RETURNS int8
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT 90000 + (k / 10) % 20001 + 100 * (k % 1000) $$;
-- a day of 1992-01-01 + d as a yyyymmdd key
CREATE OR REPLACE FUNCTION ssb_datekey(d int8) RETURNS int4
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT to_char(date '1992-01-01' + d::int, 'YYYYMMDD')::int4 $$;
