/*
 * starjoin.cpp — recognising a star join (issue 20): a fact table joined to
 * dimensions, each a set join of the fact table with it (setjoin.cpp), and
 * the dimension expressions a task reads as payload.
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

/* ---- star joins ---- */

/*
 * Whether every join clause among the relations join_ids lies inside one
 * dimension (a component of comps) or joins one dimension to the fact table:
 * the clauses in the tables' joininfo, and the equivalence classes (whose
 * members must each read one table, or one dimension's).
 */
static bool
star_clauses_fit(PlannerInfo *root, Relids join_ids, Relids fact_ids, List *comps,
				 bool residual_ok = false)
{
	int			relid = -1;
	ListCell   *lc;

	while ((relid = bms_next_member(join_ids, relid)) >= 0)
	{
		RelOptInfo *rel = find_base_rel(root, relid);

		foreach(lc, rel->joininfo)
		{
			RestrictInfo *ri = lfirst_node(RestrictInfo, lc);
			Relids		other = bms_difference(ri->required_relids, fact_ids);
			bool		inside = false;
			ListCell   *lc2;

			if (!bms_is_subset(ri->required_relids, join_ids) || bms_is_empty(other))
				continue;
			/* between dimensions only: the residual (try_star_residual) */
			if (residual_ok && !bms_overlap(ri->required_relids, fact_ids))
				continue;
			foreach(lc2, comps)
				inside |= bms_is_subset(other, (Relids) lfirst(lc2));
			if (!inside)
				return false;
		}
	}
	foreach(lc, root->eq_classes)
	{
		EquivalenceClass *ec = (EquivalenceClass *) lfirst(lc);
		ListCell   *lc2;

		if (!bms_overlap(ec->ec_relids, join_ids))
			continue;
		if (ec->ec_has_volatile)
			return false;
		foreach(lc2, ec->ec_members)
		{
			EquivalenceMember *em = (EquivalenceMember *) lfirst(lc2);
			Relids		r = bms_intersect(em->em_relids, join_ids);
			bool		inside = false;
			ListCell   *lc3;

			if (em->em_is_const || em->em_is_child || bms_membership(r) != BMS_MULTIPLE)
				continue;
			foreach(lc3, comps)
				inside |= bms_is_subset(r, (Relids) lfirst(lc3));
			if (!inside)
				return false;
		}
	}
	return true;
}

/*
 * Whether a join clause links the table r with the relations c: one of r's
 * joininfo clauses over both (with equi, only an equality a hash or merge join
 * could use), or an equality their equivalence classes imply (not one with a
 * constant: c.x = 'A' AND r.y = 'A' joins nothing).
 */
static bool
dims_linked(PlannerInfo *root, RelOptInfo *r, Relids c, bool equi = false)
{
	Relids		both = bms_union(r->relids, c);
	ListCell   *lc;

	foreach(lc, r->joininfo)
	{
		RestrictInfo *ri = lfirst_node(RestrictInfo, lc);

		if (bms_overlap(ri->required_relids, c) && bms_is_subset(ri->required_relids, both) &&
			(!equi || (ri->can_join &&
					   (ri->mergeopfamilies != NIL || OidIsValid(ri->hashjoinoperator)))))
			return true;
	}
	return generate_join_implied_equalities(root, both, c, r) != NIL;
}

/*
 * The star join of fact with the dimensions comps (Relids each): each a set
 * join of the fact table with it, on one equality.
 */
static bool
star_dims(PlannerInfo *root, RelOptInfo *fact, List *comps, PgGpuStarJoin *out)
{
	ListCell   *lc;
	List	   *residual = NIL;
	int			i = 0;

	memset(out, 0, sizeof(*out));
	foreach(lc, comps)
	{
		Relids		c = (Relids) lfirst(lc);

		PgGpuSetJoin *d = &out->dims[i];

		if (!PgGpuTryProbeOf(root, bms_union(fact->relids, c), fact, c, false, d, false, false,
						  &residual))
			return false;

		/*
		 * An inner join repeats a fact row once per equal key, which a key set
		 * cannot: the executor gives such a join back to PostgreSQL after
		 * running the dimension's plan.  A dimension whose keys PostgreSQL
		 * expects to repeat (a fact table taken for a dimension, say) makes
		 * no star at all.
		 */
		if (d->jointype == JOIN_INNER && d->build->rows >= 2 &&
			estimate_num_groups(root, list_make1(d->build_key), d->build->rows, NULL, NULL) * 2 <
			d->build->rows)
			return false;
		i++;
	}
	out->fact = fact;
	out->ndims = i;
	out->residual = residual;
	return true;
}

