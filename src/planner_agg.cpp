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
#include "commands/defrem.h"
#include "nodes/extensible.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "catalog/pg_type.h"
#include "optimizer/cost.h"
#include "utils/syscache.h"
#include "optimizer/optimizer.h"
#include "optimizer/paths.h"
#include "optimizer/pathnode.h"
#include "optimizer/planner.h"
#include "optimizer/prep.h"
#include "optimizer/tlist.h"
#include "parser/parsetree.h"
#include "rewrite/rewriteManip.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/ruleutils.h"
#include "utils/rel.h"
#include "utils/selfuncs.h"

#include "pg_gpu.h"
#include "pg_gpu_engine.h"
#include "agg_catalog.h"
#include "expr_compile.h"
#include "gpuagg.h"
#include "planner_join.h"
}

#include "guard.h"

static create_upper_paths_hook_type prev_upper_paths_hook = NULL;
static set_join_pathlist_hook_type prev_join_pathlist_hook = NULL;

static Plan *PlanGpuAggPath(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
							List *tlist, List *clauses, List *custom_plans);

static const CustomPathMethods gpuagg_path_methods = {
	"GpuAgg",
	PlanGpuAggPath,
	NULL
};

/*
 * Can the relation's tuples be decoded on the GPU for the task's columns?  Plain
 * heap in shared buffers (not temporary), and a layout the kernels walk.
 */
static bool
relation_supported(Oid relid, pg_gpu_agg_task *task)
{
	Relation	rel = table_open(relid, NoLock);
	bool		ok = rel->rd_rel->relam == HEAP_TABLE_AM_OID &&
		rel->rd_rel->relpersistence != RELPERSISTENCE_TEMP &&
		PgGpuFillLayout(rel, task);

	table_close(rel, NoLock);
	return ok;
}

/*
 * The table's quals in the order the scan would evaluate them (createplan.c's
 * order_qual_clauses: security level, then cost; stable), so that a row raises an
 * error on the GPU exactly when it would in PostgreSQL's scan.
 */
static List *
ordered_quals(PlannerInfo *root, List *restrictinfos)
{
	int			n = list_length(restrictinfos);
	RestrictInfo **ri = (RestrictInfo **) palloc(sizeof(RestrictInfo *) * Max(n, 1));
	Cost	   *cost = (Cost *) palloc(sizeof(Cost) * Max(n, 1));
	List	   *out = NIL;
	int			i = 0;
	ListCell   *lc;

	foreach(lc, restrictinfos)
	{
		QualCost	qc;

		ri[i] = lfirst_node(RestrictInfo, lc);
		cost_qual_eval_node(&qc, (Node *) ri[i]->clause, root);
		cost[i] = qc.per_tuple;
		i++;
	}
	for (i = 1; i < n; i++)
		for (int j = i; j > 0 &&
			 (ri[j]->security_level < ri[j - 1]->security_level ||
			  (ri[j]->security_level == ri[j - 1]->security_level && cost[j] < cost[j - 1])); j--)
		{
			RestrictInfo *r = ri[j];
			Cost		c = cost[j];

			ri[j] = ri[j - 1];
			cost[j] = cost[j - 1];
			ri[j - 1] = r;
			cost[j - 1] = c;
		}
	for (i = 0; i < n; i++)
		out = lappend(out, ri[i]->clause);
	return out;
}

static int
needs_of(PgGpuAggState st)
{
	switch (st)
	{
		case PG_GPU_AGGST_MIN:
		case PG_GPU_AGGST_MAX:
			return PG_GPU_NEED_MINMAX;
		case PG_GPU_AGGST_SUM:
			return PG_GPU_NEED_SUM;
		case PG_GPU_AGGST_AVG:
			return PG_GPU_NEED_AVG;
		case PG_GPU_AGGST_VAR:
			return PG_GPU_NEED_VAR;
		default:
			return 0;
	}
}

/* The column of the scanned table that expr is (under binary-compatible casts). */
static bool
is_table_column(Expr *expr, Index relid)
{
	while (IsA(expr, RelabelType))
		expr = ((RelabelType *) expr)->arg;
	return IsA(expr, Var) && ((Var *) expr)->varno == (int) relid &&
		((Var *) expr)->varlevelsup == 0 && ((Var *) expr)->varattno > 0;
}

/*
 * A text GROUP BY key the hash table can take: a column of the table, grouped by
 * the type's own equality under a deterministic collation, i.e. equal exactly
 * when the bytes are (bpchar: without trailing blanks).  Being a column bounds the
 * bytes a chunk can add to the string arena by the chunk's pages.
 */
static bool
text_key_ok(SortGroupClause *sgc, Expr *expr, Index relid)
{
	Oid			fn = get_opcode(sgc->eqop);

	return is_table_column(expr, relid) && (fn == F_TEXTEQ || fn == F_BPCHAREQ) &&
		PgGpuCollationIsDeterministic(exprCollation((Node *) expr));
}

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
} GpuAggBuild;

/* An aggregate's argument as an engine input (shared by equal arguments). */
static int
agg_input(GpuAggBuild *b, Expr *arg, bool count_only, int type, int needs)
{
	pg_gpu_agg_task *t = b->task;
	int			i = 0;
	ListCell   *lc;

	foreach(lc, b->input_exprs)
	{
		if (equal(lfirst(lc), arg) && (count_only || t->inputs[i].type == type))
		{
			t->inputs[i].needs |= needs;
			return i;
		}
		i++;
	}
	if (t->ninputs >= PG_GPU_MAX_AGG_COLS)
		return -1;
	pg_gpu_expr *e = &t->inputs[t->ninputs];

	int			vt = PgGpuValueType(exprType((Node *) arg));

	if (count_only && (vt == 0 || vt == PG_GPU_TEXT || vt == PG_GPU_BPCHAR))
	{
		/* count(x) of a type the kernels need not decode: NULL-ness only */
		Var		   *v = (Var *) arg;

		if (!IsA(v, Var) || v->varno != (int) b->comp.relid || v->varlevelsup != 0 ||
			v->varattno <= 0 || !PgGpuCompileColumnAs(&b->comp, v->varattno - 1, PG_GPU_ANY, e))
			return -1;
	}
	else if (!PgGpuCompileExpr(&b->comp, arg, e) || e->type == PG_GPU_BOOL ||
			 (!count_only && e->type != type))
		return -1;
	e->needs = (uint8) needs;
	b->input_exprs = lappend(b->input_exprs, arg);
	return t->ninputs++;
}

