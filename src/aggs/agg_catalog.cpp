/*
 * agg_catalog.cpp — the aggregates GpuAgg computes and their partial states.
 *
 * GpuAgg does not compute final values itself.  It produces, for every aggregate,
 * the partial state that PostgreSQL's own parallel aggregation would have produced
 * (AGGSPLIT_INITIAL_SERIAL), and a Finalize Aggregate node above it runs
 * PostgreSQL's combine, deserialize and final functions (in direct mode GpuAgg
 * calls the deserialize and final functions itself, gpuagg_exec.cpp).  So every result —
 * numeric division scale, the Youngs-Cramer finish, NULL for empty input — comes
 * from PostgreSQL's code, and only the states need to be exact:
 *
 *   count, sum(int2/int4)          int8
 *   min/max                        the column type (also date, timestamp(tz))
 *   sum(float4/float8)             float4 / float8
 *   avg(int2/int4)                 int8[2] {count, sum}
 *   avg/var/stddev(float4/float8)  float8[3] {N, Sx, Sxx}
 *   sum/avg(int8)                  bytea: int8_avg_serialize
 *   var/stddev(int2/int4)          bytea: numeric_poly_serialize
 *   var/stddev(int8)               bytea: numeric_serialize
 *   min/max(numeric)               numeric
 *   sum/avg(numeric)               bytea: numeric_avg_serialize
 *
 * The bytea layouts are PostgreSQL 15's (numericvar_serialize: int32 ndigits,
 * weight, sign, dscale, then int16 base-10000 digits; all big-endian).
 */
extern "C" {
#include "postgres.h"

#include "catalog/pg_type.h"
#include "libpq/pqformat.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/float.h"
#include "utils/fmgroids.h"
#include "utils/timestamp.h"

#include "pg_gpu.h"
#include "aggs/agg_catalog.h"
#include "expr/expr_compile.h"
}

typedef struct AggEntry
{
	Oid			aggfnoid;
	PgGpuAggState state;
	Oid			argtype;
} AggEntry;

