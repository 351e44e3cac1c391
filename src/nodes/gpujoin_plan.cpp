/*
 * gpujoin_plan.cpp — planning GpuHashJoin (inner joins) and GpuSemiJoin (semi-
 * and anti-joins), from set_join_pathlist_hook.
 *
 * A join of one plain table with the rest on one equality (setjoin.cpp; a semi-
 * or anti-join's may add inner.b <> outer.x) whose output reads that table alone: the GPU scans the table's pages, probing a key
 * set of the rest (the build side), and hands back the rows that pass, an inner
 * join's once per equal key.  A GpuHashJoin whose output reads the build side
 * too keeps the build plan's rows and pairs them on the CPU (where the build
 * side is one plain table, a rows task reads those rows from its pages on the
 * GPU and the plan never runs: PgGpuJoinSetTest, keysets_rows.cpp).  Failing
 * that, the same nodes over the plan of one of the join's two inputs (the slot
 * path), whose rows pass through the CPU in batches.  The fallback is the cheapest of
 * PostgreSQL's own paths for the join that the hook sees.
 */
extern "C" {
#include "postgres.h"

#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "parser/parsetree.h"
#include "utils/lsyscache.h"

#include "pg_gpu.h"
#include "pg_gpu_engine.h"
#include "expr/expr_compile.h"
#include "planner/planner.h"
#include "planner/setjoin.h"
#include "nodes/gpujoin.h"
}


#include "guard.h"

static Plan *PlanGpuJoinPath(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
							 List *tlist, List *clauses, List *custom_plans);

/* The joins over the probe table's pages */
static const CustomPathMethods gpuhashjoin_path_methods = {
	"GpuHashJoin",
	PlanGpuJoinPath,
	NULL
};

static const CustomPathMethods gpusemijoin_path_methods = {
	"GpuSemiJoin",
	PlanGpuJoinPath,
	NULL
};

static Plan *PlanGpuJoinSlotPath(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
								 List *tlist, List *clauses, List *custom_plans);

/* The same nodes over a child plan that gives the probe rows */
static const CustomPathMethods gpuhashjoin_slot_path_methods = {
	"GpuHashJoin",
	PlanGpuJoinSlotPath,
	NULL
};

static const CustomPathMethods gpusemijoin_slot_path_methods = {
	"GpuSemiJoin",
	PlanGpuJoinSlotPath,
	NULL
};

static inline bool
is_gpujoin_path(Path *path)
{
	const CustomPathMethods *m;

	if (!IsA(path, CustomPath))
		return false;
	m = ((CustomPath *) path)->methods;
	return m == &gpuhashjoin_path_methods || m == &gpusemijoin_path_methods ||
		m == &gpuhashjoin_slot_path_methods || m == &gpusemijoin_slot_path_methods;
}

bool
PgGpuIsJoinPath(Path *path)
{
	return is_gpujoin_path(path);
}

/*
 * A copy of one of PostgreSQL's join paths for joinrel, for the GPU join's
 * fallback.
 * add_path frees the paths it drops from the join rel's list, and the join rel
 * is still being built: a later pair of inputs may bring a cheaper path.  The
 * copy's inputs belong to finished relations, so they stay.  NULL for a path
 * of another kind.
 */
static Path *
copy_join_path(Path *p)
{
	size_t		size;
	Path	   *copy;

	switch (nodeTag(p))
	{
		case T_NestPath:
			size = sizeof(NestPath);
			break;
		case T_MergePath:
			size = sizeof(MergePath);
			break;
		case T_HashPath:
			size = sizeof(HashPath);
			break;
		default:
			return NULL;
	}
	copy = (Path *) palloc(size);
	memcpy(copy, p, size);
	return copy;
}

/*
 * PostgreSQL's own plan for a GPU node's fallback: path, or where path is a
 * GpuHashJoin or GpuSemiJoin, the join it falls back to (the GPU node above would scan the same
 * pages, and fail the same way).
 */
