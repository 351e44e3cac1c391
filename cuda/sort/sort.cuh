/*
 * sort.cuh — GpuSort's key encoding and pass plan, shared by the kernels, the
 * engine's host side and the host emulation.
 *
 * Every sort key becomes unsigned words whose unsigned order is the key's order
 * under PostgreSQL's default btree operator class, with the direction and NULL
 * placement of its ORDER BY item folded in (docs/SEMANTICS.md 10):
 *
 *   narrow keys (int2, int4, date, float4, bool): one word, NULL rank << 32 | value
 *   wide keys (int8, timestamp[tz], float8):      a value word, then a rank word
 *   text keys (text, varchar, bpchar; byte-order collations only):
 *       kTextSortWords value words holding the first 8 * kTextSortWords bytes,
 *       big-endian, zero-padded (text holds no NUL byte, so a shorter string that
 *       is a prefix of a longer one sorts first, as in memcmp-then-length order;
 *       bpchar without its trailing blanks), then a rank word: bit 0 the NULL
 *       rank, bit 1 "longer than the prefix".
 *   numeric keys: a class and weight word, then kNumericSortWords words holding
 *       the first kNumericSortDigits base-10000 digits, 16 bits each (all flipped
 *       for a negative value, whose larger magnitude sorts first), then a rank
 *       word as for text, "longer" meaning more significant digits than that.
 *       Classes: -Infinity, negative, zero, positive, +Infinity, NaN (docs/SEMANTICS
 *       14); digits are normalised (no leading or trailing zero digit), so 1.0
 *       and 1.00 encode alike.
 *
 * The rank word of a text or numeric key also holds the unflipped "longer" flag
 * in bit 2, which no pass sorts on (sort_unresolved reads it).
 *
 * Floats: all NaNs are one value above +Infinity, -0 is 0.  DESC flips the value
 * bits (and the "longer" bit), not the NULL rank, which follows NULLS FIRST/LAST
 * alone.  The engine sorts least significant first with stable radix passes (CUB),
 * one pass per word or bit range that can differ (sort_passes), so the result is
 * the lexicographic order of the keys.
 *
 * Two text (numeric) values longer than the prefix with equal prefixes are not
 * ordered by their words: sort_unresolved() finds such neighbours and the engine gives the
 * query back to PostgreSQL (PG_GPU_UNORDERED) rather than guess.
 */
#ifndef PG_GPU_SORT_CUH
#define PG_GPU_SORT_CUH

#include "expr.cuh"

