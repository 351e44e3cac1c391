/*
 * task.cu — the task ring: a GpuAgg, GpuSort or collect task's setup, its chunk
 * slots and their streams, each chunk handed to its operator, the end of the
 * scan, and the teardown.  See task.cuh for the ring's design.
 *
 * Setup sizes everything once: the operator's own (its task_operator's setup),
 * then, under a device memory cap, the chunk so that every slot's
 * buffers fit, then the slots (a non-blocking stream, an event, pinned and device
 * buffers each).  A submit copies the chunk's references, bitmaps and (gather
 * mode) pages on the slot's stream and launches the operator's kernel there; the
 * operator's reserve step runs first, on the host, and may wait for the slots.
 * Finish waits for the device, reads every slot's counters and error, merges a
 * plain task's partials in slot and block order, and lets the operator collect
 * its result.  The handle's function table (gpu_ops) is what pg_gpu_agg_* call.
 */
#include <string.h>

#include <algorithm>

#include <new>

#include "engine/task.cuh"

namespace pg_gpu {
namespace cuda {

static void gpu_end(pg_gpu_agg *a);
static void gpu_group(pg_gpu_agg *a, int64_t g, uint64_t *keys, uint32_t *nullmask,
					  int64_t *rows, pg_gpu_col_state *states);
static pg_gpu_status gpu_sort_next(pg_gpu_agg *a, pg_gpu_sort_batch *out, pg_gpu_error *err);
static pg_gpu_keyset *gpu_keyset(pg_gpu_agg *a, int type, uint64_t *keys, int *has_null,
								 pg_gpu_error *err);
static int	gpu_slot_idle(pg_gpu_agg *a, int slot);
static pg_gpu_status gpu_slot_get(pg_gpu_agg *a, int slot, pg_gpu_agg_slot *out);
static pg_gpu_status gpu_submit(pg_gpu_agg *a, int slot, int npages, int nvis,
								pg_gpu_error *err);
static pg_gpu_status gpu_finish(pg_gpu_agg *a, pg_gpu_agg_result *res, pg_gpu_error *err);

static const agg_ops gpu_ops = {
	gpu_slot_idle, gpu_slot_get, gpu_submit, gpu_finish, gpu_group, gpu_sort_next, gpu_keyset,
	gpu_end,
};

/* Registered pages pulled into GPU memory before the operator reads them. */
static bool
stages(const pg_gpu_agg_task &t)
{
	return t.stage && !t.gather && !t.pages_resident && !t.sort;
}

static pg_gpu_status
agg_setup(gpu_agg *agg, pg_gpu_error *err)
{
	const pg_gpu_agg_task &t = agg->task;
	int			dev = 0,
				sms = 0;
	int			nin = t.ninputs ? t.ninputs : 1;
	pg_gpu_status st;

	PG_GPU_TRY(err, cudaGetDevice(&dev));
	PG_GPU_TRY(err, cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
	agg->max_blocks = sms * page_policy::blocks_per_sm;
	agg->capacity = t.chunk_pages;
	if (agg->op->setup && (st = agg->op->setup(agg, sms, err)) != PG_GPU_OK)
		return st;

	/*
	 * Under a device memory cap, shrink the chunk so that every slot's buffers fit
	 * (pool blocks are rounded up to powers of two; a sort's shape has counted its
	 * slots already).  Fixed costs first: partials and counters per slot.
	 */
	uint64_t	limit = device_memory_limit();

	if (limit && !agg->sorting)
	{
		auto		pow2 = [](size_t b) { return pow2_at_least(b, 4096); };
		size_t		fixed = PG_GPU_AGG_SLOTS *
			(pow2(sizeof(pg_gpu_col_state) * agg->max_blocks * nin) +
			 pow2(sizeof(unsigned long long) + sizeof(int)));

		if (agg->grouped)
			fixed += pow2(agg->cap * sizeof(uint64_t) * agg->layout.words) + 4096;
		while (agg->capacity > 1)
		{
			size_t		per_slot = pow2(sizeof(pg_gpu_page_ref) * agg->capacity) +
				pow2(sizeof(uint32_t) * PG_GPU_VIS_WORDS * agg->capacity) +
				(t.gather || stages(t) ? pow2((size_t) PG_GPU_BLCKSZ * agg->capacity) : 0);

			if (fixed + PG_GPU_AGG_SLOTS * per_slot <= limit)
				break;
			agg->capacity = (agg->capacity + 1) / 2;
		}
	}
	if (agg->op->setup_sized && (st = agg->op->setup_sized(agg, err)) != PG_GPU_OK)
		return st;
	/*
	 * The tables' cudaMemsets ran on the thread's default stream, which the
	 * slots' non-blocking streams do not wait for.
	 */
	PG_GPU_TRY(err, cudaStreamSynchronize(agg->main_stream));
	PG_GPU_TRY(err, cudaEventCreate(&agg->first_start));
	PG_GPU_TRY(err, cudaEventCreate(&agg->last_done));
	PG_GPU_TRY(err, cudaEventCreateWithFlags(&agg->reserved, cudaEventDisableTiming));

	size_t		refs_bytes = sizeof(pg_gpu_page_ref) * agg->capacity;
	size_t		vis_bytes = sizeof(uint32_t) * PG_GPU_VIS_WORDS * agg->capacity;
	size_t		part_bytes = sizeof(pg_gpu_col_state) * agg->max_blocks * nin;

	for (chunk_slot &s : agg->slots)
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
		if (t.cc &&
			((st = pinned_alloc(sizeof(pg_gpu_cc_range) * (PG_GPU_CC_MAX_RANGES + 1),
								(void **) &s.h_ranges, err)) != PG_GPU_OK ||
			 (st = pinned_alloc(sizeof(uint64_t) * agg->capacity,
								(void **) &s.h_fill_row, err)) != PG_GPU_OK ||
			 (st = device_alloc(sizeof(pg_gpu_cc_range) * (PG_GPU_CC_MAX_RANGES + 1),
								(void **) &s.d_ranges, err)) != PG_GPU_OK ||
			 (st = device_alloc(sizeof(uint64_t) * agg->capacity,
								(void **) &s.d_fill_row, err)) != PG_GPU_OK ||
			 (st = pinned_alloc(sizeof(uint64_t) * (PG_GPU_CC_MAX_RANGES + 2),
								(void **) &s.h_first, err)) != PG_GPU_OK ||
			 (st = device_alloc(sizeof(uint64_t) * (PG_GPU_CC_MAX_RANGES + 2),
								(void **) &s.d_first, err)) != PG_GPU_OK))
			return st;
		s.cc.ranges = s.h_ranges;
		s.cc.fill_row = s.h_fill_row;
		if (t.gather || stages(t))
		{
			size_t		page_bytes = (size_t) PG_GPU_BLCKSZ * agg->capacity;

			if ((t.gather &&
				 (st = pinned_alloc(page_bytes, (void **) &s.h_staging, err)) != PG_GPU_OK) ||
				(st = device_alloc(page_bytes, (void **) &s.d_pages, err)) != PG_GPU_OK)
				return st;
		}
		int			n = agg->plain ? agg->max_blocks * nin : 0;

		agg_partials_init_async(s, n, s.stream);
		PG_GPU_TRY(err, cudaGetLastError());
	}
	return PG_GPU_OK;
}

/* The emulation is chosen in agg_api.cpp; this is the GPU's begin. */
static pg_gpu_agg *
gpu_agg_begin_impl(const pg_gpu_agg_task *task, pg_gpu_error *err)
{
	if (pg_gpu_engine_init(err) != PG_GPU_OK)
		return nullptr;
	if (!valid_agg_task(task))
	{
		set_error(err, PG_GPU_INVALID_TASK, "invalid aggregation task");
		return nullptr;
	}

	gpu_agg    *agg = new (std::nothrow) gpu_agg();

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
	agg->op = agg->sorting ? &sort_operator : agg->collecting ? &collect_operator
		: agg->grouped ? &group_operator : &agg_operator;
	make_group_layout(agg->task, agg->layout);
	agg->ops = &gpu_ops;
	if (agg_setup(agg, err) != PG_GPU_OK)
	{
		gpu_end(agg);
		return nullptr;
	}
	return agg;
}

static int
gpu_slot_idle(pg_gpu_agg *a, int slot)
{
	gpu_agg    *agg = static_cast<gpu_agg *>(a);
	chunk_slot &s = agg->slots[slot];

	if (!s.busy)
		return 1;
	cudaError_t rc = cudaEventQuery(s.done);

	if (rc == cudaErrorNotReady)
		return 0;
	s.busy = false;				/* done, or failed: either way reusable; errors
								 * surface at finish */
	return 1;
}

/* pg_gpu_agg_slot_get has checked that the slot is idle. */
static pg_gpu_status
gpu_slot_get(pg_gpu_agg *a, int slot, pg_gpu_agg_slot *out)
{
	gpu_agg    *agg = static_cast<gpu_agg *>(a);
	chunk_slot &s = agg->slots[slot];

	out->slot = slot;
	out->capacity = agg->capacity;
	out->refs = s.h_refs;
	out->vis = s.h_vis;
	out->staging = s.h_staging;
	out->cc = agg->task.cc ? &s.cc : nullptr;
	return PG_GPU_OK;
}

/* Wait for every queued chunk (a cancel ends the wait: stream_wait). */
pg_gpu_status
sync_slots(gpu_agg *agg, pg_gpu_error *err)
{
	pg_gpu_status st;

	for (chunk_slot &s : agg->slots)
		if ((st = stream_wait(s.stream, err)) != PG_GPU_OK)
			return st;
	return PG_GPU_OK;
}

/*
 * Move the pages with a fill row (fill_row[p] != UINT64_MAX) behind the others,
 * both arrays alike, keeping each side's order; returns the others' count.
 */
static int
cc_partition(pg_gpu_page_ref *refs, uint64_t *fill_row, int npages)
{
	std::vector<std::pair<pg_gpu_page_ref, uint64_t>> v(npages);

	for (int p = 0; p < npages; p++)
		v[p] = {refs[p], fill_row[p]};
	auto		mid = std::stable_partition(v.begin(), v.end(), [](const auto &x) {
		return x.second == UINT64_MAX;
	});

	for (int p = 0; p < npages; p++)
	{
		refs[p] = v[p].first;
		fill_row[p] = v[p].second;
	}
	return (int) (mid - v.begin());
}

/* pg_gpu_agg_submit has passed over empty chunks. */
static pg_gpu_status
gpu_submit(pg_gpu_agg *a, int slot, int npages, int nvis, pg_gpu_error *err)
{
	gpu_agg    *agg = static_cast<gpu_agg *>(a);
	chunk_slot &s = agg->slots[slot];

	if (npages > agg->capacity || nvis > npages || s.busy)
		return set_error(err, PG_GPU_INVALID_TASK, "bad chunk submission");
	if (npages == 0 && s.cc.nranges == 0)
		return PG_GPU_OK;

	uint64_t	tuples = 0;		/* line pointers: a bound of the chunk's rows */
	uint64_t	cc_rows = 0;	/* cached rows read */
	int			nplain = npages;	/* pages read as pages (the rest: filled) */
	pg_gpu_cc_chunk &cc = s.cc;
	pg_gpu_status st;

	if (agg->task.cc)
	{
		if (!agg->op->launch_ranges || cc.nranges < 0 || cc.nranges > PG_GPU_CC_MAX_RANGES)
			return set_error(err, PG_GPU_INVALID_TASK, "bad cached rows for the task");
		/* pages being filled go last: their rows are read from the new segment */
		if (cc.fill_seg)
			nplain = cc_partition(s.h_refs, cc.fill_row, npages);
		if (cc.fill_seg && nplain < npages)
			cc.ranges[cc.nranges++] = {cc.fill_seg, 0, cc.fill_rows};
		else
			cc.fill_seg = 0;
		for (int i = 0; i < cc.nranges; i++)
		{
			s.h_first[i] = cc_rows;
			cc_rows += cc.ranges[i].nrows;
		}
		s.h_first[cc.nranges] = cc_rows;
	}
	tuples = cc_rows;
	for (int p = 0; !agg->plain && p < nplain; p++)
		tuples += s.h_refs[p].nlp;
	if (agg->op->reserve && (st = agg->op->reserve(agg, tuples, npages, err)) != PG_GPU_OK)
		return st;
	/*
	 * What the reserve step queued on the thread's default stream (a counter
	 * reset by cudaMemset, a table rehashed) must be done before this chunk's
	 * kernels run on the slot's non-blocking stream, which does not wait for
	 * that stream by itself: with other tasks keeping the GPU busy, a text-key
	 * arena's counter reset once ran after the first chunk's kernel had taken
	 * offsets, and later keys overwrote earlier ones (wrong groups under Citus,
	 * 4 star joins at once in one GPU service).  An event orders the two
	 * without a host wait.
	 */
	PG_GPU_TRY(err, cudaEventRecord(agg->reserved, agg->main_stream));
	PG_GPU_TRY(err, cudaStreamWaitEvent(s.stream, agg->reserved, 0));
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
	bool		filling = agg->task.cache_fill && agg->pages + npages <= agg->task.cache_pages;

	if (stages(agg->task) && !filling && nplain > 0)
	{
		page_stage_async(agg, s, nplain, s.stream);
		staging = s.d_pages;
	}

	if (filling)
	{
		cache_fill_async(agg, s, npages, staging, s.stream);
		staging = nullptr;
	}

	page_chunk	c = {s.d_refs, nplain, s.d_vis, staging};

	if (nplain > 0)
		agg->op->launch(agg, s, c, s.stream);
	if (cc.fill_seg)
	{
		page_chunk	f = {s.d_refs + nplain, npages - nplain, s.d_vis, nullptr};

		PG_GPU_TRY(err, cudaMemcpyAsync(s.d_fill_row, s.h_fill_row + nplain,
										sizeof(uint64_t) * (npages - nplain),
										cudaMemcpyHostToDevice, s.stream));
		cc_fill_async(agg, s, f, cc, s.stream);
	}
	if (cc.nranges > 0)
	{
		PG_GPU_TRY(err, cudaMemcpyAsync(s.d_ranges, s.h_ranges,
										sizeof(pg_gpu_cc_range) * cc.nranges,
										cudaMemcpyHostToDevice, s.stream));
		PG_GPU_TRY(err, cudaMemcpyAsync(s.d_first, s.h_first,
										sizeof(uint64_t) * (cc.nranges + 1),
										cudaMemcpyHostToDevice, s.stream));
		agg->op->launch_ranges(agg, s, cc_chunk{s.d_ranges, s.d_first, cc.nranges}, cc_rows,
							   s.stream);
	}
	cc.nranges = 0;
	cc.fill_seg = 0;
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


static pg_gpu_status
gpu_finish(pg_gpu_agg *a, pg_gpu_agg_result *res, pg_gpu_error *err)
{
	gpu_agg    *agg = static_cast<gpu_agg *>(a);
	const pg_gpu_agg_task &t = agg->task;
	int			nin = t.ninputs;
	size_t		nparts = (size_t) agg->max_blocks * (nin ? nin : 1);
	pg_gpu_col_state *h_parts = nullptr;
	pg_gpu_status st;

	memset(res, 0, sizeof(*res));
	for (int c = 0; c < nin; c++)
		state_init(res->cols[c], t.inputs[c].type);

	/* the chunks and the operator's steps first, answering a cancel meanwhile */
	if ((st = sync_slots(agg, err)) != PG_GPU_OK ||
		(st = stream_wait(agg->main_stream, err)) != PG_GPU_OK)
		return st;
	/*
	 * Every stream of this task's, not the whole device: in the GPU service
	 * other channels' chunks run meanwhile, and a finish that waited for them
	 * (cudaDeviceSynchronize) made each task wait for the others' (issue 32).
	 */
	if (agg->out_stream)
		PG_GPU_TRY(err, cudaStreamSynchronize(agg->out_stream));
	PG_GPU_TRY(err, cudaStreamSynchronize(agg->main_stream));
	if (agg->plain &&
		(st = pinned_alloc(nparts * sizeof(pg_gpu_col_state), (void **) &h_parts, err)) != PG_GPU_OK)
		return st;
	for (chunk_slot &s : agg->slots)
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
								 "a text value is compressed, stored out of line or too long for its column cache cell");
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
	if (agg->op->finish && (st = agg->op->finish(agg, res, err)) != PG_GPU_OK)
		return st;
	res->bytes_h2d = agg->bytes;
	res->chunks = agg->chunks;
	res->pages = agg->pages;
	return PG_GPU_OK;
}

static void
gpu_end(pg_gpu_agg *a)
{
	gpu_agg    *agg = static_cast<gpu_agg *>(a);

	/* wait for in-flight work before recycling its buffers */
	for (chunk_slot &s : agg->slots)
		if (s.stream)
			cudaStreamSynchronize(s.stream);
	if (agg->out_stream)
		cudaStreamSynchronize(agg->out_stream);
	unregister_since(agg, 0);	/* before the runs' memory goes */
	for (chunk_slot &s : agg->slots)
	{
		pinned_free(s.h_refs);
		pinned_free(s.h_vis);
		pinned_free(s.h_staging);
		pinned_free(s.h_ranges);
		pinned_free(s.h_first);
		device_free(s.d_first);
		pinned_free(s.h_fill_row);
		device_free(s.d_ranges);
		device_free(s.d_fill_row);
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
	for (void *p : {(void *) agg->co.vals, (void *) agg->co.aux, (void *) agg->co.pay,
					(void *) agg->co.pay_null, (void *) agg->co.src, (void *) agg->co.len,
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
	if (agg->reserved)
		cudaEventDestroy(agg->reserved);
	(void) cudaGetLastError();
	delete agg;
}

static void
gpu_group(pg_gpu_agg *a, int64_t g, uint64_t *keys, uint32_t *nullmask, int64_t *rows,
		  pg_gpu_col_state *states)
{
	group_decode_keys(static_cast<gpu_agg *>(a), g, keys, nullmask, rows, states);
}

static pg_gpu_status
gpu_sort_next(pg_gpu_agg *a, pg_gpu_sort_batch *out, pg_gpu_error *err)
{
	return sort_next_batch(static_cast<gpu_agg *>(a), out, err);
}

static pg_gpu_keyset *
gpu_keyset(pg_gpu_agg *a, int type, uint64_t *keys, int *has_null, pg_gpu_error *err)
{
	return collect_keyset(static_cast<gpu_agg *>(a), type, keys, has_null, err);
}

}							/* namespace cuda */
}							/* namespace pg_gpu */

using pg_gpu::cuda::gpu_agg_begin_impl;

pg_gpu_agg *
gpu_agg_begin(const pg_gpu_agg_task *task, pg_gpu_error *err)
{
	return gpu_agg_begin_impl(task, err);
}