#define AGG5(prefix, st) \
	{F_##prefix##_INT2, st, INT2OID}, {F_##prefix##_INT4, st, INT4OID}, \
	{F_##prefix##_INT8, st, INT8OID}, {F_##prefix##_FLOAT4, st, FLOAT4OID}, \
	{F_##prefix##_FLOAT8, st, FLOAT8OID}

static const AggEntry agg_table[] = {
	{F_COUNT_, PG_GPU_AGGST_COUNT_STAR, InvalidOid},
	{F_COUNT_ANY, PG_GPU_AGGST_COUNT, InvalidOid},
	AGG5(MIN, PG_GPU_AGGST_MIN),
	AGG5(MAX, PG_GPU_AGGST_MAX),
	AGG5(SUM, PG_GPU_AGGST_SUM),
	AGG5(AVG, PG_GPU_AGGST_AVG),
	AGG5(STDDEV, PG_GPU_AGGST_VAR),
	AGG5(STDDEV_SAMP, PG_GPU_AGGST_VAR),
	AGG5(STDDEV_POP, PG_GPU_AGGST_VAR),
	AGG5(VARIANCE, PG_GPU_AGGST_VAR),
	AGG5(VAR_SAMP, PG_GPU_AGGST_VAR),
	AGG5(VAR_POP, PG_GPU_AGGST_VAR),
	{F_MIN_DATE, PG_GPU_AGGST_MIN, DATEOID},
	{F_MAX_DATE, PG_GPU_AGGST_MAX, DATEOID},
	{F_MIN_TIMESTAMP, PG_GPU_AGGST_MIN, TIMESTAMPOID},
	{F_MAX_TIMESTAMP, PG_GPU_AGGST_MAX, TIMESTAMPOID},
	{F_MIN_TIMESTAMPTZ, PG_GPU_AGGST_MIN, TIMESTAMPTZOID},
	{F_MAX_TIMESTAMPTZ, PG_GPU_AGGST_MAX, TIMESTAMPTZOID},
	{F_MIN_NUMERIC, PG_GPU_AGGST_MIN, NUMERICOID},
	{F_MAX_NUMERIC, PG_GPU_AGGST_MAX, NUMERICOID},
	{F_SUM_NUMERIC, PG_GPU_AGGST_SUM, NUMERICOID},
	{F_AVG_NUMERIC, PG_GPU_AGGST_AVG, NUMERICOID},
};

bool
PgGpuAggLookup(Oid aggfnoid, PgGpuAggState *state, Oid *argtype)
{
	for (size_t i = 0; i < lengthof(agg_table); i++)
		if (agg_table[i].aggfnoid == aggfnoid)
		{
			*state = agg_table[i].state;
			*argtype = agg_table[i].argtype;
			return true;
		}
	return false;
}

int
PgGpuColType(Oid typid)
{
	int			t = PgGpuValueType(typid);

	if (typid == NUMERICOID)
		return PG_GPU_DECIMAL;
	return (t >= PG_GPU_INT2 && t <= PG_GPU_FLOAT8) ? t : 0;
}

/*
 * The input type of an aggregate of the table: PgGpuColType's, and date and
 * timestamp(tz), whose min and max the engine keeps as integers (int32 days,
 * int64 microseconds; ±infinity are the extreme integers, which date_cmp and
 * timestamp_cmp order as integers too).  Only min and max take them
 * (agg_table).
 */
int
PgGpuAggColType(Oid typid)
{
	int			t = PgGpuValueType(typid);

	if (t == PG_GPU_DATE || t == PG_GPU_TIMESTAMP)
		return t;
	return PgGpuColType(typid);
}

static int128
col_sum(const pg_gpu_col_state *c)
{
	return (int128) (((uint128) c->sum_hi << 64) | c->sum_lo);
}

/*
 * numericvar_serialize of the value dec / 10^scale (dec: a signed decimal integer)
 * with display scale dscale: base-10000 digits aligned on the decimal point,
 * most significant first, zero digits stripped at both ends (weight moving with
 * the leading ones); zero has no digits.
 */
static void
send_numericvar_scaled(StringInfo buf, const char *dec, int scale, int dscale)
{
	bool		neg = (*dec == '-');
	const char *d = neg ? dec + 1 : dec;
	int			len = strlen(d);
	int			intd = len - scale;	/* digits before the point (<= 0: none) */
	int			lpad = intd > 0 ? (4 - intd % 4) % 4 : 0;
	char		s[160];
	int			n = 0;
	int16		groups[40];
	int			ng = 0;
	int			weight;
	int			first = 0;

	for (int i = 0; i < lpad; i++)
		s[n++] = '0';
	for (int i = intd; i < 0; i++)
		s[n++] = '0';			/* zeros between the point and the digits */
	memcpy(s + n, d, len);
	n += len;
	while ((n - (intd > 0 ? intd + lpad : 0)) % 4 != 0)
		s[n++] = '0';
	for (int i = 0; i + 4 <= n; i += 4)
		groups[ng++] = (int16) ((s[i] - '0') * 1000 + (s[i + 1] - '0') * 100 +
								(s[i + 2] - '0') * 10 + (s[i + 3] - '0'));
	weight = intd > 0 ? (intd + lpad) / 4 - 1 : -1;
	while (first < ng && groups[first] == 0)
	{
		first++;
		weight--;
	}
	while (ng > first && groups[ng - 1] == 0)
		ng--;
	if (first == ng)
	{
		weight = 0;
		neg = false;
	}
	pq_sendint32(buf, ng - first);	/* ndigits */
	pq_sendint32(buf, weight);
	pq_sendint32(buf, neg ? 0x4000 : 0);
	pq_sendint32(buf, dscale);
	for (int i = first; i < ng; i++)
		pq_sendint16(buf, groups[i]);
}

static void
send_numericvar_dec(StringInfo buf, const char *dec)
{
	send_numericvar_scaled(buf, dec, 0, 0);
}

static void
send_sum(StringInfo buf, const pg_gpu_col_state *c)
{
	char		dec[80];

	pg_gpu_int128_to_dec(c->sum_lo, c->sum_hi, dec);
	send_numericvar_dec(buf, dec);
}

/* The largest dscale a DECIMAL state met. */
static int
max_dscale(const pg_gpu_col_state *c)
{
	int			d = 0;

	for (int i = 0; i < 64; i++)
		if (c->dscales & (UINT64CONST(1) << i))
			d = i;
	return d;
}

/*
 * A DECIMAL input's partial state (its values kept at scale, cuda/decimal.cuh):
 * min/max as numeric (every value's dscale is the scale: the planner asks), sum
 * and avg as numeric_avg_serialize's bytea: N, sumX with the largest dscale met
 * (what accum_sum_final gives PostgreSQL's own state), maxScale and
 * maxScaleCount (read only by the moving-aggregate inverse, which never sees a
 * partial state; the count is N's), and no NaN or infinities (the GPU gives
 * those rows back to PostgreSQL).
 */
static Datum
decimal_partial_state(PgGpuAggState state, int scale, const pg_gpu_col_state *c,
					  bool *isnull)
{
	char		dec[80];
	StringInfoData buf;

	*isnull = (c->n == 0);
	if (c->n == 0)
		return (Datum) 0;
	/* each value below 2^PG_GPU_DEC_BITS: 2^(127 - PG_GPU_DEC_BITS) of them sum exactly */
	if (c->n >= (INT64CONST(1) << (127 - PG_GPU_DEC_BITS)))
		elog(ERROR, "pg_gpu: too many numeric values for an exact GPU sum");
	if (state == PG_GPU_AGGST_MIN || state == PG_GPU_AGGST_MAX)
	{
		int64		v = state == PG_GPU_AGGST_MIN ? c->imin : c->imax;
		char		digits[40];
		char		out[48];
		bool		neg = v < 0;
		uint64		u = neg ? (uint64) 0 - (uint64) v : (uint64) v;
		int			len;

		snprintf(digits, sizeof(digits), UINT64_FORMAT, u);
		len = strlen(digits);
		if (scale == 0)
			snprintf(out, sizeof(out), "%s%s", neg ? "-" : "", digits);
		else
		{
			char		padded[48];
			int			pad = Max(scale + 1 - len, 0);

			memset(padded, '0', pad);
			strcpy(padded + pad, digits);
			len += pad;
			snprintf(out, sizeof(out), "%s%.*s.%s", neg ? "-" : "", len - scale, padded,
					 padded + len - scale);
		}
		return DirectFunctionCall3(numeric_in, CStringGetDatum(out),
								   ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
	}
	pg_gpu_int128_to_dec(c->sum_lo, c->sum_hi, dec);
	pq_begintypsend(&buf);
	pq_sendint64(&buf, c->n);
	send_numericvar_scaled(&buf, dec, scale, max_dscale(c));
	pq_sendint32(&buf, max_dscale(c));
	pq_sendint64(&buf, c->n);
	pq_sendint64(&buf, 0);
	pq_sendint64(&buf, 0);
	pq_sendint64(&buf, 0);
	return PointerGetDatum(pq_endtypsend(&buf));
}

static void
send_sumsq(StringInfo buf, const pg_gpu_col_state *c)
{
	char		dec[80];

	pg_gpu_uint192_to_dec(c->sq_lo, c->sq_mid, c->sq_hi, dec);
	send_numericvar_dec(buf, dec);
}

static Datum
float8_state_array(const pg_gpu_col_state *c)
{
	Datum		d[3];

	d[0] = Float8GetDatumFast(c->yc_n);
	d[1] = Float8GetDatumFast(c->yc_sx);
	d[2] = Float8GetDatumFast(c->yc_sxx);
	return PointerGetDatum(construct_array(d, 3, FLOAT8OID, 8, FLOAT8PASSBYVAL,
										   TYPALIGN_DOUBLE));
}

static void
check_float_overflow(const pg_gpu_col_state *c, uint32 flags)
{
	if (c->flags & flags)
		float_overflow_error();
}

Datum
PgGpuPartialState(PgGpuAggState state, int coltype, const pg_gpu_col_state *c,
				  int64 nrows, bool *isnull)
{
	bool		is_float;
	StringInfoData buf;

	if ((coltype & 0xFF) == PG_GPU_DECIMAL && state != PG_GPU_AGGST_COUNT &&
		state != PG_GPU_AGGST_COUNT_STAR)
		return decimal_partial_state(state, coltype >> 8, c, isnull);
	coltype &= 0xFF;
	is_float = (coltype == PG_GPU_FLOAT4 || coltype == PG_GPU_FLOAT8);
	*isnull = false;
	switch (state)
	{
		case PG_GPU_AGGST_COUNT_STAR:
			return Int64GetDatum(nrows);
		case PG_GPU_AGGST_COUNT:
			return Int64GetDatum(c->n);
		case PG_GPU_AGGST_MIN:
		case PG_GPU_AGGST_MAX:
			{
				bool		min = (state == PG_GPU_AGGST_MIN);

				if (c->n == 0)
					break;
				switch (coltype)
				{
					case PG_GPU_INT2:
						return Int16GetDatum((int16) (min ? c->imin : c->imax));
					case PG_GPU_INT4:
						return Int32GetDatum((int32) (min ? c->imin : c->imax));
					case PG_GPU_INT8:
						return Int64GetDatum(min ? c->imin : c->imax);
					case PG_GPU_DATE:
						/* DateADT: int32 days */
						return DateADTGetDatum((DateADT) (min ? c->imin : c->imax));
					case PG_GPU_TIMESTAMP:
						/* Timestamp and TimestampTz: int64 microseconds */
						return TimestampGetDatum((Timestamp) (min ? c->imin : c->imax));
					case PG_GPU_FLOAT4:
						return Float4GetDatum((float4) (min ? c->fmin : c->fmax));
					default:
						return Float8GetDatum(min ? c->fmin : c->fmax);
				}
			}
		case PG_GPU_AGGST_SUM:
			if (c->n == 0)
				break;
			switch (coltype)
			{
				case PG_GPU_INT2:
				case PG_GPU_INT4:
					{
						/* int8pl combines partial sums and checks overflow */
						int128		s = col_sum(c);

						if (s < (int128) PG_INT64_MIN || s > (int128) PG_INT64_MAX)
							ereport(ERROR,
									(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
									 errmsg("bigint out of range")));
						return Int64GetDatum((int64) s);
					}
				case PG_GPU_FLOAT4:
					check_float_overflow(c, PG_GPU_COLF_FSUM_OVERFLOW);
					return Float4GetDatum((float4) c->fsum);
				case PG_GPU_FLOAT8:
					check_float_overflow(c, PG_GPU_COLF_FSUM_OVERFLOW);
					return Float8GetDatum(c->fsum);
				default:
					/* int8: int8_avg_serialize */
					pq_begintypsend(&buf);
					pq_sendint64(&buf, c->n);
					send_sum(&buf, c);
					return PointerGetDatum(pq_endtypsend(&buf));
			}
		case PG_GPU_AGGST_AVG:
			if (is_float)
			{
				check_float_overflow(c, PG_GPU_COLF_SUM_OVERFLOW | PG_GPU_COLF_SXX_OVERFLOW);
				return float8_state_array(c);
			}
			if (coltype == PG_GPU_INT8)
			{
				if (c->n == 0)
					break;
				pq_begintypsend(&buf);
				pq_sendint64(&buf, c->n);
				send_sum(&buf, c);
				return PointerGetDatum(pq_endtypsend(&buf));
			}
			else
			{
				/* int8[2] {count, sum}; PostgreSQL accumulates sum unchecked */
				Datum		d[2];

				d[0] = Int64GetDatum(c->n);
				d[1] = Int64GetDatum((int64) (uint64) c->sum_lo);
				return PointerGetDatum(construct_array(d, 2, INT8OID, 8, FLOAT8PASSBYVAL,
													   TYPALIGN_DOUBLE));
			}
		case PG_GPU_AGGST_COUNT_DISTINCT:
			/* GpuAgg's fold counts it (gpuagg_fold.cpp): no state here */
			break;
		case PG_GPU_AGGST_VAR:
			if (is_float)
			{
				check_float_overflow(c, PG_GPU_COLF_SUM_OVERFLOW | PG_GPU_COLF_SXX_OVERFLOW);
				return float8_state_array(c);
			}
			if (c->n == 0)
				break;
			pq_begintypsend(&buf);
			pq_sendint64(&buf, c->n);
			send_sum(&buf, c);
			send_sumsq(&buf, c);
			if (coltype == PG_GPU_INT8)
			{
				/* numeric_serialize: maxScale, maxScaleCount, NaN/+Inf/-Inf counts */
				pq_sendint32(&buf, 0);
				pq_sendint64(&buf, c->n);
				pq_sendint64(&buf, 0);
				pq_sendint64(&buf, 0);
				pq_sendint64(&buf, 0);
			}
			return PointerGetDatum(pq_endtypsend(&buf));
	}
	*isnull = true;
	return (Datum) 0;
}
