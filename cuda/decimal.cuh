/*
 * decimal.cuh — numeric as exact scaled 128-bit integers (PG_GPU_DECIMAL).
 *
 * A numeric value v is kept as the integer v * 10^S, S the scale fixed for its
 * column or program by the compiler, with the value's own display scale
 * (dscale) beside it: PostgreSQL prints a sum with the largest dscale of its
 * inputs and a product with the sum of its operands' (docs/SEMANTICS.md 22), so
 * the dscale travels with the value while S only has to be large enough.
 *
 * Every value the kernels keep is below 2^PG_GPU_DEC_BITS in magnitude; anything
 * that would pass it, NaN, +-Infinity and a dscale above S is refused (false):
 * the tuple is an expression error and the query re-runs on the CPU, where
 * PostgreSQL's numeric code gives its own answer.  Refusing costs speed, never
 * exactness.
 */
#ifndef PG_GPU_DECIMAL_CUH
#define PG_GPU_DECIMAL_CUH

#include "agg_state.cuh"

namespace pg_gpu {
namespace cuda {

/* 2^PG_GPU_DEC_BITS: the bound of the values kept */
PG_GPU_HD uint128
dec_limit()
{
	return (uint128) 1 << PG_GPU_DEC_BITS;
}

PG_GPU_HD uint128
dec_abs(int128 v)
{
	return v < 0 ? (uint128) 0 - (uint128) v : (uint128) v;
}

PG_GPU_HD bool
dec_ok(int128 v)
{
	return dec_abs(v) < dec_limit();
}

/* v * 10^k, false beyond the bound (k <= 38) */
PG_GPU_HD bool
dec_rescale(int128 v, int k, int128 *r)
{
	uint128		m = dec_abs(v);

	for (int i = 0; i < k; i++)
	{
		if (m >= dec_limit())
			return false;
		m *= 10;
	}
	if (m >= dec_limit())
		return false;
	*r = v < 0 ? -(int128) m : (int128) m;
	return true;
}

/* a * b within the bound (both already within it) */
PG_GPU_HD bool
dec_mul(int128 a, int128 b, int128 *r)
{
	uint128		x = dec_abs(a);
	uint128		y = dec_abs(b);
	uint128		big = x > y ? x : y;
	uint128		small = x > y ? y : x;
	uint128		m;

	if ((small >> 64) != 0)
		return false;
	if ((big >> 64) != 0 && (small >> 26) != 0)
		return false;
	/* big < 2^90 and small < 2^26, or both < 2^64: the product fits */
	m = (big >> 64) != 0 ? big * small
		: (uint128) (uint64_t) big * (uint64_t) small;
	if (m >= dec_limit())
		return false;
	*r = ((a < 0) != (b < 0)) ? -(int128) m : (int128) m;
	return true;
}

PG_GPU_HD uint16_t
dec_u16(const uint8_t *p)
{
	return (uint16_t) (p[0] | (p[1] << 8));
}

/*
 * A numeric's bytes (after the varlena header, len of them) as v * 10^S and its
 * dscale.  numeric.c's layouts (docs/SEMANTICS.md 21): a 2-byte short header
 * (sign 0x2000, dscale 0x1F80 >> 7, weight in 0x003F with its sign in 0x0040) or
 * a sign/dscale word (sign 0xC000: 0 positive, 0x4000 negative, 0xC000 special;
 * dscale 0x3FFF) and an int16 weight; then int16 base-10000 digits, most
 * significant first, digit i worth 10000^(weight - i), trailing zero digits
 * stripped.  False for NaN, +-Infinity, a dscale above S and a value beyond the
 * bound.
 */
PG_GPU_HD bool
dec_decode(const uint8_t *p, uint32_t len, int S, int128 *v, uint32_t *dscale)
{
	uint16_t	h;
	bool		neg;
	int			weight;
	int			ds;
	const uint8_t *dig;
	int			nd;
	int128		acc = 0;

	if (len < 2)
		return false;
	h = dec_u16(p);
	if ((h & 0xC000) == 0xC000)
		return false;			/* NaN, +Infinity, -Infinity */
	if ((h & 0xC000) == 0x8000)
	{
		neg = (h & 0x2000) != 0;
		ds = (h & 0x1F80) >> 7;
		weight = (h & 0x0040) ? (int) (h & 0x003F) - 64 : (int) (h & 0x003F);
		dig = p + 2;
		nd = (int) (len - 2) / 2;
	}
	else
	{
		if (len < 4)
			return false;
		neg = (h & 0xC000) == 0x4000;
		ds = h & 0x3FFF;
		weight = (int16_t) dec_u16(p + 2);
		dig = p + 4;
		nd = (int) (len - 4) / 2;
	}
	if (ds > S)
		return false;
	*dscale = (uint32_t) ds;
	if (nd == 0)
	{
		*v = 0;
		return true;
	}

	/*
	 * The last digit's place is 10^(4 (weight - nd + 1)); at scale S it is
	 * 10^e.  Horner over the digits, then e's power; when e < 0 (the last digit
	 * reaches below 10^-S, in zeros only, as dscale <= S), the last digit is
	 * divided instead, so no 128-bit division is needed.
	 */
	int			e = 4 * (weight - nd + 1) + S;
	int			last_div = 1;
	int			last_mul = 10000;

	if (e < 0)
	{
		if (e < -3)
			return false;
		for (int i = 0; i < -e; i++)
		{
			last_div *= 10;
			last_mul /= 10;
		}
		e = 0;
	}
	for (int i = 0; i < nd; i++)
	{
		int			d = dec_u16(dig + 2 * i);
		bool		last = (i == nd - 1);

		if (d >= 10000 || acc >= ((int128) 1 << 112))
			return false;
		if (last && last_div > 1)
		{
			if (d % last_div != 0)
				return false;
			acc = acc * last_mul + d / last_div;
		}
		else
			acc = acc * 10000 + d;
	}
	if (!dec_rescale(acc, e, &acc))
		return false;
	*v = neg ? -acc : acc;
	return true;
}

}							/* namespace cuda */
}							/* namespace pg_gpu */

#endif							/* PG_GPU_DECIMAL_CUH */
