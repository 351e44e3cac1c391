/*
 * decorrelate.cpp — a correlated scalar aggregate in WHERE as a join with the
 * aggregate grouped by its correlation keys (issue 31: TPC-H Q17, Q2; see
 * docs/SEMANTICS.md 33).
 *
 *   WHERE x op (SELECT f(agg(y)) FROM t WHERE t.k = outer.k AND rest)
 *
 * PostgreSQL runs the subquery once per outer row (a SubPlan).  The same rows
 * come from
 *
 *   FROM ..., (SELECT t.k, f(agg(y)) FROM t WHERE rest
 *                [AND t.k IN (SELECT outer.k FROM outer WHERE outer's own quals)]
 *              GROUP BY t.k) d
 *   WHERE outer.k = d.k AND x op d.v
 *
 * whose aggregation the GPU runs once over the table's keys the outer table
 * lets through (GpuAgg probing that table's key set).  It holds when
 * the subquery's value is NULL over no rows (min, max, sum, avg, and strict
 * expressions of them) and op is strict, so that an outer row whose key has no
 * group (no d row) is dropped as the NULL comparison drops it; when each
 * correlation is t's expression = an outer column under the type's default
 * equality (the one GROUP BY uses), so that a NULL key matches nothing either
 * way; and when nothing else in the subquery reads an outer level.  The IN
 * ("magic set") keeps the groups to the keys the outer table's own quals let
 * through; it needs one correlation key, of one plain outer table with quals
 * of its own, and without it nothing is rewritten (rewrite_comparison).
 *
 * The planner hook plans the statement both ways and keeps the rewritten plan
 * only when it holds a GPU node and costs less (under pg_gpu.force, whenever it
 * holds a GPU node).
 */
extern "C" {
#include "postgres.h"

#include "catalog/pg_aggregate.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/plannodes.h"
#include "optimizer/clauses.h"
#include "optimizer/optimizer.h"
#include "parser/parsetree.h"
#include "optimizer/planner.h"
#include "rewrite/rewriteManip.h"
#include "utils/lsyscache.h"
#include "utils/typcache.h"

#include "pg_gpu.h"
#include "planner/planner.h"
}

#include "guard.h"

bool		pg_gpu_decorrelate = true;

static planner_hook_type prev_planner_hook = NULL;

/* Whether a node reads a level above the one it is in (depth: queries entered). */
static bool
refs_up(Node *node, int *depth)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var))
		return (int) ((Var *) node)->varlevelsup > *depth;
	if (IsA(node, PlaceHolderVar))
		return (int) ((PlaceHolderVar *) node)->phlevelsup > *depth;
	if (IsA(node, Aggref) && (int) ((Aggref *) node)->agglevelsup > *depth)
		return true;
	if (IsA(node, GroupingFunc) && (int) ((GroupingFunc *) node)->agglevelsup > *depth)
		return true;
	if (IsA(node, Query))
	{
		bool		r;

		(*depth)++;
		r = query_tree_walker((Query *) node, (bool (*)()) (void *) refs_up, depth, 0);
		(*depth)--;
		return r;
	}
	return expression_tree_walker(node, (bool (*)()) (void *) refs_up, depth);
}

/* Whether the query reads any level above its own. */
static bool
query_refs_up(Query *q)
{
	int			depth = 0;

	return query_tree_walker(q, (bool (*)()) (void *) refs_up, &depth, 0);
}

/* min, max, sum or avg of pg_catalog: NULL over no rows. */
static bool
null_when_empty(Aggref *a)
{
	char	   *name = get_func_name(a->aggfnoid);

	if (name == NULL || get_func_namespace(a->aggfnoid) != PG_CATALOG_NAMESPACE ||
		a->agglevelsup != 0 || a->aggfilter != NULL)
		return false;
	return strcmp(name, "min") == 0 || strcmp(name, "max") == 0 ||
		strcmp(name, "sum") == 0 || strcmp(name, "avg") == 0;
}

/* Whether every aggregate of the expression is NULL over no rows. */
static bool
aggs_null_when_empty(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Aggref))
		return !null_when_empty((Aggref *) node);	/* true: stop, not one */
	return expression_tree_walker(node, (bool (*)()) (void *) aggs_null_when_empty, context);
}

