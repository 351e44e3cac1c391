/*
 * agg_host.cpp — GpuAgg's engine emulated on the host; see agg_host.h.
 *
 * Grouped tasks use the GPU's hash table code (group.cuh) with plain operations in
 * place of atomics, including a small per-chunk table merged into the global one,
 * as each thread block's shared-memory table is, so CI exercises the merge rules.
 */
#include <stdio.h>
#include <string.h>

#include <algorithm>
#include <memory>
#include <new>
#include <vector>

#include "agg_host.h"
#include "group.cuh"
#include "heap_deform.cuh"
#include "sort.cuh"

using namespace pg_gpu::cuda;

static const uint64_t kLocalCap = 64;	/* the emulated "shared-memory" table */
static const uint64_t kLocalStr = 512;	/* and its text keys' bytes (small, so the
										 * tests meet a full one) */

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
	int			expr_error = 0;

	/* GROUP BY */
	group_layout L;
	std::vector<uint64_t> tab;
	uint64_t	cap = 0;
	uint64_t	inserted = 0;
	std::vector<uint64_t> local;
	uint64_t	local_fill = 0;
	std::vector<uint8_t> local_str;
	uint64_t	local_str_fill = 0;
	int			grows = 0;
	std::vector<uint64_t> groups;	/* dense, after finish */
	/* text keys: arena blocks, never moved */
	int			ntext = 0;
	std::vector<std::unique_ptr<uint8_t[]>> blocks;
	uint64_t	arena_fill = 0;
	uint64_t	arena_cap = 0;

	/* ORDER BY: pages kept, rows' sort words, then the sorted tuples */
	std::vector<uint8_t> store;
	std::vector<uint64_t> words;	/* 2 * nkeys per row */
	std::vector<uint64_t> rowref;
	uint32_t	nulls = 0;
	std::vector<char> out;
	std::vector<uint64_t> off;
	std::vector<uint64_t> sorted_ref;
	uint64_t	next_row = 0;
};

/* small, so that the tests cross batch boundaries */
static const uint64_t kHostSortBatch = 64 * 1024;

/* One page of a sort task: keep it, and each passing tuple's words. */
static int
sort_page(host_agg *h, const uint8_t *page, int nlp, const uint32_t *vis)
{
	const pg_gpu_agg_task &t = h->task;
	uint64_t	ord = h->store.size() / PG_GPU_BLCKSZ;

	h->store.insert(h->store.end(), page, page + PG_GPU_BLCKSZ);
	return for_each_tuple(page, nlp, vis, [&](int i, const uint8_t *tup, uint32_t len) {
		pval		keys[PG_GPU_MAX_KEYS];
		uint64_t	wds[2 * PG_GPU_MAX_KEYS];
		uint32_t	nl;
		int			r = eval_tuple(tup, len, t, nullptr, keys);

		if (r != TUP_OK)
			return r < 0 ? r : 0;
		sort_encode(t, keys, wds, &nl);
		h->words.insert(h->words.end(), wds, wds + 2 * t.nkeys);
		h->rowref.push_back(sort_ref(ord, (uint32_t) i + 1, len));
		h->nulls |= nl;
		return 1;
	});
}

/* The GPU's passes, with stable sorts: least significant key first. */
static void
sort_finish_host(host_agg *h)
{
	const pg_gpu_agg_task &t = h->task;
	uint64_t	n = h->rowref.size();
	uint64_t	m = (t.sort_limit > 0 && (uint64_t) t.sort_limit < n) ? (uint64_t) t.sort_limit : n;
	std::vector<uint32_t> idx(n);
	int			nw = 2 * t.nkeys;

	for (uint64_t i = 0; i < n; i++)
		idx[i] = (uint32_t) i;
	for (int k = t.nkeys - 1; k >= 0; k--)
	{
		int			ty = t.keys[k].type;
		int			npass = (sort_key_wide(ty) && ((h->nulls >> k) & 1)) ? 2 : 1;

		for (int ps = 0; ps < npass; ps++)
		{
			int			wi = 2 * k + ps;

			std::stable_sort(idx.begin(), idx.end(), [&](uint32_t a, uint32_t b) {
				return h->words[(size_t) a * nw + wi] < h->words[(size_t) b * nw + wi];
			});
		}
	}
	h->off.assign(m + 1, 0);
	h->sorted_ref.assign(m, 0);
	for (uint64_t i = 0; i < m; i++)
	{
		uint64_t	r = h->rowref[idx[i]];

		h->sorted_ref[i] = r;
		h->off[i + 1] = h->off[i] + (((r & 0xFFFF) + 7) & ~7ULL);
	}
	h->out.assign(h->off[m], 0);
	for (uint64_t i = 0; i < m; i++)
	{
		uint64_t	r = h->sorted_ref[i];
		const uint8_t *pg = h->store.data() + (r >> 32) * PG_GPU_BLCKSZ;
		uint32_t	lp = (uint32_t) (r >> 16) & 0xFFFF;
		uint32_t	w;

		memcpy(&w, pg + PG_GPU_PAGE_HEADER_SIZE + 4 * (lp - 1), 4);
		memcpy(h->out.data() + h->off[i], pg + PG_GPU_LP_OFF(w), r & 0xFFFF);
	}
	h->next_row = 0;
	std::vector<uint8_t>().swap(h->store);
	std::vector<uint64_t>().swap(h->words);
}

