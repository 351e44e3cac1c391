/*
 * sort_runs.cu — ORDER BY, the runs: a full run sorted and kept on the device or
 * copied to the host, the runs merged block by block, and the sorted tuples
 * handed to the executor in batches.
 *
 * sort_run_close orders the current run (sort_rows.cu) and gathers its first m
 * tuples from the page store.  The only run of a sort stays on the device: its
 * batches are gathered on out_stream, one filling while the executor reads the
 * other (batch_from_device).  Any other run goes to the host, with its offsets,
 * references and words, into buffers page-locked where the budget allows.  After
 * the scan, sort_merge (sort_merge.h) plans each merge block: the rows of every
 * run that sort before the block's bound are copied up, sorted on the device
 * with the same passes, and gathered into one batch (batch_from_runs).
 */
#include <string.h>
#include <unistd.h>

#include <algorithm>
#include <new>

#include "engine/primitives.cuh"
#include "engine/task.cuh"
#include "sort/sort_device.cuh"

namespace pg_gpu {
namespace cuda {

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


/*
 * Page-lock a run's host buffer for the GPU: its copies down after the run's sort
 * and up again in the merge then go at pinned speed instead of through the
 * driver's pageable staging (about 7 GB/s on the H100 host).  Registering costs
 * about 40 ms per GB, once.  At most a quarter of the machine's memory is locked
 * per sort; beyond that, or where registering fails, buffers are copied pageable.
 * The caller has reserved room in run_registered.
 */
static void
register_run_buffer(gpu_agg *agg, void *p, size_t bytes)
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
void
unregister_since(gpu_agg *agg, size_t nreg)
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
run_to_host(gpu_agg *agg, uint64_t m, const uint32_t *perm, const uint64_t *sref,
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
			gather_words_async(agg->sa.w[w], perm, scratch, m, blocks, agg->main_stream);
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

			gather_tuples_kernel<true><<<blocks, grid_policy::threads, 0, agg->main_stream>>>(
				(const char *) agg->d_store, nullptr, sref + r0, soff + r0, r1 - r0,
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
pg_gpu_status
sort_run_close(gpu_agg *agg, bool last, pg_gpu_error *err)
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

	if ((st = sync_slots(agg, err)) != PG_GPU_OK ||
		(st = stream_wait(agg->main_stream, err)) != PG_GPU_OK)
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
	if (m <= n / select_policy::topn_fraction && np > 0 &&
		(st = select_top_rows(agg->sa, blocks, n, m, ps, np, &perm, &nperm, agg->main_stream,
							  err)) != PG_GPU_OK)
		return st;
	if (perm)
		agg->topn_rows += nperm;
	else
	{
		/* no select (or too many ties at its threshold): every row is sorted */
		nperm = n;
		if ((st = sort_rows(agg->max_blocks, n, agg->sa.w, ps, np, &perm, agg->main_stream,
							err)) != PG_GPU_OK)
			return st;
	}
	/* the sort's kernels, waited for here so that a cancel is answered */
	if ((st = stream_wait(agg->main_stream, err)) != PG_GPU_OK)
		return st;
	if (ss.longs)
		st = check_ordered(agg->sa, perm, nperm, t, agg->d_flag, blocks, agg->main_stream, err);
	/* references and sizes of the first m rows, offsets by an exclusive scan */
	if (st == PG_GPU_OK &&
		(st = device_alloc(m * sizeof(uint64_t), (void **) &sref, err)) == PG_GPU_OK &&
		(st = device_alloc((m + 1) * sizeof(uint64_t), (void **) &soff, err)) == PG_GPU_OK &&
		(st = device_alloc((m + 1) * sizeof(uint64_t), (void **) &size, err)) == PG_GPU_OK)
	{
		sorted_refs_kernel<<<blocks, grid_policy::threads, 0, agg->main_stream>>>(
			agg->sa.ref, nullptr, perm, sref, nullptr, size, m);
		cudaMemsetAsync(size + m, 0, sizeof(uint64_t), agg->main_stream);
		st = scan_sizes(size, soff, m, agg->main_stream, err);
	}
	if (st == PG_GPU_OK)
		st = stream_wait(agg->main_stream, err);
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
pg_gpu_status
sort_finish(gpu_agg *agg, pg_gpu_agg_result *res, pg_gpu_error *err)
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
batch_from_device(gpu_agg *agg, gpu_agg::out_buf &o, pg_gpu_error *err)
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

	gather_tuples_kernel<true><<<agg->max_blocks, grid_policy::threads, 0, agg->out_stream>>>(
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
batch_from_runs(gpu_agg *agg, gpu_agg::out_buf &o, pg_gpu_error *err)
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
		add_kernel<<<blocks, grid_policy::threads, 0, agg->main_stream>>>(agg->blk_src + row0, k,
																		  byte0 - R.off[c]);
		PG_GPU_TRY(err, cudaMemcpy(agg->blk_tup + byte0, R.tuples.data() + R.off[c], bytes,
								   cudaMemcpyHostToDevice));
		mg.cur[r] += k;
		row0 += k;
		byte0 += bytes;
		agg->bytes += bytes + k * sizeof(uint64_t) * (agg->nwords + 2);
	}
	if ((st = sort_rows(agg->max_blocks, n, agg->blk_w, mg.passes, mg.npasses, &perm,
						agg->main_stream, err)) != PG_GPU_OK)
		return st;
	sorted_refs_kernel<<<blocks, grid_policy::threads, 0, agg->main_stream>>>(
		agg->blk_ref, agg->blk_src, perm, agg->blk_oref, agg->blk_osrc, agg->blk_size, n);
	cudaMemsetAsync(agg->blk_size + n, 0, sizeof(uint64_t), agg->main_stream);
	st = scan_sizes(agg->blk_size, agg->blk_off, n, agg->main_stream, err);
	device_free(perm);
	if (st != PG_GPU_OK)
		return st;
	gather_tuples_kernel<false><<<blocks, grid_policy::threads, 0, agg->main_stream>>>(
		agg->blk_tup, agg->blk_osrc, agg->blk_oref, agg->blk_off, n, 0, o.d);
	if ((st = stream_wait(agg->main_stream, err)) != PG_GPU_OK)
		return st;
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
batch_fill(gpu_agg *agg, gpu_agg::out_buf &o, pg_gpu_error *err)
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
pg_gpu_status
sort_next_batch(gpu_agg *agg, pg_gpu_sort_batch *out, pg_gpu_error *err)
{
	pg_gpu_status st;

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

	gpu_agg::out_buf &o = agg->out[agg->out_cur];

	if ((st = event_wait(o.ready, err)) != PG_GPU_OK)
		return st;
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

}							/* namespace cuda */
}							/* namespace pg_gpu */
