/*
 * agg_engine.cu — GpuAgg's engine: heap pages in, exact per-column states out.
 *
 * The caller streams a table through a ring of PG_GPU_AGG_SLOTS chunk slots.  Each
 * chunk is a list of page references (plus visibility bitmaps for pages that are not
 * all-visible).  In registered mode a reference is the device address of a page in
 * PostgreSQL's shared buffer pool, registered once with cudaHostRegister, and the
 * kernel reads it in place over PCIe; in gather mode the caller has copied the pages
 * into the slot's pinned staging buffer and we copy that to the device first.
 * Either way each slot has its own stream, so while the GPU reduces chunk k the CPU
 * is already pinning the pages of chunk k+1.
 *
 * The kernel gives each thread block one page at a time: the block pulls the 8 kB
 * page into shared memory with coalesced 16-byte loads, then each thread deforms
 * line pointers tid, tid+T, ... and folds values into its private states
 * (agg_state.cuh).  At the end threads merge up a shared-memory tree and each block
 * merges its result into a per-slot partial; partials of all slots are merged on the
 * host in a fixed order.
 */
#include <string.h>
#include <unistd.h>

#include <algorithm>
#include <new>
#include <vector>

#include "cub.cuh"

#include "emulate/emulate.h"
#include "agg_state.cuh"
#include "engine/engine_internal.cuh"
#include "group/group.cuh"
#include "heap_deform.cuh"
#include "sort/sort.cuh"
#include "sort/sort_merge.h"

