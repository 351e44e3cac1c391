/*
 * engine_stub.cpp — the engine when the build found no nvcc.
 *
 * Every entry point answers PG_GPU_NOT_COMPILED, so planning and execution take
 * PostgreSQL's own plans and pg_gpu_stats records why.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/agg_api.h"
#include "keyset/keyset_engine.h"
#include "pg_gpu_engine.h"
#include "sort/sort_engine.h"

static pg_gpu_status
not_compiled(pg_gpu_error *err)
{
	if (err)
	{
		err->status = PG_GPU_NOT_COMPILED;
		snprintf(err->message, sizeof(err->message),
				 "pg_gpu was built without CUDA (nvcc was not found)");
	}
	return PG_GPU_NOT_COMPILED;
}

extern "C" int pg_gpu_engine_compiled(void) { return 0; }
extern "C" pg_gpu_status pg_gpu_engine_init(pg_gpu_error *err) { return not_compiled(err); }
extern "C" int pg_gpu_engine_initialized(void) { return 0; }
extern "C" int pg_gpu_engine_init_async(void) { return -1; }
extern "C" void pg_gpu_engine_set_memory_limit(uint64_t) {}
extern "C" int pg_gpu_engine_free_memory(uint64_t *) { return 0; }
extern "C" uint64_t pg_gpu_engine_memory(uint64_t *cached) { *cached = 0; return 0; }
extern "C" int pg_gpu_engine_healthy(void) { return 1; }

extern "C" int
pg_gpu_engine_devices(pg_gpu_device_info *, int, pg_gpu_error *err)
{
	not_compiled(err);
	return -1;
}

extern "C" pg_gpu_status
pg_gpu_engine_register_host(void *, uint64_t, uint64_t *, pg_gpu_error *err)
{
	return not_compiled(err);
}

extern "C" int pg_gpu_engine_register_host_async(void *, uint64_t) { return -1; }

extern "C" int
pg_gpu_engine_registration(uint64_t *, pg_gpu_error *err)
{
	not_compiled(err);
	return -1;
}

/* Table caches: only the emulated engine's, in host memory. */
extern "C" pg_gpu_status
pg_gpu_cache_alloc(uint64_t bytes, int emulate, uint64_t *addr, pg_gpu_error *err)
{
	void	   *p;

	*addr = 0;
	if (!emulate)
		return not_compiled(err);
	p = aligned_alloc(PG_GPU_BLCKSZ, (bytes + PG_GPU_BLCKSZ - 1) / PG_GPU_BLCKSZ * PG_GPU_BLCKSZ);
	if (p == nullptr)
	{
		err->status = PG_GPU_OUT_OF_MEMORY;
		snprintf(err->message, sizeof(err->message), "no host memory for a table cache");
		return PG_GPU_OUT_OF_MEMORY;
	}
	*addr = (uint64_t) (uintptr_t) p;
	return PG_GPU_OK;
}

extern "C" void
pg_gpu_cache_free(uint64_t addr, int emulate)
{
	if (addr != 0 && emulate)
		free((void *) (uintptr_t) addr);
}

/* Without CUDA only the host emulation (pg_gpu.emulate_gpu) can run a task. */
pg_gpu_agg *
gpu_agg_begin(const pg_gpu_agg_task *, pg_gpu_error *err)
{
	not_compiled(err);
	return nullptr;
}

extern "C" pg_gpu_status
pg_gpu_reduce(const void *, int64_t, int, pg_gpu_col_state *, double *, pg_gpu_error *err)
{
	return not_compiled(err);
}

pg_gpu_status
engine_sort_words(const pg_gpu_agg_task &, uint64_t, const uint64_t *const *,
				  const pg_gpu::cuda::sort_pass *,
				  int, bool, uint32_t *, double *, uint64_t *, pg_gpu_error *err)
{
	return not_compiled(err);
}

pg_gpu_status
engine_keyset_build(const pg_gpu::cuda::keyset_keys &, uint64_t, engine_keyset **dev, uint64_t *,
					pg_gpu_error *err)
{
	*dev = nullptr;
	return not_compiled(err);
}

pg_gpu_status
engine_keyset_probe(engine_keyset *, const pg_gpu::cuda::keyset_keys &, uint64_t, int64_t *,
					pg_gpu_error *err)
{
	return not_compiled(err);
}

pg_gpu_status
engine_keyset_probe_ne(engine_keyset *, const pg_gpu::cuda::keyset_keys &, uint64_t,
					   const int64_t *, const uint8_t *, int64_t *, pg_gpu_error *err)
{
	return not_compiled(err);
}

pg_gpu_status
engine_keyset_ordinals(engine_keyset *, uint64_t, int64_t *, pg_gpu_error *err)
{
	return not_compiled(err);
}

void
engine_keyset_free(engine_keyset *)
{
}

pg_gpu_status
engine_keyset_payload(engine_keyset *, int, uint64_t, const uint64_t *, const uint8_t *,
					  pg_gpu_error *err)
{
	return not_compiled(err);
}

void
engine_keyset_ref(const engine_keyset *, pg_gpu_set_ref *)
{
}

pg_gpu_status
engine_trie_upload(const void *const *, const uint64_t *, uint64_t, engine_trie **dev,
				   pg_gpu_error *err)
{
	*dev = nullptr;
	return not_compiled(err);
}

uint64_t
engine_trie_view(const engine_trie *)
{
	return 0;
}

void
engine_trie_free(engine_trie *)
{
}

pg_gpu_status
engine_set_probe(const pg_gpu_set_ref &, const pg_gpu::cuda::keyset_keys &, uint64_t, int64_t *,
				 double *, pg_gpu_error *err)
{
	return not_compiled(err);
}
