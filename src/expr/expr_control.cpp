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

#include "catalog/pg_type.h"
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

int
PgGpuCaseValueType(Oid typid)
{
	return typid == NUMERICOID ? PG_GPU_DECIMAL : PgGpuValueType(typid);
}

/*
 * The branches of a CASE or COALESCE whose value is numeric (a DECIMAL,
 * expr_numeric.cpp): every branch must leave its value at one scale, the
 * largest of theirs, which is known only once the last is compiled.  So each
 * branch ends in a RESCALE whose factor is patched at the end (0 for a branch
 * already at that scale: a no-op).  A value keeps its own dscale (a RESCALE
 * does not change it), so `ELSE 0` sums as dscale 0, as in PostgreSQL, where
 * the parser made the 0 a numeric constant of dscale 0.  The result's dscale
 * is fixed only when every branch's is, at that one scale; a NULL constant
 * branch (a CASE without ELSE) has no value to print and constrains nothing.
 * (docs/SEMANTICS.md 30)
 */
typedef struct DecBranches
{
	bool		dec;			/* the construct's value is a DECIMAL */
	int			n;
	int			at[PG_GPU_MAX_PROG];	/* each branch's RESCALE */
	int			scale[PG_GPU_MAX_PROG];
	int			max;			/* the largest scale */
	bool		fixed;
	int			fixed_scale;	/* the fixed branches' scale; -1: none yet */
} DecBranches;

static void
dec_init(DecBranches *db, int rt)
{
	db->dec = rt == PG_GPU_DECIMAL;
	db->n = 0;
	db->max = 0;
	db->fixed = true;
	db->fixed_scale = -1;
}

/* After a branch's value: its scale noted, its RESCALE emitted. */
static bool
dec_branch(PgGpuCompiler *c, DecBranches *db, Expr *branch)
{
	if (!db->dec)
		return true;
	if (!(IsA(branch, Const) && ((Const *) branch)->constisnull))
	{
		if (!c->dscale_fixed ||
			(db->fixed_scale >= 0 && db->fixed_scale != c->scale))
			db->fixed = false;
		db->fixed_scale = c->scale;
	}
	db->max = Max(db->max, c->scale);
	db->scale[db->n] = c->scale;
	db->at[db->n++] = c->task->nprog;
	return emit(c, PG_GPU_OP_RESCALE, PG_GPU_DECIMAL, 0, 0, 0);
}

/* After the last branch: the RESCALEs' factors, and the result's scale. */
static void
dec_finish(PgGpuCompiler *c, DecBranches *db)
{
	if (!db->dec)
		return;
	for (int i = 0; i < db->n; i++)
		c->task->prog[db->at[i]].a = (uint16) (db->max - db->scale[i]);
	c->scale = db->max;
	c->dscale_fixed = db->fixed && (db->fixed_scale < 0 || db->fixed_scale == db->max);
}

/*
 * CASE, searched or simple (CASE x WHEN v ...: x once, on the stack, read by
 * each WHEN's CaseTestExpr).  Each WHEN's test jumps past its result when not
 * TRUE; each result jumps to the end; so only the branch taken is evaluated, as
 * ExecInterpExpr does, and a division in a branch not taken cannot fail.  The
 * parser gives a CASE without ELSE a NULL constant.  A numeric CASE brings its
 * branches to one scale (DecBranches).
 */
static bool
compile_case_body(PgGpuCompiler *c, CaseExpr *ce, int *type)
{
	int			rt = PgGpuCaseValueType(ce->casetype);
	int			ends[PG_GPU_MAX_PROG];
	int			nends = 0,
				base,
				t;
	ListCell   *lc;
	DecBranches db;

	if (rt == 0 || ce->defresult == NULL)
		return false;
	dec_init(&db, rt);
	if (ce->arg != NULL)
	{
		if (!compile(c, ce->arg, &t))
			return false;
		c->case_slot = c->depth;
		c->case_type = t;
		c->case_scale = c->scale;
		c->case_fixed = c->dscale_fixed;
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
			!compile(c, w->result, &t) || t != rt || !dec_branch(c, &db, w->result))
			return false;
		ends[nends++] = c->task->nprog;
		if (!emit(c, PG_GPU_OP_JUMP, rt, 0, 0, 0))
			return false;
		c->task->prog[skip].a = (uint16) c->task->nprog;
		c->depth = base;		/* the next test starts where this one did */
	}
	if (!compile(c, ce->defresult, &t) || t != rt || !dec_branch(c, &db, ce->defresult))
		return false;
	for (int i = 0; i < nends; i++)
		c->task->prog[ends[i]].a = (uint16) c->task->nprog;
	if (ce->arg != NULL && !emit(c, PG_GPU_OP_NIP, rt, 0, 0, -1))
		return false;
	dec_finish(c, &db);
	*type = rt;
	return true;
}

/* The same; a nested CASE's operand in place of an enclosing one's while it lasts. */
bool
compile_case(PgGpuCompiler *c, CaseExpr *ce, int *type)
{
	int			saved_slot = c->case_slot,
				saved_type = c->case_type,
				saved_scale = c->case_scale;
	bool		saved_fixed = c->case_fixed;
	bool		ok = compile_case_body(c, ce, type);

	c->case_slot = saved_slot;
	c->case_type = saved_type;
	c->case_scale = saved_scale;
	c->case_fixed = saved_fixed;
	return ok;
}

/*
 * COALESCE: the first argument that is not NULL; the later ones not evaluated.
 * numeric arguments are brought to one scale, as CASE's branches are.
 */
bool
compile_coalesce(PgGpuCompiler *c, CoalesceExpr *ce, int *type)
{
	int			rt = PgGpuCaseValueType(ce->coalescetype);
	int			ends[PG_GPU_MAX_PROG];
	int			nends = 0,
				t;
	ListCell   *lc;
	DecBranches db;

	if (rt == 0)
		return false;
	dec_init(&db, rt);
	foreach(lc, ce->args)
	{
		if (!compile(c, (Expr *) lfirst(lc), &t) || t != rt ||
			!dec_branch(c, &db, (Expr *) lfirst(lc)))
			return false;
		if (lnext(ce->args, lc) == NULL)
			break;
		ends[nends++] = c->task->nprog;
		if (!emit(c, PG_GPU_OP_JUMP_NOTNULL, rt, 0, 0, -1))
			return false;
	}
	for (int i = 0; i < nends; i++)
		c->task->prog[ends[i]].a = (uint16) c->task->nprog;
	dec_finish(c, &db);
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
