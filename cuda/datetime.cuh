/*
 * datetime.cuh — EXTRACT and date_part of a date or timestamp (PG_GPU_OP_DATEPART).
 *
 * Every field must come out as PostgreSQL 15 gives it (docs/SEMANTICS.md 28): the
 * proleptic Gregorian calendar on Julian day numbers, astronomical years (0 is
 * 1 BC) turned into PostgreSQL's (no year 0) where a field shows a year, ISO weeks
 * and ISO years, a timestamp split into a day and a non-negative time of day.
 * The calendar below is our own: day numbers counted in 400-year cycles that
 * start on March 1 (so a leap day ends its year); test/datetime_test.cu checks it
 * against an independent day-by-day calendar over PostgreSQL's whole date range.
 * __host__ __device__: the kernels, the emulation and the unit tests run this one
 * copy.
 *
 * A field is an integer v at the field's scale (v / 10^scale: seconds and epochs
 * of timestamps carry microseconds), or, for date_part, the float8 PostgreSQL
 * computes.  What the GPU cannot give exactly (numeric +-Infinity, a timestamp or
 * date out of range) is DT_GIVE_BACK: the query re-runs on the CPU.
 */
#ifndef PG_GPU_DATETIME_CUH
#define PG_GPU_DATETIME_CUH

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "agg_state.cuh"

