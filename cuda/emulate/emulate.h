/*
 * agg_host.h — GpuAgg's engine emulated on the host (pg_gpu.emulate_gpu).
 *
 * The same slot protocol and the same page walker (heap_deform.cuh) as the GPU,
 * run synchronously on the CPU.  It lets machines without a GPU (CI) exercise the
 * whole GpuAgg data path — pinning, visibility bitmaps, tuple deforming, partial
 * states — and lets the CPU side be profiled in isolation.  Never chosen on its own.
 */
#ifndef PG_GPU_AGG_HOST_H
#define PG_GPU_AGG_HOST_H

#include "pg_gpu_engine.h"
#include "keyset/keyset.cuh"
#include "sort/sort.cuh"

struct host_agg;

/* Fill err (status st, message msg); returns st. */
pg_gpu_status host_error(pg_gpu_error *err, pg_gpu_status st, const char *msg);

host_agg   *host_agg_begin(const pg_gpu_agg_task *task, pg_gpu_error *err);
pg_gpu_status host_agg_slot_get(host_agg *h, int slot, pg_gpu_agg_slot *out);
pg_gpu_status host_agg_submit(host_agg *h, int slot, int npages, int nvis, pg_gpu_error *err);
pg_gpu_status host_agg_finish(host_agg *h, pg_gpu_agg_result *res, pg_gpu_error *err);
void		host_agg_group(host_agg *h, int64_t g, uint64_t *keys, uint32_t *nullmask,
						   int64_t *rows, pg_gpu_col_state *states);
pg_gpu_status host_agg_sort_next(host_agg *h, pg_gpu_sort_batch *out, pg_gpu_error *err);
void		host_agg_end(host_agg *h);

/*
 * The GPU half of pg_gpu_keysort_sort (agg_engine.cu; the build without CUDA
 * answers PG_GPU_NOT_COMPILED): stable radix passes over n rows whose word w is
 * words[w][row], written to order.  check: look for neighbours that the words
 * cannot order (sort_unresolved).
 */
pg_gpu_status engine_sort_words(const pg_gpu_agg_task &t, uint64_t n, const uint64_t *const *words,
								const pg_gpu::cuda::sort_pass *ps, int np, bool check,
								uint32_t *order, double *gpu_ms, uint64_t *bytes_h2d,
								pg_gpu_error *err);

/*
 * The GPU half of the key sets (keyset.cu; the build without CUDA answers
 * PG_GPU_NOT_COMPILED): build one on the device from host keys (*dev: its handle,
 * *distinct: the distinct keys), probe it with host keys, free it.
 */
struct engine_keyset;

pg_gpu_status engine_keyset_build(const pg_gpu::cuda::keyset_keys &k, uint64_t n,
								  engine_keyset **dev, uint64_t *distinct, pg_gpu_error *err);
pg_gpu_status engine_keyset_probe(engine_keyset *dev, const pg_gpu::cuda::keyset_keys &q,
								  uint64_t m, int64_t *out, pg_gpu_error *err);
pg_gpu_status engine_keyset_ordinals(engine_keyset *dev, uint64_t n, int64_t *out,
									 pg_gpu_error *err);
void		engine_keyset_free(engine_keyset *dev);

/*
 * A set over n keys already in device memory (vals, or data and n + 1 offsets),
 * which it takes over (freeing them on failure too).
 */
pg_gpu_status engine_keyset_adopt(int type, uint64_t n, int64_t *vals, uint8_t *data,
								  uint64_t *off, engine_keyset **dev, uint64_t *distinct,
								  pg_gpu_error *err);

/* The handle the API hands out for a set built on the device (n keys given). */
pg_gpu_keyset *keyset_from_engine(int type, uint64_t n, uint64_t distinct, engine_keyset *dev);

/* Collect tasks: the emulation's pg_gpu_agg_keyset. */
pg_gpu_keyset *host_agg_keyset(host_agg *h, int type, uint64_t *keys, int *has_null,
							   pg_gpu_error *err);
void		engine_keyset_ref(const engine_keyset *dev, pg_gpu_set_ref *out);

/* The same keys as an emulated set's, in a set built on the GPU. */
pg_gpu_keyset *pg_gpu_keyset_to_device(const pg_gpu_keyset *host, pg_gpu_error *err);

/*
 * The GPU half of the dictionaries (keyset.cu): a trie's arrays (trie_view's
 * order, bytes[i] each) copied to the device, the device address of its view;
 * and m host keys q looked up on the GPU in any set (device addresses: a key
 * set or a dictionary), *kernel_ms the lookups alone.
 */
struct engine_trie;

pg_gpu_status engine_trie_upload(const void *const *arrays, const uint64_t *bytes, uint64_t nnodes,
								 engine_trie **dev, pg_gpu_error *err);
uint64_t	engine_trie_view(const engine_trie *dev);
void		engine_trie_free(engine_trie *dev);
pg_gpu_status engine_set_probe(const pg_gpu_set_ref &set, const pg_gpu::cuda::keyset_keys &q,
							   uint64_t m, int64_t *out, double *kernel_ms, pg_gpu_error *err);

#endif							/* PG_GPU_AGG_HOST_H */
