/*
 * expr_load.cuh — column values as the interpreter (expr.cuh) reads them: from a
 * deformed tuple (load_col) or from a row of the column cache (load_cached),
 * and the column cache's own cell formats that its fill writes (cc_store_*).
 *
 * The cache fill (cuda/scan/cc_fill.cu), its emulation and the kernels' row
 * walk all come through here, so a cached value and the same value read from
 * its page give eval() the same pval.
 */
#ifndef PG_GPU_EXPR_LOAD_CUH
#define PG_GPU_EXPR_LOAD_CUH

#include <stdint.h>
#include <string.h>

#include "decimal.cuh"
#include "expr_value.cuh"

namespace pg_gpu {
namespace cuda {

/*
 * A deformed column value as a pval (scale: a DECIMAL column's).  A numeric
 * the kernels cannot keep exactly (decimal.cuh) has len kBadDecimal.
 */
PG_GPU_HD pval
load_col(const uint8_t *p, int t, int scale = 0)
{
	pval		v;

	v.null = (p == nullptr);
	v.bits = 0;
	v.hi = 0;
	v.len = 0;
	if (v.null)
		return v;
	switch (t)
	{
		case PG_GPU_DECIMAL:
			{
				pval		raw;
				int128		x;
				uint32_t	ds;

				text_value(p, raw);
				if (raw.len == kToasted)
					v.len = kToasted;
				else if (!dec_decode((const uint8_t *) (uintptr_t) raw.bits, raw.len,
									 scale, &x, &ds))
					v.len = kBadDecimal;
				else
				{
					set_dec(v, x);
					v.len = ds;
				}
				break;
			}
		case PG_GPU_TEXT:
		case PG_GPU_BPCHAR:
		case PG_GPU_NUMERIC:
			text_value(p, v);
			break;
		case PG_GPU_BOOL:
			v.bits = p[0] != 0;
			break;
		case PG_GPU_INT2:
			{
				int16_t		x;

				memcpy(&x, p, 2);
				v.bits = (uint64_t) (int64_t) x;
				break;
			}
		case PG_GPU_INT4:
		case PG_GPU_DATE:
			{
				int32_t		x;

				memcpy(&x, p, 4);
				v.bits = (uint64_t) (int64_t) x;
				break;
			}
		case PG_GPU_FLOAT4:
			{
				float		x;

				memcpy(&x, p, 4);
				v.bits = f_bits((double) x);
				break;
			}
		case PG_GPU_INT8:
		case PG_GPU_FLOAT8:
		case PG_GPU_TIMESTAMP:
			memcpy(&v.bits, p, 8);
			break;
		default:				/* PG_GPU_ANY: only NULL-ness */
			break;
	}
	return v;
}

/*
 * A numeric column's value as the column cache keeps it (pg_gpu_engine.h):
 * load_col's DECIMAL, or marked bad.  The cache fill and its emulation both.
 */
PG_GPU_HD void
cc_store_decimal(uint64_t *dst, const uint8_t *src, int scale)
{
	pval		v = load_col(src, PG_GPU_DECIMAL, scale);

	if (v.len == kBadDecimal || v.len == kToasted)
	{
		dst[0] = 0;
		dst[1] = PG_GPU_CC_DEC_BAD;
		return;
	}
	dst[0] = v.bits;
	dst[1] = v.hi;
}

/*
 * A char(n) or varchar(n) value as the column cache keeps it (pg_gpu_engine.h):
 * a short varlena in a cell of width bytes (the rest 0), as a page holds it; a
 * 4-byte header made short; a value that does not fit, or one that is
 * compressed or out of line, a cell that starts with PG_GPU_CC_TEXT_BAD (a TOAST
 * pointer's header: text_value reads it as kToasted).  The cache fill and its
 * emulation both.
 */
PG_GPU_HD void
cc_store_text(uint8_t *dst, const uint8_t *src, int width)
{
	uint8_t		b = src[0];
	const uint8_t *data = nullptr;
	uint32_t	n = 0;

	if (b != 0x01 && (b & 0x01))
	{
		data = src + 1;			/* short header: its length counts it */
		n = (uint32_t) (b >> 1) - 1;
	}
	else if ((b & 0x03) == 0)
	{
		uint32_t	w;

		memcpy(&w, src, 4);		/* 4-byte header, not compressed */
		data = src + 4;
		n = (w >> 2) - 4;
	}
	for (int i = 0; i < width; i++)
		dst[i] = 0;
	if (data == nullptr || n + 1 > (uint32_t) width)
	{
		dst[0] = PG_GPU_CC_TEXT_BAD;
		return;
	}
	dst[0] = (uint8_t) (((n + 1) << 1) | 0x01);
	for (uint32_t i = 0; i < n; i++)
		dst[1 + i] = data[i];
}

/*
 * A cached row's value (pg_gpu_cc_seg): fixed-width values as in a tuple; a
 * DECIMAL column holds the decoded value, its dscale the column's scale (only
 * numeric(p,s) columns are cached); a text cell is read as a tuple's short
 * varlena (load_col), a bad one as a toasted value.
 */
PG_GPU_HD pval
load_cached(const uint8_t *p, int t, int scale)
{
	pval		v;

	if (t != PG_GPU_DECIMAL || p == nullptr)
		return load_col(p, t, scale);
	v.null = false;
	memcpy(&v.bits, p, 8);
	memcpy(&v.hi, p + 8, 8);
	v.len = (uint32_t) scale;
	if (v.hi == PG_GPU_CC_DEC_BAD)
		v.len = kBadDecimal;
	return v;
}

}							/* namespace cuda */
}							/* namespace pg_gpu */

#endif							/* PG_GPU_EXPR_LOAD_CUH */