Path *
PgGpuJoinCpuPath(PlannerInfo *root, Path *path)
{
	if (IsA(path, ProjectionPath))
	{
		Path	   *sub = ((ProjectionPath *) path)->subpath;
		Path	   *cpu = PgGpuJoinCpuPath(root, sub);

		return cpu == sub ? path
			: (Path *) create_projection_path(root, path->parent, cpu, path->pathtarget);
	}
	if (IsA(path, SortPath))
	{
		Path	   *sub = ((SortPath *) path)->subpath;
		Path	   *cpu = PgGpuJoinCpuPath(root, sub);

		return cpu == sub ? path
			: (Path *) create_sort_path(root, path->parent, cpu, path->pathkeys, -1.0);
	}
	if (is_gpujoin_path(path))
		return (Path *) linitial(((CustomPath *) path)->custom_paths);
	return path;
}

/*
 * An inner join whose build side is a join over a table of many times the
 * probe side's rows, or such a table with children (a partitioned table, an
 * inheritance parent): they would pass through the host into a key set, the
 * wrong way round for a hash join (TPC-H Q9 forced, where every GPU path costs
 * nothing: part's filtered rows probing the keys of lineitem joined to
 * partsupp, cancelled after 40 s).  The table's rows, after its own filters,
 * not the join's estimate, which PostgreSQL makes far too low for a join on
 * two columns (each clause's selectivity multiplied).  Not offered, forced or
 * not; a plain table's keys, collected on the GPU, may outnumber the probe's.
 * Forced, such a join also evaluated the big side's filter on every row where
 * PostgreSQL's plans first join a table that turns out empty (the fuzzer's
 * seed 41: an overflow PostgreSQL never raised).
 */
static bool
build_side_too_big(PlannerInfo *root, const PgGpuSetJoin *sj)
{
	double		most = 0;
	int			relid = -1;

	if (sj->jointype != JOIN_INNER)
		return false;
	/* a plain table's keys come from its pages, on the GPU */
	if (sj->build->reloptkind == RELOPT_BASEREL && sj->build->rtekind == RTE_RELATION &&
		!planner_rt_fetch(sj->build->relid, root)->inh)
		return false;
	while ((relid = bms_next_member(sj->build->relids, relid)) >= 0)
		if (root->simple_rel_array[relid] != NULL)
			most = Max(most, root->simple_rel_array[relid]->rows);
	return most > 10.0 * Max(sj->probe->rows, 1000.0);
}

/*
 * GpuHashJoin or GpuSemiJoin over the probe table's pages (PgGpuJoinPaths),
 * with PostgreSQL's join cpu as its fallback; false if the join is not one.
 */
