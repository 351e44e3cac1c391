/*
 * sort_scan.cu — ORDER BY, the scan half: heap pages in, one run's rows out as
 * sort words and row references, the pages kept in the run's page store.
 *
 * A sort's shape (sort.cuh's sort_plan_shape) fixes under the memory budget how
 * many pages and rows a run holds.  Before each chunk sort_reserve closes the run
 * when the chunk would not fit (sort_runs.cu sorts it and copies it to the host)
 * and grows the row arrays as the run needs; the kernel then encodes each passing
 * tuple's keys into fixed-width words (sort_encode) next to a reference to the
 * tuple in the page store.
 */
#include "cub.cuh"

#include "engine/task.cuh"

namespace pg_gpu {
namespace cuda {

/*
 * One block per page (scan/page_walk.cuh): the page goes to shared memory and to
 * the run's page store (store_base: the chunk's first page there; the sorted
 * tuples are gathered from it); each passing tuple's sort words and reference are
 * appended at a position from one atomic add per round of line pointers.
 */
__global__ void __launch_bounds__(page_policy::threads)
sort_pages_kernel(const page_chunk chunk, const __grid_constant__ pg_gpu_agg_task task,
				  int64_t page_base, int64_t store_base, uint4 *store, sort_arrays sa,
				  unsigned long long *rows, int *err)
{
	constexpr int T = page_policy::threads;
	using BlockScan = cub::BlockScan<int, T>;
	__shared__ uint4 page[PG_GPU_BLCKSZ / 16];
	__shared__ typename BlockScan::TempStorage scan;
	__shared__ unsigned long long base;
	const int	tid = threadIdx.x;
	const int	nw = sort_row_words(task);
	unsigned long long nrows = 0;
	uint32_t	nulls_seen = 0,
				longs_seen = 0;
	uint32_t	maxlen[PG_GPU_MAX_KEYS] = {};
	auto		store_at = [&](int p) {
		return store + (size_t) (store_base + p) * (PG_GPU_BLCKSZ / 16);
	};

	for_each_page<T>(chunk, page, store_at, [&](int p, const pg_gpu_page_ref &ref,
												const uint8_t *pg, const uint32_t *pvis, int lt) {
		for_each_line_lockstep<T>(pg, ref.nlp, pvis, lt, [&](int i, int v, const uint8_t *tup,
															  uint32_t len) {
			int			cnt = 0;	/* times the row is handed out */
			pval		keys[PG_GPU_MAX_KEYS];

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
		});
	});
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

/* Row arrays for n rows (sort words, references), copying the first keep rows. */
static pg_gpu_status
sort_arrays_alloc(gpu_agg *agg, uint64_t n, uint64_t keep, pg_gpu_error *err)
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
sort_setup(gpu_agg *agg, pg_gpu_error *err)
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

/*
 * Before queueing a sort chunk of npages pages and up to `tuples` rows: when the
 * run's page store or row arrays cannot take it, close the run (sort it, copy it
 * to the host) and start another; grow the row arrays as the run needs.
 */
static pg_gpu_status
sort_reserve(gpu_agg *agg, uint64_t tuples, int npages, pg_gpu_error *err)
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

static void
sort_pages_async(gpu_agg *agg, chunk_slot &s, const page_chunk &c, cudaStream_t stream)
{
	int			blocks = c.npages < agg->max_blocks ? c.npages : agg->max_blocks;

	sort_pages_kernel<<<blocks, page_policy::threads, 0, stream>>>(
		c, agg->task, agg->pages, agg->pages - agg->run_page0, agg->d_store, agg->sa, s.d_rows,
		s.d_err);
}

/* A sort's shape has counted its slots: the ring does not shrink its chunk. */
const task_operator sort_operator = {
	[](gpu_agg *agg, int, pg_gpu_error *err) { return sort_setup(agg, err); },
	nullptr, sort_reserve, sort_pages_async, sort_finish,
};

}							/* namespace cuda */
}							/* namespace pg_gpu */
