/*
 * gpuagg_fold.cpp — GpuAgg's count(DISTINCT x).
 *
 * PostgreSQL makes no partial path for a DISTINCT aggregate, so GpuAgg gives
 * the complete result (direct mode, gpuagg.h).  The task groups by the GROUP BY
 * keys and x (x its last key), each group holding the other aggregates' states
 * of its rows; here, on the host, the groups that share the GROUP BY keys are
 * folded into one: their states merged by the rule that merges the GPU's partial
 * states (pg_gpu_col_state_merge), their rows added, and count(DISTINCT x) is
 * the number of them whose x is not NULL (each non-NULL x is one group, the
 * hash table's equality being the type's: docs/SEMANTICS.md 25).  Without GROUP
 * BY every group folds into the one row, which comes out for no rows too (count
 * 0, the other aggregates as over no rows).
 *
 * The groups are read once into records (keys, row count, states), an index of
 * them is sorted by a hash of their keys, and runs of equal keys are emitted as
 * they are reached.  Only equality matters (GpuAgg's output has no order):
 * sorting 64-bit hashes costs a fraction of sorting by the keys themselves,
 * whose text keys are compared byte by byte (Q16 at SF 10, 1.2 M groups: the
 * key sort was 0.85 s of the query's 1.1 s).  Records with one hash but
 * different keys (a collision) are ordered by their keys within the run.
 * Where the records would pass 1 GB (MaxAllocSize) or the host cannot hold them,
 * PostgreSQL's plan runs instead.  The fallback is recorded as
 * PG_GPU_FB_OUT_OF_MEMORY, which pg_gpu_fallbacks names "out of gpu memory"
 * (stats.cpp), though here it is the host's memory that ran short; the message
 * says so ("count(DISTINCT) groups do not fit in host memory").
 */
#include <algorithm>

extern "C" {
#include "postgres.h"

#include "common/hashfn.h"
#include "miscadmin.h"
#include "utils/memutils.h"

#include "pg_gpu.h"
#include "pg_gpu_engine.h"
#include "aggs/agg_catalog.h"
#include "expr/expr_compile.h"
#include "nodes/gpuagg.h"
}

/* One engine group, as the fold keeps it; then the task's input states. */
typedef struct FoldRec
{
	int64		rows;
	uint32		nullmask;		/* the GROUP BY keys' bits */
	uint32		x_null;
	uint64		keys[PG_GPU_MAX_KEYS];
} FoldRec;

/* The fold's order: a record's number and its GROUP BY keys' hash. */
struct GpuAggFoldEntry
{
	uint64		hash;
	int64		idx;
};

static inline FoldRec *
rec_at(GpuAggState *s, int64 i)
{
	return (FoldRec *) (s->fold_recs + (size_t) i * s->fold_size);
}

static inline pg_gpu_col_state *
rec_cols(FoldRec *r)
{
	return (pg_gpu_col_state *) (r + 1);
}

/* A text key's bytes (bpchar: without trailing blanks, as its equality). */
static void
text_bytes(uint64 w, bool bpchar, const char **p, int *len)
{
	const struct varlena *v = (const struct varlena *) (uintptr_t) w;

	*p = VARDATA(v);
	*len = (int) (VARSIZE(v) - VARHDRSZ);
	if (bpchar)
		while (*len > 0 && (*p)[*len - 1] == ' ')
			(*len)--;
}

/*
 * Order of the records of two entries of the order by the GROUP BY keys: 0
 * exactly when they are one group.
 */
static int
rec_cmp(const void *a, const void *b, void *arg)
{
	GpuAggState *s = (GpuAggState *) arg;
	const FoldRec *ra = rec_at(s, ((const GpuAggFoldEntry *) a)->idx);
	const FoldRec *rb = rec_at(s, ((const GpuAggFoldEntry *) b)->idx);

	for (int k = 0; k < s->nkeys_out; k++)
	{
		bool		na = (ra->nullmask >> k) & 1;
		bool		nb = (rb->nullmask >> k) & 1;
		int			t = PgGpuValueType(s->key_typid[k]);

		if (na || nb)
		{
			if (na != nb)
				return na ? 1 : -1;
			continue;
		}
		if (ra->keys[k] == rb->keys[k])
			continue;			/* one word: one value (a text key: one datum) */
		if ((t == PG_GPU_TEXT || t == PG_GPU_BPCHAR) && s->key_code[k] < 0)
		{
			const char *pa,
					   *pb;
			int			la,
						lb,
						c;

			text_bytes(ra->keys[k], t == PG_GPU_BPCHAR, &pa, &la);
			text_bytes(rb->keys[k], t == PG_GPU_BPCHAR, &pb, &lb);
			c = memcmp(pa, pb, Min(la, lb));
			if (c != 0)
				return c;
			if (la != lb)
				return la < lb ? -1 : 1;
		}
		else if (ra->keys[k] != rb->keys[k])
			return ra->keys[k] < rb->keys[k] ? -1 : 1;	/* words: one per value */
	}
	return 0;
}