static bool
add_aggref(GpuAggBuild *b, Aggref *a)
{
	PgGpuAggState state;
	Oid			argtype;
	int			col = -1;
	int			coltype = 0;

	if (a->agglevelsup != 0 || a->aggkind != AGGKIND_NORMAL ||
		a->aggdistinct != NIL || a->aggorder != NIL || a->aggfilter != NULL ||
		a->aggvariadic || a->aggsplit != AGGSPLIT_SIMPLE)
		return false;
	if (list_member(b->aggs, a))
		return true;
	if (!PgGpuAggLookup(a->aggfnoid, &state, &argtype))
		return false;
	if (state != PG_GPU_AGGST_COUNT_STAR)
	{
		Expr	   *arg;

		if (list_length(a->args) != 1)
			return false;
		arg = linitial_node(TargetEntry, a->args)->expr;
		if (state == PG_GPU_AGGST_COUNT)
			coltype = PG_GPU_ANY;
		else
		{
			if (exprType((Node *) arg) != argtype)
				return false;
			coltype = PgGpuColType(argtype);
			if (coltype == 0)
				return false;
		}
		col = agg_input(b, arg, state == PG_GPU_AGGST_COUNT, coltype, needs_of(state));
		if (col < 0)
			return false;
	}
	b->aggs = lappend(b->aggs, a);
	b->out_state = lappend_int(b->out_state, state);
	b->out_coltype = lappend_int(b->out_coltype, coltype);
	b->out_col = lappend_int(b->out_col, col);
	return true;
}

/*
 * Aggregates and grouping columns of an expression above the aggregation; false
 * if it needs anything else from the table.
 */
static bool
add_upper_expr(GpuAggBuild *b, Node *expr)
{
	List	   *nodes = pull_var_clause(expr, PVC_INCLUDE_AGGREGATES | PVC_RECURSE_WINDOWFUNCS |
										PVC_INCLUDE_PLACEHOLDERS);
	ListCell   *lc;

	foreach(lc, nodes)
	{
		Node	   *n = (Node *) lfirst(lc);

		if (IsA(n, Aggref))
		{
			if (!add_aggref(b, (Aggref *) n))
				return false;
		}
		else if (!IsA(n, Var) || !list_member(b->key_exprs, n))
			return false;
	}
	return true;
}

/*
 * The input of a GpuAgg or GpuSort: one plain table (no inheritance, no sampling),
 * big enough to be worth starting GPU work for; its range-table entry, or NULL.
 * scan_cost is what PostgreSQL's cheapest plan of the table costs (for ORDER BY,
 * its cheapest sorted plan); the caller passes it because in UPPERREL_ORDERED the
 * rel's own cheapest path may have been freed (see take_ordered_path).
 */
static RangeTblEntry *
plain_table(PlannerInfo *root, RelOptInfo *input_rel, double scan_cost)
{
	RangeTblEntry *rte;

	if (input_rel->reloptkind != RELOPT_BASEREL || input_rel->rtekind != RTE_RELATION ||
		IS_DUMMY_REL(input_rel))
		return NULL;
	/* a scan cheaper than starting GPU work: don't even build the paths */
	if (!pg_gpu_force && scan_cost < pg_gpu_startup_cost)
		return NULL;
	rte = planner_rt_fetch(input_rel->relid, root);
	if (rte->inh || rte->tablesample ||
		(rte->relkind != RELKIND_RELATION && rte->relkind != RELKIND_MATVIEW))
		return NULL;
	return rte;
}

static Path *cpu_path(PlannerInfo *root, Path *path);

/*
 * Cost of streaming the table through the GPU: start-up (CUDA, once per backend,
 * unless another scan of the query starts it first),
 * pages read in place or copied, and tuple_factor units of per-tuple GPU work.
 */
static double
gpu_scan_cost(RelOptInfo *input_rel, double tuple_factor, bool first = true)
{
	double		startup = pg_gpu_startup_cost +
		(pg_gpu_engine_initialized() || !first ? 0.0 : pg_gpu_init_cost);
	bool		in_place = pg_gpu_register_buffers && PgGpuSharedBuffersRegistered() &&
		input_rel->pages >= (BlockNumber) pg_gpu_register_min_pages;

	return startup + input_rel->pages * (in_place ? pg_gpu_page_cost : pg_gpu_copy_page_cost) +
		input_rel->tuples * tuple_factor * pg_gpu_tuple_cost;
}

/* Offer a GPU path; pg_gpu.force makes it the only one. */
static void
add_gpu_path(RelOptInfo *output_rel, Path *path)
{
	if (pg_gpu_force)
	{
		output_rel->pathlist = NIL;
		output_rel->partial_pathlist = NIL;
	}
	add_path(output_rel, path);
}

static Const *
task_const(const pg_gpu_agg_task *task)
{
	bytea	   *blob = (bytea *) palloc(VARHDRSZ + sizeof(pg_gpu_agg_task));

	SET_VARSIZE(blob, VARHDRSZ + sizeof(pg_gpu_agg_task));
	memcpy(VARDATA(blob), task, sizeof(pg_gpu_agg_task));
	return makeConst(BYTEAOID, -1, InvalidOid, -1, PointerGetDatum(blob), false, false);
}

/*
 * The GPU's filter as text, for EXPLAIN: the quals are compiled into the task and
 * never evaluated by PostgreSQL above the table, so setrefs never sees them.
 */
static String *
filter_text(List *quals, Oid relid, Index varno)
{
	Node	   *e;

	if (quals == NIL)
		return makeString(pstrdup(""));
	e = (Node *) make_ands_explicit((List *) copyObject(quals));
	if (varno != 1)
		ChangeVarNodes(e, (int) varno, 1, 0);
	return makeString(deparse_expression(e, deparse_context_for(get_rel_name(relid), relid),
										 false, false));
}