/* Whether the expression is NULL when its aggregates are (strict over them). */
static bool
null_with_aggs(Node *n)
{
	ListCell   *lc;
	List	   *args;

	if (IsA(n, Aggref))
		return true;
	if (IsA(n, RelabelType))
		return null_with_aggs((Node *) ((RelabelType *) n)->arg);
	if (IsA(n, OpExpr))
	{
		if (!op_strict(((OpExpr *) n)->opno))
			return false;
		args = ((OpExpr *) n)->args;
	}
	else if (IsA(n, FuncExpr))
	{
		if (!func_strict(((FuncExpr *) n)->funcid))
			return false;
		args = ((FuncExpr *) n)->args;
	}
	else
		return false;
	foreach(lc, args)
		if (null_with_aggs((Node *) lfirst(lc)))
			return true;
	return false;
}

/* An outer column (varlevelsup 1) under binary-compatible casts, or NULL. */
static Var *
outer_column(Node *n)
{
	while (IsA(n, RelabelType))
		n = (Node *) ((RelabelType *) n)->arg;
	if (IsA(n, Var) && ((Var *) n)->varlevelsup == 1 && ((Var *) n)->varattno > 0)
		return (Var *) n;
	return NULL;
}

typedef struct Correlation
{
	Expr	   *inner;			/* the subquery's side */
	Var		   *outer;			/* the outer column, at the outer level */
	Oid			eqop;
	Oid			sortop;
	bool		hashable;
} Correlation;

/*
 * A conjunct of the subquery's WHERE as inner = outer column, under the
 * inner type's default equality; false if it is not one.
 */
static bool
correlation_of(Node *clause, Correlation *c)
{
	OpExpr	   *op = (OpExpr *) clause;
	Node	   *l,
			   *r;
	Var		   *v;
	Node	   *in;
	Oid			t;

	if (!IsA(op, OpExpr) || list_length(op->args) != 2)
		return false;
	l = (Node *) linitial(op->args);
	r = (Node *) lsecond(op->args);
	if ((v = outer_column(r)) != NULL && !contain_vars_of_level(l, 1))
		in = l;
	else if ((v = outer_column(l)) != NULL && !contain_vars_of_level(r, 1))
		in = r;
	else
		return false;
	/* the inner side reads the subquery's own rows, nothing of other levels */
	if (!contain_vars_of_level(in, 0) || contain_volatile_functions(in))
		return false;
	{
		int			depth = 0;

		if (refs_up(in, &depth))
			return false;
	}
	t = exprType(in);
	if (t != v->vartype || op->inputcollid != exprCollation(in))
		return false;
	/* the type's default equality (GROUP BY's), as get_sort_group_operators finds it */
	TypeCacheEntry *tc = lookup_type_cache(t, TYPECACHE_EQ_OPR | TYPECACHE_LT_OPR |
										   TYPECACHE_HASH_PROC);

	c->eqop = tc->eq_opr;
	c->sortop = tc->lt_opr;
	c->hashable = OidIsValid(tc->hash_proc);
	if (!OidIsValid(c->eqop) || c->eqop != op->opno)
		return false;
	c->inner = (Expr *) in;
	c->outer = (Var *) copyObject(v);
	c->outer->varlevelsup = 0;
	return true;
}

/*
 * The magic set: inner IN (SELECT outer.col FROM outer WHERE outer's own
 * quals), when the outer column's table is a plain table of the outer query's
 * FROM list with quals of its own; NULL otherwise.
 */
