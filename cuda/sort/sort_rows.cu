/*
 * sort_rows.cu — ORDER BY, the ordering: stable LSD radix passes over the rows'
 * sort words (CUB), a top-N select for small LIMITs, and the check that the words
 * ordered every neighbour (long text keys).
 *
 * A sort's keys are encoded into 64-bit words (sort.cuh); sort_passes picks the
 * (word, bit range) passes that can differ, least significant first, and each
 * pass is one cub::DeviceRadixSort over (word, row index) pairs, so the order
 * of equal keys is the scan order, as PostgreSQL's stable sort leaves it.
 * With LIMIT m and m <= n / select_policy::topn_fraction, a radix select over the
 * most significant pass first finds the m-th smallest value; only the rows at or
 * below it are sorted.  When more than half the rows tie there, selecting saves
 * nothing and every row is sorted.  Text keys longer than their words hold leave
 * neighbours the words cannot order: check_ordered finds them, and the task
 * answers PG_GPU_UNORDERED (the executor then sorts on the CPU).
 *
 * Every function here runs on the stream it is given and returns after a
 * blocking copy of its result; run, merge and key-sort callers give the
 * thread's default stream (engine_internal.cuh).
 */
#include "cub.cuh"

#include "engine/primitives.cuh"
#include "engine/task.cuh"
#include "sort/sort_device.cuh"
#include "sort/sort_engine.h"

