/*
 * reduce.cu — the explicit gpu_* aggregates' final step: one group's collected
 * values reduced to an exact state on the GPU.
 *
 * Each thread folds a grid-strided share of the values with the same state
 * arithmetic as GpuAgg (accum_value_at, agg_state.cuh), blocks merge up a
 * shared-memory tree (block_merge.cuh), and
 * the host merges the per-block partials in a fixed order.
 */
#include <string.h>

#include "agg/block_merge.cuh"
#include "agg_state.cuh"
#include "engine/engine_internal.cuh"
#include "engine/policy.cuh"

namespace pg_gpu {
namespace cuda {

__global__ void __launch_bounds__(reduce_policy::threads)
reduce_kernel(const void *values, int64_t n, int type, pg_gpu_col_state *partials)
{
	constexpr int T = reduce_policy::threads;
	__shared__ pg_gpu_col_state red[T];
	pg_gpu_col_state st;
	const int	tid = threadIdx.x;

	state_init(st, type);
	for (int64_t i = blockIdx.x * (int64_t) blockDim.x + tid; i < n;
		 i += (int64_t) gridDim.x * blockDim.x)
		accum_value_at(st, values, i, type);
	block_merge_states<T>(red, st, type, tid);
	if (tid == 0)
		partials[blockIdx.x] = red[0];
}

}							/* namespace cuda */
}							/* namespace pg_gpu */

using namespace pg_gpu::cuda;

static size_t
value_size(int type)
{
	switch (type)
	{
		case PG_GPU_INT2:
			return 2;
		case PG_GPU_INT4:
		case PG_GPU_FLOAT4:
			return 4;
		default:
			return 8;
	}
}

extern "C" pg_gpu_status
pg_gpu_reduce(const void *values, int64_t n, int type, pg_gpu_col_state *out,
			  double *gpu_ms, pg_gpu_error *err)
{
	void	   *d_vals = nullptr;
	pg_gpu_col_state *d_parts = nullptr;
	pg_gpu_col_state *h_parts = nullptr;
	cudaEvent_t t0 = nullptr,
				t1 = nullptr;
	int			dev = 0,
				sms = 0;
	pg_gpu_status st;

	state_init(*out, type);
	*gpu_ms = 0;
	if (n <= 0)
		return PG_GPU_OK;
	if ((st = pg_gpu_engine_init(err)) != PG_GPU_OK)
		return st;
	PG_GPU_TRY(err, cudaGetDevice(&dev));
	PG_GPU_TRY(err, cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
	int64_t		want = (n + reduce_policy::threads - 1) / reduce_policy::threads;
	int64_t		most = (int64_t) sms * reduce_policy::blocks_per_sm;
	int			blocks = (int) (want < most ? want : most);
	size_t		bytes = value_size(type) * (size_t) n;

	if ((st = device_alloc(bytes, &d_vals, err)) != PG_GPU_OK)
		return st;
	if ((st = device_alloc(sizeof(pg_gpu_col_state) * blocks, (void **) &d_parts, err)) != PG_GPU_OK ||
		(st = pinned_alloc(sizeof(pg_gpu_col_state) * blocks, (void **) &h_parts, err)) != PG_GPU_OK)
	{
		device_free(d_vals);
		device_free(d_parts);
		return st;
	}
	cudaEventCreate(&t0);
	cudaEventCreate(&t1);
	cudaEventRecord(t0, thread_stream);
	cudaError_t rc = cudaMemcpy(d_vals, values, bytes, cudaMemcpyHostToDevice);

	if (rc == cudaSuccess)
	{
		reduce_kernel<<<blocks, reduce_policy::threads, 0, thread_stream>>>(d_vals, n, type, d_parts);
		rc = cudaGetLastError();
	}
	if (rc == cudaSuccess)
		rc = cudaMemcpy(h_parts, d_parts, sizeof(pg_gpu_col_state) * blocks,
						cudaMemcpyDeviceToHost);
	cudaEventRecord(t1, thread_stream);
	if (rc == cudaSuccess)
	{
		float		ms = 0;

		cudaEventSynchronize(t1);
		if (cudaEventElapsedTime(&ms, t0, t1) == cudaSuccess)
			*gpu_ms = ms;
		for (int b = 0; b < blocks; b++)
			state_merge(*out, h_parts[b], type);
	}
	cudaEventDestroy(t0);
	cudaEventDestroy(t1);
	device_free(d_vals);
	device_free(d_parts);
	pinned_free(h_parts);
	if (rc != cudaSuccess)
		return from_cuda(err, rc, "gpu aggregate reduction");
	(void) cudaGetLastError();
	return PG_GPU_OK;
}