pg_gpu_status
host_agg_sort_next(host_agg *h, pg_gpu_sort_batch *out, pg_gpu_error *err)
{
	uint64_t	m = h->sorted_ref.size();
	uint64_t	r0 = h->next_row;
	uint64_t	r1 = r0;

	memset(out, 0, sizeof(*out));
	if (r0 >= m)
		return PG_GPU_OK;
	while (r1 < m && (r1 == r0 || h->off[r1 + 1] - h->off[r0] <= kHostSortBatch))
		r1++;
	out->nrows = (int64_t) (r1 - r0);
	out->data = h->out.data() + h->off[r0];
	out->off = h->off.data() + r0;
	out->ref = h->sorted_ref.data() + r0;
	h->next_row = r1;
	return PG_GPU_OK;
}

/* Room in the arena for one page's new text keys (agg_engine.cu's bound). */
static void
host_arena_reserve(host_agg *h, int nlp)
{
	uint64_t	need = (uint64_t) h->ntext *
		(PG_GPU_BLCKSZ + (uint64_t) nlp * arena_bytes(7));

	if (h->ntext == 0 || h->arena_fill + need <= h->arena_cap)
		return;
	h->arena_cap = need > (1u << 20) ? need : (1u << 20);
	h->blocks.emplace_back(new uint8_t[h->arena_cap]);
	h->arena_fill = 0;
}

static str_arena
host_arena(host_agg *h)
{
	str_arena	ar = {h->blocks.empty() ? nullptr : h->blocks.back().get(), &h->arena_fill,
					  h->arena_cap};

	return ar;
}

static void
host_grow(host_agg *h, uint64_t need)
{
	if (h->inserted + need <= h->cap / 2)
		return;
	uint64_t	cap = h->cap;

	while (h->inserted + need > cap / 2)
		cap <<= 1;
	std::vector<uint64_t> old;

	old.swap(h->tab);
	h->tab.assign(cap * h->L.words, 0);
	for (uint64_t i = 0; i < h->cap; i++)
	{
		const uint64_t *s = &old[i * h->L.words];
		group_key	gk;

		if (!entry_ready(s[kWStatus]))
			continue;
		entry_key(s, h->task, h->L, gk);
		for (uint64_t j = key_hash(gk.w, h->task.nkeys) & (cap - 1);; j = (j + 1) & (cap - 1))
			if (h->tab[j * h->L.words] == 0)
			{
				memcpy(&h->tab[j * h->L.words], s, sizeof(uint64_t) * h->L.words);
				break;
			}
	}
	h->cap = cap;
	h->grows++;
}

static bool
flush_local(host_agg *h)
{
	str_arena	ar = host_arena(h);

	for (uint64_t i = 0; i < kLocalCap; i++)
	{
		const uint64_t *s = &h->local[i * h->L.words];
		group_key	gk;

		if (!entry_ready(s[kWStatus]))
			continue;
		entry_key(s, h->task, h->L, gk);
		int64_t		ix = group_find<HostAtomics>(h->tab.data(), h->cap - 1, h->task, h->L, gk,
												 key_hash(gk.w, h->task.nkeys), nullptr, 0,
												 &h->inserted, &ar);

		if (ix < 0)
			return false;
		group_merge<HostAtomics>(&h->tab[ix * h->L.words], s, h->task, h->L);
	}
	std::fill(h->local.begin(), h->local.end(), 0);
	h->local_fill = 0;
	h->local_str_fill = 0;
	return true;
}

