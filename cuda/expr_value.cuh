/*
 * expr_value.cuh — a value of the expression interpreter (expr.cuh) and the
 * operations on it that do not depend on where it came from.
 *
 * pval is what eval() keeps on its stack: a 64-bit word (integer, double, the
 * address of text bytes, a DECIMAL's low half), a NULL flag, a length and a
 * DECIMAL's high half.  Here are PostgreSQL's rules for such values: integer
 * results range-checked in their own type, float.h's overflow and zero-divide
 * checks, NaN ordered above everything, text compared as bytes (bpchar without
 * its trailing blanks), and the hashes key sets use.  Kept apart from the
 * interpreter's loop so that the loop reads as one switch; __host__ __device__,
 * like everything expr.cuh includes.
 */
#ifndef PG_GPU_EXPR_VALUE_CUH
#define PG_GPU_EXPR_VALUE_CUH

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "agg_state.cuh"

namespace pg_gpu {
namespace cuda {

struct pval
{
	uint64_t	bits;			/* int64, double, the address of text bytes, or
								 * a DECIMAL's low 64 bits */
	bool		null;
	uint32_t	len;			/* text: bytes (kToasted: not readable here);
								 * DECIMAL: dscale (kBadDecimal: not exact
								 * here) */
	uint64_t	hi;				/* DECIMAL: the high 64 bits (last, so that
								 * {bits, null} initialises the others) */
};

constexpr uint32_t kToasted = 0xFFFFFFFFu;
constexpr uint32_t kBadDecimal = 0xFFFFFFFEu;

PG_GPU_HD int128
dec_of(const pval &v)
{
	return load_i128(v.bits, v.hi);
}

PG_GPU_HD void
set_dec(pval &v, int128 x)
{
	store_i128(x, v.bits, v.hi);
}

PG_GPU_HD bool
is_text_type(int t)
{
	return t == PG_GPU_TEXT || t == PG_GPU_BPCHAR;
}

PG_GPU_HD double
as_f(uint64_t b)
{
	double		d;

	memcpy(&d, &b, 8);
	return d;
}

PG_GPU_HD uint64_t
f_bits(double d)
{
	uint64_t	b;

	memcpy(&b, &d, 8);
	return b;
}

/* int range of a result type */
PG_GPU_HD bool
int_in_range(int128 v, int t)
{
	switch (t)
	{
		case PG_GPU_INT2:
			return v >= -32768 && v <= 32767;
		case PG_GPU_INT4:
		case PG_GPU_DATE:
			return v >= (int128) INT32_MIN && v <= (int128) INT32_MAX;
		default:
			return v >= (int128) INT64_MIN && v <= (int128) INT64_MAX;
	}
}

/* PostgreSQL's float comparison: NaN = NaN, NaN above everything, -0 = 0 */
PG_GPU_HD int
float_cmp(double a, double b)
{
	if (isnan(a))
		return isnan(b) ? 0 : 1;
	if (isnan(b))
		return -1;
	return a < b ? -1 : (a > b ? 1 : 0);
}

/* A varlena's bytes (kToasted when compressed or a TOAST pointer). */
PG_GPU_HD void
text_value(const uint8_t *p, pval &v)
{
	uint8_t		b = p[0];

	v.len = kToasted;
	if (b == 0x01)
		return;					/* TOAST pointer */
	if (b & 0x01)
	{
		v.bits = (uint64_t) (uintptr_t) (p + 1);	/* short header */
		v.len = (uint32_t) (b >> 1) - 1;
		return;
	}
	if ((b & 0x03) != 0)
		return;					/* compressed in line */
	uint32_t	w;

	memcpy(&w, p, 4);
	v.bits = (uint64_t) (uintptr_t) (p + 4);
	v.len = (w >> 2) - 4;
}

/* A 64-bit finaliser: every input bit moves every output bit. */
PG_GPU_HD uint64_t
mix64(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	return h;
}

/* FNV-1a over the bytes, mixed */
PG_GPU_HD uint64_t
text_hash(const uint8_t *p, uint32_t n)
{
	uint64_t	h = 0xcbf29ce484222325ULL;

	for (uint32_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return mix64(h ^ n);
}

/* Bytes that count: bpchar ignores trailing blanks (bcTruelen). */
PG_GPU_HD uint32_t
text_len(const uint8_t *p, uint32_t len, int t)
{
	if (t == PG_GPU_BPCHAR)
		while (len > 0 && p[len - 1] == ' ')
			len--;
	return len;
}

/* Byte order, shorter first on a common prefix (C collation's varstr_cmp). */
PG_GPU_HD int
text_cmp(const pval &x, const pval &y, int t)
{
	const uint8_t *a = (const uint8_t *) (uintptr_t) x.bits;
	const uint8_t *b = (const uint8_t *) (uintptr_t) y.bits;
	uint32_t	la = text_len(a, x.len, t);
	uint32_t	lb = text_len(b, y.len, t);
	uint32_t	n = la < lb ? la : lb;

	for (uint32_t i = 0; i < n; i++)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return la < lb ? -1 : (la > lb ? 1 : 0);
}

/* A constant as a value (text: its bytes in the task's pool). */
PG_GPU_HD pval
const_value(const pg_gpu_agg_task &task, int i, int t)
{
	pval		v;

	v.bits = task.consts[i];
	v.hi = 0;
	v.len = 0;
	v.null = (task.const_null >> i) & 1;
	if (!v.null && is_text_type(t))
	{
		v.len = (uint32_t) v.bits;
		v.bits = (uint64_t) (uintptr_t) (task.strpool + (v.bits >> 32));
	}
	return v;
}

PG_GPU_HD int
val_cmp(uint64_t a, uint64_t b, int t)
{
	if (is_float_type(t))
		return float_cmp(as_f(a), as_f(b));
	int64_t		x = (int64_t) a,
				y = (int64_t) b;

	return x < y ? -1 : (x > y ? 1 : 0);
}

PG_GPU_HD bool
cmp_holds(int c, int s)
{
	switch (s)
	{
		case PG_GPU_CMP_LT:
			return c < 0;
		case PG_GPU_CMP_LE:
			return c <= 0;
		case PG_GPU_CMP_EQ:
			return c == 0;
		case PG_GPU_CMP_GE:
			return c >= 0;
		case PG_GPU_CMP_GT:
			return c > 0;
		default:
			return c != 0;
	}
}

/*
 * float.h's float8_pl/mi/mul/div and float4_* with their error checks, in the
 * operands' own type F (float4 arithmetic rounds in single precision).
 */
template <typename F>
PG_GPU_HD bool
float_op(int op, F x, F y, F *r)
{
	F			z;

	switch (op)
	{
		case PG_GPU_OP_ADD:
			z = x + y;
			if (isinf(z) && !isinf(x) && !isinf(y))
				return false;
			break;
		case PG_GPU_OP_SUB:
			z = x - y;
			if (isinf(z) && !isinf(x) && !isinf(y))
				return false;
			break;
		case PG_GPU_OP_MUL:
			z = x * y;
			if ((isinf(z) && !isinf(x) && !isinf(y)) ||
				(z == (F) 0 && x != (F) 0 && y != (F) 0))
				return false;
			break;
		default:
			if (y == (F) 0 && !isnan(x))
				return false;
			z = x / y;
			if ((isinf(z) && !isinf(x)) || (z == (F) 0 && x != (F) 0 && !isinf(y)))
				return false;
			break;
	}
	*r = z;
	return true;
}

/* An operator of type t (float4 or float8) on values held as doubles. */
PG_GPU_HD bool
float_arith(int op, double a, double b, int t, double *r)
{
	if (t == PG_GPU_FLOAT4)
	{
		float		z;

		if (!float_op<float>(op, (float) a, (float) b, &z))
			return false;
		*r = z;
		return true;
	}
	return float_op<double>(op, a, b, r);
}

/* int2/int4/int8 operators: checked in the result type */
PG_GPU_HD bool
int_arith(int op, int64_t a, int64_t b, int t, int64_t *r)
{
	int128		z;

	switch (op)
	{
		case PG_GPU_OP_ADD:
			z = (int128) a + b;
			break;
		case PG_GPU_OP_SUB:
			z = (int128) a - b;
			break;
		case PG_GPU_OP_MUL:
			z = (int128) a * b;
			break;
		case PG_GPU_OP_DIV:
			if (b == 0)
				return false;
			z = (int128) a / b;		/* INT_MIN / -1 fails the range check */
			break;
		default:				/* MOD */
			if (b == 0)
				return false;
			z = (b == -1) ? 0 : (int128) (a % b);
			break;
	}
	if (!int_in_range(z, t))
		return false;
	*r = (int64_t) z;
	return true;
}

}							/* namespace cuda */
}							/* namespace pg_gpu */

#endif							/* PG_GPU_EXPR_VALUE_CUH */
