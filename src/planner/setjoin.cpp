/*
 * setjoin.cpp — recognising a join that a key set answers (issue 5).
 *
 * The join rel under an aggregation (or an ORDER BY) is taken apart into one
 * plain table, scanned page by page on the GPU, and everything else, whose rows
 * give the keys of a hash set the scan's kernels probe.  That covers
 *
 *   x IN (SELECT k ...), EXISTS (SELECT ... WHERE k = x)     JOIN_SEMI
 *   NOT EXISTS (SELECT ... WHERE k = x)                      JOIN_ANTI
 *   t JOIN u ON t.x = u.k                                    JOIN_INNER
 *
 * with exactly one join clause, an equality the key set decides exactly
 * (PgGpuSetKeyType: integer, date, timestamp and text types, deterministic
 * collations); a semi- or anti-join may add one inner.b <> outer.x over
 * integer, date or timestamp columns beside an integer key (TPC-H Q21's
 * EXISTS (... l2.l_suppkey <> l1.l_suppkey)), which a set keeping each key's
 * least and greatest b decides.  Anything else keeps PostgreSQL's join.
 */
extern "C" {
#include "postgres.h"

#include "catalog/pg_type.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/clauses.h"
#include "nodes/makefuncs.h"
#include "optimizer/cost.h"
#include "optimizer/tlist.h"
#include "parser/parsetree.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/ruleutils.h"

#include "utils/selfuncs.h"

#include "pg_gpu.h"
#include "pg_gpu_engine.h"
#include "expr/expr_compile.h"
#include "planner/planner.h"
#include "planner/setjoin.h"
#include "planner/setjoin_internal.h"
}

/*
 * The kind of join between the probe side and the build relids: JOIN_INNER when
 * no special join links them, JOIN_SEMI or JOIN_ANTI with the probe side as its
 * left input (holding the special join's minimal left-hand side; PostgreSQL made
 * the join rel, so joining there is legal); -1 for anything else (outer joins).
 */
static int
join_type_of(PlannerInfo *root, Relids probe, Relids build, bool preserved_build)
{
	Relids		both = bms_union(probe, build);
	int			jt = JOIN_INNER;
	ListCell   *lc;

	foreach(lc, root->join_info_list)
	{
		SpecialJoinInfo *sj = lfirst_node(SpecialJoinInfo, lc);
		Relids		all = bms_union(sj->syn_lefthand, sj->syn_righthand);

		/*
		 * A join inside one side is that side's plan's business; one that
		 * takes this whole join as (part of) an input happens above it.
		 */
		if (bms_is_subset(all, build) || bms_is_subset(all, probe) ||
			bms_is_subset(both, sj->syn_lefthand) || bms_is_subset(both, sj->syn_righthand))
			continue;
		if ((sj->jointype == JOIN_SEMI || sj->jointype == JOIN_ANTI) && jt == JOIN_INNER &&
			bms_is_subset(sj->min_lefthand, probe) && bms_is_subset(probe, sj->syn_lefthand) &&
			bms_equal(sj->syn_righthand, build))
		{
			jt = sj->jointype;
			continue;
		}
		/*
		 * A LEFT JOIN whose nullable side is the probe table and whose
		 * preserved side is the build side: JOIN_RIGHT as the probe sees it
		 * (every build row kept), for a caller that keeps them
		 * (preserved_build: GpuAgg's seeded groups).
		 */
		if (preserved_build && sj->jointype == JOIN_LEFT && jt == JOIN_INNER &&
			bms_equal(sj->syn_righthand, probe) && bms_equal(sj->syn_lefthand, build))
		{
			jt = JOIN_RIGHT;
			continue;
		}
		return -1;
	}
	return jt;
}

/*
 * Whether an expression holds a PlaceHolderVar: a value from the nullable side
 * of an outer join, computed by the join that makes it, not by a table's rows,
 * so neither side can be the plain input the GPU reads.
 */
