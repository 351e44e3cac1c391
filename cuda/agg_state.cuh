/*
 * agg_state.cuh — exact per-column aggregate states, shared by kernels and host.
 *
 * One state per (column, thread), merged up a tree: threads -> block -> chunk ->
 * query.  Every operation here is written once as __host__ __device__ so that the
 * GPU, the host-side merge of block partials and the CPU-reference unit tests all
 * run the same arithmetic.
 *
 * Integers are accumulated exactly (128-bit sum, 192-bit sum of squares), so the
 * final numeric values PostgreSQL computes from (N, Sx, Sxx) are identical to its
 * own.  Floats follow float.c: float8_accum's Youngs-Cramer update per value,
 * float8_combine's merge rule between states, float4pl/float8pl for plain sums, and
 * NaN-largest ordering for min/max.  Overflow from finite inputs is not raised here
 * (kernels cannot ereport); it is recorded in flags and raised by the caller only
 * for the aggregates that would have raised it in PostgreSQL.
 */
#ifndef PG_GPU_AGG_STATE_CUH
#define PG_GPU_AGG_STATE_CUH

#ifdef PG_VERSION_NUM
#error "cuda/ headers must not be compiled together with PostgreSQL headers"
#endif

#include <math.h>
#include <stdint.h>

#include "pg_gpu_engine.h"

#if defined(__CUDACC__)
#define PG_GPU_HD __host__ __device__ __forceinline__
#else
#define PG_GPU_HD inline
#endif