static Node *
magic_set(Query *q, List *conjuncts, Node *skip, Correlation *c)
{
	Index		rti = (Index) c->outer->varno;
	RangeTblEntry *rte;
	List	   *own = NIL;
	ListCell   *lc;
	bool		direct = false;

	if (rti < 1 || rti > (Index) list_length(q->rtable))
		return NULL;
	rte = rt_fetch(rti, q->rtable);
	/*
	 * Not with row-level security (its quals, numbered for the outer query,
	 * would be copied with the table) nor a sample (the copy would draw
	 * another one and lose keys the outer scan keeps).
	 */
	if (rte->rtekind != RTE_RELATION || rte->securityQuals != NIL || rte->tablesample != NULL)
		return NULL;
	foreach(lc, q->jointree->fromlist)
		if (IsA(lfirst(lc), RangeTblRef) && ((RangeTblRef *) lfirst(lc))->rtindex == (int) rti)
			direct = true;
	if (!direct)
		return NULL;
	foreach(lc, conjuncts)
	{
		Node	   *cl = (Node *) lfirst(lc);
		Relids		rels;
		int			depth = 0;

		if (cl == skip || contain_subplans(cl) || checkExprHasSubLink(cl) ||
			contain_volatile_functions(cl) || refs_up(cl, &depth))
			continue;
		rels = pull_varnos(NULL, cl);
		if (bms_membership(rels) == BMS_SINGLETON && bms_singleton_member(rels) == (int) rti)
			own = lappend(own, copyObject(cl));
	}
	if (own == NIL)
		return NULL;

	Query	   *m = makeNode(Query);
	Node	   *quals = (Node *) make_ands_explicit(own);
	RangeTblRef *ref = makeNode(RangeTblRef);
	Var		   *col = (Var *) copyObject(c->outer);

	ChangeVarNodes(quals, (int) rti, 1, 0);
	col->varno = 1;
	col->varnosyn = 1;
	ref->rtindex = 1;
	m->commandType = CMD_SELECT;
	m->querySource = QSRC_ORIGINAL;
	m->canSetTag = true;
	m->rtable = list_make1(copyObject(rte));
	m->jointree = makeFromExpr(list_make1(ref), quals);
	m->targetList = list_make1(makeTargetEntry((Expr *) col, 1, pstrdup("k"), false));

	SubLink    *sl = makeNode(SubLink);
	Param	   *p = makeNode(Param);

	p->paramkind = PARAM_SUBLINK;
	p->paramid = 1;
	p->paramtype = c->outer->vartype;
	p->paramtypmod = c->outer->vartypmod;
	p->paramcollid = c->outer->varcollid;
	p->location = -1;
	sl->subLinkType = ANY_SUBLINK;
	sl->subLinkId = 0;
	sl->testexpr = (Node *) make_opclause(c->eqop, BOOLOID, false, (Expr *) copyObject(c->inner),
										  (Expr *) p, InvalidOid, exprCollation((Node *) c->inner));
	((OpExpr *) sl->testexpr)->opfuncid = get_opcode(c->eqop);
	sl->operName = list_make1(makeString(pstrdup("=")));
	sl->subselect = (Node *) m;
	sl->location = -1;
	return (Node *) sl;
}

/*
 * The comparison `op` (a conjunct of q's WHERE) with a scalar subquery as one
 * argument, as a join with the subquery grouped by its correlation keys: the
 * derived table appended to q's FROM list, the equalities and the comparison
 * (its argument now the derived column) in *conjuncts.  False, q untouched,
 * when the subquery is not of the form the header describes.
 */
