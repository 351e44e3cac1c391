/*
 * agg_host.cpp — the CPU twin of a GpuAgg, GpuSort or collect task
 * (pg_gpu.emulate_gpu), behind the same function table as the GPU (engine/agg_api.h).
 *
 * It keeps the GPU's protocol — slots of page references and bitmaps, chunks
 * submitted in order, finish, then groups, sorted batches or a key set — and runs
 * each chunk at once, page by page with the same walker (scan/page_walk.cuh) and
 * the same per-tuple code (heap_deform.cuh, expr.cuh).  What differs from the GPU
 * is only how the work is spread, never the arithmetic:
 *
 *   plain      states folded serially (accum_page_serial).
 *   GROUP BY   the GPU's hash table code (group.cuh) with plain operations in place
 *              of atomics, including a small per-chunk table merged into the global
 *              one, as each thread block's shared-memory table is, so CI exercises
 *              the merge rules; text keys go to arena blocks that never move.
 *   ORDER BY   runs shaped by the same sort_plan_shape, each sorted by the GPU's
 *              passes done as stable sorts (host_sort.h) and checked for neighbours
 *              the words cannot order; several runs merge block by block through
 *              the same sort_merge as on the GPU, with small batches so the tests
 *              cross their boundaries.  (No top-N select: it would pick the same
 *              rows.)
 *   collect    the passing rows' keys, handed to an emulated key set.
 *
 * Everything here runs on the caller's thread, so it asks the caller's cancel
 * callback (engine/error.h) itself: before each page, and between slices of the
 * sorts and copies; a cancelled call answers PG_GPU_CANCELLED.
 */
#include <stdio.h>
#include <string.h>

#include <algorithm>
#include <memory>
#include <new>
#include <vector>

#include "emulate/block_array.h"
#include "emulate/emulate.h"
#include "engine/error.h"
#include "group/group.cuh"
#include "keyset/keyset_engine.h"
#include "emulate/host_sort.h"
#include "scan/page_walk.cuh"
#include "sort/sort.cuh"
#include "sort/sort_merge.h"

using namespace pg_gpu::cuda;

static_assert(((1ULL << 20) % PG_GPU_BLCKSZ) == 0, "a page never straddles two store blocks");

static const uint64_t kLocalCap = 64;	/* the emulated "shared-memory" table */
static const uint64_t kLocalStr = 512;	/* and its text keys' bytes (small, so the
										 * tests meet a full one) */

struct host_agg : pg_gpu_agg
{
	pg_gpu_agg_task task;
	int			capacity;
	std::vector<pg_gpu_page_ref> refs[PG_GPU_AGG_SLOTS];
	std::vector<uint32_t> vis[PG_GPU_AGG_SLOTS];
	std::vector<char> staging[PG_GPU_AGG_SLOTS];
	/* task.cc: each slot's cache part */
	pg_gpu_cc_chunk cc[PG_GPU_AGG_SLOTS] = {};
	std::vector<pg_gpu_cc_range> ranges[PG_GPU_AGG_SLOTS];
	std::vector<uint64_t> fill_row[PG_GPU_AGG_SLOTS];
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

	/* ORDER BY: the current run's pages and rows' sort words, as on the GPU */
	sort_shape	shape = {};
	int			nwords = 0;
	block_array<uint8_t> store;
	int64_t		run_page0 = 0;
	block_array<uint64_t> words;	/* nwords per row */
	block_array<uint64_t> rowref;
	std::vector<uint32_t> idx;	/* the run's order */
	host_sort_scratch scratch;
	sort_stats	run = {};		/* the current run's (count: rowref's size) */
	sort_stats	seen = {};		/* every run's */
	sort_merge	merge;			/* runs closed */
	/* the sorted rows: a one-run sort's, or the current merge block's */
	raw_vector<char> out;
	raw_vector<uint64_t> off;
	raw_vector<uint64_t> sorted_ref;
	uint64_t	nsorted = 0;	/* rows to hand out */
	uint64_t	next_row = 0;	/* of out (one run) */
	uint64_t	emitted = 0;	/* merge: rows handed out */

