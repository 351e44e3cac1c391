/*
 * sort_device.cuh — the ordering steps of sort_rows.cu, for the runs, the merge
 * blocks (sort_runs.cu) and the key sort (engine_sort_words).
 */
#ifndef PG_GPU_SORT_DEVICE_CUH
#define PG_GPU_SORT_DEVICE_CUH

#include "engine/task.cuh"

namespace pg_gpu {
namespace cuda {

/*
 * Stable radix passes, least significant first, over rows [0, n) whose word w is
 * words[w][row]: *perm gets their order (n entries, freed by the caller).
 */
pg_gpu_status sort_rows(int blocks, uint64_t n, uint64_t *const *words, const sort_pass *ps,
						int np, uint32_t **perm, cudaStream_t stream, pg_gpu_error *err);

/*
 * LIMIT m over the n rows of sa: *perm gets the k >= m candidates in order, *k
 * their count; PG_GPU_OK with *perm null: too many ties, sort everything instead.
 */
pg_gpu_status select_top_rows(const sort_arrays &sa, int blocks, uint64_t n, uint64_t m,
							  const sort_pass *ps, int np, uint32_t **perm, uint64_t *k,
							  cudaStream_t stream, pg_gpu_error *err);

/*
 * PG_GPU_UNORDERED if two neighbours of the n rows in perm cannot be ordered by
 * their words (sort_unresolved); d_flag: one device int of scratch.
 */
pg_gpu_status check_ordered(const sort_arrays &sa, const uint32_t *perm, uint64_t n,
							const pg_gpu_agg_task &t, int *d_flag, int blocks,
							cudaStream_t stream, pg_gpu_error *err);

}							/* namespace cuda */
}							/* namespace pg_gpu */

#endif							/* PG_GPU_SORT_DEVICE_CUH */
