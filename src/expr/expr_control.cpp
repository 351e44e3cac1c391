/*
 * expr_control.cpp — control flow in the expression compiler
 * (expr_compile.cpp): AND, OR and NOT with SQL's three-valued logic and
 * ExecEvalAnd/Or's short-circuit in order, and the lazy CASE, COALESCE and
 * NULLIF, compiled with forward jumps so that a branch not taken is not
 * evaluated (and a division in it cannot fail), as in ExecInterpExpr.
 *
 * The jumps are patched once their target is known: the step or jump
 * instruction's a is the index of the instruction after the construct.
 */
extern "C" {
#include "postgres.h"

#include "nodes/nodeFuncs.h"

#include "pg_gpu.h"
#include "expr/expr_compile.h"
}

#include "expr/expr_compile_int.h"

bool
compile_bool(PgGpuCompiler *c, BoolExpr *b, int *type)
{
	ListCell   *lc;

	*type = PG_GPU_BOOL;
	if (b->boolop == NOT_EXPR)
	{
		int			t;

		return compile(c, (Expr *) linitial(b->args), &t) && t == PG_GPU_BOOL &&
			emit(c, PG_GPU_OP_NOT, PG_GPU_BOOL, 0, 0, 0);
	}
	bool		is_and = (b->boolop == AND_EXPR);
	int			nsteps = 0;
	int			steps[PG_GPU_MAX_PROG];

	if (!emit(c, is_and ? PG_GPU_OP_AND_BEGIN : PG_GPU_OP_OR_BEGIN, PG_GPU_BOOL, 0, 0, 1))
		return false;
	foreach(lc, b->args)
	{
		int			t;

		if (!compile(c, (Expr *) lfirst(lc), &t) || t != PG_GPU_BOOL)
			return false;
		steps[nsteps++] = c->task->nprog;
		if (!emit(c, is_and ? PG_GPU_OP_AND_STEP : PG_GPU_OP_OR_STEP, PG_GPU_BOOL, 0, 0, -1))
			return false;
	}
	for (int i = 0; i < nsteps; i++)
		c->task->prog[steps[i]].a = (uint16) c->task->nprog;
	return true;
}

/*
 * CASE, searched or simple (CASE x WHEN v ...: x once, on the stack, read by
 * each WHEN's CaseTestExpr).  Each WHEN's test jumps past its result when not
 * TRUE; each result jumps to the end; so only the branch taken is evaluated, as
 * ExecInterpExpr does, and a division in a branch not taken cannot fail.  The
 * parser gives a CASE without ELSE a NULL constant.
 */
static bool
compile_case_body(PgGpuCompiler *c, CaseExpr *ce, int *type)
{
	int			rt = PgGpuValueType(ce->casetype);
	int			ends[PG_GPU_MAX_PROG];
	int			nends = 0,
				base,
				t;
	ListCell   *lc;

	if (rt == 0 || ce->defresult == NULL)
		return false;
	if (ce->arg != NULL)
	{
		if (!compile(c, ce->arg, &t))
			return false;
		c->case_slot = c->depth;
		c->case_type = t;
	}
	base = c->depth;
	foreach(lc, ce->args)
	{
		CaseWhen   *w = lfirst_node(CaseWhen, lc);
		int			skip;

		if (!compile(c, w->expr, &t) || t != PG_GPU_BOOL)
			return false;
		skip = c->task->nprog;
		if (!emit(c, PG_GPU_OP_JUMP_UNLESS, PG_GPU_BOOL, 0, 0, -1) ||
			!compile(c, w->result, &t) || t != rt)
			return false;
		ends[nends++] = c->task->nprog;
		if (!emit(c, PG_GPU_OP_JUMP, rt, 0, 0, 0))
			return false;
		c->task->prog[skip].a = (uint16) c->task->nprog;
		c->depth = base;		/* the next test starts where this one did */
	}
	if (!compile(c, ce->defresult, &t) || t != rt)
		return false;
	for (int i = 0; i < nends; i++)
		c->task->prog[ends[i]].a = (uint16) c->task->nprog;
	if (ce->arg != NULL && !emit(c, PG_GPU_OP_NIP, rt, 0, 0, -1))
		return false;
	*type = rt;
	return true;
}

/* The same; a nested CASE's operand in place of an enclosing one's while it lasts. */
bool
compile_case(PgGpuCompiler *c, CaseExpr *ce, int *type)
{
	int			saved_slot = c->case_slot,
				saved_type = c->case_type;
	bool		ok = compile_case_body(c, ce, type);

	c->case_slot = saved_slot;
	c->case_type = saved_type;
	return ok;
}

/* COALESCE: the first argument that is not NULL; the later ones not evaluated. */
bool
compile_coalesce(PgGpuCompiler *c, CoalesceExpr *ce, int *type)
{
	int			rt = PgGpuValueType(ce->coalescetype);
	int			ends[PG_GPU_MAX_PROG];
	int			nends = 0,
				t;
	ListCell   *lc;

	if (rt == 0)
		return false;
	foreach(lc, ce->args)
	{
		if (!compile(c, (Expr *) lfirst(lc), &t) || t != rt)
			return false;
		if (lnext(ce->args, lc) == NULL)
			break;
		ends[nends++] = c->task->nprog;
		if (!emit(c, PG_GPU_OP_JUMP_NOTNULL, rt, 0, 0, -1))
			return false;
	}
	for (int i = 0; i < nends; i++)
		c->task->prog[ends[i]].a = (uint16) c->task->nprog;
	*type = rt;
	return true;
}

/* NULLIF(a, b): a, unless a = b is TRUE (both are evaluated, as in PostgreSQL). */
bool
compile_nullif(PgGpuCompiler *c, NullIfExpr *ni, int *type)
{
	int			cmptype = 0,
				t,
				t2;

	if (list_length(ni->args) != 2 ||
		comparison_of(ni->opno, exprType((Node *) linitial(ni->args)),
					  exprType((Node *) lsecond(ni->args)), ni->inputcollid,
					  &cmptype) != PG_GPU_CMP_EQ ||
		!compile(c, (Expr *) linitial(ni->args), &t) ||
		t != PgGpuValueType(ni->opresulttype) ||
		!emit(c, PG_GPU_OP_PICK, t, c->depth - 1, 0, 1) ||
		!compile(c, (Expr *) lsecond(ni->args), &t2) ||
		!emit(c, PG_GPU_OP_CMP, cmptype, PG_GPU_CMP_EQ, 0, -1) ||
		!emit(c, PG_GPU_OP_NULLIF, t, 0, 0, -1))
		return false;
	*type = t;
	return true;
}