Const *
PgGpuCollectTask(PlannerInfo *root, RelOptInfo *rel, List *quals, Expr *key, int settype,
				 double plan_cost, double plan_rows, double *cost, Oid *relid)
{
	RangeTblEntry *rte;
	PgGpuCompiler c;
	pg_gpu_agg_task *task;
	double		gpu_cost;

	/* the CPU's way: running the plan once and collecting its keys */
	double		cpu_cost = plan_cost + plan_rows * 2 * cpu_operator_cost;

	*cost = cpu_cost;
	if (rel == NULL || rel->reloptkind != RELOPT_BASEREL || rel->rtekind != RTE_RELATION)
		return NULL;
	rte = planner_rt_fetch(rel->relid, root);
	if (rte->inh || rte->tablesample ||
		(rte->relkind != RELKIND_RELATION && rte->relkind != RELKIND_MATVIEW))
		return NULL;
	gpu_cost = gpu_scan_cost(rel, 1.0, false);
	if (!pg_gpu_force && gpu_cost >= cpu_cost)
		return NULL;

	task = (pg_gpu_agg_task *) palloc0(sizeof(pg_gpu_agg_task));
	PgGpuCompilerInit(&c, task, rel->relid);
	if (!PgGpuCompileQuals(&c, quals, &task->filter) ||
		!PgGpuCompileExpr(&c, key, &task->keys[0]) ||
		PgGpuSetType(task->keys[0].type) != settype ||
		c.set_sources != NIL || !PgGpuFinishPrograms(&c) ||
		!relation_supported(rte->relid, task))
		return NULL;
	task->nkeys = 1;
	task->collect = 1;
	task->collect_hint = (int64) Min(rel->rows, 1e12);
	*relid = rte->relid;
	*cost = Min(gpu_cost, cpu_cost);
	return task_const(task);
}

/*
 * The join's clause as the filter's last qual, answered by a key set of the
 * build side (the GpuAgg's second child, or its table's pages collected on the
 * GPU); an anti-join keeps the rows it does not match.  *unique: the source's
 * flag that the keys must be unique; *set: the set's index.  With keep_rows,
 * the build plan's rows are kept for the output (a GpuHashJoin reading the
 * build side), so the keys come from that plan, never from pages.  NIL if the
 * task has no room.
 */
static List *
join_set_test(PlannerInfo *root, PgGpuCompiler *comp, PgGpuSetJoin *sj, Oid relid,
			  Integer **unique, int *set, bool keep_rows = false)
{
	Const	   *collect;
	Oid			build_relid = InvalidOid;
	PgGpuSetTest *st = (PgGpuSetTest *) palloc0(sizeof(PgGpuSetTest));
	const char *kind = sj->jointype == JOIN_SEMI ? "semi" :
		sj->jointype == JOIN_ANTI ? "anti" : "inner";
	/* over a child plan (no relid) EXPLAIN deparses the key from the plan */
	String	   *key = OidIsValid(relid)
		? filter_text(list_make1(sj->probe_key), relid, sj->probe->relid) : NULL;
	List	   *source;

	*unique = makeInteger(0);
	source = list_make5(makeInteger(PG_GPU_SET_CHILD), makeInteger(1),
						makeInteger(sj->build_resno), makeInteger(sj->build_valtype), *unique);
	/* for EXPLAIN */
	source = lappend(source, makeString(key ? psprintf("%s join on %s", kind, strVal(key))
										: psprintf("%s join", kind)));
	/* rows kept for the output come from the plan: no keys from pages then */
	if (keep_rows)
		(*unique)->ival = 2;
	collect = PgGpuCollectTask(keep_rows ? NULL : root, keep_rows ? NULL : sj->build,
							   keep_rows ? NIL : ordered_quals(root, sj->build->baserestrictinfo),
							   sj->build_key, PgGpuSetType(sj->keytype),
							   sj->build_path->total_cost, sj->build_path->rows, &sj->build_cost,
							   &build_relid);
	if (collect != NULL)
		source = lappend(lappend(source, collect), makeInteger((int) build_relid));
	Assert(collect == NULL || list_length(source) == PG_GPU_CHILD_TASK + 2);
	st->set = PgGpuAddSet(comp, PgGpuSetType(sj->keytype), source);
	if (st->set < 0)
		return NIL;
	*set = st->set;
	st->clause = sj->clause;
	st->probe = sj->probe_key;
	st->keytype = sj->keytype;
	comp->set_tests = lappend(comp->set_tests, st);
	return list_make1(sj->jointype == JOIN_ANTI
					  ? (Expr *) makeBoolExpr(NOT_EXPR, list_make1(sj->clause), -1)
					  : sj->clause);
}

/*
 * The rows of the set join sj, for GpuSort, GpuHashJoin and GpuSemiJoin: *join_quals gets the
 * join's qual for the filter (join_set_test); an inner join instead hands each
 * probe row out once per equal key, its weight (a row without a match weighs
 * 0), so its qual is NIL.  False if the task has no room.
 */
static bool
join_rows_test(PlannerInfo *root, PgGpuCompiler *comp, pg_gpu_agg_task *task, PgGpuSetJoin *sj,
			   Oid relid, List **join_quals)
{
	Integer    *unique;
	int			set;

	*join_quals = join_set_test(root, comp, sj, relid, &unique, &set);
	if (*join_quals == NIL)
		return false;
	if (sj->jointype != JOIN_INNER)
		return true;
	*join_quals = NIL;
	return PgGpuCompileSetValue(comp, sj->probe_key, sj->keytype, set, false, &task->weight);
}

