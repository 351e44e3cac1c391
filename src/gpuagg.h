/*
 * gpuagg.h — what the GpuAgg planner and executor share: the custom_private layout
 * and the scan methods.
 */
#ifndef PG_GPU_GPUAGG_H
#define PG_GPU_GPUAGG_H

/*
 * custom_private of a GpuAgg CustomScan: a List of IntLists, indexed by this enum.
 * Output columns (one per partial Aggref in custom_scan_tlist) carry the state
 * kind, the argument's pg_gpu_coltype and the index of its engine column; engine
 * columns carry the attribute index and the decoded type.
 */
typedef enum GpuAggPrivate
{
	GPUAGG_PRIV_OUT_STATE = 0,
	GPUAGG_PRIV_OUT_COLTYPE,
	GPUAGG_PRIV_OUT_COL,
	GPUAGG_PRIV_COL_ATTIDX,
	GPUAGG_PRIV_COL_TYPE,
	GPUAGG_PRIV_COUNT
} GpuAggPrivate;

extern CustomScanMethods gpuagg_scan_methods;

#endif							/* PG_GPU_GPUAGG_H */
