/*
 * gpuagg_plan.cpp — planning GpuAgg.
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
 * GpuAgg emits exactly what a Partial Aggregate would (see aggs/agg_catalog.cpp), so the
 * results are PostgreSQL's by construction, and falling back is just running the
 * child.  The path's cost is a model of the GPU (start-up, per-page transfer,
 * per-tuple work) in PostgreSQL's cost units, so add_path decides; pg_gpu.force
 * removes the competition instead.
 */
extern "C" {
#include "postgres.h"

#include "catalog/pg_aggregate.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/cost.h"
#include "utils/syscache.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/planner.h"
#include "optimizer/prep.h"
#include "optimizer/tlist.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/selfuncs.h"

#include "pg_gpu.h"
#include "pg_gpu_engine.h"
#include "expr/expr_compile.h"
#include "aggs/agg_catalog.h"
#include "planner/planner.h"
#include "planner/setjoin.h"
#include "nodes/gpuagg.h"
#include "nodes/gpujoin.h"
#include "nodes/gpuagg_int.h"
}


#include "guard.h"

static Plan *PlanGpuAggPath(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
							List *tlist, List *clauses, List *custom_plans);

static const CustomPathMethods gpuagg_path_methods = {
	"GpuAgg",
	PlanGpuAggPath,
	NULL
};