static bool
gpujoin_heap_path(PlannerInfo *root, RelOptInfo *joinrel, Path *cpu)
{
	PgGpuSetJoin sj;
	RangeTblEntry *rte;
	pg_gpu_agg_task *task;
	PgGpuCompiler comp;
	List	   *quals,
			   *join_quals,
			   *probe_vars = NIL,
			   *build_vars = NIL;
	ListCell   *lc;

	memset(&sj, 0, sizeof(sj));
	if (!PgGpuFindSetJoin(root, joinrel, &sj) || build_side_too_big(root, &sj) ||
		sj.probe->cheapest_total_path == NULL ||
		(rte = PgGpuPlainTable(root, sj.probe, sj.probe->cheapest_total_path->total_cost)) == NULL)
		return false;
	if (!PgGpuJoinOutput(joinrel->reltarget->exprs, &sj, &probe_vars, &build_vars))
		return false;
	/*
	 * The build side's columns too: an inner join's, beside the probe table's
	 * own columns (its scan tuple is put together from them, no system column
	 * or whole row).
	 */
	if (build_vars != NIL)
	{
		if (sj.jointype != JOIN_INNER)
			return false;
		foreach(lc, probe_vars)
			if (((Var *) lfirst(lc))->varattno <= 0)
				return false;
	}
	task = (pg_gpu_agg_task *) palloc0(sizeof(pg_gpu_agg_task));
	PgGpuPlannerCompilerInit(&comp, task, sj.probe->relid, root);
	quals = PgGpuOrderedQuals(root, sj.probe->baserestrictinfo);
	if (build_vars != NIL)
	{
		/*
		 * The output reads the build side: each matching probe row once, sorted
		 * by the ordinal of its key in the set, so that the executor pairs the
		 * rows with the build plan's rows of that key, kept in the same order.
		 */
		Integer    *unique;
		int			set;

		PgGpuKeepBuildRows(root, &sj, build_vars);
		if ((join_quals = PgGpuJoinSetTest(root, &comp, &sj, rte->relid, &unique, &set, true)) == NIL ||
			!PgGpuCompileSetValue(&comp, sj.probe_key, sj.keytype, set, true, &task->keys[0]))
			return false;
		task->nkeys = 1;
	}
	else if (!PgGpuJoinRowsTest(root, &comp, task, &sj, rte->relid, &join_quals))
		return false;
	if (!PgGpuCompileQuals(&comp, list_concat_copy(quals, join_quals), &task->filter) ||
		!PgGpuFinishPrograms(&comp) || !PgGpuRelationSupported(rte->relid, task) ||
		!pg_gpu_sort_words_ok(task))
		return false;
	task->sort = 1;

	CustomPath *cpath = makeNode(CustomPath);

	cpath->path.pathtype = T_CustomScan;
	cpath->path.parent = joinrel;
	cpath->path.pathtarget = joinrel->reltarget;
	cpath->path.rows = joinrel->rows;
	/*
	 * The probe table's pages and the build side's keys; then the rows come
	 * back.  Reading the build side's columns also copies each build row, and
	 * puts each output row together after an equality test: on the H100 host
	 * (bench Q5bp) about 0.25 us a build row and 0.45 us an output row, several
	 * times a plain row's hand-over.  sj.build_cost is the build plan's cost and
	 * its keys' collection on the host (PgGpuHostKeysCost), or where a rows
	 * task reads the build table, the GPU's scan of it and the host's work per
	 * row (PgGpuKeptRowsCost).  Under pg_gpu.force, free: no path
	 * PostgreSQL adds for another pair of inputs can then push it out, so the
	 * fallback it tracks stays.
	 */
	cpath->path.startup_cost = PgGpuScanCost(sj.probe, 1.0) + sj.build_cost +
		(build_vars != NIL ? sj.build_path->rows * 2 * cpu_tuple_cost : 0.0);
	cpath->path.total_cost = cpath->path.startup_cost +
		joinrel->rows * (build_vars != NIL ? 4 * cpu_tuple_cost + cpu_operator_cost
						 : cpu_tuple_cost) + PgGpuHandoffCost(root, joinrel, joinrel->rows);
	if (pg_gpu_force)
		cpath->path.startup_cost = cpath->path.total_cost = 0.0;
	/*
	 * No CUSTOMPATH_SUPPORT_PROJECTION: the fallback hands up its child's rows
	 * as they are, so the output must stay the join's own.
	 */
	cpath->flags = 0;
	cpath->custom_paths = list_make2(cpu, sj.build_path);
	GpuJoinPrivate priv;

	memset(&priv, 0, sizeof(priv));
	priv.task = PgGpuTaskConst(task);
	priv.filter_text = PgGpuFilterText(quals, rte->relid, sj.probe->relid);
	priv.sets = comp.set_sources;
	priv.relid = sj.probe->relid;
	if (build_vars != NIL)
	{
		/*
		 * The scan tuple: the probe table's columns the output reads, then the
		 * build side's; priv.from says where each comes from.
		 */
		OpExpr	   *op = (OpExpr *) sj.clause;
		List	   *scan_tlist = NIL,
				   *from = NIL;

		foreach(lc, probe_vars)
		{
			scan_tlist = lappend(scan_tlist, makeTargetEntry((Expr *) copyObject(lfirst(lc)),
															 list_length(scan_tlist) + 1,
															 NULL, false));
			from = lappend_int(from, ((Var *) lfirst(lc))->varattno);
		}
		foreach(lc, build_vars)
		{
			scan_tlist = lappend(scan_tlist, makeTargetEntry((Expr *) copyObject(lfirst(lc)),
															 list_length(scan_tlist) + 1,
															 NULL, false));
			from = lappend_int(from, -(1 + foreach_current_index(lc) + 1));
		}
		priv.scan_tlist = scan_tlist;
		priv.probe_key = (Expr *) copyObject(sj.probe_key);
		priv.from = from;
		priv.eq = list_make2_oid(get_opcode(op->opno), op->inputcollid);
		priv.probe_left = linitial(op->args) == sj.probe_key;
	}
	cpath->custom_private = GpuJoinPrivateBuild(&priv, true);
	cpath->methods = sj.jointype == JOIN_INNER ? &gpuhashjoin_path_methods
		: &gpusemijoin_path_methods;
	PgGpuDropRiskyNestLoops(joinrel, cpath->path.total_cost);
	PgGpuAddPath(joinrel, &cpath->path);
	return true;
}


