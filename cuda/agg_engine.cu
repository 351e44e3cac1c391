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

#include <new>

#include "agg_host.h"
#include "agg_state.cuh"
#include "engine_internal.cuh"
#include "heap_deform.cuh"

namespace pg_gpu {
namespace cuda {

constexpr int kThreads = 128;
constexpr int kBlocksPerSm = 8;

static_assert(PG_GPU_BLCKSZ % (16 * kThreads) == 0, "page load must tile the block");

struct Slot
{
	cudaStream_t stream = nullptr;
	cudaEvent_t start = nullptr;
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

	for (int c = 0; c < task.ncols; c++)
		state_init(st[c], task.cols[c].type);

	for (int p = blockIdx.x; p < npages; p += gridDim.x)
	{
		pg_gpu_page_ref ref = refs[p];
		const uint4 *src = staging
			? (const uint4 *) (staging + (size_t) p * PG_GPU_BLCKSZ)
			: (const uint4 *) (uintptr_t) ref.addr;
		uint4		v[PG_GPU_BLCKSZ / 16 / kThreads];

#pragma unroll
		for (int k = 0; k < PG_GPU_BLCKSZ / 16 / kThreads; k++)
			v[k] = src[tid + k * kThreads];
#pragma unroll
		for (int k = 0; k < PG_GPU_BLCKSZ / 16 / kThreads; k++)
			page[tid + k * kThreads] = v[k];
		__syncthreads();

		const uint8_t *pg = (const uint8_t *) page;
		const uint32_t *lps = (const uint32_t *) (pg + PG_GPU_PAGE_HEADER_SIZE);
		const uint32_t *pvis = ref.vis_idx >= 0
			? vis + (size_t) ref.vis_idx * PG_GPU_VIS_WORDS : nullptr;

		for (int i = tid; i < ref.nlp; i += kThreads)
		{
			uint32_t	w = lps[i];

			if (PG_GPU_LP_FLAGS(w) != PG_GPU_LP_NORMAL)
				continue;
			if (pvis && !((pvis[i >> 5] >> (i & 31)) & 1))
				continue;
			uint32_t	off = PG_GPU_LP_OFF(w);
			uint32_t	len = PG_GPU_LP_LEN(w);

			if (off < PG_GPU_PAGE_HEADER_SIZE || off + len > PG_GPU_BLCKSZ ||
				!accum_tuple(pg + off, len, task, st))
			{
				atomicCAS(err, 0, (int) PG_GPU_BAD_PAGE);
				continue;
			}
			nrows++;
		}
		__syncthreads();
	}

	if (nrows)
		atomicAdd(rows, nrows);

	/* merge thread states column by column up a shared-memory tree */
	for (int c = 0; c < task.ncols; c++)
	{
		int			t = task.cols[c].type;

		red[tid] = st[c];
		__syncthreads();
		for (int s = kThreads / 2; s > 0; s >>= 1)
		{
			if (tid < s)
				state_merge(red[tid], red[tid + s], t);
			__syncthreads();
		}
		if (tid == 0)
			state_merge(partials[blockIdx.x * task.ncols + c], red[0], t);
		__syncthreads();
	}
}

}							/* namespace cuda */
}							/* namespace pg_gpu */

using namespace pg_gpu::cuda;

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
};

