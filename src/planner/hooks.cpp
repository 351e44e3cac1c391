/*
 * hooks.cpp — pg_gpu's planner hooks: where each GPU node's planning is called
 * from.  create_upper_paths_hook offers GpuAgg at UPPERREL_GROUP_AGG
 * (gpuagg_plan.cpp) and GpuSort at UPPERREL_ORDERED (gpusort_plan.cpp);
 * set_join_pathlist_hook offers GpuHashJoin and GpuSemiJoin (gpujoin_plan.cpp),
 * after keeping GPU nodes off nested loops' inner sides (rescan.cpp).  No GPU
 * path in a query level rerun per outer row (PgGpuLevelRescanned).
 * Each hook calls the previous one first, then its node's planner inside the
 * error guard, in a database where the extension is installed (extension.cpp).
 */
extern "C" {
#include "postgres.h"

#include "optimizer/paths.h"
#include "optimizer/planner.h"

#include "pg_gpu.h"
#include "nodes/gpuagg.h"
#include "nodes/gpujoin.h"
#include "nodes/gpusort.h"
#include "planner/planner.h"
}

#include "guard.h"

static create_upper_paths_hook_type prev_upper_paths_hook = NULL;
static set_join_pathlist_hook_type prev_join_pathlist_hook = NULL;

/*
 * A join's paths for one pair of inputs: first PostgreSQL's nested loops that
 * would rescan a GPU node below them are fixed (rescan.cpp), whatever the
 * level; then, in a level that runs once, the GPU's own paths.
 */
static void
GpuJoinPathsImpl(PlannerInfo *root, RelOptInfo *joinrel, RelOptInfo *outerrel,
				 RelOptInfo *innerrel, JoinPathExtraData *extra)
{
	/* no GPU path anywhere in a query planned without a GPU (each node checks) */
	if (!pg_gpu_force && !PgGpuDeviceLikely())
		return;
	PgGpuShieldNestLoops(root, joinrel, outerrel, innerrel, extra);
	if (!PgGpuLevelRescanned(root))
		PgGpuJoinPaths(root, joinrel, outerrel, innerrel);
}

static void
GpuJoinPathsHook(PlannerInfo *root, RelOptInfo *joinrel, RelOptInfo *outerrel,
				 RelOptInfo *innerrel, JoinType jointype, JoinPathExtraData *extra)
{
	if (prev_join_pathlist_hook)
		prev_join_pathlist_hook(root, joinrel, outerrel, innerrel, jointype, extra);
	if (!pg_gpu_enabled || !PgGpuExtensionPresent())
		return;
	PG_GPU_GUARD(GpuJoinPathsImpl(root, joinrel, outerrel, innerrel, extra));
}

static void
GpuUpperPathsHook(PlannerInfo *root, UpperRelationKind stage, RelOptInfo *input_rel,
				  RelOptInfo *output_rel, void *extra)
{
	if (prev_upper_paths_hook)
		prev_upper_paths_hook(root, stage, input_rel, output_rel, extra);
	/* a level rerun per outer row: no GPU node (rescan.cpp) */
	if (!pg_gpu_enabled || (stage != UPPERREL_ORDERED && stage != UPPERREL_GROUP_AGG) ||
		PgGpuLevelRescanned(root) || !PgGpuExtensionPresent())
		return;
	if (stage == UPPERREL_ORDERED)
	{
		PG_GPU_GUARD(PgGpuSortPaths(root, input_rel, output_rel));
		return;
	}
	if (stage != UPPERREL_GROUP_AGG)
		return;
	PG_GPU_GUARD(PgGpuAggPaths(root, input_rel, output_rel, (GroupPathExtraData *) extra));
}

void
PgGpuPlannerInit(void)
{
	prev_upper_paths_hook = create_upper_paths_hook;
	create_upper_paths_hook = GpuUpperPathsHook;
	prev_join_pathlist_hook = set_join_pathlist_hook;
	set_join_pathlist_hook = GpuJoinPathsHook;
}
