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
 *
 * The value type and its arithmetic are in expr_value.cuh, reading a column's
 * value from a tuple or a column-cache row in expr_load.cuh; here are key-set
 * probes, LIKE and substring, and eval() itself.
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
#include "expr_load.cuh"
#include "expr_value.cuh"

namespace pg_gpu {
namespace cuda {

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

/*
 * Whether key i of set s (its payload: each key's least and greatest value,
 * columns 0 and 1) has a value other than the word x (not NULL): a semi-join's
 * inner.b <> x for some row of the key (PG_GPU_OP_SET_NE).  A key whose
 * values were all NULL has none (NULL payload).
 */
PG_GPU_HD bool
set_ne_match(const pg_gpu_set_ref &s, int64_t i, uint64_t x)
{
	const uint64_t *pay = (const uint64_t *) (uintptr_t) s.pay;
	const uint8_t *pay_null = (const uint8_t *) (uintptr_t) s.pay_null;

	if (i < 0 || s.npay < 2 || pay_null[i] != 0)
		return false;
	return pay[i] != x || pay[s.pay_n + (uint64_t) i] != x;
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
			case PG_GPU_OP_SET_NE:
				{
					const pg_gpu_set_ref &set = task.sets[in.a];
					const pval	x = st[--sp];
					pval	   &k = st[sp - 1];
					int64_t		i = (k.null || x.null || !set.nonempty) ? -1
						: set_find(set, k, in.type);

					k.bits = set_ne_match(set, i, x.bits) ? 1 : 0;
					k.null = false;
					k.len = 0;
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
