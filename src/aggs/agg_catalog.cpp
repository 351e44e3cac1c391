/*
 * agg_catalog.cpp — the aggregates GpuAgg computes and their partial states.
 *
 * GpuAgg does not compute final values itself.  It produces, for every aggregate,
 * the partial state that PostgreSQL's own parallel aggregation would have produced
 * (AGGSPLIT_INITIAL_SERIAL), and a Finalize Aggregate node above it runs
 * PostgreSQL's combine, deserialize and final functions.  So every result —
 * numeric division scale, the Youngs-Cramer finish, NULL for empty input — comes
 * from PostgreSQL's code, and only the states need to be exact:
 *
 *   count, sum(int2/int4)          int8
 *   min/max                        the column type
 *   sum(float4/float8)             float4 / float8
 *   avg(int2/int4)                 int8[2] {count, sum}
 *   avg/var/stddev(float4/float8)  float8[3] {N, Sx, Sxx}
 *   sum/avg(int8)                  bytea: int8_avg_serialize
 *   var/stddev(int2/int4)          bytea: numeric_poly_serialize
 *   var/stddev(int8)               bytea: numeric_serialize
 *
 * The bytea layouts are PostgreSQL 15's (numericvar_serialize: int32 ndigits,
 * weight, sign, dscale, then int16 base-10000 digits; all big-endian).
 */
extern "C" {
#include "postgres.h"

#include "catalog/pg_type.h"
#include "libpq/pqformat.h"
#include "utils/array.h"
#include "utils/float.h"
#include "utils/fmgroids.h"

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

	return (t >= PG_GPU_INT2 && t <= PG_GPU_FLOAT8) ? t : 0;
}

static int128
col_sum(const pg_gpu_col_state *c)
{
	return (int128) (((uint128) c->sum_hi << 64) | c->sum_lo);
}

/*
 * numericvar_serialize of a non-negative decimal digit string and a sign: base-10000
 * groups, most significant first, trailing zero groups stripped, dscale 0.
 */
static void
send_numericvar_dec(StringInfo buf, const char *dec)
{
	bool		neg = (*dec == '-');
	const char *d = neg ? dec + 1 : dec;
	int			len = strlen(d);
	int16		groups[64];
	int			ng = 0;

	while (len > 1 && *d == '0')
	{
		d++;
		len--;
	}
	if (len == 1 && *d == '0')
	{
		pq_sendint32(buf, 0);	/* ndigits */
		pq_sendint32(buf, 0);	/* weight */
		pq_sendint32(buf, 0);	/* sign */
		pq_sendint32(buf, 0);	/* dscale */
		return;
	}
	/* group from the least significant end */
	for (int end = len; end > 0; end -= 4)
	{
		int			start = end >= 4 ? end - 4 : 0;
		int			v = 0;

		for (int i = start; i < end; i++)
			v = v * 10 + (d[i] - '0');
		groups[ng++] = (int16) v;
	}
	int			weight = ng - 1;
	int			lo = 0;

	while (lo < ng && groups[lo] == 0)
		lo++;					/* strip trailing zero groups */
	pq_sendint32(buf, ng - lo);
	pq_sendint32(buf, weight);
	pq_sendint32(buf, neg ? 0x4000 : 0);
	pq_sendint32(buf, 0);
	for (int i = ng - 1; i >= lo; i--)
		pq_sendint16(buf, groups[i]);
}

static void
send_sum(StringInfo buf, const pg_gpu_col_state *c)
{
	char		dec[80];

	pg_gpu_int128_to_dec(c->sum_lo, c->sum_hi, dec);
	send_numericvar_dec(buf, dec);
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
	bool		is_float = (coltype == PG_GPU_FLOAT4 || coltype == PG_GPU_FLOAT8);
	StringInfoData buf;

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