/* One grouped page; returns passing rows or a negative TUP_* code. */
static int
group_page(host_agg *h, const uint8_t *page, int nlp, const uint32_t *vis)
{
	const pg_gpu_agg_task &t = h->task;

	host_grow(h, (uint64_t) nlp + kLocalCap);
	host_arena_reserve(h, nlp);

	str_arena	ar = host_arena(h);
	str_arena	lar = {h->local_str.data(), &h->local_str_fill, kLocalStr};

	return for_each_tuple(page, nlp, vis, [&](int, const uint8_t *tup, uint32_t len) {
		pval		in[PG_GPU_MAX_AGG_COLS];
		pval		keys[PG_GPU_MAX_KEYS];
		group_key	gk;
		int			r = eval_tuple(tup, len, t, in, keys);

		if (r != TUP_OK)
			return r < 0 ? r : 0;
		row_key(t, keys, gk);
		uint64_t	hash = key_hash(gk.w, t.nkeys);
		int64_t		ix = group_find<HostAtomics>(h->local.data(), kLocalCap - 1, t, h->L, gk,
												 hash, &h->local_fill, kLocalCap / 2, nullptr,
												 &lar);
		uint64_t   *e;

		if (ix >= 0)
			e = &h->local[ix * h->L.words];
		else
		{
			ix = group_find<HostAtomics>(h->tab.data(), h->cap - 1, t, h->L, gk, hash,
										 nullptr, 0, &h->inserted, &ar);
			if (ix < 0)
				return (int) TUP_BAD;
			e = &h->tab[ix * h->L.words];
		}
		group_accum<HostAtomics>(e, t, h->L, in);
		return 1;
	});
}

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
	for (int c = 0; c < task->ninputs; c++)
		state_init(h->acc[c], task->inputs[c].type);
	make_group_layout(h->task, h->L);
	if (task->nkeys > 0 && !task->sort)
	{
		h->cap = 1024;
		h->tab.assign(h->cap * h->L.words, 0);
		h->local.assign(kLocalCap * h->L.words, 0);
		h->ntext = text_keys(h->task);
		h->local_str.assign(kLocalStr, 0);
	}
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
	for (int p = 0; p < npages && !h->expr_error; p++)
	{
		const pg_gpu_page_ref &ref = h->refs[slot][p];
		/* gather: the caller's copy; in place: the page itself (ref.addr) */
		const uint8_t *page = h->task.gather
			? (const uint8_t *) h->staging[slot].data() + (size_t) p * PG_GPU_BLCKSZ
			: (const uint8_t *) (uintptr_t) ref.addr;
		const uint32_t *vis = ref.vis_idx >= 0
			? h->vis[slot].data() + (size_t) ref.vis_idx * PG_GPU_VIS_WORDS : nullptr;
		int			r = h->task.sort ? sort_page(h, page, ref.nlp, vis)
			: h->task.nkeys > 0 ? group_page(h, page, ref.nlp, vis)
			: accum_page_serial(page, ref.nlp, vis, h->task, h->acc);

		if (r == TUP_EXPR_ERROR)
		{
			/* as on the GPU: noted now, reported by finish */
			h->expr_error = 1;
			break;
		}
		if (r == TUP_TOASTED)
		{
			err->status = PG_GPU_TOASTED;
			snprintf(err->message, sizeof(err->message),
					 "a text value is compressed or stored out of line");
			return PG_GPU_TOASTED;
		}
		if (r < 0)
		{
			err->status = PG_GPU_BAD_PAGE;
			snprintf(err->message, sizeof(err->message),
					 "the emulated GPU met a heap page it cannot decode");
			return PG_GPU_BAD_PAGE;
		}
		h->rows += r;
	}
	if (h->task.nkeys > 0 && !h->task.sort && !flush_local(h))
	{
		err->status = PG_GPU_INVALID_TASK;
		snprintf(err->message, sizeof(err->message), "the emulated hash table overflowed");
		return PG_GPU_INVALID_TASK;
	}
	h->pages += npages;
	h->chunks++;
	h->bytes += (uint64_t) npages * (PG_GPU_BLCKSZ + sizeof(pg_gpu_page_ref)) +
		(uint64_t) nvis * PG_GPU_VIS_WORDS * sizeof(uint32_t);
	return PG_GPU_OK;
}

pg_gpu_status
host_agg_finish(host_agg *h, pg_gpu_agg_result *res, pg_gpu_error *err)
{
	memset(res, 0, sizeof(*res));
	if (h->expr_error)
	{
		err->status = PG_GPU_EXPR_ERROR;
		snprintf(err->message, sizeof(err->message),
				 "an expression raised an error on the emulated GPU");
		return PG_GPU_EXPR_ERROR;
	}
	res->nrows = h->rows;
	for (int c = 0; c < h->task.ninputs; c++)
		res->cols[c] = h->acc[c];
	if (h->task.sort)
	{
		res->nrows = (int64_t) h->rowref.size();
		sort_finish_host(h);
	}
	else if (h->task.nkeys > 0)
	{
		h->groups.clear();
		h->groups.reserve(h->inserted * h->L.words);
		for (uint64_t i = 0; i < h->cap; i++)
			if (entry_ready(h->tab[i * h->L.words]))
				h->groups.insert(h->groups.end(), h->tab.begin() + i * h->L.words,
								 h->tab.begin() + (i + 1) * h->L.words);
		res->ngroups = (int64_t) (h->groups.size() / h->L.words);
		res->grows = h->grows;
	}
	res->bytes_h2d = h->bytes;
	res->chunks = h->chunks;
	res->pages = h->pages;
	return PG_GPU_OK;
}

void
host_agg_group(host_agg *h, int64_t g, uint64_t *keys, uint32_t *nullmask, int64_t *rows,
			   pg_gpu_col_state *states)
{
	group_decode(&h->groups[(size_t) g * h->L.words], h->task, h->L, keys, nullmask, rows,
				 states);
}

void
host_agg_end(host_agg *h)
{
	delete h;
}