namespace pg_gpu {
namespace cuda {

constexpr int kThreads = 128;
constexpr uint64_t kTopNFraction = 8;	/* LIMIT m <= n / 8: select, then sort */
constexpr int kBlocksPerSm = 8;

static_assert(PG_GPU_BLCKSZ % (16 * kThreads) == 0, "page load must tile the block");

struct Slot
{
	cudaStream_t stream = nullptr;
	cudaEvent_t done = nullptr;
	bool		busy = false;
	pg_gpu_page_ref *h_refs = nullptr;
	uint32_t   *h_vis = nullptr;
	char	   *h_staging = nullptr;
	pg_gpu_page_ref *d_refs = nullptr;
	uint32_t   *d_vis = nullptr;
	char	   *d_pages = nullptr;
	pg_gpu_col_state *d_partials = nullptr;		/* max_blocks * ncols */
	unsigned long long *d_rows = nullptr;
	int		   *d_err = nullptr;
};

__global__ void
init_partials_kernel(pg_gpu_col_state *partials, int n, unsigned long long *rows,
					 int *err)
{
	int			i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		state_init(partials[i], 0);
	if (i == 0)
	{
		*rows = 0;
		*err = 0;
	}
}

/*
 * A block of kThreads pulls one 8 kB page into shared memory with coalesced 16-byte
 * loads (and, for a sort, into the page store too).  The caller syncs.
 */
__device__ __forceinline__ void
load_page(const uint4 *src, uint4 *page, uint4 *store, int tid)
{
	uint4		v[PG_GPU_BLCKSZ / 16 / kThreads];

#pragma unroll
	for (int k = 0; k < PG_GPU_BLCKSZ / 16 / kThreads; k++)
		v[k] = src[tid + k * kThreads];
#pragma unroll
	for (int k = 0; k < PG_GPU_BLCKSZ / 16 / kThreads; k++)
	{
		page[tid + k * kThreads] = v[k];
		if (store)
			store[tid + k * kThreads] = v[k];
	}
}

/* Where page p of a chunk is: the staging copy, or in place. */
__device__ __forceinline__ const uint4 *
page_src(const char *staging, const pg_gpu_page_ref &ref, int p)
{
	return staging ? (const uint4 *) (staging + (size_t) p * PG_GPU_BLCKSZ)
		: (const uint4 *) (uintptr_t) ref.addr;
}

/*
 * A table cache being filled: page p of the chunk is the (first + p)-th page
 * submitted; copy it to the arena and point its reference there, so that the
 * chunk's kernel (launched next on the stream) reads the copy from device memory.
 */
__global__ void __launch_bounds__(kThreads)
cache_fill_kernel(pg_gpu_page_ref *refs, int npages, const char *staging, char *arena,
				  int64_t first)
{
	const int	tid = threadIdx.x;

	for (int p = blockIdx.x; p < npages; p += gridDim.x)
	{
		const uint4 *src = page_src(staging, refs[p], p);
		uint4	   *dst = (uint4 *) (arena + (size_t) (first + p) * PG_GPU_BLCKSZ);

#pragma unroll
		for (int k = 0; k < PG_GPU_BLCKSZ / 16 / kThreads; k++)
			dst[tid + k * kThreads] = src[tid + k * kThreads];
		/* every thread has read refs[p].addr before it is pointed at the copy */
		__syncthreads();
		if (tid == 0)
			refs[p].addr = (uint64_t) (uintptr_t) dst;
	}
}

/*
 * Line pointer i of a page loaded by load_page: 1 with its tuple when it is a
 * normal line pointer visible to the query (pvis: the page's bitmap, or null when
 * all are visible), 0 to pass over it, TUP_BAD when it points outside the page.
 */
__device__ __forceinline__ int
page_tuple(const uint8_t *pg, const uint32_t *pvis, int i, const uint8_t **tup, uint32_t *len)
{
	uint32_t	w = ((const uint32_t *) (pg + PG_GPU_PAGE_HEADER_SIZE))[i];
	uint32_t	off = PG_GPU_LP_OFF(w);

	if (PG_GPU_LP_FLAGS(w) != PG_GPU_LP_NORMAL || (pvis && !((pvis[i >> 5] >> (i & 31)) & 1)))
		return 0;
	*len = PG_GPU_LP_LEN(w);
	if (off < PG_GPU_PAGE_HEADER_SIZE || off + *len > PG_GPU_BLCKSZ)
		return TUP_BAD;
	*tup = pg + off;
	return 1;
}

__global__ void __launch_bounds__(kThreads)
agg_pages_kernel(const pg_gpu_page_ref *refs, int npages, const uint32_t *vis,
				 const char *staging, const __grid_constant__ pg_gpu_agg_task task,
				 pg_gpu_col_state *partials, unsigned long long *rows, int *err)
{
	__shared__ uint4 page[PG_GPU_BLCKSZ / 16];
	__shared__ pg_gpu_col_state red[kThreads];
	pg_gpu_col_state st[PG_GPU_MAX_AGG_COLS];
	unsigned long long nrows = 0;
	const int	tid = threadIdx.x;

	for (int c = 0; c < task.ninputs; c++)
		state_init(st[c], task.inputs[c].type);

	for (int p = blockIdx.x; p < npages; p += gridDim.x)
	{
		pg_gpu_page_ref ref = refs[p];

		load_page(page_src(staging, ref, p), page, nullptr, tid);
		__syncthreads();

		const uint8_t *pg = (const uint8_t *) page;
		const uint32_t *pvis = ref.vis_idx >= 0
			? vis + (size_t) ref.vis_idx * PG_GPU_VIS_WORDS : nullptr;

		for (int i = tid; i < ref.nlp; i += kThreads)
		{
			const uint8_t *tup = nullptr;
			uint32_t	len = 0;
			int			v = page_tuple(pg, pvis, i, &tup, &len);

			if (v == 0)
				continue;
			int			r = v < 0 ? v : accum_tuple(tup, len, task, st);

			if (r < 0)
			{
				atomicCAS(err, 0, tup_status(r));
				continue;
			}
			nrows += r;
		}
		__syncthreads();
	}

	if (nrows)
		atomicAdd(rows, nrows);

	/* merge thread states column by column up a shared-memory tree */
	for (int c = 0; c < task.ninputs; c++)
	{
		int			t = task.inputs[c].type;

		red[tid] = st[c];
		__syncthreads();
		for (int s = kThreads / 2; s > 0; s >>= 1)
		{
			if (tid < s)
				state_merge(red[tid], red[tid + s], t);
			__syncthreads();
		}
		if (tid == 0)
			state_merge(partials[blockIdx.x * task.ninputs + c], red[0], t);
		__syncthreads();
	}
}

/* ---- GROUP BY ------------------------------------------------------------ */

constexpr int kGroupThreads = 512;
constexpr int kGroupPages = kGroupThreads / kThreads;	/* pages per block step */
constexpr size_t kGroupSmemBudget = 200 * 1024;
constexpr int64_t kSmemGroupsMax = 4096;	/* above this, no per-block tables */
constexpr size_t kSmemStrBytes = 48 * 1024;	/* text keys of a per-block table */

/*
 * Each block takes kGroupPages pages at a time, one per 128-thread group.  A row's
 * key goes to the block's shared-memory table while that has room (at most half
 * full), else straight to the global table; the block merges its shared table into
 * the global one when it is done.
 */
__global__ void __launch_bounds__(kGroupThreads)
group_pages_kernel(const pg_gpu_page_ref *refs, int npages, const uint32_t *vis,
				   const char *staging, const __grid_constant__ pg_gpu_agg_task task,
				   uint64_t *tab, uint64_t mask, uint64_t *inserted, str_arena ar,
				   int smem_cap, int smem_str, unsigned long long *rows, int *err)
{
	extern __shared__ uint4 dyn[];
	__shared__ group_layout L;
	__shared__ uint64_t sfill;
	__shared__ uint64_t sstr_fill;
	uint4	   *pages = dyn;
	uint64_t   *stab = (uint64_t *) (dyn + kGroupPages * (PG_GPU_BLCKSZ / 16));
	str_arena	sar;
	const int	tid = threadIdx.x;
	const int	sub = tid / kThreads;
	const int	lt = tid % kThreads;
	unsigned long long nrows = 0;

	if (tid == 0)
	{
		make_group_layout(task, L);
		sfill = 0;
		sstr_fill = 0;
	}
	__syncthreads();
	sar.base = (uint8_t *) (stab + (size_t) smem_cap * L.words);
	sar.fill = &sstr_fill;
	sar.cap = (uint64_t) smem_str;
	for (int i = tid; i < smem_cap * L.words; i += kGroupThreads)
		stab[i] = 0;
	__syncthreads();

	for (int p0 = blockIdx.x * kGroupPages; p0 < npages; p0 += gridDim.x * kGroupPages)
	{
		int			p = p0 + sub;
		uint4	   *page = pages + sub * (PG_GPU_BLCKSZ / 16);

		if (p < npages)
			load_page(page_src(staging, refs[p], p), page, nullptr, lt);
		__syncthreads();
		if (p < npages)
		{
			pg_gpu_page_ref ref = refs[p];
			const uint8_t *pg = (const uint8_t *) page;
			const uint32_t *pvis = ref.vis_idx >= 0
				? vis + (size_t) ref.vis_idx * PG_GPU_VIS_WORDS : nullptr;

			for (int i = lt; i < ref.nlp; i += kThreads)
			{
				const uint8_t *tup = nullptr;
				uint32_t	len = 0;
				int			v = page_tuple(pg, pvis, i, &tup, &len);

				if (v == 0)
					continue;
				pval		in[PG_GPU_MAX_AGG_COLS];
				pval		keys[PG_GPU_MAX_KEYS];
				group_key	gk;
				int			r = v < 0 ? v : eval_tuple(tup, len, task, in, keys);

				if (r < 0)
				{
					atomicCAS(err, 0, tup_status(r));
					continue;
				}
				if (r == TUP_SKIP)
					continue;
				row_key(task, keys, gk);
				uint64_t	h = key_hash(gk.w, task.nkeys);
				int64_t		ix = -1;
				uint64_t   *e = nullptr;

				if (smem_cap > 0)
				{
					ix = group_find<DevAtomics>(stab, (uint64_t) smem_cap - 1, task, L, gk, h,
												&sfill, (uint64_t) smem_cap / 2, nullptr, &sar);
					if (ix >= 0)
						e = stab + ix * L.words;
					else
						ix = -1;	/* full, or no room for the key's text: global */
				}
				if (ix < 0)
				{
					ix = group_find<DevAtomics>(tab, mask, task, L, gk, h, nullptr, 0, inserted,
												&ar);
					if (ix < 0)
					{
						atomicCAS(err, 0, (int) PG_GPU_INVALID_TASK);
						continue;
					}
					e = tab + ix * L.words;
				}
				group_accum<DevAtomics>(e, task, L, in);
				nrows++;
			}
		}
		__syncthreads();
	}

	/* merge the block's shared table into the global one */
	for (int i = tid; i < smem_cap; i += kGroupThreads)
	{
		const uint64_t *s = stab + (size_t) i * L.words;
		group_key	gk;

		if (!entry_ready(s[kWStatus]))
			continue;
		entry_key(s, task, L, gk);
		int64_t		ix = group_find<DevAtomics>(tab, mask, task, L, gk,
												key_hash(gk.w, task.nkeys), nullptr, 0,
												inserted, &ar);

		if (ix < 0)
		{
			atomicCAS(err, 0, (int) PG_GPU_INVALID_TASK);
			continue;
		}
		group_merge<DevAtomics>(tab + ix * L.words, s, task, L);
	}
	if (nrows)
		atomicAdd(rows, nrows);
}

/* Move every entry of a table into a larger, empty one (keys are unique). */
__global__ void
group_rehash_kernel(const uint64_t *old, uint64_t old_cap, uint64_t *tab, uint64_t mask,
					int words, int nkeys)
{
	for (uint64_t i = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; i < old_cap;
		 i += (uint64_t) gridDim.x * blockDim.x)
	{
		const uint64_t *s = old + i * words;
		uint64_t	kw[PG_GPU_MAX_KEYS + 1];

		if (!entry_ready(s[kWStatus]))
			continue;
		kw[0] = s[kWNulls];
		for (int k = 0; k < nkeys; k++)
			kw[1 + k] = s[kWKeys + k];
		uint64_t	h = key_hash(kw, nkeys);

		for (uint64_t j = h & mask;; j = (j + 1) & mask)
			if (atomicCAS((unsigned long long *) &tab[j * words], 0ULL,
						  (unsigned long long) s[kWStatus]) == 0)
			{
				for (int w = 1; w < words; w++)
					tab[j * words + w] = s[w];
				break;
			}
	}
}

/* ---- collect: the keys of passing rows, for a key set ------------------- */

/*
 * Where a collect task's keys go: integers to vals; text bytes to the arena,
 * with each key's arena offset (src) and length (len).  count: [0] keys,
 * [1] arena bytes handed out, [2] 1 once a NULL key was met.
 */
struct collect_out
{
	int64_t    *vals;
	uint64_t   *src;
	uint64_t   *len;
	uint8_t    *arena;
	uint64_t	cap;			/* keys */
	uint64_t	bytes;			/* arena */
	unsigned long long *count;
};

/*
 * Like agg_pages_kernel, but each passing row's key is appended.  A warp claims
 * room for its keys (and their bytes) with one atomic each: every lane walks the
 * page's line pointers in step, so the warp's shuffles see all 32 lanes.
 */
__global__ void __launch_bounds__(kThreads)
collect_pages_kernel(const pg_gpu_page_ref *refs, int npages, const uint32_t *vis,
					 const char *staging, const __grid_constant__ pg_gpu_agg_task task,
					 collect_out co, unsigned long long *rows, int *err)
{
	__shared__ uint4 page[PG_GPU_BLCKSZ / 16];
	const int	tid = threadIdx.x;
	const int	lane = tid & 31;
	const bool	text = is_text_type(task.keys[0].type);
	unsigned long long nrows = 0;
	bool		saw_null = false;

	for (int p = blockIdx.x; p < npages; p += gridDim.x)
	{
		pg_gpu_page_ref ref = refs[p];

		load_page(page_src(staging, ref, p), page, nullptr, tid);
		__syncthreads();

		const uint8_t *pg = (const uint8_t *) page;
		const uint32_t *pvis = ref.vis_idx >= 0
			? vis + (size_t) ref.vis_idx * PG_GPU_VIS_WORDS : nullptr;

		for (int base = 0; base < ref.nlp; base += kThreads)
		{
			int			i = base + tid;
			bool		have = false;
			pval		k;
			const uint8_t *tup = nullptr;
			uint32_t	len = 0;
			int			v = i < ref.nlp ? page_tuple(pg, pvis, i, &tup, &len) : 0;

			k.len = 0;
			if (v != 0)
			{
				int			r = v < 0 ? v : eval_tuple(tup, len, task, nullptr, &k);

				if (r < 0)
					atomicCAS(err, 0, tup_status(r));
				else if (r == TUP_OK)
				{
					nrows++;
					if (k.null)
						saw_null = true;
					else
						have = true;
				}
			}

			unsigned	mask = __ballot_sync(0xFFFFFFFFu, have);

			if (mask == 0)
				continue;

			/* this lane's bytes, and the warp's before it */
			uint64_t	mine = (have && text) ? k.len : 0;
			uint64_t	incl = mine;

			for (int d = 1; d < 32; d <<= 1)
			{
				uint64_t	t = __shfl_up_sync(0xFFFFFFFFu, incl, d);

				if (lane >= d)
					incl += t;
			}

			uint64_t	total = __shfl_sync(0xFFFFFFFFu, incl, 31);
			unsigned long long kbase = 0,
						bbase = 0;

			if (lane == 0)
			{
				kbase = atomicAdd(&co.count[0], (unsigned long long) __popc(mask));
				if (total > 0)
					bbase = atomicAdd(&co.count[1], (unsigned long long) total);
			}
			kbase = __shfl_sync(0xFFFFFFFFu, kbase, 0);
			bbase = __shfl_sync(0xFFFFFFFFu, bbase, 0);
			if (!have)
				continue;

			uint64_t	idx = kbase + __popc(mask & ((1u << lane) - 1));
			uint64_t	at = bbase + incl - mine;

			/* the caller reserved room (collect_reserve); never write past it */
			if (idx >= co.cap || (text && at + mine > co.bytes))
			{
				atomicCAS(err, 0, (int) PG_GPU_INVALID_TASK);
				continue;
			}
			if (!text)
			{
				co.vals[idx] = (int64_t) k.bits;
				continue;
			}

			const uint8_t *src = (const uint8_t *) (uintptr_t) k.bits;

			for (uint64_t b = 0; b < mine; b++)
				co.arena[at + b] = src[b];
			co.src[idx] = at;
			co.len[idx] = mine;
		}
		__syncthreads();
	}
	if (nrows)
		atomicAdd(rows, nrows);
	if (saw_null)
		co.count[2] = 1;
}

/* Text keys gathered end to end: key i's bytes from src[i] to off[i]. */
__global__ void
collect_pack_kernel(const uint8_t *arena, const uint64_t *src, const uint64_t *off, uint64_t n,
					uint8_t *data)
{
	for (uint64_t i = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; i < n;
		 i += (uint64_t) gridDim.x * blockDim.x)
		for (uint64_t b = 0; b < off[i + 1] - off[i]; b++)
			data[off[i] + b] = arena[src[i] + b];
}

/* ---- ORDER BY ------------------------------------------------------------ */

/* Where the sort kernels put rows: per sort word arrays, row references. */
struct sort_arrays
{
	uint64_t   *w[kMaxSortWords];
	uint64_t   *ref;
	sort_stats *stats;
	uint64_t	cap;
};

/*
 * One block per page, as agg_pages_kernel: the page goes to shared memory and to
 * the run's page store (store_base: the chunk's first page there; the sorted
 * tuples are gathered from it); each passing tuple's sort words and reference are
 * appended at a position from one atomic add per 128 line pointers.
 */
__global__ void __launch_bounds__(kThreads)
sort_pages_kernel(const pg_gpu_page_ref *refs, int npages, const uint32_t *vis,
				  const char *staging, const __grid_constant__ pg_gpu_agg_task task,
				  int64_t page_base, int64_t store_base, uint4 *store, sort_arrays sa,
				  unsigned long long *rows, int *err)
{
	using BlockScan = cub::BlockScan<int, kThreads>;
	__shared__ uint4 page[PG_GPU_BLCKSZ / 16];
	__shared__ typename BlockScan::TempStorage scan;
	__shared__ unsigned long long base;
	const int	tid = threadIdx.x;
	const int	nw = sort_row_words(task);
	unsigned long long nrows = 0;
	uint32_t	nulls_seen = 0,
				longs_seen = 0;
	uint32_t	maxlen[PG_GPU_MAX_KEYS] = {};

	for (int p = blockIdx.x; p < npages; p += gridDim.x)
	{
		pg_gpu_page_ref ref = refs[p];

		load_page(page_src(staging, ref, p), page,
				  store + (size_t) (store_base + p) * (PG_GPU_BLCKSZ / 16), tid);
		__syncthreads();

		const uint8_t *pg = (const uint8_t *) page;
		const uint32_t *pvis = ref.vis_idx >= 0
			? vis + (size_t) ref.vis_idx * PG_GPU_VIS_WORDS : nullptr;

		for (int i0 = 0; i0 < ref.nlp; i0 += kThreads)
		{
			int			i = i0 + tid;
			int			cnt = 0;	/* times the row is handed out */
			pval		keys[PG_GPU_MAX_KEYS];
			const uint8_t *tup = nullptr;
			uint32_t	len = 0;
			int			v = i < ref.nlp ? page_tuple(pg, pvis, i, &tup, &len) : 0;

			if (v != 0)
			{
				/* TUP_OK, or a weighted task's weight (bounded by sort_reserve) */
				int			r = v < 0 ? v : eval_tuple(tup, len, task, nullptr, keys);

				if (r < 0)
					atomicCAS(err, 0, tup_status(r));
				cnt = r > 0 ? r : 0;
			}
			int			pos,
						total;

			BlockScan(scan).ExclusiveSum(cnt, pos, total);
			if (tid == 0)
				base = total ? atomicAdd(&sa.stats->count, (unsigned long long) total) : 0;
			__syncthreads();
			if (cnt > 0)
			{
				unsigned long long at = base + pos;
				uint64_t	wds[kMaxSortWords];
				uint32_t	nl,
							lg,
							lens[PG_GPU_MAX_KEYS];

				if (at + cnt <= sa.cap)
				{
					uint64_t	rref = sort_ref((uint64_t) (page_base + p), (uint32_t) i + 1, len);

					sort_encode(task, keys, wds, &nl, &lg, lens);
					for (int c = 0; c < cnt; c++)
					{
						for (int k = 0; k < nw; k++)
							sa.w[k][at + c] = wds[k];
						sa.ref[at + c] = rref;
					}
					nulls_seen |= nl;
					longs_seen |= lg;
					for (int k = 0; k < task.nkeys; k++)
						maxlen[k] = lens[k] > maxlen[k] ? lens[k] : maxlen[k];
				}
				else
					atomicCAS(err, 0, (int) PG_GPU_INVALID_TASK);
				nrows += cnt;
			}
			__syncthreads();
		}
		__syncthreads();
	}
	if (nulls_seen)
		atomicOr(&sa.stats->nulls, nulls_seen);
	if (longs_seen)
		atomicOr(&sa.stats->longs, longs_seen);
	for (int k = 0; k < task.nkeys; k++)
		if (maxlen[k])
			atomicMax(&sa.stats->maxlen[k], maxlen[k]);
	if (nrows)
		atomicAdd(rows, nrows);
}

__global__ void
gather_words_kernel(const uint64_t *src, const uint32_t *idx, uint64_t *dst, uint64_t n)
{
	for (uint64_t i = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; i < n;
		 i += (uint64_t) gridDim.x * blockDim.x)
		dst[i] = src[idx[i]];
}

__global__ void
iota_kernel(uint32_t *idx, uint64_t n)
{
	for (uint64_t i = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; i < n;
		 i += (uint64_t) gridDim.x * blockDim.x)
		idx[i] = (uint32_t) i;
}

__global__ void
add_kernel(uint64_t *v, uint64_t n, uint64_t delta)
{
	for (uint64_t i = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; i < n;
		 i += (uint64_t) gridDim.x * blockDim.x)
		v[i] += delta;
}

/*
 * Rows in the order idx gives: their references (and, for a merge block, where
 * their bytes are), and each tuple's MAXALIGNed size for the offsets' scan.
 */
__global__ void
sorted_refs_kernel(const uint64_t *ref, const uint64_t *src, const uint32_t *idx,
				   uint64_t *out_ref, uint64_t *out_src, uint64_t *size, uint64_t n)
{
	for (uint64_t i = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; i < n;
		 i += (uint64_t) gridDim.x * blockDim.x)
	{
		uint64_t	r = ref[idx[i]];

		out_ref[i] = r;
		if (src)
			out_src[i] = src[idx[i]];
		size[i] = ((r & 0xFFFF) + 7) & ~7ULL;
	}
}

/* Sorted neighbours whose words cannot order them (sort_unresolved). */
__global__ void
unresolved_kernel(sort_arrays sa, const uint32_t *idx, uint64_t n,
				  const __grid_constant__ pg_gpu_agg_task task, int *found)
{
	for (uint64_t i = 1 + blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; i < n;
		 i += (uint64_t) gridDim.x * blockDim.x)
	{
		uint32_t	a = idx[i - 1],
					b = idx[i];

		if (sort_unresolved(task, [&](int w) { return sa.w[w][a]; },
							[&](int w) { return sa.w[w][b]; }))
			*found = 1;
	}
}

/*
 * One warp per tuple: copy it to its place in out (off[i] - off[0]).  From the
 * page store (tuple i is line pointer ref's of store page (ref >> 32) - page0), or
 * from a merge block's bytes (at src[i]).
 */
template <bool FromStore>
__global__ void
gather_tuples_kernel(const char *base, const uint64_t *src, const uint64_t *ref,
					 const uint64_t *off, uint64_t n, int64_t page0, char *out)
{
	uint64_t	warp = (blockIdx.x * (uint64_t) blockDim.x + threadIdx.x) / 32;
	int			lane = threadIdx.x % 32;
	uint64_t	nwarps = (uint64_t) gridDim.x * blockDim.x / 32;
	uint64_t	off0 = off[0];

	for (uint64_t i = warp; i < n; i += nwarps)
	{
		uint64_t	r = ref[i];
		const uint64_t *from;

		if (FromStore)
		{
			const uint8_t *pg = (const uint8_t *) base +
				(size_t) ((int64_t) (r >> 32) - page0) * PG_GPU_BLCKSZ;
			uint32_t	lp = (uint32_t) (r >> 16) & 0xFFFF;
			uint32_t	w;

			memcpy(&w, pg + PG_GPU_PAGE_HEADER_SIZE + 4 * (lp - 1), 4);
			from = (const uint64_t *) (pg + PG_GPU_LP_OFF(w));
		}
		else
			from = (const uint64_t *) (base + src[i]);

		uint64_t   *dst = (uint64_t *) (out + (off[i] - off0));
		uint32_t	words = (uint32_t) (((r & 0xFFFF) + 7) / 8);

		for (uint32_t j = lane; j < words; j += 32)
			dst[j] = from[j];
	}
}

/* Copy the occupied entries into a dense array. */
__global__ void
group_compact_kernel(const uint64_t *tab, uint64_t cap, int words, uint64_t *out,
					 unsigned long long *pos)
{
	for (uint64_t i = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; i < cap;
		 i += (uint64_t) gridDim.x * blockDim.x)
	{
		const uint64_t *s = tab + i * words;

		if (!entry_ready(s[kWStatus]))
			continue;
		unsigned long long at = atomicAdd(pos, 1ULL);

		for (int w = 0; w < words; w++)
			out[at * words + w] = s[w];
	}
}

/*
 * Top-N selection, one radix digit (8 bits at shift) of the most significant pass
 * p: a histogram of the digit over the rows whose higher bits equal prefix.
 */
__global__ void
select_hist_kernel(const uint64_t *w, uint64_t n, sort_pass p, uint64_t mask, uint64_t prefix,
				   int shift, unsigned long long *hist)
{
	__shared__ unsigned int h[256];

	for (int i = threadIdx.x; i < 256; i += blockDim.x)
		h[i] = 0;
	__syncthreads();
	for (uint64_t i = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; i < n;
		 i += (uint64_t) gridDim.x * blockDim.x)
	{
		uint64_t	v = pass_bits(w[i], p);

		if ((v & mask) == prefix)
			atomicAdd(&h[(v >> shift) & 255], 1u);
	}
	__syncthreads();
	for (int i = threadIdx.x; i < 256; i += blockDim.x)
		if (h[i])
			atomicAdd(&hist[i], (unsigned long long) h[i]);
}

/* flag[i]: row i's most significant pass value is at most t */
__global__ void
select_flag_kernel(const uint64_t *w, uint64_t n, sort_pass p, uint64_t t, char *flag)
{
	for (uint64_t i = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; i < n;
		 i += (uint64_t) gridDim.x * blockDim.x)
		flag[i] = pass_bits(w[i], p) <= t;
}

__global__ void
map_perm_kernel(const uint32_t *cand, uint32_t *perm, uint64_t k)
{
	for (uint64_t i = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; i < k;
		 i += (uint64_t) gridDim.x * blockDim.x)
		perm[i] = cand[perm[i]];
}

}							/* namespace cuda */
}							/* namespace pg_gpu */