bool
PgGpuContainsPlaceholder(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, PlaceHolderVar))
		return true;
	return expression_tree_walker(node, (bool (*)()) (void *) PgGpuContainsPlaceholder, context);
}

/* Side of an expression: 1 probe only, 2 build only, 0 neither or both. */
static int
side_of(PlannerInfo *root, Expr *e, Relids probe, Relids build)
{
	Relids		r = pull_varnos(root, (Node *) e);

	if (bms_is_empty(r))
		return 0;
	if (bms_is_subset(r, probe))
		return 1;
	if (bms_is_subset(r, build))
		return 2;
	return 0;
}

/* A column (under binary-compatible casts): a <> the set decides reads columns only. */
static bool
is_column(Expr *e)
{
	while (IsA(e, RelabelType))
		e = ((RelabelType *) e)->arg;
	return IsA(e, Var) && ((Var *) e)->varlevelsup == 0 && ((Var *) e)->varattno > 0;
}

/*
 * Whether ri is a <> between a column of each side of the join whose values a
 * set's least and greatest decide (PgGpuSetNeType); fills out's ne_* if so.
 */
static bool
ne_clause_of(PlannerInfo *root, RestrictInfo *ri, Relids probe_ids, Relids build_ids,
			 PgGpuSetJoin *out)
{
	OpExpr	   *op = (OpExpr *) ri->clause;

	if (!IsA(op, OpExpr) || list_length(op->args) != 2 || ri->pseudoconstant ||
		contain_volatile_functions((Node *) op) || PgGpuContainsPlaceholder((Node *) op, NULL))
		return false;

	Expr	   *l = (Expr *) linitial(op->args);
	Expr	   *r = (Expr *) lsecond(op->args);
	int			ls = side_of(root, l, probe_ids, build_ids);
	int			rs = side_of(root, r, probe_ids, build_ids);

	if (!((ls == 1 && rs == 2) || (ls == 2 && rs == 1)) || !is_column(l) || !is_column(r) ||
		PgGpuSetNeType(op->opno, exprType((Node *) l), exprType((Node *) r),
					   op->inputcollid) == 0)
		return false;
	out->ne_clause = (Expr *) op;
	out->ne_probe = ls == 1 ? l : r;
	out->ne_build = ls == 1 ? r : l;
	return true;
}

/* The relation of relids: a table, or the join of its tables (NULL if none was made). */
RelOptInfo *
PgGpuCompRel(PlannerInfo *root, Relids c)
{
	return bms_membership(c) == BMS_SINGLETON ? find_base_rel(root, bms_singleton_member(c))
		: find_join_rel(root, c);
}

/*
 * Whether ri is an equality between the two sides that a key set decides
 * exactly (PgGpuSetKeyType, the build side's argument of a value type the set
 * holds); sets out's keytype, probe_key and build_key if so.
 */
static bool
key_clause_of(PlannerInfo *root, RestrictInfo *ri, Relids probe_ids, Relids build_ids,
			  PgGpuSetJoin *out)
{
	OpExpr	   *op = (OpExpr *) ri->clause;

	if (!IsA(op, OpExpr) || list_length(op->args) != 2 ||
		contain_volatile_functions((Node *) op) || contain_subplans((Node *) op) ||
		PgGpuContainsPlaceholder((Node *) op, NULL))
		return false;

	Expr	   *l = (Expr *) linitial(op->args);
	Expr	   *r = (Expr *) lsecond(op->args);
	int			ls = side_of(root, l, probe_ids, build_ids);
	int			rs = side_of(root, r, probe_ids, build_ids);
	int			kt;
	int			bv;

	if (!((ls == 1 && rs == 2) || (ls == 2 && rs == 1)))
		return false;
	kt = PgGpuSetKeyType(op->opno, exprType((Node *) l), exprType((Node *) r), op->inputcollid);
	if (kt == 0)
		return false;

	Expr	   *bkey = ls == 1 ? r : l;

	if ((bv = PgGpuValueType(exprType((Node *) bkey))) == 0 || PgGpuSetType(bv) != PgGpuSetType(kt))
		return false;
	out->keytype = kt;
	out->probe_key = ls == 1 ? l : r;
	out->build_key = bkey;
	out->build_valtype = bv;
	out->clause = (Expr *) op;
	return true;
}