/* joinrel as fact's star join: its other relations in connected dimensions. */
static bool
try_star(PlannerInfo *root, RelOptInfo *joinrel, RelOptInfo *fact, PgGpuStarJoin *out)
{
	Relids		rest = bms_difference(joinrel->relids, fact->relids);
	List	   *comps = NIL;
	ListCell   *lc;
	int			relid = -1;

	if (fact->reloptkind != RELOPT_BASEREL || fact->rtekind != RTE_RELATION)
		return false;
	/* the dimensions: the other tables, linked by their own join clauses */
	while ((relid = bms_next_member(rest, relid)) >= 0)
	{
		RelOptInfo *r = find_base_rel(root, relid);
		Relids		mine = bms_make_singleton(relid);
		List	   *keep = NIL;

		foreach(lc, comps)
		{
			Relids		c = (Relids) lfirst(lc);

			if (dims_linked(root, r, c))
				mine = bms_union(mine, c);
			else
				keep = lappend(keep, c);
		}
		comps = lappend(keep, mine);
	}
	if (list_length(comps) > PG_GPU_STAR_MAX_DIMS ||
		!star_clauses_fit(root, joinrel->relids, fact->relids, comps))
		return false;
	return star_dims(root, fact, comps, out);
}

String *
PgGpuJoinFilterText(PlannerInfo *root, List *clauses)
{
	PlannedStmt *stmt = makeNode(PlannedStmt);
	Bitmapset  *all = NULL;
	List	   *ctx;

	/* the names EXPLAIN gives the query's tables (aliases made unique) */
	stmt->rtable = root->parse->rtable;
	if (list_length(stmt->rtable) > 0)
		all = bms_add_range(NULL, 1, list_length(stmt->rtable));
	ctx = deparse_context_for_plan_tree(stmt, select_rtable_names_for_explain(stmt->rtable, all));
	return makeString(deparse_expression((Node *) make_ands_explicit(list_copy(clauses)), ctx,
										 true, false));
}

/*
 * joinrel as fact's star join whose dimensions are also joined to each other,
 * where try_star found one dimension joined to the fact table on two keys (Q5:
 * orders and supplier, through c_nationkey = s_nationkey).  Only inner joins.
 * Each table joined to the fact table starts a dimension; every other table
 * joins the first dimension it has an equi-join with, until all have one.  The
 * clauses between dimensions are the residual: the GPU tests them per fact
 * row, reading each dimension's columns as payload (gpuagg_plan.cpp).
 */