using namespace pg_gpu::cuda;

/* One block of the string arena: blocks never move, entries point into them. */
struct ArenaBlock
{
	uint8_t    *d = nullptr;	/* device */
	uint64_t	used = 0;		/* bytes handed out (final once the block is left) */
	uint8_t    *h = nullptr;	/* pinned host copy, after finish */
};

struct pg_gpu_agg
{
	host_agg   *host = nullptr;		/* emulated on the host */
	pg_gpu_agg_task task;
	int			capacity = 0;
	int			max_blocks = 0;
	Slot		slots[PG_GPU_AGG_SLOTS];
	bool		started = false;
	cudaEvent_t first_start = nullptr;
	cudaEvent_t last_done = nullptr;
	uint64_t	bytes = 0;
	int64_t		chunks = 0;
	int64_t		pages = 0;

	/* GROUP BY */
	bool		grouped = false;
	group_layout layout;
	uint64_t   *d_tab = nullptr;
	uint64_t	cap = 0;		/* entries, a power of two */
	uint64_t   *d_inserted = nullptr;	/* [0] groups in the global table,
										 * [1] bytes handed out of the arena block */
	uint64_t	bound = 0;		/* upper bound of groups once queued work is done */
	int			ntext = 0;		/* text keys */
	ArenaBlock	blocks[64];
	int			nblocks = 0;
	uint64_t	arena_cap = 0;	/* current block (blocks[nblocks - 1]) */
	uint64_t	arena_bound = 0;	/* upper bound of its bytes once queued work is done */
	int			smem_cap = 0;
	int			smem_str = 0;	/* bytes of text keys per shared-memory table */
	size_t		dyn_smem = 0;
	int			group_blocks = 0;
	int			grows = 0;
	uint64_t   *h_groups = nullptr;	/* after finish: ngroups dense entries */
	int64_t		ngroups = 0;

	/* ORDER BY */
	bool		sorting = false;
	bool		plain = false;	/* neither grouped nor sorting: per-block partials */
	sort_shape	shape = {};
	sort_arrays sa = {};		/* the current run's rows */
	int			nwords = 0;		/* sort words a row */
	uint64_t	sort_bound = 0;	/* rows once queued work is done, at most */
	uint64_t	sort_rep = 1;	/* times a passing row may be handed out */
	uint4	   *d_store = nullptr;	/* the current run's pages */
	int64_t		store_pages = 0;
	int64_t		run_page0 = 0;	/* global ordinal of the run's first page */
	sort_stats	seen = {};		/* every run's, merged */
	sort_merge	merge;			/* runs closed (sorted, copied to the host) */
	std::vector<std::pair<void *, uint64_t>> run_registered;	/* run buffers registered
															 * with CUDA, and their bytes */
	uint64_t	topn_rows = 0;	/* rows kept by top-N selections */
	uint64_t	run_registered_bytes = 0;
	/* after finish: a single run stays on the device, sorted */
	uint64_t   *d_sref = nullptr;	/* sorted references */
	uint64_t   *d_soff = nullptr;	/* their tuples' offsets (nsorted + 1) */
	std::vector<uint64_t> h_samp;	/* d_soff at every samp_step-th row */
	uint64_t	samp_step = 0;
	uint64_t	nsorted = 0;	/* rows to hand out */
	uint64_t	next_row = 0;	/* first row not yet in a batch */
	/* output batches, two so that one fills while the executor reads the other */
	struct OutBuf
	{
		char	   *d = nullptr;
		char	   *h = nullptr;	/* pinned */
		uint64_t   *h_off = nullptr;	/* pinned: batch_rows + 1 */
		uint64_t   *h_ref = nullptr;
		int64_t		nrows = 0;
		cudaEvent_t ready = nullptr;
	}			out[2];
	int			out_cur = -1;	/* the batch the executor has; -1: none yet */
	cudaStream_t out_stream = nullptr;
	/* a merge block on the device */
	uint64_t   *blk_w[kMaxSortWords] = {};
	uint64_t   *blk_ref = nullptr;
	uint64_t   *blk_src = nullptr;	/* row's bytes in blk_tup */
	char	   *blk_tup = nullptr;
	uint64_t   *blk_oref = nullptr;	/* sorted: references */
	uint64_t   *blk_osrc = nullptr;	/* sorted: bytes */
	uint64_t   *blk_size = nullptr;
	uint64_t   *blk_off = nullptr;
	int		   *d_flag = nullptr;	/* unresolved neighbours */

	/* collect: keys of passing rows (collect_out's arrays), grown as needed */
	bool		collecting = false;
	collect_out co = {};
	uint64_t	co_bound = 0;	/* keys once queued work is done, at most */
	uint64_t	co_bbound = 0;	/* arena bytes, likewise */
	uint64_t	co_keys = 0;	/* after finish: keys, and their bytes */
	uint64_t	co_used = 0;
	int			co_null = 0;
};

static uint64_t
pow2_at_least(uint64_t v)
{
	uint64_t	c = 1;

	while (c < v)
		c <<= 1;
	return c;
}

static pg_gpu_status
group_setup(pg_gpu_agg *agg, int sms, pg_gpu_error *err)
{
	const pg_gpu_agg_task &t = agg->task;
	int64_t		hint = t.groups_hint > 0 ? t.groups_hint : 1;
	size_t		entry = sizeof(uint64_t) * agg->layout.words;
	size_t		pages = (size_t) kGroupPages * PG_GPU_BLCKSZ;
	int			per_sm = 0;
	pg_gpu_status st;

	agg->ntext = text_keys(t);
	agg->smem_cap = 0;
	agg->smem_str = 0;
	if (hint <= kSmemGroupsMax)
	{
		uint64_t	c = pow2_at_least(2 * (uint64_t) hint);
		size_t		str = agg->ntext > 0 ? kSmemStrBytes : 0;

		if (c < 64)
			c = 64;
		while (c > 64 && pages + c * entry + str > kGroupSmemBudget)
			c >>= 1;
		if (pages + c * entry + str <= kGroupSmemBudget)
		{
			agg->smem_cap = (int) c;
			agg->smem_str = (int) str;
		}
	}
	agg->dyn_smem = pages + (size_t) agg->smem_cap * entry + agg->smem_str;
	PG_GPU_TRY(err, cudaFuncSetAttribute(group_pages_kernel,
										 cudaFuncAttributeMaxDynamicSharedMemorySize,
										 (int) agg->dyn_smem));
	PG_GPU_TRY(err, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, group_pages_kernel,
																   kGroupThreads, agg->dyn_smem));
	agg->group_blocks = sms * (per_sm > 0 ? per_sm : 1);

	agg->cap = pow2_at_least(2 * (uint64_t) hint + (uint64_t) hint / 2);
	if (agg->cap < 4096)
		agg->cap = 4096;
	if ((st = device_alloc(agg->cap * entry, (void **) &agg->d_tab, err)) != PG_GPU_OK ||
		(st = device_alloc(2 * sizeof(uint64_t), (void **) &agg->d_inserted, err)) != PG_GPU_OK)
		return st;
	PG_GPU_TRY(err, cudaMemset(agg->d_tab, 0, agg->cap * entry));
	PG_GPU_TRY(err, cudaMemset(agg->d_inserted, 0, 2 * sizeof(uint64_t)));
	return PG_GPU_OK;
}

/* Row arrays for n rows (sort words, references), copying the first keep rows. */
static pg_gpu_status
sort_arrays_alloc(pg_gpu_agg *agg, uint64_t n, uint64_t keep, pg_gpu_error *err)
{
	pg_gpu_status st;

	for (int k = 0; k <= agg->nwords; k++)
	{
		uint64_t  **old = k < agg->nwords ? &agg->sa.w[k] : &agg->sa.ref;
		uint64_t   *w = nullptr;

		if ((st = device_alloc(n * sizeof(uint64_t), (void **) &w, err)) != PG_GPU_OK)
			return st;
		if (keep)
			PG_GPU_TRY(err, cudaMemcpy(w, *old, keep * sizeof(uint64_t), cudaMemcpyDeviceToDevice));
		device_free(*old);
		*old = w;
	}
	agg->sa.cap = n;
	return PG_GPU_OK;
}

/*
 * The sort's shape under its memory budget (the GUC's limit, or most of the
 * device's free memory), a page store for one run, counters, output batches.
 */
static pg_gpu_status
sort_setup(pg_gpu_agg *agg, pg_gpu_error *err)
{
	const pg_gpu_agg_task &t = agg->task;
	uint64_t	budget = t.sort_budget > 0 ? (uint64_t) t.sort_budget : device_budget();
	pg_gpu_status st;

	agg->nwords = sort_row_words(t);
	if (!sort_plan_shape(budget, agg->nwords, agg->capacity, t.gather != 0, &agg->shape))
		return set_error(err, PG_GPU_OUT_OF_MEMORY,
						 "a GPU memory budget of %llu bytes is too small to sort",
						 (unsigned long long) budget);
	agg->capacity = agg->shape.chunk_pages;
	agg->store_pages = t.total_pages > 0 ? t.total_pages : 1;
	if (agg->store_pages > agg->shape.run_pages)
		agg->store_pages = agg->shape.run_pages;
	if ((st = device_alloc((size_t) agg->store_pages * PG_GPU_BLCKSZ, (void **) &agg->d_store,
						   err)) != PG_GPU_OK ||
		(st = device_alloc(sizeof(sort_stats), (void **) &agg->sa.stats, err)) != PG_GPU_OK ||
		(st = device_alloc(sizeof(int), (void **) &agg->d_flag, err)) != PG_GPU_OK)
		return st;
	PG_GPU_TRY(err, cudaMemset(agg->sa.stats, 0, sizeof(sort_stats)));
	PG_GPU_TRY(err, cudaStreamCreateWithFlags(&agg->out_stream, cudaStreamNonBlocking));
	for (auto &o : agg->out)
	{
		if ((st = device_alloc(agg->shape.batch_bytes, (void **) &o.d, err)) != PG_GPU_OK ||
			(st = pinned_alloc(agg->shape.batch_bytes, (void **) &o.h, err)) != PG_GPU_OK ||
			(st = pinned_alloc((agg->shape.batch_rows + 1) * sizeof(uint64_t),
							   (void **) &o.h_off, err)) != PG_GPU_OK ||
			(st = pinned_alloc(agg->shape.batch_rows * sizeof(uint64_t),
							   (void **) &o.h_ref, err)) != PG_GPU_OK)
			return st;
		PG_GPU_TRY(err, cudaEventCreateWithFlags(&o.ready, cudaEventDisableTiming));
	}

	/* a first guess of 32 rows a page; grown when a chunk could pass it */
	uint64_t	rows = (uint64_t) agg->store_pages * 32;

	return sort_arrays_alloc(agg, rows < agg->shape.run_rows ? rows : agg->shape.run_rows, 0, err);
}

/* Collect: the key arrays at a given size, keeping the first keys / bytes. */
static pg_gpu_status
collect_alloc(pg_gpu_agg *agg, uint64_t cap, uint64_t bytes, uint64_t keys, uint64_t used,
			  pg_gpu_error *err)
{
	collect_out &co = agg->co;
	bool		text = is_text_type(agg->task.keys[0].type);
	pg_gpu_status st;
	auto		move = [&](void **p, size_t size, size_t keep) -> pg_gpu_status {
		void	   *q = nullptr;
		pg_gpu_status s2;

		if ((s2 = device_alloc(size, &q, err)) != PG_GPU_OK)
			return s2;
		/* a device-to-device copy may still run when cudaMemcpy returns */
		if (keep > 0 &&
			(cudaMemcpy(q, *p, keep, cudaMemcpyDeviceToDevice) != cudaSuccess ||
			 cudaStreamSynchronize(0) != cudaSuccess))
		{
			device_free(q);
			return from_cuda(err, cudaGetLastError(), "cudaMemcpy keys");
		}
		device_free(*p);
		*p = q;
		return PG_GPU_OK;
	};

	keys = std::min(keys, co.cap);		/* never more than the old arrays hold */
	used = std::min(used, co.bytes);
	if (!text)
		st = move((void **) &co.vals, cap * sizeof(int64_t), keys * sizeof(int64_t));
	else if ((st = move((void **) &co.src, cap * sizeof(uint64_t), keys * sizeof(uint64_t))) == PG_GPU_OK &&
			 (st = move((void **) &co.len, (cap + 1) * sizeof(uint64_t), keys * sizeof(uint64_t))) == PG_GPU_OK)
		st = move((void **) &co.arena, bytes, used);
	if (st != PG_GPU_OK)
		return st;
	co.cap = cap;
	co.bytes = text ? bytes : 0;
	return PG_GPU_OK;
}

