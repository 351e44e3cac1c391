/*
 * datetime_test.cu — EXTRACT's fields (datetime.cuh) against a reference built
 * another way: a slow calendar (400-year runs, then years and months), weekdays
 * from 1970-01-01 (a Thursday), ISO weeks from the week's Thursday.  200,000 days in a
 * row around 1781-2328 and 200,000 random days over the whole date range (4713 BC
 * to 5874897 AD), random timestamps before and after 2000, and the infinities
 * (on the CPU; the opcode through eval()).
 */
#include "test_util.h"

#include "expr.cuh"

using namespace pg_gpu::cuda;

static int64_t
floor_div(int64_t a, int64_t b)
{
	return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
}

/* the Gregorian leap rule, for astronomical years (0 is a leap year) */
static bool
ref_leap(int64_t y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static int
ref_month_days(int64_t y, int m)
{
	static const int n[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};

	return m == 2 && ref_leap(y) ? 29 : n[m - 1];
}

/*
 * Days since 1970-01-01 to a proleptic Gregorian (astronomical) y-m-d, the slow
 * way: whole 400-year runs (each 146,097 days, whatever year they start in), then
 * year by year and month by month.
 */
static void
civil_from_days(int64_t z, int64_t *y, int *m, int *d)
{
	int64_t		runs = floor_div(z, 146097);
	int64_t		rest = z - runs * 146097;
	int64_t		yy = 1970 + runs * 400;
	int			mm = 1;

	while (rest >= (ref_leap(yy) ? 366 : 365))
		rest -= ref_leap(yy++) ? 366 : 365;
	while (rest >= ref_month_days(yy, mm))
		rest -= ref_month_days(yy, mm++);
	*y = yy;
	*m = mm;
	*d = (int) rest + 1;
}

static int64_t
days_from_civil(int64_t y, int m, int d)
{
	int64_t		runs = floor_div(y - 1970, 400);
	int64_t		yy = 1970 + runs * 400;
	int64_t		z = runs * 146097;

	for (; yy < y; yy++)
		z += ref_leap(yy) ? 366 : 365;
	for (int mm = 1; mm < m; mm++)
		z += ref_month_days(y, mm);
	return z + d - 1;
}

/* The reference value of a field for day z (days since 1970) and time of day tod. */
static int64_t
ref_field(int field, int64_t z, int64_t tod)
{
	int64_t		y;
	int			m,
				d;
	int64_t		dow = ((z + 4) % 7 + 7) % 7;	/* 0 = Sunday */
	int64_t		isodow = dow == 0 ? 7 : dow;
	int64_t		thu = z - isodow + 4;	/* the Thursday of z's ISO week */
	int64_t		ty;
	int			tm,
				td;

	civil_from_days(z, &y, &m, &d);
	civil_from_days(thu, &ty, &tm, &td);
	switch (field)
	{
		case PG_GPU_DT_YEAR:
			return y > 0 ? y : y - 1;
		case PG_GPU_DT_MONTH:
			return m;
		case PG_GPU_DT_DAY:
			return d;
		case PG_GPU_DT_QUARTER:
			return (m + 2) / 3;
		case PG_GPU_DT_DOW:
			return dow;
		case PG_GPU_DT_ISODOW:
			return isodow;
		case PG_GPU_DT_DOY:
			return z - days_from_civil(y, 1, 1) + 1;
		case PG_GPU_DT_WEEK:
			return (thu - days_from_civil(ty, 1, 1)) / 7 + 1;
		case PG_GPU_DT_ISOYEAR:
			return ty > 0 ? ty : ty - 1;
		case PG_GPU_DT_CENTURY:
			/* 1 .. 100 is the first century; 100 BC .. 1 BC the -1st */
			return y > 0 ? (y + 99) / 100 : -((1 - y + 99) / 100);
		case PG_GPU_DT_MILLENNIUM:
			return y > 0 ? (y + 999) / 1000 : -((1 - y + 999) / 1000);
		case PG_GPU_DT_DECADE:
			/* PostgreSQL: year / 10 from year 0 (1 BC) on; -1 for 1 BC .. 9 BC... */
			return y >= 0 ? y / 10 : -((8 - (y - 1)) / 10);
		case PG_GPU_DT_JULIAN:
			return z + 2440588;
		case PG_GPU_DT_EPOCH:
			return z * 86400;
		case PG_GPU_DT_HOUR:
			return tod / 3600000000LL;
		case PG_GPU_DT_MINUTE:
			return tod / 60000000LL % 60;
		case PG_GPU_DT_SECOND:
			return tod % 60000000LL;	/* scale 6 */
		case PG_GPU_DT_MILLISEC:
			return tod % 60000000LL;	/* scale 3: the same microseconds */
		default:				/* MICROSEC */
			return tod % 60000000LL;
	}
}

static const int kDateFields[] = {
	PG_GPU_DT_YEAR, PG_GPU_DT_MONTH, PG_GPU_DT_DAY, PG_GPU_DT_QUARTER, PG_GPU_DT_WEEK,
	PG_GPU_DT_DOW, PG_GPU_DT_ISODOW, PG_GPU_DT_DOY, PG_GPU_DT_DECADE, PG_GPU_DT_CENTURY,
	PG_GPU_DT_MILLENNIUM, PG_GPU_DT_ISOYEAR, PG_GPU_DT_JULIAN, PG_GPU_DT_EPOCH
};
static const int kTimeFields[] = {
	PG_GPU_DT_HOUR, PG_GPU_DT_MINUTE, PG_GPU_DT_SECOND, PG_GPU_DT_MILLISEC, PG_GPU_DT_MICROSEC
};

void
datetime_tests(std::mt19937_64 &rng)
{
	const int64_t kPgEpoch = 10957;		/* 2000-01-01 in days since 1970 */
	const int64_t kMinDate = -2451545;	/* Julian day 0, 4714-11-24 BC */
	const int64_t kMaxDate = 2147483494LL - 2451545 - 1;	/* 5874897-12-31 */
	const int64_t kMaxTsDay = 109203528LL - 2451545 - 1;	/* 294276-12-31 */
	int			bad[32] = {0};
	int64_t		iv = 0;
	double		fv = 0;

	/* dates: consecutive, then random over the whole range */
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < 200000; i++)
		{
			int64_t		d = pass == 0 ? -80000 + i
				: kMinDate + (int64_t) (rng() % (uint64_t) (kMaxDate - kMinDate + 1));

			for (int f : kDateFields)
			{
				int64_t		want = ref_field(f, d + kPgEpoch, 0);

				if (dt_part(f, PG_GPU_DATE, false, (uint64_t) d, false, &iv, &fv) != DT_OK ||
					iv != want)
				{
					if (bad[f]++ < 3)
						printf("date %lld field %d: %lld, want %lld\n", (long long) d, f,
							   (long long) iv, (long long) want);
				}
			}
		}
	for (int f : kDateFields)
		CHECK(bad[f] == 0, "date field %d: %d wrong", f, bad[f]);

	/* timestamps (and dates made timestamps), before and after 2000 */
	memset(bad, 0, sizeof(bad));
	for (int i = 0; i < 200000; i++)
	{
		int64_t		day = kMinDate + (int64_t) (rng() % (uint64_t) (kMaxTsDay - kMinDate + 1));
		int64_t		tod = (int64_t) (rng() % 86400000000ULL);
		int64_t		ts = day * 86400000000LL + tod;

		CHECK(floor_div(ts, 86400000000LL) == day || i > 0, "floor_div");
		for (int f : kDateFields)
		{
			int64_t		want = ref_field(f, day + kPgEpoch, tod);

			if (f == PG_GPU_DT_JULIAN)
				continue;		/* a division for timestamps (float only, below) */
			if (f == PG_GPU_DT_EPOCH)
			{
				/* scale 6; past int64 (near 294276 AD) PostgreSQL's numeric: the CPU */
				__int128	w = (__int128) ts + kPgEpoch * 86400000000LL;

				if (w > INT64_MAX)
				{
					if (dt_part(f, PG_GPU_TIMESTAMP, false, (uint64_t) ts, false, &iv, &fv) !=
						DT_GIVE_BACK)
						bad[f]++;
					continue;
				}
				want = (int64_t) w;
			}
			if (dt_part(f, PG_GPU_TIMESTAMP, false, (uint64_t) ts, false, &iv, &fv) != DT_OK ||
				iv != want)
				bad[f]++;
		}
		for (int f : kTimeFields)
			if (dt_part(f, PG_GPU_TIMESTAMP, false, (uint64_t) ts, false, &iv, &fv) != DT_OK ||
				iv != ref_field(f, day + kPgEpoch, tod))
				bad[f]++;
		/* date_part: float8 of the same, by PostgreSQL's formulas */
		if (dt_part(PG_GPU_DT_SECOND, PG_GPU_TIMESTAMP, false, (uint64_t) ts, true, &iv, &fv) != DT_OK ||
			fv != (double) (tod % 60000000 / 1000000) + (tod % 1000000) / 1000000.0)
			bad[0]++;
		if (dt_part(PG_GPU_DT_YEAR, PG_GPU_DATE, true, (uint64_t) day, true, &iv, &fv) != DT_OK ||
			fv != (double) ref_field(PG_GPU_DT_YEAR, day + kPgEpoch, 0))
			bad[0]++;
	}
	for (int f = 0; f < 32; f++)
		CHECK(bad[f] == 0, "timestamp field %d: %d wrong", f, bad[f]);

	/* infinities: repeating fields NULL, growing ones +-Infinity (numeric: the CPU) */
	CHECK(dt_part(PG_GPU_DT_MONTH, PG_GPU_DATE, false, (uint64_t) (int64_t) INT32_MAX, false,
				  &iv, &fv) == DT_NULL, "month of date infinity");
	CHECK(dt_part(PG_GPU_DT_YEAR, PG_GPU_DATE, false, (uint64_t) (int64_t) INT32_MIN, false,
				  &iv, &fv) == DT_GIVE_BACK, "year of date -infinity");
	CHECK(dt_part(PG_GPU_DT_YEAR, PG_GPU_TIMESTAMP, false, (uint64_t) INT64_MIN, true,
				  &iv, &fv) == DT_OK && fv == -INFINITY, "date_part year of -infinity");
	CHECK(dt_part(PG_GPU_DT_HOUR, PG_GPU_TIMESTAMP, false, (uint64_t) INT64_MAX, true,
				  &iv, &fv) == DT_NULL, "date_part hour of infinity");
	/* date2timestamp's range: 294277-01-01 does not fit */
	CHECK(dt_part(PG_GPU_DT_YEAR, PG_GPU_DATE, true, (uint64_t) (kMaxTsDay + 1), true,
				  &iv, &fv) == DT_GIVE_BACK, "date past the timestamp range");
	CHECK(dt_part(PG_GPU_DT_EPOCH, PG_GPU_TIMESTAMP, false, (uint64_t) (INT64_MAX - 1000), false,
				  &iv, &fv) == DT_GIVE_BACK, "numeric epoch past int64");
	CHECK(dt_part(PG_GPU_DT_YEAR, PG_GPU_DATE, true, (uint64_t) kMaxTsDay, true,
				  &iv, &fv) == DT_OK && fv == 294276.0, "last date a timestamp holds");

	/* the opcode through eval(): EXTRACT(YEAR FROM c0) on a date column */
	{
		pg_gpu_agg_task t;
		pg_gpu_expr e;
		pval		c[1],
					out = {};

		memset(&t, 0, sizeof(t));
		memset(&e, 0, sizeof(e));
		t.prog[0] = {PG_GPU_OP_COL, PG_GPU_DATE, 0, 0};
		t.prog[1] = {PG_GPU_OP_DATEPART, PG_GPU_DECIMAL, PG_GPU_DT_YEAR, PG_GPU_DATE};
		t.nprog = 2;
		e.len = 2;
		e.type = PG_GPU_DECIMAL;
		c[0].bits = (uint64_t) (int64_t) -800000;	/* in 192 BC */
		c[0].null = false;
		c[0].len = 0;
		c[0].hi = 0;
		CHECK(eval(t, e, c, &out) && !out.null && out.len == 0 &&
			  dec_of(out) == ref_field(PG_GPU_DT_YEAR, -800000 + kPgEpoch, 0),
			  "EXTRACT(YEAR) of a BC date: %lld", (long long) dec_of(out));
		c[0].bits = (uint64_t) (int64_t) INT32_MAX;
		CHECK(!eval(t, e, c, &out), "EXTRACT(YEAR) of infinity goes back to the CPU");
		t.prog[1].a = PG_GPU_DT_DOW;
		CHECK(eval(t, e, c, &out) && out.null, "EXTRACT(DOW) of infinity is NULL");
	}
}