	/* collect: the passing rows' keys, integers or text (bytes and offsets) */
	std::vector<int64_t> cvals;
	std::vector<int64_t> caux;	/* a task with an aux value: each key's */
	std::vector<uint64_t> cpay;	/* a task with a payload: each key's words */
	std::vector<uint8_t> cpay_null;
	std::vector<uint8_t> cdata;
	std::vector<uint64_t> coff;
	bool		cnull = false;
	bool		ctaken = false;	/* handed over as a key set */
};

/* small, so that the tests cross batch boundaries */
static const uint64_t kHostSortBatch = 64 * 1024;

/* One page of a sort task: keep it, and each passing tuple's words. */
static int
sort_page(host_agg *h, const uint8_t *page, int nlp, const uint32_t *vis)
{
	const pg_gpu_agg_task &t = h->task;
	uint64_t	ord = (uint64_t) h->run_page0 + h->store.size() / PG_GPU_BLCKSZ;

	memcpy(h->store.append(PG_GPU_BLCKSZ), page, PG_GPU_BLCKSZ);
	return for_each_tuple(page, nlp, vis, [&](int i, const uint8_t *tup, uint32_t len) {
		pval		keys[PG_GPU_MAX_KEYS];
		uint64_t	wds[kMaxSortWords];
		uint32_t	nl,
					lg,
					lens[PG_GPU_MAX_KEYS];
		/* TUP_OK, or a weighted task's weight: the row is handed out r times */
		int			r = eval_tuple(tup, len, t, nullptr, keys);

		if (r <= 0)
			return r;
		sort_encode(t, keys, wds, &nl, &lg, lens);
		for (int c = 0; c < r; c++)
		{
			uint64_t	rr = sort_ref(ord, (uint32_t) i + 1, len);

			h->words.push(wds, h->nwords);
			h->rowref.push(&rr, 1);
		}
		h->run.count += r;
		h->run.nulls |= nl;
		h->run.longs |= lg;
		for (int k = 0; k < t.nkeys; k++)
			h->run.maxlen[k] = std::max(h->run.maxlen[k], lens[k]);
		return 1;
	});
}

/*
 * One page of a collect task: each passing row's key (and its aux beside it,
 * where the task has one: a row of a NULL aux is left out).
 */
static int64_t
collect_page(host_agg *h, const uint8_t *page, int nlp, const uint32_t *vis)
{
	const pg_gpu_agg_task &t = h->task;

	return for_each_tuple(page, nlp, vis, [&](int, const uint8_t *tup, uint32_t len) {
		pval		kv[PG_GPU_MAX_KEYS];
		pval	   &k = kv[0];
		int			r = eval_tuple(tup, len, t, nullptr, kv);

		if (r != TUP_OK)
			return r < 0 ? r : 0;
		if (k.null)
			h->cnull = true;
		else if (t.collect_pay > 0)
		{
			/* the row's payload beside its key, as collect.cu writes it */
			h->cvals.push_back((int64_t) k.bits);
			for (int j = 0; j < t.collect_pay; j++)
			{
				const pval &p = kv[1 + j];

				h->cpay.push_back(p.null ? 0
								  : t.keys[1 + j].type == PG_GPU_BOOL ? (uint64_t) (p.bits != 0)
								  : p.bits);
				h->cpay_null.push_back(p.null ? 1 : 0);
			}
		}
		else if (t.nkeys == 2)
		{
			if (!kv[1].null)
			{
				h->cvals.push_back((int64_t) k.bits);
				h->caux.push_back((int64_t) kv[1].bits);
			}
		}
		else if (!is_text_type(t.keys[0].type))
			h->cvals.push_back((int64_t) k.bits);
		else
		{
			const uint8_t *p = (const uint8_t *) (uintptr_t) k.bits;

			h->cdata.insert(h->cdata.end(), p, p + k.len);
			h->coff.push_back(h->cdata.size());
		}
		return 1;
	});
}

/* PG_GPU_TOASTED's message, as cuda/engine/task.cu gives it */
static const char kToastedMessage[] =
	"a text value is compressed, stored out of line or too long for its column cache cell";

pg_gpu_status
host_error(pg_gpu_error *err, pg_gpu_status st, const char *msg)
{
	err->status = st;
	snprintf(err->message, sizeof(err->message), "%s", msg);
	return st;
}

