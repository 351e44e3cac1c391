/*
 * expr_numeric.cpp — numeric expressions as exact scaled integers (DECIMAL).
 *
 * The kernels keep a numeric as v * 10^S in 128 bits (cuda/decimal.cuh).  S is
 * fixed here, per column and per node, so that the bytecode needs no scale of
 * its own: a numeric(p,s) column is read at s (typmod-less columns at
 * PG_GPU_DEC_FREE_SCALE), a constant at its dscale, a + b and a - b at the larger
 * of their operands' scales (the smaller one RESCALEd first), a * b at the sum.
 * The value's own dscale travels with it, which is what PostgreSQL prints
 * (docs/SEMANTICS.md 21, 22).  Accepted:
 *
 *   Var of the scanned table, Const      numeric (not NaN, not +-Infinity)
 *   numeric_add, _sub, _mul, _uminus     + - * and unary - (numeric_uplus: as is)
 *   = <> < <= > >=                       numeric's btree operators
 *   numeric(int2|int4|int8)              integer to numeric (dscale 0)
 *   CASE, COALESCE                       expr_control.cpp: branches brought to
 *                                        the largest of their scales
 *
 * Division is not here: its result scale (select_div_scale) rounds.  Any value
 * the kernels cannot keep exactly makes its tuple an expression error, and the
 * query re-runs on the CPU.
 */
extern "C" {
#include "postgres.h"

#include "catalog/pg_type.h"
#include "nodes/nodeFuncs.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"

#include "pg_gpu.h"
#include "expr/expr_compile.h"
}

typedef __int128 int128;

static bool
is_int_cast(Oid fn)
{
	return fn == F_NUMERIC_INT2 || fn == F_NUMERIC_INT4 || fn == F_NUMERIC_INT8;
}

bool
PgGpuIsNumericNode(Expr *e)
{
	switch (nodeTag(e))
	{
		case T_Var:
			return ((Var *) e)->vartype == NUMERICOID;
		case T_Const:
			return ((Const *) e)->consttype == NUMERICOID;
		case T_Param:
			return ((Param *) e)->paramtype == NUMERICOID;
		case T_OpExpr:
			{
				OpExpr	   *op = (OpExpr *) e;

				if (op->opresulttype == NUMERICOID)
					return true;
				return op->opresulttype == BOOLOID && list_length(op->args) == 2 &&
					exprType((Node *) linitial(op->args)) == NUMERICOID &&
					exprType((Node *) lsecond(op->args)) == NUMERICOID;
			}
		case T_FuncExpr:
			return ((FuncExpr *) e)->funcresulttype == NUMERICOID;
		default:
			return false;
	}
}

/*
 * The scale a numeric column's values are read at, from its typmod
 * ((precision << 16 | scale & 0x7ff) + VARHDRSZ, the scale 11-bit signed since
 * PostgreSQL 15): a typmod's scale in 0 .. PG_GPU_DEC_MAX_SCALE, every value's
 * dscale; else PG_GPU_DEC_FREE_SCALE, values of larger dscale then going to the
 * CPU.
 */
int
PgGpuNumericColumnScale(int32 typmod, bool *fixed)
{
	if (typmod >= (int32) VARHDRSZ)
	{
		int			s = ((((typmod - VARHDRSZ) & 0x7ff) ^ 1024) - 1024);

		if (s >= 0 && s <= PG_GPU_DEC_MAX_SCALE)
		{
			*fixed = true;
			return s;
		}
	}
	*fixed = false;
	return PG_GPU_DEC_FREE_SCALE;
}

/*
 * A numeric Datum's digits (numeric_out's text): the magnitude as an integer
 * of the digits kept, at most max_frac of them after the point (all when
 * max_frac < 0), with how many were kept, whether a dropped one was not 0,
 * and the sign.  False for NaN, +-Inf and magnitudes of PG_GPU_DEC_BITS or
 * more.
 */
bool
PgGpuNumericDigits(Datum d, int max_frac, __int128 *mag, int *dscale, bool *inexact, bool *neg)
{
	const char *s = DatumGetCString(DirectFunctionCall1(numeric_out, d));
	const int128 limit = (int128) 1 << PG_GPU_DEC_BITS;
	bool		frac = false;
	int			ds = 0;
	int128		acc = 0;

	*neg = *s == '-';
	*inexact = false;
	for (s += *neg ? 1 : 0; *s; s++)
	{
		if (*s == '.')
		{
			frac = true;
			continue;
		}
		if (*s < '0' || *s > '9')
			return false;		/* NaN, Infinity */
		if (frac && max_frac >= 0 && ds >= max_frac)
		{
			*inexact |= *s != '0';
			continue;
		}
		acc = acc * 10 + (*s - '0');
		if (acc >= limit)
			return false;
		ds += frac ? 1 : 0;
	}
	*mag = acc;
	*dscale = ds;
	return true;
}