static bool
rewrite_comparison(Query *q, List **conjuncts, int at)
{
	OpExpr	   *op = (OpExpr *) list_nth(*conjuncts, at);
	SubLink    *sl;
	int			arg;
	Query	   *sub;
	TargetEntry *te = NULL;
	List	   *rest = NIL;
	List	   *corr = NIL;
	ListCell   *lc;

	if (!IsA(op, OpExpr) || list_length(op->args) != 2 || !op_strict(op->opno))
		return false;
	if (IsA(linitial(op->args), SubLink))
		arg = 0;
	else if (IsA(lsecond(op->args), SubLink))
		arg = 1;
	else
		return false;
	sl = (SubLink *) list_nth(op->args, arg);
	if (sl->subLinkType != EXPR_SUBLINK || checkExprHasSubLink((Node *) list_nth(op->args, 1 - arg)))
		return false;
	sub = (Query *) sl->subselect;
	if (sub->commandType != CMD_SELECT || !sub->hasAggs || sub->groupClause != NIL ||
		sub->groupingSets != NIL || sub->havingQual != NULL || sub->hasWindowFuncs ||
		sub->hasTargetSRFs || sub->distinctClause != NIL || sub->sortClause != NIL ||
		sub->limitCount != NULL || sub->limitOffset != NULL || sub->setOperations != NULL ||
		sub->cteList != NIL || sub->hasRecursive || sub->hasModifyingCTE ||
		sub->hasForUpdate || sub->rowMarks != NIL || sub->jointree == NULL ||
		contain_volatile_functions((Node *) sub))
		return false;
	foreach(lc, sub->targetList)
	{
		TargetEntry *t = lfirst_node(TargetEntry, lc);

		if (t->resjunk)
			continue;
		if (te != NULL)
			return false;
		te = t;
	}
	if (te == NULL || !null_with_aggs((Node *) te->expr) ||
		aggs_null_when_empty((Node *) te->expr, NULL))
		return false;

	/* the correlations, and what else the subquery's WHERE asks */
	foreach(lc, make_ands_implicit((Expr *) sub->jointree->quals))
	{
		Node	   *cl = (Node *) lfirst(lc);
		Correlation c;

		if (!contain_vars_of_level(cl, 1))
			rest = lappend(rest, cl);
		else if (correlation_of(cl, &c))
		{
			Correlation *cp = (Correlation *) palloc(sizeof(Correlation));

			*cp = c;
			corr = lappend(corr, cp);
		}
		else
			return false;
	}
	if (corr == NIL || list_length(corr) > 4)
		return false;

	/* the derived query: the subquery grouped by its correlation keys */
	Query	   *d = (Query *) copyObject(sub);
	List	   *tlist = NIL;
	List	   *group = NIL;
	List	   *colnames = NIL;
	int			resno = 0;

	d->jointree->quals = rest != NIL ? (Node *) make_ands_explicit(rest) : NULL;
	/* nothing else may read the outer levels */
	if (query_refs_up(d))
		return false;
	foreach(lc, corr)
	{
		Correlation *c = (Correlation *) lfirst(lc);
		SortGroupClause *sgc = makeNode(SortGroupClause);
		char	   *name = psprintf("k%d", resno + 1);
		TargetEntry *k = makeTargetEntry((Expr *) copyObject(c->inner), ++resno, name, false);

		k->ressortgroupref = (Index) resno;
		sgc->tleSortGroupRef = (Index) resno;
		sgc->eqop = c->eqop;
		sgc->sortop = c->sortop;
		sgc->nulls_first = false;
		sgc->hashable = c->hashable;
		tlist = lappend(tlist, k);
		group = lappend(group, sgc);
		colnames = lappend(colnames, makeString(name));
	}
	tlist = lappend(tlist, makeTargetEntry((Expr *) copyObject(te->expr), ++resno, pstrdup("v"),
										   false));
	colnames = lappend(colnames, makeString(pstrdup("v")));
	d->targetList = tlist;
	d->groupClause = group;

	/*
	 * One key of one outer table with quals of its own: only the keys they
	 * pass.  Without it, no rewrite: the derived table then groups every key
	 * of t, and PostgreSQL's estimate of its join is blind to how few outer
	 * rows meet it.  TPC-H Q20 (two keys, the outer table filtered by an IN)
	 * at SF 10 on the H200: the derived table's 5.4 M groups took 373 ms on
	 * the GPU, but the planner, expecting few rows, put a nested-loop semi
	 * join with a Materialize above them: 19.5 s against PostgreSQL's 4.6 s.
	 */
	Node	   *magic = list_length(corr) == 1
		? magic_set(q, *conjuncts, (Node *) op, (Correlation *) linitial(corr)) : NULL;

	if (magic == NULL)
		return false;
	d->jointree->quals = (Node *) make_ands_explicit(lappend(list_copy(rest), magic));
	d->hasSubLinks = true;

	/* d in q's FROM list */
	RangeTblEntry *rte = makeNode(RangeTblEntry);
	RangeTblRef *ref = makeNode(RangeTblRef);
	Index		di;

	rte->rtekind = RTE_SUBQUERY;
	rte->subquery = d;
	rte->alias = makeAlias("pg_gpu_decorrelated", NIL);
	rte->eref = makeAlias("pg_gpu_decorrelated", colnames);
	rte->lateral = false;
	rte->inh = false;
	rte->inFromCl = true;
	q->rtable = lappend(q->rtable, rte);
	di = (Index) list_length(q->rtable);
	ref->rtindex = (int) di;
	q->jointree->fromlist = lappend(q->jointree->fromlist, ref);

	/* the comparison with d's value, and each correlation as a join equality */
	OpExpr	   *cmp = (OpExpr *) copyObject(op);

	list_nth_cell(cmp->args, arg)->ptr_value =
		makeVar(di, (AttrNumber) resno, exprType((Node *) te->expr),
				exprTypmod((Node *) te->expr), exprCollation((Node *) te->expr), 0);
	list_nth_cell(*conjuncts, at)->ptr_value = cmp;
	resno = 0;
	foreach(lc, corr)
	{
		Correlation *c = (Correlation *) lfirst(lc);
		Var		   *dk = makeVar(di, (AttrNumber) ++resno, exprType((Node *) c->inner),
								 exprTypmod((Node *) c->inner), exprCollation((Node *) c->inner), 0);
		OpExpr	   *eq = (OpExpr *) make_opclause(c->eqop, BOOLOID, false, (Expr *) c->outer,
												  (Expr *) dk, InvalidOid,
												  exprCollation((Node *) c->inner));

		eq->opfuncid = get_opcode(c->eqop);
		*conjuncts = lappend(*conjuncts, eq);
	}
	return true;
}

