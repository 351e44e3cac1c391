/*
 * emulate.h — the engine's CPU twin (pg_gpu.emulate_gpu): GpuAgg, GpuSort and
 * collect tasks run on the host.
 *
 * The same slot protocol and the same page walker (scan/page_walk.cuh) as the GPU,
 * run synchronously on the CPU.  It lets machines without a GPU (CI) exercise the
 * whole GpuAgg data path — pinning, visibility bitmaps, tuple deforming, partial
 * states — and lets the CPU side be profiled in isolation.  Never chosen on its own.
 */
#ifndef PG_GPU_EMULATE_H
#define PG_GPU_EMULATE_H

#include "pg_gpu_engine.h"
#include "engine/agg_api.h"

/* Fill err (status st, message msg); returns st. */
pg_gpu_status host_error(pg_gpu_error *err, pg_gpu_status st, const char *msg);

/* emulate_agg_begin (engine/agg_api.h) starts one; its function table does the rest. */

/*
 * fn(arg) on a thread of its own (all signals blocked), not waited for; run at
 * once when no thread can be started.  For giving back gigabytes: unmapping them
 * takes a loaded machine a tenth of a second and more, which a cancelled query's
 * end must not wait for.
 */
void		host_run_detached(void (*fn) (void *), void *arg);

/* Delete p, on a thread of its own when it holds at least 16 MB. */
template <typename T>
inline void
host_delete_later(T *p, unsigned long long bytes)
{
	if (bytes < (16ULL << 20))
		delete p;
	else
		host_run_detached([](void *a) { delete static_cast<T *>(a); }, p);
}

#endif							/* PG_GPU_EMULATE_H */