/* A numeric Datum as v * 10^dscale and its dscale; false for NaN, +-Inf, too big. */
bool
PgGpuNumericScaled(Datum d, __int128 *v, int *dscale)
{
	int128		mag;
	bool		inexact;
	bool		neg;

	if (!PgGpuNumericDigits(d, -1, &mag, dscale, &inexact, &neg) ||
		*dscale > PG_GPU_DEC_MAX_SCALE)
		return false;
	*v = neg ? -mag : mag;
	return true;
}

/* Two constants in a row: the low and high words of a DECIMAL. */
static bool
add_decimal_const(PgGpuCompiler *c, int128 v, bool isnull, int *idx)
{
	pg_gpu_agg_task *t = c->task;
	int			n = c->nconst;

	if (n + 2 > PG_GPU_MAX_CONSTS)
		return false;
	t->consts[n] = (uint64) v;
	t->consts[n + 1] = (uint64) ((unsigned __int128) v >> 64);
	if (isnull)
		t->const_null |= UINT64CONST(1) << n;
	c->nconst += 2;
	*idx = n;
	return true;
}

/* Compile a numeric argument; its scale and fixedness. */
static bool
operand(PgGpuCompiler *c, Expr *e, int *scale, bool *fixed)
{
	int			t;

	if (!PgGpuCompileNode(c, e, &t) || t != PG_GPU_DECIMAL)
		return false;
	*scale = c->scale;
	*fixed = c->dscale_fixed;
	return true;
}

/*
 * Both operands of a binary node, then RESCALEs that bring them to one scale
 * (*scale); fixed: both operands' dscales fixed.
 */
static bool
aligned_operands(PgGpuCompiler *c, List *args, int *scale, bool *fixed, int *sa_out = NULL,
				 int *sb_out = NULL)
{
	int			sa,
				sb;
	bool		fa,
				fb;

	if (!operand(c, (Expr *) linitial(args), &sa, &fa) ||
		!operand(c, (Expr *) lsecond(args), &sb, &fb))
		return false;
	*scale = Max(sa, sb);
	*fixed = fa && fb;
	if (sa_out != NULL)
	{
		*sa_out = sa;
		*sb_out = sb;
	}
	if (sa < *scale && !PgGpuEmit(c, PG_GPU_OP_RESCALE, PG_GPU_DECIMAL, *scale - sa, 1, 0))
		return false;
	if (sb < *scale && !PgGpuEmit(c, PG_GPU_OP_RESCALE, PG_GPU_DECIMAL, *scale - sb, 0, 0))
		return false;
	return true;
}

static bool
compile_op(PgGpuCompiler *c, OpExpr *op, int *type)
{
	int			scale;
	bool		fixed;

	set_opfuncid(op);
	if (op->opresulttype == BOOLOID)
	{
		int			strategy = PgGpuBtreeStrategy(op->opno, NUMERICOID, NUMERICOID);
		Param	   *was = c->compare_param;
		Expr	   *l = (Expr *) linitial(op->args);
		Expr	   *r = (Expr *) lsecond(op->args);
		int			sa,
					sb;
		bool		ok;

		if (strategy == 0)
			return false;
		/* an InitPlan's parameter against a value of at most 16 digits */
		c->compare_param = IsA(l, Param) ? (Param *) l : IsA(r, Param) ? (Param *) r : NULL;
		ok = aligned_operands(c, op->args, &scale, &fixed, &sa, &sb);
		if (ok && c->compare_param != NULL)
			ok = (c->compare_param == (Param *) l ? sb : sa) < PG_GPU_PARAM_SCALE;
		c->compare_param = was;
		if (!ok)
			return false;
		*type = PG_GPU_BOOL;
		return PgGpuEmit(c, PG_GPU_OP_CMP, PG_GPU_DECIMAL, strategy, 0, -1);
	}
	switch (op->opfuncid)
	{
		case F_NUMERIC_UPLUS:
		case F_NUMERIC_UMINUS:
			if (list_length(op->args) != 1 ||
				!operand(c, (Expr *) linitial(op->args), &scale, &fixed))
				return false;
			if (op->opfuncid == F_NUMERIC_UMINUS &&
				!PgGpuEmit(c, PG_GPU_OP_NEG, PG_GPU_DECIMAL, 0, 0, 0))
				return false;
			break;
		case F_NUMERIC_ADD:
		case F_NUMERIC_SUB:
			if (list_length(op->args) != 2 || !aligned_operands(c, op->args, &scale, &fixed) ||
				!PgGpuEmit(c, op->opfuncid == F_NUMERIC_ADD ? PG_GPU_OP_ADD : PG_GPU_OP_SUB,
						   PG_GPU_DECIMAL, 0, 0, -1))
				return false;
			break;
		case F_NUMERIC_MUL:
			{
				int			sa,
							sb;
				bool		fa,
							fb;

				/* exact: the product's dscale is the sum of the operands' */
				if (list_length(op->args) != 2 ||
					!operand(c, (Expr *) linitial(op->args), &sa, &fa) ||
					!operand(c, (Expr *) lsecond(op->args), &sb, &fb) ||
					sa + sb > PG_GPU_DEC_MAX_SCALE ||
					!PgGpuEmit(c, PG_GPU_OP_MUL, PG_GPU_DECIMAL, 0, 0, -1))
					return false;
				scale = sa + sb;
				fixed = fa && fb;
				break;
			}
		default:
			return false;
	}
	c->scale = scale;
	c->dscale_fixed = fixed;
	*type = PG_GPU_DECIMAL;
	return true;
}

