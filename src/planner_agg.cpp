/*
 * planner_agg.cpp — planning GpuAgg.
 *
 * At UPPERREL_GROUP_AGG, for a query that aggregates one plain heap table with no
 * WHERE and no GROUP BY, and whose aggregates are all ones GpuAgg computes, we add
 * this path next to PostgreSQL's own:
 *
 *   Finalize Aggregate                 PostgreSQL's combine/final functions
 *     -> Custom Scan (GpuAgg) on t     partial states computed on the GPU
 *          -> Partial Aggregate        PostgreSQL's plan, kept for CPU fallback
 *               -> Seq Scan on t
 *
 * GpuAgg emits exactly what a Partial Aggregate would (see agg_catalog.cpp), so the
 * results are PostgreSQL's by construction, and falling back is just running the
 * child.  The path's cost is a model of the GPU (start-up, per-page transfer,
 * per-tuple work) in PostgreSQL's cost units, so add_path decides; pg_gpu.force
 * removes the competition instead.
 */
extern "C" {
#include "postgres.h"

#include "access/table.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_am.h"
#include "catalog/pg_class.h"
#include "nodes/extensible.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/planner.h"
#include "optimizer/prep.h"
#include "optimizer/tlist.h"
#include "parser/parsetree.h"
#include "utils/rel.h"

#include "pg_gpu.h"
#include "pg_gpu_engine.h"
#include "agg_catalog.h"
#include "gpuagg.h"
}

#include "guard.h"

static create_upper_paths_hook_type prev_upper_paths_hook = NULL;

static Plan *PlanGpuAggPath(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
							List *tlist, List *clauses, List *custom_plans);

static const CustomPathMethods gpuagg_path_methods = {
	"GpuAgg",
	PlanGpuAggPath,
	NULL
};

/* One engine column per attribute read; count-only columns are PG_GPU_ANY. */
typedef struct GpuAggCols
{
	int			n;
	int			attidx[PG_GPU_MAX_AGG_COLS];
	int			type[PG_GPU_MAX_AGG_COLS];
} GpuAggCols;

static int
engine_column(GpuAggCols *cols, int attidx, int type)
{
	for (int i = 0; i < cols->n; i++)
		if (cols->attidx[i] == attidx)
		{
			if (type != PG_GPU_ANY)
				cols->type[i] = type;
			return i;
		}
	if (cols->n >= PG_GPU_MAX_AGG_COLS)
		return -1;
	cols->attidx[cols->n] = attidx;
	cols->type[cols->n] = type;
	return cols->n++;
}

/*
 * Can the relation's tuples be decoded on the GPU for these columns?  Plain heap,
 * shared buffers (not temporary), no "missing" attribute values, no cstring columns.
 */
static bool
relation_supported(Oid relid, const GpuAggCols *cols)
{
	Relation	rel = table_open(relid, NoLock);
	TupleDesc	tupdesc = RelationGetDescr(rel);
	bool		ok = true;
	int			maxatt = -1;

	if (rel->rd_rel->relam != HEAP_TABLE_AM_OID ||
		rel->rd_rel->relpersistence == RELPERSISTENCE_TEMP)
		ok = false;
	for (int i = 0; ok && i < cols->n; i++)
	{
		Form_pg_attribute att = TupleDescAttr(tupdesc, cols->attidx[i]);

		if (att->atthasmissing)
			ok = false;
		maxatt = Max(maxatt, cols->attidx[i]);
	}
	if (maxatt >= PG_GPU_MAX_DEFORM_ATTS)
		ok = false;
	for (int j = 0; ok && j <= maxatt; j++)
		if (TupleDescAttr(tupdesc, j)->attlen == -2)
			ok = false;
	table_close(rel, NoLock);
	return ok;
}

