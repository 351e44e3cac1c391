/*
 * page_walk.cuh — the one walk over a chunk of heap pages and their line pointers.
 *
 * page_tuple decides, for one line pointer, whether it is a normal, visible tuple
 * inside the page; everything that reads tuples goes through it.  On the host,
 * for_each_tuple walks one page in order (the emulation's and the unit tests'
 * loops).  On the GPU, for_each_page hands each block's thread groups one page at a
 * time, pulled into shared memory with coalesced 16-byte loads (and copied to a
 * sort run's page store on the way), and for_each_line / for_each_line_lockstep
 * spread the page's line pointers over a group: strided where each thread works
 * alone, in step where the body uses warp or block collectives and every thread
 * must take every round.
 */
#ifndef PG_GPU_PAGE_WALK_CUH
#define PG_GPU_PAGE_WALK_CUH

#include <string.h>

#include "heap_deform.cuh"
#include "pg_gpu_engine.h"
#include "pg_gpu_layout.h"

namespace pg_gpu {
namespace cuda {

/*
 * Line pointer i of a page image: 1 with its tuple when it is a normal line
 * pointer visible to the query (pvis: the page's bitmap, or null when all are
 * visible), 0 to pass over it, TUP_BAD when it points outside the page.
 */
PG_GPU_HD int
page_tuple(const uint8_t *pg, const uint32_t *pvis, int i, const uint8_t **tup, uint32_t *len)
{
	uint32_t	w;

#ifdef __CUDA_ARCH__
	w = ((const uint32_t *) (pg + PG_GPU_PAGE_HEADER_SIZE))[i];
#else
	memcpy(&w, pg + PG_GPU_PAGE_HEADER_SIZE + 4 * i, 4);
#endif
	uint32_t	off = PG_GPU_LP_OFF(w);

	if (PG_GPU_LP_FLAGS(w) != PG_GPU_LP_NORMAL || (pvis && !((pvis[i >> 5] >> (i & 31)) & 1)))
		return 0;
	*len = PG_GPU_LP_LEN(w);
	if (off < PG_GPU_PAGE_HEADER_SIZE || off + *len > PG_GPU_BLCKSZ)
		return TUP_BAD;
	*tup = pg + off;
	return 1;
}

/*
 * Call fn(lp_index, tuple, len) for every normal, visible line pointer of a page
 * image, in order (vis is null for an all-visible page).  fn returns a row count or
 * a negative TUP_* code, which stops the walk and is returned; else the sum.
 */
template <typename Fn>
PG_GPU_HD int64_t
for_each_tuple(const uint8_t *page, int nlp, const uint32_t *vis, Fn &&fn)
{
	int64_t		rows = 0;		/* weighted rows can pass 2^31 on one page */

	for (int i = 0; i < nlp; i++)
	{
		const uint8_t *tup = nullptr;
		uint32_t	len = 0;
		int			v = page_tuple(page, vis, i, &tup, &len);

		if (v == 0)
			continue;
		if (v < 0)
			return TUP_BAD;
		int			r = fn(i, tup, len);

		if (r < 0)
			return r;
		rows += r;
	}
	return rows;
}

/* Fold every visible tuple of one page image (the unit tests' CPU reference). */
PG_GPU_HD int64_t
accum_page_serial(const uint8_t *page, int nlp, const uint32_t *vis,
				  const pg_gpu_agg_task &task, pg_gpu_col_state *st)
{
	return for_each_tuple(page, nlp, vis, [&](int, const uint8_t *tup, uint32_t len) {
		return accum_tuple(tup, len, task, st);
	});
}

#ifdef __CUDACC__

/* A chunk as a kernel sees it: page references, bitmaps, the staging copy if any. */
struct page_chunk
{
	const pg_gpu_page_ref *refs;
	int			npages;
	const uint32_t *vis;
	const char *staging;		/* gathered pages, or null: read them in place */
};

/* Where page p of a chunk is: the staging copy, or in place. */
__device__ __forceinline__ const uint4 *
page_src(const char *staging, const pg_gpu_page_ref &ref, int p)
{
	return staging ? (const uint4 *) (staging + (size_t) p * PG_GPU_BLCKSZ)
		: (const uint4 *) (uintptr_t) ref.addr;
}

/*
 * Threads threads pull one 8 kB page into shared memory with coalesced 16-byte
 * loads (and, for a sort, into the page store too).  The caller syncs.
 */
template <int Threads>
__device__ __forceinline__ void
load_page(const uint4 *src, uint4 *page, uint4 *store, int tid)
{
	static_assert(PG_GPU_BLCKSZ % (16 * Threads) == 0, "page load must tile the group");
	uint4		v[PG_GPU_BLCKSZ / 16 / Threads];

#pragma unroll
	for (int k = 0; k < PG_GPU_BLCKSZ / 16 / Threads; k++)
		v[k] = src[tid + k * Threads];
#pragma unroll
	for (int k = 0; k < PG_GPU_BLCKSZ / 16 / Threads; k++)
	{
		page[tid + k * Threads] = v[k];
		if (store)
			store[tid + k * Threads] = v[k];
	}
}

/* No page store: the page goes to shared memory only. */
struct no_store
{
	__device__ uint4 *operator()(int) const { return nullptr; }
};

/*
 * Each block takes Pages pages a step, grid-strided, one per group of Threads
 * threads (blockDim.x == Threads * Pages): group sub loads page p0 + sub into
 * pages[sub] (and into store_at(p) when that is not null), the block syncs, the
 * group calls fn(p, ref, page, pvis, lt) with lt its thread's index in the group,
 * and the block syncs again before the next step.  Every thread of the block runs
 * every step, so fn may sync the block when Pages is 1.
 */
template <int Threads, int Pages = 1, typename Store = no_store, typename Fn>
__device__ __forceinline__ void
for_each_page(const page_chunk &c, uint4 *pages, Store store_at, Fn &&fn)
{
	const int	sub = threadIdx.x / Threads;
	const int	lt = threadIdx.x % Threads;

	for (int p0 = blockIdx.x * Pages; p0 < c.npages; p0 += gridDim.x * Pages)
	{
		int			p = p0 + sub;
		uint4	   *page = pages + sub * (PG_GPU_BLCKSZ / 16);
		pg_gpu_page_ref ref = {};

		if (p < c.npages)
		{
			ref = c.refs[p];
			load_page<Threads>(page_src(c.staging, ref, p), page, store_at(p), lt);
		}
		__syncthreads();
		if (p < c.npages)
			fn(p, ref, (const uint8_t *) page,
			   ref.vis_idx >= 0 ? c.vis + (size_t) ref.vis_idx * PG_GPU_VIS_WORDS : nullptr, lt);
		__syncthreads();
	}
}

/*
 * A page's line pointers spread over a group, strided: thread lt takes lt,
 * lt + Threads, ...; fn(i, v, tup, len) for each that is not passed over (v: 1, or
 * TUP_BAD for a pointer outside the page).
 */
template <int Threads, typename Fn>
__device__ __forceinline__ void
for_each_line(const uint8_t *pg, int nlp, const uint32_t *pvis, int lt, Fn &&fn)
{
	for (int i = lt; i < nlp; i += Threads)
	{
		const uint8_t *tup = nullptr;
		uint32_t	len = 0;
		int			v = page_tuple(pg, pvis, i, &tup, &len);

		if (v == 0)
			continue;
		fn(i, v, tup, len);
	}
}

/*
 * The same in step: every thread takes every round of Threads line pointers, so
 * that fn may use warp shuffles and block scans; fn(i, v, tup, len) is called with
 * v = 0 for a pointer passed over or past the last.
 */
template <int Threads, typename Fn>
__device__ __forceinline__ void
for_each_line_lockstep(const uint8_t *pg, int nlp, const uint32_t *pvis, int lt, Fn &&fn)
{
	for (int base = 0; base < nlp; base += Threads)
	{
		int			i = base + lt;
		const uint8_t *tup = nullptr;
		uint32_t	len = 0;
		int			v = i < nlp ? page_tuple(pg, pvis, i, &tup, &len) : 0;

		fn(i, v, tup, len);
	}
}

/* Cached rows a kernel reads besides a chunk's pages (pg_gpu_cc_range). */
struct cc_chunk
{
	const pg_gpu_cc_range *ranges;
	const uint64_t *first;		/* n + 1: the rows before each range, then all */
	int			n;
};

/*
 * Every row of the ranges, grid-strided over the whole grid as one sequence of
 * first[n] rows: fn(cc_row) for each slot that holds a row.  A thread finds its
 * range by a binary search from the one it last read (a chunk holds up to
 * PG_GPU_CC_MAX_RANGES short ranges where pages that are not all-visible
 * interleave: walking every range with the whole grid left it idle).
 */
template <typename Fn>
__device__ __forceinline__ void
for_each_cc_row(const cc_chunk &c, Fn &&fn)
{
	const uint64_t stride = (uint64_t) gridDim.x * blockDim.x;
	const uint64_t total = c.first[c.n];
	int			i = 0;

	for (uint64_t k = (uint64_t) blockIdx.x * blockDim.x + threadIdx.x; k < total; k += stride)
	{
		if (c.first[i + 1] <= k)
		{
			/* the last range that starts at or before k */
			int			lo = i + 1,
						hi = c.n - 1;

			while (lo < hi)
			{
				int			mid = (lo + hi + 1) / 2;

				if (c.first[mid] <= k)
					lo = mid;
				else
					hi = mid - 1;
			}
			i = lo;
		}

		const pg_gpu_cc_range rg = c.ranges[i];
		const pg_gpu_cc_seg *seg = (const pg_gpu_cc_seg *) (uintptr_t) rg.seg;
		const uint64_t row = rg.row + (k - c.first[i]);

		if (((const uint8_t *) (uintptr_t) seg->valid)[row])
			fn(cc_row{seg, row});
	}
}

/*
 * The rows of a chunk, whatever holds them: fn(row) for each visible tuple of
 * its pages (heap_row; a line pointer outside its page is noted in *err), or
 * each row of its cached ranges (cc_row).  Every thread of the block must call.
 */
template <int Threads, int Pages, typename Fn>
__device__ __forceinline__ void
walk_rows(const page_chunk &c, uint4 *pages, int *err, Fn &&fn)
{
	for_each_page<Threads, Pages>(c, pages, no_store(), [&](int, const pg_gpu_page_ref &ref,
															 const uint8_t *pg, const uint32_t *pvis, int lt) {
		for_each_line<Threads>(pg, ref.nlp, pvis, lt, [&](int, int v, const uint8_t *tup, uint32_t len) {
			if (v < 0)
				atomicCAS(err, 0, tup_status(v));
			else
				fn(heap_row{tup, len});
		});
	});
}

template <int Threads, int Pages, typename Fn>
__device__ __forceinline__ void
walk_rows(const cc_chunk &c, uint4 *, int *, Fn &&fn)
{
	for_each_cc_row(c, fn);
}

#endif							/* __CUDACC__ */

}							/* namespace cuda */
}							/* namespace pg_gpu */

#endif							/* PG_GPU_PAGE_WALK_CUH */
