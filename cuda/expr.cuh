/*
 * expr.cuh — the expression bytecode (pg_gpu_engine.h) evaluated per tuple.
 *
 * One interpreter, __host__ __device__, for the kernels, the host emulation and the
 * unit tests.  It reproduces the arithmetic of PostgreSQL's operators: integer
 * results are range-checked in their own type (int2/int4/int8), float results
 * follow float.h's overflow/underflow/zero-divide checks, comparisons treat NaN as
 * equal to NaN and larger than everything, and AND/OR use SQL's three-valued logic
 * with the same left-to-right short-circuit as ExecEvalAnd/ExecEvalOr, so a tuple
 * raises an error here exactly when PostgreSQL's evaluation of it would.
 *
 * An error does not stop the kernel: eval() returns false, the caller flags the
 * chunk, and the whole query re-runs on the CPU, where PostgreSQL raises its own
 * message.
 */
#ifndef PG_GPU_EXPR_CUH
#define PG_GPU_EXPR_CUH

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "agg_state.cuh"
#include "datetime.cuh"
#include "decimal.cuh"
#include "dict/trie.cuh"

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

/*
 * Linear probing in a key set's slots (keyset.cuh): a slot is 0 (empty) or a
 * hash's high 32 bits and a key's index + 1.  eq(i) compares key i; returns the
 * index found, or -1.
 */
template <typename Eq>
PG_GPU_HD int64_t
set_probe(const uint64_t *tab, uint64_t mask, uint64_t h, Eq &&eq)
{
	for (uint64_t s = h & mask;; s = (s + 1) & mask)
	{
		uint64_t	e = tab[s];

		if (e == 0)
			return -1;
		if ((e >> 32) == (h >> 32) && eq((e & 0xFFFFFFFFu) - 1))
			return (int64_t) (e & 0xFFFFFFFFu) - 1;
	}
}

/* The ordinal of the key of set s equal to x (not NULL) of type t, or -1. */
PG_GPU_HD int64_t
set_find(const pg_gpu_set_ref &s, const pval &x, int t)
{
	const uint64_t *tab = (const uint64_t *) (uintptr_t) s.tab;

	if (!is_text_type(t))
	{
		const int64_t *vals = (const int64_t *) (uintptr_t) s.vals;

		return set_probe(tab, s.mask, mix64(x.bits), [&](uint64_t i) {
			return (uint64_t) vals[i] == x.bits;
		});
	}

	const uint8_t *p = (const uint8_t *) (uintptr_t) x.bits;
	const uint8_t *data = (const uint8_t *) (uintptr_t) s.data;
	const uint64_t *off = (const uint64_t *) (uintptr_t) s.off;
	uint32_t	n = text_len(p, x.len, t);

	if (s.trie)
		return trie_find(*(const trie_view *) (uintptr_t) s.trie, p, n);

	return set_probe(tab, s.mask, text_hash(p, n), [&](uint64_t i) {
		pval		k;

		k.bits = (uint64_t) (uintptr_t) (data + off[i]);
		k.len = (uint32_t) (off[i + 1] - off[i]);
		k.null = false;
		return text_cmp(x, k, t) == 0;
	});
}

/* The index just past the UTF-8 character at s[i]: its continuation bytes are 10xxxxxx. */
PG_GPU_HD uint32_t
utf8_next(const uint8_t *s, uint32_t n, uint32_t i)
{
	for (i++; i < n && (s[i] & 0xC0) == 0x80; i++)
		;
	return i;
}

/*
 * Whether text t matches a compiled LIKE pattern p (PG_GPU_LIKE_ANY/_ONE for % and
 * _, every other byte literal).  Backtracking to the last % only is exact: the
 * pieces between two %s match a fixed number of characters, so the leftmost place
 * of a piece also ends leftmost, and a later % can take up whatever an earlier
 * placement left (docs/SEMANTICS.md 24).  Literal bytes compare as bytes, as
 * PostgreSQL's UTF8_MatchText does; % restarts and _ step by characters, so
 * both stay on character boundaries.  At most tn x pn steps.
 */