/*
 * Close the current run: sort it; the only run of a sort stays as the output, any
 * other becomes a sort_run for the merge (sort/sort_runs.cu's sort_run_close).
 */
static pg_gpu_status
sort_close_run(host_agg *h, bool last, pg_gpu_error *err)
{
	const pg_gpu_agg_task &t = h->task;
	uint64_t	n = h->rowref.size();
	uint64_t	m = (t.sort_limit > 0 && (uint64_t) t.sort_limit < n) ? (uint64_t) t.sort_limit : n;
	int			nw = h->nwords;
	bool		keep = last && h->merge.runs.empty();
	sort_pass	ps[kMaxSortPasses];
	int			np = sort_passes(t, h->run.nulls, h->run.longs, h->run.maxlen, ps);
	auto		word = [&](uint64_t i, int w) { return h->words[i * nw + w]; };
	std::vector<uint32_t> &idx = h->idx;
	int			unordered = 0;

	if (!host_sort_perm(n, ps, np, word, idx, h->scratch))
		return cancelled(err);
	sort_stats_add(h->seen, h->run);
	if (h->run.longs && (unordered = host_unordered(t, idx, word)) != 0)
		return unordered < 0 ? cancelled(err) : host_error(err, PG_GPU_UNORDERED, kUnorderedMessage);

	/*
	 * Built in the handle's buffers (not zeroed: every byte is written), so that
	 * a cancel leaves them to the handle's end, which gives them back on a
	 * thread of its own.
	 */
	raw_vector<uint64_t> &off = h->off,
			   &ref = h->sorted_ref;
	raw_vector<char> &tuples = h->out;

	off.resize(m + 1);
	ref.resize(m);
	off[0] = 0;
	if (!cancellable_for(m, [&](uint64_t i) {
		ref[i] = h->rowref[idx[i]];
		off[i + 1] = off[i] + (((ref[i] & 0xFFFF) + 7) & ~7ULL);
	}))
		return cancelled(err);
	tuples.resize(off[m]);
	if (!cancellable_for(m, [&](uint64_t i) {
		const uint8_t *pg = &h->store[((ref[i] >> 32) - h->run_page0) * PG_GPU_BLCKSZ];
		uint32_t	lp = (uint32_t) (ref[i] >> 16) & 0xFFFF;
		uint32_t	len = ref[i] & 0xFFFF;
		uint32_t	w;

		memcpy(&w, pg + PG_GPU_PAGE_HEADER_SIZE + 4 * (lp - 1), 4);
		memcpy(tuples.data() + off[i], pg + PG_GPU_LP_OFF(w), len);
		memset(tuples.data() + off[i] + len, 0, off[i + 1] - off[i] - len);
	}))
		return cancelled(err);
	if (keep)
	{
		h->nsorted = m;
		h->next_row = 0;
	}
	else if (n > 0)
	{
		sort_run	R;

		R.n = m;
		R.words.resize((size_t) nw * m);
		if (!cancellable_for(m, [&](uint64_t i) {
			for (int w = 0; w < nw; w++)
				R.words[(size_t) w * m + i] = word(idx[i], w);
		}))
			return cancelled(err);
		R.tuples.swap(tuples);
		R.off.swap(off);
		R.ref.swap(ref);
		h->merge.runs.push_back(std::move(R));
	}
	h->run_page0 = h->pages;
	h->store.clear();
	h->words.clear();
	h->rowref.clear();
	h->run = sort_stats();
	return PG_GPU_OK;
}

/* Before a chunk: a new run when this one cannot take it (sort_reserve). */
static pg_gpu_status
sort_reserve_host(host_agg *h, int npages, uint64_t tuples, pg_gpu_error *err)
{
	/* an inner join's rows, each repeated up to sort_repeat_bound times */
	if (h->task.weight.len > 0 &&
		(tuples *= sort_repeat_bound(h->task)) > h->shape.run_rows)
		return host_error(err, PG_GPU_OUT_OF_MEMORY, "join keys repeat too often for one sort run");
	if ((int64_t) (h->store.size() / PG_GPU_BLCKSZ) + npages > h->shape.run_pages ||
		h->rowref.size() + tuples > h->shape.run_rows)
		return sort_close_run(h, false, err);
	return PG_GPU_OK;
}