/*
 * Probe (a plain table, or with any_probe any relation) as the probe side of a
 * join with the relations build_ids, the join of both being join_ids (a join
 * rel, or a star join's fact table and one of its dimensions).  With
 * allow_ne, a semi- or anti-join may add an inner.b <> outer.x to its
 * equality.  With residual (a star join's dimension), an inner join may have
 * other clauses beside the equality its set decides: appended to *residual,
 * for the GPU to test per probe row with the dimension's payload (TPC-H Q19's
 * OR of brands, containers, sizes and quantities); of several equalities, the
 * one whose build key PostgreSQL expects most distinct is the set's.
 */
bool
PgGpuTryProbeOf(PlannerInfo *root, Relids join_ids, RelOptInfo *probe, Relids build_ids,
				bool any_probe, PgGpuSetJoin *out, bool allow_ne, bool preserved_build,
				List **residual)
{
	Relids		probe_ids = probe->relids;
	RelOptInfo *build;
	List	   *clauses;
	List	   *extra = NIL;
	ListCell   *lc;
	int			jt;

	if (!any_probe && (probe->reloptkind != RELOPT_BASEREL || probe->rtekind != RTE_RELATION))
		return false;
	if (!bms_is_empty(probe->lateral_relids) || bms_is_empty(build_ids) ||
		probe->cheapest_total_path == NULL || IS_DUMMY_REL(probe) ||
		probe->cheapest_total_path->param_info != NULL)
		return false;
	build = PgGpuCompRel(root, build_ids);
	if (build == NULL || build->cheapest_total_path == NULL || IS_DUMMY_REL(build) ||
		build->cheapest_total_path->param_info != NULL || !bms_is_empty(build->lateral_relids))
		return false;
	if ((jt = join_type_of(root, probe_ids, build_ids, preserved_build)) < 0)
		return false;

	/* the clauses joining the two sides, as build_joinrel_restrictlist finds them */
	clauses = generate_join_implied_equalities(root, join_ids, build_ids, probe);
	foreach(lc, probe->joininfo)
	{
		RestrictInfo *ri = lfirst_node(RestrictInfo, lc);

		if (bms_is_subset(ri->required_relids, join_ids))
			clauses = lappend(clauses, ri);
	}
	/* one equality; a semi- or anti-join's and a <> */
	if (list_length(clauses) == 2 && allow_ne && (jt == JOIN_SEMI || jt == JOIN_ANTI))
	{
		if (ne_clause_of(root, lsecond_node(RestrictInfo, clauses), probe_ids, build_ids, out))
			clauses = list_make1(linitial(clauses));
		else if (ne_clause_of(root, linitial_node(RestrictInfo, clauses), probe_ids, build_ids,
							  out))
			clauses = list_make1(lsecond(clauses));
	}
	/* a star dimension's inner join: the set's equality, the rest residual */
	if (list_length(clauses) > 1 && residual != NULL && jt == JOIN_INNER)
	{
		RestrictInfo *key = NULL;
		PgGpuSetJoin keyk = {};
		double		best = -1;

		foreach(lc, clauses)
		{
			RestrictInfo *ri = lfirst_node(RestrictInfo, lc);
			PgGpuSetJoin k;
			double		groups;

			memset(&k, 0, sizeof(k));
			if (ri->pseudoconstant || !key_clause_of(root, ri, probe_ids, build_ids, &k))
				continue;
			groups = estimate_num_groups(root, list_make1(k.build_key), build->rows, NULL, NULL);
			if (groups > best)
			{
				best = groups;
				key = ri;
				keyk = k;
			}
		}
		if (key == NULL)
			return false;
		foreach(lc, clauses)
		{
			RestrictInfo *ri = lfirst_node(RestrictInfo, lc);

			if (ri == key)
				continue;
			if (ri->pseudoconstant || contain_volatile_functions((Node *) ri->clause) ||
				contain_subplans((Node *) ri->clause) ||
				PgGpuContainsPlaceholder((Node *) ri->clause, NULL))
				return false;
			/*
			 * A second equality makes a key of two columns, which the build
			 * side holds once per pair, seldom once per column: only where a
			 * unique index says the set's own column is.
			 */
			if (ri->can_join &&
				(OidIsValid(ri->hashjoinoperator) || ri->mergeopfamilies != NIL))
			{
				if (build->reloptkind != RELOPT_BASEREL ||
					!relation_has_unique_index_for(root, build, NIL, list_make1(keyk.build_key),
												   list_make1_oid(((OpExpr *) keyk.clause)->opno)))
					return false;
			}
			extra = lappend(extra, ri->clause);
		}
		clauses = list_make1(key);
	}
	if (list_length(clauses) != 1 ||
		!key_clause_of(root, linitial_node(RestrictInfo, clauses), probe_ids, build_ids, out))
		return false;
	/* the <>'s b beside an integer key: the build plan's second column */
	if (out->ne_clause != NULL && PgGpuSetType(out->keytype) != PG_GPU_INT8)
		return false;

	/* the build plan, projected to its key alone */
	PathTarget *target = create_empty_pathtarget();

	add_column_to_pathtarget(target, out->build_key, 0);
	if (out->ne_clause != NULL)
		add_column_to_pathtarget(target, out->ne_build, 0);
	target = set_pathtarget_cost_width(root, target);
	out->build_path = (Path *) create_projection_path(root, build, build->cheapest_total_path,
													  target);
	out->build_resno = 1;
	out->probe = probe;
	out->build = build;
	out->jointype = (JoinType) jt;
	if (residual != NULL)
		*residual = list_concat(*residual, extra);
	return true;
}