static bool decorrelate_query(Query *q);

/* Every query below an expression (sublinks' subqueries). */
static bool
decorrelate_sublinks(Node *node, bool *any)
{
	if (node == NULL)
		return false;
	if (IsA(node, SubLink))
	{
		if (decorrelate_query((Query *) ((SubLink *) node)->subselect))
			*any = true;
		return decorrelate_sublinks(((SubLink *) node)->testexpr, any);
	}
	return expression_tree_walker(node, (bool (*)()) (void *) decorrelate_sublinks, any);
}

/* Each such comparison of q's WHERE, and of the queries below it; whether any. */
static bool
decorrelate_query(Query *q)
{
	bool		any = false;
	ListCell   *lc;

	if (q->commandType != CMD_SELECT || q->jointree == NULL)
		return false;
	/* the queries below first: a rewrite here adds a subquery already done */
	foreach(lc, q->rtable)
	{
		RangeTblEntry *rte = lfirst_node(RangeTblEntry, lc);

		if (rte->rtekind == RTE_SUBQUERY && decorrelate_query(rte->subquery))
			any = true;
	}
	(void) decorrelate_sublinks(q->jointree->quals, &any);
	if (q->setOperations != NULL || q->rowMarks != NIL || q->hasForUpdate ||
		q->jointree->quals == NULL)
		return any;

	List	   *conjuncts = make_ands_implicit((Expr *) q->jointree->quals);
	bool		here = false;

	/* by index: a rewrite appends its equalities to the list */
	for (int i = 0; i < list_length(conjuncts); i++)
		if (rewrite_comparison(q, &conjuncts, i))
			here = true;
	if (here)
	{
		q->jointree->quals = (Node *) make_ands_explicit(conjuncts);
		any = true;
	}
	return any;
}

/* Whether a plan (or one of its subplans) holds a CustomScan. */
static bool
plan_has_custom(Plan *p)
{
	ListCell   *lc;

	if (p == NULL)
		return false;
	if (IsA(p, CustomScan))
		return true;
	if (plan_has_custom(p->lefttree) || plan_has_custom(p->righttree))
		return true;
	switch (nodeTag(p))
	{
		case T_Append:
			foreach(lc, ((Append *) p)->appendplans)
				if (plan_has_custom((Plan *) lfirst(lc)))
				return true;
			break;
		case T_MergeAppend:
			foreach(lc, ((MergeAppend *) p)->mergeplans)
				if (plan_has_custom((Plan *) lfirst(lc)))
				return true;
			break;
		case T_SubqueryScan:
			return plan_has_custom(((SubqueryScan *) p)->subplan);
		default:
			break;
	}
	return false;
}

static bool
stmt_has_custom(PlannedStmt *s)
{
	ListCell   *lc;

	if (plan_has_custom(s->planTree))
		return true;
	foreach(lc, s->subplans)
		if (plan_has_custom((Plan *) lfirst(lc)))
			return true;
	return false;
}

static PlannedStmt *
plan_with(Query *parse, const char *query_string, int cursorOptions, ParamListInfo boundParams)
{
	if (prev_planner_hook)
		return prev_planner_hook(parse, query_string, cursorOptions, boundParams);
	return standard_planner(parse, query_string, cursorOptions, boundParams);
}

static PlannedStmt *
GpuPlanner(Query *parse, const char *query_string, int cursorOptions, ParamListInfo boundParams)
{
	Query	   *alt = NULL;
	bool		rewritten = false;

	if (pg_gpu_enabled && pg_gpu_decorrelate && parse->hasSubLinks &&
		parse->commandType == CMD_SELECT && PgGpuExtensionPresent() &&
		(pg_gpu_force || PgGpuDeviceLikely()))
	{
		alt = (Query *) copyObject(parse);
		PG_GPU_GUARD(rewritten = decorrelate_query(alt));
	}
	if (!rewritten)
		return plan_with(parse, query_string, cursorOptions, boundParams);

	/* the rewritten query first: should its planning fail, nothing else was spent */
	PlannedStmt *dec = plan_with(alt, query_string, cursorOptions, boundParams);
	PlannedStmt *orig = plan_with(parse, query_string, cursorOptions, boundParams);

	if (stmt_has_custom(dec) &&
		(pg_gpu_force || dec->planTree->total_cost < orig->planTree->total_cost))
		return dec;
	return orig;
}

void
PgGpuDecorrelateInit(void)
{
	prev_planner_hook = planner_hook;
	planner_hook = GpuPlanner;
}