/*
 * GpuHashJoin or GpuSemiJoin whose probe rows come from a child plan, any plan
 * of one of the join's two inputs (PgGpuFindSetJoinSides): the executor takes
 * its rows in batches, computes their keys on the CPU, has the GPU probe the
 * key set with them, and hands back the rows that match (an anti-join's that
 * do not), an inner join's paired with each build row of an equal key.  The
 * rows pass through the CPU, so this wins only where the key set saves
 * PostgreSQL more than that costs: a large build side, say, whose hash table
 * PostgreSQL would spill to disk.  The cost says so.
 */
static void
gpujoin_slot_path(PlannerInfo *root, RelOptInfo *joinrel, Path *cpu, RelOptInfo *outerrel,
				  RelOptInfo *innerrel)
{
	PgGpuSetJoin sj;
	pg_gpu_agg_task *task;
	PgGpuCompiler comp;
	Integer    *unique;
	int			set;
	int			valtype;
	Path	   *probe_path;
	List	   *probe_vars,
			   *build_vars;
	ListCell   *lc;

	memset(&sj, 0, sizeof(sj));
	if (!PgGpuFindSetJoinSides(root, joinrel, outerrel, innerrel, &sj) || build_side_too_big(root, &sj) ||
		!PgGpuJoinOutput(joinrel->reltarget->exprs, &sj, &probe_vars, &build_vars) ||
		(build_vars != NIL && sj.jointype != JOIN_INNER))
		return;
	probe_path = sj.probe->cheapest_total_path;
	/* the probe plan's columns are the scan tuple's first: plain Vars */
	foreach(lc, probe_path->pathtarget->exprs)
		if (!IsA(lfirst(lc), Var) || ((Var *) lfirst(lc))->varattno == 0)
			return;
	/* the key (and a <>'s x), computed over the probe plan's row, and its value's type */
	{
		List	   *vars = pull_var_clause((Node *) list_make2(sj.probe_key, sj.ne_probe),
										   PVC_INCLUDE_PLACEHOLDERS);

		foreach(lc, vars)
			if (!IsA(lfirst(lc), Var) ||
				!list_member(probe_path->pathtarget->exprs, lfirst(lc)))
				return;
	}
	valtype = PgGpuValueType(exprType((Node *) sj.probe_key));
	if (valtype == 0 || PgGpuSetType(valtype) != PgGpuSetType(sj.keytype))
		return;
	if (sj.ne_probe != NULL && PgGpuSetType(PgGpuValueType(exprType((Node *) sj.ne_probe))) != PG_GPU_INT8)
		return;

	/*
	 * An inner join keeps the build plan's rows (its key, then the columns the
	 * output reads): each probe row's match is paired with every build row of
	 * its key, whose count only they tell.
	 */
	if (sj.jointype == JOIN_INNER)
		PgGpuKeepBuildRows(root, &sj, build_vars);
	task = (pg_gpu_agg_task *) palloc0(sizeof(pg_gpu_agg_task));
	PgGpuPlannerCompilerInit(&comp, task, 0, root);
	if (PgGpuJoinSetTest(root, &comp, &sj, InvalidOid, &unique, &set,
					  sj.jointype == JOIN_INNER) == NIL)
		return;

	CustomPath *cpath = makeNode(CustomPath);
	double		probe_rows = probe_path->rows;
	int			key_width = get_typavgwidth(exprType((Node *) sj.probe_key),
											exprTypmod((Node *) sj.probe_key));

	cpath->path.pathtype = T_CustomScan;
	cpath->path.parent = joinrel;
	cpath->path.pathtarget = joinrel->reltarget;
	cpath->path.rows = joinrel->rows;

	/*
	 * The build side's keys (and an inner join's rows, copied), the GPU's
	 * start-up and the first batch; then each probe row copied into a batch
	 * and its key computed and converted (two cpu_tuple_costs and a
	 * cpu_operator_cost: bench Q5p measured 168 ns a row, the probe plan's
	 * scan included), the keys' bytes copied to the GPU as pages are, and each
	 * output row (an inner join's put together from two, as GpuHashJoin over
	 * pages charges).  Under pg_gpu.force, free (see PgGpuJoinPaths).
	 */
	/* a <>'s x: computed and sent beside the key */
	if (sj.ne_probe != NULL)
		key_width += 9;

	double		probe_cost = (probe_path->total_cost - probe_path->startup_cost) +
		probe_rows * ((2 + (sj.ne_probe != NULL ? 1 : 0)) * cpu_tuple_cost + cpu_operator_cost) +
		probe_rows * (key_width + 8) / BLCKSZ * pg_gpu_copy_page_cost;
	double		first = probe_rows > 0 ? Min(1.0, pg_gpu_join_batch_rows / probe_rows) : 1.0;

	cpath->path.startup_cost = probe_path->startup_cost + sj.build_cost + PgGpuStartupCost() +
		(sj.jointype == JOIN_INNER ? sj.build_path->rows * 2 * cpu_tuple_cost : 0.0) +
		first * probe_cost;
	cpath->path.total_cost = cpath->path.startup_cost + (1.0 - first) * probe_cost +
		joinrel->rows * (sj.jointype == JOIN_INNER ? 4 * cpu_tuple_cost + cpu_operator_cost
						 : cpu_tuple_cost) + PgGpuHandoffCost(root, joinrel, joinrel->rows);
	if (pg_gpu_force)
		cpath->path.startup_cost = cpath->path.total_cost = 0.0;
	/* no projection: the fallback hands up its child's rows as they are */
	cpath->flags = 0;
	cpath->custom_paths = list_make3(cpu, sj.build_path, probe_path);
	GpuJoinSlotPrivate priv;

	memset(&priv, 0, sizeof(priv));
	priv.task = PgGpuTaskConst(task);
	priv.sets = comp.set_sources;
	priv.jointype = (int) sj.jointype;
	priv.valtype = valtype;
	priv.probe_key = (Expr *) copyObject(sj.probe_key);
	if (sj.ne_probe != NULL)
	{
		priv.ne_valtype = PgGpuValueType(exprType((Node *) sj.ne_probe));
		priv.ne_probe = (Expr *) copyObject(sj.ne_probe);
	}
	cpath->custom_private = GpuJoinSlotPrivateBuild(&priv, true);
	cpath->methods = sj.jointype == JOIN_INNER ? &gpuhashjoin_slot_path_methods
		: &gpusemijoin_slot_path_methods;
	PgGpuDropRiskyNestLoops(joinrel, cpath->path.total_cost);
	PgGpuAddPath(joinrel, &cpath->path);
}