namespace pg_gpu {
namespace cuda {

typedef __int128 int128;
typedef unsigned __int128 uint128;

PG_GPU_HD bool
is_float_type(int t)
{
	return t == PG_GPU_FLOAT4 || t == PG_GPU_FLOAT8;
}

PG_GPU_HD bool
is_inf(double x)
{
	return isinf(x);
}

/* PostgreSQL's float ordering: NaN equals NaN and sorts above everything. */
PG_GPU_HD bool
float_lt(double a, double b)
{
	if (isnan(a))
		return false;
	if (isnan(b))
		return true;
	return a < b;
}

PG_GPU_HD void
state_init(pg_gpu_col_state &s, int coltype)
{
	(void) coltype;
	s.n = 0;
	s.imin = INT64_MAX;
	s.imax = INT64_MIN;
	s.sum_lo = s.sum_hi = 0;
	s.sq_lo = s.sq_mid = s.sq_hi = 0;
	s.fmin = s.fmax = 0.0;
	s.yc_n = s.yc_sx = s.yc_sxx = 0.0;
	s.fsum = 0.0;
	s.dscales = 0;
	s.flags = 0;
}

PG_GPU_HD int128
load_i128(uint64_t lo, uint64_t hi)
{
	return (int128) (((uint128) hi << 64) | lo);
}

PG_GPU_HD void
store_i128(int128 v, uint64_t &lo, uint64_t &hi)
{
	lo = (uint64_t) (uint128) v;
	hi = (uint64_t) ((uint128) v >> 64);
}

/* 192-bit unsigned add of a 128-bit addend */
PG_GPU_HD void
add_u192(pg_gpu_col_state &s, uint128 v)
{
	uint128		low = ((uint128) s.sq_mid << 64) | s.sq_lo;
	uint128		r = low + v;

	if (r < low)
		s.sq_hi++;
	s.sq_lo = (uint64_t) r;
	s.sq_mid = (uint64_t) (r >> 64);
}

PG_GPU_HD void
accum_int(pg_gpu_col_state &s, int64_t x)
{
	s.n++;
	if (x < s.imin)
		s.imin = x;
	if (x > s.imax)
		s.imax = x;
	store_i128(load_i128(s.sum_lo, s.sum_hi) + (int128) x, s.sum_lo, s.sum_hi);
	uint128		ax = (uint128) (x < 0 ? -(int128) x : (int128) x);

	add_u192(s, ax * ax);
}

/*
 * A DECIMAL (decimal.cuh): exact count, 128-bit sum of the scaled values, min
 * and max (kept only when they fit 64 bits: eval_row refuses the others), and
 * the dscales met.  Below 2^PG_GPU_DEC_BITS each, 2^36 values sum exactly.
 */
PG_GPU_HD void
accum_dec(pg_gpu_col_state &s, int128 x, uint32_t dscale)
{
	s.n++;
	if ((int64_t) x < s.imin)
		s.imin = (int64_t) x;
	if ((int64_t) x > s.imax)
		s.imax = (int64_t) x;
	store_i128(load_i128(s.sum_lo, s.sum_hi) + x, s.sum_lo, s.sum_hi);
	s.dscales |= 1ULL << (dscale & 63);
}

/* float8_accum: one Youngs-Cramer step, with its overflow and NaN rules */
PG_GPU_HD void
yc_accum(pg_gpu_col_state &s, double x)
{
	double		n0 = s.yc_n;
	double		sx0 = s.yc_sx;
	double		n = n0 + 1.0;
	double		sx = sx0 + x;
	double		sxx = s.yc_sxx;

	if (n0 > 0.0)
	{
		double		tmp = x * n - sx;

		sxx += tmp * tmp / (n * n0);
		if (is_inf(sx) || is_inf(sxx))
		{
			if (!is_inf(sx0) && !is_inf(x))
				s.flags |= is_inf(sx) ? PG_GPU_COLF_SUM_OVERFLOW : PG_GPU_COLF_SXX_OVERFLOW;
			sxx = NAN;
		}
	}
	else if (isnan(x) || is_inf(x))
		sxx = NAN;
	s.yc_n = n;
	s.yc_sx = sx;
	s.yc_sxx = sxx;
}

/* float8_combine */
PG_GPU_HD void
yc_combine(pg_gpu_col_state &a, const pg_gpu_col_state &b)
{
	if (b.yc_n == 0.0)
		return;
	if (a.yc_n == 0.0)
	{
		a.yc_n = b.yc_n;
		a.yc_sx = b.yc_sx;
		a.yc_sxx = b.yc_sxx;
		return;
	}
	double		n = a.yc_n + b.yc_n;
	double		sx = a.yc_sx + b.yc_sx;

	if (is_inf(sx) && !is_inf(a.yc_sx) && !is_inf(b.yc_sx))
		a.flags |= PG_GPU_COLF_SUM_OVERFLOW;
	double		tmp = a.yc_sx / a.yc_n - b.yc_sx / b.yc_n;
	double		sxx = a.yc_sxx + b.yc_sxx + a.yc_n * b.yc_n * tmp * tmp / n;

	if (is_inf(sxx) && !is_inf(a.yc_sxx) && !is_inf(b.yc_sxx))
		a.flags |= PG_GPU_COLF_SXX_OVERFLOW;
	a.yc_n = n;
	a.yc_sx = sx;
	a.yc_sxx = sxx;
}

/*
 * float4pl / float8pl applied to the running plain sum, in the column's precision.
 * sum() has no initial value: the first input becomes the state as it is.
 */
PG_GPU_HD void
fsum_add(pg_gpu_col_state &s, double x, bool first, int coltype)
{
	if (first)
	{
		s.fsum = x;
		return;
	}
	if (coltype == PG_GPU_FLOAT4)
	{
		float		a = (float) s.fsum;
		float		r = a + (float) x;

		if (isinf(r) && !isinf(a) && !isinf((float) x))
			s.flags |= PG_GPU_COLF_FSUM_OVERFLOW;
		s.fsum = r;
		return;
	}
	double		r = s.fsum + x;

	if (is_inf(r) && !is_inf(s.fsum) && !is_inf(x))
		s.flags |= PG_GPU_COLF_FSUM_OVERFLOW;
	s.fsum = r;
}

PG_GPU_HD void
accum_float(pg_gpu_col_state &s, double x, int coltype)
{
	bool		first = (s.n == 0);

	if (first)
		s.fmin = s.fmax = x;
	else
	{
		/* float8smaller / float8larger: ties go to the newer value */
		if (!float_lt(s.fmin, x))
			s.fmin = x;
		if (!float_lt(x, s.fmax))
			s.fmax = x;
	}
	fsum_add(s, x, first, coltype);
	yc_accum(s, x);
	s.n++;
}

/* Fold element i of a plain array of coltype values (the gpu_* reductions). */
PG_GPU_HD void
accum_value_at(pg_gpu_col_state &s, const void *values, int64_t i, int coltype)
{
	switch (coltype)
	{
		case PG_GPU_INT2:
			accum_int(s, ((const int16_t *) values)[i]);
			break;
		case PG_GPU_INT4:
			accum_int(s, ((const int32_t *) values)[i]);
			break;
		case PG_GPU_INT8:
			accum_int(s, ((const int64_t *) values)[i]);
			break;
		case PG_GPU_FLOAT4:
			accum_float(s, ((const float *) values)[i], coltype);
			break;
		default:
			accum_float(s, ((const double *) values)[i], coltype);
			break;
	}
}

PG_GPU_HD void
state_merge(pg_gpu_col_state &a, const pg_gpu_col_state &b, int coltype)
{
	if (b.n == 0)
	{
		a.flags |= b.flags;
		return;
	}
	if (is_float_type(coltype))
	{
		if (a.n == 0)
		{
			a.fmin = b.fmin;
			a.fmax = b.fmax;
			a.fsum = b.fsum;
		}
		else
		{
			if (!float_lt(a.fmin, b.fmin))
				a.fmin = b.fmin;
			if (!float_lt(b.fmax, a.fmax))
				a.fmax = b.fmax;
			fsum_add(a, b.fsum, false, coltype);
		}
		yc_combine(a, b);
	}
	else
	{
		if (b.imin < a.imin)
			a.imin = b.imin;
		if (b.imax > a.imax)
			a.imax = b.imax;
		store_i128(load_i128(a.sum_lo, a.sum_hi) + load_i128(b.sum_lo, b.sum_hi),
				   a.sum_lo, a.sum_hi);
		uint128		bl = ((uint128) b.sq_mid << 64) | b.sq_lo;

		add_u192(a, bl);
		a.sq_hi += b.sq_hi;
		a.dscales |= b.dscales;
	}
	a.n += b.n;
	a.flags |= b.flags;
}

}							/* namespace cuda */
}							/* namespace pg_gpu */

#endif							/* PG_GPU_AGG_STATE_CUH */