static pg_gpu_status
sort_finish_host(host_agg *h, pg_gpu_error *err)
{
	const pg_gpu_agg_task &t = h->task;
	sort_merge &mg = h->merge;
	const char *why = nullptr;
	pg_gpu_status st;

	if ((st = sort_close_run(h, true, err)) != PG_GPU_OK)
		return st;
	if (mg.runs.empty())
		return PG_GPU_OK;
	if ((st = mg.start(t, h->seen, h->shape.batch_bytes / PG_GPU_BLCKSZ, &h->nsorted,
					   &why)) != PG_GPU_OK)
		return host_error(err, st, why);
	h->emitted = 0;
	return PG_GPU_OK;
}

/* The next merge block, sorted as the GPU sorts it, as the output batch. */
static pg_gpu_status
merge_block_host(host_agg *h, pg_gpu_sort_batch *out, pg_gpu_error *err)
{
	sort_merge &mg = h->merge;
	std::vector<uint64_t> take;
	uint64_t	n = mg.plan(h->shape.merge_rows, h->shape.batch_bytes, take);
	std::vector<std::pair<int, uint64_t>> rows;	/* (run, row) */

	rows.reserve(n);
	for (size_t r = 0; r < take.size(); r++)
	{
		for (uint64_t i = 0; i < take[r]; i++)
			rows.emplace_back((int) r, mg.cur[r] + i);
		mg.cur[r] += take[r];
	}
	std::vector<uint32_t> &idx = h->idx;

	if (!host_sort_perm(n, mg.passes, mg.npasses, [&](uint64_t i, int w) {
		return mg.word(rows[i].first, rows[i].second, w);
	}, idx, h->scratch))
		return cancelled(err);

	h->off.assign(n + 1, 0);
	h->sorted_ref.assign(n, 0);
	for (uint64_t i = 0; i < n; i++)
	{
		const sort_run &R = mg.runs[rows[idx[i]].first];
		uint64_t	j = rows[idx[i]].second;

		h->sorted_ref[i] = R.ref[j];
		h->off[i + 1] = h->off[i] + (R.off[j + 1] - R.off[j]);
	}
	h->out.assign(h->off[n], 0);
	for (uint64_t i = 0; i < n; i++)
	{
		const sort_run &R = mg.runs[rows[idx[i]].first];
		uint64_t	j = rows[idx[i]].second;

		memcpy(h->out.data() + h->off[i], R.tuples.data() + R.off[j], R.off[j + 1] - R.off[j]);
	}
	if (h->emitted + n > h->nsorted)
		n = h->nsorted - h->emitted;
	h->emitted += n;
	out->nrows = (int64_t) n;
	out->data = h->out.data();
	out->off = h->off.data();
	out->ref = h->sorted_ref.data();
	return PG_GPU_OK;
}