/*
 * The plan: the scan tuple is the probe plan's row followed by the build row's
 * columns after its key (an inner join's), custom_scan_tlist naming them; the
 * probe key, an expression over those, is custom_exprs' one item.
 */
static Plan *
PlanGpuJoinSlotPathImpl(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
						List *tlist, List *custom_plans)
{
	CustomScan *cscan = makeNode(CustomScan);
	GpuJoinSlotPrivate priv;
	Plan	   *build = (Plan *) lsecond(custom_plans);
	Plan	   *probe = (Plan *) lthird(custom_plans);
	List	   *scan_tlist = NIL;
	ListCell   *lc;

	foreach(lc, probe->targetlist)
		scan_tlist = lappend(scan_tlist,
							 makeTargetEntry((Expr *) copyObject(lfirst_node(TargetEntry, lc)->expr),
											 list_length(scan_tlist) + 1, NULL, false));
	if (best_path->methods == &gpuhashjoin_slot_path_methods)
		for_each_from(lc, build->targetlist, 1)
			scan_tlist = lappend(scan_tlist,
								 makeTargetEntry((Expr *) copyObject(lfirst_node(TargetEntry, lc)->expr),
												 list_length(scan_tlist) + 1, NULL, false));
	cscan->scan.plan.targetlist = tlist;
	cscan->scan.scanrelid = 0;
	cscan->flags = best_path->flags;
	cscan->custom_plans = custom_plans;
	GpuJoinSlotPrivateRead(best_path->custom_private, &priv, true);
	priv.nprobe = list_length(probe->targetlist);
	cscan->custom_private = GpuJoinSlotPrivateBuild(&priv, false);
	cscan->custom_exprs = list_make1(copyObject(priv.probe_key));
	if (priv.ne_probe != NULL)
		cscan->custom_exprs = lappend(cscan->custom_exprs, copyObject(priv.ne_probe));
	cscan->custom_scan_tlist = scan_tlist;
	cscan->methods = best_path->methods == &gpuhashjoin_slot_path_methods
		? &gpuhashjoin_scan_methods : &gpusemijoin_scan_methods;
	return &cscan->scan.plan;
}