PG_GPU_HD bool
like_match(const uint8_t *t, uint32_t tn, const uint8_t *p, uint32_t pn)
{
	const uint32_t none = 0xFFFFFFFFu;
	uint32_t	ti = 0,
				pi = 0;
	uint32_t	star_p = none,
				star_t = 0;

	for (;;)
	{
		if (pi < pn && p[pi] == PG_GPU_LIKE_ANY)
		{
			star_p = ++pi;
			star_t = ti;
			continue;
		}
		if (pi == pn && ti == tn)
			return true;
		if (pi < pn && ti < tn && (p[pi] == PG_GPU_LIKE_ONE || p[pi] == t[ti]))
		{
			ti = p[pi] == PG_GPU_LIKE_ONE ? utf8_next(t, tn, ti) : ti + 1;
			pi++;
			continue;
		}
		/* a mismatch: the last % takes one more character, if there is one */
		if (star_p == none || star_t >= tn)
			return false;
		star_t = utf8_next(t, tn, star_t);
		ti = star_t;
		pi = star_p;
	}
}

/*
 * text_substring's characters skip + 1 .. skip + count of a text value, in place
 * (count PG_GPU_SUBSTR_ALL: to the end); past the end, the empty string.
 */
PG_GPU_HD void
text_substr(pval &x, uint32_t skip, uint32_t count)
{
	const uint8_t *s = (const uint8_t *) (uintptr_t) x.bits;
	uint32_t	n = x.len;
	uint32_t	i = 0,
				j;

	for (uint32_t k = 0; k < skip && i < n; k++)
		i = utf8_next(s, n, i);
	j = i;
	for (uint32_t k = 0; k < count && j < n; k++)
		j = utf8_next(s, n, j);
	x.bits += i;
	x.len = j - i;
}

/*
 * A strict binary operator's operands, x = st[sp - 2] and y = st[sp - 1]: y is
 * popped and x's slot takes the result; false (x made NULL) when either is NULL.
 */
PG_GPU_HD bool
pop_operands(pval *st, int &sp)
{
	pval	   &x = st[sp - 2];
	const pval &y = st[sp - 1];

	sp--;
	if (x.null || y.null)
	{
		x.null = true;
		return false;
	}
	return true;
}

/*
 * Run one program over the tuple's column values.  Returns false if PostgreSQL
 * would raise an error for this tuple.
 */
