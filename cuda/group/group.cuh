/*
 * group.cuh — GpuAgg's hash table for GROUP BY, shared by kernels and host.
 *
 * Open addressing with linear probing over entries of 64-bit words:
 *
 *   [0] status: 0 empty, 1 being initialised, else (hash & ~3) | 2 (ready)
 *   [1] rows (count(*) of the group)
 *   [2] NULL mask of the keys
 *   [3 .. 3+nkeys)  key words (int64 values; floats as normalised double bits;
 *                   text: 32 bits of the bytes' hash << 32 | their length)
 *   [kptr ..+nkeys) when a key is text: the address of the group's copy of its
 *                   value, a 4-byte-header varlena in the string arena
 *   then each aggregate input's state, only the words its aggregates need
 *
 * The thread that claims an empty entry (CAS 0 -> 1) writes the keys (copying text
 * bytes into the table's string arena: for the global table a device buffer whose
 * room the host reserves before every chunk, for a shared-memory table a block of
 * shared memory, so that only keys new to the global table are copied to global
 * memory) and the initial state, then publishes it; everybody else updates states with atomics, so
 * no entry is ever locked while values are folded in.  Every state word is
 * order-independent except float sums, whose order PostgreSQL's parallel plans leave
 * open too (docs/SEMANTICS.md 5):
 *
 *   integers   count, min, max (atomicMin/Max), exact int128 sum and uint192 sum of
 *              squares through carry-propagating 64-bit atomic adds
 *   floats     count, min/max on an order-preserving encoding with NaN largest,
 *              the plain sum (float4 in float precision, starting at -0 so that
 *              sum(-0) is -0 as in float8pl), Sx, and the sums of (x - c) and
 *              (x - c)^2 around a shift c taken from the group's first value.
 *              Sxx = S(d^2) - S(d)^2/N is then computed around a value inside the
 *              data, so it does not cancel the way the textbook formula does
 *              (PostgreSQL's values-near-1e8 test passes).  Inf/NaN inputs set flags
 *              and give Sxx = NaN, as float8_accum does.
 *
 * The same code runs with DevAtomics (global or shared memory) in the kernels and
 * with HostAtomics in the host emulation.  Few groups are first aggregated in a
 * per-block table in shared memory (no contention on a handful of global
 * addresses); the block merges it into the global table when it finishes.
 */
#ifndef PG_GPU_GROUP_CUH
#define PG_GPU_GROUP_CUH

#include "expr.cuh"
#include "group/group_atomics.cuh"	/* the atomics the entries' words take */

