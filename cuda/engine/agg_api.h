/*
 * agg_api.h — the handle behind pg_gpu_agg_* and pg_gpu_sort_next: one function
 * table per implementation, chosen once when the task begins.
 *
 * pg_gpu_agg_begin picks the GPU (engine/task.cu) or its CPU twin
 * (emulate/agg_host.cpp) from task->emulate; every later call goes through the
 * handle's table, so no entry point asks which one it has.  Host code only: the
 * build without nvcc compiles it too (with engine_stub.cpp in place of the GPU).
 */
#ifndef PG_GPU_AGG_API_H
#define PG_GPU_AGG_API_H

#ifdef PG_VERSION_NUM
#error "cuda/ headers must not be compiled together with PostgreSQL headers"
#endif

#include "pg_gpu_engine.h"

struct agg_ops
{
	int			(*slot_idle) (pg_gpu_agg *agg, int slot);
	pg_gpu_status (*slot_get) (pg_gpu_agg *agg, int slot, pg_gpu_agg_slot *out);
	pg_gpu_status (*submit) (pg_gpu_agg *agg, int slot, int npages, int nvis, pg_gpu_error *err);
	pg_gpu_status (*finish) (pg_gpu_agg *agg, pg_gpu_agg_result *res, pg_gpu_error *err);
	void		(*group) (pg_gpu_agg *agg, int64_t g, uint64_t *keys, uint32_t *nullmask,
						  int64_t *rows, pg_gpu_col_state *states);
	pg_gpu_status (*sort_next) (pg_gpu_agg *agg, pg_gpu_sort_batch *out, pg_gpu_error *err);
	pg_gpu_keyset *(*keyset) (pg_gpu_agg *agg, int type, uint64_t *keys, int *has_null,
							  pg_gpu_error *err);
	void		(*end) (pg_gpu_agg *agg);
};

/* Every implementation's handle starts with this (gpu_agg, host_agg derive from it). */
struct pg_gpu_agg
{
	const agg_ops *ops = nullptr;
};

/* Whether a task is one the engine can run (both implementations check it). */
bool		valid_agg_task(const pg_gpu_agg_task *t);

/* The GPU's begin (engine/task.cu; the build without CUDA: PG_GPU_NOT_COMPILED). */
pg_gpu_agg *gpu_agg_begin(const pg_gpu_agg_task *task, pg_gpu_error *err);

/* The CPU twin's begin (emulate/agg_host.cpp). */
pg_gpu_agg *emulate_agg_begin(const pg_gpu_agg_task *task, pg_gpu_error *err);

#endif							/* PG_GPU_AGG_API_H */
