/*
 * cache_fill.cu — a table cache being filled: page p of the chunk is the
 * (first + p)-th page submitted; copy it to the arena and point its reference
 * there, so that the chunk's kernel (launched next on the stream) reads the copy
 * from device memory.
 */
#include "engine/task.cuh"

namespace pg_gpu {
namespace cuda {

__global__ void __launch_bounds__(page_policy::threads)
cache_fill_kernel(pg_gpu_page_ref *refs, int npages, const char *staging, char *arena,
				  int64_t first)
{
	constexpr int T = page_policy::threads;
	const int	tid = threadIdx.x;

	for (int p = blockIdx.x; p < npages; p += gridDim.x)
	{
		const uint4 *src = page_src(staging, refs[p], p);
		uint4	   *dst = (uint4 *) (arena + (size_t) (first + p) * PG_GPU_BLCKSZ);

#pragma unroll
		for (int k = 0; k < PG_GPU_BLCKSZ / 16 / T; k++)
			dst[tid + k * T] = src[tid + k * T];
		/* every thread has read refs[p].addr before it is pointed at the copy */
		__syncthreads();
		if (tid == 0)
			refs[p].addr = (uint64_t) (uintptr_t) dst;
	}
}

void
cache_fill_async(gpu_agg *agg, chunk_slot &s, int npages, const char *staging,
				 cudaStream_t stream)
{
	int			blocks = npages < agg->max_blocks ? npages : agg->max_blocks;

	cache_fill_kernel<<<blocks, page_policy::threads, 0, stream>>>(
		s.d_refs, npages, staging, (char *) (uintptr_t) agg->task.cache_fill, agg->pages);
}

}							/* namespace cuda */
}							/* namespace pg_gpu */