static pg_gpu_status
host_agg_sort_next(host_agg *h, pg_gpu_sort_batch *out, pg_gpu_error *err)
{
	uint64_t	m = h->nsorted;
	uint64_t	r0 = h->next_row;
	uint64_t	r1 = r0;

	memset(out, 0, sizeof(*out));
	if (!h->merge.runs.empty())
	{
		if (h->emitted < h->nsorted)
			return merge_block_host(h, out, err);
		return PG_GPU_OK;
	}
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

/* Room in the arena for one page's new text keys (group/group.cu's arena_reserve). */
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

/* One grouped row (the caller made room); 1, 0 or a negative TUP_* code. */
template <typename Row>
static int
group_row(host_agg *h, const Row &row, str_arena &ar, str_arena &lar)
{
	const pg_gpu_agg_task &t = h->task;

	pval		in[PG_GPU_MAX_AGG_COLS];
	pval		keys[PG_GPU_MAX_KEYS];
	group_key	gk;
	int			r = eval_row(row, t, in, keys);

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
}

/* One grouped page; returns passing rows or a negative TUP_* code. */
static int
group_page(host_agg *h, const uint8_t *page, int nlp, const uint32_t *vis)
{
	host_grow(h, (uint64_t) nlp + kLocalCap);
	host_arena_reserve(h, nlp);

	str_arena	ar = host_arena(h);
	str_arena	lar = {h->local_str.data(), &h->local_str_fill, kLocalStr};

	return for_each_tuple(page, nlp, vis, [&](int, const uint8_t *tup, uint32_t len) {
		return group_row(h, heap_row{tup, len}, ar, lar);
	});
}

/*
 * Cached rows (task.cc): the rows of a range, a page's worth at a time as the
 * GPU's table sees them; passing rows or a negative TUP_* code.
 */
static int64_t
range_rows(host_agg *h, const pg_gpu_cc_range &rg)
{
	const pg_gpu_cc_seg *seg = (const pg_gpu_cc_seg *) (uintptr_t) rg.seg;
	const uint8_t *valid = (const uint8_t *) (uintptr_t) seg->valid;
	const bool	grouped = h->task.nkeys > 0;
	int64_t		rows = 0;

	for (uint64_t k0 = 0; k0 < rg.nrows; k0 += 256)
	{
		uint64_t	k1 = std::min<uint64_t>(rg.nrows, k0 + 256);

		if (grouped)
		{
			host_grow(h, (k1 - k0) + kLocalCap);
			host_arena_reserve(h, (int) (k1 - k0));
		}
		str_arena	ar = host_arena(h);
		str_arena	lar = {h->local_str.data(), &h->local_str_fill, kLocalStr};

		for (uint64_t k = k0; k < k1; k++)
		{
			cc_row		row{seg, rg.row + k};
			int			r;

			if (!valid[rg.row + k])
				continue;
			r = grouped ? group_row(h, row, ar, lar) : accum_row(row, h->task, h->acc);
			if (r < 0)
				return r;
			rows += r;
		}
		if (grouped && !flush_local(h))
			return TUP_BAD;
	}
	return rows;
}

/*
 * Deform the page into the segment being filled (cc_fill.cu's twin): line
 * pointer i becomes row base + i; false when a tuple cannot be decoded.
 */
static bool
fill_page(const pg_gpu_cc_chunk &cc, const pg_gpu_cc_seg &hdr, uint64_t base,
		  const uint8_t *page, int nlp, const uint32_t *vis)
{
	uint8_t    *valid = (uint8_t *) (uintptr_t) hdr.valid;

	for (int i = 0; i < nlp; i++)
	{
		const uint8_t *tup = nullptr;
		uint32_t	len = 0;
		int			v = page_tuple(page, vis, i, &tup, &len);
		uint64_t	r = base + i;
		bool		ok = true;

		valid[r] = 0;
		if (v == 0)
			continue;
		if (v < 0 || !deform_tuple(tup, len, *cc.fill_layout, [&](int c, const uint8_t *src) {
			if (hdr.nulls[c])
				((uint8_t *) (uintptr_t) hdr.nulls[c])[r] = src == nullptr;
			if (src && cc.fill_layout->cols[c].type == PG_GPU_DECIMAL)
				cc_store_decimal((uint64_t *) (uintptr_t) hdr.vals[c] + 2 * r, src,
								 cc.fill_layout->cols[c].scale);
			else if (src && cc.fill_layout->cols[c].type == PG_GPU_TEXT)
				cc_store_text((uint8_t *) (uintptr_t) hdr.vals[c] + r * (uint64_t) hdr.width[c], src,
							  hdr.width[c]);
			else if (src)
				memcpy((uint8_t *) (uintptr_t) hdr.vals[c] + r * (uint64_t) hdr.width[c], src,
					   hdr.width[c]);
			else if (!hdr.nulls[c])
				ok = false;
		}) || !ok)
			return false;
		valid[r] = 1;
	}
	return true;
}

static host_agg *
host_agg_begin(const pg_gpu_agg_task *task, pg_gpu_error *err)
{
	host_agg   *h = new (std::nothrow) host_agg();

	if (!h)
	{
		err->status = PG_GPU_OUT_OF_MEMORY;
		snprintf(err->message, sizeof(err->message), "out of host memory");
		return nullptr;
	}
	/* a bad_alloc below goes on to the caller (the service's catch) without a leak */
	std::unique_ptr<host_agg> owner(h);

	h->task = *task;
	h->capacity = task->chunk_pages;
	if (task->sort)
	{
		h->nwords = sort_row_words(*task);
		if (!sort_plan_shape(task->sort_budget > 0 ? (uint64_t) task->sort_budget : (1ULL << 62),
							 h->nwords, h->capacity, task->gather != 0, &h->shape))
		{
			host_error(err, PG_GPU_OUT_OF_MEMORY, "the GPU memory budget is too small to sort");
			return nullptr;
		}
		h->capacity = h->shape.chunk_pages;
	}
	for (int s = 0; s < PG_GPU_AGG_SLOTS; s++)
	{
		h->refs[s].resize(h->capacity);
		h->vis[s].resize((size_t) h->capacity * PG_GPU_VIS_WORDS);
		if (task->gather)
			h->staging[s].resize((size_t) h->capacity * PG_GPU_BLCKSZ);
		if (task->cc)
		{
			h->ranges[s].resize(PG_GPU_CC_MAX_RANGES + 1);
			h->fill_row[s].resize(h->capacity);
			h->cc[s].ranges = h->ranges[s].data();
			h->cc[s].fill_row = h->fill_row[s].data();
		}
	}
	for (int c = 0; c < task->ninputs; c++)
		state_init(h->acc[c], task->inputs[c].type);
	make_group_layout(h->task, h->L);
	h->coff.assign(1, 0);
	if (task->nkeys > 0 && !task->sort && !task->collect)
	{
		h->cap = 1024;
		h->tab.assign(h->cap * h->L.words, 0);
		h->local.assign(kLocalCap * h->L.words, 0);
		h->ntext = text_keys(h->task);
		h->local_str.assign(kLocalStr, 0);
	}
	return owner.release();
}

static pg_gpu_status
host_agg_slot_get(host_agg *h, int slot, pg_gpu_agg_slot *out)
{
	out->slot = slot;
	out->capacity = h->capacity;
	out->refs = h->refs[slot].data();
	out->vis = h->vis[slot].data();
	out->staging = h->staging[slot].data();
	out->cc = h->task.cc ? &h->cc[slot] : nullptr;
	return PG_GPU_OK;
}

static pg_gpu_status
host_agg_submit(host_agg *h, int slot, int npages, int nvis, pg_gpu_error *err)
{
	if (h->task.sort)
	{
		uint64_t	tuples = 0;
		pg_gpu_status st;

		for (int p = 0; p < npages; p++)
			tuples += h->refs[slot][p].nlp;
		if ((st = sort_reserve_host(h, npages, tuples, err)) != PG_GPU_OK)
			return st;
	}
	pg_gpu_cc_chunk &cc = h->cc[slot];
	pg_gpu_cc_seg hdr = {};

	if (h->task.cc && (cc.nranges < 0 || cc.nranges > PG_GPU_CC_MAX_RANGES ||
					   h->task.sort || h->task.collect))
		return host_error(err, PG_GPU_INVALID_TASK, "bad cached rows for the task");
	if (h->task.cc && cc.fill_seg)
	{
		pg_gpu_cc_seg_layout(cc.fill_layout, cc.fill_rows, cc.fill_seg, &hdr);
		memcpy((void *) (uintptr_t) cc.fill_seg, &hdr, sizeof(hdr));
	}
	for (int p = 0; p < npages && !h->expr_error; p++)
	{
		const pg_gpu_page_ref &ref = h->refs[slot][p];

		/* a page takes tens of microseconds: ask before each */
		if (cancel_requested())
			return cancelled(err);

		/* a page being filled: its rows are read from the segment (below) */
		if (h->task.cc && cc.fill_seg && cc.fill_row[p] != UINT64_MAX)
		{
			const uint32_t *fvis = ref.vis_idx >= 0
				? h->vis[slot].data() + (size_t) ref.vis_idx * PG_GPU_VIS_WORDS : nullptr;

			if (!fill_page(cc, hdr, cc.fill_row[p], (const uint8_t *) (uintptr_t) ref.addr,
						   ref.nlp, fvis))
				return host_error(err, PG_GPU_BAD_PAGE,
								  "the emulated GPU met a heap page it cannot decode");
			continue;
		}
		/* gather: the caller's copy; in place: the page itself (ref.addr) */
		const uint8_t *page = h->task.gather
			? (const uint8_t *) h->staging[slot].data() + (size_t) p * PG_GPU_BLCKSZ
			: (const uint8_t *) (uintptr_t) ref.addr;

		/* a table cache being filled: read the page from its copy, as the GPU does */
		if (h->task.cache_fill && h->pages + npages <= h->task.cache_pages)
		{
			uint8_t    *dst = (uint8_t *) (uintptr_t) h->task.cache_fill +
				(size_t) (h->pages + p) * PG_GPU_BLCKSZ;

			memcpy(dst, page, PG_GPU_BLCKSZ);
			page = dst;
		}
		const uint32_t *vis = ref.vis_idx >= 0
			? h->vis[slot].data() + (size_t) ref.vis_idx * PG_GPU_VIS_WORDS : nullptr;
		int64_t		r = h->task.sort ? sort_page(h, page, ref.nlp, vis)
			: h->task.collect ? collect_page(h, page, ref.nlp, vis)
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
			snprintf(err->message, sizeof(err->message), "%s", kToastedMessage);
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
	if (h->task.cc)
	{
		if (cc.fill_seg)
			cc.ranges[cc.nranges++] = {cc.fill_seg, 0, cc.fill_rows};
		for (int i = 0; i < cc.nranges && !h->expr_error; i++)
		{
			int64_t		r = range_rows(h, cc.ranges[i]);

			if (r == TUP_EXPR_ERROR)
				h->expr_error = 1;
			else if (r < 0)
			{
				cc.nranges = 0;
				cc.fill_seg = 0;
				if (r == TUP_TOASTED)	/* a text cell marked bad: as the kernels' tup_status */
					return host_error(err, PG_GPU_TOASTED, kToastedMessage);
				return host_error(err, PG_GPU_BAD_PAGE, "the emulated GPU met a cached row it cannot read");
			}
			else
				h->rows += r;
		}
		cc.nranges = 0;
		cc.fill_seg = 0;
	}
	if (h->task.nkeys > 0 && !h->task.sort && !h->task.collect && !flush_local(h))
	{
		err->status = PG_GPU_INVALID_TASK;
		snprintf(err->message, sizeof(err->message), "the emulated hash table overflowed");
		return PG_GPU_INVALID_TASK;
	}
	h->pages += npages;
	h->chunks++;
	h->bytes += (uint64_t) npages * ((h->task.pages_resident ? 0 : PG_GPU_BLCKSZ) +
									  sizeof(pg_gpu_page_ref)) +
		(uint64_t) nvis * PG_GPU_VIS_WORDS * sizeof(uint32_t);
	return PG_GPU_OK;
}

static pg_gpu_status
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
		pg_gpu_status st = sort_finish_host(h, err);

		if (st != PG_GPU_OK)
			return st;
		res->nrows = (int64_t) h->seen.count;
		res->sort_runs = (int32_t) h->merge.runs.size();
	}
	else if (h->task.nkeys > 0 && !h->task.collect)
	{
		/* seeded groups: every key of the seed set (group.cu's group_seed) */
		if (h->task.seed_set > 0)
		{
			const pg_gpu_set_ref &s = h->task.sets[h->task.seed_set - 1];
			const uint64_t *slots = (const uint64_t *) (uintptr_t) s.tab;

			host_grow(h, (uint64_t) h->task.seed_n);
			for (uint64_t i = 0; i <= s.mask; i++)
			{
				group_key	gk;

				if (seed_key(slots[i], (const int64_t *) (uintptr_t) s.vals, gk) &&
					group_find<HostAtomics>(h->tab.data(), h->cap - 1, h->task, h->L, gk,
											key_hash(gk.w, 1), nullptr, 0, &h->inserted,
											nullptr) < 0)
				{
					err->status = PG_GPU_INVALID_TASK;
					snprintf(err->message, sizeof(err->message),
							 "the emulated hash table overflowed");
					return PG_GPU_INVALID_TASK;
				}
			}
		}
		h->groups.clear();
		h->groups.reserve(h->inserted * h->L.words);
		for (uint64_t i = 0; i < h->cap; i++)
			if (entry_ready(h->tab[i * h->L.words]) &&
				(h->task.nhaving == 0 || group_having_pass(&h->tab[i * h->L.words], h->task, h->L)))
				h->groups.insert(h->groups.end(), h->tab.begin() + i * h->L.words,
								 h->tab.begin() + (i + 1) * h->L.words);
		res->ngroups = (int64_t) (h->groups.size() / h->L.words);
		res->groups_dropped = (int64_t) h->inserted - res->ngroups;
		res->grows = h->grows;
		res->group_flags = groups_flags(h->groups.data(), res->ngroups, h->task, h->L);
	}
	res->bytes_h2d = h->bytes;
	res->chunks = h->chunks;
	res->pages = h->pages;
	return PG_GPU_OK;
}

