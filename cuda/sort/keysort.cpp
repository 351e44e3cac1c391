/*
 * keysort.cpp — GpuSort over a child plan (pg_gpu_keysort_*): the executor hands
 * over each row's key values, they are encoded into sort words here on the host,
 * and the words are ordered on the GPU (engine_sort_words, sort_rows.cu) or, when
 * emulated, by the same passes on the CPU (emulate/host_sort.h).  Host code: the
 * build without nvcc compiles it too.
 */
#include <algorithm>
#include <new>
#include <vector>

#include "emulate/emulate.h"
#include "emulate/host_sort.h"
#include "sort/sort.cuh"
#include "sort/sort_engine.h"

using namespace pg_gpu::cuda;

extern "C" int
pg_gpu_sort_words_ok(const pg_gpu_agg_task *task)
{
	return sort_row_words(*task) <= kMaxSortWords;
}

struct pg_gpu_keysort
{
	pg_gpu_agg_task task;
	int			nwords = 0;
	std::vector<std::vector<uint64_t>> words;	/* word w of row i: words[w][i] */
	sort_stats	seen = {};
	std::vector<uint32_t> order;
	host_sort_scratch scratch;	/* emulated */
	/* the GPU's or the emulation's ordering, chosen at begin (may throw bad_alloc) */
	pg_gpu_status (*order_rows) (pg_gpu_keysort *ks, uint64_t rows, const sort_pass *ps, int np,
								 double *gpu_ms, uint64_t *bytes_h2d, pg_gpu_error *err);
};

static pg_gpu_status
gpu_order_rows(pg_gpu_keysort *ks, uint64_t rows, const sort_pass *ps, int np, double *gpu_ms,
			   uint64_t *bytes_h2d, pg_gpu_error *err)
{
	std::vector<const uint64_t *> w(ks->nwords);

	for (int i = 0; i < ks->nwords; i++)
		w[i] = ks->words[i].data();
	ks->order.resize(rows);
	return engine_sort_words(ks->task, rows, w.data(), ps, np, ks->seen.longs != 0,
							 ks->order.data(), gpu_ms, bytes_h2d, err);
}

static pg_gpu_status
host_order_rows(pg_gpu_keysort *ks, uint64_t rows, const sort_pass *ps, int np, double *,
				uint64_t *, pg_gpu_error *err)
{
	auto		word = [&](uint64_t i, int w) { return ks->words[w][i]; };
	int			unordered = 0;

	if (!host_sort_perm(rows, ps, np, word, ks->order, ks->scratch))
		return cancelled(err);
	if (ks->seen.longs && (unordered = host_unordered(ks->task, ks->order, word)) != 0)
		return unordered < 0 ? cancelled(err) : host_error(err, PG_GPU_UNORDERED, kUnorderedMessage);
	return PG_GPU_OK;
}

static pg_gpu_keysort *keysort_new(const pg_gpu_agg_task *task, bool can_sort,
								   pg_gpu_error *err);

extern "C" pg_gpu_keysort *
pg_gpu_keysort_begin(const pg_gpu_agg_task *task, pg_gpu_error *err)
{
	if (!task->emulate && pg_gpu_engine_init(err) != PG_GPU_OK)
		return nullptr;
	return keysort_new(task, true, err);
}

extern "C" pg_gpu_keysort *
pg_gpu_keysort_begin_encode(const pg_gpu_agg_task *task, pg_gpu_error *err)
{
	return keysort_new(task, false, err);
}

static pg_gpu_status
no_order_rows(pg_gpu_keysort *, uint64_t, const sort_pass *, int, double *, uint64_t *,
			  pg_gpu_error *err)
{
	return host_error(err, PG_GPU_INVALID_TASK, "a key sort begun to encode only cannot sort");
}

static pg_gpu_keysort *
keysort_new(const pg_gpu_agg_task *task, bool can_sort, pg_gpu_error *err)
{
	if (!task->sort || task->nkeys < 1 || task->nkeys > PG_GPU_MAX_KEYS ||
		sort_row_words(*task) > kMaxSortWords)
	{
		host_error(err, PG_GPU_INVALID_TASK, "invalid sort task");
		return nullptr;
	}

	pg_gpu_keysort *ks = new (std::nothrow) pg_gpu_keysort();

	if (!ks)
	{
		host_error(err, PG_GPU_OUT_OF_MEMORY, "out of host memory");
		return nullptr;
	}
	ks->task = *task;
	ks->order_rows = !can_sort ? no_order_rows : task->emulate ? host_order_rows : gpu_order_rows;
	ks->nwords = sort_row_words(*task);
	ks->words.resize(ks->nwords);
	return ks;
}

