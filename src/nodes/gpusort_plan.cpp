/*
 * gpusort_plan.cpp — planning GpuSort (UPPERREL_ORDERED).
 *
 * ORDER BY over one table (or over the probe table of a semi-, anti- or inner
 * join whose output and order are that table's own): GpuSort scans the table's
 * pages like GpuAgg, WHERE on the GPU, sorts the passing tuples there and hands
 * them up in order; PostgreSQL's cheapest sorted plan is its fallback child.
 * Keys the GPU orders: fixed-width types, numeric, and text under a byte-order
 * collation, each by its type's default btree order.
 *
 * Any other input (a join, a subquery, a partitioned table): the slot path,
 * GpuSort over the input's plan, whose rows it keeps while the GPU sorts their
 * keys (gpusort_exec_slot.cpp).  Its cost charges the per-row copy, so it wins
 * only where the comparisons it saves outweigh that.
 */
extern "C" {
#include "postgres.h"

#include "catalog/pg_am.h"
#include "commands/defrem.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/cost.h"
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
#include "nodes/gpusort.h"
}


#include "guard.h"

static Plan *PlanGpuSortPath(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
							 List *tlist, List *clauses, List *custom_plans);

/* GpuSort over a table's pages */
static const CustomPathMethods gpusort_path_methods = {
	"GpuSort",
	PlanGpuSortPath,
	NULL
};

/*
 * The engine's type for an ORDER BY item whose order it encodes (fixed-width types,
 * numeric, and text under a byte-order collation), sorted by its type's default
 * btree operator class (ASC or DESC, NULLS FIRST or LAST); 0 if none.
 */
static int
sort_key_type(SortGroupClause *sgc, Expr *expr, bool *desc)
{
	Oid			type = exprType((Node *) expr);
	int			t = type == NUMERICOID ? PG_GPU_NUMERIC : PgGpuValueType(type);
	Oid			opfamily,
				opcintype;
	int16		strategy;

	if (t != PG_GPU_INT2 && t != PG_GPU_INT4 && t != PG_GPU_INT8 && t != PG_GPU_FLOAT4 &&
		t != PG_GPU_FLOAT8 && t != PG_GPU_DATE && t != PG_GPU_TIMESTAMP && t != PG_GPU_BOOL &&
		t != PG_GPU_TEXT && t != PG_GPU_BPCHAR && t != PG_GPU_NUMERIC)
		return 0;
	/* text: a byte sort is the collation's order only under C, POSIX or C.UTF-8 */
	if ((t == PG_GPU_TEXT || t == PG_GPU_BPCHAR) &&
		!PgGpuCollationIsBytewise(exprCollation((Node *) expr)))
		return 0;
	if (!get_ordering_op_properties(sgc->sortop, &opfamily, &opcintype, &strategy) ||
		opfamily != get_opclass_family(GetDefaultOpClass(type, BTREE_AM_OID)) ||
		(opcintype != type && !(t == PG_GPU_TEXT && opcintype == TEXTOID)))
		return 0;
	*desc = (strategy == BTGreaterStrategyNumber);
	return t;
}

/* Top-N: only the first limit_tuples rows come back (WITH TIES needs the rest). */
static int64
sort_limit(PlannerInfo *root)
{
	return root->limit_tuples > 0 && root->limit_tuples < 1e15 &&
		root->parse->limitOption != LIMIT_OPTION_WITH_TIES ? (int64) root->limit_tuples : 0;
}

/* An ORDER BY item GpuSort over a table can take: a column of it (sort_key_type). */
static bool
sort_key(PgGpuCompiler *comp, pg_gpu_agg_task *task, SortGroupClause *sgc, Expr *expr)
{
	int			k = task->nkeys;
	bool		desc = false;
	int			t;

	if (!PgGpuIsTableColumn(expr, comp->relid) || k >= PG_GPU_MAX_KEYS ||
		(t = sort_key_type(sgc, expr, &desc)) == 0)
		return false;
	/* numeric is read only as a sort key: expressions do not take it */
	if (t == PG_GPU_NUMERIC
		? !IsA(expr, Var) ||
		!PgGpuCompileColumnAs(comp, ((Var *) expr)->varattno - 1, t, &task->keys[k])
		: !PgGpuCompileExpr(comp, expr, &task->keys[k]) || task->keys[k].type != t)
		return false;
	task->key_desc[k] = desc;
	task->key_nulls_first[k] = sgc->nulls_first;
	task->nkeys++;
	return pg_gpu_sort_words_ok(task);
}