static bool
try_probe(PlannerInfo *root, RelOptInfo *joinrel, RelOptInfo *probe, bool any_probe,
		  PgGpuSetJoin *out, bool preserved_build = false)
{
	return PgGpuTryProbeOf(root, joinrel->relids, probe,
						bms_difference(joinrel->relids, probe->relids), any_probe, out, true,
						preserved_build);
}

/*
 * Whether a GPU join may run the build plan (and the probe plan) and then,
 * should the GPU give up, PostgreSQL's join over copies of the same inputs: not
 * inside a recursive query (a WorkTable Scan has one read position, shared by
 * its copies) and not with volatile functions anywhere in the query (they would
 * run twice).
 */
bool
PgGpuInputsRerunnable(PlannerInfo *root)
{
	for (PlannerInfo *r = root; r != NULL; r = r->parent_root)
		if (r->wt_param_id >= 0 || r->hasRecursion)
			return false;
	return !contain_volatile_functions((Node *) root->parse);
}

bool
PgGpuFindSetJoin(PlannerInfo *root, RelOptInfo *joinrel, PgGpuSetJoin *out, bool preserved_build)
{
	PgGpuSetJoin best;
	bool		found = false;
	int			relid = -1;

	if (joinrel->reloptkind != RELOPT_JOINREL || !PgGpuInputsRerunnable(root))
		return false;
	/* the probe is the left side of a semi- or anti-join, else the larger table */
	while ((relid = bms_next_member(joinrel->relids, relid)) >= 0)
	{
		PgGpuSetJoin j;

		memset(&j, 0, sizeof(j));
		if (try_probe(root, joinrel, find_base_rel(root, relid), false, &j, preserved_build) &&
			(!found || j.probe->pages > best.probe->pages))
		{
			best = j;
			found = true;
		}
	}
	if (found)
		*out = best;
	return found;
}