namespace pg_gpu {
namespace cuda {

constexpr int64_t kUsecsPerDay = INT64_C(86400000000);
constexpr int kPostgresEpochJdate = 2451545;	/* Julian day of 2000-01-01 */
constexpr int kUnixEpochJdate = 2440588;	/* Julian day of 1970-01-01 */
constexpr int kTimestampEndJulian = 109203528;	/* Julian day of 294277-01-01: timestamps end before it */

/* a / b rounded down, b > 0 */
PG_GPU_HD int64_t
dt_floor_div(int64_t a, int64_t b)
{
	int64_t		q = a / b;

	return (a % b != 0 && a < 0) ? q - 1 : q;
}

/* a / b rounded up, a >= 0, b > 0 */
PG_GPU_HD int64_t
dt_ceil_div(int64_t a, int64_t b)
{
	return (a + b - 1) / b;
}

/*
 * Days in the 400-year cycle: 146,097.  A "March year" runs from March 1 to the
 * end of the next February, so its leap day (if any) is its last day; the cycle
 * starts on March 1 of a year divisible by 400, whose Julian day number is
 * kMarchZeroJd + 146097 * (year / 400).
 */
constexpr int64_t kCycleDays = 146097;
constexpr int64_t kMarchZeroJd = 1721120;	/* March 1 of year 0 (1 BC) */

/* first day of each March-year month, counted from March 1 */
PG_GPU_HD int
dt_month_start(int m)			/* 0 = March .. 11 = February */
{
	const int	start[12] = {0, 31, 61, 92, 122, 153, 184, 214, 245, 275, 306, 337};

	return start[m];
}

/* The Julian day number of year y (astronomical), month m, day d. */
PG_GPU_HD int64_t
dt_julian(int64_t y, int m, int d)
{
	int64_t		my = m <= 2 ? y - 1 : y;	/* the March year it lies in */
	int			mm = m <= 2 ? m + 9 : m - 3;
	int64_t		cycle = dt_floor_div(my, 400);
	int64_t		yoc = my - cycle * 400;	/* 0 .. 399 */

	/* leap days before March year yoc: one per 4 years, none per 100 */
	return kMarchZeroJd + cycle * kCycleDays + yoc * 365 + yoc / 4 - yoc / 100 +
		dt_month_start(mm) + d - 1;
}

/* Year (astronomical), month and day of Julian day number jd. */
PG_GPU_HD void
dt_civil(int64_t jd, int *year, int *month, int *day)
{
	int64_t		z = jd - kMarchZeroJd;
	int64_t		cycle = dt_floor_div(z, kCycleDays);
	int64_t		rem = z - cycle * kCycleDays;	/* 0 .. 146096 */
	int64_t		cent = rem / 36524;
	int64_t		quad,
				yr;
	int			m;

	/* three centuries of 36,524 days, the last one day longer */
	if (cent > 3)
		cent = 3;
	rem -= cent * 36524;
	/* 4-year groups of 1,461 days (a century's last group is a day short) */
	quad = rem / 1461;
	rem -= quad * 1461;
	/* years of 365 days, the group's last one a day longer */
	yr = rem / 365;
	if (yr > 3)
		yr = 3;
	rem -= yr * 365;
	for (m = 11; dt_month_start(m) > rem; m--)
		;
	*day = (int) (rem - dt_month_start(m)) + 1;
	*month = m < 10 ? m + 3 : m - 9;
	*year = (int) (cycle * 400 + cent * 100 + quad * 4 + yr + (m >= 10 ? 1 : 0));
}

/* Day of the week of Julian day number jd: 0 = Sunday .. 6 (day 0 was a Monday). */
PG_GPU_HD int
dt_weekday(int64_t jd)
{
	return (int) (jd + 1 - 7 * dt_floor_div(jd + 1, 7));
}

/*
 * The ISO week of Julian day number jd and the ISO year it belongs to
 * (astronomical): weeks run Monday to Sunday, and a week belongs to the year
 * that holds its Thursday.
 */
PG_GPU_HD void
dt_iso_week(int64_t jd, int *week, int *isoyear)
{
	int			wd = dt_weekday(jd);
	int64_t		thursday = jd - (wd == 0 ? 7 : wd) + 4;
	int			y,
				m,
				d;

	dt_civil(thursday, &y, &m, &d);
	*isoyear = y;
	*week = (int) ((thursday - dt_julian(y, 1, 1)) / 7) + 1;
}

/* Whether a field grows with time (+-Infinity for infinite inputs) or repeats (NULL). */
PG_GPU_HD bool
dt_field_monotonic(int field)
{
	switch (field)
	{
		case PG_GPU_DT_YEAR:
		case PG_GPU_DT_DECADE:
		case PG_GPU_DT_CENTURY:
		case PG_GPU_DT_MILLENNIUM:
		case PG_GPU_DT_JULIAN:
		case PG_GPU_DT_ISOYEAR:
		case PG_GPU_DT_EPOCH:
			return true;
		default:
			return false;
	}
}

/*
 * The numeric scale of a field: seconds and milliseconds of a timestamp, and its
 * epoch, carry microseconds (int64_div_fast_to_numeric(x, 6 or 3)); the rest are
 * integers.  from_ts: the source is a timestamp (or a date made one).
 */
PG_GPU_HD int
dt_field_scale(int field, bool from_ts)
{
	if (field == PG_GPU_DT_SECOND || (field == PG_GPU_DT_EPOCH && from_ts))
		return 6;
	if (field == PG_GPU_DT_MILLISEC)
		return 3;
	return 0;
}

enum dt_outcome
{
	DT_OK,						/* *iv (numeric) or *fv (float8) */
	DT_NULL,					/* an infinite input's repeating field */
	DT_POS_INF,					/* an infinite input's growing field */
	DT_NEG_INF,
	DT_GIVE_BACK				/* PostgreSQL raises an error: re-run there */
};

/*
 * A year-based field of an astronomical year: the year as shown (1 BC is -1),
 * decades counted down through year 0, centuries and millennia counted from 1
 * on either side (the year 1 BC is in century -1).
 */
PG_GPU_HD int64_t
dt_year_field(int field, int64_t year)
{
	int64_t		unit = field == PG_GPU_DT_CENTURY ? 100 : 1000;

	switch (field)
	{
		case PG_GPU_DT_YEAR:
			return year > 0 ? year : year - 1;
		case PG_GPU_DT_DECADE:
			return dt_floor_div(year, 10);
		default:				/* CENTURY, MILLENNIUM */
			return year > 0 ? dt_ceil_div(year, unit) : -dt_ceil_div(1 - year, unit);
	}
}

/*
 * One field of a value of source src (PG_GPU_DATE: int32 days, else int64
 * microseconds, both since 2000-01-01; date_as_ts: a date turned into a timestamp
 * first, as date_part(text, date) does).  want_float: date_part's float8 (*fv),
 * else the scaled integer (*iv) of dt_field_scale.
 */
PG_GPU_HD dt_outcome
dt_part(int field, int src, bool date_as_ts, uint64_t bits, bool want_float,
		int64_t *iv, double *fv)
{
	int64_t		ts = 0;
	int			jd = 0;
	int64_t		tod = 0;		/* microseconds since midnight */
	bool		from_ts = src != PG_GPU_DATE || date_as_ts;
	bool		neg_inf = false,
				pos_inf = false;
	int64_t		r;

	if (src == PG_GPU_DATE)
	{
		int32_t		d = (int32_t) (int64_t) bits;

		if (d == INT32_MIN)
			neg_inf = true;
		else if (d == INT32_MAX)
			pos_inf = true;
		else if (date_as_ts)
		{
			/* PostgreSQL: "date out of range for timestamp" */
			if (d >= kTimestampEndJulian - kPostgresEpochJdate)
				return DT_GIVE_BACK;
			ts = (int64_t) d * kUsecsPerDay;
		}
		jd = (int) ((uint32_t) d + (uint32_t) kPostgresEpochJdate);	/* if finite */
	}
	else
	{
		ts = (int64_t) bits;
		neg_inf = ts == INT64_MIN;
		pos_inf = ts == INT64_MAX;
	}
	if (neg_inf || pos_inf)
	{
		if (!dt_field_monotonic(field))
			return DT_NULL;
		if (!want_float)
			return DT_GIVE_BACK;	/* numeric +-Infinity: not a DECIMAL */
		*fv = neg_inf ? -INFINITY : INFINITY;
		return DT_OK;
	}
	if (from_ts)
	{
		/* the day (rounded down) and the time of day, never negative */
		int64_t		date = ts / kUsecsPerDay;

		tod = ts - date * kUsecsPerDay;
		if (tod < 0)
		{
			tod += kUsecsPerDay;
			date -= 1;
		}
		date += kPostgresEpochJdate;
		if (date < 0 || date > (int64_t) INT32_MAX)
			return DT_GIVE_BACK;	/* "timestamp out of range" */
		jd = (int) date;
	}

	int			year,
				mon,
				mday;
	int			hour = (int) (tod / INT64_C(3600000000));
	int64_t		t = tod - hour * INT64_C(3600000000);
	int			min = (int) (t / 60000000);
	int			sec;
	int64_t		fsec;

	t -= min * INT64_C(60000000);
	sec = (int) (t / 1000000);
	fsec = t - sec * INT64_C(1000000);
	dt_civil(jd, &year, &mon, &mday);

	switch (field)
	{
		case PG_GPU_DT_DAY:
			r = mday;
			break;
		case PG_GPU_DT_MONTH:
			r = mon;
			break;
		case PG_GPU_DT_QUARTER:
			r = (mon - 1) / 3 + 1;
			break;
		case PG_GPU_DT_WEEK:
			{
				int			w,
							iy;

				dt_iso_week(jd, &w, &iy);
				r = w;
			}
			break;
		case PG_GPU_DT_YEAR:
		case PG_GPU_DT_DECADE:
		case PG_GPU_DT_CENTURY:
		case PG_GPU_DT_MILLENNIUM:
			r = dt_year_field(field, year);
			break;
		case PG_GPU_DT_ISOYEAR:
			{
				int			w,
							iy;

				dt_iso_week(jd, &w, &iy);
				r = iy > 0 ? iy : iy - 1;	/* no year 0 */
			}
			break;
		case PG_GPU_DT_DOW:
		case PG_GPU_DT_ISODOW:
			r = dt_weekday(jd);
			if (field == PG_GPU_DT_ISODOW && r == 0)
				r = 7;
			break;
		case PG_GPU_DT_DOY:
			r = jd - dt_julian(year, 1, 1) + 1;
			break;
		case PG_GPU_DT_JULIAN:
			if (!from_ts)
			{
				r = jd;
				break;
			}
			if (!want_float)
				return DT_GIVE_BACK;	/* a numeric division: not compiled */
			*fv = (double) jd +
				((((hour * 60) + min) * 60) + sec + (fsec / 1000000.0)) / (double) 86400;
			return DT_OK;
		case PG_GPU_DT_EPOCH:
			if (!from_ts)
			{
				r = ((int64_t) jd - kUnixEpochJdate) * 86400;
				break;
			}
			{
				/* 1970-01-01 as a timestamp */
				const int64_t epoch = (int64_t) (kUnixEpochJdate - kPostgresEpochJdate) *
					kUsecsPerDay;

				/* past 2^63 - 1 PostgreSQL subtracts in numeric (or float8) */
				if (ts >= INT64_MAX + epoch)
				{
					if (!want_float)
						return DT_GIVE_BACK;	/* 128 bits: not an int64 here */
					*fv = ((double) ts - epoch) / 1000000.0;
				}
				else if (want_float)
					*fv = (ts - epoch) / 1000000.0;
				else
					*iv = ts - epoch;	/* scale 6 */
				return DT_OK;
			}
		case PG_GPU_DT_HOUR:
			r = hour;
			break;
		case PG_GPU_DT_MINUTE:
			r = min;
			break;
		case PG_GPU_DT_MICROSEC:
			r = sec * INT64_C(1000000) + fsec;
			break;
		case PG_GPU_DT_MILLISEC:
			/* scale 3: the value is microseconds / 10^3 */
			if (want_float)
				*fv = sec * 1000.0 + fsec / 1000.0;
			else
				*iv = sec * INT64_C(1000000) + fsec;
			return DT_OK;
		case PG_GPU_DT_SECOND:
			if (want_float)
				*fv = sec + fsec / 1000000.0;
			else
				*iv = sec * INT64_C(1000000) + fsec;	/* scale 6 */
			return DT_OK;
		default:
			return DT_GIVE_BACK;
	}
	if (want_float)
		*fv = (double) r;
	else
		*iv = r;
	return DT_OK;
}

/*
 * PG_GPU_OP_DATEPART on a (not NULL) operand's word: the result's words, DECIMAL
 * (low, high and dscale) or FLOAT8 (bits); DT_OK, DT_NULL or DT_GIVE_BACK.
 */
PG_GPU_HD dt_outcome
dt_eval(int type, int field, uint32_t b, uint64_t bits, uint64_t *lo, uint64_t *hi,
		uint32_t *dscale)
{
	int			src = (int) (b & 0xFF);
	bool		as_ts = (b & PG_GPU_DT_DATE_AS_TS) != 0;
	bool		flt = type == PG_GPU_FLOAT8;
	int64_t		iv = 0;
	double		fv = 0;
	dt_outcome	o = dt_part(field, src, as_ts, bits, flt, &iv, &fv);

	*hi = 0;
	*dscale = 0;
	if (o != DT_OK)
	{
		*lo = 0;
		return o;
	}
	if (flt)
		memcpy(lo, &fv, 8);
	else
	{
		*lo = (uint64_t) iv;
		*hi = iv < 0 ? ~UINT64_C(0) : 0;	/* sign-extended to 128 bits */
		*dscale = (uint32_t) dt_field_scale(field, src != PG_GPU_DATE || as_ts);
	}
	return DT_OK;
}

}							/* namespace cuda */
}							/* namespace pg_gpu */

#endif							/* PG_GPU_DATETIME_CUH */
