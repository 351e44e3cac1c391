/*
 * trie.cu — a dictionary's trie (trie.cuh) on the device: its arrays copied into
 * one device buffer, 16-byte aligned, followed by the trie_view the kernels read.
 * Lookups go through engine_set_probe (keyset/keyset.cu) like any set's.
 */
#include <new>

#include "dict/trie.cuh"
#include "engine/engine_internal.cuh"
#include "keyset/keyset_engine.h"

using namespace pg_gpu::cuda;

struct engine_trie
{
	uint8_t    *buf = nullptr;	/* every array, 16-byte aligned, then the view */
	trie_view  *view = nullptr;
};

pg_gpu_status
engine_trie_upload(const void *const *arrays, const uint64_t *bytes, uint64_t nnodes,
				   engine_trie **dev, pg_gpu_error *err)
{
	engine_trie *t = new (std::nothrow) engine_trie();
	uint64_t	at[9],
				total = 0;
	pg_gpu_status st;
	trie_view	v = {};

	*dev = nullptr;
	if (!t)
		return set_error(err, PG_GPU_OUT_OF_MEMORY, "out of host memory");
	for (int i = 0; i < 8; i++)
	{
		at[i] = total;
		total += (bytes[i] + 15) & ~15ULL;
	}
	at[8] = total;
	total += sizeof(trie_view);
	if ((st = device_alloc(total, (void **) &t->buf, err)) != PG_GPU_OK)
	{
		delete t;
		return st;
	}
	for (int i = 0; i < 8 && st == PG_GPU_OK; i++)
		if (bytes[i] > 0)
			st = cuda_status(err, cudaMemcpy(t->buf + at[i], arrays[i], bytes[i],
											 cudaMemcpyHostToDevice), "cudaMemcpy");
	v.louds = (const uint64_t *) (t->buf + at[0]);
	v.sel0 = (const uint64_t *) (t->buf + at[1]);
	v.labels = t->buf + at[2];
	v.term = (const uint64_t *) (t->buf + at[3]);
	v.term_rank = (const uint32_t *) (t->buf + at[4]);
	v.toff = (const uint64_t *) (t->buf + at[5]);
	v.tail = t->buf + at[6];
	v.ord = (const uint32_t *) (t->buf + at[7]);
	v.nnodes = nnodes;
	t->view = (trie_view *) (t->buf + at[8]);
	if (st == PG_GPU_OK)
		st = cuda_status(err, cudaMemcpy(t->view, &v, sizeof(v), cudaMemcpyHostToDevice),
						 "cudaMemcpy");
	if (st != PG_GPU_OK)
	{
		engine_trie_free(t);
		return st;
	}
	*dev = t;
	return PG_GPU_OK;
}

uint64_t
engine_trie_view(const engine_trie *dev)
{
	return (uint64_t) (uintptr_t) dev->view;
}

void
engine_trie_free(engine_trie *dev)
{
	if (!dev)
		return;
	device_free(dev->buf);
	delete dev;
}
