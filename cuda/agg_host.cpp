/*
 * agg_host.cpp — GpuAgg's engine emulated on the host; see agg_host.h.
 */
#include <stdio.h>
#include <string.h>

#include <new>
#include <vector>

#include "agg_host.h"
#include "heap_deform.cuh"

using namespace pg_gpu::cuda;

struct host_agg
{
	pg_gpu_agg_task task;
	int			capacity;
	std::vector<pg_gpu_page_ref> refs[PG_GPU_AGG_SLOTS];
	std::vector<uint32_t> vis[PG_GPU_AGG_SLOTS];
	std::vector<char> staging[PG_GPU_AGG_SLOTS];
	pg_gpu_col_state acc[PG_GPU_MAX_AGG_COLS];
	int64_t		rows = 0;
	int64_t		pages = 0;
	int64_t		chunks = 0;
	uint64_t	bytes = 0;
	bool		bad = false;
};

host_agg *
host_agg_begin(const pg_gpu_agg_task *task, pg_gpu_error *err)
{
	host_agg   *h = new (std::nothrow) host_agg();

	if (!h)
	{
		err->status = PG_GPU_OUT_OF_MEMORY;
		snprintf(err->message, sizeof(err->message), "out of host memory");
		return nullptr;
	}
	h->task = *task;
	h->capacity = task->chunk_pages;
	for (int s = 0; s < PG_GPU_AGG_SLOTS; s++)
	{
		h->refs[s].resize(h->capacity);
		h->vis[s].resize((size_t) h->capacity * PG_GPU_VIS_WORDS);
		if (task->gather)
			h->staging[s].resize((size_t) h->capacity * PG_GPU_BLCKSZ);
	}
	for (int c = 0; c < task->ncols; c++)
		state_init(h->acc[c], task->cols[c].type);
	return h;
}

pg_gpu_status
host_agg_slot_get(host_agg *h, int slot, pg_gpu_agg_slot *out)
{
	out->slot = slot;
	out->capacity = h->capacity;
	out->refs = h->refs[slot].data();
	out->vis = h->vis[slot].data();
	out->staging = h->staging[slot].data();
	return PG_GPU_OK;
}

pg_gpu_status
host_agg_submit(host_agg *h, int slot, int npages, int nvis, pg_gpu_error *err)
{
	for (int p = 0; p < npages; p++)
	{
		const pg_gpu_page_ref &ref = h->refs[slot][p];
		/* gather: the caller's copy; in place: the page itself (ref.addr) */
		const uint8_t *page = h->task.gather
			? (const uint8_t *) h->staging[slot].data() + (size_t) p * PG_GPU_BLCKSZ
			: (const uint8_t *) (uintptr_t) ref.addr;
		const uint32_t *vis = ref.vis_idx >= 0
			? h->vis[slot].data() + (size_t) ref.vis_idx * PG_GPU_VIS_WORDS : nullptr;
		int			r = accum_page_serial(page, ref.nlp, vis, h->task, h->acc);

		if (r < 0)
		{
			err->status = PG_GPU_BAD_PAGE;
			snprintf(err->message, sizeof(err->message),
					 "the emulated GPU met a heap page it cannot decode");
			return PG_GPU_BAD_PAGE;
		}
		h->rows += r;
	}
	h->pages += npages;
	h->chunks++;
	h->bytes += (uint64_t) npages * (PG_GPU_BLCKSZ + sizeof(pg_gpu_page_ref)) +
		(uint64_t) nvis * PG_GPU_VIS_WORDS * sizeof(uint32_t);
	return PG_GPU_OK;
}

void
host_agg_finish(host_agg *h, pg_gpu_agg_result *res)
{
	memset(res, 0, sizeof(*res));
	res->nrows = h->rows;
	for (int c = 0; c < h->task.ncols; c++)
		res->cols[c] = h->acc[c];
	res->bytes_h2d = h->bytes;
	res->chunks = h->chunks;
	res->pages = h->pages;
}

void
host_agg_end(host_agg *h)
{
	delete h;
}