PG_GPU_PLAN_CUSTOM_PATH(PlanGpuJoinSlotPath)

/*
 * Rows of a join, unordered (set_join_pathlist_hook): a semi-, anti- or inner
 * join of one table with the rest on one equality (PgGpuFindSetJoin), whose
 * output reads that table alone.  GpuHashJoin (inner) or GpuSemiJoin (semi,
 * anti) scans the table's pages like GpuSort, probing a key set of the rest, and
 * hands back the rows that pass (an inner join's once per equal key) in the
 * order the GPU kept them.  Failing that (the probe side a join, a subquery, a
 * partitioned table, or a table whose scan the GPU cannot read), the same nodes
 * over the plan of one of the two inputs (gpujoin_slot_path).  The fallback is
 * the cheapest of PostgreSQL's paths for the join that the hook sees: it runs
 * once per pair of inputs, after the paths for that pair.  Under pg_gpu.force the GPU path costs nothing, so
 * add_path drops any later path that is neither sorted nor parallel-safe before
 * the hook sees it; the fallback may then be a dearer plan than PostgreSQL's
 * best, which affects speed after a fallback, never the rows.
 */
void
PgGpuJoinPaths(PlannerInfo *root, RelOptInfo *joinrel, RelOptInfo *outerrel,
			   RelOptInfo *innerrel)
{
	Query	   *parse = root->parse;
	CustomPath *prev = NULL;
	Path	   *cpu = NULL;
	ListCell   *lc;

	if (!pg_gpu_enabled || !pg_gpu_enable_gpujoin || IS_DUMMY_REL(joinrel) ||
		parse->commandType != CMD_SELECT || parse->rowMarks != NIL ||
		(!pg_gpu_force && !PgGpuDeviceLikely()) || !PgGpuLayoutOk())
		return;
	/* forced, no join that would run a correlated SubPlan filter on whole tables */
	if (pg_gpu_force && PgGpuFiltersWithCorrelatedSubplan(root, joinrel->relids))
		return;
	foreach(lc, joinrel->pathlist)
	{
		Path	   *p = (Path *) lfirst(lc);

		if (is_gpujoin_path(p))
			prev = (CustomPath *) p;
		else if (p->param_info == NULL && (cpu == NULL || p->total_cost < cpu->total_cost))
			cpu = p;
	}
	if (prev != NULL)
	{
		Path	   *copy;

		if (cpu != NULL && cpu->total_cost < ((Path *) linitial(prev->custom_paths))->total_cost &&
			(copy = copy_join_path(cpu)) != NULL)
			linitial(prev->custom_paths) = copy;
		if (pg_gpu_force)
		{
			joinrel->pathlist = list_make1(prev);
			joinrel->partial_pathlist = NIL;
		}
		return;
	}
	if (cpu == NULL || (cpu = copy_join_path(cpu)) == NULL)
		return;
	if (!gpujoin_heap_path(root, joinrel, cpu))
		gpujoin_slot_path(root, joinrel, cpu, outerrel, innerrel);
}

/*
 * The probe table's own tuples, in the order the GPU kept them; a GpuHashJoin
 * reading the build side too puts its scan tuple together (custom_scan_tlist).
 */
static Plan *
PlanGpuJoinPathImpl(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
					List *tlist, List *custom_plans)
{
	CustomScan *cscan = makeNode(CustomScan);
	GpuJoinPrivate priv;

	GpuJoinPrivateRead(best_path->custom_private, &priv);
	cscan->scan.plan.targetlist = tlist;
	cscan->scan.scanrelid = priv.relid;
	cscan->flags = best_path->flags;
	cscan->custom_plans = custom_plans;
	cscan->custom_private = GpuJoinPrivateBuild(&priv, false);
	if (priv.probe_key != NULL)
		cscan->custom_scan_tlist = (List *) copyObject(priv.scan_tlist);
	cscan->methods = best_path->methods == &gpuhashjoin_path_methods
		? &gpuhashjoin_scan_methods : &gpusemijoin_scan_methods;
	return &cscan->scan.plan;
}

PG_GPU_PLAN_CUSTOM_PATH(PlanGpuJoinPath)