static void
GpuAggUpperPathsImpl(PlannerInfo *root, RelOptInfo *input_rel, RelOptInfo *output_rel,
					 GroupPathExtraData *extra)
{
	Query	   *parse = root->parse;
	RangeTblEntry *rte;
	GpuAggBuild b;
	List	   *quals;
	bool		grouped = parse->groupClause != NIL;
	double		ngroups = 1;
	PathTarget *target = output_rel->reltarget;
	ListCell   *lc;
	int			i;

	if (!pg_gpu_enabled || !pg_gpu_enable_gpuagg)
		return;
	if (!pg_gpu_force && !PgGpuDeviceLikely())
		return;
	if ((!parse->hasAggs && !grouped) || parse->groupingSets ||
		parse->hasTargetSRFs || !PgGpuLayoutOk())
		return;

	/* a join: one table scanned on the GPU, probing a key set of the rest */
	RelOptInfo *scan_rel = input_rel;
	PgGpuSetJoin sj;
	Integer    *unique = NULL;
	int			join_set = -1;

	memset(&sj, 0, sizeof(sj));
	if (input_rel->reloptkind == RELOPT_JOINREL)
	{
		if (!pg_gpu_enable_gpujoin || !PgGpuFindSetJoin(root, input_rel, &sj))
			return;
		scan_rel = sj.probe;
	}
	if (scan_rel->cheapest_total_path == NULL ||
		(rte = plain_table(root, scan_rel, scan_rel->cheapest_total_path->total_cost)) == NULL)
		return;

	memset(&b, 0, sizeof(b));
	b.task = (pg_gpu_agg_task *) palloc0(sizeof(pg_gpu_agg_task));
	PgGpuCompilerInit(&b.comp, b.task, scan_rel->relid);
	b.comp.root = root;

	/* the table's quals; the join's test is added to them below */
	quals = ordered_quals(root, scan_rel->baserestrictinfo);
	List	   *join_quals = NIL;

	if (sj.probe &&
		(join_quals = join_set_test(root, &b.comp, &sj, rte->relid, &unique, &join_set)) == NIL)
		return;

	/* GROUP BY keys */
	foreach(lc, parse->groupClause)
	{
		SortGroupClause *sgc = lfirst_node(SortGroupClause, lc);
		Expr	   *expr = (Expr *) get_sortgroupclause_expr(sgc, parse->targetList);
		int			t = PgGpuValueType(exprType((Node *) expr));
		pg_gpu_expr *k;

		if (t == 0 || t == PG_GPU_BOOL || b.task->nkeys >= PG_GPU_MAX_KEYS)
			return;
		if ((t == PG_GPU_TEXT || t == PG_GPU_BPCHAR) && !text_key_ok(sgc, expr, b.comp.relid))
			return;
		k = &b.task->keys[b.task->nkeys];
		if (!PgGpuCompileExpr(&b.comp, expr, k) || k->type != t)
			return;
		b.task->nkeys++;
		b.key_exprs = lappend(b.key_exprs, expr);
		b.key_refs = lappend_int(b.key_refs, sgc->tleSortGroupRef);
	}

	/* every aggregate supported, and nothing else read from the table */
	i = 0;
	foreach(lc, target->exprs)
	{
		Index		sgref = get_pathtarget_sortgroupref(target, i++);

		if (sgref != 0 && list_member_int(b.key_refs, (int) sgref))
			continue;
		if (!add_upper_expr(&b, (Node *) lfirst(lc)))
			return;
	}
	if (extra->havingQual && !add_upper_expr(&b, extra->havingQual))
		return;
	if (sj.jointype == JOIN_INNER && sj.probe)
	{
		/*
		 * An inner join repeats a row once per equal key.  count(*) alone counts
		 * each row that many times, and a row without a match weighs 0, so the
		 * weight is the join's only probe; other aggregates need the keys unique,
		 * which the executor checks (else the CPU joins).
		 */
		if (!grouped && b.task->ninputs == 0)
		{
			if (!PgGpuCompileSetValue(&b.comp, sj.probe_key, sj.keytype, join_set, false,
									  &b.task->weight))
				return;
			join_quals = NIL;
		}
		else
			unique->ival = 1;
	}
	/* WHERE: every qual must run on the GPU */
	if (!PgGpuCompileQuals(&b.comp, list_concat_copy(quals, join_quals), &b.task->filter))
		return;
	if ((b.aggs == NIL && !grouped) || !PgGpuFinishPrograms(&b.comp) ||
		!relation_supported(rte->relid, b.task))
		return;
	if (grouped)
	{
		ngroups = estimate_num_groups(root, get_sortgrouplist_exprs(parse->groupClause,
																	parse->targetList),
									  input_rel->rows, NULL, NULL);
		b.task->groups_hint = (int64) Min(ngroups, 1e12);
	}

	/*
	 * Grouped, with no aggregate whose state is "internal": GpuAgg itself applies
	 * PostgreSQL's final functions to the states and emits finished groups (HAVING
	 * and the output expressions evaluated by the scan's qual and projection), so
	 * no Finalize node handles every group a second time.
	 */
	List	   *finalfns = NIL;
	bool		direct = grouped && pg_gpu_direct_groups;

	foreach(lc, b.aggs)
	{
		Aggref	   *a = (Aggref *) lfirst(lc);
		HeapTuple	tup = SearchSysCache1(AGGFNOID, ObjectIdGetDatum(a->aggfnoid));
		Form_pg_aggregate agg;

		if (!HeapTupleIsValid(tup))
			return;
		agg = (Form_pg_aggregate) GETSTRUCT(tup);
		if (agg->aggtranstype == INTERNALOID || agg->aggfinalextra)
			direct = false;
		finalfns = lappend_oid(finalfns, agg->aggfinalfn);
		ReleaseSysCache(tup);
	}
	if (!direct)
		finalfns = NIL;

	/* the partial target: grouping keys, then PostgreSQL's INITIAL_SERIAL Aggrefs */
	PathTarget *partial_target = create_empty_pathtarget();
	ListCell   *lc2;

	forboth(lc, b.key_exprs, lc2, b.key_refs)
		add_column_to_pathtarget(partial_target, (Expr *) lfirst(lc), (Index) lfirst_int(lc2));
	foreach(lc, b.aggs)
	{
		Aggref	   *p = (Aggref *) copyObject(lfirst(lc));

		if (!direct)
			mark_partial_aggref(p, AGGSPLIT_INITIAL_SERIAL);
		add_column_to_pathtarget(partial_target, (Expr *) p, 0);
	}
	partial_target = set_pathtarget_cost_width(root, partial_target);

	AggClauseCosts partial_costs;
	AggClauseCosts final_costs;

	MemSet(&partial_costs, 0, sizeof(partial_costs));
	MemSet(&final_costs, 0, sizeof(final_costs));
	if (parse->hasAggs)
	{
		get_agg_clause_costs(root, direct ? AGGSPLIT_SIMPLE : AGGSPLIT_INITIAL_SERIAL,
							 &partial_costs);
		get_agg_clause_costs(root, AGGSPLIT_FINAL_DESERIAL, &final_costs);
	}

	/* the CPU fallback: PostgreSQL's partial aggregation of the filtered scan */
	Path	   *cpu_partial = (Path *) create_agg_path(root, output_rel,
													   cpu_path(root, input_rel->cheapest_total_path),
													   partial_target,
													   grouped ? AGG_HASHED : AGG_PLAIN,
													   direct ? AGGSPLIT_SIMPLE : AGGSPLIT_INITIAL_SERIAL,
													   grouped ? parse->groupClause : NIL,
													   NIL, &partial_costs, ngroups);

	CustomPath *cpath = makeNode(CustomPath);

	cpath->path.pathtype = T_CustomScan;
	cpath->path.parent = output_rel;
	cpath->path.pathtarget = direct ? target : partial_target;
	cpath->path.param_info = NULL;
	cpath->path.parallel_aware = false;
	cpath->path.parallel_safe = false;
	cpath->path.parallel_workers = 0;
	cpath->path.rows = ngroups;
	cpath->path.pathkeys = NIL;
	/* every group is handed to the Finalize Aggregate as one tuple */
	cpath->path.startup_cost = gpu_scan_cost(scan_rel, 1.0) +
		(grouped ? ngroups * cpu_tuple_cost : 0.0) +
		(sj.probe ? sj.build_cost : 0.0);
	cpath->path.total_cost = cpath->path.startup_cost;
	cpath->flags = 0;
	cpath->custom_paths = list_make1(cpu_partial);
	if (sj.probe)
		cpath->custom_paths = lappend(cpath->custom_paths, sj.build_path);
	cpath->custom_private = list_make5(b.out_state, b.out_coltype, b.out_col,
									   task_const(b.task), filter_text(quals, rte->relid,
																	   scan_rel->relid));
	cpath->custom_private = lappend(cpath->custom_private, finalfns);
	cpath->custom_private = lappend(cpath->custom_private, b.comp.set_sources);
	cpath->custom_private = lappend(cpath->custom_private,
									direct ? make_tlist_from_pathtarget(partial_target) : NIL);
	cpath->custom_private = lappend(cpath->custom_private, direct ? extra->havingQual : NULL);
	cpath->custom_private = lappend(cpath->custom_private,
									makeInteger((int) scan_rel->relid));
	cpath->methods = &gpuagg_path_methods;

	/*
	 * Direct mode: the custom path is the aggregation.  Otherwise GpuAgg emits
	 * every group exactly once, so the Finalize step never has two partial rows
	 * of one group: a GroupAggregate over them needs no sort and no hash table
	 * (each input row is its own group).  The fallback's hashed partial
	 * aggregation also emits every group once.
	 */
	Path	   *top = direct ? &cpath->path :
		(Path *) create_agg_path(root, output_rel, &cpath->path,
								 target, grouped ? AGG_SORTED : AGG_PLAIN,
								 AGGSPLIT_FINAL_DESERIAL,
								 grouped ? parse->groupClause : NIL,
								 (List *) extra->havingQual,
								 &final_costs, ngroups);

	add_gpu_path(output_rel, top);
}

