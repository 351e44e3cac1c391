/*
 * keyset_engine.h — the GPU halves of the key sets and dictionaries
 * (keyset/keyset.cu; the build without CUDA answers PG_GPU_NOT_COMPILED), and the
 * handle the API hands out (keyset/keyset_api.cpp).
 */
#ifndef PG_GPU_KEYSET_ENGINE_H
#define PG_GPU_KEYSET_ENGINE_H

#include "pg_gpu_engine.h"
#include "keyset/keyset.cuh"

/*
 * Build one on the device from host keys (*dev: its handle,
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
 * A semi-join's probe with inner.b <> x (pg_gpu_keyset_probe_ne): host keys and
 * their x, the set's payload its keys' least and greatest b.
 */
pg_gpu_status engine_keyset_probe_ne(engine_keyset *dev, const pg_gpu::cuda::keyset_keys &q,
									 uint64_t m, const int64_t *x, const uint8_t *xnull,
									 int64_t *out, pg_gpu_error *err);

/*
 * The set's payload from aux, one device word per key (n, in the keys' order):
 * column 0 the least and column 1 the greatest aux of each key, at its
 * ordinal (a collect task with an aux value).
 */
pg_gpu_status engine_keyset_minmax(engine_keyset *dev, const int64_t *aux, uint64_t n,
								   pg_gpu_error *err);

/*
 * The set's payload from ncols words a key, row after row, on the device
 * (pay[i * ncols + c] for key i; pay_null likewise, 1: NULL), laid out as
 * pg_gpu_keyset_payload lays it; with distinct, each column's distinct words
 * (pg_gpu_keyset_pay_distinct) counted too.
 */
pg_gpu_status engine_keyset_payload_rows(engine_keyset *dev, int ncols, uint64_t n,
										 const uint64_t *pay, const uint8_t *pay_null,
										 int64_t *distinct, pg_gpu_error *err);

/*
 * An emulated set's payload from ncols host words a key, row after row (as
 * engine_keyset_payload_rows takes them), its distinct words counted alike.
 */
pg_gpu_status keyset_payload_rows_host(pg_gpu_keyset *ks, int ncols, const uint64_t *pay,
									   const uint8_t *pay_null, pg_gpu_error *err);

/* The payload's distinct words known (ncols of them, -1: not known). */
void		keyset_set_pay_distinct(pg_gpu_keyset *ks, int ncols, const int64_t *distinct);

/* A payload for the set's n keys (pg_gpu_keyset_payload), copied to the device. */
pg_gpu_status engine_keyset_payload(engine_keyset *dev, int ncols, uint64_t n,
									const uint64_t *vals, const uint8_t *nulls,
									pg_gpu_error *err);

/*
 * A set over n keys already in device memory (vals, or data and n + 1 offsets),
 * which it takes over (freeing them on failure too).
 */
pg_gpu_status engine_keyset_adopt(int type, uint64_t n, int64_t *vals, uint8_t *data,
								  uint64_t *off, engine_keyset **dev, uint64_t *distinct,
								  pg_gpu_error *err);

/* The handle the API hands out for a set built on the device (n keys given). */
pg_gpu_keyset *keyset_from_engine(int type, uint64_t n, uint64_t distinct, engine_keyset *dev);

void		engine_keyset_ref(const engine_keyset *dev, pg_gpu_set_ref *out);

/*
 * An emulated set's payload from aux, one host word per key: each key's least
 * and greatest aux (a collect task with an aux value, emulated).
 */
pg_gpu_status keyset_minmax_host(pg_gpu_keyset *ks, const int64_t *aux, pg_gpu_error *err);

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

#endif							/* PG_GPU_KEYSET_ENGINE_H */
