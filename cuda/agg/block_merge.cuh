/*
 * block_merge.cuh — a thread block's per-thread states merged into one.
 *
 * The states merge up a shared-memory tree, thread tid with tid + s for s =
 * Threads/2 .. 1.  Not cub::BlockReduce: its warp shuffles pair the threads in
 * another order, and the float parts of a state (sums, Youngs-Cramer) round
 * differently in another order; PostgreSQL-exact answers depend on this one.
 */
#ifndef PG_GPU_BLOCK_MERGE_CUH
#define PG_GPU_BLOCK_MERGE_CUH

#include "agg_state.cuh"

namespace pg_gpu {
namespace cuda {

/*
 * Every thread passes its state mine; red[0] holds the block's when this returns
 * (red: Threads states of shared memory).  Every thread must call it.
 */
template <int Threads>
__device__ __forceinline__ void
block_merge_states(pg_gpu_col_state *red, const pg_gpu_col_state &mine, int type, int tid)
{
	red[tid] = mine;
	__syncthreads();
	for (int s = Threads / 2; s > 0; s >>= 1)
	{
		if (tid < s)
			state_merge(red[tid], red[tid + s], type);
		__syncthreads();
	}
}

}							/* namespace cuda */
}							/* namespace pg_gpu */

#endif							/* PG_GPU_BLOCK_MERGE_CUH */