bool
PgGpuFindSetJoinSides(PlannerInfo *root, RelOptInfo *joinrel, RelOptInfo *outerrel,
					  RelOptInfo *innerrel, PgGpuSetJoin *out)
{
	PgGpuSetJoin a,
				b;
	bool		fa,
				fb;

	if (joinrel->reloptkind != RELOPT_JOINREL || !PgGpuInputsRerunnable(root))
		return false;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	/* a semi- or anti-join's left side is the probe side (join_type_of) */
	fa = try_probe(root, joinrel, outerrel, true, &a);
	fb = try_probe(root, joinrel, innerrel, true, &b);
	/* an inner join probes with the side of more rows, the other's keys in the set */
	if (fa && (!fb || a.probe->rows >= b.probe->rows))
		*out = a;
	else if (fb)
		*out = b;
	return fa || fb;
}

/* ---- a set join's key set in a task, and its rows ---- */

/*
 * A rows task for a GpuHashJoin's kept build rows (keysets_rows.cpp): the
 * build table's passing rows grouped on the GPU by the build plan's columns
 * (the key, then those the output reads), each group then made a row and kept
 * once per row it had.  NULL where the build side is not one plain table, a
 * column is of a type whose values the groups do not give back exactly (see
 * PgGpuRowsTask), or char without a length: equal values of it may differ in
 * trailing blanks, which grouping would merge.  Sets sj->build_cost to the
 * cheaper way (PgGpuKeptRowsCost).
 */
static Const *
kept_rows_task(PlannerInfo *root, PgGpuSetJoin *sj, Oid *relid)
{
	List	   *cols = sj->build_path->pathtarget->exprs;
	ListCell   *lc;
	double		cost;
	Const	   *task;

	if (sj->build->reloptkind != RELOPT_BASEREL || sj->build_path->param_info != NULL)
		return NULL;
	foreach(lc, cols)
	{
		Node	   *e = (Node *) lfirst(lc);

		if (exprType(e) == BPCHAROID && exprTypmod(e) < 0)
			return NULL;
	}
	task = PgGpuRowsTask(root, sj->build, PgGpuOrderedQuals(root, sj->build->baserestrictinfo),
						 cols, sj->build_path->total_cost, sj->build_path->rows, &cost, relid,
						 PgGpuKeptRowsCost(1.0));
	if (task != NULL)
		sj->build_cost = cost;
	return task;
}

/* A column as EXPLAIN names it beside another table's: its table's alias, then its name. */
static const char *
column_text(PlannerInfo *root, Expr *e)
{
	while (IsA(e, RelabelType))
		e = ((RelabelType *) e)->arg;

	Var		   *v = (Var *) e;
	RangeTblEntry *rte = planner_rt_fetch(v->varno, root);

	return psprintf("%s.%s", quote_identifier(rte->eref->aliasname),
					quote_identifier(get_rte_attribute_name(rte, v->varattno)));
}

/*
 * The join's clause as the filter's last qual, answered by a key set of the
 * build side (the GpuAgg's second child, or its table's pages collected on the
 * GPU); an anti-join keeps the rows it does not match.  *unique: the source's
 * flag that the keys must be unique; *set: the set's index.  With keep_rows,
 * the build plan's rows are kept for the output (a GpuHashJoin reading the
 * build side): a rows task reads them where it can (kept_rows_task), else the
 * plan; never keys alone from pages.  NIL if the task has no room.
 */