static inline uint64
mix64(uint64 h, uint64 w)
{
	h ^= w + UINT64CONST(0x9e3779b97f4a7c15) + (h << 6) + (h >> 2);
	h ^= h >> 33;
	h *= UINT64CONST(0xff51afd7ed558ccd);
	h ^= h >> 33;
	return h;
}

/* The hash of a record's GROUP BY keys: equal under rec_cmp, equal here. */
static uint64
rec_hash(GpuAggState *s, const FoldRec *r)
{
	uint64		h = 0;

	for (int k = 0; k < s->nkeys_out; k++)
	{
		int			t = PgGpuValueType(s->key_typid[k]);

		if ((r->nullmask >> k) & 1)
			h = mix64(h, UINT64CONST(0x6e756c6c));
		else if ((t == PG_GPU_TEXT || t == PG_GPU_BPCHAR) && s->key_code[k] < 0)
		{
			const char *p;
			int			len;

			text_bytes(r->keys[k], t == PG_GPU_BPCHAR, &p, &len);
			h = mix64(h, hash_bytes_extended((const unsigned char *) p, len, 0));
		}
		else
			h = mix64(h, r->keys[k]);
	}
	/* testing: fewer bits, collisions on purpose */
	if (pg_gpu_debug_fold_hash_bits < 64)
		h &= (UINT64CONST(1) << pg_gpu_debug_fold_hash_bits) - 1;
	return h;
}

/*
 * The end of the run of equal hashes that starts at position p of the order,
 * and whether its records are one group.  Where a hash collision put records of
 * different keys in one run, the run is sorted by the keys, so that equal keys
 * stand together.  The records are read here just before they are folded: each
 * is fetched from memory once.
 */
static void
next_run(GpuAggState *s, int64 p)
{
	int64		end = p + 1;
	bool		mixed = false;

	while (end < s->fold_n && s->fold_ix[end].hash == s->fold_ix[p].hash)
	{
		if (!mixed && rec_cmp(&s->fold_ix[end], &s->fold_ix[p], s) != 0)
			mixed = true;
		end++;
	}
	if (mixed)
		qsort_arg(s->fold_ix + p, (size_t) (end - p), sizeof(GpuAggFoldEntry), rec_cmp, s);
	s->fold_run_end = end;
	s->fold_run_mixed = mixed;
}

/* Whether the record at position i of the order is in the group of i - 1. */
static inline bool
same_group(GpuAggState *s, int64 i)
{
	if (s->nkeys_out == 0)
		return true;
	if (i >= s->fold_run_end)
		return false;
	return !s->fold_run_mixed || rec_cmp(&s->fold_ix[i], &s->fold_ix[i - 1], s) == 0;
}

/*
 * Read every group into records and order them so that equal GROUP BY keys
 * stand together; false
 * (the engine released) where the host cannot hold them.
 */