static Plan *PlanGpuSortSlotPath(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
								 List *tlist, List *clauses, List *custom_plans);

/*
 * The paths of UPPERREL_ORDERED.
 *
 * When the ordered_rel hook runs, input_rel's path list may point at freed
 * paths: create_ordered_paths adds an input path that is already sorted (a
 * Gather Merge over a sorted partial path, say) to ordered_rel itself, and
 * add_path pfrees it there when a cheaper path comes along; input_rel's list
 * and its cheapest_total_path still point at it.  So the GPU paths take their
 * inputs from output_rel's list, whose paths are alive, and never read
 * input_rel's paths.
 */

/*
 * An input path that PostgreSQL sorts explicitly for output_rel (the child of
 * the cheapest of its Sort paths), or NULL.  Such a path was never sorted, so
 * it was never added to output_rel and nothing frees it.
 */
static Path *
sorted_input_path(RelOptInfo *input_rel, RelOptInfo *output_rel)
{
	Path	   *best = NULL;
	ListCell   *lc;

	foreach(lc, output_rel->pathlist)
	{
		Path	   *p = (Path *) lfirst(lc);

		if (IsA(p, ProjectionPath) && p->parent == output_rel)
			p = ((ProjectionPath *) p)->subpath;
		if ((IsA(p, SortPath) || IsA(p, IncrementalSortPath)) && p->parent == output_rel)
		{
			Path	   *sub = ((SortPath *) p)->subpath;

			if (sub->parent == input_rel && sub->param_info == NULL &&
				(best == NULL || sub->total_cost < best->total_cost))
				best = sub;
		}
	}
	return best;
}

/*
 * PostgreSQL's cheapest sorted plan, taken out of output_rel's list for a GPU
 * path's child: left there, a later add_path (the GPU path's own, or the final
 * rel's) could free it under the GPU path.  A projection of the same target and
 * cost takes its place, which plans to the very same nodes.
 */
static Path *
take_ordered_path(PlannerInfo *root, RelOptInfo *output_rel)
{
	Path	   *cheapest = (Path *) linitial(output_rel->pathlist);
	Path	   *stand_in = (Path *) create_projection_path(root, output_rel, cheapest,
														   cheapest->pathtarget);

	/* the list stays ordered by total cost: the stand-in costs the same */
	lfirst(list_head(output_rel->pathlist)) = stand_in;
	return cheapest;
}

static const CustomPathMethods gpusort_slot_path_methods = {
	"GpuSort",
	PlanGpuSortSlotPath,
	NULL
};

bool
PgGpuIsSortPath(Path *path)
{
	return IsA(path, CustomPath) &&
		(((CustomPath *) path)->methods == &gpusort_path_methods ||
		 ((CustomPath *) path)->methods == &gpusort_slot_path_methods);
}

/*
 * ORDER BY over any other input (a join, say): GpuSort pulls the child plan's rows,
 * keeps them, hands their keys to the engine (encoded on the CPU, sorted on the
 * GPU) and emits the rows in the order that comes back; tuplesort over the same
 * rows is its fallback.  Keys are columns of the child's output, so expressions
 * computed below the sort count too.
 */