static void
GpuAggUpperPathsImpl(PlannerInfo *root, RelOptInfo *input_rel, RelOptInfo *output_rel,
					 GroupPathExtraData *extra)
{
	Query	   *parse = root->parse;
	RangeTblEntry *rte;
	List	   *exprs;
	List	   *aggs = NIL;
	GpuAggCols	cols;
	List	   *out_state = NIL,
			   *out_coltype = NIL,
			   *out_col = NIL,
			   *col_attidx = NIL,
			   *col_type = NIL;
	ListCell   *lc;

	if (!pg_gpu_enabled || !pg_gpu_enable_gpuagg)
		return;
	if (!pg_gpu_force && !PgGpuDeviceLikely())
		return;
	if (!parse->hasAggs || parse->groupClause || parse->groupingSets ||
		parse->hasTargetSRFs || !PgGpuLayoutOk())
		return;

	/* one plain table, scanned whole */
	if (input_rel->reloptkind != RELOPT_BASEREL || input_rel->rtekind != RTE_RELATION ||
		input_rel->baserestrictinfo != NIL || input_rel->cheapest_total_path == NULL ||
		IS_DUMMY_REL(input_rel))
		return;
	/* a scan cheaper than starting GPU work: don't even build the paths */
	if (!pg_gpu_force && input_rel->cheapest_total_path->total_cost < pg_gpu_startup_cost)
		return;
	rte = planner_rt_fetch(input_rel->relid, root);
	if (rte->inh || rte->tablesample ||
		(rte->relkind != RELKIND_RELATION && rte->relkind != RELKIND_MATVIEW))
		return;

	/* every aggregate (and nothing but aggregates over its columns) supported */
	exprs = pull_var_clause((Node *) output_rel->reltarget->exprs,
							PVC_INCLUDE_AGGREGATES | PVC_RECURSE_WINDOWFUNCS |
							PVC_INCLUDE_PLACEHOLDERS);
	if (extra->havingQual)
		exprs = list_concat(exprs,
							pull_var_clause(extra->havingQual,
											PVC_INCLUDE_AGGREGATES |
											PVC_INCLUDE_PLACEHOLDERS));
	memset(&cols, 0, sizeof(cols));
	foreach(lc, exprs)
	{
		Aggref	   *a = (Aggref *) lfirst(lc);
		PgGpuAggState state;
		Oid			argtype;
		int			coltype = 0,
					col = -1;

		if (!IsA(a, Aggref) || a->agglevelsup != 0 || a->aggkind != AGGKIND_NORMAL ||
			a->aggdistinct != NIL || a->aggorder != NIL || a->aggfilter != NULL ||
			a->aggvariadic || a->aggsplit != AGGSPLIT_SIMPLE)
			return;
		if (list_member(aggs, a))
			continue;
		if (!PgGpuAggLookup(a->aggfnoid, &state, &argtype))
			return;
		if (state != PG_GPU_AGGST_COUNT_STAR)
		{
			TargetEntry *te;
			Var		   *v;

			if (list_length(a->args) != 1)
				return;
			te = linitial_node(TargetEntry, a->args);
			v = (Var *) te->expr;
			if (!IsA(v, Var) || v->varno != (int) input_rel->relid ||
				v->varlevelsup != 0 || v->varattno <= 0)
				return;
			coltype = PgGpuColType(v->vartype);
			if (state == PG_GPU_AGGST_COUNT && coltype == 0)
				coltype = PG_GPU_ANY;
			if (coltype == 0 || (state != PG_GPU_AGGST_COUNT && v->vartype != argtype))
				return;
			col = engine_column(&cols, v->varattno - 1,
								state == PG_GPU_AGGST_COUNT ? PG_GPU_ANY : coltype);
			if (col < 0)
				return;
		}
		aggs = lappend(aggs, a);
		out_state = lappend_int(out_state, state);
		out_coltype = lappend_int(out_coltype, coltype);
		out_col = lappend_int(out_col, col);
	}
	if (aggs == NIL || !relation_supported(rte->relid, &cols))
		return;

	/* engine columns in attribute order; remap output columns */
	{
		int			order[PG_GPU_MAX_AGG_COLS];
		int			rank[PG_GPU_MAX_AGG_COLS];

		for (int i = 0; i < cols.n; i++)
			order[i] = i;
		for (int i = 1; i < cols.n; i++)
			for (int j = i; j > 0 && cols.attidx[order[j]] < cols.attidx[order[j - 1]]; j--)
			{
				int			t = order[j];

				order[j] = order[j - 1];
				order[j - 1] = t;
			}
		for (int i = 0; i < cols.n; i++)
		{
			rank[order[i]] = i;
			col_attidx = lappend_int(col_attidx, cols.attidx[order[i]]);
			col_type = lappend_int(col_type, cols.type[order[i]]);
		}
		foreach(lc, out_col)
			if (lfirst_int(lc) >= 0)
				lfirst_int(lc) = rank[lfirst_int(lc)];
	}

	/* the partial target: PostgreSQL's own INITIAL_SERIAL Aggrefs */
	PathTarget *partial_target = create_empty_pathtarget();

	foreach(lc, aggs)
	{
		Aggref	   *p = (Aggref *) copyObject(lfirst(lc));

		mark_partial_aggref(p, AGGSPLIT_INITIAL_SERIAL);
		add_column_to_pathtarget(partial_target, (Expr *) p, 0);
	}
	partial_target = set_pathtarget_cost_width(root, partial_target);

	AggClauseCosts partial_costs;
	AggClauseCosts final_costs;

	MemSet(&partial_costs, 0, sizeof(partial_costs));
	MemSet(&final_costs, 0, sizeof(final_costs));
	get_agg_clause_costs(root, AGGSPLIT_INITIAL_SERIAL, &partial_costs);
	get_agg_clause_costs(root, AGGSPLIT_FINAL_DESERIAL, &final_costs);

	Path	   *cpu_partial = (Path *) create_agg_path(root, output_rel,
													   input_rel->cheapest_total_path,
													   partial_target, AGG_PLAIN,
													   AGGSPLIT_INITIAL_SERIAL, NIL, NIL,
													   &partial_costs, 1);

	CustomPath *cpath = makeNode(CustomPath);

	cpath->path.pathtype = T_CustomScan;
	cpath->path.parent = output_rel;
	cpath->path.pathtarget = partial_target;
	cpath->path.param_info = NULL;
	cpath->path.parallel_aware = false;
	cpath->path.parallel_safe = false;
	cpath->path.parallel_workers = 0;
	cpath->path.rows = 1;
	cpath->path.pathkeys = NIL;
	{
		double		startup = pg_gpu_startup_cost +
			(pg_gpu_engine_initialized() ? 0.0 : pg_gpu_init_cost);
		bool		in_place = pg_gpu_register_buffers && PgGpuSharedBuffersRegistered() &&
			input_rel->pages >= (BlockNumber) pg_gpu_register_min_pages;
		double		run = input_rel->pages * (in_place ? pg_gpu_page_cost : pg_gpu_copy_page_cost) +
			input_rel->tuples * pg_gpu_tuple_cost;

		cpath->path.startup_cost = startup + run;
		cpath->path.total_cost = startup + run;
	}
	cpath->flags = 0;
	cpath->custom_paths = list_make1(cpu_partial);
	cpath->custom_private = list_make5(out_state, out_coltype, out_col, col_attidx, col_type);
	cpath->custom_private = lappend(cpath->custom_private,
									makeInteger((int) input_rel->relid));
	cpath->methods = &gpuagg_path_methods;

	Path	   *final = (Path *) create_agg_path(root, output_rel, &cpath->path,
												 output_rel->reltarget, AGG_PLAIN,
												 AGGSPLIT_FINAL_DESERIAL, NIL,
												 (List *) extra->havingQual,
												 &final_costs, 1);

	if (pg_gpu_force)
	{
		output_rel->pathlist = NIL;
		output_rel->partial_pathlist = NIL;
	}
	add_path(output_rel, final);
}

