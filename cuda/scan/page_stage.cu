/*
 * page_stage.cu — a registered chunk's pages pulled into GPU memory before the
 * operator's kernel reads them (pg_gpu_agg_task.stage).
 *
 * Reading in place, every block of the operator loads one page over PCIe, waits
 * for it, works on its rows, and only then asks for the next: the link idles
 * while the SMs compute and the compute idles while a page crosses.  Here a
 * kernel that does nothing but copy keeps many pages in flight (a warp a page,
 * all 16 of its lane's loads issued before the first store) and the operator
 * then reads the copies from device memory.  The chunk of the next slot is
 * copied on its own stream while this one's operator runs.
 */
#include "engine/task.cuh"

namespace pg_gpu {
namespace cuda {

static constexpr int kStageThreads = 256;
static constexpr int kPageWords = PG_GPU_BLCKSZ / 16;	/* 16-byte words a page */
static_assert(kPageWords % 32 == 0, "a page must tile a warp");

__global__ void __launch_bounds__(kStageThreads)
page_stage_kernel(const pg_gpu_page_ref *refs, int npages, uint4 *dst)
{
	constexpr int W = kPageWords / 32;
	const int	lane = threadIdx.x & 31;
	const int	warps = gridDim.x * (kStageThreads / 32);

	for (int p = blockIdx.x * (kStageThreads / 32) + (threadIdx.x >> 5); p < npages; p += warps)
	{
		const uint4 *src = (const uint4 *) (uintptr_t) refs[p].addr;
		uint4	   *out = dst + (size_t) p * kPageWords;
		uint4		v[W];

#pragma unroll
		for (int k = 0; k < W; k++)
			v[k] = src[lane + 32 * k];
#pragma unroll
		for (int k = 0; k < W; k++)
			out[lane + 32 * k] = v[k];
	}
}

void
page_stage_async(gpu_agg *agg, chunk_slot &s, int npages, cudaStream_t stream)
{
	const int	per_block = kStageThreads / 32;
	int			blocks = (npages + per_block - 1) / per_block;
	int			cap = agg->max_blocks * 2;

	if (blocks > cap)
		blocks = cap;
	page_stage_kernel<<<blocks, kStageThreads, 0, stream>>>(s.d_refs, npages, (uint4 *) s.d_pages);
}

}							/* namespace cuda */
}							/* namespace pg_gpu */