static void
gpusort_slot_path(PlannerInfo *root, RelOptInfo *input_rel, RelOptInfo *output_rel,
				  PathTarget *target)
{
	Query	   *parse = root->parse;
	Path	   *child = sorted_input_path(input_rel, output_rel);
	/* the columns the keys are found in: the input's, or the sorted plan's */
	List	   *in_exprs = (child ? child : (Path *) linitial(output_rel->pathlist))->pathtarget->exprs;
	pg_gpu_agg_task *task;
	List	   *attnos = NIL,
			   *sortops = NIL,
			   *colls = NIL,
			   *nulls_first = NIL;
	ListCell   *lc;

	if (IS_DUMMY_REL(input_rel))
		return;

	/*
	 * The slot path takes its input one row at a time in this backend; where
	 * PostgreSQL can run the input and the sort in parallel workers, that plan
	 * was faster on the H100 host (Q4j: 4.2 s against 8.2 s), so GpuSort stays
	 * out unless forced.
	 */
	if (!pg_gpu_force && input_rel->partial_pathlist != NIL && max_parallel_workers_per_gather > 0)
		return;
	task = (pg_gpu_agg_task *) palloc0(sizeof(pg_gpu_agg_task));
	foreach(lc, parse->sortClause)
	{
		SortGroupClause *sgc = lfirst_node(SortGroupClause, lc);
		Expr	   *expr = (Expr *) get_sortgroupclause_expr(sgc, parse->targetList);
		int			k = task->nkeys;
		int			col = 0,
					i = 0;
		bool		desc = false;
		ListCell   *lc2;

		foreach(lc2, in_exprs)
		{
			i++;
			if (equal(lfirst(lc2), expr))
			{
				col = i;
				break;
			}
		}
		if (col == 0 || k >= PG_GPU_MAX_KEYS ||
			(task->keys[k].type = (uint8) sort_key_type(sgc, expr, &desc)) == 0)
			return;
		task->key_desc[k] = desc;
		task->key_nulls_first[k] = sgc->nulls_first;
		task->nkeys++;
		attnos = lappend_int(attnos, col);
		sortops = lappend_oid(sortops, sgc->sortop);
		colls = lappend_oid(colls, exprCollation((Node *) expr));
		nulls_first = lappend_int(nulls_first, sgc->nulls_first);
	}
	if (!pg_gpu_sort_words_ok(task))
		return;
	task->sort = 1;
	task->sort_limit = sort_limit(root);
	if (child == NULL)
		child = take_ordered_path(root, output_rel);

	CustomPath *cpath = makeNode(CustomPath);
	double		rows = child->rows;

	cpath->path.pathtype = T_CustomScan;
	cpath->path.parent = output_rel;
	cpath->path.pathtarget = child->pathtarget;
	cpath->path.rows = rows;
	cpath->path.pathkeys = root->sort_pathkeys;

	/*
	 * The child's rows, each copied and its keys encoded on the CPU, then the
	 * GPU's start-up and sort; every row comes back to the executor, fetched in
	 * key order from wherever it was kept.  On the H100 host the copy and the
	 * out-of-order fetch cost about as much as PostgreSQL's own tuplesort spends
	 * around its comparisons (Q4j, bench/RESULTS.md), so each is charged
	 * kSlotRowCost: the GPU path wins over a serial Sort only where the
	 * comparisons it saves (2 cpu_operator_cost log2 N a row) outweigh that.
	 */
	const double kSlotRowCost = 5 * cpu_tuple_cost;

	cpath->path.startup_cost = child->total_cost + PgGpuStartupCost() +
		rows * (kSlotRowCost + task->nkeys * cpu_operator_cost + pg_gpu_tuple_cost);
	cpath->path.total_cost = cpath->path.startup_cost + rows * kSlotRowCost;
	cpath->flags = CUSTOMPATH_SUPPORT_BACKWARD_SCAN;	/* gpusort_scroll.h */
	cpath->custom_paths = list_make1(child);
	GpuSortSlotPrivate priv;

	priv.task = PgGpuTaskConst(task);
	priv.attnos = attnos;
	priv.sortops = sortops;
	priv.collations = colls;
	priv.nulls_first = nulls_first;
	cpath->custom_private = GpuSortSlotPrivateBuild(&priv);
	cpath->methods = &gpusort_slot_path_methods;
	if (equal(child->pathtarget->exprs, target->exprs))
		PgGpuAddPath(output_rel, &cpath->path);
	else
		PgGpuAddPath(output_rel, (Path *) create_projection_path(root, output_rel, &cpath->path,
																 target));
}