/*
 * Collect: room for the keys the planner expects and one chunk more (a chunk
 * adds at most its line pointers' keys, and bytes from its pages).
 */
static pg_gpu_status
collect_setup(pg_gpu_agg *agg, pg_gpu_error *err)
{
	uint64_t	hint = agg->task.collect_hint > 0 ? (uint64_t) agg->task.collect_hint : 0;
	uint64_t	pages = agg->task.total_pages > 0 ? (uint64_t) agg->task.total_pages : 0;
	uint64_t	cap = hint + hint / 4 + 1024;
	uint64_t	bytes = (hint + hint / 4) * 40 + (uint64_t) agg->capacity * PG_GPU_BLCKSZ;
	pg_gpu_status st;

	/* a table of known size holds no more keys, nor bytes, than its pages */
	if (pages > 0)
	{
		cap = std::min(cap, pages * PG_GPU_MAX_TUPLES_PER_PAGE + 1024);
		bytes = std::min(bytes, pages * PG_GPU_BLCKSZ);
	}

	if ((st = device_alloc(3 * sizeof(unsigned long long), (void **) &agg->co.count, err)) != PG_GPU_OK)
		return st;
	PG_GPU_TRY(err, cudaMemset(agg->co.count, 0, 3 * sizeof(unsigned long long)));
	return collect_alloc(agg, cap, bytes, 0, 0, err);
}

static pg_gpu_status
agg_setup(pg_gpu_agg *agg, pg_gpu_error *err)
{
	const pg_gpu_agg_task &t = agg->task;
	int			dev = 0,
				sms = 0;
	int			nin = t.ninputs ? t.ninputs : 1;
	pg_gpu_status st;

	PG_GPU_TRY(err, cudaGetDevice(&dev));
	PG_GPU_TRY(err, cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
	agg->max_blocks = sms * kBlocksPerSm;
	agg->capacity = t.chunk_pages;
	if (agg->grouped && (st = group_setup(agg, sms, err)) != PG_GPU_OK)
		return st;
	if (agg->sorting && (st = sort_setup(agg, err)) != PG_GPU_OK)
		return st;

	/*
	 * Under a device memory cap, shrink the chunk so that every slot's buffers fit
	 * (pool blocks are rounded up to powers of two; a sort's shape has counted its
	 * slots already).  Fixed costs first: partials and counters per slot.
	 */
	uint64_t	limit = device_memory_limit();

	if (limit && !agg->sorting)
	{
		auto		pow2 = [](size_t b) {
			size_t		c = 4096;

			while (c < b)
				c <<= 1;
			return c;
		};
		size_t		fixed = PG_GPU_AGG_SLOTS *
			(pow2(sizeof(pg_gpu_col_state) * agg->max_blocks * nin) +
			 pow2(sizeof(unsigned long long) + sizeof(int)));

		if (agg->grouped)
			fixed += pow2(agg->cap * sizeof(uint64_t) * agg->layout.words) + 4096;
		while (agg->capacity > 1)
		{
			size_t		per_slot = pow2(sizeof(pg_gpu_page_ref) * agg->capacity) +
				pow2(sizeof(uint32_t) * PG_GPU_VIS_WORDS * agg->capacity) +
				(t.gather ? pow2((size_t) PG_GPU_BLCKSZ * agg->capacity) : 0);

			if (fixed + PG_GPU_AGG_SLOTS * per_slot <= limit)
				break;
			agg->capacity = (agg->capacity + 1) / 2;
		}
	}
	if (agg->collecting && (st = collect_setup(agg, err)) != PG_GPU_OK)
		return st;
	/*
	 * The tables' cudaMemsets ran on the legacy stream, which the slots'
	 * non-blocking streams do not wait for.
	 */
	PG_GPU_TRY(err, cudaStreamSynchronize(0));
	PG_GPU_TRY(err, cudaEventCreate(&agg->first_start));
	PG_GPU_TRY(err, cudaEventCreate(&agg->last_done));

	size_t		refs_bytes = sizeof(pg_gpu_page_ref) * agg->capacity;
	size_t		vis_bytes = sizeof(uint32_t) * PG_GPU_VIS_WORDS * agg->capacity;
	size_t		part_bytes = sizeof(pg_gpu_col_state) * agg->max_blocks * nin;

	for (Slot &s : agg->slots)
	{
		PG_GPU_TRY(err, cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking));
		PG_GPU_TRY(err, cudaEventCreateWithFlags(&s.done, cudaEventDisableTiming));
		if ((st = pinned_alloc(refs_bytes, (void **) &s.h_refs, err)) != PG_GPU_OK ||
			(st = pinned_alloc(vis_bytes, (void **) &s.h_vis, err)) != PG_GPU_OK ||
			(st = device_alloc(refs_bytes, (void **) &s.d_refs, err)) != PG_GPU_OK ||
			(st = device_alloc(vis_bytes, (void **) &s.d_vis, err)) != PG_GPU_OK ||
			(agg->plain &&
			 (st = device_alloc(part_bytes, (void **) &s.d_partials, err)) != PG_GPU_OK) ||
			(st = device_alloc(sizeof(unsigned long long) + sizeof(int),
							   (void **) &s.d_rows, err)) != PG_GPU_OK)
			return st;
		s.d_err = (int *) (s.d_rows + 1);
		if (t.gather)
		{
			size_t		page_bytes = (size_t) PG_GPU_BLCKSZ * agg->capacity;

			if ((st = pinned_alloc(page_bytes, (void **) &s.h_staging, err)) != PG_GPU_OK ||
				(st = device_alloc(page_bytes, (void **) &s.d_pages, err)) != PG_GPU_OK)
				return st;
		}
		int			n = agg->plain ? agg->max_blocks * nin : 0;

		init_partials_kernel<<<(n + 255) / 256 + 1, 256, 0, s.stream>>>(s.d_partials, n,
																		s.d_rows, s.d_err);
		PG_GPU_TRY(err, cudaGetLastError());
	}
	return PG_GPU_OK;
}

static bool
valid_expr(const pg_gpu_agg_task *t, const pg_gpu_expr &e, bool required)
{
	if (e.len == 0)
		return !required;
	return e.start + e.len <= t->nprog && e.start + e.len <= PG_GPU_MAX_PROG;
}

static bool
valid_task(const pg_gpu_agg_task *t)
{
	if (t->ncols < 0 || t->ncols > PG_GPU_MAX_COLS ||
		t->ninputs < 0 || t->ninputs > PG_GPU_MAX_AGG_COLS ||
		t->nkeys < 0 || t->nkeys > PG_GPU_MAX_KEYS ||
		t->nprog < 0 || t->nprog > PG_GPU_MAX_PROG ||
		t->natts < 0 || t->natts > PG_GPU_MAX_DEFORM_ATTS || t->chunk_pages <= 0)
		return false;
	for (int c = 0; c < t->ncols; c++)
		if (t->cols[c].attidx >= t->natts ||
			(c > 0 && t->cols[c].attidx <= t->cols[c - 1].attidx))
			return false;
	for (int i = 0; i < t->nprog; i++)
	{
		const pg_gpu_instr &in = t->prog[i];

		if ((in.op == PG_GPU_OP_COL && in.a >= t->ncols) ||
			(in.op == PG_GPU_OP_CONST && in.a >= PG_GPU_MAX_CONSTS) ||
			(in.op == PG_GPU_OP_IN && in.a + in.b > PG_GPU_MAX_CONSTS))
			return false;
		/* a set the caller filled in */
		if ((in.op == PG_GPU_OP_IN_SET || in.op == PG_GPU_OP_SET_MULT ||
			 in.op == PG_GPU_OP_SET_ORD) &&
			(in.a >= t->nsets || t->nsets > PG_GPU_MAX_SETS ||
			 (t->sets[in.a].tab == 0 && t->sets[in.a].trie == 0) ||
			 (in.op == PG_GPU_OP_SET_MULT && t->sets[in.a].mult == 0) ||
			 is_text_type(in.type) != is_text_type(t->sets[in.a].type)))
			return false;
		/* text constants lie inside the pool */
		int			nc = in.op == PG_GPU_OP_CONST ? 1 : in.op == PG_GPU_OP_IN ? (int) in.b : 0;

		for (int j = 0; is_text_type(in.type) && j < nc; j++)
		{
			uint64_t	w = t->consts[in.a + j];

			if (!((t->const_null >> (in.a + j)) & 1) &&
				(w >> 32) + (uint32_t) w > PG_GPU_MAX_STRPOOL)
				return false;
		}
	}
	for (int i = 0; i < t->ninputs; i++)
		if (!valid_expr(t, t->inputs[i], true))
			return false;
	for (int k = 0; k < t->nkeys; k++)
		if (!valid_expr(t, t->keys[k], true))
			return false;
	/* weights: counting rows, or repeating a sort's rows by a set's multiplicity */
	if (t->weight.len > 0 && (t->ninputs > 0 || (t->nkeys > 0 && !t->sort) ||
							  (t->sort && sort_repeat_bound(*t) == 0)))
		return false;
	/* collecting: one integer or text key */
	if (t->collect &&
		(t->nkeys != 1 || t->ninputs > 0 || t->sort ||
		 !(is_text_type(t->keys[0].type) || t->keys[0].type == PG_GPU_INT2 ||
		   t->keys[0].type == PG_GPU_INT4 || t->keys[0].type == PG_GPU_INT8 ||
		   t->keys[0].type == PG_GPU_DATE || t->keys[0].type == PG_GPU_TIMESTAMP)))
		return false;
	return valid_expr(t, t->filter, false) && valid_expr(t, t->weight, false);
}

extern "C" pg_gpu_agg *
pg_gpu_agg_begin(const pg_gpu_agg_task *task, pg_gpu_error *err)
{
	if (!task->emulate && pg_gpu_engine_init(err) != PG_GPU_OK)
		return nullptr;
	if (!valid_task(task))
	{
		set_error(err, PG_GPU_INVALID_TASK, "invalid aggregation task");
		return nullptr;
	}

	pg_gpu_agg *agg = new (std::nothrow) pg_gpu_agg();

	if (!agg)
	{
		set_error(err, PG_GPU_OUT_OF_MEMORY, "out of host memory");
		return nullptr;
	}
	agg->task = *task;
	agg->sorting = task->sort != 0;
	agg->sort_rep = agg->sorting && task->weight.len > 0 ? sort_repeat_bound(*task) : 1;
	agg->collecting = task->collect != 0;
	agg->grouped = task->nkeys > 0 && !agg->sorting && !agg->collecting;
	agg->plain = !agg->grouped && !agg->sorting && !agg->collecting;
	make_group_layout(agg->task, agg->layout);
	if (task->emulate)
	{
		agg->host = host_agg_begin(task, err);
		if (!agg->host)
		{
			delete agg;
			return nullptr;
		}
		return agg;
	}
	if (agg_setup(agg, err) != PG_GPU_OK)
	{
		pg_gpu_agg_end(agg);
		return nullptr;
	}
	return agg;
}

extern "C" int
pg_gpu_agg_slot_idle(pg_gpu_agg *agg, int slot)
{
	Slot	   &s = agg->slots[slot];

	if (agg->host || !s.busy)
		return 1;
	cudaError_t rc = cudaEventQuery(s.done);

	if (rc == cudaErrorNotReady)
		return 0;
	s.busy = false;				/* done, or failed: either way reusable; errors
								 * surface at finish */
	return 1;
}

extern "C" pg_gpu_status
pg_gpu_agg_slot_get(pg_gpu_agg *agg, int slot, pg_gpu_agg_slot *out, pg_gpu_error *err)
{
	if (slot < 0 || slot >= PG_GPU_AGG_SLOTS || !pg_gpu_agg_slot_idle(agg, slot))
		return set_error(err, PG_GPU_INVALID_TASK, "chunk slot %d is not idle", slot);
	if (agg->host)
		return host_agg_slot_get(agg->host, slot, out);
	Slot	   &s = agg->slots[slot];

	out->slot = slot;
	out->capacity = agg->capacity;
	out->refs = s.h_refs;
	out->vis = s.h_vis;
	out->staging = s.h_staging;
	return PG_GPU_OK;
}

/* Wait for every queued chunk. */
static pg_gpu_status
sync_slots(pg_gpu_agg *agg, pg_gpu_error *err)
{
	for (Slot &s : agg->slots)
		PG_GPU_TRY(err, cudaStreamSynchronize(s.stream));
	return PG_GPU_OK;
}

/*
 * Text keys: make sure the arena block can take the chunk's new groups.  A row's
 * text key reaches the global table at most once (directly, or through a
 * shared-memory entry it created), its bytes lie in one of the chunk's pages, and a
 * copy adds at most 11 bytes of header and padding.  When the bound
 * would pass the block, the real use is read back and, if needed, a new block is
 * started; entries keep pointing into the old ones.
 */
static pg_gpu_status
arena_reserve(pg_gpu_agg *agg, uint64_t tuples, int npages, pg_gpu_error *err)
{
	uint64_t	need = (uint64_t) agg->ntext *
		((uint64_t) npages * PG_GPU_BLCKSZ + tuples * arena_bytes(7));
	uint64_t	used = 0;
	pg_gpu_status st;

	if (agg->ntext == 0)
		return PG_GPU_OK;
	if (agg->nblocks > 0 && agg->arena_bound + need <= agg->arena_cap)
	{
		agg->arena_bound += need;
		return PG_GPU_OK;
	}
	if (agg->nblocks > 0)
	{
		if ((st = sync_slots(agg, err)) != PG_GPU_OK)
			return st;
		PG_GPU_TRY(err, cudaMemcpy(&used, agg->d_inserted + 1, sizeof(used),
								   cudaMemcpyDeviceToHost));
		if (used + need <= agg->arena_cap)
		{
			agg->arena_bound = used + need;
			return PG_GPU_OK;
		}
		agg->blocks[agg->nblocks - 1].used = used;
	}
	if (agg->nblocks == (int) (sizeof(agg->blocks) / sizeof(agg->blocks[0])))
		return set_error(err, PG_GPU_OUT_OF_MEMORY, "too many string arena blocks");

	uint64_t	cap = need * 4 > (64ULL << 20) ? need * 4 : (64ULL << 20);
	ArenaBlock &b = agg->blocks[agg->nblocks];

	if ((st = device_alloc(cap, (void **) &b.d, err)) != PG_GPU_OK)
		return st;
	agg->nblocks++;
	PG_GPU_TRY(err, cudaMemset(agg->d_inserted + 1, 0, sizeof(uint64_t)));
	agg->arena_cap = cap;
	agg->arena_bound = need;
	return PG_GPU_OK;
}