extern "C" pg_gpu_status
pg_gpu_keysort_add(pg_gpu_keysort *ks, const uint64_t *vals, const uint32_t *lens, uint32_t nulls,
				   pg_gpu_error *err)
{
	const pg_gpu_agg_task &t = ks->task;
	pval		keys[PG_GPU_MAX_KEYS];
	uint64_t	wds[kMaxSortWords];
	uint32_t	nl,
				lg,
				kl[PG_GPU_MAX_KEYS];

	for (int k = 0; k < t.nkeys; k++)
	{
		keys[k].null = (nulls >> k) & 1;
		keys[k].bits = keys[k].null ? 0 : vals[k];
		keys[k].len = keys[k].null ? 0 : lens[k];
	}
	sort_encode(t, keys, wds, &nl, &lg, kl);
	try
	{
		for (int w = 0; w < ks->nwords; w++)
			ks->words[w].push_back(wds[w]);
	}
	catch (const std::bad_alloc &)
	{
		return host_error(err, PG_GPU_OUT_OF_MEMORY, "out of host memory for sort keys");
	}
	ks->seen.count++;
	ks->seen.nulls |= nl;
	ks->seen.longs |= lg;
	for (int k = 0; k < t.nkeys; k++)
		ks->seen.maxlen[k] = std::max(ks->seen.maxlen[k], kl[k]);
	return PG_GPU_OK;
}

extern "C" uint64_t
pg_gpu_keysort_bytes(const pg_gpu_keysort *ks)
{
	uint64_t	bytes = 0;

	for (const auto &w : ks->words)
		bytes += w.capacity() * sizeof(uint64_t);	/* as allocated: vectors double */
	return bytes;
}

extern "C" pg_gpu_status
pg_gpu_keysort_sort(pg_gpu_keysort *ks, const uint32_t **order, uint64_t *n, double *gpu_ms,
					uint64_t *bytes_h2d, pg_gpu_error *err)
{
	const pg_gpu_agg_task &t = ks->task;
	uint64_t	rows = ks->seen.count;
	sort_pass	ps[kMaxSortPasses];
	int			np = sort_passes(t, ks->seen.nulls, ks->seen.longs, ks->seen.maxlen, ps);
	pg_gpu_status st = PG_GPU_OK;

	*gpu_ms = 0;
	*bytes_h2d = 0;
	if (rows > 0x7FFFFFFFULL)
		return host_error(err, PG_GPU_OUT_OF_MEMORY, "too many rows for one GPU sort");
	try
	{
		st = ks->order_rows(ks, rows, ps, np, gpu_ms, bytes_h2d, err);
	}
	catch (const std::bad_alloc &)
	{
		return host_error(err, PG_GPU_OUT_OF_MEMORY, "out of host memory for the sort order");
	}
	if (st != PG_GPU_OK)
		return st;
	*order = ks->order.data();
	*n = (t.sort_limit > 0 && (uint64_t) t.sort_limit < rows) ? (uint64_t) t.sort_limit : rows;
	return PG_GPU_OK;
}

extern "C" void
pg_gpu_keysort_end(pg_gpu_keysort *ks)
{
	if (ks)
		host_delete_later(ks, pg_gpu_keysort_bytes(ks) + ks->scratch.bytes() +
						  ks->order.capacity() * sizeof(uint32_t));
}


extern "C" void
pg_gpu_keysort_shape_of(const pg_gpu_keysort *ks, pg_gpu_keysort_shape *out)
{
	out->rows = ks->seen.count;
	out->nwords = ks->nwords;
	out->nulls = ks->seen.nulls;
	out->longs = ks->seen.longs;
	for (int k = 0; k < PG_GPU_MAX_KEYS; k++)
		out->maxlen[k] = ks->seen.maxlen[k];
}

extern "C" const uint64_t *
pg_gpu_keysort_words(const pg_gpu_keysort *ks, int w)
{
	return (w >= 0 && w < ks->nwords) ? ks->words[w].data() : nullptr;
}

extern "C" pg_gpu_keysort *
pg_gpu_keysort_begin_words(const pg_gpu_agg_task *task, const pg_gpu_keysort_shape *shape,
						   pg_gpu_error *err)
{
	pg_gpu_keysort *ks = pg_gpu_keysort_begin(task, err);

	if (ks == nullptr)
		return nullptr;
	if (shape->nwords != ks->nwords || shape->rows > 0x7FFFFFFFULL)
	{
		pg_gpu_keysort_end(ks);
		host_error(err, PG_GPU_INVALID_TASK, "a key sort's shape does not match its task");
		return nullptr;
	}
	try
	{
		for (auto &w : ks->words)
			w.assign(shape->rows, 0);
	}
	catch (const std::bad_alloc &)
	{
		pg_gpu_keysort_end(ks);
		host_error(err, PG_GPU_OUT_OF_MEMORY, "out of host memory for sort keys");
		return nullptr;
	}
	ks->seen.count = shape->rows;
	ks->seen.nulls = shape->nulls;
	ks->seen.longs = shape->longs;
	for (int k = 0; k < PG_GPU_MAX_KEYS; k++)
		ks->seen.maxlen[k] = shape->maxlen[k];
	return ks;
}

extern "C" pg_gpu_status
pg_gpu_keysort_put(pg_gpu_keysort *ks, int w, uint64_t first, uint64_t n, const uint64_t *words,
				   pg_gpu_error *err)
{
	if (w < 0 || w >= ks->nwords || first > ks->seen.count || n > ks->seen.count - first)
		return host_error(err, PG_GPU_INVALID_TASK, "sort words outside the key sort");
	std::copy(words, words + n, ks->words[w].begin() + first);
	return PG_GPU_OK;
}