List *
PgGpuJoinSetTest(PlannerInfo *root, PgGpuCompiler *comp, PgGpuSetJoin *sj, Oid relid,
				 Integer **unique, int *set, bool keep_rows, List *payload_vars, int child)
{
	/* rows kept, or a payload read from them: never keys alone from pages */
	bool		from_plan = keep_rows || payload_vars != NIL;
	List	   *payload = NIL;
	ListCell   *lc;
	Const	   *collect;
	Oid			build_relid = InvalidOid;
	PgGpuSetTest *st = (PgGpuSetTest *) palloc0(sizeof(PgGpuSetTest));
	const char *kind = sj->jointype == JOIN_SEMI ? "semi" :
		sj->jointype == JOIN_ANTI ? "anti" : sj->jointype == JOIN_RIGHT ? "left" : "inner";
	/* over a child plan (no relid) EXPLAIN deparses the key from the plan */
	String	   *key = OidIsValid(relid)
		? PgGpuFilterText(list_make1(sj->probe_key), relid, sj->probe->relid) : NULL;
	PgGpuSetSource source;

	/* a <> beside the equality: a semi- or anti-join's set of keys alone */
	if (sj->ne_clause != NULL && (keep_rows || payload_vars != NIL))
		return NIL;
	foreach(lc, payload_vars)
		payload = lappend_int(payload, PgGpuValueType(exprType((Node *) lfirst(lc))));
	*unique = makeInteger(0);
	memset(&source, 0, sizeof(source));
	source.kind = PG_GPU_SET_CHILD;
	source.child = child;
	source.payload = payload;
	source.resno = sj->build_resno;
	source.valtype = sj->build_valtype;
	source.unique = *unique;
	if (sj->ne_clause != NULL)
		source.aux = PgGpuValueType(exprType((Node *) sj->ne_build));
	/* for EXPLAIN, with the columns it carries or the <> */
	StringInfoData label;

	initStringInfo(&label);
	appendStringInfo(&label, key ? "%s join on %s" : "%s join", kind, key ? strVal(key) : "");
	if (sj->ne_clause != NULL)
	{
		OpExpr	   *ne = (OpExpr *) sj->ne_clause;

		appendStringInfo(&label, ", where %s <> %s",
						 column_text(root, (Expr *) linitial(ne->args)),
						 column_text(root, (Expr *) lsecond(ne->args)));
	}
	foreach(lc, payload_vars)
	{
		Node	   *e = (Node *) lfirst(lc);
		const char *name;

		if (IsA(e, Var))
			name = get_rte_attribute_name(planner_rt_fetch(((Var *) e)->varno, root),
										  ((Var *) e)->varattno);
		else
		{
			/* a dimension expression: over one table (PgGpuStarDimExprs) */
			Index		varno = (Index) bms_singleton_member(pull_varnos(root, e));

			name = strVal(PgGpuFilterText(list_make1(e), planner_rt_fetch(varno, root)->relid,
										  varno));
		}
		appendStringInfo(&label, "%s%s", foreach_current_index(lc) == 0 ? ", carrying " : ", ",
						 name);
	}
	source.label = makeString(label.data);
	/* rows kept for the output come from the plan: no keys from pages then */
	if (keep_rows)
		(*unique)->ival = 2;
	collect = PgGpuCollectTask(from_plan ? NULL : root, from_plan ? NULL : sj->build,
							   from_plan ? NIL : PgGpuOrderedQuals(root, sj->build->baserestrictinfo),
							   sj->build_key, PgGpuSetType(sj->keytype),
							   sj->build_path->total_cost, sj->build_path->rows, &sj->build_cost,
							   &build_relid, sj->ne_build);
	/* rows kept for the output: read by a rows task over the build table, when it can */
	if (keep_rows)
		collect = kept_rows_task(root, sj, &build_relid);
	/* a payload: the dimension's rows grouped on the GPU, when it can */
	if (payload_vars != NIL)
		collect = PgGpuRowsTask(root, sj->build,
								PgGpuOrderedQuals(root, sj->build->baserestrictinfo),
								lcons(sj->build_key, list_copy(payload_vars)),
								sj->build_path->total_cost, sj->build_path->rows,
								&sj->build_cost, &build_relid);
	source.task = collect;
	source.relid = build_relid;
	st->set = PgGpuAddSet(comp, PgGpuSetType(sj->keytype), PgGpuSetSourceBuild(&source));
	if (st->set < 0)
		return NIL;
	*set = st->set;
	/* the equality, or it and the <>: one test of the set (compile_set_test) */
	st->clause = sj->ne_clause == NULL ? sj->clause
		: (Expr *) makeBoolExpr(AND_EXPR, list_make2(sj->clause, sj->ne_clause), -1);
	st->probe = sj->probe_key;
	st->keytype = sj->keytype;
	st->ne_probe = sj->ne_probe;
	comp->set_tests = lappend(comp->set_tests, st);
	return list_make1(sj->jointype == JOIN_ANTI
					  ? (Expr *) makeBoolExpr(NOT_EXPR, list_make1(st->clause), -1)
					  : st->clause);
}