/*
 * Before queueing a chunk of up to `tuples` rows: make sure the global table can
 * take that many new groups at a load of at most one half.  The bound counts every
 * queued row as a possible new group; only when it would pass the limit do we wait
 * for the GPU, read the real group count, and enlarge the table if needed.
 */
static pg_gpu_status
group_reserve(pg_gpu_agg *agg, uint64_t tuples, pg_gpu_error *err)
{
	pg_gpu_status st;

	if (agg->bound + tuples <= agg->cap / 2)
	{
		agg->bound += tuples;
		return PG_GPU_OK;
	}
	if ((st = sync_slots(agg, err)) != PG_GPU_OK)
		return st;
	uint64_t	groups = 0;

	PG_GPU_TRY(err, cudaMemcpy(&groups, agg->d_inserted, sizeof(groups), cudaMemcpyDeviceToHost));
	agg->bound = groups + tuples;
	if (agg->bound <= agg->cap / 2)
		return PG_GPU_OK;

	size_t		entry = sizeof(uint64_t) * agg->layout.words;
	uint64_t	cap = pow2_at_least(4 * agg->bound);
	uint64_t   *tab = nullptr;

	if ((st = device_alloc(cap * entry, (void **) &tab, err)) != PG_GPU_OK)
		return st;
	PG_GPU_TRY(err, cudaMemset(tab, 0, cap * entry));
	group_rehash_kernel<<<agg->max_blocks, 256>>>(agg->d_tab, agg->cap, tab, cap - 1,
												  agg->layout.words, agg->task.nkeys);
	PG_GPU_TRY(err, cudaGetLastError());
	PG_GPU_TRY(err, cudaDeviceSynchronize());
	device_free(agg->d_tab);
	agg->d_tab = tab;
	agg->cap = cap;
	agg->grows++;
	return PG_GPU_OK;
}

static pg_gpu_status sort_run_close(pg_gpu_agg *agg, bool last, pg_gpu_error *err);

/*
 * Before queueing a sort chunk of npages pages and up to `tuples` rows: when the
 * run's page store or row arrays cannot take it, close the run (sort it, copy it
 * to the host) and start another; grow the row arrays as the run needs.
 */
static pg_gpu_status
sort_reserve(pg_gpu_agg *agg, int npages, uint64_t tuples, pg_gpu_error *err)
{
	pg_gpu_status st;

	if (npages > agg->store_pages)
		return set_error(err, PG_GPU_INVALID_TASK, "a sort chunk larger than a sort run");
	/* an inner join's rows, each repeated up to sort_rep times */
	tuples *= agg->sort_rep;
	if (tuples > agg->shape.run_rows || tuples > 0x7FFFFFFFULL)	/* the kernel's int scan */
		return set_error(err, agg->sort_rep > 1 ? PG_GPU_OUT_OF_MEMORY : PG_GPU_INVALID_TASK,
						 agg->sort_rep > 1 ? "join keys repeat too often for one sort run"
						 : "a sort chunk larger than a sort run");
	if (agg->pages - agg->run_page0 + npages > agg->store_pages &&
		(st = sort_run_close(agg, false, err)) != PG_GPU_OK)
		return st;
	if (agg->sort_bound + tuples > agg->sa.cap)
	{
		sort_stats	ss;

		if ((st = sync_slots(agg, err)) != PG_GPU_OK)
			return st;
		PG_GPU_TRY(err, cudaMemcpy(&ss, agg->sa.stats, sizeof(ss), cudaMemcpyDeviceToHost));
		agg->sort_bound = ss.count;
		if (ss.count + tuples > agg->shape.run_rows)
		{
			if ((st = sort_run_close(agg, false, err)) != PG_GPU_OK)
				return st;
			ss.count = 0;
		}
		if (ss.count + tuples > agg->sa.cap)
		{
			uint64_t	n = 2 * (ss.count + tuples);

			if ((st = sort_arrays_alloc(agg, n < agg->shape.run_rows ? n : agg->shape.run_rows,
										ss.count, err)) != PG_GPU_OK)
				return st;
		}
	}
	agg->sort_bound += tuples;
	return PG_GPU_OK;
}

/*
 * Before queueing a collect chunk of npages pages and up to `tuples` rows: make
 * sure the key arrays can take them all; only when the bound would pass them do
 * we wait for the GPU, read the real use, and enlarge them if needed.
 */
static pg_gpu_status
collect_reserve(pg_gpu_agg *agg, uint64_t tuples, int npages, pg_gpu_error *err)
{
	collect_out &co = agg->co;
	uint64_t	bytes = co.bytes > 0 ? (uint64_t) npages * PG_GPU_BLCKSZ : 0;
	unsigned long long used[2];
	pg_gpu_status st;

	/* key sets index keys with 32 bits, and text offsets are scanned as int */
	if (agg->co_bound + tuples >= 0x7FFFFFFFULL)
		return set_error(err, PG_GPU_OUT_OF_MEMORY, "too many keys for one key set");
	if (agg->co_bound + tuples <= co.cap && agg->co_bbound + bytes <= co.bytes)
	{
		agg->co_bound += tuples;
		agg->co_bbound += bytes;
		return PG_GPU_OK;
	}
	if ((st = sync_slots(agg, err)) != PG_GPU_OK)
		return st;
	PG_GPU_TRY(err, cudaMemcpy(used, co.count, sizeof(used), cudaMemcpyDeviceToHost));
	agg->co_bound = used[0] + tuples;
	agg->co_bbound = used[1] + bytes;
	if (agg->co_bound <= co.cap && agg->co_bbound <= co.bytes)
		return PG_GPU_OK;
	return collect_alloc(agg, std::max(co.cap, 2 * agg->co_bound),
						 std::max(co.bytes, 2 * agg->co_bbound), used[0], used[1], err);
}

extern "C" pg_gpu_status
pg_gpu_agg_submit(pg_gpu_agg *agg, int slot, int npages, int nvis, pg_gpu_error *err)
{
	Slot	   &s = agg->slots[slot];

	if (npages <= 0)
		return PG_GPU_OK;
	if (agg->host)
		return host_agg_submit(agg->host, slot, npages, nvis, err);
	if (npages > agg->capacity || nvis > npages || s.busy)
		return set_error(err, PG_GPU_INVALID_TASK, "bad chunk submission");

	uint64_t	tuples = 0;		/* line pointers: a bound of the chunk's rows */
	pg_gpu_status st;

	for (int p = 0; !agg->plain && p < npages; p++)
		tuples += s.h_refs[p].nlp;
	if (agg->grouped &&
		((st = group_reserve(agg, tuples, err)) != PG_GPU_OK ||
		 (st = arena_reserve(agg, tuples, npages, err)) != PG_GPU_OK))
		return st;
	if (agg->sorting && (st = sort_reserve(agg, npages, tuples, err)) != PG_GPU_OK)
		return st;
	if (agg->collecting && (st = collect_reserve(agg, tuples, npages, err)) != PG_GPU_OK)
		return st;
	if (!agg->started)
	{
		PG_GPU_TRY(err, cudaEventRecord(agg->first_start, s.stream));
		agg->started = true;
	}
	size_t		refs_bytes = sizeof(pg_gpu_page_ref) * npages;
	size_t		vis_bytes = sizeof(uint32_t) * PG_GPU_VIS_WORDS * nvis;

	PG_GPU_TRY(err, cudaMemcpyAsync(s.d_refs, s.h_refs, refs_bytes,
									cudaMemcpyHostToDevice, s.stream));
	if (nvis > 0)
		PG_GPU_TRY(err, cudaMemcpyAsync(s.d_vis, s.h_vis, vis_bytes,
										cudaMemcpyHostToDevice, s.stream));
	if (agg->task.gather)
		PG_GPU_TRY(err, cudaMemcpyAsync(s.d_pages, s.h_staging,
										(size_t) PG_GPU_BLCKSZ * npages,
										cudaMemcpyHostToDevice, s.stream));

	const char *staging = agg->task.gather ? s.d_pages : nullptr;

	if (agg->task.cache_fill && agg->pages + npages <= agg->task.cache_pages)
	{
		int			blocks = npages < agg->max_blocks ? npages : agg->max_blocks;

		cache_fill_kernel<<<blocks, kThreads, 0, s.stream>>>(
			s.d_refs, npages, staging, (char *) (uintptr_t) agg->task.cache_fill, agg->pages);
		staging = nullptr;
	}

	if (agg->sorting)
	{
		int			blocks = npages < agg->max_blocks ? npages : agg->max_blocks;

		sort_pages_kernel<<<blocks, kThreads, 0, s.stream>>>(s.d_refs, npages, s.d_vis, staging,
															 agg->task, agg->pages,
															 agg->pages - agg->run_page0,
															 agg->d_store, agg->sa, s.d_rows,
															 s.d_err);
	}
	else if (agg->collecting)
	{
		int			blocks = npages < agg->max_blocks ? npages : agg->max_blocks;

		collect_pages_kernel<<<blocks, kThreads, 0, s.stream>>>(s.d_refs, npages, s.d_vis,
																staging, agg->task, agg->co,
																s.d_rows, s.d_err);
	}
	else if (agg->grouped)
	{
		int			steps = (npages + kGroupPages - 1) / kGroupPages;
		int			blocks = steps < agg->group_blocks ? steps : agg->group_blocks;
		str_arena	ar = {nullptr, agg->d_inserted + 1, 0};

		if (agg->nblocks > 0)
		{
			ar.base = agg->blocks[agg->nblocks - 1].d;
			ar.cap = agg->arena_cap;
		}

		group_pages_kernel<<<blocks, kGroupThreads, agg->dyn_smem, s.stream>>>(
			s.d_refs, npages, s.d_vis, staging, agg->task, agg->d_tab, agg->cap - 1,
			agg->d_inserted, ar, agg->smem_cap, agg->smem_str, s.d_rows, s.d_err);
	}
	else
	{
		int			blocks = npages < agg->max_blocks ? npages : agg->max_blocks;

		agg_pages_kernel<<<blocks, kThreads, 0, s.stream>>>(s.d_refs, npages, s.d_vis,
															staging, agg->task, s.d_partials,
															s.d_rows, s.d_err);
	}
	PG_GPU_TRY(err, cudaGetLastError());
	PG_GPU_TRY(err, cudaEventRecord(s.done, s.stream));
	PG_GPU_TRY(err, cudaEventRecord(agg->last_done, s.stream));
	s.busy = true;
	agg->bytes += refs_bytes + vis_bytes +
		(agg->task.pages_resident ? 0 : (size_t) PG_GPU_BLCKSZ * npages);
	agg->chunks++;
	agg->pages += npages;
	return PG_GPU_OK;
}

extern "C" int
pg_gpu_agg_all_idle(pg_gpu_agg *agg)
{
	for (int i = 0; i < PG_GPU_AGG_SLOTS; i++)
		if (!pg_gpu_agg_slot_idle(agg, i))
			return 0;
	return 1;
}

/* Grouped: copy the table's groups, densely, to host memory. */
static pg_gpu_status
group_collect(pg_gpu_agg *agg, pg_gpu_agg_result *res, pg_gpu_error *err)
{
	size_t		entry = sizeof(uint64_t) * agg->layout.words;
	uint64_t	groups = 0;
	uint64_t   *d_out = nullptr;
	unsigned long long *d_pos = nullptr;
	pg_gpu_status st;

	PG_GPU_TRY(err, cudaMemcpy(&groups, agg->d_inserted, sizeof(groups), cudaMemcpyDeviceToHost));
	agg->ngroups = (int64_t) groups;
	res->ngroups = agg->ngroups;
	res->grows = agg->grows;
	if (groups == 0)
		return PG_GPU_OK;
	if ((st = device_alloc(groups * entry, (void **) &d_out, err)) != PG_GPU_OK)
		return st;
	if ((st = device_alloc(sizeof(unsigned long long), (void **) &d_pos, err)) != PG_GPU_OK ||
		(st = pinned_alloc(groups * entry, (void **) &agg->h_groups, err)) != PG_GPU_OK)
	{
		device_free(d_out);
		device_free(d_pos);
		return st;
	}
	cudaMemset(d_pos, 0, sizeof(unsigned long long));
	group_compact_kernel<<<agg->max_blocks, 256>>>(agg->d_tab, agg->cap, agg->layout.words,
												   d_out, d_pos);
	cudaError_t rc = cudaMemcpy(agg->h_groups, d_out, groups * entry, cudaMemcpyDeviceToHost);

	device_free(d_out);
	device_free(d_pos);
	if (rc != cudaSuccess)
		return from_cuda(err, rc, "cudaMemcpy groups");
	res->group_flags = groups_flags(agg->h_groups, (int64_t) groups, agg->task, agg->layout);

	/* text keys: the arena's bytes, for pg_gpu_agg_group to hand out */
	if (agg->nblocks > 0)
		PG_GPU_TRY(err, cudaMemcpy(&agg->blocks[agg->nblocks - 1].used, agg->d_inserted + 1,
								   sizeof(uint64_t), cudaMemcpyDeviceToHost));
	for (int i = 0; i < agg->nblocks; i++)
	{
		ArenaBlock &b = agg->blocks[i];

		if (b.used == 0)
			continue;
		if ((st = pinned_alloc(b.used, (void **) &b.h, err)) != PG_GPU_OK)
			return st;
		PG_GPU_TRY(err, cudaMemcpy(b.h, b.d, b.used, cudaMemcpyDeviceToHost));
	}
	return PG_GPU_OK;
}

