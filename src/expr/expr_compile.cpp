/*
 * expr_compile.cpp — PostgreSQL expression trees to the engine's bytecode.
 *
 * Only what the kernels reproduce exactly is accepted; anything else makes the
 * caller keep PostgreSQL's plan:
 *
 *   Var of the scanned table, Const      int2/4/8, float4/8, date, timestamp[tz]
 *   + - * / % and unary -                the built-in integer and float operators
 *                                        (by function, so the overflow rules are
 *                                        the operator's own)
 *   = <> < <= > >=                       btree operators of one type family
 *   AND OR NOT, IS [NOT] NULL            three-valued, short-circuit in order
 *   x IN (consts), x NOT IN (consts)     ScalarArrayOpExpr over a constant array;
 *                                        long integer or text lists become a key
 *                                        set (a hash table) probed per row
 *   a join's key equality                a PgGpuSetTest: the other side's keys
 *   casts                                integer widening/narrowing, to float
 *   text, varchar, bpchar                columns and constants; = and <> (and IN)
 *                                        under deterministic collations, < <= > >=
 *                                        only where the collation is byte order
 *   numeric                              columns, constants, + - * and unary -,
 *                                        comparisons, integer to numeric: exact
 *                                        scaled integers (expr_numeric.cpp)
 *   date OP timestamp constant           as a date comparison (expr_datetime.cpp)
 *   LIKE, NOT LIKE                       a constant pattern, deterministic
 *                                        collation, UTF-8 database (compile_like)
 *   substring/substr/left, ::text        constant start and length, UTF-8
 *                                        characters; bpchar to text drops blanks
 *   CASE, COALESCE, NULLIF               lazily, with forward jumps: a branch not
 *                                        taken is not evaluated (and cannot fail)
 *
 * BETWEEN arrives here already rewritten into two comparisons.
 *
 * This file is the compiler's core: value types, emitting instructions,
 * attributes, constants, comparisons, compile()'s dispatch over node types and
 * the entry points that make programs of it.  Beside it (expr_compile_int.h is
 * what they share): expr_sets.cpp (key sets: IN lists, join keys, payloads,
 * dictionaries, IN subplans), expr_text.cpp (collations, LIKE, substring),
 * expr_control.cpp (AND/OR/NOT, CASE, COALESCE, NULLIF), and expr_numeric.cpp,
 * expr_datetime.cpp.
 */
extern "C" {
#include "postgres.h"

#include "catalog/pg_am.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "nodes/pathnodes.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"

#include "pg_gpu.h"
#include "expr/expr_compile.h"
}

#include "expr/expr_compile_int.h"

void
PgGpuCompilerInit(PgGpuCompiler *c, pg_gpu_agg_task *task, Index relid)
{
	memset(c, 0, sizeof(*c));
	c->task = task;
	c->relid = relid;
}

int
PgGpuValueType(Oid typid)
{
	switch (typid)
	{
		case INT2OID:
			return PG_GPU_INT2;
		case INT4OID:
			return PG_GPU_INT4;
		case INT8OID:
			return PG_GPU_INT8;
		case FLOAT4OID:
			return PG_GPU_FLOAT4;
		case FLOAT8OID:
			return PG_GPU_FLOAT8;
		case DATEOID:
			return PG_GPU_DATE;
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			return PG_GPU_TIMESTAMP;
		case BOOLOID:
			return PG_GPU_BOOL;
		case TEXTOID:
		case VARCHAROID:
			return PG_GPU_TEXT;
		case BPCHAROID:
			return PG_GPU_BPCHAR;
		default:
			return 0;
	}
}

static bool
is_int_type(int t)
{
	return t == PG_GPU_INT2 || t == PG_GPU_INT4 || t == PG_GPU_INT8;
}

static bool
is_float(int t)
{
	return t == PG_GPU_FLOAT4 || t == PG_GPU_FLOAT8;
}

/* Arithmetic operator functions, by OID. */
typedef struct ArithFn
{
	Oid			fn;
	uint8		op;
} ArithFn;