static void
host_agg_group(host_agg *h, int64_t g, uint64_t *keys, uint32_t *nullmask, int64_t *rows,
			   pg_gpu_col_state *states)
{
	group_decode(&h->groups[(size_t) g * h->L.words], h->task, h->L, keys, nullmask, rows,
				 states);
}

static void
host_agg_end(host_agg *h)
{
	uint64_t	bytes = h->store.bytes() + h->words.bytes() + h->rowref.bytes() +
		h->scratch.bytes() + h->idx.capacity() * sizeof(uint32_t) + h->out.capacity() +
		(h->off.capacity() + h->sorted_ref.capacity()) * sizeof(uint64_t);

	for (const sort_run &R : h->merge.runs)
		bytes += R.tuples.capacity() + R.words.capacity() * sizeof(uint64_t);
	host_delete_later(h, bytes);
}

static pg_gpu_keyset *
host_agg_keyset(host_agg *h, int type, uint64_t *keys, int *has_null, pg_gpu_error *err)
{
	bool		text = is_text_type(h->task.keys[0].type);
	uint64_t	n = text ? h->coff.size() - 1 : h->cvals.size();
	pg_gpu_keyset *ks;

	if (!h->task.collect || is_text_type(type) != text || h->ctaken)
	{
		host_error(err, PG_GPU_INVALID_TASK, "not a collect task of this key type");
		return nullptr;
	}
	ks = pg_gpu_keyset_build(type, n, h->cvals.data(), (const char *) h->cdata.data(),
							 h->coff.data(), 1, err);
	/* each key's least and greatest aux, beside it; or its row's payload */
	if (ks != nullptr &&
		(h->task.collect_pay > 0
		 ? keyset_payload_rows_host(ks, h->task.collect_pay, h->cpay.data(), h->cpay_null.data(),
									err) != PG_GPU_OK
		 : h->task.nkeys == 2 && keyset_minmax_host(ks, h->caux.data(), err) != PG_GPU_OK))
	{
		pg_gpu_keyset_free(ks);
		ks = nullptr;
	}
	h->ctaken = true;
	*keys = n;
	*has_null = h->cnull ? 1 : 0;
	return ks;
}