bool
PgGpuCompileNumeric(PgGpuCompiler *c, Expr *e, int *type)
{
	switch (nodeTag(e))
	{
		case T_Var:
			{
				Var		   *v = (Var *) e;
				bool		fixed;
				int			scale = PgGpuNumericColumnScale(v->vartypmod, &fixed);

				if (v->varno != (int) c->relid || v->varlevelsup != 0 || v->varattno <= 0 ||
					!PgGpuUseAttribute(c, v->varattno - 1, PG_GPU_DECIMAL, scale))
					return false;
				c->scale = scale;
				c->dscale_fixed = fixed;
				*type = PG_GPU_DECIMAL;
				return PgGpuEmit(c, PG_GPU_OP_COL, PG_GPU_DECIMAL, v->varattno - 1, 0, 1);
			}
		case T_Const:
			{
				Const	   *k = (Const *) e;
				int128		v = 0;
				int			ds = 0;
				int			idx;

				if (!k->constisnull && !PgGpuNumericScaled(k->constvalue, &v, &ds))
					return false;
				if (!add_decimal_const(c, v, k->constisnull, &idx))
					return false;
				c->scale = ds;
				c->dscale_fixed = true;
				*type = PG_GPU_DECIMAL;
				return PgGpuEmit(c, PG_GPU_OP_CONST, PG_GPU_DECIMAL, idx, (uint32) ds, 1);
			}
		case T_Param:
			{
				/* an InitPlan's value, a comparison's operand (PgGpuCompiler.params) */
				Param	   *p = (Param *) e;
				int			idx;

				if (!c->allow_params || c->compare_param != p || !PgGpuInitPlanParam(c->root, p) ||
					!add_decimal_const(c, 0, false, &idx))
					return false;
				c->params = lappend_int(lappend_int(lappend_int(lappend_int(c->params, p->paramid),
																idx), PG_GPU_DECIMAL),
										PG_GPU_PARAM_SCALE);
				c->param_nodes = lappend(c->param_nodes, copyObject(p));
				c->scale = PG_GPU_PARAM_SCALE;
				c->dscale_fixed = true;
				*type = PG_GPU_DECIMAL;
				return PgGpuEmit(c, PG_GPU_OP_CONST, PG_GPU_DECIMAL, idx, PG_GPU_PARAM_SCALE, 1);
			}
		case T_OpExpr:
			return compile_op(c, (OpExpr *) e, type);
		case T_FuncExpr:
			{
				FuncExpr   *f = (FuncExpr *) e;
				int			at;

				if (!is_int_cast(f->funcid) || list_length(f->args) != 1 ||
					!PgGpuCompileNode(c, (Expr *) linitial(f->args), &at) ||
					!(at == PG_GPU_INT2 || at == PG_GPU_INT4 || at == PG_GPU_INT8))
					return false;
				c->scale = 0;
				c->dscale_fixed = true;
				*type = PG_GPU_DECIMAL;
				return PgGpuEmit(c, PG_GPU_OP_CAST, PG_GPU_DECIMAL, at, 0, 0);
			}
		default:
			return false;
	}
}

bool
PgGpuCompileNumericKey(PgGpuCompiler *c, Expr *e, pg_gpu_expr *out)
{
	/* equal keys print alike only when every value has the same dscale */
	if (!PgGpuCompileExpr(c, e, out) || out->type != PG_GPU_DECIMAL || !out->dscale_fixed ||
		!PgGpuEmit(c, PG_GPU_OP_CAST, PG_GPU_INT8, PG_GPU_DECIMAL, 0, 0))
		return false;
	out->len++;
	out->type = PG_GPU_INT8;
	return true;
}