static Plan *
PlanGpuAggPathImpl(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
				   List *tlist, List *custom_plans)
{
	CustomScan *cscan = makeNode(CustomScan);
	List	   *priv = best_path->custom_private;
	const char *name = best_path->methods->CustomName;
	bool		hashjoin = strcmp(name, "GpuHashJoin") == 0;
	bool		semijoin = strcmp(name, "GpuSemiJoin") == 0;
	bool		sort = hashjoin || semijoin || strcmp(name, "GpuSort") == 0;

	cscan->scan.plan.targetlist = tlist;
	if (sort)
	{
		/* the table's own tuples, in order (a join's: in no order) */
		cscan->scan.scanrelid = (Index) intVal(llast(priv));
		cscan->flags = best_path->flags;
		cscan->custom_plans = custom_plans;
		cscan->custom_private = list_copy_head(priv, GPUAGG_PRIV_SETS + 1);
		cscan->methods = hashjoin ? &gpuhashjoin_scan_methods
			: semijoin ? &gpusemijoin_scan_methods : &gpusort_scan_methods;
		/* a GpuHashJoin that outputs the build side's columns too */
		if (hashjoin && list_length(priv) == GPUAGG_PRIV_ROWS + 3)
		{
			cscan->custom_scan_tlist = (List *) copyObject(list_nth(priv, GPUAGG_PRIV_ROWS));
			cscan->custom_private = lappend(cscan->custom_private,
											list_nth(priv, GPUAGG_PRIV_ROWS + 1));
		}
		return &cscan->scan.plan;
	}

	List	   *scan_tlist = (List *) list_nth(priv, GPUAGG_PATH_SCAN_TLIST);

	/* direct mode: HAVING, over finished groups */
	cscan->scan.plan.qual = (List *) copyObject(list_nth(priv, GPUAGG_PATH_HAVING));
	if (cscan->scan.plan.qual && !IsA(cscan->scan.plan.qual, List))
		cscan->scan.plan.qual = make_ands_implicit((Expr *) cscan->scan.plan.qual);
	cscan->scan.scanrelid = (Index) intVal(llast(priv));
	cscan->flags = best_path->flags;
	cscan->custom_plans = custom_plans;
	cscan->custom_exprs = NIL;
	cscan->custom_private = list_copy_head(priv, GPUAGG_PRIV_SETS + 1);
	/* the scan tuple: keys and partial states, or (direct) keys and final values */
	cscan->custom_scan_tlist = (List *) copyObject(scan_tlist ? scan_tlist : tlist);
	cscan->custom_relids = NULL;
	cscan->methods = &gpuagg_scan_methods;
	return &cscan->scan.plan;
}

/* ---- GpuSort --------------------------------------------------------------- */

