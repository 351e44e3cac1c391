/*
 * sort_engine.h — the GPU half of pg_gpu_keysort_sort (sort/sort_rows.cu; the
 * build without CUDA answers PG_GPU_NOT_COMPILED).
 */
#ifndef PG_GPU_SORT_ENGINE_H
#define PG_GPU_SORT_ENGINE_H

#include "pg_gpu_engine.h"
#include "sort/sort.cuh"

/*
 * Stable radix passes over n rows whose word w is
 * words[w][row], written to order.  check: look for neighbours that the words
 * cannot order (sort_unresolved).
 */
pg_gpu_status engine_sort_words(const pg_gpu_agg_task &t, uint64_t n, const uint64_t *const *words,
								const pg_gpu::cuda::sort_pass *ps, int np, bool check,
								uint32_t *order, double *gpu_ms, uint64_t *bytes_h2d,
								pg_gpu_error *err);

#endif							/* PG_GPU_SORT_ENGINE_H */
