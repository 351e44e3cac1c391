/*
 * rescan.cpp — keeping GPU nodes out of the places PostgreSQL reruns a plan once
 * per outer row (issue 31).
 *
 * A GPU node pays for every run: the engine's start, a pass over the probe
 * table's pages, the build side's keys collected and a key set built.  None of
 * the nodes keeps what it built across a rescan (each ReScan callback releases
 * it all), so a plan that reruns one per outer row pays that per row: TPC-H Q2
 * at scale 5 ran a GpuHashJoin under its correlated SubPlan 11,138 times and
 * timed out at 60 s against PostgreSQL's 1.4 s.  Two places rerun plans:
 *
 *   - a correlated subquery (a SubPlan with parameters, a LATERAL subquery in
 *     FROM): the whole query level reruns whenever the outer row changes.  Its
 *     planner root has an ancestor whose plan_params hold the values it reads
 *     (subselect.c puts them there while the level is planned), so no GPU path
 *     is offered anywhere in it (PgGpuLevelRescanned);
 *   - the inner side of a nested loop, which the executor rescans for each
 *     outer row.  A GPU path can reach it as any join input or subquery scan,
 *     and its cost says nothing of rescans: PostgreSQL charges a CustomScan's
 *     full cost per rescan, and under pg_gpu.force that cost is zero.  So after
 *     PostgreSQL's paths for each pair of join inputs, a nested loop whose
 *     inner side holds a GPU path not below a Material is replaced by the same
 *     loop over a Material of that inner side (the GPU node runs once), or
 *     dropped where the inner side is parameterized (PgGpuShieldNestLoops).
 *
 * pg_gpu.force does not lift either rule: it prefers the GPU where a GPU node
 * runs once, and never buys a plan that reruns one per row.  An uncorrelated
 * SubPlan runs once (an InitPlan, a hashed SubPlan, or a SubPlan under the
 * Material that make_subplan adds), so its GPU paths stay.
 */
extern "C" {
#include "postgres.h"

#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"

#include "pg_gpu.h"
#include "planner/planner.h"
#include "nodes/gpuagg.h"
#include "nodes/gpujoin.h"
#include "nodes/gpusort.h"
}


bool
PgGpuLevelRescanned(PlannerInfo *root)
{
	for (PlannerInfo *r = root->parent_root; r != NULL; r = r->parent_root)
		if (r->plan_params != NIL)
			return true;
	return false;
}

/*
 * Whether a rescan of path reruns a GPU node: one in the path's tree, not below
 * a Material (which, with no changed parameters, replays its rows).  Other
 * nodes that may keep their rows across a rescan (a Sort, a Hash of one batch)
 * do so only under conditions fixed at execution, so they do not count.
 */
static bool
reruns_gpu(Path *path)
{
	ListCell   *lc;

	if (path == NULL)
		return false;
	check_stack_depth();
	switch (nodeTag(path))
	{
		case T_MaterialPath:
			return false;
		case T_CustomPath:
			if (PgGpuIsAggPath(path) || PgGpuIsSortPath(path) || PgGpuIsJoinPath(path))
				return true;
			foreach(lc, ((CustomPath *) path)->custom_paths)
				if (reruns_gpu((Path *) lfirst(lc)))
					return true;
			return false;
		case T_NestPath:
		case T_MergePath:
		case T_HashPath:
			return reruns_gpu(((JoinPath *) path)->outerjoinpath) ||
				reruns_gpu(((JoinPath *) path)->innerjoinpath);
		case T_AppendPath:
			foreach(lc, ((AppendPath *) path)->subpaths)
				if (reruns_gpu((Path *) lfirst(lc)))
					return true;
			return false;
		case T_MergeAppendPath:
			foreach(lc, ((MergeAppendPath *) path)->subpaths)
				if (reruns_gpu((Path *) lfirst(lc)))
					return true;
			return false;
		case T_SubqueryScanPath:
			return reruns_gpu(((SubqueryScanPath *) path)->subpath);
		case T_ForeignPath:
			return reruns_gpu(((ForeignPath *) path)->fdw_outerpath);
		case T_MemoizePath:
			return reruns_gpu(((MemoizePath *) path)->subpath);
		case T_UniquePath:
			return reruns_gpu(((UniquePath *) path)->subpath);
		case T_GatherPath:
			return reruns_gpu(((GatherPath *) path)->subpath);
		case T_GatherMergePath:
			return reruns_gpu(((GatherMergePath *) path)->subpath);
		case T_ProjectionPath:
			return reruns_gpu(((ProjectionPath *) path)->subpath);
		case T_ProjectSetPath:
			return reruns_gpu(((ProjectSetPath *) path)->subpath);
		case T_SortPath:
			return reruns_gpu(((SortPath *) path)->subpath);
		case T_IncrementalSortPath:
			return reruns_gpu(((IncrementalSortPath *) path)->spath.subpath);
		case T_GroupPath:
			return reruns_gpu(((GroupPath *) path)->subpath);
		case T_UpperUniquePath:
			return reruns_gpu(((UpperUniquePath *) path)->subpath);
		case T_AggPath:
			return reruns_gpu(((AggPath *) path)->subpath);
		case T_GroupingSetsPath:
			return reruns_gpu(((GroupingSetsPath *) path)->subpath);
		case T_WindowAggPath:
			return reruns_gpu(((WindowAggPath *) path)->subpath);
		case T_SetOpPath:
			return reruns_gpu(((SetOpPath *) path)->subpath);
		case T_RecursiveUnionPath:
			return reruns_gpu(((RecursiveUnionPath *) path)->leftpath) ||
				reruns_gpu(((RecursiveUnionPath *) path)->rightpath);
		case T_LockRowsPath:
			return reruns_gpu(((LockRowsPath *) path)->subpath);
		case T_LimitPath:
			return reruns_gpu(((LimitPath *) path)->subpath);
		default:
			/* scans, Result, MinMaxAgg (its subplans run as InitPlans) */
			return false;
	}
}