static Plan *
PlanGpuSortSlotPathImpl(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
						List *tlist, List *custom_plans)
{
	CustomScan *cscan = makeNode(CustomScan);
	Plan	   *child = (Plan *) linitial(custom_plans);

	/* the scan tuple is the child's row: the plan's output is computed from it */
	cscan->scan.plan.targetlist = tlist;
	cscan->scan.scanrelid = 0;
	cscan->flags = best_path->flags;
	cscan->custom_plans = custom_plans;
	cscan->custom_private = best_path->custom_private;	/* built by GpuSortSlotPrivateBuild */
	cscan->custom_scan_tlist = (List *) copyObject(child->targetlist);
	cscan->methods = &gpusort_scan_methods;
	return &cscan->scan.plan;
}

PG_GPU_PLAN_CUSTOM_PATH(PlanGpuSortSlotPath)


static bool gpusort_heap_path(PlannerInfo *root, RelOptInfo *input_rel, RelOptInfo *scan_rel,
							  RelOptInfo *output_rel, PathTarget *target, PgGpuSetJoin *sj);

/*
 * ORDER BY over one table: GpuSort scans it like GpuAgg (WHERE on the GPU), sorts
 * on the GPU and emits the table's tuples in order; PostgreSQL's own Sort over the
 * cheapest scan is kept as the fallback child.
 */
void
PgGpuSortPaths(PlannerInfo *root, RelOptInfo *input_rel, RelOptInfo *output_rel)
{
	Query	   *parse = root->parse;
	PathTarget *target;

	if (!pg_gpu_enabled || !pg_gpu_enable_gpusort || output_rel->pathlist == NIL)
		return;
	/* the query's output: create_ordered_paths gives it to its sorted paths only */
	target = ((Path *) linitial(output_rel->pathlist))->pathtarget;
	if (!pg_gpu_force && !PgGpuDeviceLikely())
		return;
	if (parse->hasAggs || parse->groupClause || parse->groupingSets || parse->hasWindowFuncs ||
		parse->hasTargetSRFs || parse->distinctClause || parse->rowMarks ||
		parse->sortClause == NIL || root->sort_pathkeys == NIL || !PgGpuLayoutOk())
		return;

	/*
	 * A semi-, anti- or inner join of one table with the rest on one equality,
	 * whose output and order are the table's own: GpuSort scans that table,
	 * probing a key set of the rest (each row once, or for an inner join once
	 * per equal key, as the join emits it).  Any other join, a subquery, a
	 * partitioned table...: the slot path.
	 */
	RelOptInfo *scan_rel = input_rel;
	PgGpuSetJoin sj;

	memset(&sj, 0, sizeof(sj));
	if (input_rel->reloptkind == RELOPT_JOINREL && pg_gpu_enable_gpujoin &&
		PgGpuFindSetJoin(root, input_rel, &sj) && PgGpuProbeOutput(target->exprs, &sj))
		scan_rel = sj.probe;
	else
		memset(&sj, 0, sizeof(sj));
	if (scan_rel->reloptkind != RELOPT_BASEREL || scan_rel->rtekind != RTE_RELATION ||
		planner_rt_fetch(scan_rel->relid, root)->inh ||
		!gpusort_heap_path(root, input_rel, scan_rel, output_rel, target, &sj))
		gpusort_slot_path(root, input_rel, output_rel, target);
}

/*
 * GpuSort over scan_rel's pages (input_rel itself, or the probe side of the set
 * join sj).  False when a set join cannot run this way (the slot path may take
 * the join); a single table that cannot is left to PostgreSQL (true).
 */