#define ARITH5(p) \
	{F_##p##PL, PG_GPU_OP_ADD}, {F_##p##MI, PG_GPU_OP_SUB}, \
	{F_##p##MUL, PG_GPU_OP_MUL}, {F_##p##DIV, PG_GPU_OP_DIV}

static const ArithFn arith_fns[] = {
	ARITH5(INT2), ARITH5(INT4), ARITH5(INT8),
	ARITH5(INT24), ARITH5(INT42), ARITH5(INT48), ARITH5(INT84), ARITH5(INT28), ARITH5(INT82),
	ARITH5(FLOAT4), ARITH5(FLOAT8), ARITH5(FLOAT48), ARITH5(FLOAT84),
	{F_INT2MOD, PG_GPU_OP_MOD}, {F_INT4MOD, PG_GPU_OP_MOD}, {F_INT8MOD, PG_GPU_OP_MOD},
	{F_INT2UM, PG_GPU_OP_NEG}, {F_INT4UM, PG_GPU_OP_NEG}, {F_INT8UM, PG_GPU_OP_NEG},
	{F_FLOAT4UM, PG_GPU_OP_NEG}, {F_FLOAT8UM, PG_GPU_OP_NEG},
};

/* Cast functions: the target type comes from the function's result. */
static const Oid cast_fns[] = {
	F_FLOAT8_INT2, F_FLOAT8_INT4, F_FLOAT8_INT8, F_FLOAT8_FLOAT4,
	F_FLOAT4_INT2, F_FLOAT4_INT4, F_FLOAT4_INT8,
	F_INT8_INT2, F_INT8_INT4, F_INT4_INT2, F_INT4_INT8, F_INT2_INT4, F_INT2_INT8,
};

bool
emit(PgGpuCompiler *c, int op, int type, int a, uint32 b, int push)
{
	pg_gpu_agg_task *t = c->task;

	if (t->nprog >= PG_GPU_MAX_PROG)
		return false;
	t->prog[t->nprog].op = (uint8) op;
	t->prog[t->nprog].type = (uint8) type;
	t->prog[t->nprog].a = (uint16) a;
	t->prog[t->nprog].b = b;
	t->nprog++;
	c->depth += push;
	c->maxdepth = Max(c->maxdepth, c->depth);
	return c->maxdepth <= PG_GPU_MAX_STACK;
}

/*
 * Note that attribute attidx is read as type; false if too many attributes, or
 * if a numeric is read both as DECIMAL and otherwise (a GpuSort key's bytes),
 * or at two scales.
 */
bool
PgGpuUseAttribute(PgGpuCompiler *c, int attidx, int type, int scale)
{
	for (int i = 0; i < c->natt; i++)
		if (c->att[i] == attidx)
		{
			if (type == PG_GPU_ANY)
				return true;
			if (c->atttype[i] != PG_GPU_ANY &&
				((c->atttype[i] == PG_GPU_DECIMAL) != (type == PG_GPU_DECIMAL) ||
				 (type == PG_GPU_DECIMAL && c->attscale[i] != scale)))
				return false;
			c->atttype[i] = (uint8) type;
			c->attscale[i] = (uint8) scale;
			return true;
		}
	if (c->natt >= PG_GPU_MAX_COLS)
		return false;
	c->att[c->natt] = (int16) attidx;
	c->atttype[c->natt] = (uint8) type;
	c->attscale[c->natt] = (uint8) scale;
	c->natt++;
	return true;
}

static bool
use_attribute(PgGpuCompiler *c, int attidx, int type)
{
	return PgGpuUseAttribute(c, attidx, type, 0);
}

Datum
PgGpuWordDatum(uint64 w, int type)
{
	double		d;

	switch (type)
	{
		case PG_GPU_INT2:
			return Int16GetDatum((int16) (int64) w);
		case PG_GPU_INT4:
		case PG_GPU_DATE:
			return Int32GetDatum((int32) (int64) w);
		case PG_GPU_FLOAT4:
			memcpy(&d, &w, 8);
			return Float4GetDatum((float4) d);
		case PG_GPU_FLOAT8:
			memcpy(&d, &w, 8);
			return Float8GetDatum(d);
		case PG_GPU_BOOL:
			return BoolGetDatum(w != 0);
		case PG_GPU_TEXT:
		case PG_GPU_BPCHAR:
			return PointerGetDatum((void *) (uintptr_t) w);
		default:				/* int8, timestamp, timestamptz */
			return Int64GetDatum((int64) w);
	}
}

bool
PgGpuDatumWord(Datum d, int type, uint64 *bits)
{
	switch (type)
	{
		case PG_GPU_INT2:
			*bits = (uint64) (int64) DatumGetInt16(d);
			return true;
		case PG_GPU_INT4:
		case PG_GPU_DATE:
			*bits = (uint64) (int64) DatumGetInt32(d);
			return true;
		case PG_GPU_INT8:
		case PG_GPU_TIMESTAMP:
			*bits = (uint64) DatumGetInt64(d);
			return true;
		case PG_GPU_FLOAT4:
			{
				double		v = DatumGetFloat4(d);

				memcpy(bits, &v, 8);
				return true;
			}
		case PG_GPU_FLOAT8:
			{
				double		v = DatumGetFloat8(d);

				memcpy(bits, &v, 8);
				return true;
			}
		case PG_GPU_BOOL:
			*bits = DatumGetBool(d) ? 1 : 0;
			return true;
		default:
			return false;
	}
}

/* Append a constant (the engine's 64-bit word); *idx receives its index. */
bool
add_const(PgGpuCompiler *c, Datum d, bool isnull, int type, int *idx)
{
	pg_gpu_agg_task *t = c->task;
	uint64		bits = 0;
	int			n = c->nconst;

	if (n >= PG_GPU_MAX_CONSTS)
		return false;
	if (!isnull && !PgGpuDatumWord(d, type, &bits))
	{
		switch (type)
		{
			case PG_GPU_TEXT:
			case PG_GPU_BPCHAR:
				{
					/* bytes into the task's pool: offset << 32 | length */
					text	   *v = DatumGetTextPP(d);
					int			len = VARSIZE_ANY_EXHDR(v);

					if (len > PG_GPU_MAX_STRPOOL - c->nstr)
						return false;
					memcpy(t->strpool + c->nstr, VARDATA_ANY(v), len);
					bits = ((uint64) c->nstr << 32) | (uint32) len;
					c->nstr += len;
					break;
				}
			default:
				return false;
		}
	}
	t->consts[n] = bits;
	if (isnull)
		t->const_null |= UINT64CONST(1) << n;
	*idx = n;
	c->nconst++;
	return true;
}

bool
PgGpuInitPlanParam(struct PlannerInfo *root, Param *p)
{
	ListCell   *lc;

	if (p->paramkind != PARAM_EXEC)
		return false;
	for (PlannerInfo *r = root; r != NULL; r = r->parent_root)
		foreach(lc, r->init_plans)
			if (lfirst_node(SubPlan, lc)->subLinkType != CTE_SUBLINK &&
				list_member_int(lfirst_node(SubPlan, lc)->setParam, p->paramid))
				return true;
	return false;
}

/* Bytes as a text constant (a LIKE pattern compiled here). */
bool
add_bytes_const(PgGpuCompiler *c, const uint8 *b, int len, int *idx)
{
	pg_gpu_agg_task *t = c->task;

	if (c->nconst >= PG_GPU_MAX_CONSTS || len > PG_GPU_MAX_STRPOOL - c->nstr)
		return false;
	memcpy(t->strpool + c->nstr, b, len);
	t->consts[c->nconst] = ((uint64) c->nstr << 32) | (uint32) len;
	c->nstr += len;
	*idx = c->nconst++;
	return true;
}

/*
 * The comparison an operator performs, if it is a plain btree one (text: one the
 * kernels can do as bytes under the collation).
 */
int
comparison_of(Oid opno, Oid lefttype, Oid righttype, Oid collid, int *cmptype)
{
	int			lt = PgGpuValueType(lefttype);
	int			rt = PgGpuValueType(righttype);
	ListCell   *lc;

	if (lt == 0 || rt == 0 || lt == PG_GPU_BOOL || rt == PG_GPU_BOOL)
		return 0;
	if (is_text(lt) || is_text(rt))
	{
		int			strategy = 0;
		Oid			family;

		if (lt != rt || lefttype != righttype)
			return 0;
		*cmptype = lt;
		/* the type's own operator class, not text_pattern_ops */
		family = get_opclass_family(GetDefaultOpClass(lefttype, BTREE_AM_OID));
		foreach(lc, get_op_btree_interpretation(opno))
		{
			OpBtreeInterpretation *oi = (OpBtreeInterpretation *) lfirst(lc);

			if (oi->opfamily_id == family &&
				oi->oplefttype == lefttype && oi->oprighttype == righttype)
				strategy = oi->strategy;
		}
		if (strategy == PG_GPU_CMP_EQ || strategy == PG_GPU_CMP_NE)
			return PgGpuCollationIsDeterministic(collid) ? strategy : 0;
		if (strategy >= PG_GPU_CMP_LT && strategy <= PG_GPU_CMP_GT)
			return PgGpuCollationIsBytewise(collid) ? strategy : 0;
		return 0;
	}
	if (is_int_type(lt) && is_int_type(rt))
		*cmptype = PG_GPU_INT8;
	else if (is_float(lt) && is_float(rt))
		*cmptype = PG_GPU_FLOAT8;
	else if (lefttype == righttype)
		*cmptype = lt;			/* date, timestamp, timestamptz with itself */
	else
		return 0;
	return PgGpuBtreeStrategy(opno, lefttype, righttype);
}

int
PgGpuBtreeStrategy(Oid opno, Oid lefttype, Oid righttype)
{
	ListCell   *lc;

	foreach(lc, get_op_btree_interpretation(opno))
	{
		OpBtreeInterpretation *oi = (OpBtreeInterpretation *) lfirst(lc);

		if (oi->oplefttype == lefttype && oi->oprighttype == righttype &&
			oi->strategy >= PG_GPU_CMP_LT && oi->strategy <= PG_GPU_CMP_NE)
			return oi->strategy;
	}
	return 0;
}

bool
compile(PgGpuCompiler *c, Expr *e, int *type)
{
	ListCell   *lc;

	check_stack_depth();
	foreach(lc, c->set_tests)
		if (((PgGpuSetTest *) lfirst(lc))->clause == e)
			return compile_set_test(c, (PgGpuSetTest *) lfirst(lc), type);
	if (c->payload_vars != NIL && !IsA(e, Var))
	{
		/* a star join's dimension expression, computed with its rows */
		PgGpuPayloadVar *pv = PgGpuFindPayloadExpr(c, e);

		if (pv != NULL)
		{
			*type = pv->valtype;
			return compile_payload(c, pv);
		}
	}
	if (PgGpuIsExtract(e))
		return PgGpuCompileExtract(c, e, type);
	if (PgGpuIsNumericNode(e))
		return PgGpuCompileNumeric(c, e, type);
	if (PgGpuIsDateTimestampCmp(e))
		return PgGpuCompileDateTimestampCmp(c, e, type);
	switch (nodeTag(e))
	{
		case T_Var:
			{
				Var		   *v = (Var *) e;
				int			t = PgGpuValueType(v->vartype);

				if (v->varno != (int) c->relid && v->varlevelsup == 0)
				{
					/* a dimension's column: its payload, text only as a key's code */
					PgGpuPayloadVar *pv = PgGpuFindPayloadVar(c, v);

					if (pv == NULL || is_text(pv->valtype) || t != pv->valtype)
						return false;
					*type = t;
					return compile_payload(c, pv);
				}
				if (v->varno != (int) c->relid || v->varlevelsup != 0 || v->varattno <= 0 ||
					t == 0)
					return false;
				if (!use_attribute(c, v->varattno - 1, t))
					return false;
				*type = t;
				return emit(c, PG_GPU_OP_COL, t, v->varattno - 1, 0, 1);
			}
		case T_Const:
			{
				Const	   *k = (Const *) e;
				int			t = PgGpuValueType(k->consttype);
				int			idx;

				if (t == 0 || !add_const(c, k->constvalue, k->constisnull, t, &idx))
					return false;
				*type = t;
				return emit(c, PG_GPU_OP_CONST, t, idx, 0, 1);
			}
		case T_Param:
			{
				/* an InitPlan's value: a constant the executor fills in */
				Param	   *p = (Param *) e;
				int			t = PgGpuValueType(p->paramtype);
				int			idx;

				if (t == 0 || is_text(t) || !c->allow_params || !PgGpuInitPlanParam(c->root, p) ||
					!add_const(c, (Datum) 0, false, t, &idx))
					return false;
				c->params = lappend_int(lappend_int(lappend_int(lappend_int(c->params, p->paramid),
																idx), t), 0);
				c->param_nodes = lappend(c->param_nodes, copyObject(p));
				*type = t;
				return emit(c, PG_GPU_OP_CONST, t, idx, 0, 1);
			}
		case T_RelabelType:
			{
				RelabelType *r = (RelabelType *) e;

				return PgGpuValueType(r->resulttype) == PgGpuValueType(exprType((Node *) r->arg)) &&
					compile(c, r->arg, type);
			}
		case T_OpExpr:
			{
				OpExpr	   *op = (OpExpr *) e;
				int			rt = PgGpuValueType(op->opresulttype);

				if (rt == 0)
					return false;
				set_opfuncid(op);
				bool		negated;

				if (PgGpuLikeFunction(op->opfuncid, &negated))
					return compile_like(c, op->args, op->inputcollid, negated, type);
				if (rt == PG_GPU_BOOL)
				{
					int			cmptype = 0,
								lt,
								t2;
					int			strategy;

					if (list_length(op->args) != 2)
						return false;
					strategy = comparison_of(op->opno, exprType((Node *) linitial(op->args)),
											 exprType((Node *) lsecond(op->args)),
											 op->inputcollid, &cmptype);
					if (strategy == 0 ||
						!compile(c, (Expr *) linitial(op->args), &lt) ||
						!compile(c, (Expr *) lsecond(op->args), &t2))
						return false;
					*type = PG_GPU_BOOL;
					return emit(c, PG_GPU_OP_CMP, cmptype, strategy, 0, -1);
				}
				for (size_t i = 0; i < lengthof(arith_fns); i++)
					if (arith_fns[i].fn == op->opfuncid)
					{
						ListCell   *lc;

						if (!is_int_type(rt) && !is_float(rt))
							return false;
						foreach(lc, op->args)
						{
							int			at;

							if (!compile(c, (Expr *) lfirst(lc), &at) ||
								(is_int_type(rt) != is_int_type(at)))
								return false;
						}
						*type = rt;
						return emit(c, arith_fns[i].op, rt, 0, 0,
									arith_fns[i].op == PG_GPU_OP_NEG ? 0 : -1);
					}
				return false;
			}
		case T_FuncExpr:
			{
				FuncExpr   *f = (FuncExpr *) e;
				int			rt = PgGpuValueType(f->funcresulttype);
				PgGpuDictFn dfn = dict_function(f->funcid);

				if (dfn != PG_GPU_DICT_FN_NONE)
					return compile_dict(c, f, dfn, type);
				switch (f->funcid)
				{
					case F_LIKE_TEXT_TEXT:
					case F_NOTLIKE_TEXT_TEXT:
						return compile_like(c, f->args, f->inputcollid,
											f->funcid == F_NOTLIKE_TEXT_TEXT, type);
					case F_SUBSTR_TEXT_INT4_INT4:
					case F_SUBSTR_TEXT_INT4:
					case F_SUBSTRING_TEXT_INT4_INT4:
					case F_SUBSTRING_TEXT_INT4:
					case F_LEFT:
						return compile_substr(c, f, type);
					case F_TEXT_BPCHAR:
						{
							int			at;

							/* bpchar to text or varchar: rtrim1 */
							if (list_length(f->args) != 1 || rt != PG_GPU_TEXT ||
								!compile(c, (Expr *) linitial(f->args), &at) ||
								at != PG_GPU_BPCHAR)
								return false;
							*type = PG_GPU_TEXT;
							return emit(c, PG_GPU_OP_RTRIM, PG_GPU_TEXT, 0, 0, 0);
						}
					default:
						break;
				}

				for (size_t i = 0; i < lengthof(cast_fns); i++)
					if (cast_fns[i] == f->funcid && list_length(f->args) == 1)
					{
						int			at;

						if (!compile(c, (Expr *) linitial(f->args), &at))
							return false;
						*type = rt;
						return emit(c, PG_GPU_OP_CAST, rt, at, 0, 0);
					}
				return false;
			}
		case T_BoolExpr:
			return compile_bool(c, (BoolExpr *) e, type);
		case T_NullTest:
			{
				NullTest   *nt = (NullTest *) e;
				int			t;

				if (nt->argisrow || !compile(c, nt->arg, &t))
					return false;
				*type = PG_GPU_BOOL;
				return emit(c, nt->nulltesttype == IS_NULL ? PG_GPU_OP_ISNULL : PG_GPU_OP_ISNOTNULL,
							PG_GPU_BOOL, 0, 0, 0);
			}
		case T_ScalarArrayOpExpr:
			return compile_in(c, (ScalarArrayOpExpr *) e, type);
		case T_CaseExpr:
			return compile_case(c, (CaseExpr *) e, type);
		case T_CaseTestExpr:
			{
				/* a simple CASE's operand, kept on the stack by compile_case */
				if (c->case_slot == 0 ||
					PgGpuCaseValueType(((CaseTestExpr *) e)->typeId) != c->case_type)
					return false;
				*type = c->case_type;
				c->scale = c->case_scale;
				c->dscale_fixed = c->case_fixed;
				return emit(c, PG_GPU_OP_PICK, c->case_type, c->case_slot - 1, 0, 1);
			}
		case T_CoalesceExpr:
			return compile_coalesce(c, (CoalesceExpr *) e, type);
		case T_NullIfExpr:
			return compile_nullif(c, (NullIfExpr *) e, type);
		case T_SubPlan:
			return compile_subplan(c, (SubPlan *) e, type);
		default:
			return false;
	}
}

bool
PgGpuCompileExpr(PgGpuCompiler *c, Expr *expr, pg_gpu_expr *out)
{
	int			start = c->task->nprog;
	int			type = 0;

	c->depth = 0;
	if (!compile(c, expr, &type) || c->depth != 1)
		return false;
	memset(out, 0, sizeof(*out));
	out->start = (uint16) start;
	out->len = (uint16) (c->task->nprog - start);
	out->type = (uint8) type;
	if (type == PG_GPU_DECIMAL)
	{
		out->scale = (uint8) c->scale;
		out->dscale_fixed = c->dscale_fixed;
	}
	return true;
}

bool
PgGpuCompileNode(PgGpuCompiler *c, Expr *e, int *type)
{
	return compile(c, e, type);
}

bool
PgGpuEmit(PgGpuCompiler *c, int op, int type, int a, uint32 b, int push)
{
	return emit(c, op, type, a, b, push);
}

bool
PgGpuCompileQuals(PgGpuCompiler *c, List *quals, pg_gpu_expr *out)
{
	int			start = c->task->nprog;
	int			nsteps = 0;
	int			steps[PG_GPU_MAX_PROG];
	ListCell   *lc;

	memset(out, 0, sizeof(*out));
	if (quals == NIL)
		return true;
	c->depth = 0;
	if (!emit(c, PG_GPU_OP_AND_BEGIN, PG_GPU_BOOL, 0, 0, 1))
		return false;
	foreach(lc, quals)
	{
		int			t;

		if (!compile(c, (Expr *) lfirst(lc), &t) || t != PG_GPU_BOOL)
			return false;
		steps[nsteps++] = c->task->nprog;
		if (!emit(c, PG_GPU_OP_AND_STEP, PG_GPU_BOOL, 0, 1, -1))
			return false;
	}
	for (int i = 0; i < nsteps; i++)
		c->task->prog[steps[i]].a = (uint16) c->task->nprog;
	out->start = (uint16) start;
	out->len = (uint16) (c->task->nprog - start);
	out->type = PG_GPU_BOOL;
	return c->depth == 1;
}

bool
PgGpuCompileColumnAs(PgGpuCompiler *c, int attidx, int type, pg_gpu_expr *out)
{
	int			start = c->task->nprog;

	if (!use_attribute(c, attidx, type))
		return false;
	c->depth = 0;
	if (!emit(c, PG_GPU_OP_COL, type, attidx, 0, 1))
		return false;
	memset(out, 0, sizeof(*out));
	out->start = (uint16) start;
	out->len = 1;
	out->type = (uint8) type;
	return true;
}

bool
PgGpuFinishPrograms(PgGpuCompiler *c)
{
	pg_gpu_agg_task *t = c->task;
	int			order[PG_GPU_MAX_COLS];

	for (int i = 0; i < c->natt; i++)
		order[i] = i;
	for (int i = 1; i < c->natt; i++)
		for (int j = i; j > 0 && c->att[order[j]] < c->att[order[j - 1]]; j--)
		{
			int			x = order[j];

			order[j] = order[j - 1];
			order[j - 1] = x;
		}
	t->ncols = c->natt;
	for (int i = 0; i < c->natt; i++)
	{
		t->cols[i].attidx = c->att[order[i]];
		t->cols[i].type = c->atttype[order[i]];
		t->cols[i].scale = c->attscale[order[i]];
	}
	for (int p = 0; p < t->nprog; p++)
		if (t->prog[p].op == PG_GPU_OP_COL)
		{
			int			k;

			for (k = 0; k < c->natt; k++)
				if (t->cols[k].attidx == t->prog[p].a)
					break;
			if (k == c->natt)
				return false;
			t->prog[p].a = (uint16) k;
		}
	return true;
}