namespace pg_gpu {
namespace cuda {

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
 * Top-N selection, one radix digit (8 bits at shift) of the most significant pass
 * p: a histogram of the digit over the rows whose higher bits equal prefix.
 */
__global__ void
select_hist_kernel(const uint64_t *w, uint64_t n, sort_pass p, uint64_t mask, uint64_t prefix,
				   int shift, unsigned long long *hist)
{
	__shared__ unsigned int h[select_policy::buckets];

	for (int i = threadIdx.x; i < select_policy::buckets; i += blockDim.x)
		h[i] = 0;
	__syncthreads();
	for (uint64_t i = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; i < n;
		 i += (uint64_t) gridDim.x * blockDim.x)
	{
		uint64_t	v = pass_bits(w[i], p);

		if ((v & mask) == prefix)
			atomicAdd(&h[(v >> shift) & (select_policy::buckets - 1)], 1u);
	}
	__syncthreads();
	for (int i = threadIdx.x; i < select_policy::buckets; i += blockDim.x)
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

/*
 * Stable radix passes, least significant first, over rows [0, n) whose word w is
 * words[w][row]: *perm gets their order (n entries, freed by the caller).
 */
pg_gpu_status
sort_rows(int blocks, uint64_t n, uint64_t *const *words, const sort_pass *ps, int np,
		  uint32_t **perm, cudaStream_t stream, pg_gpu_error *err)
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
											 (int) n, 0, (int) sizeof(uint64_t) * 8,
											 stream) == cudaSuccess ? PG_GPU_OK
			: set_error(err, PG_GPU_CUDA_ERROR, "cub sizing");
	if (st == PG_GPU_OK && np > 0)
		st = device_alloc(temp_bytes, &temp, err);
	if (st == PG_GPU_OK)
	{
		iota_async(idx[0], n, blocks, stream);
		for (int p = 0; p < np; p++)
		{
			const uint64_t *src = words[ps[p].w];

			/* the first pass's permutation is the identity: no gather */
			if (p > 0)
				gather_words_async(src, idx[cur], kw[0], n, blocks, stream);
			if (cub::DeviceRadixSort::SortPairs(temp, temp_bytes, p == 0 ? src : kw[0], kw[1],
												idx[cur], idx[1 - cur], (int) n, ps[p].begin,
												ps[p].end, stream) != cudaSuccess)
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
pg_gpu_status
select_top_rows(const sort_arrays &sa, int blocks, uint64_t n, uint64_t m, const sort_pass *ps,
				int np, uint32_t **perm, uint64_t *k, cudaStream_t stream, pg_gpu_error *err)
{
	const sort_pass &top = ps[np - 1];
	const uint64_t *tw = sa.w[top.w];
	int			bits = top.end - top.begin;
	unsigned long long *d_hist = nullptr;
	unsigned long long h_hist[select_policy::buckets];
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
	if ((st = device_alloc(select_policy::buckets * sizeof(unsigned long long), (void **) &d_hist,
							err)) != PG_GPU_OK)
		return st;
	constexpr int D = select_policy::digit_bits;

	for (int shift = ((bits - 1) / D) * D; shift >= 0 && st == PG_GPU_OK; shift -= D)
	{
		uint64_t	cum = 0;
		int			d;

		cudaMemset(d_hist, 0, select_policy::buckets * sizeof(unsigned long long));
		select_hist_kernel<<<blocks, select_policy::threads, 0, stream>>>(tw, n, top, mask, prefix,
																		   shift, d_hist);
		if ((st = stream_wait(stream, err)) != PG_GPU_OK)
			break;
		if ((st = cuda_status(err, cudaMemcpy(h_hist, d_hist, sizeof(h_hist),
											  cudaMemcpyDeviceToHost), "select_hist_kernel")) != PG_GPU_OK)
			break;
		for (d = 0; d < select_policy::buckets - 1 && cum + h_hist[d] < need; d++)
			cum += h_hist[d];
		need -= cum;
		prefix |= (uint64_t) d << shift;
		mask |= (uint64_t) (select_policy::buckets - 1) << shift;
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
		select_flag_kernel<<<blocks, select_policy::threads, 0, stream>>>(tw, n, top, prefix, flag);
		iota_async(rows, n, blocks, stream);
		cub::DeviceSelect::Flagged(nullptr, temp_bytes, rows, flag, cand, d_num, (int) n, stream);
		if ((st = device_alloc(temp_bytes, &temp, err)) == PG_GPU_OK)
		{
			cub::DeviceSelect::Flagged(temp, temp_bytes, rows, flag, cand, d_num, (int) n, stream);
			if ((st = stream_wait(stream, err)) == PG_GPU_OK)
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
			gather_words_async(sa.w[w], cand, cw[w], (uint64_t) num, blocks, stream);
	}
	if (st == PG_GPU_OK &&
		(st = sort_rows(blocks, (uint64_t) num, cw, ps, np, perm, stream, err)) == PG_GPU_OK)
	{
		map_perm_kernel<<<blocks, grid_policy::threads, 0, stream>>>(cand, *perm, (uint64_t) num);
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
pg_gpu_status
check_ordered(const sort_arrays &sa, const uint32_t *perm, uint64_t n, const pg_gpu_agg_task &t,
			  int *d_flag, int blocks, cudaStream_t stream, pg_gpu_error *err)
{
	int			found = 0;
	pg_gpu_status st;

	cudaMemset(d_flag, 0, sizeof(int));
	unresolved_kernel<<<blocks, grid_policy::threads, 0, stream>>>(sa, perm, n, t, d_flag);
	if ((st = stream_wait(stream, err)) != PG_GPU_OK)
		return st;
	st = cuda_status(err, cudaMemcpy(&found, d_flag, sizeof(int), cudaMemcpyDeviceToHost),
					 "unresolved_kernel");
	return st == PG_GPU_OK && found ? set_error(err, PG_GPU_UNORDERED, "%s", kUnorderedMessage)
		: st;
}

}							/* namespace cuda */
}							/* namespace pg_gpu */

using namespace pg_gpu::cuda;

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
	cudaStream_t stream = thread_stream;	/* every step below waits for the last */
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
	cudaEventRecord(ev[0], stream);
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
		st = sort_rows(sms * page_policy::blocks_per_sm, n, sa.w, ps, np, &perm, stream, err);
	if (st == PG_GPU_OK)
		st = stream_wait(stream, err);
	if (st == PG_GPU_OK && check && n > 1 &&
		(st = device_alloc(sizeof(int), (void **) &d_flag, err)) == PG_GPU_OK)
		st = check_ordered(sa, perm, n, t, d_flag, sms * page_policy::blocks_per_sm, stream, err);
	if (st == PG_GPU_OK)
		st = cuda_status(err, cudaMemcpy(order, perm, n * sizeof(uint32_t), cudaMemcpyDeviceToHost),
					   "cudaMemcpy");
	cudaEventRecord(ev[1], stream);
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