/*
 * Stable radix passes, least significant first, over rows [0, n) whose word w is
 * words[w][row]: *perm gets their order (n entries, freed by the caller).
 */
static pg_gpu_status
sort_rows(int blocks, uint64_t n, uint64_t *const *words, const sort_pass *ps, int np,
		  uint32_t **perm, pg_gpu_error *err)
{
	uint32_t   *idx[2] = {nullptr, nullptr};
	uint64_t   *kw[2] = {nullptr, nullptr};
	void	   *temp = nullptr;
	size_t		temp_bytes = 0;
	int			cur = 0;
	pg_gpu_status st = PG_GPU_OK;

	*perm = nullptr;
	if (n > 0x7FFFFFFFULL)
		return set_error(err, PG_GPU_OUT_OF_MEMORY, "too many rows for one GPU sort");
	for (int i = 0; i < 2 && st == PG_GPU_OK; i++)
		if ((st = device_alloc(n * sizeof(uint32_t), (void **) &idx[i], err)) == PG_GPU_OK &&
			np > 0)
			st = device_alloc(n * sizeof(uint64_t), (void **) &kw[i], err);
	if (st == PG_GPU_OK && np > 0)
		st = cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, kw[0], kw[1], idx[0], idx[1],
											 (int) n) == cudaSuccess ? PG_GPU_OK
			: set_error(err, PG_GPU_CUDA_ERROR, "cub sizing");
	if (st == PG_GPU_OK && np > 0)
		st = device_alloc(temp_bytes, &temp, err);
	if (st == PG_GPU_OK)
	{
		iota_kernel<<<blocks, 256>>>(idx[0], n);
		for (int p = 0; p < np; p++)
		{
			const uint64_t *src = words[ps[p].w];

			/* the first pass's permutation is the identity: no gather */
			if (p > 0)
				gather_words_kernel<<<blocks, 256>>>(src, idx[cur], kw[0], n);
			if (cub::DeviceRadixSort::SortPairs(temp, temp_bytes, p == 0 ? src : kw[0], kw[1],
												idx[cur], idx[1 - cur], (int) n, ps[p].begin,
												ps[p].end) != cudaSuccess)
			{
				st = from_cuda(err, cudaGetLastError(), "cub::DeviceRadixSort");
				break;
			}
			cur = 1 - cur;
		}
	}
	device_free(kw[0]);
	device_free(kw[1]);
	device_free(temp);
	device_free(idx[1 - cur]);
	if (st != PG_GPU_OK)
		device_free(idx[cur]);
	else
		*perm = idx[cur];
	return st;
}

/*
 * LIMIT m over n rows, m small: select on the GPU instead of sorting everything.
 * A radix select over the most significant pass finds the m-th smallest value t
 * of it (one histogram pass over the rows per 8 bits); the rows at or below t, in
 * their original order, are the candidates (ties at t included); only they are
 * sorted, with every pass, so the first m rows and their tie order are exactly a
 * full sort's.  *perm gets the k >= m candidates in order, *k their count.
 * PG_GPU_OK with *perm null: too many ties at t, sort everything instead.
 */
static pg_gpu_status
select_top_rows(pg_gpu_agg *agg, uint64_t n, uint64_t m, const sort_pass *ps, int np,
				uint32_t **perm, uint64_t *k, pg_gpu_error *err)
{
	const sort_pass &top = ps[np - 1];
	const uint64_t *tw = agg->sa.w[top.w];
	int			bits = top.end - top.begin;
	int			blocks = agg->max_blocks;
	unsigned long long *d_hist = nullptr;
	unsigned long long h_hist[256];
	uint64_t	prefix = 0,
				mask = 0,
				need = m;
	uint32_t   *cand = nullptr,
			   *rows = nullptr;
	char	   *flag = nullptr;
	int		   *d_num = nullptr;
	int			num = 0;
	void	   *temp = nullptr;
	size_t		temp_bytes = 0;
	uint64_t   *cw[kMaxSortWords] = {};
	pg_gpu_status st;

	*perm = nullptr;
	*k = 0;
	if ((st = device_alloc(256 * sizeof(unsigned long long), (void **) &d_hist, err)) != PG_GPU_OK)
		return st;
	for (int shift = ((bits - 1) / 8) * 8; shift >= 0 && st == PG_GPU_OK; shift -= 8)
	{
		uint64_t	cum = 0;
		int			d;

		cudaMemset(d_hist, 0, 256 * sizeof(unsigned long long));
		select_hist_kernel<<<blocks, 256>>>(tw, n, top, mask, prefix, shift, d_hist);
		if ((st = cuda_status(err, cudaMemcpy(h_hist, d_hist, sizeof(h_hist),
											  cudaMemcpyDeviceToHost), "select_hist_kernel")) != PG_GPU_OK)
			break;
		for (d = 0; d < 255 && cum + h_hist[d] < need; d++)
			cum += h_hist[d];
		need -= cum;
		prefix |= (uint64_t) d << shift;
		mask |= (uint64_t) 255 << shift;
	}
	device_free(d_hist);
	if (st != PG_GPU_OK)
		return st;

	/* the candidates, in row order */
	if ((st = device_alloc(n, (void **) &flag, err)) == PG_GPU_OK &&
		(st = device_alloc(n * sizeof(uint32_t), (void **) &rows, err)) == PG_GPU_OK &&
		(st = device_alloc(n * sizeof(uint32_t), (void **) &cand, err)) == PG_GPU_OK &&
		(st = device_alloc(sizeof(int), (void **) &d_num, err)) == PG_GPU_OK)
	{
		select_flag_kernel<<<blocks, 256>>>(tw, n, top, prefix, flag);
		iota_kernel<<<blocks, 256>>>(rows, n);
		cub::DeviceSelect::Flagged(nullptr, temp_bytes, rows, flag, cand, d_num, (int) n);
		if ((st = device_alloc(temp_bytes, &temp, err)) == PG_GPU_OK)
		{
			cub::DeviceSelect::Flagged(temp, temp_bytes, rows, flag, cand, d_num, (int) n);
			st = cuda_status(err, cudaMemcpy(&num, d_num, sizeof(int), cudaMemcpyDeviceToHost),
							 "cub::DeviceSelect");
		}
	}
	device_free(temp);
	device_free(flag);
	device_free(rows);
	device_free(d_num);
	if (st == PG_GPU_OK && (uint64_t) num > n / 2)
	{
		device_free(cand);		/* ties: selecting saves nothing */
		return PG_GPU_OK;
	}
	/* their words, compacted, sorted with every pass */
	for (int p = 0; p < np && st == PG_GPU_OK; p++)
	{
		int			w = ps[p].w;

		if (cw[w] == nullptr &&
			(st = device_alloc((size_t) num * sizeof(uint64_t), (void **) &cw[w], err)) == PG_GPU_OK)
			gather_words_kernel<<<blocks, 256>>>(agg->sa.w[w], cand, cw[w], (uint64_t) num);
	}
	if (st == PG_GPU_OK && (st = sort_rows(blocks, (uint64_t) num, cw, ps, np, perm, err)) == PG_GPU_OK)
	{
		map_perm_kernel<<<blocks, 256>>>(cand, *perm, (uint64_t) num);
		*k = (uint64_t) num;
	}
	for (int w = 0; w < kMaxSortWords; w++)
		device_free(cw[w]);
	device_free(cand);
	return st;
}

/*
 * PG_GPU_UNORDERED if two neighbours of the n rows in perm cannot be ordered by
 * their words (sort_unresolved); d_flag: one device int of scratch.
 */
static pg_gpu_status
check_ordered(const sort_arrays &sa, const uint32_t *perm, uint64_t n, const pg_gpu_agg_task &t,
			  int *d_flag, int blocks, pg_gpu_error *err)
{
	int			found = 0;
	pg_gpu_status st;

	cudaMemset(d_flag, 0, sizeof(int));
	unresolved_kernel<<<blocks, 256>>>(sa, perm, n, t, d_flag);
	st = cuda_status(err, cudaMemcpy(&found, d_flag, sizeof(int), cudaMemcpyDeviceToHost),
					 "unresolved_kernel");
	return st == PG_GPU_OK && found ? set_error(err, PG_GPU_UNORDERED, "%s", kUnorderedMessage)
		: st;
}

/* Offsets of n tuples from their sizes (n + 1 entries, the last 0 on entry). */
static pg_gpu_status
scan_sizes(uint64_t *size, uint64_t *off, uint64_t n, pg_gpu_error *err)
{
	size_t		bytes = 0;
	void	   *temp = nullptr;
	pg_gpu_status st;

	cub::DeviceScan::ExclusiveSum(nullptr, bytes, size, off, (int) (n + 1));
	if ((st = device_alloc(bytes, &temp, err)) != PG_GPU_OK)
		return st;
	if (cub::DeviceScan::ExclusiveSum(temp, bytes, size, off, (int) (n + 1)) != cudaSuccess)
		st = from_cuda(err, cudaGetLastError(), "cub::DeviceScan");
	device_free(temp);
	return st;
}

extern "C" pg_gpu_keyset *
pg_gpu_agg_keyset(pg_gpu_agg *agg, int type, uint64_t *keys, int *has_null, pg_gpu_error *err)
{
	collect_out &co = agg->co;
	uint64_t	n = agg->co_keys;
	uint64_t	distinct = 0;
	engine_keyset *dev = nullptr;
	uint8_t    *data = nullptr;
	uint64_t   *off = nullptr;
	pg_gpu_status st;
	pg_gpu_keyset *ks;

	if (agg->host)
		return host_agg_keyset(agg->host, type, keys, has_null, err);
	if (!agg->collecting || is_text_type(type) != is_text_type(agg->task.keys[0].type) ||
		(co.vals == nullptr && co.len == nullptr))
	{
		set_error(err, PG_GPU_INVALID_TASK, "not a collect task of this key type");
		return nullptr;
	}
	*keys = n;
	*has_null = agg->co_null;
	if (!is_text_type(type))
	{
		int64_t    *vals = co.vals;

		co.vals = nullptr;
		st = engine_keyset_adopt(PG_GPU_INT8, n, vals, nullptr, nullptr, &dev, &distinct, err);
	}
	else
	{
		/* the keys end to end: offsets from the lengths, then the bytes */
		off = co.len;
		co.len = nullptr;
		if (cudaMemset(off + n, 0, sizeof(uint64_t)) != cudaSuccess)
			st = from_cuda(err, cudaGetLastError(), "cudaMemset");
		else
			st = scan_sizes(off, off, n, err);
		if (st == PG_GPU_OK &&
			(st = device_alloc(std::max<uint64_t>(agg->co_used, 1), (void **) &data, err)) == PG_GPU_OK &&
			n > 0)
		{
			uint64_t	b = (n + 255) / 256;

			collect_pack_kernel<<<(int) std::min<uint64_t>(b, 65535), 256>>>(co.arena, co.src, off,
																		   n, data);
			if ((st = cuda_status(err, cudaGetLastError(), "collect_pack_kernel")) == PG_GPU_OK)
				st = cuda_status(err, cudaStreamSynchronize(0), "collect_pack_kernel");
		}
		device_free(co.arena);
		device_free(co.src);
		co.arena = nullptr;
		co.src = nullptr;
		if (st != PG_GPU_OK)
		{
			device_free(off);
			device_free(data);
			return nullptr;
		}
		st = engine_keyset_adopt(type, n, nullptr, data, off, &dev, &distinct, err);
	}
	if (st != PG_GPU_OK)
		return nullptr;
	if ((ks = keyset_from_engine(type, n, distinct, dev)) == nullptr)
	{
		engine_keyset_free(dev);
		set_error(err, PG_GPU_OUT_OF_MEMORY, "out of host memory");
	}
	return ks;
}

/*
 * Page-lock a run's host buffer for the GPU: its copies down after the run's sort
 * and up again in the merge then go at pinned speed instead of through the
 * driver's pageable staging (about 7 GB/s on the H100 host).  Registering costs
 * about 40 ms per GB, once.  At most a quarter of the machine's memory is locked
 * per sort; beyond that, or where registering fails, buffers are copied pageable.
 * The caller has reserved room in run_registered.
 */
static void
register_run_buffer(pg_gpu_agg *agg, void *p, size_t bytes)
{
	static const uint64_t cap = (uint64_t) sysconf(_SC_PHYS_PAGES) * sysconf(_SC_PAGESIZE) / 4;

	if (bytes < (1u << 20) || agg->run_registered_bytes + bytes > cap)
		return;
	if (cudaHostRegister(p, bytes, cudaHostRegisterDefault) == cudaSuccess)
	{
		agg->run_registered.push_back({p, bytes});
		agg->run_registered_bytes += bytes;
	}
	else
		(void) cudaGetLastError();
}

/* Undo the registrations after the first nreg (their buffers are about to go). */
static void
unregister_since(pg_gpu_agg *agg, size_t nreg)
{
	while (agg->run_registered.size() > nreg)
	{
		cudaHostUnregister(agg->run_registered.back().first);
		agg->run_registered_bytes -= agg->run_registered.back().second;
		agg->run_registered.pop_back();
	}
	(void) cudaGetLastError();
}

/*
 * Copy a sorted run of m rows to the host for the merge: offsets and references
 * (sref, soff), each sort word in order (gathered through perm into scratch), and
 * the tuples, gathered in pieces of one output batch.
 */