namespace pg_gpu {
namespace cuda {

constexpr int kTextSortWords = 8;	/* 64 bytes of prefix */
constexpr int kTextSortBytes = 8 * kTextSortWords;
constexpr int kNumericSortWords = 4;	/* 16 base-10000 digits: 61 to 64 decimal */
constexpr int kNumericSortDigits = 4 * kNumericSortWords;
constexpr int kNumericClassBits = 23;	/* class << 20 | biased weight */
constexpr int kMaxSortWords = 20;
constexpr const char *kUnorderedMessage =
	"sort keys are equal in the prefix the GPU sorts (64 bytes of text, 64 numeric digits)";
constexpr int kMaxSortPasses = 2 * kMaxSortWords + 2 * PG_GPU_MAX_KEYS;

PG_GPU_HD bool
sort_key_wide(int type)
{
	return type == PG_GPU_INT8 || type == PG_GPU_TIMESTAMP || type == PG_GPU_FLOAT8;
}

/* A key whose value words may not hold all of it (text, numeric). */
PG_GPU_HD bool
sort_key_prefix(int type)
{
	return is_text_type(type) || type == PG_GPU_NUMERIC;
}

/* Words of one key (value words, and a rank word for wide, text and numeric keys). */
PG_GPU_HD int
sort_key_words(int type)
{
	return is_text_type(type) ? kTextSortWords + 1
		: type == PG_GPU_NUMERIC ? kNumericSortWords + 2
		: sort_key_wide(type) ? 2 : 1;
}

/* Words of a row; > kMaxSortWords: the task cannot sort. */
PG_GPU_HD int
sort_row_words(const pg_gpu_agg_task &t)
{
	int			n = 0;

	for (int k = 0; k < t.nkeys; k++)
		n += sort_key_words(t.keys[k].type);
	return n;
}

/*
 * A sort task's weight (an inner join's rows): how many times a row may be
 * handed out at most, the largest multiplicity of the set its last instruction
 * (SET_MULT) reads; 0 when the weight is not of that form.
 */
inline uint64_t
sort_repeat_bound(const pg_gpu_agg_task &t)
{
	const pg_gpu_expr &e = t.weight;

	if (e.len == 0 || e.start + e.len > t.nprog || e.start + e.len > PG_GPU_MAX_PROG)
		return 0;

	const pg_gpu_instr &last = t.prog[e.start + e.len - 1];

	if (last.op != PG_GPU_OP_SET_MULT || t.nsets > PG_GPU_MAX_SETS || last.a >= t.nsets)
		return 0;
	return t.sets[last.a].max_mult > 1 ? t.sets[last.a].max_mult : 1;
}

/* Index of key k's first word. */
PG_GPU_HD int
sort_key_word0(const pg_gpu_agg_task &t, int k)
{
	int			n = 0;

	for (int j = 0; j < k; j++)
		n += sort_key_words(t.keys[j].type);
	return n;
}

/* Order-preserving encoding of a non-NULL fixed-width key value, ascending. */
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

PG_GPU_HD uint32_t
num_u16(const uint8_t *p)
{
	return (uint32_t) p[0] | ((uint32_t) p[1] << 8);	/* little-endian hosts only */
}

/*
 * A non-NULL numeric's value words, ascending (w[0]: class and weight, then the
 * digit words), from its bytes after the varlena header (numeric.c's on-disk
 * NumericShort / NumericLong / special forms).  *ndigits: its significant
 * base-10000 digits; *negative: a negative finite value.
 */
PG_GPU_HD void
numeric_enc(const uint8_t *p, uint32_t len, uint64_t *w, uint32_t *ndigits, bool *negative)
{
	uint32_t	h = len >= 2 ? num_u16(p) : 0;
	uint64_t	cls;
	int			weight,
				hdr;
	bool		neg;

	*ndigits = 0;
	*negative = false;
	for (int j = 0; j <= kNumericSortWords; j++)
		w[j] = 0;
	if (len < 2)
	{
		w[0] = 2ULL << 20;		/* no header: treat as zero (never stored) */
		return;
	}
	if ((h & 0xC000) == 0xC000)
	{
		/* NaN 0xC000, +Infinity 0xD000, -Infinity 0xF000 */
		cls = h == 0xD000 ? 4 : h == 0xF000 ? 0 : 5;
		w[0] = cls << 20;
		return;
	}
	if (h & 0x8000)
	{
		neg = (h & 0x2000) != 0;
		weight = (h & 0x40) ? (int) (h & 0x3F) - 64 : (int) (h & 0x3F);
		hdr = 2;
	}
	else
	{
		neg = (h & 0xC000) == 0x4000;
		weight = len >= 4 ? (int) (int16_t) num_u16(p + 2) : 0;
		hdr = 4;
	}
	const uint8_t *d = p + hdr;
	int			nd = len > (uint32_t) hdr ? (int) (len - hdr) / 2 : 0;
	int			first = 0;

	while (first < nd && num_u16(d + 2 * first) == 0)
		first++;
	while (nd > first && num_u16(d + 2 * (nd - 1)) == 0)
		nd--;
	if (nd == first)
	{
		w[0] = 2ULL << 20;		/* zero */
		return;
	}
	weight -= first;
	*ndigits = (uint32_t) (nd - first);
	*negative = neg;
	uint64_t	we = (uint64_t) (weight + (1 << 19)) & 0xFFFFF;

	w[0] = (neg ? 1ULL : 3ULL) << 20 | (neg ? we ^ 0xFFFFF : we);
	for (int j = 0; j < kNumericSortWords; j++)
	{
		uint64_t	v = 0;

		for (int b = 0; b < 4; b++)
		{
			int			i = first + 4 * j + b;

			v = (v << 16) | (i < nd ? num_u16(d + 2 * i) : 0);
		}
		w[1 + j] = neg ? ~v : v;
	}
}

/*
 * A row's sort words, w[0 .. sort_row_words).  Bit k of *nulls: key k is NULL;
 * bit k of *longs: text key k is longer than the prefix; lens[k]: text key k's
 * length in bytes (0 when NULL).
 */
PG_GPU_HD void
sort_encode(const pg_gpu_agg_task &t, const pval *keys, uint64_t *w, uint32_t *nulls,
			uint32_t *longs, uint32_t *lens)
{
	int			at = 0;

	*nulls = 0;
	*longs = 0;
	for (int k = 0; k < t.nkeys; k++)
	{
		int			ty = t.keys[k].type;
		bool		desc = t.key_desc[k] != 0;
		uint64_t	rank = (keys[k].null == (t.key_nulls_first[k] != 0)) ? 0 : 1;

		lens[k] = 0;
		if (keys[k].null)
			*nulls |= 1u << k;
		if (ty == PG_GPU_NUMERIC)
		{
			uint32_t	nd = 0;
			bool		neg = false;
			uint64_t	lng = 0;

			if (!keys[k].null)
			{
				numeric_enc((const uint8_t *) (uintptr_t) keys[k].bits, keys[k].len,
							w + at, &nd, &neg);
				lng = nd > (uint32_t) kNumericSortDigits ? 1 : 0;
				if (desc)
				{
					w[at] ^= (1ULL << kNumericClassBits) - 1;
					for (int j = 1; j <= kNumericSortWords; j++)
						w[at + j] = ~w[at + j];
				}
			}
			else
				for (int j = 0; j <= kNumericSortWords; j++)
					w[at + j] = 0;
			if (lng)
				*longs |= 1u << k;
			lens[k] = nd;
			/* more digits: a larger magnitude */
			w[at + kNumericSortWords + 1] = rank |
				((lng ^ (neg ? 1 : 0) ^ (desc && !keys[k].null ? 1 : 0)) << 1) | (lng << 2);
			at += kNumericSortWords + 2;
			continue;
		}
		if (is_text_type(ty))
		{
			const uint8_t *p = (const uint8_t *) (uintptr_t) keys[k].bits;
			uint32_t	len = keys[k].null ? 0 : text_len(p, keys[k].len, ty);
			bool		flip = desc && !keys[k].null;
			uint64_t	lng = len > (uint32_t) kTextSortBytes ? 1 : 0;

			for (int j = 0; j < kTextSortWords; j++)
			{
				uint64_t	v = 0;

				for (int b = 0; b < 8; b++)
				{
					uint32_t	i = 8 * j + b;

					v = (v << 8) | (i < len ? p[i] : 0);
				}
				w[at + j] = flip ? ~v : v;
			}
			if (lng)
				*longs |= 1u << k;
			lens[k] = len;
			w[at + kTextSortWords] = rank | ((flip ? lng ^ 1 : lng) << 1) | (lng << 2);
			at += kTextSortWords + 1;
			continue;
		}
		uint64_t	v = 0;

		if (!keys[k].null)
		{
			v = sort_value_enc(keys[k], ty);
			if (desc)
				v = sort_key_wide(ty) ? ~v : (v ^ 0xFFFFFFFFu);
		}
		if (sort_key_wide(ty))
		{
			w[at] = v;
			w[at + 1] = rank;
			at += 2;
		}
		else
			w[at++] = (rank << 32) | v;
	}
}

/* What the rows of a run (or of every run) showed, for sort_passes. */
struct sort_stats
{
	unsigned long long count;	/* rows */
	unsigned int nulls;			/* bit k: key k met a NULL */
	unsigned int longs;			/* bit k: key k met a value over the prefix */
	unsigned int maxlen[PG_GPU_MAX_KEYS];	/* text key k's longest value (bytes),
											 * numeric key k's (digits) */
};

inline void
sort_stats_add(sort_stats &into, const sort_stats &s)
{
	into.count += s.count;
	into.nulls |= s.nulls;
	into.longs |= s.longs;
	for (int k = 0; k < PG_GPU_MAX_KEYS; k++)
		into.maxlen[k] = s.maxlen[k] > into.maxlen[k] ? s.maxlen[k] : into.maxlen[k];
}

/* One radix pass: bits [begin, end) of word w. */
struct sort_pass
{
	int8_t		w;
	int8_t		begin;
	int8_t		end;
};

/*
 * The passes, least significant first, given what the rows showed: bit k of nulls
 * (key k met a NULL), of longs (key k met a value longer than the prefix), and
 * key k's longest value (maxlen[k]: text bytes, numeric digits).  Words no row can tell apart are
 * skipped.
 */
PG_GPU_HD int
sort_passes(const pg_gpu_agg_task &t, uint32_t nulls, uint32_t longs, const uint32_t *maxlen,
			sort_pass *out)
{
	int			n = 0;

	for (int k = t.nkeys - 1; k >= 0; k--)
	{
		int			ty = t.keys[k].type;
		int			w0 = sort_key_word0(t, k);

		if (is_text_type(ty))
		{
			uint32_t	len = maxlen[k] < (uint32_t) kTextSortBytes ? maxlen[k] : kTextSortBytes;
			int			nw = (int) ((len + 7) / 8);

			if ((longs >> k) & 1)
				out[n++] = {(int8_t) (w0 + kTextSortWords), 1, 2};
			for (int j = nw - 1; j >= 0; j--)
				out[n++] = {(int8_t) (w0 + j), 0, 64};
			if ((nulls >> k) & 1)
				out[n++] = {(int8_t) (w0 + kTextSortWords), 0, 1};
		}
		else if (ty == PG_GPU_NUMERIC)
		{
			uint32_t	nd = maxlen[k] < (uint32_t) kNumericSortDigits ? maxlen[k]
				: kNumericSortDigits;
			int			rw = w0 + kNumericSortWords + 1;

			if ((longs >> k) & 1)
				out[n++] = {(int8_t) rw, 1, 2};
			for (int j = (int) (nd + 3) / 4 - 1; j >= 0; j--)
				out[n++] = {(int8_t) (w0 + 1 + j), 0, 64};
			out[n++] = {(int8_t) w0, 0, kNumericClassBits};
			if ((nulls >> k) & 1)
				out[n++] = {(int8_t) rw, 0, 1};
		}
		else if (sort_key_wide(ty))
		{
			out[n++] = {(int8_t) w0, 0, 64};
			if ((nulls >> k) & 1)
				out[n++] = {(int8_t) (w0 + 1), 0, 1};
		}
		else
			out[n++] = {(int8_t) w0, 0, 33};
	}
	return n;
}

PG_GPU_HD uint64_t
pass_bits(uint64_t w, const sort_pass &p)
{
	uint64_t	v = w >> p.begin;

	return p.end - p.begin >= 64 ? v : v & ((1ULL << (p.end - p.begin)) - 1);
}

/*
 * Two rows whose words are all equal, with a text or numeric key that is longer
 * than the prefix in both (and equal up to there): their order is unknown.  a(i) and b(i)
 * give the rows' word i.
 */
template <typename A, typename B>
PG_GPU_HD bool
sort_unresolved(const pg_gpu_agg_task &t, A a, B b)
{
	int			at = 0;

	for (int k = 0; k < t.nkeys; k++)
	{
		int			nw = sort_key_words(t.keys[k].type);

		for (int j = 0; j < nw; j++)
			if (a(at + j) != b(at + j))
				return false;
		if (sort_key_prefix(t.keys[k].type))
		{
			uint64_t	rw = a(at + nw - 1);
			bool		is_null = (rw & 1) == (t.key_nulls_first[k] ? 0u : 1u);

			if (!is_null && ((rw >> 2) & 1))
				return true;
		}
		at += nw;
	}
	return false;
}

/*
 * How a sort uses a device memory budget of `budget` bytes (both the engine and
 * its host emulation).  Output batches and merge blocks hold up to batch_bytes of
 * tuples; a run keeps at most run_pages pages and run_rows rows, and a chunk of
 * chunk_pages pages always fits in a run.  Returns false when the budget is too
 * small for a one-page chunk.
 */
struct sort_shape
{
	int			chunk_pages;
	int64_t		run_pages;
	uint64_t	run_rows;
	uint64_t	batch_bytes;
	uint64_t	batch_rows;		/* tuples are at least 24 bytes */
	uint64_t	merge_rows;
};

constexpr int kMaxTuplesPerPage = 291;	/* MaxHeapTuplesPerPage, 8 kB pages */

inline uint64_t
pow2_floor(uint64_t v)
{
	uint64_t	c = 1;

	while (c * 2 <= v)
		c *= 2;
	return v ? c : 0;
}

inline bool
sort_plan_shape(uint64_t budget, int nwords, int chunk_pages, bool gather, sort_shape *sh)
{
	uint64_t	bb = budget / 16;

	bb = bb < (256u << 10) ? (256u << 10) : bb > (64u << 20) ? (64u << 20) : bb;
	sh->batch_bytes = bb;
	sh->batch_rows = bb / 24 + 1;
	sh->merge_rows = bb / 64;
	for (int cp = chunk_pages; cp >= 1; cp /= 2)
	{
		/* three slots of staging, references and visibility words */
		uint64_t	slots = 3ULL * cp * ((gather ? PG_GPU_BLCKSZ : 0) + 64 + 4 * PG_GPU_VIS_WORDS);
		uint64_t	fixed = slots + 2 * bb + 2 * sh->batch_rows * 16 + (1u << 20);

		if (fixed >= budget)
			continue;
		uint64_t	avail = (budget - fixed) / 2;
		uint64_t	pages = pow2_floor(avail / PG_GPU_BLCKSZ);
		uint64_t	rows = pow2_floor(avail / (8ULL * nwords + 64));

		if (pages >= (uint64_t) cp && rows >= (uint64_t) cp * kMaxTuplesPerPage + 1)
		{
			sh->chunk_pages = cp;
			sh->run_pages = (int64_t) pages;
			sh->run_rows = rows - 1;	/* offsets need one more */
			return true;
		}
	}
	return false;
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