static bool
try_star_residual(PlannerInfo *root, RelOptInfo *joinrel, RelOptInfo *fact, PgGpuStarJoin *out)
{
	Relids		rest = bms_difference(joinrel->relids, fact->relids);
	Relids		left = NULL;
	List	   *comps = NIL;
	List	   *residual = NIL;
	ListCell   *lc;
	int			relid = -1;
	bool		changed = true;

	if (fact->reloptkind != RELOPT_BASEREL || fact->rtekind != RTE_RELATION)
		return false;
	foreach(lc, root->join_info_list)
		if (bms_overlap(lfirst_node(SpecialJoinInfo, lc)->syn_righthand, joinrel->relids) ||
			bms_overlap(lfirst_node(SpecialJoinInfo, lc)->syn_lefthand, joinrel->relids))
			return false;
	while ((relid = bms_next_member(rest, relid)) >= 0)
	{
		if (dims_linked(root, find_base_rel(root, relid), fact->relids))
			comps = lappend(comps, bms_make_singleton(relid));
		else
			left = bms_add_member(left, relid);
	}
	if (list_length(comps) < 2 || list_length(comps) > PG_GPU_STAR_MAX_DIMS)
		return false;
	while (changed && !bms_is_empty(left))
	{
		changed = false;
		relid = -1;
		while ((relid = bms_next_member(left, relid)) >= 0)
		{
			RelOptInfo *r = find_base_rel(root, relid);

			foreach(lc, comps)
				if (dims_linked(root, r, (Relids) lfirst(lc), true))
				{
					lfirst(lc) = bms_add_member((Relids) lfirst(lc), relid);
					left = bms_del_member(left, relid);
					changed = true;
					break;
				}
		}
	}
	if (!bms_is_empty(left))
		return false;

	/* the clauses between dimensions; none between the fact table and two */
	relid = -1;
	while ((relid = bms_next_member(rest, relid)) >= 0)
	{
		foreach(lc, find_base_rel(root, relid)->joininfo)
		{
			RestrictInfo *ri = lfirst_node(RestrictInfo, lc);
			int			in = 0;
			ListCell   *lc2;

			if (!bms_is_subset(ri->required_relids, joinrel->relids))
				continue;
			foreach(lc2, comps)
				in += bms_overlap(ri->required_relids, (Relids) lfirst(lc2)) ? 1 : 0;
			if (in < 2)
				continue;
			if (bms_overlap(ri->required_relids, fact->relids))
				return false;
			residual = list_append_unique_ptr(residual, ri);
		}
	}
	for (int i = 0; i < list_length(comps); i++)
		for (int j = i + 1; j < list_length(comps); j++)
		{
			Relids		ci = (Relids) list_nth(comps, i);
			Relids		cj = (Relids) list_nth(comps, j);
			RelOptInfo *rj = PgGpuCompRel(root, cj);

			if (rj == NULL)
				return false;
			foreach(lc, generate_join_implied_equalities(root, bms_union(ci, cj), ci, rj))
				residual = list_append_unique_ptr(residual, lfirst(lc));
		}
	if (residual == NIL || !star_clauses_fit(root, joinrel->relids, fact->relids, comps, true))
		return false;
	if (!star_dims(root, fact, comps, out))
		return false;
	foreach(lc, residual)
	{
		RestrictInfo *ri = lfirst_node(RestrictInfo, lc);

		if (contain_volatile_functions((Node *) ri->clause) ||
			contain_subplans((Node *) ri->clause) || PgGpuContainsPlaceholder((Node *) ri->clause, NULL))
			return false;
		out->residual = lappend(out->residual, ri->clause);
	}
	return true;
}

bool
PgGpuFindStarJoin(PlannerInfo *root, RelOptInfo *joinrel, PgGpuStarJoin *out)
{
	bool		found = false;
	int			relid = -1;

	if (joinrel->reloptkind != RELOPT_JOINREL || !PgGpuInputsRerunnable(root))
		return false;
	/* the fact table: the one of most pages that can be */
	while ((relid = bms_next_member(joinrel->relids, relid)) >= 0)
	{
		PgGpuStarJoin s;

		RelOptInfo *fact = find_base_rel(root, relid);

		if ((try_star(root, joinrel, fact, &s) || try_star_residual(root, joinrel, fact, &s)) &&
			(!found || s.fact->pages > out->fact->pages))
		{
			*out = s;
			found = true;
		}
	}
	return found;
}

/* ---- a star join's dimension expressions ---- */

/*
 * Whether evaluating node may raise an error for some row: anything but
 * columns, constants, the control constructs, and operators and functions
 * that are leakproof (which raise nothing that depends on their arguments) or
 * LIKE with a pattern that raises nothing (PgGpuLikeCannotRaise).  An
 * aggregate is a value here (HAVING: every group's aggregates are computed
 * whatever HAVING says); its arguments are not looked into.
 */
static bool
may_raise(Node *node, void *context)
{
	Oid			fn = InvalidOid;
	List	   *args = NIL;
	Oid			collid = InvalidOid;

	if (node == NULL)
		return false;
	switch (nodeTag(node))
	{
		case T_Var:
		case T_Const:
		case T_CaseTestExpr:
		case T_Aggref:
			return false;
		case T_List:
		case T_RelabelType:
		case T_BoolExpr:
		case T_NullTest:
		case T_BooleanTest:
		case T_CaseExpr:
		case T_CaseWhen:
		case T_CoalesceExpr:
			break;
		case T_OpExpr:
		case T_DistinctExpr:
		case T_NullIfExpr:
			set_opfuncid((OpExpr *) node);
			fn = ((OpExpr *) node)->opfuncid;
			args = ((OpExpr *) node)->args;
			collid = ((OpExpr *) node)->inputcollid;
			break;
		case T_ScalarArrayOpExpr:
			set_sa_opfuncid((ScalarArrayOpExpr *) node);
			fn = ((ScalarArrayOpExpr *) node)->opfuncid;
			break;
		case T_FuncExpr:
			fn = ((FuncExpr *) node)->funcid;
			args = ((FuncExpr *) node)->args;
			collid = ((FuncExpr *) node)->inputcollid;
			break;
		default:
			return true;
	}
	if (OidIsValid(fn) && !get_func_leakproof(fn))
	{
		bool		negated;

		if (!PgGpuLikeFunction(fn, &negated) || !PgGpuLikeCannotRaise(args, collid))
			return true;
	}
	return expression_tree_walker(node, (bool (*)()) (void *) may_raise, context);
}

