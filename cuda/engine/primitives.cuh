/*
 * primitives.cuh — small device steps more than one operator queues: a
 * permutation's identity, words gathered through one, and tuple offsets from
 * their sizes.  Each takes the stream it runs on (the caller's ordering holds).
 */
#ifndef PG_GPU_PRIMITIVES_CUH
#define PG_GPU_PRIMITIVES_CUH

#include "engine/engine_internal.cuh"

namespace pg_gpu {
namespace cuda {

/* idx[i] = i for i < n (blocks: the grid, of grid_policy::threads threads). */
void		iota_async(uint32_t *idx, uint64_t n, int blocks, cudaStream_t stream);

/* dst[i] = src[idx[i]] for i < n. */
void		gather_words_async(const uint64_t *src, const uint32_t *idx, uint64_t *dst,
							   uint64_t n, int blocks, cudaStream_t stream);

/* Offsets of n tuples from their sizes (n + 1 entries, the last 0 on entry). */
pg_gpu_status scan_sizes(uint64_t *size, uint64_t *off, uint64_t n, cudaStream_t stream,
						 pg_gpu_error *err);

}							/* namespace cuda */
}							/* namespace pg_gpu */

#endif							/* PG_GPU_PRIMITIVES_CUH */