/*
 * The nested loops of joinrel that PostgreSQL built over this pair of inputs
 * (outerrel, innerrel) rescanning a GPU node, replaced: over a Material of the
 * inner side where it is not parameterized (as match_unsorted_outer builds
 * it), else dropped, unless that would leave the join no path at all.  The
 * set_join_pathlist_hook runs after each pair's paths, so the loops of earlier
 * pairs were replaced already.
 */
static List *
shield_list(RelOptInfo *outerrel, RelOptInfo *innerrel, List *paths, List **redo)
{
	List	   *keep = NIL;
	ListCell   *lc;

	foreach(lc, paths)
	{
		Path	   *p = (Path *) lfirst(lc);
		JoinPath   *jp = (JoinPath *) p;

		if (!IsA(p, NestPath) || !reruns_gpu(jp->innerjoinpath) ||
			jp->outerjoinpath->parent != outerrel || jp->innerjoinpath->parent != innerrel)
		{
			keep = lappend(keep, p);
			continue;
		}
		if (PATH_REQ_OUTER(jp->innerjoinpath) == NULL)
			*redo = lappend(*redo, p);
	}
	return keep;
}

void
PgGpuShieldNestLoops(PlannerInfo *root, RelOptInfo *joinrel, RelOptInfo *outerrel,
					 RelOptInfo *innerrel, JoinPathExtraData *extra)
{
	List	   *redo = NIL;
	List	   *redo_partial = NIL;
	List	   *keep;
	ListCell   *lc;

	keep = shield_list(outerrel, innerrel, joinrel->pathlist, &redo);
	/* nothing else to plan the join with: keep the loops (a rescan is slow, not wrong) */
	if (keep == NIL && redo == NIL)
		return;
	joinrel->pathlist = keep;
	joinrel->partial_pathlist = shield_list(outerrel, innerrel, joinrel->partial_pathlist,
											&redo_partial);
	foreach(lc, redo)
	{
		NestPath   *np = (NestPath *) lfirst(lc);
		Path	   *inner = (Path *) create_material_path(innerrel, np->jpath.innerjoinpath);
		JoinCostWorkspace ws;

		initial_cost_nestloop(root, &ws, np->jpath.jointype, np->jpath.outerjoinpath, inner,
							  extra);
		add_path(joinrel, (Path *) create_nestloop_path(root, joinrel, np->jpath.jointype, &ws,
														 extra, np->jpath.outerjoinpath, inner,
														 np->jpath.joinrestrictinfo,
														 np->jpath.path.pathkeys,
														 PATH_REQ_OUTER(&np->jpath.path)));
	}
	foreach(lc, redo_partial)
	{
		NestPath   *np = (NestPath *) lfirst(lc);
		Path	   *inner = (Path *) create_material_path(innerrel, np->jpath.innerjoinpath);
		JoinCostWorkspace ws;

		if (!inner->parallel_safe)
			continue;
		initial_cost_nestloop(root, &ws, np->jpath.jointype, np->jpath.outerjoinpath, inner,
							  extra);
		add_partial_path(joinrel,
						 (Path *) create_nestloop_path(root, joinrel, np->jpath.jointype, &ws,
													   extra, np->jpath.outerjoinpath, inner,
													   np->jpath.joinrestrictinfo,
													   np->jpath.path.pathkeys, NULL));
	}
}

/*
 * Whether a relation of relids filters its rows with a correlated SubPlan (one
 * passed values of the row: args).  PostgreSQL runs such a filter on the rows
 * its join order leaves (TPC-H Q20: the partsupp rows of the parts chosen,
 * through an index), and its costs weigh that; a GPU join reads its tables
 * whole, so the filter would run for every row (Q20 at scale 5, forced: 49 s
 * against 0.66 s).  Costs decide where they count; pg_gpu.force, which ignores
 * them, refuses such a join instead (gpujoin_plan.cpp).
 */
static bool
has_correlated_subplan(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, SubPlan) && ((SubPlan *) node)->args != NIL)
		return true;
	return expression_tree_walker(node, (bool (*)()) (void *) has_correlated_subplan, context);
}

bool
PgGpuFiltersWithCorrelatedSubplan(PlannerInfo *root, Relids relids)
{
	int			relid = -1;

	while ((relid = bms_next_member(relids, relid)) >= 0)
	{
		RelOptInfo *rel = root->simple_rel_array[relid];
		ListCell   *lc;

		if (rel == NULL || rel->reloptkind != RELOPT_BASEREL)
			continue;
		foreach(lc, rel->baserestrictinfo)
			if (has_correlated_subplan((Node *) lfirst_node(RestrictInfo, lc)->clause, NULL))
				return true;
	}
	return false;
}
