/*
 * gpuagg.h — what the GpuAgg planner and executor share: the custom_private layout
 * and the scan methods.
 */
#ifndef PG_GPU_GPUAGG_H
#define PG_GPU_GPUAGG_H

/*
 * custom_private of a GpuAgg CustomScan, indexed by this enum.  custom_scan_tlist
 * holds the grouping keys (task.nkeys of them) and then one partial Aggref per
 * output column; output columns carry the state kind, the argument's
 * pg_gpu_coltype and the index of its engine input.  The task (programs, columns,
 * inputs, keys) is a bytea Const; the executor fills in the table's layout.
 * The WHERE quals live only in the task; their text is kept for EXPLAIN.
 *
 * Direct mode (grouped, no internal states): custom_scan_tlist holds the keys and
 * the aggregates' final values, which GpuAgg computes with PostgreSQL's final
 * functions; the plan's qual is HAVING and its targetlist the query's output.
 */
typedef enum GpuAggPrivate
{
	GPUAGG_PRIV_OUT_STATE = 0,	/* IntList */
	GPUAGG_PRIV_OUT_COLTYPE,	/* IntList */
	GPUAGG_PRIV_OUT_COL,		/* IntList */
	GPUAGG_PRIV_TASK,			/* Const bytea: pg_gpu_agg_task */
	GPUAGG_PRIV_FILTER_TEXT,	/* String: the GPU filter, deparsed ("" if none) */
	GPUAGG_PRIV_FINALFN,		/* OidList: direct mode, each aggregate's final
								 * function (InvalidOid: none); NIL: partial mode */
	GPUAGG_PRIV_SETS,			/* List: where each key set of the task comes from
								 * (expr_compile.h); a join's build side is the
								 * second of custom_plans */
	GPUAGG_PRIV_ROWS,			/* GpuHashJoin reading the build side only: (the
								 * probe key Expr over the table, IntList: where
								 * each custom_scan_tlist column comes from, a
								 * table attno > 0 or -(column of the build
								 * plan's row), OidList: the equality's function
								 * and collation, Integer: the probe key is its
								 * left argument).  In the path's list a
								 * custom_scan_tlist comes before it. */
	/* the path's list only; the plan moves them where they belong */
	GPUAGG_PATH_SCAN_TLIST = GPUAGG_PRIV_ROWS,	/* direct mode: custom_scan_tlist */
	GPUAGG_PATH_HAVING			/* direct mode: the plan's qual */
} GpuAggPrivate;

/*
 * custom_private of a GpuSort over a child plan (scanrelid 0, the slot path): the
 * scan tuple is the child's row (custom_scan_tlist is the child's targetlist);
 * each key is a column of it, with what tuplesort needs to sort it instead.
 */
typedef enum GpuSortSlotPrivate
{
	GPUSORT_SLOT_TASK = 0,		/* Const bytea: pg_gpu_agg_task (key types, order) */
	GPUSORT_SLOT_ATTNOS,		/* IntList: the keys' columns, from 1 */
	GPUSORT_SLOT_SORTOPS,		/* OidList */
	GPUSORT_SLOT_COLLATIONS,	/* OidList */
	GPUSORT_SLOT_NULLS_FIRST	/* IntList */
} GpuSortSlotPrivate;

extern CustomScanMethods gpuagg_scan_methods;
extern CustomScanMethods gpusort_scan_methods;
extern CustomScanMethods gpuhashjoin_scan_methods;
extern CustomScanMethods gpusemijoin_scan_methods;

/* Fill the task's attribute layout from the relation; false if not decodable. */
extern bool PgGpuFillLayout(Relation rel, pg_gpu_agg_task *task);

/* exec_agg.cpp: the fallback reason of an engine status */
extern PgGpuFallback PgGpuFallbackFor(pg_gpu_status st);

/* exec_agg.cpp: count a fallback, and warn under pg_gpu.expect_gpu unless expected */
extern void PgGpuNoteFallback(PgGpuNode node, PgGpuFallback reason, const char *msg);

/* exec_sort_slot.cpp: the state of a GpuSort over a child plan */
extern Node *PgGpuCreateSortSlotState(CustomScan *cscan);

/*
 * custom_private of a GpuHashJoin or GpuSemiJoin over a child plan that gives
 * the probe rows (scanrelid 0; custom_plans: PostgreSQL's join, the build plan,
 * the probe plan).  The scan tuple is the probe plan's row, then an inner
 * join's build row after its key (custom_scan_tlist); custom_exprs holds the
 * probe key, over the scan tuple's probe columns.
 */
typedef enum GpuJoinSlotPrivate
{
	GPUJOIN_SLOT_TASK = 0,		/* Const bytea: pg_gpu_agg_task (the set's type) */
	GPUJOIN_SLOT_SETS,			/* List: the key set's source (expr_compile.h) */
	GPUJOIN_SLOT_JOINTYPE,		/* Integer: JOIN_INNER, JOIN_SEMI or JOIN_ANTI */
	GPUJOIN_SLOT_VALTYPE,		/* Integer: the probe key's pg_gpu_coltype */
	GPUJOIN_SLOT_NPROBE			/* Integer: the probe row's columns */
} GpuJoinSlotPrivate;

/* exec_join_slot.cpp: the state of such a join */
extern Node *PgGpuCreateJoinSlotState(CustomScan *cscan);

#endif							/* PG_GPU_GPUAGG_H */