namespace pg_gpu {
namespace cuda {

constexpr int kWStatus = 0;
constexpr int kWRows = 1;
constexpr int kWNulls = 2;
constexpr int kWKeys = 3;

constexpr uint64_t kShiftUnset = 0x7ff4dead5eed0001ULL;	/* a NaN no input has */
/* sqrt(DBL_MAX) / 2 is 6.7e153: see group_col_state */
constexpr double kYcSafeBound = 1e153;
constexpr uint64_t kFlagNaN = 0x1;
constexpr uint64_t kFlagInf = 0x2;

/* Word offsets of one input's state inside an entry (-1: absent). */
struct input_layout
{
	int16_t		n;
	int16_t		min;			/* min, max */
	int16_t		sum;			/* int: lo, hi */
	int16_t		sq;				/* int: three words */
	int16_t		flags;			/* float */
	int16_t		fsum;			/* float */
	int16_t		sx;				/* float */
	int16_t		sd;				/* float: sd, sdd, c */
};

struct group_layout
{
	int			words;
	int			kptr;			/* text keys' arena addresses (-1: no text key) */
	input_layout in[PG_GPU_MAX_AGG_COLS];
};

/* Where new entries copy their text keys: [base, base + cap), *fill handed out. */
struct str_arena
{
	uint8_t    *base;
	uint64_t   *fill;
	uint64_t	cap;
};

/* A row's or an entry's key, as group_find takes it. */
struct group_key
{
	uint64_t	w[PG_GPU_MAX_KEYS + 1];	/* [0] NULL mask, [1 + k] key words */
	uint64_t	p[PG_GPU_MAX_KEYS];	/* text: address of the value's bytes */
	uint32_t	olen[PG_GPU_MAX_KEYS];	/* text: bytes to copy (bpchar's padding
										 * kept, as the first value met) */
};

/* Bytes a text key takes in the arena: header and value, 8-byte aligned. */
PG_GPU_HD uint64_t
arena_bytes(uint32_t len)
{
	return ((uint64_t) len + 4 + 7) & ~7ULL;
}

PG_GPU_HD int
text_keys(const pg_gpu_agg_task &t)
{
	int			n = 0;

	for (int k = 0; k < t.nkeys; k++)
		n += is_text_type(t.keys[k].type);
	return n;
}

PG_GPU_HD void
make_group_layout(const pg_gpu_agg_task &t, group_layout &L)
{
	int			w = kWKeys + t.nkeys;

	L.kptr = -1;
	if (text_keys(t) > 0)
	{
		L.kptr = w;
		w += t.nkeys;
	}

	for (int i = 0; i < t.ninputs; i++)
	{
		input_layout &o = L.in[i];
		int			ty = t.inputs[i].type;
		int			nd = t.inputs[i].needs;

		o.n = (int16_t) w++;
		o.min = o.sum = o.sq = o.flags = o.fsum = o.sx = o.sd = -1;
		if (ty == PG_GPU_ANY)
			continue;
		if (is_float_type(ty))
		{
			o.flags = (int16_t) w++;
			if (nd & PG_GPU_NEED_MINMAX)
			{
				o.min = (int16_t) w;
				w += 2;
			}
			if (nd & PG_GPU_NEED_SUM)
				o.fsum = (int16_t) w++;
			if (nd & (PG_GPU_NEED_AVG | PG_GPU_NEED_VAR))
			{
				o.sx = (int16_t) w++;
				o.sd = (int16_t) w;
				w += 3;
			}
		}
		else
		{
			if (ty == PG_GPU_DECIMAL)
				o.flags = (int16_t) w++;	/* the dscales met (agg_state.cuh) */
			if (nd & PG_GPU_NEED_MINMAX)
			{
				o.min = (int16_t) w;
				w += 2;
			}
			if (nd & (PG_GPU_NEED_SUM | PG_GPU_NEED_AVG | PG_GPU_NEED_VAR))
			{
				o.sum = (int16_t) w;
				w += 2;
			}
			if (nd & PG_GPU_NEED_VAR)
			{
				o.sq = (int16_t) w;
				w += 3;
			}
		}
	}
	L.words = w;
}

/* Order-preserving encoding of a double, NaN above everything. */
PG_GPU_HD uint64_t
fenc(double x)
{
	if (isnan(x))
		return ~0ULL;
	uint64_t	b = f_bits(x);

	return (b >> 63) ? ~b : (b | (1ULL << 63));
}

PG_GPU_HD double
fdec(uint64_t e)
{
	if (e == ~0ULL)
		return NAN;
	return (e >> 63) ? as_f(e & ~(1ULL << 63)) : as_f(~e);
}

/* A key value as a word: NaNs made one value, -0 made 0 (docs/SEMANTICS.md 8, 9). */
PG_GPU_HD uint64_t
key_word(const pval &v, int type)
{
	if (v.null)
		return 0;
	if (is_float_type(type))
	{
		double		d = as_f(v.bits);

		if (isnan(d))
			return 0x7ff8000000000000ULL;
		if (d == 0.0)
			return 0;
		return v.bits;
	}
	return v.bits;
}

/* kw[0] = NULL mask, kw[1..nkeys] = key words */
PG_GPU_HD uint64_t
key_hash(const uint64_t *kw, int nkeys)
{
	uint64_t	h = mix64(kw[0] + 0x9e3779b97f4a7c15ULL);

	for (int k = 1; k <= nkeys; k++)
		h = mix64(h ^ (kw[k] + 0x9e3779b97f4a7c15ULL * (uint64_t) k));
	return h;
}

PG_GPU_HD uint64_t
ready_tag(uint64_t hash)
{
	return (hash & ~3ULL) | 2;
}

PG_GPU_HD bool
entry_ready(uint64_t status)
{
	return (status & 3) == 2;
}

/*
 * Initial words of a new entry (the caller owns it).  False if the arena has no
 * room for a text key (the host's reservation makes that impossible).
 */
PG_GPU_EXEC_CHECK_DISABLE
template <class A>
PG_GPU_TD bool
init_entry(uint64_t *e, const pg_gpu_agg_task &t, const group_layout &L,
		   const group_key &gk, const str_arena *ar)
{
	e[kWRows] = 0;
	e[kWNulls] = gk.w[0];
	for (int k = 0; k < t.nkeys; k++)
	{
		e[kWKeys + k] = gk.w[1 + k];
		if (L.kptr < 0)
			continue;
		e[L.kptr + k] = 0;
		if (!is_text_type(t.keys[k].type) || ((gk.w[0] >> k) & 1))
			continue;
		uint32_t	n = gk.olen[k];
		uint64_t	sz = arena_bytes(n);
		uint64_t	off = ar ? A::add(ar->fill, sz) : ~0ULL;

		if (!ar || off + sz > ar->cap)
			return false;
		uint8_t    *d = ar->base + off;
		const uint8_t *src = (const uint8_t *) (uintptr_t) gk.p[k];
		uint32_t	hdr = (n + 4) << 2;		/* 4-byte varlena header */

		memcpy(d, &hdr, 4);
		for (uint32_t i = 0; i < n; i++)
			d[4 + i] = src[i];
		e[L.kptr + k] = (uint64_t) (uintptr_t) d;
	}
	for (int i = 0; i < t.ninputs; i++)
	{
		const input_layout &o = L.in[i];

		e[o.n] = 0;
		if (o.flags >= 0)
			e[o.flags] = 0;
		if (o.min >= 0)
		{
			if (is_float_type(t.inputs[i].type))
			{
				e[o.min] = ~0ULL;
				e[o.min + 1] = 0;
			}
			else
			{
				e[o.min] = (uint64_t) INT64_MAX;
				e[o.min + 1] = (uint64_t) INT64_MIN;
			}
		}
		if (o.sum >= 0)
			e[o.sum] = e[o.sum + 1] = 0;
		if (o.sq >= 0)
			e[o.sq] = e[o.sq + 1] = e[o.sq + 2] = 0;
		if (o.fsum >= 0)
		{
			if (t.inputs[i].type == PG_GPU_FLOAT4)
			{
				float		z = -0.0f;

				e[o.fsum] = 0;
				memcpy(&e[o.fsum], &z, 4);
			}
			else
				e[o.fsum] = f_bits(-0.0);
		}
		if (o.sx >= 0)
			e[o.sx] = 0;
		if (o.sd >= 0)
		{
			e[o.sd] = e[o.sd + 1] = 0;
			e[o.sd + 2] = kShiftUnset;
		}
	}
	return true;
}

/* Whether entry e holds key gk (whose tag already matched). */
PG_GPU_EXEC_CHECK_DISABLE
template <class A>
PG_GPU_TD bool
entry_is(const uint64_t *e, const pg_gpu_agg_task &t, const group_layout &L,
		 const group_key &gk)
{
	if (A::load(&e[kWNulls]) != gk.w[0])
		return false;
	for (int k = 0; k < t.nkeys; k++)
		if (A::load(&e[kWKeys + k]) != gk.w[1 + k])
			return false;
	if (L.kptr < 0)
		return true;
	for (int k = 0; k < t.nkeys; k++)
	{
		if (!is_text_type(t.keys[k].type) || ((gk.w[0] >> k) & 1))
			continue;
		const uint8_t *a = (const uint8_t *) (uintptr_t) A::load(&e[L.kptr + k]) + 4;
		const uint8_t *b = (const uint8_t *) (uintptr_t) gk.p[k];
		uint32_t	n = (uint32_t) gk.w[1 + k];

		if (a == b)
			continue;
		for (uint32_t i = 0; i < n; i++)
			if (A::byte(a + i) != b[i])
				return false;
	}
	return true;
}

/* Whether the arena (shared-memory tables') seems to have room for gk's text. */
PG_GPU_EXEC_CHECK_DISABLE
template <class A>
PG_GPU_TD bool
arena_room(const pg_gpu_agg_task &t, const group_key &gk, const str_arena *ar)
{
	uint64_t	need = 0;

	if (!ar)
		return true;
	for (int k = 0; k < t.nkeys; k++)
		if (is_text_type(t.keys[k].type) && !((gk.w[0] >> k) & 1))
			need += arena_bytes(gk.olen[k]);
	return need == 0 || A::load(ar->fill) + need <= ar->cap;
}

/* Status of an entry whose initialisation failed: matches no key. */
constexpr uint64_t kDeadEntry = 3;

/*
 * Find the entry of key gk (hash h), inserting it if absent.  fill/limit, when
 * fill is given, cap how many entries may be claimed (shared-memory tables), and
 * so does the room in their string arena: beyond that -1 is returned and the
 * caller uses the global table.  -2: the table is full (cannot happen while the
 * host keeps the load under one half); -3: the string arena is (for the global
 * table the host's reservation rules it out; for a shared-memory table, threads
 * racing for its last bytes can meet it, and the caller goes global as for -1).
 */
PG_GPU_EXEC_CHECK_DISABLE
template <class A>
PG_GPU_TD int64_t
group_find(uint64_t *tab, uint64_t mask, const pg_gpu_agg_task &t, const group_layout &L,
		   const group_key &gk, uint64_t h, uint64_t *fill, uint64_t limit,
		   uint64_t *inserted, const str_arena *ar)
{
	uint64_t	tag = ready_tag(h);
	uint64_t	i = h & mask;

	for (uint64_t probes = 0; probes <= mask; probes++, i = (i + 1) & mask)
	{
		uint64_t   *e = tab + i * (uint64_t) L.words;
		uint64_t	st = A::load(&e[kWStatus]);

		if (st == 0)
		{
			if (fill && (A::load(fill) >= limit || !arena_room<A>(t, gk, ar)))
				return -1;
			st = A::cas(&e[kWStatus], 0, 1);
			if (st == 0)
			{
				if (fill)
					A::add(fill, 1);
				if (!init_entry<A>(e, t, L, gk, ar))
				{
					A::fence();
					A::store(&e[kWStatus], kDeadEntry);
					return -3;
				}
				A::fence();
				A::store(&e[kWStatus], tag);
				if (inserted)
					A::add(inserted, 1);
				return (int64_t) i;
			}
		}
		while (st == 1)
			st = A::load(&e[kWStatus]);
		if (st == tag && entry_is<A>(e, t, L, gk))
			return (int64_t) i;
	}
	return -2;
}

/* Set the shift of a float state if unset; returns the shift in force. */
PG_GPU_EXEC_CHECK_DISABLE
template <class A>
PG_GPU_TD double
shift_of(uint64_t *c, uint64_t candidate)
{
	uint64_t	cur = A::load(c);

	if (cur == kShiftUnset)
	{
		uint64_t	prev = A::cas(c, kShiftUnset, candidate);

		cur = (prev == kShiftUnset) ? candidate : prev;
	}
	return as_f(cur);
}

/* Fold one row's input values into an entry. */
PG_GPU_EXEC_CHECK_DISABLE
template <class A>
PG_GPU_TD void
group_accum(uint64_t *e, const pg_gpu_agg_task &t, const group_layout &L, const pval *in)
{
	A::add(&e[kWRows], 1);
	for (int i = 0; i < t.ninputs; i++)
	{
		const input_layout &o = L.in[i];
		const pval &v = in[i];
		int			ty = t.inputs[i].type;

		if (v.null)
			continue;
		A::add(&e[o.n], 1);
		if (ty == PG_GPU_ANY)
			continue;
		if (is_float_type(ty))
		{
			double		x = as_f(v.bits);
			bool		finite = isfinite(x);

			if (!finite)
				A::or_(&e[o.flags], isnan(x) ? kFlagNaN : kFlagInf);
			if (o.min >= 0)
			{
				uint64_t	enc = fenc(x);

				A::min_u(&e[o.min], enc);
				A::max_u(&e[o.min + 1], enc);
			}
			if (o.fsum >= 0)
			{
				if (ty == PG_GPU_FLOAT4)
					A::addf32(&e[o.fsum], (float) x);
				else
					A::addf(&e[o.fsum], x);
			}
			if (o.sx >= 0)
			{
				A::addf(&e[o.sx], x);
				if (finite)
				{
					double		d = x - shift_of<A>(&e[o.sd + 2], v.bits);

					A::addf(&e[o.sd], d);
					A::addf(&e[o.sd + 1], d * d);
				}
			}
		}
		else
		{
			int64_t		x = (int64_t) v.bits;

			if (o.min >= 0)
			{
				A::min_i(&e[o.min], x);
				A::max_i(&e[o.min + 1], x);
			}
			if (ty == PG_GPU_DECIMAL)
			{
				/* min and max fit 64 bits (eval_row); the sum takes 128 */
				if (o.sum >= 0)
					atomic_add_i128<A>(&e[o.sum], v.bits, v.hi);
				/* a read first: a column's dscale is nearly always one already met */
				const uint64_t bit = 1ULL << (v.len & 63);

				if (!(A::load(&e[o.flags]) & bit))
					A::or_(&e[o.flags], bit);
			}
			else if (o.sum >= 0)
				atomic_add_i128<A>(&e[o.sum], (uint64_t) x, x < 0 ? ~0ULL : 0);
			if (o.sq >= 0)
			{
				uint128		ax = (uint128) (x < 0 ? -(int128) x : (int128) x);
				uint128		sq = ax * ax;

				atomic_add_u192<A>(&e[o.sq], (uint64_t) sq, (uint64_t) (sq >> 64), 0);
			}
		}
	}
}

/* Merge entry s (not shared any more) into entry e. */
PG_GPU_EXEC_CHECK_DISABLE
template <class A>
PG_GPU_TD void
group_merge(uint64_t *e, const uint64_t *s, const pg_gpu_agg_task &t, const group_layout &L)
{
	A::add(&e[kWRows], s[kWRows]);
	for (int i = 0; i < t.ninputs; i++)
	{
		const input_layout &o = L.in[i];
		int			ty = t.inputs[i].type;
		uint64_t	n = s[o.n];

		if (n == 0)
			continue;
		A::add(&e[o.n], n);
		if (ty == PG_GPU_ANY)
			continue;
		if (is_float_type(ty))
		{
			if (s[o.flags])
				A::or_(&e[o.flags], s[o.flags]);
			if (o.min >= 0)
			{
				A::min_u(&e[o.min], s[o.min]);
				A::max_u(&e[o.min + 1], s[o.min + 1]);
			}
			if (o.fsum >= 0)
			{
				if (ty == PG_GPU_FLOAT4)
				{
					float		f;

					memcpy(&f, &s[o.fsum], 4);
					A::addf32(&e[o.fsum], f);
				}
				else
					A::addf(&e[o.fsum], as_f(s[o.fsum]));
			}
			if (o.sx >= 0)
			{
				A::addf(&e[o.sx], as_f(s[o.sx]));
				if (s[o.sd + 2] != kShiftUnset)
				{
					/* re-centre the partial sums on the destination's shift */
					double		cs = as_f(s[o.sd + 2]);
					double		delta = cs - shift_of<A>(&e[o.sd + 2], s[o.sd + 2]);
					double		sd = as_f(s[o.sd]);
					double		sdd = as_f(s[o.sd + 1]);
					double		nn = (double) n;

					if (delta != 0.0)
					{
						sdd += 2.0 * delta * sd + nn * delta * delta;
						sd += nn * delta;
					}
					A::addf(&e[o.sd], sd);
					A::addf(&e[o.sd + 1], sdd);
				}
			}
		}
		else
		{
			if (o.min >= 0)
			{
				A::min_i(&e[o.min], (int64_t) s[o.min]);
				A::max_i(&e[o.min + 1], (int64_t) s[o.min + 1]);
			}
			if (o.sum >= 0)
				atomic_add_i128<A>(&e[o.sum], s[o.sum], s[o.sum + 1]);
			if (o.sq >= 0)
				atomic_add_u192<A>(&e[o.sq], s[o.sq], s[o.sq + 1], s[o.sq + 2]);
			if (o.flags >= 0 && s[o.flags])
				A::or_(&e[o.flags], s[o.flags]);
		}
	}
}

/* An entry's state of input i as the exact state the catalog code expects. */
PG_GPU_HD void
group_col_state(const uint64_t *e, const pg_gpu_agg_task &t, const group_layout &L,
				int i, pg_gpu_col_state &c)
{
	const input_layout &o = L.in[i];
	int			ty = t.inputs[i].type;

	state_init(c, ty);
	c.n = (int64_t) e[o.n];
	if (ty == PG_GPU_ANY || c.n == 0)
		return;
	if (is_float_type(ty))
	{
		bool		nonfinite = e[o.flags] != 0;

		if (o.min >= 0)
		{
			c.fmin = fdec(e[o.min]);
			c.fmax = fdec(e[o.min + 1]);
		}
		if (o.fsum >= 0)
		{
			if (ty == PG_GPU_FLOAT4)
			{
				float		f;

				memcpy(&f, &e[o.fsum], 4);
				c.fsum = f;
			}
			else
				c.fsum = as_f(e[o.fsum]);
			if (!nonfinite && isinf(c.fsum))
				c.flags |= PG_GPU_COLF_FSUM_OVERFLOW;
		}
		if (o.sx >= 0)
		{
			double		sd = as_f(e[o.sd]);
			double		sdd = as_f(e[o.sd + 1]);

			c.yc_n = (double) c.n;
			c.yc_sx = as_f(e[o.sx]);
			if (nonfinite)
				c.yc_sxx = NAN;
			else
			{
				double		sxx = sdd - sd * sd / c.yc_n;

				c.yc_sxx = sxx > 0.0 ? sxx : 0.0;
				if (isinf(c.yc_sx))
					c.flags |= PG_GPU_COLF_SUM_OVERFLOW;
				if (isinf(sdd))
					c.flags |= PG_GPU_COLF_SXX_OVERFLOW;
			}

			/*
			 * Every finite input lies within sqrt(sdd) of the shift (sd and
			 * sdd sum the finite inputs only), so N times that bounds |x N|
			 * and |Sx| in each of PostgreSQL's steps before an infinite input
			 * comes, and twice it the |x N - Sx| it squares: below
			 * kYcSafeBound the square stays finite in any order; above it
			 * PostgreSQL may raise an overflow that these sums do not show.
			 */
			if (e[o.sd + 2] != kShiftUnset)
			{
				double		bound = c.yc_n * (fabs(as_f(e[o.sd + 2])) +
											  sqrt(as_f(e[o.sd + 1])));

				if (!(bound < kYcSafeBound))
					c.flags |= PG_GPU_COLF_SXX_UNSURE;
			}
		}
	}
	else
	{
		if (o.flags >= 0)
			c.dscales = e[o.flags];
		if (o.min >= 0)
		{
			c.imin = (int64_t) e[o.min];
			c.imax = (int64_t) e[o.min + 1];
		}
		if (o.sum >= 0)
		{
			c.sum_lo = e[o.sum];
			c.sum_hi = e[o.sum + 1];
		}
		if (o.sq >= 0)
		{
			c.sq_lo = e[o.sq];
			c.sq_mid = e[o.sq + 1];
			c.sq_hi = e[o.sq + 2];
		}
	}
}

/*
 * PG_GPU_COLF_SXX_UNSURE if any Youngs-Cramer column (avg, var, stddev of a
 * float) of any of n finished entries has it, else 0: a pass over the groups on
 * the host after they came back, only for tasks with such columns, stopping at
 * the first.  The other flags raise their errors as the groups are emitted.
 */
inline uint32_t
groups_flags(const uint64_t *groups, int64_t n, const pg_gpu_agg_task &t, const group_layout &L)
{
	for (int i = 0; i < t.ninputs; i++)
	{
		if (!is_float_type(t.inputs[i].type) || L.in[i].sx < 0)
			continue;
		for (int64_t g = 0; g < n; g++)
		{
			pg_gpu_col_state c;

			group_col_state(groups + (size_t) g * L.words, t, L, i, c);
			if (c.flags & PG_GPU_COLF_SXX_UNSURE)
				return PG_GPU_COLF_SXX_UNSURE;
		}
	}
	return 0;
}

/* A finished entry as the engine's interface reports a group. */
PG_GPU_HD void
group_decode(const uint64_t *e, const pg_gpu_agg_task &t, const group_layout &L,
			 uint64_t *keys, uint32_t *nullmask, int64_t *rows, pg_gpu_col_state *states)
{
	for (int k = 0; k < t.nkeys; k++)
		keys[k] = is_text_type(t.keys[k].type) ? e[L.kptr + k] : e[kWKeys + k];
	*nullmask = (uint32_t) e[kWNulls];
	*rows = (int64_t) e[kWRows];
	for (int i = 0; i < t.ninputs; i++)
		group_col_state(e, t, L, i, states[i]);
}

/*
 * Whether a finished entry is handed back under the task's HAVING pre-filter
 * (pg_gpu_agg_task.having): false only when a term is false or NULL for it and
 * no input's state would raise an error as the group is emitted.
 */
PG_GPU_HD bool
group_having_pass(const uint64_t *e, const pg_gpu_agg_task &t, const group_layout &L)
{
	for (int i = 0; i < t.ninputs; i++)
	{
		const input_layout &o = L.in[i];
		int			ty = t.inputs[i].type;

		if (o.sum < 0)
			continue;
		if (ty == PG_GPU_DECIMAL &&
			(int64_t) e[o.n] >= ((int64_t) 1 << (127 - PG_GPU_DEC_BITS)))
			return true;		/* "too many numeric values" is the host's to raise */
		if (ty == PG_GPU_INT2 || ty == PG_GPU_INT4)
		{
			int128		s = load_i128(e[o.sum], e[o.sum + 1]);

			if (s < (int128) INT64_MIN || s > (int128) INT64_MAX)
				return true;	/* "bigint out of range" likewise */
		}
	}
	for (int h = 0; h < t.nhaving; h++)
	{
		const pg_gpu_having &hv = t.having[h];
		int128		v;
		int128		c = load_i128(hv.lo, hv.hi);
		bool		ok;

		if (hv.input < 0)
			v = (int64_t) e[kWRows];
		else if (hv.what == PG_GPU_HAV_COUNT)
			v = (int64_t) e[L.in[hv.input].n];
		else
		{
			const input_layout &o = L.in[hv.input];

			if (o.sum < 0)
				continue;		/* not kept: no verdict */
			if ((int64_t) e[o.n] == 0)
				return false;	/* sum is NULL: the comparison is not true */
			v = load_i128(e[o.sum], e[o.sum + 1]);
		}
		ok = cmp_holds(v < c ? -1 : (v > c ? 1 : 0), hv.op);
		if (!ok)
			return false;
	}
	return true;
}

/* A row's key from its key values. */
PG_GPU_HD void
row_key(const pg_gpu_agg_task &t, const pval *keys, group_key &gk)
{
	gk.w[0] = 0;
	for (int k = 0; k < t.nkeys; k++)
	{
		int			ty = t.keys[k].type;

		gk.p[k] = 0;
		gk.olen[k] = 0;
		if (keys[k].null)
		{
			gk.w[0] |= 1ULL << k;
			gk.w[1 + k] = 0;
		}
		else if (is_text_type(ty))
		{
			const uint8_t *b = (const uint8_t *) (uintptr_t) keys[k].bits;
			uint32_t	n = text_len(b, keys[k].len, ty);

			gk.w[1 + k] = (text_hash(b, n) & 0xFFFFFFFF00000000ULL) | n;
			gk.p[k] = keys[k].bits;
			gk.olen[k] = keys[k].len;
		}
		else
			gk.w[1 + k] = key_word(keys[k], ty);
	}
}

/*
 * A seeded group's key (the task's seed_set): the key in slot `slot` of an
 * integer key set (keyset.cuh: its low 32 bits the key's index + 1; 0 an
 * empty slot, false), as the one integer group key's word.
 */
PG_GPU_HD bool
seed_key(uint64_t slot, const int64_t *vals, group_key &gk)
{
	if (slot == 0)
		return false;
	gk.w[0] = 0;
	gk.w[1] = (uint64_t) vals[(slot & 0xFFFFFFFFULL) - 1];
	gk.p[0] = 0;
	gk.olen[0] = 0;
	return true;
}

/* An entry's key, to merge the entry into another table. */
PG_GPU_HD void
entry_key(const uint64_t *e, const pg_gpu_agg_task &t, const group_layout &L,
		  group_key &gk)
{
	gk.w[0] = e[kWNulls];
	for (int k = 0; k < t.nkeys; k++)
	{
		gk.w[1 + k] = e[kWKeys + k];
		gk.p[k] = 0;
		gk.olen[k] = 0;
		if (L.kptr >= 0 && e[L.kptr + k] != 0)
		{
			const uint8_t *v = (const uint8_t *) (uintptr_t) e[L.kptr + k];
			uint32_t	hdr;

			memcpy(&hdr, v, 4);
			gk.p[k] = (uint64_t) (uintptr_t) (v + 4);
			gk.olen[k] = (hdr >> 2) - 4;
		}
	}
}

}							/* namespace cuda */
}							/* namespace pg_gpu */

#endif							/* PG_GPU_GROUP_CUH */
