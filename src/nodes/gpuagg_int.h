/*
 * gpuagg_int.h — what planning GpuAgg shares between its files: the state one
 * path is built from (gpuagg_plan.cpp) and HAVING's terms tested on the GPU
 * (gpuagg_having.cpp).
 */
#ifndef PG_GPU_GPUAGG_INT_H
#define PG_GPU_GPUAGG_INT_H

#include "pg_gpu_engine.h"
#include "expr/expr_compile.h"

/* Everything one GpuAgg path is built from. */
typedef struct GpuAggBuild
{
	pg_gpu_agg_task *task;
	PgGpuCompiler comp;
	List	   *input_exprs;	/* per engine input, for de-duplication */
	List	   *key_exprs;
	List	   *key_refs;		/* sortgrouprefs */
	List	   *aggs;
	List	   *out_state;
	List	   *out_coltype;
	List	   *out_col;
	List	   *key_codes;		/* per key: -1, or a text payload's set *
								 * PG_GPU_MAX_PAYLOAD + column */
	Aggref	   *distinct;		/* the first count(DISTINCT x): x is the last key */
} GpuAggBuild;

/*
 * HAVING's ANDed terms that compare count(*), count(x) or sum(x) of an
 * aggregate of the path with a constant, as the task's pre-filter of finished
 * groups (pg_gpu_agg_task.having; docs/SEMANTICS.md 31); other terms are left
 * to PostgreSQL, which still evaluates the whole HAVING.
 */
void		PgGpuAggHavingPrefilter(GpuAggBuild *b, List *having);

#endif							/* PG_GPU_GPUAGG_INT_H */