static const CustomPathMethods gpusort_path_methods = {
	"GpuSort",
	PlanGpuAggPath,				/* one plan builder for both nodes */
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

	if (!is_table_column(expr, comp->relid) || k >= PG_GPU_MAX_KEYS ||
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

	cpath->path.startup_cost = child->total_cost + pg_gpu_startup_cost +
		(pg_gpu_engine_initialized() ? 0.0 : pg_gpu_init_cost) +
		rows * (kSlotRowCost + task->nkeys * cpu_operator_cost + pg_gpu_tuple_cost);
	cpath->path.total_cost = cpath->path.startup_cost + rows * kSlotRowCost;
	cpath->flags = CUSTOMPATH_SUPPORT_BACKWARD_SCAN;	/* exec_scroll.h */
	cpath->custom_paths = list_make1(child);
	cpath->custom_private = list_make5(task_const(task), attnos, sortops, colls, nulls_first);
	cpath->methods = &gpusort_slot_path_methods;
	if (equal(child->pathtarget->exprs, target->exprs))
		add_gpu_path(output_rel, &cpath->path);
	else
		add_gpu_path(output_rel, (Path *) create_projection_path(root, output_rel, &cpath->path,
																 target));
}

static Plan *
PlanGpuSortSlotPathImpl(CustomPath *best_path, List *tlist, List *custom_plans)
{
	CustomScan *cscan = makeNode(CustomScan);
	Plan	   *child = (Plan *) linitial(custom_plans);

	/* the scan tuple is the child's row: the plan's output is computed from it */
	cscan->scan.plan.targetlist = tlist;
	cscan->scan.scanrelid = 0;
	cscan->flags = best_path->flags;
	cscan->custom_plans = custom_plans;
	cscan->custom_private = best_path->custom_private;
	cscan->custom_scan_tlist = (List *) copyObject(child->targetlist);
	cscan->methods = &gpusort_scan_methods;
	return &cscan->scan.plan;
}

static Plan *
PlanGpuSortSlotPath(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
					List *tlist, List *clauses, List *custom_plans)
{
	Plan	   *plan = NULL;

	PG_GPU_GUARD(plan = PlanGpuSortSlotPathImpl(best_path, tlist, custom_plans));
	return plan;
}

/*
 * The Vars exprs, a set join's output, read: the probe table's in *probe_vars,
 * the build side's in *build_vars, each once.  False for a placeholder, an
 * outer query's Var or another table's.
 */
static bool
join_output(List *exprs, PgGpuSetJoin *sj, List **probe_vars, List **build_vars)
{
	List	   *vars = pull_var_clause((Node *) exprs, PVC_INCLUDE_PLACEHOLDERS);
	ListCell   *lc;

	*probe_vars = *build_vars = NIL;
	foreach(lc, vars)
	{
		Var		   *v = (Var *) lfirst(lc);

		if (!IsA(v, Var) || v->varlevelsup != 0)
			return false;
		if (bms_is_member(v->varno, sj->probe->relids))
			*probe_vars = list_append_unique(*probe_vars, v);
		else if (bms_is_member(v->varno, sj->build->relids))
			*build_vars = list_append_unique(*build_vars, v);
		else
			return false;
	}
	return true;
}

/*
 * The build plan of a join whose build rows are kept (GpuHashJoin): its key,
 * then the build side's columns build_vars that the output reads.
 */
static void
keep_build_rows(PlannerInfo *root, PgGpuSetJoin *sj, List *build_vars)
{
	PathTarget *target = create_empty_pathtarget();
	ListCell   *lc;

	add_column_to_pathtarget(target, sj->build_key, 0);
	foreach(lc, build_vars)
		add_column_to_pathtarget(target, (Expr *) lfirst(lc), 0);
	sj->build_path = (Path *) create_projection_path(root, sj->build,
													 sj->build->cheapest_total_path,
													 set_pathtarget_cost_width(root, target));
}

/* Whether exprs read the probe table alone: then its tuples are the join's rows. */
static bool
probe_output(List *exprs, PgGpuSetJoin *sj)
{
	List	   *probe_vars,
			   *build_vars;

	return join_output(exprs, sj, &probe_vars, &build_vars) && build_vars == NIL;
}

static bool gpusort_heap_path(PlannerInfo *root, RelOptInfo *input_rel, RelOptInfo *scan_rel,
							  RelOptInfo *output_rel, PathTarget *target, PgGpuSetJoin *sj);

/*
 * ORDER BY over one table: GpuSort scans it like GpuAgg (WHERE on the GPU), sorts
 * on the GPU and emits the table's tuples in order; PostgreSQL's own Sort over the
 * cheapest scan is kept as the fallback child.
 */
static void
GpuSortOrderedPathsImpl(PlannerInfo *root, RelOptInfo *input_rel, RelOptInfo *output_rel)
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
		PgGpuFindSetJoin(root, input_rel, &sj) && probe_output(target->exprs, &sj))
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

	if ((rte = plain_table(root, scan_rel,
						   sj->probe ? sj->probe->cheapest_total_path->total_cost
						   : ((Path *) linitial(output_rel->pathlist))->total_cost)) == NULL)
		return sj->probe == NULL;

	task = (pg_gpu_agg_task *) palloc0(sizeof(pg_gpu_agg_task));
	PgGpuCompilerInit(&comp, task, scan_rel->relid);
	comp.root = root;
	quals = ordered_quals(root, scan_rel->baserestrictinfo);
	if (sj->probe && !join_rows_test(root, &comp, task, sj, rte->relid, &join_quals))
		return false;
	if (!PgGpuCompileQuals(&comp, list_concat_copy(quals, join_quals), &task->filter))
		return sj->probe == NULL;
	foreach(lc, parse->sortClause)
	{
		SortGroupClause *sgc = lfirst_node(SortGroupClause, lc);

		if (!sort_key(&comp, task, sgc, (Expr *) get_sortgroupclause_expr(sgc, parse->targetList)))
			return sj->probe == NULL;
	}
	if (!PgGpuFinishPrograms(&comp) || !relation_supported(rte->relid, task))
		return sj->probe == NULL;
	task->sort = 1;
	task->sort_limit = sort_limit(root);

	/* the fallback: PostgreSQL's cheapest sorted plan, with the query's output */
	Path	   *cpu = cpu_path(root, take_ordered_path(root, output_rel));

	CustomPath *cpath = makeNode(CustomPath);
	double		rows = input_rel->rows;

	cpath->path.pathtype = T_CustomScan;
	cpath->path.parent = output_rel;
	cpath->path.pathtarget = target;
	cpath->path.rows = rows;
	cpath->path.pathkeys = root->sort_pathkeys;
	/* extraction and sort of every row; then every row comes back to the executor */
	cpath->path.startup_cost = gpu_scan_cost(scan_rel, 2.0) +
		(sj->probe ? sj->build_cost : 0.0);
	cpath->path.total_cost = cpath->path.startup_cost + rows * cpu_tuple_cost;
	/* a cursor may read it backward, as it may read a Sort (exec_scroll.h) */
	cpath->flags = CUSTOMPATH_SUPPORT_BACKWARD_SCAN;
	cpath->custom_paths = list_make1(cpu);
	if (sj->probe)
		cpath->custom_paths = lappend(cpath->custom_paths, sj->build_path);
	cpath->custom_private = list_make5(NIL, NIL, NIL, task_const(task),
									   filter_text(quals, rte->relid, scan_rel->relid));
	cpath->custom_private = lappend(cpath->custom_private, NIL);	/* no final functions */
	cpath->custom_private = lappend(cpath->custom_private, comp.set_sources);
	cpath->custom_private = lappend(cpath->custom_private, makeInteger((int) scan_rel->relid));
	cpath->methods = &gpusort_path_methods;
	add_gpu_path(output_rel, &cpath->path);
	return true;
}