static pg_gpu_status
run_to_host(pg_gpu_agg *agg, uint64_t m, const uint32_t *perm, const uint64_t *sref,
			const uint64_t *soff, uint64_t *scratch, pg_gpu_error *err)
{
	size_t		nreg = agg->run_registered.size();
	int			blocks = agg->max_blocks;
	cudaError_t rc = cudaSuccess;
	sort_run	R;				/* outlives the catch: unregister before it goes */

	try
	{
		R.n = m;
		R.off.resize(m + 1);
		R.ref.resize(m);
		R.words.resize((size_t) agg->nwords * m);
		agg->merge.runs.reserve(agg->merge.runs.size() + 1);
		agg->run_registered.reserve(nreg + 4);
		register_run_buffer(agg, R.off.data(), (m + 1) * sizeof(uint64_t));
		register_run_buffer(agg, R.ref.data(), m * sizeof(uint64_t));
		register_run_buffer(agg, R.words.data(), R.words.size() * sizeof(uint64_t));
		rc = cudaMemcpy(R.off.data(), soff, (m + 1) * sizeof(uint64_t), cudaMemcpyDeviceToHost);
		if (rc == cudaSuccess)
			rc = cudaMemcpy(R.ref.data(), sref, m * sizeof(uint64_t), cudaMemcpyDeviceToHost);
		for (int w = 0; w < agg->nwords && rc == cudaSuccess; w++)
		{
			gather_words_kernel<<<blocks, 256>>>(agg->sa.w[w], perm, scratch, m);
			rc = cudaMemcpy(R.words.data() + (size_t) w * m, scratch, m * sizeof(uint64_t),
							cudaMemcpyDeviceToHost);
		}
		if (rc == cudaSuccess)
		{
			R.tuples.resize(R.off[m]);
			register_run_buffer(agg, R.tuples.data(), R.tuples.size());
		}
		for (uint64_t r0 = 0; r0 < m && rc == cudaSuccess;)
		{
			uint64_t	r1 = std::upper_bound(R.off.begin() + r0 + 1, R.off.end(),
											  R.off[r0] + agg->shape.batch_bytes) - R.off.begin() - 1;

			gather_tuples_kernel<true><<<blocks, 256>>>((const char *) agg->d_store, nullptr,
														 sref + r0, soff + r0, r1 - r0,
														 agg->run_page0, agg->out[0].d);
			rc = cudaMemcpy(R.tuples.data() + R.off[r0], agg->out[0].d, R.off[r1] - R.off[r0],
							cudaMemcpyDeviceToHost);
			r0 = r1;
		}
	}
	catch (const std::bad_alloc &)
	{
		unregister_since(agg, nreg);
		return set_error(err, PG_GPU_OUT_OF_MEMORY, "out of host memory for a sorted run");
	}
	if (rc != cudaSuccess)
	{
		unregister_since(agg, nreg);
		return from_cuda(err, rc, "copying a sorted run");
	}
	agg->merge.runs.push_back(std::move(R));	/* room reserved: no throw */
	return PG_GPU_OK;
}

/*
 * The current run is complete: sort it.  The last run of a sort that had no other
 * stays on the device and is handed out from there; any other run is copied to
 * the host (tuples in order, offsets, references, sort words) for the merge, and
 * the next run starts empty.
 */
static pg_gpu_status
sort_run_close(pg_gpu_agg *agg, bool last, pg_gpu_error *err)
{
	const pg_gpu_agg_task &t = agg->task;
	sort_stats	ss;
	sort_pass	ps[kMaxSortPasses];
	uint32_t   *perm = nullptr;
	uint64_t   *sref = nullptr,
			   *soff = nullptr,
			   *size = nullptr;
	int			blocks = agg->max_blocks;
	bool		keep = last && agg->merge.runs.empty();
	int			np;
	pg_gpu_status st;

	if ((st = sync_slots(agg, err)) != PG_GPU_OK)
		return st;
	PG_GPU_TRY(err, cudaMemcpy(&ss, agg->sa.stats, sizeof(ss), cudaMemcpyDeviceToHost));
	sort_stats_add(agg->seen, ss);

	uint64_t	n = ss.count;
	uint64_t	m = (t.sort_limit > 0 && (uint64_t) t.sort_limit < n) ? (uint64_t) t.sort_limit : n;

	uint64_t	nperm = n;		/* rows in perm: all, or the top-N candidates */

	if (keep)
		agg->nsorted = m;
	if (n == 0)
		goto reset;
	np = sort_passes(t, ss.nulls, ss.longs, ss.maxlen, ps);
	/* a small LIMIT: only the rows that can be among the first m are sorted */
	if (m <= n / kTopNFraction && np > 0 &&
		(st = select_top_rows(agg, n, m, ps, np, &perm, &nperm, err)) != PG_GPU_OK)
		return st;
	if (perm)
		agg->topn_rows += nperm;
	else
	{
		/* no select (or too many ties at its threshold): every row is sorted */
		nperm = n;
		if ((st = sort_rows(agg->max_blocks, n, agg->sa.w, ps, np, &perm, err)) != PG_GPU_OK)
			return st;
	}
	if (ss.longs)
		st = check_ordered(agg->sa, perm, nperm, t, agg->d_flag, blocks, err);
	/* references and sizes of the first m rows, offsets by an exclusive scan */
	if (st == PG_GPU_OK &&
		(st = device_alloc(m * sizeof(uint64_t), (void **) &sref, err)) == PG_GPU_OK &&
		(st = device_alloc((m + 1) * sizeof(uint64_t), (void **) &soff, err)) == PG_GPU_OK &&
		(st = device_alloc((m + 1) * sizeof(uint64_t), (void **) &size, err)) == PG_GPU_OK)
	{
		sorted_refs_kernel<<<blocks, 256>>>(agg->sa.ref, nullptr, perm, sref, nullptr, size, m);
		cudaMemsetAsync(size + m, 0, sizeof(uint64_t));
		st = scan_sizes(size, soff, m, err);
	}
	if (st == PG_GPU_OK && keep)
	{
		/* offsets at every samp_step-th row, for the batches' bounds */
		uint64_t	step = agg->shape.batch_bytes / PG_GPU_BLCKSZ;
		uint64_t	cnt;

		step = step > 1024 ? 1024 : step;
		cnt = m / step + 1;
		agg->samp_step = step;
		agg->h_samp.assign(cnt + 1, 0);
		PG_GPU_TRY(err, cudaMemcpy2D(agg->h_samp.data(), sizeof(uint64_t), soff,
									 step * sizeof(uint64_t), sizeof(uint64_t), cnt,
									 cudaMemcpyDeviceToHost));
		PG_GPU_TRY(err, cudaMemcpy(&agg->h_samp[cnt], soff + m, sizeof(uint64_t),
								   cudaMemcpyDeviceToHost));
		agg->d_sref = sref;
		agg->d_soff = soff;
		sref = soff = nullptr;
	}
	else if (st == PG_GPU_OK)
		st = run_to_host(agg, m, perm, sref, soff, size, err);
	device_free(perm);
	device_free(sref);
	device_free(soff);
	device_free(size);
	if (st != PG_GPU_OK)
		return st;
reset:
	if (last)
		return PG_GPU_OK;
	agg->run_page0 = agg->pages;
	agg->sort_bound = 0;
	PG_GPU_TRY(err, cudaMemset(agg->sa.stats, 0, sizeof(sort_stats)));
	return PG_GPU_OK;
}

/*
 * After the scan: the last run is closed.  A sort of one run hands its rows out
 * from the device; a sort of several merges them (sort_merge) block by block.
 */
static pg_gpu_status
sort_finish(pg_gpu_agg *agg, pg_gpu_agg_result *res, pg_gpu_error *err)
{
	const pg_gpu_agg_task &t = agg->task;
	sort_merge &mg = agg->merge;
	uint64_t	R = agg->shape.merge_rows;
	pg_gpu_status st;

	if ((st = sort_run_close(agg, true, err)) != PG_GPU_OK)
		return st;
	res->nrows = (int64_t) agg->seen.count;
	res->sort_runs = (int32_t) mg.runs.size();
	res->sort_topn = (int64_t) agg->topn_rows;
	agg->next_row = 0;
	if (mg.runs.empty())
		return PG_GPU_OK;

	/* merging: the run's page store and row arrays are done with */
	device_free(agg->d_store);
	agg->d_store = nullptr;
	for (int k = 0; k <= agg->nwords; k++)
	{
		uint64_t  **p = k < agg->nwords ? &agg->sa.w[k] : &agg->sa.ref;

		device_free(*p);
		*p = nullptr;
	}

	const char *why = nullptr;

	if ((st = mg.start(t, agg->seen, agg->shape.batch_bytes / PG_GPU_BLCKSZ, &agg->nsorted,
					   &why)) != PG_GPU_OK)
		return set_error(err, st, "%s", why);
	for (int w = 0; w < agg->nwords; w++)
		if ((st = device_alloc(R * sizeof(uint64_t), (void **) &agg->blk_w[w], err)) != PG_GPU_OK)
			return st;
	if ((st = device_alloc(R * sizeof(uint64_t), (void **) &agg->blk_ref, err)) != PG_GPU_OK ||
		(st = device_alloc(R * sizeof(uint64_t), (void **) &agg->blk_src, err)) != PG_GPU_OK ||
		(st = device_alloc(R * sizeof(uint64_t), (void **) &agg->blk_oref, err)) != PG_GPU_OK ||
		(st = device_alloc(R * sizeof(uint64_t), (void **) &agg->blk_osrc, err)) != PG_GPU_OK ||
		(st = device_alloc((R + 1) * sizeof(uint64_t), (void **) &agg->blk_size, err)) != PG_GPU_OK ||
		(st = device_alloc((R + 1) * sizeof(uint64_t), (void **) &agg->blk_off, err)) != PG_GPU_OK ||
		(st = device_alloc(agg->shape.batch_bytes, (void **) &agg->blk_tup, err)) != PG_GPU_OK)
		return st;
	return PG_GPU_OK;
}

/* The next batch of a one-run sort, into o: queued on out_stream. */
static pg_gpu_status
batch_from_device(pg_gpu_agg *agg, pg_gpu_agg::OutBuf &o, pg_gpu_error *err)
{
	uint64_t	step = agg->samp_step;
	uint64_t	cnt = agg->h_samp.size() - 1;	/* h_samp[cnt]: offset of row nsorted */
	uint64_t	r0 = agg->next_row;
	uint64_t	j0 = r0 / step;
	uint64_t	j = j0 + 1;			/* one step always fits a batch */
	auto		offv = [&](uint64_t i) { return agg->h_samp[i < cnt ? i : cnt]; };

	while (j + 1 <= cnt && offv(j + 1) - offv(j0) <= agg->shape.batch_bytes)
		j++;
	uint64_t	r1 = j * step < agg->nsorted ? j * step : agg->nsorted;
	uint64_t	b1 = offv(j);
	uint64_t	n = r1 - r0;

	gather_tuples_kernel<true><<<agg->max_blocks, 256, 0, agg->out_stream>>>(
		(const char *) agg->d_store, nullptr, agg->d_sref + r0, agg->d_soff + r0, n,
		agg->run_page0, o.d);
	PG_GPU_TRY(err, cudaMemcpyAsync(o.h, o.d, b1 - offv(j0), cudaMemcpyDeviceToHost,
									agg->out_stream));
	PG_GPU_TRY(err, cudaMemcpyAsync(o.h_off, agg->d_soff + r0, (n + 1) * sizeof(uint64_t),
									cudaMemcpyDeviceToHost, agg->out_stream));
	PG_GPU_TRY(err, cudaMemcpyAsync(o.h_ref, agg->d_sref + r0, n * sizeof(uint64_t),
									cudaMemcpyDeviceToHost, agg->out_stream));
	o.nrows = (int64_t) n;
	agg->next_row = r1;
	return PG_GPU_OK;
}

/* The next merge block, into o: its rows from every run, sorted on the device. */
static pg_gpu_status
batch_from_runs(pg_gpu_agg *agg, pg_gpu_agg::OutBuf &o, pg_gpu_error *err)
{
	sort_merge &mg = agg->merge;
	std::vector<uint64_t> take;
	uint64_t	n = mg.plan(agg->shape.merge_rows, agg->shape.batch_bytes, take);
	uint64_t	row0 = 0,
				byte0 = 0;
	uint32_t   *perm = nullptr;
	int			blocks = agg->max_blocks;
	pg_gpu_status st;

	o.nrows = 0;
	if (n == 0)
		return PG_GPU_OK;
	for (size_t r = 0; r < take.size(); r++)
	{
		const sort_run &R = mg.runs[r];
		uint64_t	c = mg.cur[r],
					k = take[r],
					bytes = R.off[c + k] - R.off[c];

		if (k == 0)
			continue;
		for (int w = 0; w < agg->nwords; w++)
			PG_GPU_TRY(err, cudaMemcpy(agg->blk_w[w] + row0, R.words.data() + (size_t) w * R.n + c,
									   k * sizeof(uint64_t), cudaMemcpyHostToDevice));
		PG_GPU_TRY(err, cudaMemcpy(agg->blk_ref + row0, R.ref.data() + c, k * sizeof(uint64_t),
								   cudaMemcpyHostToDevice));
		PG_GPU_TRY(err, cudaMemcpy(agg->blk_src + row0, R.off.data() + c, k * sizeof(uint64_t),
								   cudaMemcpyHostToDevice));
		add_kernel<<<blocks, 256>>>(agg->blk_src + row0, k, byte0 - R.off[c]);
		PG_GPU_TRY(err, cudaMemcpy(agg->blk_tup + byte0, R.tuples.data() + R.off[c], bytes,
								   cudaMemcpyHostToDevice));
		mg.cur[r] += k;
		row0 += k;
		byte0 += bytes;
		agg->bytes += bytes + k * sizeof(uint64_t) * (agg->nwords + 2);
	}
	if ((st = sort_rows(agg->max_blocks, n, agg->blk_w, mg.passes, mg.npasses, &perm, err)) != PG_GPU_OK)
		return st;
	sorted_refs_kernel<<<blocks, 256>>>(agg->blk_ref, agg->blk_src, perm, agg->blk_oref,
										agg->blk_osrc, agg->blk_size, n);
	cudaMemsetAsync(agg->blk_size + n, 0, sizeof(uint64_t));
	st = scan_sizes(agg->blk_size, agg->blk_off, n, err);
	device_free(perm);
	if (st != PG_GPU_OK)
		return st;
	gather_tuples_kernel<false><<<blocks, 256>>>(agg->blk_tup, agg->blk_osrc, agg->blk_oref,
												 agg->blk_off, n, 0, o.d);
	PG_GPU_TRY(err, cudaMemcpy(o.h, o.d, byte0, cudaMemcpyDeviceToHost));
	PG_GPU_TRY(err, cudaMemcpy(o.h_off, agg->blk_off, (n + 1) * sizeof(uint64_t),
							   cudaMemcpyDeviceToHost));
	PG_GPU_TRY(err, cudaMemcpy(o.h_ref, agg->blk_oref, n * sizeof(uint64_t),
							   cudaMemcpyDeviceToHost));
	if (agg->next_row + n > agg->nsorted)
		n = agg->nsorted - agg->next_row;	/* LIMIT */
	o.nrows = (int64_t) n;
	agg->next_row += n;
	return PG_GPU_OK;
}