/*
 * The rows of the set join sj, for GpuSort, GpuHashJoin and GpuSemiJoin: *join_quals gets the
 * join's qual for the filter (PgGpuJoinSetTest); an inner join instead hands each
 * probe row out once per equal key, its weight (a row without a match weighs
 * 0), so its qual is NIL.  False if the task has no room.
 */
bool
PgGpuJoinRowsTest(PlannerInfo *root, PgGpuCompiler *comp, pg_gpu_agg_task *task, PgGpuSetJoin *sj,
			   Oid relid, List **join_quals)
{
	Integer    *unique;
	int			set;

	*join_quals = PgGpuJoinSetTest(root, comp, sj, relid, &unique, &set);
	if (*join_quals == NIL)
		return false;
	if (sj->jointype != JOIN_INNER)
		return true;
	*join_quals = NIL;
	return PgGpuCompileSetValue(comp, sj->probe_key, sj->keytype, set, false, &task->weight);
}


/*
 * The Vars exprs, a set join's output, read: the probe table's in *probe_vars,
 * the build side's in *build_vars, each once.  False for a placeholder, an
 * outer query's Var or another table's.
 */
bool
PgGpuJoinOutput(List *exprs, PgGpuSetJoin *sj, List **probe_vars, List **build_vars)
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
/*
 * The cheaper of the build side's cheapest plan and a Gather over its cheapest
 * partial plan, by PostgreSQL's costs: the rows a GPU join keeps are read
 * whole, so a dimension of a million rows is scanned by parallel workers.
 */
static Path *
build_source_path(PlannerInfo *root, RelOptInfo *build)
{
	Path	   *best = build->cheapest_total_path;

	if (build->consider_parallel && build->partial_pathlist != NIL && !root->glob->parallelModeNeeded)
	{
		Path	   *partial = (Path *) linitial(build->partial_pathlist);
		double		rows = partial->rows * partial->parallel_workers;
		Path	   *gather = (Path *) create_gather_path(root, build, partial, build->reltarget,
														NULL, &rows);

		if (gather->total_cost < best->total_cost)
			best = gather;
	}
	return best;
}

void
PgGpuKeepBuildRows(PlannerInfo *root, PgGpuSetJoin *sj, List *build_vars)
{
	PathTarget *target = create_empty_pathtarget();
	ListCell   *lc;

	add_column_to_pathtarget(target, sj->build_key, 0);
	foreach(lc, build_vars)
		add_column_to_pathtarget(target, (Expr *) lfirst(lc), 0);
	sj->build_path = (Path *) create_projection_path(root, sj->build,
													 build_source_path(root, sj->build),
													 set_pathtarget_cost_width(root, target));
}

/* Whether exprs read the probe table alone: then its tuples are the join's rows. */
bool
PgGpuProbeOutput(List *exprs, PgGpuSetJoin *sj)
{
	List	   *probe_vars,
			   *build_vars;

	return PgGpuJoinOutput(exprs, sj, &probe_vars, &build_vars) && build_vars == NIL;
}

