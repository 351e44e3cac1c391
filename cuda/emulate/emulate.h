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

#endif							/* PG_GPU_EMULATE_H */
