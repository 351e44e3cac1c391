/*
 * engine_internal.cuh — shared pieces of the engine's host side (zone D).
 *
 * Error handling: CUDA calls are wrapped by PG_GPU_TRY, which turns a failed call
 * into a pg_gpu_status in the caller's pg_gpu_error and returns.  No exceptions
 * leave the engine.  Memory comes from per-process pools (device and pinned host)
 * that keep freed blocks for reuse, because cudaMalloc/cudaHostAlloc cost far more
 * than a query's worth of kernels.
 */
#ifndef PG_GPU_ENGINE_INTERNAL_CUH
#define PG_GPU_ENGINE_INTERNAL_CUH

#ifdef PG_VERSION_NUM
#error "cuda/ headers must not be compiled together with PostgreSQL headers"
#endif

#include <cuda_runtime.h>
#include <stdio.h>

#include "engine/error.h"
#include "pg_gpu_engine.h"

namespace pg_gpu {
namespace cuda {

pg_gpu_status from_cuda(pg_gpu_error *err, cudaError_t rc, const char *what);

/* PG_GPU_OK when rc is cudaSuccess, else from_cuda's status. */
inline pg_gpu_status
cuda_status(pg_gpu_error *err, cudaError_t rc, const char *what)
{
	return rc == cudaSuccess ? PG_GPU_OK : from_cuda(err, rc, what);
}

#define PG_GPU_TRY(err, call) \
	do { \
		cudaError_t rc_ = (call); \
		if (rc_ != cudaSuccess) \
			return ::pg_gpu::cuda::from_cuda((err), rc_, #call); \
	} while (0)

/* Pools: allocations count against the device memory limit. */
pg_gpu_status device_alloc(size_t bytes, void **ptr, pg_gpu_error *err);
void		device_free(void *ptr);
pg_gpu_status pinned_alloc(size_t bytes, void **ptr, pg_gpu_error *err);
void		pinned_free(void *ptr);
uint64_t	device_memory_limit();
uint64_t	device_budget();

/*
 * The calling thread's default stream: the engine is built with
 * --default-stream per-thread (Makefile), so stream 0 and the blocking
 * cudaMemcpy/cudaMemset calls are ordered with the other work of the same
 * host thread only.  The engine's synchronous steps (growing a table, closing
 * a sort run, a merge block, a key set) rely on that ordering, so they name
 * this stream rather than one of their own.  In the GPU service each task runs
 * on one channel's thread, so one task's steps no longer wait for another
 * task's (with the legacy default stream, every service thread's steps were
 * ordered with every other's: issue 32).  The slots' chunks and the sort's
 * output batches run on non-blocking streams of their own.
 */
constexpr cudaStream_t thread_stream = nullptr;

/*
 * Wait for the work queued so far on stream (or for event), asking the caller's
 * cancel callback (pg_gpu_engine_set_cancel) between polls 20 microseconds
 * apart: PG_GPU_CANCELLED when it says so (the work goes on; the task's end
 * waits for it, and the pools reuse no block it may still touch).  A thread
 * without a callback (the GPU service's) waits as cudaStreamSynchronize does.
 */
pg_gpu_status stream_wait(cudaStream_t stream, pg_gpu_error *err);
pg_gpu_status event_wait(cudaEvent_t event, pg_gpu_error *err);

/* The least power of two >= v and >= floor (a pool's size class: floor 4096). */
inline uint64_t
pow2_at_least(uint64_t v, uint64_t floor = 1)
{
	uint64_t	c = floor;

	while (c < v)
		c <<= 1;
	return c;
}

}							/* namespace cuda */
}							/* namespace pg_gpu */

#endif							/* PG_GPU_ENGINE_INTERNAL_CUH */