/* ---- GpuHashJoin, GpuSemiJoin ----------------------------------------------- */

static const CustomPathMethods gpuhashjoin_path_methods = {
	"GpuHashJoin",
	PlanGpuAggPath,				/* GpuSort's plan, with no sort keys */
	NULL
};

static const CustomPathMethods gpusemijoin_path_methods = {
	"GpuSemiJoin",
	PlanGpuAggPath,
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
static Path *
cpu_path(PlannerInfo *root, Path *path)
{
	if (IsA(path, ProjectionPath))
	{
		Path	   *sub = ((ProjectionPath *) path)->subpath;
		Path	   *cpu = cpu_path(root, sub);

		return cpu == sub ? path
			: (Path *) create_projection_path(root, path->parent, cpu, path->pathtarget);
	}
	if (IsA(path, SortPath))
	{
		Path	   *sub = ((SortPath *) path)->subpath;
		Path	   *cpu = cpu_path(root, sub);

		return cpu == sub ? path
			: (Path *) create_sort_path(root, path->parent, cpu, path->pathkeys, -1.0);
	}
	if (is_gpujoin_path(path))
		return (Path *) linitial(((CustomPath *) path)->custom_paths);
	return path;
}

/*
 * GpuHashJoin or GpuSemiJoin over the probe table's pages (GpuJoinPathsImpl),
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
	if (!PgGpuFindSetJoin(root, joinrel, &sj) || sj.probe->cheapest_total_path == NULL ||
		(rte = plain_table(root, sj.probe, sj.probe->cheapest_total_path->total_cost)) == NULL)
		return false;
	if (!join_output(joinrel->reltarget->exprs, &sj, &probe_vars, &build_vars))
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
	PgGpuCompilerInit(&comp, task, sj.probe->relid);
	comp.root = root;
	quals = ordered_quals(root, sj.probe->baserestrictinfo);
	if (build_vars != NIL)
	{
		/*
		 * The output reads the build side: each matching probe row once, sorted
		 * by the ordinal of its key in the set, so that the executor pairs the
		 * rows with the build plan's rows of that key, kept in the same order.
		 */
		Integer    *unique;
		int			set;

		keep_build_rows(root, &sj, build_vars);
		if ((join_quals = join_set_test(root, &comp, &sj, rte->relid, &unique, &set, true)) == NIL ||
			!PgGpuCompileSetValue(&comp, sj.probe_key, sj.keytype, set, true, &task->keys[0]))
			return false;
		task->nkeys = 1;
	}
	else if (!join_rows_test(root, &comp, task, &sj, rte->relid, &join_quals))
		return false;
	if (!PgGpuCompileQuals(&comp, list_concat_copy(quals, join_quals), &task->filter) ||
		!PgGpuFinishPrograms(&comp) || !relation_supported(rte->relid, task) ||
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
	 * times a plain row's hand-over.  Under pg_gpu.force, free: no path
	 * PostgreSQL adds for another pair of inputs can then push it out, so the
	 * fallback it tracks stays.
	 */
	cpath->path.startup_cost = gpu_scan_cost(sj.probe, 1.0) + sj.build_cost +
		(build_vars != NIL ? sj.build_path->rows * 2 * cpu_tuple_cost : 0.0);
	cpath->path.total_cost = cpath->path.startup_cost +
		joinrel->rows * (build_vars != NIL ? 4 * cpu_tuple_cost + cpu_operator_cost
						 : cpu_tuple_cost);
	if (pg_gpu_force)
		cpath->path.startup_cost = cpath->path.total_cost = 0.0;
	/*
	 * No CUSTOMPATH_SUPPORT_PROJECTION: the fallback hands up its child's rows
	 * as they are, so the output must stay the join's own.
	 */
	cpath->flags = 0;
	cpath->custom_paths = list_make2(cpu, sj.build_path);
	cpath->custom_private = list_make5(NIL, NIL, NIL, task_const(task),
									   filter_text(quals, rte->relid, sj.probe->relid));
	cpath->custom_private = lappend(cpath->custom_private, NIL);	/* no final functions */
	cpath->custom_private = lappend(cpath->custom_private, comp.set_sources);
	if (build_vars != NIL)
	{
		/*
		 * The scan tuple: the probe table's columns the output reads, then the
		 * build side's; GPUAGG_PRIV_ROWS says where each comes from.
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
		cpath->custom_private = lappend(cpath->custom_private, scan_tlist);
		cpath->custom_private = lappend(cpath->custom_private,
										list_make4(copyObject(sj.probe_key), from,
												   list_make2_oid(get_opcode(op->opno), op->inputcollid),
												   makeInteger(linitial(op->args) == sj.probe_key)));
	}
	cpath->custom_private = lappend(cpath->custom_private, makeInteger((int) sj.probe->relid));
	cpath->methods = sj.jointype == JOIN_INNER ? &gpuhashjoin_path_methods
		: &gpusemijoin_path_methods;
	add_gpu_path(joinrel, &cpath->path);
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
	if (!PgGpuFindSetJoinSides(root, joinrel, outerrel, innerrel, &sj) ||
		!join_output(joinrel->reltarget->exprs, &sj, &probe_vars, &build_vars) ||
		(build_vars != NIL && sj.jointype != JOIN_INNER))
		return;
	probe_path = sj.probe->cheapest_total_path;
	/* the probe plan's columns are the scan tuple's first: plain Vars */
	foreach(lc, probe_path->pathtarget->exprs)
		if (!IsA(lfirst(lc), Var) || ((Var *) lfirst(lc))->varattno == 0)
			return;
	/* the key, computed over the probe plan's row, and its value's type */
	{
		List	   *vars = pull_var_clause((Node *) sj.probe_key, PVC_INCLUDE_PLACEHOLDERS);

		foreach(lc, vars)
			if (!IsA(lfirst(lc), Var) ||
				!list_member(probe_path->pathtarget->exprs, lfirst(lc)))
				return;
	}
	valtype = PgGpuValueType(exprType((Node *) sj.probe_key));
	if (valtype == 0 || PgGpuSetType(valtype) != PgGpuSetType(sj.keytype))
		return;

	/*
	 * An inner join keeps the build plan's rows (its key, then the columns the
	 * output reads): each probe row's match is paired with every build row of
	 * its key, whose count only they tell.
	 */
	if (sj.jointype == JOIN_INNER)
		keep_build_rows(root, &sj, build_vars);
	task = (pg_gpu_agg_task *) palloc0(sizeof(pg_gpu_agg_task));
	PgGpuCompilerInit(&comp, task, 0);
	comp.root = root;
	if (join_set_test(root, &comp, &sj, InvalidOid, &unique, &set,
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
	 * pages charges).  Under pg_gpu.force, free (see GpuJoinPathsImpl).
	 */
	double		probe_cost = (probe_path->total_cost - probe_path->startup_cost) +
		probe_rows * (2 * cpu_tuple_cost + cpu_operator_cost) +
		probe_rows * (key_width + 8) / BLCKSZ * pg_gpu_copy_page_cost;
	double		first = probe_rows > 0 ? Min(1.0, pg_gpu_join_batch_rows / probe_rows) : 1.0;

	cpath->path.startup_cost = probe_path->startup_cost + sj.build_cost + pg_gpu_startup_cost +
		(pg_gpu_engine_initialized() ? 0.0 : pg_gpu_init_cost) +
		(sj.jointype == JOIN_INNER ? sj.build_path->rows * 2 * cpu_tuple_cost : 0.0) +
		first * probe_cost;
	cpath->path.total_cost = cpath->path.startup_cost + (1.0 - first) * probe_cost +
		joinrel->rows * (sj.jointype == JOIN_INNER ? 4 * cpu_tuple_cost + cpu_operator_cost
						 : cpu_tuple_cost);
	if (pg_gpu_force)
		cpath->path.startup_cost = cpath->path.total_cost = 0.0;
	/* no projection: the fallback hands up its child's rows as they are */
	cpath->flags = 0;
	cpath->custom_paths = list_make3(cpu, sj.build_path, probe_path);
	cpath->custom_private = list_make5(task_const(task), comp.set_sources,
									   makeInteger((int) sj.jointype), makeInteger(valtype),
									   copyObject(sj.probe_key));
	cpath->methods = sj.jointype == JOIN_INNER ? &gpuhashjoin_slot_path_methods
		: &gpusemijoin_slot_path_methods;
	add_gpu_path(joinrel, &cpath->path);
}

/*
 * The plan: the scan tuple is the probe plan's row followed by the build row's
 * columns after its key (an inner join's), custom_scan_tlist naming them; the
 * probe key, an expression over those, is custom_exprs' one item.
 */
static Plan *
PlanGpuJoinSlotPathImpl(CustomPath *best_path, List *tlist, List *custom_plans)
{
	CustomScan *cscan = makeNode(CustomScan);
	List	   *priv = best_path->custom_private;
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
	cscan->custom_private = list_make5(linitial(priv), lsecond(priv), lthird(priv),
									   lfourth(priv),
									   makeInteger(list_length(probe->targetlist)));
	cscan->custom_exprs = list_make1(copyObject(list_nth(priv, 4)));
	cscan->custom_scan_tlist = scan_tlist;
	cscan->methods = best_path->methods == &gpuhashjoin_slot_path_methods
		? &gpuhashjoin_scan_methods : &gpusemijoin_scan_methods;
	return &cscan->scan.plan;
}

static Plan *
PlanGpuJoinSlotPath(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
					List *tlist, List *clauses, List *custom_plans)
{
	Plan	   *plan = NULL;

	PG_GPU_GUARD(plan = PlanGpuJoinSlotPathImpl(best_path, tlist, custom_plans));
	return plan;
}

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
static void
GpuJoinPathsImpl(PlannerInfo *root, RelOptInfo *joinrel, RelOptInfo *outerrel,
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

static void
GpuJoinPaths(PlannerInfo *root, RelOptInfo *joinrel, RelOptInfo *outerrel, RelOptInfo *innerrel,
			 JoinType jointype, JoinPathExtraData *extra)
{
	if (prev_join_pathlist_hook)
		prev_join_pathlist_hook(root, joinrel, outerrel, innerrel, jointype, extra);
	PG_GPU_GUARD(GpuJoinPathsImpl(root, joinrel, outerrel, innerrel));
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
	if (stage == UPPERREL_ORDERED)
	{
		PG_GPU_GUARD(GpuSortOrderedPathsImpl(root, input_rel, output_rel));
		return;
	}
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
	prev_join_pathlist_hook = set_join_pathlist_hook;
	set_join_pathlist_hook = GpuJoinPaths;
}
