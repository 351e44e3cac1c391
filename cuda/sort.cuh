/*
 * sort.cuh — GpuSort's key encoding, shared by the kernels and the host emulation.
 *
 * Every sort key becomes unsigned words whose unsigned order is the key's order
 * under PostgreSQL's default btree operator class, with the direction and NULL
 * placement of its ORDER BY item folded in (SEMANTICS.md 10):
 *
 *   narrow keys (int2, int4, date, float4, bool): one word, NULL rank << 32 | value
 *   wide keys (int8, timestamp[tz], float8):      a value word, and a NULL-rank word
 *
 * Floats: all NaNs are one value above +Infinity, -0 is 0.  DESC flips the value
 * bits, not the NULL rank, which follows NULLS FIRST/LAST alone.  The engine sorts
 * the words least significant key first with a stable radix sort (CUB), one pass
 * per word (a NULL-rank pass only when the key met a NULL), so the result is the
 * lexicographic order of the keys.
 */
#ifndef PG_GPU_SORT_CUH
#define PG_GPU_SORT_CUH

#include "expr.cuh"

namespace pg_gpu {
namespace cuda {

PG_GPU_HD bool
sort_key_wide(int type)
{
	return type == PG_GPU_INT8 || type == PG_GPU_TIMESTAMP || type == PG_GPU_FLOAT8;
}

/* Bits of a key's value word that the radix sort must look at. */
PG_GPU_HD int
sort_value_bits(int type)
{
	return sort_key_wide(type) ? 64 : 33;
}

/* Order-preserving encoding of a non-NULL key value, ascending. */
PG_GPU_HD uint64_t
sort_value_enc(const pval &v, int type)
{
	switch (type)
	{
		case PG_GPU_FLOAT4:
			{
				float		f = (float) as_f(v.bits);
				uint32_t	b;

				if (isnan(f))
					return 0xFFFFFFFFu;
				if (f == 0.0f)
					f = 0.0f;
				memcpy(&b, &f, 4);
				return (b >> 31) ? (uint32_t) ~b : (b | 0x80000000u);
			}
		case PG_GPU_FLOAT8:
			{
				double		d = as_f(v.bits);
				uint64_t	b;

				if (isnan(d))
					return ~0ULL;
				if (d == 0.0)
					d = 0.0;
				b = f_bits(d);
				return (b >> 63) ? ~b : (b | (1ULL << 63));
			}
		case PG_GPU_INT8:
		case PG_GPU_TIMESTAMP:
			return v.bits ^ (1ULL << 63);
		case PG_GPU_BOOL:
			return v.bits ? 1 : 0;
		default:				/* int2, int4, date: sign-extended int64 */
			return (uint32_t) ((int32_t) (int64_t) v.bits) ^ 0x80000000u;
	}
}

/*
 * A row's sort words: w[2k] the value word of key k, w[2k + 1] its NULL rank (wide
 * keys).  *nulls gets bit k set when key k is NULL.
 */
PG_GPU_HD void
sort_encode(const pg_gpu_agg_task &t, const pval *keys, uint64_t *w, uint32_t *nulls)
{
	*nulls = 0;
	for (int k = 0; k < t.nkeys; k++)
	{
		int			ty = t.keys[k].type;
		bool		wide = sort_key_wide(ty);
		uint64_t	rank = (keys[k].null == (t.key_nulls_first[k] != 0)) ? 0 : 1;
		uint64_t	v = 0;

		if (keys[k].null)
			*nulls |= 1u << k;
		else
		{
			v = sort_value_enc(keys[k], ty);
			if (t.key_desc[k])
				v = wide ? ~v : (v ^ 0xFFFFFFFFu);
		}
		if (wide)
		{
			w[2 * k] = v;
			w[2 * k + 1] = rank;
		}
		else
		{
			w[2 * k] = (rank << 32) | v;
			w[2 * k + 1] = 0;
		}
	}
}

/* Row reference: page ordinal, line pointer number (from 1), tuple length. */
PG_GPU_HD uint64_t
sort_ref(uint64_t page, uint32_t lp, uint32_t len)
{
	return (page << 32) | ((uint64_t) lp << 16) | (len & 0xFFFF);
}

}							/* namespace cuda */
}							/* namespace pg_gpu */

#endif							/* PG_GPU_SORT_CUH */