static pg_gpu_status
agg_setup(pg_gpu_agg *agg, pg_gpu_error *err)
{
	const pg_gpu_agg_task &t = agg->task;
	int			dev = 0,
				sms = 0;

	PG_GPU_TRY(err, cudaGetDevice(&dev));
	PG_GPU_TRY(err, cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
	agg->max_blocks = sms * kBlocksPerSm;
	agg->capacity = t.chunk_pages;

	/*
	 * Under a device memory cap, shrink the chunk so that every slot's buffers fit
	 * (pool blocks are rounded up to powers of two).  Fixed costs first: partials
	 * and counters per slot.
	 */
	uint64_t	limit = device_memory_limit();

	if (limit)
	{
		auto		pow2 = [](size_t b) {
			size_t		c = 4096;

			while (c < b)
				c <<= 1;
			return c;
		};
		size_t		fixed = PG_GPU_AGG_SLOTS *
			(pow2(sizeof(pg_gpu_col_state) * agg->max_blocks * (t.ncols ? t.ncols : 1)) +
			 pow2(sizeof(unsigned long long) + sizeof(int)));

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
	PG_GPU_TRY(err, cudaEventCreate(&agg->first_start));
	PG_GPU_TRY(err, cudaEventCreate(&agg->last_done));

	size_t		refs_bytes = sizeof(pg_gpu_page_ref) * agg->capacity;
	size_t		vis_bytes = sizeof(uint32_t) * PG_GPU_VIS_WORDS * agg->capacity;
	size_t		part_bytes = sizeof(pg_gpu_col_state) * agg->max_blocks * (t.ncols ? t.ncols : 1);

	for (Slot &s : agg->slots)
	{
		pg_gpu_status st;

		PG_GPU_TRY(err, cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking));
		PG_GPU_TRY(err, cudaEventCreateWithFlags(&s.done, cudaEventDisableTiming));
		PG_GPU_TRY(err, cudaEventCreate(&s.start));
		if ((st = pinned_alloc(refs_bytes, (void **) &s.h_refs, err)) != PG_GPU_OK ||
			(st = pinned_alloc(vis_bytes, (void **) &s.h_vis, err)) != PG_GPU_OK ||
			(st = device_alloc(refs_bytes, (void **) &s.d_refs, err)) != PG_GPU_OK ||
			(st = device_alloc(vis_bytes, (void **) &s.d_vis, err)) != PG_GPU_OK ||
			(st = device_alloc(part_bytes, (void **) &s.d_partials, err)) != PG_GPU_OK ||
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
		int			n = agg->max_blocks * (t.ncols ? t.ncols : 1);

		init_partials_kernel<<<(n + 255) / 256, 256, 0, s.stream>>>(s.d_partials, n,
																	s.d_rows, s.d_err);
		PG_GPU_TRY(err, cudaGetLastError());
	}
	return PG_GPU_OK;
}

extern "C" pg_gpu_agg *
pg_gpu_agg_begin(const pg_gpu_agg_task *task, pg_gpu_error *err)
{
	if (!task->emulate && pg_gpu_engine_init(err) != PG_GPU_OK)
		return nullptr;
	if (task->ncols < 0 || task->ncols > PG_GPU_MAX_AGG_COLS ||
		task->natts < 0 || task->natts > PG_GPU_MAX_DEFORM_ATTS || task->chunk_pages <= 0)
	{
		set_error(err, PG_GPU_INVALID_TASK, "invalid aggregation task");
		return nullptr;
	}
	for (int c = 0; c < task->ncols; c++)
		if (task->cols[c].attidx >= task->natts ||
			(c > 0 && task->cols[c].attidx <= task->cols[c - 1].attidx))
		{
			set_error(err, PG_GPU_INVALID_TASK, "invalid aggregation column list");
			return nullptr;
		}

	pg_gpu_agg *agg = new (std::nothrow) pg_gpu_agg();

	if (!agg)
	{
		set_error(err, PG_GPU_OUT_OF_MEMORY, "out of host memory");
		return nullptr;
	}
	agg->task = *task;
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

	PG_GPU_TRY(err, cudaEventRecord(s.start, s.stream));
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

	int			blocks = npages < agg->max_blocks ? npages : agg->max_blocks;

	agg_pages_kernel<<<blocks, kThreads, 0, s.stream>>>(s.d_refs, npages, s.d_vis,
														agg->task.gather ? s.d_pages : nullptr,
														agg->task, s.d_partials,
														s.d_rows, s.d_err);
	PG_GPU_TRY(err, cudaGetLastError());
	PG_GPU_TRY(err, cudaEventRecord(s.done, s.stream));
	PG_GPU_TRY(err, cudaEventRecord(agg->last_done, s.stream));
	s.busy = true;
	agg->bytes += refs_bytes + vis_bytes + (size_t) PG_GPU_BLCKSZ * npages;
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

extern "C" pg_gpu_status
pg_gpu_agg_finish(pg_gpu_agg *agg, pg_gpu_agg_result *res, pg_gpu_error *err)
{
	const pg_gpu_agg_task &t = agg->task;
	int			ncols = t.ncols;
	size_t		nparts = (size_t) agg->max_blocks * (ncols ? ncols : 1);
	pg_gpu_col_state *h_parts = nullptr;
	pg_gpu_status st;

	if (agg->host)
	{
		host_agg_finish(agg->host, res);
		return PG_GPU_OK;
	}
	memset(res, 0, sizeof(*res));
	for (int c = 0; c < ncols; c++)
		state_init(res->cols[c], t.cols[c].type);

	PG_GPU_TRY(err, cudaDeviceSynchronize());
	if ((st = pinned_alloc(nparts * sizeof(pg_gpu_col_state), (void **) &h_parts, err)) != PG_GPU_OK)
		return st;
	for (Slot &s : agg->slots)
	{
		unsigned long long rows = 0;
		int			kerr = 0;

		if (cudaMemcpy(h_parts, s.d_partials, nparts * sizeof(pg_gpu_col_state),
					   cudaMemcpyDeviceToHost) != cudaSuccess ||
			cudaMemcpy(&rows, s.d_rows, sizeof(rows), cudaMemcpyDeviceToHost) != cudaSuccess ||
			cudaMemcpy(&kerr, s.d_err, sizeof(kerr), cudaMemcpyDeviceToHost) != cudaSuccess)
		{
			pinned_free(h_parts);
			return from_cuda(err, cudaGetLastError(), "cudaMemcpy partials");
		}
		if (kerr != 0)
		{
			pinned_free(h_parts);
			return set_error(err, (pg_gpu_status) kerr,
							 "the GPU met a heap page it cannot decode");
		}
		res->nrows += (int64_t) rows;
		for (int b = 0; b < agg->max_blocks; b++)
			for (int c = 0; c < ncols; c++)
				state_merge(res->cols[c], h_parts[(size_t) b * ncols + c], t.cols[c].type);
	}
	pinned_free(h_parts);

	float		ms = 0;

	if (agg->started && cudaEventElapsedTime(&ms, agg->first_start, agg->last_done) == cudaSuccess)
		res->gpu_ms = ms;
	(void) cudaGetLastError();
	res->bytes_h2d = agg->bytes;
	res->chunks = agg->chunks;
	res->pages = agg->pages;
	return PG_GPU_OK;
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
		if (s.start)
			cudaEventDestroy(s.start);
		if (s.done)
			cudaEventDestroy(s.done);
		if (s.stream)
			cudaStreamDestroy(s.stream);
	}
	if (agg->first_start)
		cudaEventDestroy(agg->first_start);
	if (agg->last_done)
		cudaEventDestroy(agg->last_done);
	(void) cudaGetLastError();
	delete agg;
}