static bool
fold_build(GpuAggState *s)
{
	int64		n = s->t.res.ngroups;
	int			ninputs = s->t.task.ninputs;
	int			xk = s->t.nkeys - 1;
	uint64		keys[PG_GPU_MAX_KEYS];
	pg_gpu_col_state cols[PG_GPU_MAX_AGG_COLS];
	GpuAggFoldEntry *ix;
	double		bytes;

	s->fold_size = sizeof(FoldRec) + sizeof(pg_gpu_col_state) * ninputs;
	bytes = (double) n * (s->fold_size + sizeof(GpuAggFoldEntry));
	if (s->fold_cxt == NULL)
		s->fold_cxt = AllocSetContextCreate(MemoryContextGetParent(s->row_cxt),
											"GpuAgg distinct fold", ALLOCSET_DEFAULT_SIZES);
	/* at most 1 GB of records (MaxAllocSize), else PostgreSQL's plan */
	if (bytes >= (double) MaxAllocSize)
		return false;
	s->fold_recs = (char *) MemoryContextAllocExtended(s->fold_cxt,
													   Max(1, (size_t) n * s->fold_size),
													   MCXT_ALLOC_NO_OOM);
	s->fold_ix = ix = (GpuAggFoldEntry *)
		MemoryContextAllocExtended(s->fold_cxt, Max(1, (size_t) n * sizeof(GpuAggFoldEntry)),
								   MCXT_ALLOC_NO_OOM);
	if (s->fold_recs == NULL || ix == NULL)
		return false;
	for (int64 g = 0; g < n; g++)
	{
		FoldRec    *r = rec_at(s, g);
		uint32		nullmask;

		if ((g & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		pg_gpu_agg_group(s->t.agg, g, keys, &nullmask, &r->rows, cols);
		memset(r->keys, 0, sizeof(r->keys));
		memcpy(r->keys, keys, sizeof(uint64) * s->nkeys_out);
		r->nullmask = nullmask & ((1u << s->nkeys_out) - 1);
		r->x_null = (nullmask >> xk) & 1;
		memcpy(rec_cols(r), cols, sizeof(pg_gpu_col_state) * ninputs);
		ix[g].hash = s->nkeys_out > 0 ? rec_hash(s, r) : 0;
		ix[g].idx = g;
	}
	/* by hash, then by position: equal keys stand together, collisions aside */
	std::sort(ix, ix + n, [](const GpuAggFoldEntry &a, const GpuAggFoldEntry &b) {
		return a.hash != b.hash ? a.hash < b.hash : a.idx < b.idx;
	});
	s->fold_run_end = 0;
	s->fold_run_mixed = false;
	s->fold_n = n;
	s->fold_pos = 0;
	return true;
}

void
PgGpuAggFoldReset(GpuAggState *s)
{
	if (s->fold_cxt != NULL)
		MemoryContextReset(s->fold_cxt);
	s->fold_recs = NULL;
	s->fold_ix = NULL;
	s->fold_run_end = 0;
	s->fold_run_mixed = false;
	s->fold_n = 0;
	s->fold_pos = 0;
	s->fold_ready = false;
	s->fold_emitted = false;
}

/* The next run of groups with equal keys, folded and projected; NULL at the end. */
TupleTableSlot *
PgGpuAggFoldNext(GpuAggState *s)
{
	int			ninputs = s->t.task.ninputs;
	pg_gpu_col_state acc[PG_GPU_MAX_AGG_COLS];

	if (!s->fold_ready)
	{
		s->fold_ready = true;
		if (!fold_build(s))
		{
			/* nothing emitted yet: PostgreSQL's plan answers instead */
			PgGpuAggFoldReset(s);
			PgGpuTableNodeRelease(&s->t, true, false);
			s->t.fallback = true;
			s->t.fb_reason = PG_GPU_FB_OUT_OF_MEMORY;
			strlcpy(s->t.fb_msg, "count(DISTINCT) groups do not fit in host memory",
					sizeof(s->t.fb_msg));
			PgGpuNoteFallback(s->t.node, s->t.fb_reason, s->t.fb_msg);
			return PgGpuAggNextChildRow(s);
		}
	}
	for (;;)
	{
		TupleTableSlot *out;
		FoldRec    *first;
		int64		rows;

		if (s->fold_pos >= s->fold_n)
		{
			/* no GROUP BY: one row, also over no rows */
			if (s->nkeys_out == 0 && !s->fold_emitted)
			{
				s->fold_emitted = true;
				memset(acc, 0, sizeof(acc));
				s->fold_distinct = 0;
				if ((out = PgGpuAggEmitRow(s, NULL, 0, 0, acc)) != NULL)
					return out;
			}
			PgGpuTableNodeRelease(&s->t, true, false);
			return NULL;
		}
		CHECK_FOR_INTERRUPTS();
		if (s->nkeys_out > 0)
			next_run(s, s->fold_pos);
		first = rec_at(s, s->fold_ix[s->fold_pos++].idx);
		rows = first->rows;
		s->fold_distinct = first->x_null ? 0 : 1;
		memcpy(acc, rec_cols(first), sizeof(pg_gpu_col_state) * ninputs);
		while (s->fold_pos < s->fold_n && same_group(s, s->fold_pos))
		{
			FoldRec    *r = rec_at(s, s->fold_ix[s->fold_pos++].idx);

			rows += r->rows;
			s->fold_distinct += r->x_null ? 0 : 1;
			for (int i = 0; i < ninputs; i++)
				pg_gpu_col_state_merge(&acc[i], &rec_cols(r)[i], s->t.task.inputs[i].type);
		}
		if (s->nkeys_out == 0)
			s->fold_emitted = true;
		if ((out = PgGpuAggEmitRow(s, first->keys, first->nullmask, rows, acc)) != NULL)
			return out;
	}
}