/* ---- the handle's function table (engine/agg_api.h) ---------------------- */

static host_agg *
H(pg_gpu_agg *a)
{
	return static_cast<host_agg *>(a);
}

static const agg_ops host_ops = {
	[](pg_gpu_agg *, int) { return 1; },
	[](pg_gpu_agg *a, int slot, pg_gpu_agg_slot *out) { return host_agg_slot_get(H(a), slot, out); },
	[](pg_gpu_agg *a, int slot, int npages, int nvis, pg_gpu_error *err) {
		return host_agg_submit(H(a), slot, npages, nvis, err);
	},
	[](pg_gpu_agg *a, pg_gpu_agg_result *res, pg_gpu_error *err) {
		return host_agg_finish(H(a), res, err);
	},
	[](pg_gpu_agg *a, int64_t g, uint64_t *keys, uint32_t *nullmask, int64_t *rows,
	   pg_gpu_col_state *states) { host_agg_group(H(a), g, keys, nullmask, rows, states); },
	[](pg_gpu_agg *a, pg_gpu_sort_batch *out, pg_gpu_error *err) {
		return host_agg_sort_next(H(a), out, err);
	},
	[](pg_gpu_agg *a, int type, uint64_t *keys, int *has_null, pg_gpu_error *err) {
		return host_agg_keyset(H(a), type, keys, has_null, err);
	},
	[](pg_gpu_agg *a) { host_agg_end(H(a)); },
};

pg_gpu_agg *
emulate_agg_begin(const pg_gpu_agg_task *task, pg_gpu_error *err)
{
	host_agg   *h = host_agg_begin(task, err);

	if (h)
		h->ops = &host_ops;
	return h;
}