bool
PgGpuIsAggPath(Path *path)
{
	return IsA(path, CustomPath) && ((CustomPath *) path)->methods == &gpuagg_path_methods;
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


/*
 * A text GROUP BY key the hash table can take: a column of the table (or a
 * substring of one, PgGpuIsColumnText), grouped by the type's own equality under a
 * deterministic collation, i.e. equal exactly when the bytes are (bpchar: without
 * trailing blanks).  Lying in a column bounds the bytes a chunk can add to the
 * string arena by the chunk's pages.
 */
static bool
text_key_ok(SortGroupClause *sgc, Expr *expr, Index relid)
{
	Oid			fn = get_opcode(sgc->eqop);

	return PgGpuIsColumnText(expr, relid) && (fn == F_TEXTEQ || fn == F_BPCHAREQ) &&
		PgGpuCollationIsDeterministic(exprCollation((Node *) expr));
}

/* Everything one GpuAgg path is built from: GpuAggBuild (gpuagg_int.h). */

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
		a->aggorder != NIL || a->aggfilter != NULL ||
		a->aggvariadic || a->aggsplit != AGGSPLIT_SIMPLE)
		return false;
	if (list_member(b->aggs, a))
		return true;
	if (a->aggdistinct != NIL)
	{
		/*
		 * count(DISTINCT x): x becomes the last grouping key (agg_path), and
		 * GpuAgg folds the groups of equal keys, counting their non-NULL x.
		 * One distinct argument per query, as the fold has one x key.
		 */
		if (a->aggfnoid != F_COUNT_ANY || list_length(a->args) != 1 ||
			list_length(a->aggdistinct) != 1)
			return false;
		if (b->distinct != NULL &&
			!equal(linitial_node(TargetEntry, a->args)->expr,
				   linitial_node(TargetEntry, b->distinct->args)->expr))
			return false;
		if (b->distinct == NULL)
			b->distinct = a;
		b->aggs = lappend(b->aggs, a);
		b->out_state = lappend_int(b->out_state, PG_GPU_AGGST_COUNT_DISTINCT);
		b->out_coltype = lappend_int(b->out_coltype, 0);
		b->out_col = lappend_int(b->out_col, -1);
		return true;
	}
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
			coltype = PgGpuAggColType(argtype);
			if (coltype == 0)
				return false;
		}
		col = agg_input(b, arg, state == PG_GPU_AGGST_COUNT, coltype, needs_of(state));
		if (col < 0)
			return false;
		if (coltype == PG_GPU_DECIMAL)
		{
			const pg_gpu_expr *in = &b->task->inputs[col];

			/*
			 * numeric: sum and avg keep the largest dscale met; min and max
			 * print the value's own dscale, which must then be the scale
			 */
			if (state == PG_GPU_AGGST_VAR ||
				((state == PG_GPU_AGGST_MIN || state == PG_GPU_AGGST_MAX) && !in->dscale_fixed))
				return false;
			coltype |= in->scale << 8;
		}
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
 * A star join's dimensions as key sets of the task: each join's equality a
 * qual of the scan (*join_quals), and the dimensions' columns that the groups
 * and the aggregates read (the Vars of exprs) payload columns of their sets,
 * taken from each dimension's plan; so are the dimension expressions that read
 * text other than as a group's code (PgGpuStarDimExprs: p_type LIKE 'PROMO%'
 * as a bool), their columns then not carried for them.  An inner join's keys
 * must be unique (the executor checks: else PostgreSQL's join runs).  False if
 * the task cannot.
 */
static bool
star_sets(PlannerInfo *root, GpuAggBuild *b, PgGpuStarJoin *star, Oid relid, List *exprs,
		  List *keys, List **join_quals, double *build_cost)
{
	Node	   *rest;
	List	   *aggs = pull_var_clause((Node *) exprs, PVC_INCLUDE_AGGREGATES |
									   PVC_RECURSE_WINDOWFUNCS | PVC_INCLUDE_PLACEHOLDERS);
	List	   *dim_exprs = PgGpuStarDimExprs(root, star, list_concat(aggs, keys),
											  (Node *) exprs, &rest);
	List	   *vars = pull_var_clause(rest, PVC_RECURSE_AGGREGATES |
									   PVC_RECURSE_WINDOWFUNCS | PVC_INCLUDE_PLACEHOLDERS);
	ListCell   *lc;

	*build_cost = 0;
	for (int d = 0; d < star->ndims; d++)
	{
		PgGpuSetJoin *sj = &star->dims[d];
		List	   *build_vars = NIL;
		List	   *test;
		Integer    *unique;
		int			set;
		int			col = 0;

		foreach(lc, vars)
		{
			Var		   *v = (Var *) lfirst(lc);

			if (!IsA(v, Var) || v->varlevelsup != 0)
				return false;
			if (!bms_is_member(v->varno, sj->build->relids))
				continue;
			if (PgGpuValueType(v->vartype) == 0 || sj->jointype != JOIN_INNER)
				return false;
			build_vars = list_append_unique(build_vars, v);
		}
		foreach(lc, dim_exprs)
			if (bms_is_subset(pull_varnos(root, (Node *) lfirst(lc)), sj->build->relids))
				build_vars = lappend(build_vars, lfirst(lc));
		if (list_length(build_vars) > PG_GPU_MAX_PAYLOAD)
			return false;
		if (build_vars != NIL)
			PgGpuKeepBuildRows(root, sj, build_vars);
		test = PgGpuJoinSetTest(root, &b->comp, sj, relid, &unique, &set, false, build_vars, 1 + d);
		if (test == NIL)
			return false;
		if (sj->jointype == JOIN_INNER)
			unique->ival = 1;
		*join_quals = list_concat(*join_quals, test);
		*build_cost += sj->build_cost;
		foreach(lc, build_vars)
		{
			PgGpuPayloadVar *pv = (PgGpuPayloadVar *) palloc0(sizeof(PgGpuPayloadVar));

			if (IsA(lfirst(lc), Var))
				pv->var = (Var *) lfirst(lc);
			else
				pv->expr = (Expr *) lfirst(lc);
			pv->probe = sj->probe_key;
			pv->keytype = sj->keytype;
			pv->set = set;
			pv->col = col++;
			pv->valtype = PgGpuValueType(exprType((Node *) lfirst(lc)));
			b->comp.payload_vars = lappend(b->comp.payload_vars, pv);
		}
	}
	return true;
}

/*
 * A text GROUP BY key that is a dimension's column: grouped by its code (equal
 * codes exactly when equal bytes, as text_key_ok asks), decoded on output.
 */
static PgGpuPayloadVar *
text_payload_key(PgGpuCompiler *comp, SortGroupClause *sgc, Expr *expr)
{
	Oid			fn = get_opcode(sgc->eqop);

	if (!IsA(expr, Var) || ((Var *) expr)->varno == (int) comp->relid ||
		!(fn == F_TEXTEQ || fn == F_BPCHAREQ) ||
		!PgGpuCollationIsDeterministic(exprCollation((Node *) expr)))
		return NULL;
	return PgGpuFindPayloadVar(comp, (Var *) expr);
}

/*
 * One grouping key of the task: a GROUP BY key, or count(DISTINCT x)'s x (sgc its
 * DISTINCT clause), compiled under the rules of a GROUP BY key: the type's own
 * equality is the hash table's.
 */
static bool
add_key(GpuAggBuild *b, SortGroupClause *sgc, Expr *expr, PgGpuStarJoin *star, bool is_x,
		Expr *as = NULL)
{
	int			t = PgGpuValueType(exprType((Node *) expr));
	pg_gpu_expr *k;
	PgGpuPayloadVar *code = NULL;

	if (b->task->nkeys >= PG_GPU_MAX_KEYS)
		return false;
	k = &b->task->keys[b->task->nkeys];
	if (exprType((Node *) expr) == NUMERICOID)
	{
		/* its scaled integer as an int8 word (EXTRACT(YEAR FROM d)) */
		if (!PgGpuCompileNumericKey(&b->comp, expr, k))
			return false;
	}
	else if (t == 0 || t == PG_GPU_BOOL)
		return false;
	else if ((t == PG_GPU_TEXT || t == PG_GPU_BPCHAR) &&
		(code = text_payload_key(&b->comp, sgc, expr)) != NULL)
	{
		if (!PgGpuCompilePayloadCode(&b->comp, code, k))
			return false;
	}
	else if ((t == PG_GPU_TEXT || t == PG_GPU_BPCHAR) && !text_key_ok(sgc, expr, b->comp.relid))
		return false;
	else if (!PgGpuCompileExpr(&b->comp, as ? as : expr, k) || k->type != t)
		return false;
	b->key_codes = lappend_int(b->key_codes,
							   code ? code->set * PG_GPU_MAX_PAYLOAD + code->col : -1);
	/* a dimension's column as it is: its distinct values bound the groups' */
	if (star != NULL && IsA(expr, Var) && ((Var *) expr)->varno != (int) b->comp.relid &&
		(code != NULL || (code = PgGpuFindPayloadVar(&b->comp, (Var *) expr)) != NULL))
		b->task->key_pay[b->task->nkeys] = (uint8) (1 + code->set * PG_GPU_MAX_PAYLOAD + code->col);
	b->task->nkeys++;
	if (is_x)
		return true;			/* the fold's key: not in the scan tuple */
	b->key_exprs = lappend(b->key_exprs, expr);
	b->key_refs = lappend_int(b->key_refs, sgc->tleSortGroupRef);
	return true;
}

/* count(DISTINCT x)'s x */
static Expr *
distinct_arg(Aggref *a)
{
	return linitial_node(TargetEntry, a->args)->expr;
}

/*
 * count(DISTINCT x): x as the task's last key, when the fold can finish the
 * query: x of the scanned table (no outer or dimension column), equal under
 * the key rules exactly when PostgreSQL's DISTINCT (its equality operator, a
 * deterministic collation), and no other aggregate whose partial states the
 * fold cannot combine as PostgreSQL would (float avg and variances: their
 * overflow checks are per group; see docs/SEMANTICS.md 25).
 */
static bool
distinct_key(PlannerInfo *root, GpuAggBuild *b, PgGpuStarJoin *star)
{
	Aggref	   *a = b->distinct;
	Expr	   *x = distinct_arg(a);
	SortGroupClause *sgc = linitial_node(SortGroupClause, a->aggdistinct);
	Relids		varnos = pull_varnos(root, (Node *) x);
	ListCell   *lc,
			   *lc2;
	int			t = PgGpuValueType(exprType((Node *) x));

	if (bms_is_empty(varnos) || !bms_equal(varnos, bms_make_singleton(b->comp.relid)) ||
		contain_volatile_functions((Node *) x))
		return false;
	if ((t == PG_GPU_TEXT || t == PG_GPU_BPCHAR) &&
		!PgGpuCollationIsDeterministic(a->inputcollid))
		return false;
	/* numeric x: 1.0 and 1.00 are one value; the key words are not compared so yet */
	if (exprType((Node *) x) == NUMERICOID)
		return false;
	forboth(lc, b->out_state, lc2, b->out_coltype)
	{
		int			st = lfirst_int(lc);
		int			ct = lfirst_int(lc2) & 0xFF;

		if ((st == PG_GPU_AGGST_AVG || st == PG_GPU_AGGST_VAR) &&
			(ct == PG_GPU_FLOAT4 || ct == PG_GPU_FLOAT8))
			return false;
	}
	return add_key(b, sgc, x, star, true);
}

/* An expression under binary-compatible casts. */
static Expr *
strip_relabel(Expr *e)
{
	while (e != NULL && IsA(e, RelabelType))
		e = ((RelabelType *) e)->arg;
	return e;
}

/*
 * A LEFT JOIN of the build side (preserved) with the probe table (nullable),
 * grouped by the build side's join key alone (docs/SEMANTICS.md 32): the
 * groups are the build side's keys, each with the probe rows that match it.
 * The GPU groups the probe rows by their key (equal to the build key there)
 * and adds every build key no row matched as a group without rows.  Integer
 * keys of one type (a group's key is printed from the probe's value).
 */
static bool
seeded_join_ok(PlannerInfo *root, PgGpuSetJoin *sj)
{
	Query	   *parse = root->parse;
	SortGroupClause *sgc;
	Oid			t = exprType((Node *) sj->build_key);

	if (list_length(parse->groupClause) != 1)
		return false;
	sgc = linitial_node(SortGroupClause, parse->groupClause);
	if (!equal(strip_relabel((Expr *) get_sortgroupclause_expr(sgc, parse->targetList)),
			   strip_relabel(sj->build_key)))
		return false;
	return (t == INT2OID || t == INT4OID || t == INT8OID) &&
		exprType((Node *) sj->probe_key) == t && PgGpuSetType(sj->keytype) == PG_GPU_INT8;
}

/*
 * Seeded groups' aggregates: count(*) (one for a group without rows, the
 * executor's), or an aggregate of one column of the probe table, whose value
 * is NULL in the row a build key without a match makes, so that the group
 * without rows gives what PostgreSQL's over that one row gives (count 0,
 * sum NULL).  Not count(DISTINCT).
 */
static bool
seeded_aggs_ok(GpuAggBuild *b, Index probe_relid)
{
	ListCell   *lc;

	if (b->distinct != NULL)
		return false;
	foreach(lc, b->aggs)
	{
		Aggref	   *a = lfirst_node(Aggref, lc);
		PgGpuAggState state;
		Oid			argtype;
		Var		   *v;

		if (!PgGpuAggLookup(a->aggfnoid, &state, &argtype))
			return false;
		if (state == PG_GPU_AGGST_COUNT_STAR)
			continue;
		if (list_length(a->args) != 1)
			return false;
		v = (Var *) strip_relabel(linitial_node(TargetEntry, a->args)->expr);
		if (!IsA(v, Var) || v->varno != (int) probe_relid || v->varlevelsup != 0 || v->varattno <= 0)
			return false;
	}
	return true;
}

/*
 * One GpuAgg path for the aggregation over input_rel: one table, a set join
 * (star NULL), or the star join star.  False if none was added.
 */
static bool
agg_path(PlannerInfo *root, RelOptInfo *input_rel, RelOptInfo *output_rel,
		 GroupPathExtraData *extra, PgGpuStarJoin *star)
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

	/* a join: one table scanned on the GPU, probing a key set of the rest */
	RelOptInfo *scan_rel = input_rel;
	PgGpuSetJoin sj;
	Integer    *unique = NULL;
	int			join_set = -1;
	double		star_cost = 0;

	memset(&sj, 0, sizeof(sj));
	if (star != NULL)
		scan_rel = star->fact;
	else if (input_rel->reloptkind == RELOPT_JOINREL)
	{
		if (!PgGpuFindSetJoin(root, input_rel, &sj, true))
			return false;
		scan_rel = sj.probe;
	}
	/* a LEFT JOIN preserving the build side: its keys seed the groups */
	bool		seeded = sj.probe && sj.jointype == JOIN_RIGHT;

	if (seeded && !seeded_join_ok(root, &sj))
		return false;
	if (scan_rel->cheapest_total_path == NULL ||
		(rte = PgGpuPlainTable(root, scan_rel, scan_rel->cheapest_total_path->total_cost)) == NULL)
		return false;

	memset(&b, 0, sizeof(b));
	b.task = (pg_gpu_agg_task *) palloc0(sizeof(pg_gpu_agg_task));
	PgGpuPlannerCompilerInit(&b.comp, b.task, scan_rel->relid, root);
	b.comp.allow_params = true;

	/* the table's quals; the join's test is added to them below */
	quals = PgGpuOrderedQuals(root, scan_rel->baserestrictinfo);
	List	   *join_quals = NIL;

	if (sj.probe &&
		(join_quals = PgGpuJoinSetTest(root, &b.comp, &sj, rte->relid, &unique, &join_set)) == NIL)
		return false;
	if (star != NULL)
	{
		List	   *upper = list_make2(target->exprs, extra->havingQual);
		List	   *keys = NIL;

		foreach(lc, parse->groupClause)
			keys = lappend(keys, get_sortgroupclause_expr(lfirst_node(SortGroupClause, lc),
														  parse->targetList));
		upper = list_concat(upper, keys);
		/*
		 * The join filter (clauses between dimensions, or beside a
		 * dimension's equality) is read per row, as the aggregates'
		 * arguments: their columns carried as payload, an expression that
		 * reads a dimension's text as a bool; tested on the GPU with the
		 * join's.
		 */
		upper = list_concat(upper, star->residual);
		keys = list_concat(keys, star->residual);
		if (!star_sets(root, &b, star, rte->relid, upper, keys, &join_quals, &star_cost))
			return false;
		join_quals = list_concat(join_quals, star->residual);
	}

	/* GROUP BY keys */
	foreach(lc, parse->groupClause)
	{
		SortGroupClause *sgc = lfirst_node(SortGroupClause, lc);

		if (!add_key(&b, sgc, (Expr *) get_sortgroupclause_expr(sgc, parse->targetList), star,
					 false, seeded ? sj.probe_key : NULL))
			return false;
	}

	/* every aggregate supported, and nothing else read from the table */
	i = 0;
	foreach(lc, target->exprs)
	{
		Index		sgref = get_pathtarget_sortgroupref(target, i++);

		if (sgref != 0 && list_member_int(b.key_refs, (int) sgref))
			continue;
		if (!add_upper_expr(&b, (Node *) lfirst(lc)))
			return false;
	}
	if (extra->havingQual && !add_upper_expr(&b, extra->havingQual))
		return false;
	if (b.distinct != NULL && !distinct_key(root, &b, star))
		return false;
	if (seeded)
	{
		if (!seeded_aggs_ok(&b, scan_rel->relid))
			return false;
		/* one group per build row: the keys must be unique (the executor checks) */
		unique->ival = 1;
		b.task->seed_set = join_set + 1;
	}
	if (sj.jointype == JOIN_INNER && sj.probe)
	{
		/*
		 * An inner join repeats a row once per equal key.  count(*) alone counts
		 * each row that many times, and a row without a match weighs 0, so the
		 * weight is the join's only probe; other aggregates need the keys unique,
		 * which the executor checks (else the CPU joins).
		 */
		if (!grouped && b.task->ninputs == 0 && b.distinct == NULL)
		{
			if (!PgGpuCompileSetValue(&b.comp, sj.probe_key, sj.keytype, join_set, false,
									  &b.task->weight))
				return false;
			join_quals = NIL;
		}
		else
			unique->ival = 1;
	}
	/* WHERE: every qual must run on the GPU */
	if (!PgGpuCompileQuals(&b.comp, list_concat_copy(quals, join_quals), &b.task->filter))
		return false;
	if ((b.aggs == NIL && !grouped) || !PgGpuFinishPrograms(&b.comp) ||
		!PgGpuRelationSupported(rte->relid, b.task))
		return false;
	if (grouped)
	{
		ngroups = estimate_num_groups(root, get_sortgrouplist_exprs(parse->groupClause,
																	parse->targetList),
									  input_rel->rows, NULL, NULL);
		b.task->groups_hint = (int64) Min(ngroups, 1e12);
	}
	double		fold_cost = 0;

	if (b.distinct != NULL)
	{
		/* the engine's groups: the keys and x */
		List	   *exprs = lappend(list_copy(b.key_exprs), distinct_arg(b.distinct));
		double		nx = estimate_num_groups(root, exprs, input_rel->rows, NULL, NULL);

		b.task->groups_hint = (int64) Min(nx, 1e12);
		fold_cost = nx * cpu_tuple_cost;
	}

	/*
	 * Grouped: GpuAgg itself applies PostgreSQL's final functions to the states
	 * and emits finished groups (HAVING and the output expressions evaluated by
	 * the scan's qual and projection), so no Finalize node handles every group a
	 * second time.  An "internal" state (sum/avg of int8 and numeric, integer
	 * variances) goes through its serialized form: the aggregate's deserialize
	 * function makes it, as in a Finalize Aggregate, and its final function
	 * finishes it (gpuagg_exec.cpp).
	 */
	List	   *finalfns = NIL;
	List	   *deserialfns = NIL;
	bool		distinct = b.distinct != NULL;
	bool		direct = (grouped && pg_gpu_direct_groups) || distinct;

	foreach(lc, b.aggs)
	{
		Aggref	   *a = (Aggref *) lfirst(lc);
		HeapTuple	tup = SearchSysCache1(AGGFNOID, ObjectIdGetDatum(a->aggfnoid));
		Form_pg_aggregate agg;
		bool		internal;

		if (!HeapTupleIsValid(tup))
			return false;
		agg = (Form_pg_aggregate) GETSTRUCT(tup);
		internal = agg->aggtranstype == INTERNALOID;
		if (agg->aggfinalextra || (internal && !OidIsValid(agg->aggdeserialfn)))
			direct = false;
		finalfns = lappend_oid(finalfns, agg->aggfinalfn);
		deserialfns = lappend_oid(deserialfns, internal ? agg->aggdeserialfn : InvalidOid);
		ReleaseSysCache(tup);
	}
	/* PostgreSQL has no partial DISTINCT aggregate: GpuAgg finishes them */
	if (distinct && !direct)
		return false;
	if (!direct)
		finalfns = deserialfns = NIL;

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

	/*
	 * The CPU fallback: PostgreSQL's partial aggregation of the filtered scan.
	 * Its Agg does DISTINCT aggregates only sorted (nodeAgg.c): the input is
	 * then sorted by the groups' pathkeys.
	 */
	Path	   *cpu_input = PgGpuJoinCpuPath(root, input_rel->cheapest_total_path);

	if (distinct && grouped)
	{
		if (!grouping_is_sortable(parse->groupClause) || root->group_pathkeys == NIL)
			return false;
		if (!pathkeys_contained_in(root->group_pathkeys, cpu_input->pathkeys))
			cpu_input = (Path *) create_sort_path(root, output_rel, cpu_input,
												  root->group_pathkeys, -1.0);
	}
	Path	   *cpu_partial = (Path *) create_agg_path(root, output_rel, cpu_input,
													   partial_target,
													   grouped ? (distinct ? AGG_SORTED : AGG_HASHED) : AGG_PLAIN,
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
	/* direct mode applies HAVING: its selectivity, as cost_agg's */
	if (direct && extra->havingQual != NULL)
		cpath->path.rows = clamp_row_est(ngroups *
										 clauselist_selectivity(root, (List *) extra->havingQual,
																0, JOIN_INNER, NULL));
	cpath->path.pathkeys = NIL;
	/*
	 * Every group is handed to the Finalize Aggregate as one tuple.  The GPU
	 * service runs the task, key sets and all (no CUDA start here), a star
	 * join's too: its dimensions' sets and payloads are held there
	 * (PgGpuSetsInService), unless one is a dictionary, which stays with the
	 * backend's engine.
	 */
	bool		in_service = true;

	foreach(lc, b.comp.set_sources)
	{
		PgGpuSetSource src;

		PgGpuSetSourceRead((List *) lfirst(lc), &src);
		if (star != NULL && src.kind == PG_GPU_SET_DICT)
			in_service = false;
	}
	double		scan_cost = PgGpuScanCost(scan_rel, 1.0, true, in_service);

	cpath->path.startup_cost = scan_cost +
		(grouped ? ngroups * cpu_tuple_cost : 0.0) + fold_cost +
		(sj.probe ? sj.build_cost : 0.0) + star_cost;
	cpath->path.total_cost = cpath->path.startup_cost;
	elog(DEBUG1, "pg_gpu: GpuAgg path on %s: cost %.0f (scan %.0f, key sets %.0f, %s)",
		 get_rel_name(rte->relid), cpath->path.total_cost, scan_cost,
		 (sj.probe ? sj.build_cost : 0.0) + star_cost,
		 star != NULL ? (star->residual != NIL ? "star join with a join filter" : "star join")
		 : sj.probe ? "set join" : "one table");
	cpath->flags = 0;
	cpath->custom_paths = list_make1(cpu_partial);
	if (sj.probe)
		cpath->custom_paths = lappend(cpath->custom_paths, sj.build_path);
	for (int d = 0; star != NULL && d < star->ndims; d++)
		cpath->custom_paths = lappend(cpath->custom_paths, star->dims[d].build_path);
	GpuAggPrivate priv;

	memset(&priv, 0, sizeof(priv));
	priv.out_state = b.out_state;
	priv.out_coltype = b.out_coltype;
	priv.out_col = b.out_col;
	/* not over seeded groups: count(*) of one without rows is 1 (the executor's) */
	if (direct && !distinct && grouped && extra->havingQual != NULL && !seeded)
		PgGpuAggHavingPrefilter(&b, (List *) extra->havingQual);
	priv.task = PgGpuTaskConst(b.task);
	priv.filter_text = PgGpuFilterText(quals, rte->relid, scan_rel->relid);
	priv.join_filter_text = star != NULL && star->residual != NIL
		? PgGpuJoinFilterText(root, star->residual) : makeString(pstrdup(""));
	priv.finalfns = finalfns;
	priv.deserialfns = deserialfns;
	priv.params = b.comp.params;
	priv.param_exprs = b.comp.param_nodes;
	priv.sets = b.comp.set_sources;
	priv.scan_tlist = direct ? make_tlist_from_pathtarget(partial_target) : NIL;
	priv.having = direct ? extra->havingQual : NULL;
	priv.relid = scan_rel->relid;
	priv.key_codes = b.key_codes;
	priv.distinct_text = b.distinct ?
		PgGpuFilterText(list_make1(distinct_arg(b.distinct)), rte->relid, scan_rel->relid) :
		makeString(pstrdup(""));
	cpath->custom_private = GpuAggPrivateBuild(&priv, true);
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

	/*
	 * add_path frees a path it rejects or later removes, so the sorted one
	 * below reads a copy of the top node (its own children are in no list).
	 */
	bool		offer_sorted = !pg_gpu_force && grouped && root->group_pathkeys != NIL &&
		grouping_is_sortable(parse->groupClause);
	Path	   *sort_input = !offer_sorted ? NULL : direct
		? (Path *) memcpy(palloc(sizeof(CustomPath)), cpath, sizeof(CustomPath))
		: (Path *) memcpy(palloc(sizeof(AggPath)), top, sizeof(AggPath));

	PgGpuDropRiskyUpperPaths(root, output_rel, top->total_cost);
	PgGpuAddPath(output_rel, top);

	/*
	 * The groups sorted by their keys too (PostgreSQL's Sort above).  add_path
	 * calls costs within 1% equal and then keeps the path with the better
	 * pathkeys, so unsorted GpuAgg lost every near tie to a plan sorted by the
	 * same keys; sorted, the cheaper wins.  TPC-H Q4 at SF 10: GpuAgg's 354,559
	 * against a GpuSemiJoin, Sort and GroupAggregate at 358,062 (the semi
	 * join's 526,040 rows estimated at 16,864) kept the latter, 672 ms against
	 * GpuAgg's 408 ms.  Not under pg_gpu.force, whose one path is GpuAgg.
	 */
	if (offer_sorted)
		PgGpuAddPath(output_rel, (Path *) create_sort_path(root, output_rel, sort_input,
															root->group_pathkeys, -1.0));
	return true;
}

void
PgGpuAggPaths(PlannerInfo *root, RelOptInfo *input_rel, RelOptInfo *output_rel,
			  GroupPathExtraData *extra)
{
	Query	   *parse = root->parse;
	PgGpuStarJoin star;

	if (!pg_gpu_enabled || !pg_gpu_enable_gpuagg)
		return;
	if (!pg_gpu_force && !PgGpuDeviceLikely())
		return;
	if ((!parse->hasAggs && parse->groupClause == NIL) || parse->groupingSets ||
		parse->hasTargetSRFs || !PgGpuLayoutOk())
		return;
	if (input_rel->reloptkind == RELOPT_JOINREL && !pg_gpu_enable_gpujoin)
		return;

	/*
	 * A join: the star join of a fact table with its dimensions (whose columns
	 * the groups may read), else the set join of one table with the rest (any
	 * plan).  With one dimension the two are the same join, and the set join
	 * goes first: it also counts rows of a join whose keys repeat.
	 */
	bool		have_star = input_rel->reloptkind == RELOPT_JOINREL &&
		PgGpuFindStarJoin(root, input_rel, &star);

	if (have_star && star.ndims > 1 && agg_path(root, input_rel, output_rel, extra, &star))
		return;
	if (agg_path(root, input_rel, output_rel, extra, NULL))
		return;
	if (have_star && star.ndims == 1)
		(void) agg_path(root, input_rel, output_rel, extra, &star);
}


/*
 * HAVING's terms in the order PostgreSQL's Agg evaluates them
 * (createplan.c's order_qual_clauses: cheapest first, equal costs as written),
 * so that a term that raises runs for the same groups as there (the GPU's
 * pre-filter relies on it: docs/SEMANTICS.md 31).
 */
static List *
having_order(PlannerInfo *root, List *quals)
{
	int			n = list_length(quals);
	Node	  **items;
	Cost	   *costs;
	List	   *out = NIL;
	int			i = 0;
	ListCell   *lc;

	if (n <= 1)
		return quals;
	items = (Node **) palloc(n * sizeof(Node *));
	costs = (Cost *) palloc(n * sizeof(Cost));
	foreach(lc, quals)
	{
		QualCost	qc;
		Node	   *x = (Node *) lfirst(lc);
		int			j = i;

		cost_qual_eval_node(&qc, x, root);
		/* insertion sort, stable */
		while (j > 0 && costs[j - 1] > qc.per_tuple)
		{
			items[j] = items[j - 1];
			costs[j] = costs[j - 1];
			j--;
		}
		items[j] = x;
		costs[j] = qc.per_tuple;
		i++;
	}
	for (i = 0; i < n; i++)
		out = lappend(out, items[i]);
	return out;
}

static Plan *
PlanGpuAggPathImpl(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
				   List *tlist, List *custom_plans)
{
	CustomScan *cscan = makeNode(CustomScan);
	GpuAggPrivate priv;

	GpuAggPrivateRead(best_path->custom_private, &priv);
	cscan->scan.plan.targetlist = tlist;
	/* direct mode: HAVING, over finished groups */
	cscan->scan.plan.qual = (List *) copyObject(priv.having);
	if (cscan->scan.plan.qual && !IsA(cscan->scan.plan.qual, List))
		cscan->scan.plan.qual = make_ands_implicit((Expr *) cscan->scan.plan.qual);
	cscan->scan.plan.qual = having_order(root, cscan->scan.plan.qual);
	cscan->scan.scanrelid = priv.relid;
	cscan->flags = best_path->flags;
	cscan->custom_plans = custom_plans;
	/* the InitPlan parameters the task reads: finalize_plan sees them here */
	cscan->custom_exprs = (List *) copyObject(priv.param_exprs);
	cscan->custom_private = GpuAggPrivateBuild(&priv, false);
	/* the scan tuple: keys and partial states, or (direct) keys and final values */
	cscan->custom_scan_tlist = (List *) copyObject(priv.scan_tlist ? priv.scan_tlist : tlist);
	cscan->custom_relids = NULL;
	cscan->methods = &gpuagg_scan_methods;
	return &cscan->scan.plan;
}

PG_GPU_PLAN_CUSTOM_PATH(PlanGpuAggPath)