PG_GPU_HD bool
eval(const pg_gpu_agg_task &task, const pg_gpu_expr &e, const pval *cols, pval *out)
{
	pval		st[PG_GPU_MAX_STACK];
	int			sp = 0;
	int			end = e.start + e.len;

	for (int pc = e.start; pc < end; pc++)
	{
		const pg_gpu_instr in = task.prog[pc];

		switch (in.op)
		{
			case PG_GPU_OP_COL:
				if (in.type == PG_GPU_DECIMAL && cols[in.a].len == kBadDecimal)
					return false;	/* a numeric decimal.cuh does not keep */
				st[sp++] = cols[in.a];
				break;
			case PG_GPU_OP_CONST:
				st[sp] = const_value(task, in.a, in.type);
				if (in.type == PG_GPU_DECIMAL && !st[sp].null)
				{
					st[sp].hi = task.consts[in.a + 1];
					st[sp].len = in.b;	/* dscale */
				}
				sp++;
				break;
			case PG_GPU_OP_RESCALE:
				{
					pval	   &x = st[sp - 1 - (int) in.b];
					int128		r;

					if (x.null)
						break;
					if (!dec_rescale(dec_of(x), in.a, &r))
						return false;
					set_dec(x, r);
					break;
				}
			case PG_GPU_OP_ADD:
			case PG_GPU_OP_SUB:
			case PG_GPU_OP_MUL:
			case PG_GPU_OP_DIV:
			case PG_GPU_OP_MOD:
				{
					pval	   &x = st[sp - 2];
					const pval &y = st[sp - 1];

					if (!pop_operands(st, sp))
						break;
					if (in.type == PG_GPU_DECIMAL)
					{
						/* operands of + and - at one scale (RESCALE) */
						int128		a = dec_of(x),
									b = dec_of(y),
									r;

						if (in.op == PG_GPU_OP_MUL)
						{
							if (!dec_mul(a, b, &r))
								return false;
							x.len += y.len;
						}
						else
						{
							r = in.op == PG_GPU_OP_ADD ? a + b : a - b;
							if (!dec_ok(r))
								return false;
							x.len = x.len > y.len ? x.len : y.len;
						}
						set_dec(x, r);
					}
					else if (is_float_type(in.type))
					{
						double		r;

						if (!float_arith(in.op, as_f(x.bits), as_f(y.bits), in.type, &r))
							return false;
						x.bits = f_bits(r);
					}
					else
					{
						int64_t		r;

						if (!int_arith(in.op, (int64_t) x.bits, (int64_t) y.bits, in.type, &r))
							return false;
						x.bits = (uint64_t) r;
					}
					break;
				}
			case PG_GPU_OP_NEG:
				{
					pval	   &x = st[sp - 1];

					if (x.null)
						break;
					if (in.type == PG_GPU_DECIMAL)
						set_dec(x, -dec_of(x));
					else if (is_float_type(in.type))
						x.bits = f_bits(-as_f(x.bits));
					else
					{
						int128		z = -(int128) (int64_t) x.bits;

						if (!int_in_range(z, in.type))
							return false;
						x.bits = (uint64_t) (int64_t) z;
					}
					break;
				}
			case PG_GPU_OP_CAST:
				{
					pval	   &x = st[sp - 1];

					if (x.null)
						break;
					if (in.type == PG_GPU_DECIMAL)
					{
						/* int2/int4/int8 to numeric: scale and dscale 0 */
						set_dec(x, (int128) (int64_t) x.bits);
						x.len = 0;
					}
					else if (is_float_type(in.type))
					{
						double		d = is_float_type(in.a) ? as_f(x.bits)
							: (double) (int64_t) x.bits;

						if (in.type == PG_GPU_FLOAT4)
						{
							/* i4tof / i8tof round to float; ftod is exact */
							float		f = is_float_type(in.a) ? (float) d
								: (float) (int64_t) x.bits;

							d = f;
						}
						x.bits = f_bits(d);
					}
					else if (in.a == PG_GPU_DECIMAL)
					{
						/* a numeric GROUP BY key's word: its scaled integer, exactly */
						int128		v = dec_of(x);

						if (!int_in_range(v, PG_GPU_INT8))
							return false;
						x.bits = (uint64_t) (int64_t) v;
						x.hi = 0;
						x.len = 0;
					}
					else if (!int_in_range((int128) (int64_t) x.bits, in.type))
						return false;
					break;
				}
			case PG_GPU_OP_CMP:
				{
					pval	   &x = st[sp - 2];
					const pval &y = st[sp - 1];

					if (!pop_operands(st, sp))
						break;
					int			c;

					if (is_text_type(in.type))
						c = text_cmp(x, y, in.type);
					else if (in.type == PG_GPU_DECIMAL)
					{
						/* at one scale (RESCALE): 1.0 = 1.00 */
						int128		a = dec_of(x),
									b = dec_of(y);

						c = a < b ? -1 : (a > b ? 1 : 0);
					}
					else
						c = val_cmp(x.bits, y.bits, in.type);
					x.bits = cmp_holds(c, in.a) ? 1 : 0;
					x.hi = 0;
					x.len = 0;
					break;
				}
			case PG_GPU_OP_AND_BEGIN:
			case PG_GPU_OP_OR_BEGIN:
				st[sp].bits = (in.op == PG_GPU_OP_AND_BEGIN) ? 1 : 0;
				st[sp].len = 0;
				st[sp].null = false;
				sp++;
				break;
			case PG_GPU_OP_AND_STEP:
			case PG_GPU_OP_OR_STEP:
				{
					const pval y = st[--sp];
					pval	   &acc = st[sp - 1];
					uint64_t	decisive = (in.op == PG_GPU_OP_AND_STEP) ? 0 : 1;

					if (y.null && in.b)
					{
						/* a qual list (ExecQual): NULL stops it like FALSE */
						acc.bits = 0;
						acc.null = false;
						pc = in.a - 1;
					}
					else if (y.null)
						acc.null = true;
					else if (y.bits == decisive)
					{
						acc.bits = decisive;
						acc.null = false;
						pc = in.a - 1;	/* skip the remaining arguments */
					}
					break;
				}
			case PG_GPU_OP_NOT:
				if (!st[sp - 1].null)
					st[sp - 1].bits ^= 1;
				break;
			case PG_GPU_OP_ISNULL:
			case PG_GPU_OP_ISNOTNULL:
				st[sp - 1].bits = (st[sp - 1].null == (in.op == PG_GPU_OP_ISNULL)) ? 1 : 0;
				st[sp - 1].null = false;
				break;
			case PG_GPU_OP_IN:
				{
					pval	   &x = st[sp - 1];
					bool		saw_null = false;
					bool		found = false;

					if (x.null)
						break;
					for (uint32_t i = 0; i < in.b && !found; i++)
					{
						pval		k = const_value(task, in.a + i, in.type);

						if (k.null)
							saw_null = true;
						else if ((is_text_type(in.type) ? text_cmp(x, k, in.type)
								  : val_cmp(x.bits, k.bits, in.type)) == 0)
							found = true;
					}
					x.bits = found ? 1 : 0;
					x.null = !found && saw_null;
					break;
				}
			case PG_GPU_OP_IN_SET:
				{
					const pg_gpu_set_ref &set = task.sets[in.a];
					pval	   &x = st[sp - 1];
					bool		found;

					if (!set.nonempty)
					{
						/* x IN (empty) is false, even for a NULL x */
						x.bits = 0;
						x.null = false;
						break;
					}
					if (x.null)
					{
						x.bits = 0;
						x.null = (in.b == 0);
						break;
					}
					found = set_find(set, x, in.type) >= 0;
					x.bits = found ? 1 : 0;
					x.null = !found && in.b == 0 && set.has_null;
					break;
				}
			case PG_GPU_OP_SET_MULT:
				{
					const pg_gpu_set_ref &set = task.sets[in.a];
					pval	   &x = st[sp - 1];
					int64_t		i = (x.null || !set.nonempty) ? -1 : set_find(set, x, in.type);

					x.bits = i < 0 ? 0 : ((const uint64_t *) (uintptr_t) set.mult)[i];
					x.null = false;
					x.len = 0;
					break;
				}
			case PG_GPU_OP_SET_ORD:
				{
					const pg_gpu_set_ref &set = task.sets[in.a];
					pval	   &x = st[sp - 1];
					int64_t		i = (x.null || !set.nonempty) ? -1 : set_find(set, x, in.type);

					x.bits = (uint64_t) (i + 1);
					x.null = i < 0;
					x.len = 0;
					break;
				}
			case PG_GPU_OP_SET_VAL:
				{
					const pg_gpu_set_ref &set = task.sets[in.a];
					pval	   &x = st[sp - 1];
					int64_t		i = (x.null || !set.nonempty) ? -1 : set_find(set, x, in.type);
					uint64_t	at = (uint64_t) in.b * set.pay_n + (uint64_t) i;

					x.null = i < 0 || ((const uint8_t *) (uintptr_t) set.pay_null)[at] != 0;
					x.bits = x.null ? 0 : ((const uint64_t *) (uintptr_t) set.pay)[at];
					x.len = 0;
					break;
				}
			case PG_GPU_OP_JUMP:
				pc = in.a - 1;
				break;
			case PG_GPU_OP_JUMP_UNLESS:
				{
					const pval	c = st[--sp];

					if (c.null || c.bits == 0)
						pc = in.a - 1;	/* the branch not taken is not evaluated */
					break;
				}
			case PG_GPU_OP_JUMP_NOTNULL:
				if (!st[sp - 1].null)
					pc = in.a - 1;
				else
					sp--;
				break;
			case PG_GPU_OP_PICK:
				st[sp] = st[in.a];
				sp++;
				break;
			case PG_GPU_OP_NIP:
				st[sp - 2] = st[sp - 1];
				sp--;
				break;
			case PG_GPU_OP_NULLIF:
				{
					const pval	c = st[--sp];

					if (!c.null && c.bits != 0)
						st[sp - 1].null = true;
					break;
				}
			case PG_GPU_OP_LIKE:
				{
					pval	   &x = st[sp - 1];
					const pval	p = const_value(task, in.a, PG_GPU_TEXT);
					bool		m;

					if (x.null)
						break;
					m = like_match((const uint8_t *) (uintptr_t) x.bits, x.len,
								   (const uint8_t *) (uintptr_t) p.bits, p.len);
					x.bits = (m != (in.b != 0)) ? 1 : 0;
					x.len = 0;
					break;
				}
			case PG_GPU_OP_SUBSTR:
				if (!st[sp - 1].null)
					text_substr(st[sp - 1], (uint32_t) (task.consts[in.a] >> 32),
								(uint32_t) task.consts[in.a]);
				break;
			case PG_GPU_OP_RTRIM:
				if (!st[sp - 1].null)
					st[sp - 1].len = text_len((const uint8_t *) (uintptr_t) st[sp - 1].bits,
											  st[sp - 1].len, PG_GPU_BPCHAR);
				break;
			case PG_GPU_OP_DATEPART:
				{
					pval	   &x = st[sp - 1];
					dt_outcome	o;

					if (x.null)
						break;
					o = dt_eval(in.type, in.a, in.b, x.bits, &x.bits, &x.hi, &x.len);
					if (o == DT_GIVE_BACK)
						return false;	/* re-run on the CPU */
					x.null = o == DT_NULL;
					break;
				}
			default:
				return false;
		}
	}
	*out = st[0];
	return true;
}

}							/* namespace cuda */
}							/* namespace pg_gpu */

#endif							/* PG_GPU_EXPR_CUH */