static bool
gpusort_heap_path(PlannerInfo *root, RelOptInfo *input_rel, RelOptInfo *scan_rel,
				  RelOptInfo *output_rel, PathTarget *target, PgGpuSetJoin *sj)
{
	Query	   *parse = root->parse;
	RangeTblEntry *rte;
	pg_gpu_agg_task *task;
	PgGpuCompiler comp;
	List	   *quals,
			   *join_quals = NIL;
	ListCell   *lc;

	if ((rte = PgGpuPlainTable(root, scan_rel,
						   sj->probe ? sj->probe->cheapest_total_path->total_cost
						   : ((Path *) linitial(output_rel->pathlist))->total_cost)) == NULL)
		return sj->probe == NULL;

	task = (pg_gpu_agg_task *) palloc0(sizeof(pg_gpu_agg_task));
	PgGpuPlannerCompilerInit(&comp, task, scan_rel->relid, root);
	quals = PgGpuOrderedQuals(root, scan_rel->baserestrictinfo);
	if (sj->probe && !PgGpuJoinRowsTest(root, &comp, task, sj, rte->relid, &join_quals))
		return false;
	if (!PgGpuCompileQuals(&comp, list_concat_copy(quals, join_quals), &task->filter))
		return sj->probe == NULL;
	foreach(lc, parse->sortClause)
	{
		SortGroupClause *sgc = lfirst_node(SortGroupClause, lc);

		if (!sort_key(&comp, task, sgc, (Expr *) get_sortgroupclause_expr(sgc, parse->targetList)))
			return sj->probe == NULL;
	}
	if (!PgGpuFinishPrograms(&comp) || !PgGpuRelationSupported(rte->relid, task))
		return sj->probe == NULL;
	task->sort = 1;
	task->sort_limit = sort_limit(root);

	/* the fallback: PostgreSQL's cheapest sorted plan, with the query's output */
	Path	   *cpu = PgGpuJoinCpuPath(root, take_ordered_path(root, output_rel));

	CustomPath *cpath = makeNode(CustomPath);
	double		rows = input_rel->rows;

	cpath->path.pathtype = T_CustomScan;
	cpath->path.parent = output_rel;
	cpath->path.pathtarget = target;
	cpath->path.rows = rows;
	cpath->path.pathkeys = root->sort_pathkeys;
	/* extraction and sort of every row; then every row comes back to the executor */
	cpath->path.startup_cost = PgGpuScanCost(scan_rel, 2.0) +
		(sj->probe ? sj->build_cost : 0.0);
	cpath->path.total_cost = cpath->path.startup_cost + rows * cpu_tuple_cost;
	/* a cursor may read it backward, as it may read a Sort (gpusort_scroll.h) */
	cpath->flags = CUSTOMPATH_SUPPORT_BACKWARD_SCAN;
	cpath->custom_paths = list_make1(cpu);
	if (sj->probe)
		cpath->custom_paths = lappend(cpath->custom_paths, sj->build_path);
	GpuSortPrivate priv;

	priv.task = PgGpuTaskConst(task);
	priv.filter_text = PgGpuFilterText(quals, rte->relid, scan_rel->relid);
	priv.sets = comp.set_sources;
	priv.relid = scan_rel->relid;
	cpath->custom_private = GpuSortPrivateBuild(&priv, true);
	cpath->methods = &gpusort_path_methods;
	PgGpuAddPath(output_rel, &cpath->path);
	return true;
}


/* The table's own tuples, in order. */
static Plan *
PlanGpuSortPathImpl(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
					List *tlist, List *custom_plans)
{
	CustomScan *cscan = makeNode(CustomScan);
	GpuSortPrivate priv;

	GpuSortPrivateRead(best_path->custom_private, &priv);
	cscan->scan.plan.targetlist = tlist;
	cscan->scan.scanrelid = priv.relid;
	cscan->flags = best_path->flags;
	cscan->custom_plans = custom_plans;
	cscan->custom_private = GpuSortPrivateBuild(&priv, false);
	cscan->methods = &gpusort_scan_methods;
	return &cscan->scan.plan;
}

PG_GPU_PLAN_CUSTOM_PATH(PlanGpuSortPath)