bool
PgGpuMayRaise(Node *node)
{
	return may_raise(node, NULL);
}

/* Whether an expression reads a text column. */
static bool
reads_text(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var))
	{
		int			t = PgGpuValueType(((Var *) node)->vartype);

		return t == PG_GPU_TEXT || t == PG_GPU_BPCHAR;
	}
	return expression_tree_walker(node, (bool (*)()) (void *) reads_text, context);
}

typedef struct DimExprs
{
	PlannerInfo *root;
	PgGpuStarJoin *star;
	List	   *found;
} DimExprs;

/* Whether node is an expression PgGpuStarDimExprs takes (see there). */
static bool
dim_expr(DimExprs *cx, Node *node)
{
	Relids		r;
	int			t;
	int			varno;
	ListCell   *lc;

	switch (nodeTag(node))
	{
		case T_OpExpr:
		case T_DistinctExpr:
		case T_NullIfExpr:
		case T_ScalarArrayOpExpr:
		case T_FuncExpr:
		case T_BoolExpr:
		case T_NullTest:
		case T_BooleanTest:
		case T_CaseExpr:
		case T_CoalesceExpr:
			break;
		default:
			return false;
	}
	t = PgGpuValueType(exprType(node));
	if (t == 0 || t == PG_GPU_TEXT || t == PG_GPU_BPCHAR)
		return false;
	r = pull_varnos(cx->root, node);
	if (bms_membership(r) != BMS_SINGLETON)
		return false;
	varno = bms_singleton_member(r);
	/* over a table (a subquery's columns are carried as they are) */
	if (planner_rt_fetch(varno, cx->root)->rtekind != RTE_RELATION)
		return false;
	for (int d = 0; d < cx->star->ndims; d++)
		if (cx->star->dims[d].jointype == JOIN_INNER &&
			bms_is_member(varno, cx->star->dims[d].build->relids))
		{
			/* plain columns of that table only: no aggregate, placeholder or window */
			foreach(lc, pull_var_clause(node, PVC_INCLUDE_AGGREGATES | PVC_INCLUDE_WINDOWFUNCS |
										PVC_INCLUDE_PLACEHOLDERS))
				if (!IsA(lfirst(lc), Var))
					return false;
			return reads_text(node, NULL) && !contain_volatile_functions(node) &&
				!may_raise(node, NULL);
		}
	return false;
}

static bool
find_dim_exprs(Node *node, DimExprs *cx)
{
	if (node == NULL)
		return false;
	if (dim_expr(cx, node))
	{
		cx->found = list_append_unique(cx->found, node);
		return false;
	}
	return expression_tree_walker(node, (bool (*)()) (void *) find_dim_exprs, cx);
}

/* exprs with the expressions found each a NULL constant: their columns not read */
static Node *
strip_dim_exprs(Node *node, List *found)
{
	if (node == NULL)
		return NULL;
	if (list_member(found, node))
		return (Node *) makeNullConst(exprType(node), exprTypmod(node), exprCollation(node));
	return expression_tree_mutator(node, (Node * (*) ()) (void *) strip_dim_exprs, found);
}

List *
PgGpuStarDimExprs(PlannerInfo *root, PgGpuStarJoin *star, List *within, Node *exprs,
				  Node **rest)
{
	DimExprs	cx;

	cx.root = root;
	cx.star = star;
	cx.found = NIL;
	(void) find_dim_exprs((Node *) within, &cx);
	*rest = cx.found == NIL ? exprs : strip_dim_exprs(exprs, cx.found);
	return cx.found;
}