static Plan *
PlanGpuAggPathImpl(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
				   List *tlist, List *custom_plans)
{
	CustomScan *cscan = makeNode(CustomScan);
	List	   *priv = best_path->custom_private;

	cscan->scan.plan.targetlist = tlist;
	cscan->scan.plan.qual = NIL;
	cscan->scan.scanrelid = (Index) intVal(llast(priv));
	cscan->flags = best_path->flags;
	cscan->custom_plans = custom_plans;
	cscan->custom_exprs = NIL;
	cscan->custom_private = list_copy_head(priv, GPUAGG_PRIV_COUNT);
	cscan->custom_scan_tlist = (List *) copyObject(tlist);
	cscan->custom_relids = NULL;
	cscan->methods = &gpuagg_scan_methods;
	return &cscan->scan.plan;
}

static Plan *
PlanGpuAggPath(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
			   List *tlist, List *clauses, List *custom_plans)
{
	Plan	   *plan = NULL;

	PG_GPU_GUARD(plan = PlanGpuAggPathImpl(root, rel, best_path, tlist, custom_plans));
	return plan;
}

static void
GpuAggUpperPaths(PlannerInfo *root, UpperRelationKind stage, RelOptInfo *input_rel,
				 RelOptInfo *output_rel, void *extra)
{
	if (prev_upper_paths_hook)
		prev_upper_paths_hook(root, stage, input_rel, output_rel, extra);
	if (stage != UPPERREL_GROUP_AGG)
		return;
	PG_GPU_GUARD(GpuAggUpperPathsImpl(root, input_rel, output_rel,
									  (GroupPathExtraData *) extra));
}

void
PgGpuAggPlannerInit(void)
{
	prev_upper_paths_hook = create_upper_paths_hook;
	create_upper_paths_hook = GpuAggUpperPaths;
}