/* Queue the next batch into o (nrows 0: there is none). */
static pg_gpu_status
batch_fill(pg_gpu_agg *agg, pg_gpu_agg::OutBuf &o, pg_gpu_error *err)
{
	pg_gpu_status st = PG_GPU_OK;

	o.nrows = 0;
	if (agg->next_row < agg->nsorted)
		st = agg->merge.runs.empty() ? batch_from_device(agg, o, err)
			: batch_from_runs(agg, o, err);
	if (st == PG_GPU_OK)
		PG_GPU_TRY(err, cudaEventRecord(o.ready, agg->out_stream));
	return st;
}

/*
 * The next batch of sorted tuples.  The executor reads a batch until it asks for
 * the next one, so while it reads one, the other is filled.
 */
extern "C" pg_gpu_status
pg_gpu_sort_next(pg_gpu_agg *agg, pg_gpu_sort_batch *out, pg_gpu_error *err)
{
	pg_gpu_status st;

	if (agg->host)
		return host_agg_sort_next(agg->host, out, err);
	memset(out, 0, sizeof(*out));
	if (!agg->sorting)
		return PG_GPU_OK;
	if (agg->out_cur < 0)
	{
		agg->out_cur = 1;
		if ((st = batch_fill(agg, agg->out[0], err)) != PG_GPU_OK)
			return st;
	}
	agg->out_cur = 1 - agg->out_cur;

	pg_gpu_agg::OutBuf &o = agg->out[agg->out_cur];

	PG_GPU_TRY(err, cudaEventSynchronize(o.ready));
	if (o.nrows == 0)
		return PG_GPU_OK;
	if ((st = batch_fill(agg, agg->out[1 - agg->out_cur], err)) != PG_GPU_OK)
		return st;
	out->nrows = o.nrows;
	out->data = o.h;
	out->off = o.h_off;
	out->ref = o.h_ref;
	return PG_GPU_OK;
}

extern "C" pg_gpu_status
pg_gpu_agg_finish(pg_gpu_agg *agg, pg_gpu_agg_result *res, pg_gpu_error *err)
{
	const pg_gpu_agg_task &t = agg->task;
	int			nin = t.ninputs;
	size_t		nparts = (size_t) agg->max_blocks * (nin ? nin : 1);
	pg_gpu_col_state *h_parts = nullptr;
	pg_gpu_status st;

	if (agg->host)
		return host_agg_finish(agg->host, res, err);
	memset(res, 0, sizeof(*res));
	for (int c = 0; c < nin; c++)
		state_init(res->cols[c], t.inputs[c].type);

	PG_GPU_TRY(err, cudaDeviceSynchronize());
	if (agg->plain &&
		(st = pinned_alloc(nparts * sizeof(pg_gpu_col_state), (void **) &h_parts, err)) != PG_GPU_OK)
		return st;
	for (Slot &s : agg->slots)
	{
		unsigned long long rows = 0;
		int			kerr = 0;

		if ((agg->plain &&
			 cudaMemcpy(h_parts, s.d_partials, nparts * sizeof(pg_gpu_col_state),
						cudaMemcpyDeviceToHost) != cudaSuccess) ||
			cudaMemcpy(&rows, s.d_rows, sizeof(rows), cudaMemcpyDeviceToHost) != cudaSuccess ||
			cudaMemcpy(&kerr, s.d_err, sizeof(kerr), cudaMemcpyDeviceToHost) != cudaSuccess)
		{
			pinned_free(h_parts);
			return from_cuda(err, cudaGetLastError(), "cudaMemcpy partials");
		}
		if (kerr != 0)
		{
			pinned_free(h_parts);
			if (kerr == PG_GPU_EXPR_ERROR)
				return set_error(err, PG_GPU_EXPR_ERROR,
								 "an expression raised an error on the GPU");
			if (kerr == PG_GPU_TOASTED)
				return set_error(err, PG_GPU_TOASTED,
								 "a text value is compressed or stored out of line");
			if (kerr == PG_GPU_INVALID_TASK)
				return set_error(err, PG_GPU_INVALID_TASK, "the GPU hash table overflowed");
			return set_error(err, (pg_gpu_status) kerr,
							 "the GPU met a heap page it cannot decode");
		}
		res->nrows += (int64_t) rows;
		if (agg->plain)
			for (int b = 0; b < agg->max_blocks; b++)
				for (int c = 0; c < nin; c++)
					state_merge(res->cols[c], h_parts[(size_t) b * nin + c], t.inputs[c].type);
	}
	pinned_free(h_parts);

	float		ms = 0;

	if (agg->started && cudaEventElapsedTime(&ms, agg->first_start, agg->last_done) == cudaSuccess)
		res->gpu_ms = ms;
	(void) cudaGetLastError();
	if (agg->grouped && (st = group_collect(agg, res, err)) != PG_GPU_OK)
		return st;
	if (agg->sorting && (st = sort_finish(agg, res, err)) != PG_GPU_OK)
		return st;
	if (agg->collecting)
	{
		unsigned long long c[3];

		PG_GPU_TRY(err, cudaMemcpy(c, agg->co.count, sizeof(c), cudaMemcpyDeviceToHost));
		agg->co_keys = c[0];
		agg->co_used = c[1];
		agg->co_null = c[2] != 0;
	}
	res->bytes_h2d = agg->bytes;
	res->chunks = agg->chunks;
	res->pages = agg->pages;
	return PG_GPU_OK;
}

extern "C" void
pg_gpu_agg_group(pg_gpu_agg *agg, int64_t g, uint64_t *keys, uint32_t *nullmask,
				 int64_t *rows, pg_gpu_col_state *states)
{
	if (agg->host)
	{
		host_agg_group(agg->host, g, keys, nullmask, rows, states);
		return;
	}
	group_decode(agg->h_groups + (size_t) g * agg->layout.words, agg->task, agg->layout,
				 keys, nullmask, rows, states);
	/* text keys: device arena address to the host copy */
	for (int k = 0; agg->ntext > 0 && k < agg->task.nkeys; k++)
	{
		if (!is_text_type(agg->task.keys[k].type) || ((*nullmask >> k) & 1))
			continue;
		for (int i = 0; i < agg->nblocks; i++)
		{
			const ArenaBlock &b = agg->blocks[i];
			uint64_t	d = (uint64_t) (uintptr_t) b.d;

			if (keys[k] >= d && keys[k] < d + b.used)
			{
				keys[k] = (uint64_t) (uintptr_t) (b.h + (keys[k] - d));
				break;
			}
		}
	}
}

extern "C" void
pg_gpu_agg_end(pg_gpu_agg *agg)
{
	if (!agg)
		return;
	if (agg->host)
	{
		host_agg_end(agg->host);
		delete agg;
		return;
	}
	/* wait for in-flight work before recycling its buffers */
	for (Slot &s : agg->slots)
		if (s.stream)
			cudaStreamSynchronize(s.stream);
	if (agg->out_stream)
		cudaStreamSynchronize(agg->out_stream);
	unregister_since(agg, 0);	/* before the runs' memory goes */
	for (Slot &s : agg->slots)
	{
		pinned_free(s.h_refs);
		pinned_free(s.h_vis);
		pinned_free(s.h_staging);
		device_free(s.d_refs);
		device_free(s.d_vis);
		device_free(s.d_pages);
		device_free(s.d_partials);
		device_free(s.d_rows);
		if (s.done)
			cudaEventDestroy(s.done);
		if (s.stream)
			cudaStreamDestroy(s.stream);
	}
	device_free(agg->d_tab);
	device_free(agg->d_inserted);
	pinned_free(agg->h_groups);
	for (int i = 0; i < agg->nblocks; i++)
	{
		device_free(agg->blocks[i].d);
		pinned_free(agg->blocks[i].h);
	}
	device_free(agg->d_store);
	for (void *p : {(void *) agg->co.vals, (void *) agg->co.src, (void *) agg->co.len,
					(void *) agg->co.arena, (void *) agg->co.count})
		device_free(p);
	for (int k = 0; k < kMaxSortWords; k++)
	{
		device_free(agg->sa.w[k]);
		device_free(agg->blk_w[k]);
	}
	device_free(agg->sa.ref);
	device_free(agg->sa.stats);
	device_free(agg->d_flag);
	device_free(agg->d_sref);
	device_free(agg->d_soff);
	for (auto &o : agg->out)
	{
		device_free(o.d);
		pinned_free(o.h);
		pinned_free(o.h_off);
		pinned_free(o.h_ref);
		if (o.ready)
			cudaEventDestroy(o.ready);
	}
	if (agg->out_stream)
		cudaStreamDestroy(agg->out_stream);
	for (uint64_t *p : {agg->blk_ref, agg->blk_src, agg->blk_oref, agg->blk_osrc, agg->blk_size,
						agg->blk_off})
		device_free(p);
	device_free(agg->blk_tup);
	if (agg->first_start)
		cudaEventDestroy(agg->first_start);
	if (agg->last_done)
		cudaEventDestroy(agg->last_done);
	(void) cudaGetLastError();
	delete agg;
}

/*
 * GpuSort over a child plan: the rows' sort words (encoded on the host) go to the
 * device, the same stable radix passes as a run order them, and the order comes
 * back.  Words go up with pageable copies: the slot path is bound by the executor
 * handing over rows one by one, not by this.
 */
pg_gpu_status
engine_sort_words(const pg_gpu_agg_task &t, uint64_t n, const uint64_t *const *words,
				  const sort_pass *ps, int np, bool check, uint32_t *order, double *gpu_ms,
				  uint64_t *bytes_h2d, pg_gpu_error *err)
{
	int			nw = sort_row_words(t);
	bool		used[kMaxSortWords] = {};
	sort_arrays sa = {};
	uint32_t   *perm = nullptr;
	int		   *d_flag = nullptr;
	cudaEvent_t ev[2] = {nullptr, nullptr};
	int			dev = 0,
				sms = 0;
	uint64_t	need = 0;
	pg_gpu_status st = PG_GPU_OK;

	if (n == 0)
		return PG_GPU_OK;
	for (int p = 0; p < np; p++)
		used[ps[p].w] = true;
	for (int w = 0; w < nw; w++)
		if (used[w] || check)
			need += n * sizeof(uint64_t);
	/* the words, two index and two key buffers of the passes, CUB's scratch */
	need += n * (2 * sizeof(uint32_t) + 2 * sizeof(uint64_t)) + n * 2 + (16u << 20);
	if (need > device_budget())
		return set_error(err, PG_GPU_OUT_OF_MEMORY,
						 "the sort keys need %llu bytes of device memory, more than the budget",
						 (unsigned long long) need);
	PG_GPU_TRY(err, cudaGetDevice(&dev));
	PG_GPU_TRY(err, cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
	PG_GPU_TRY(err, cudaEventCreate(&ev[0]));
	if ((st = cuda_status(err, cudaEventCreate(&ev[1]), "cudaEventCreate")) != PG_GPU_OK)
	{
		cudaEventDestroy(ev[0]);
		return st;
	}
	cudaEventRecord(ev[0]);
	for (int w = 0; w < nw && st == PG_GPU_OK; w++)
	{
		if (!used[w] && !check)
			continue;
		if ((st = device_alloc(n * sizeof(uint64_t), (void **) &sa.w[w], err)) == PG_GPU_OK)
		{
			st = cuda_status(err, cudaMemcpy(sa.w[w], words[w], n * sizeof(uint64_t),
										   cudaMemcpyHostToDevice), "cudaMemcpy");
			*bytes_h2d += n * sizeof(uint64_t);
		}
	}
	if (st == PG_GPU_OK)
		st = sort_rows(sms * kBlocksPerSm, n, sa.w, ps, np, &perm, err);
	if (st == PG_GPU_OK && check && n > 1 &&
		(st = device_alloc(sizeof(int), (void **) &d_flag, err)) == PG_GPU_OK)
		st = check_ordered(sa, perm, n, t, d_flag, sms * kBlocksPerSm, err);
	if (st == PG_GPU_OK)
		st = cuda_status(err, cudaMemcpy(order, perm, n * sizeof(uint32_t), cudaMemcpyDeviceToHost),
					   "cudaMemcpy");
	cudaEventRecord(ev[1]);
	if (st == PG_GPU_OK && cudaEventSynchronize(ev[1]) == cudaSuccess)
	{
		float		ms = 0;

		cudaEventElapsedTime(&ms, ev[0], ev[1]);
		*gpu_ms = ms;
	}
	device_free(d_flag);
	device_free(perm);
	for (int w = 0; w < nw; w++)
		device_free(sa.w[w]);
	cudaEventDestroy(ev[0]);
	cudaEventDestroy(ev[1]);
	(void) cudaGetLastError();
	return st;
}
