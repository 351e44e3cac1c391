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
 */
extern "C" {
#include "postgres.h"

#include <locale.h>

#include "catalog/pg_am.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_database.h"
#include "catalog/pg_language.h"
#include "catalog/pg_proc.h"
#include "commands/defrem.h"
#include "catalog/pg_type.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "nodes/pathnodes.h"
#include "nodes/plannodes.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "pg_gpu.h"
#include "expr/expr_compile.h"

/*
 * From utils/pg_locale.h, which cannot be included where PostgreSQL was built with
 * ICU but its headers are not installed.
 */
extern bool lc_collate_is_c(Oid collation);
}

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
is_text(int t)
{
	return t == PG_GPU_TEXT || t == PG_GPU_BPCHAR;
}

static bool
is_c_utf8(const char *name)
{
	return name && (pg_strcasecmp(name, "C.UTF-8") == 0 || pg_strcasecmp(name, "C.UTF8") == 0);
}

bool
PgGpuCollationIsBytewise(Oid collid)
{
	HeapTuple	tup;
	bool		bytewise = false;

	if (!OidIsValid(collid))
		return false;
	if (lc_collate_is_c(collid))
		return true;
	if (collid == DEFAULT_COLLATION_OID)
	{
		/* a libc default collation: the database's LC_COLLATE */
		tup = SearchSysCache1(DATABASEOID, ObjectIdGetDatum(MyDatabaseId));
		if (!HeapTupleIsValid(tup))
			return false;
		bytewise = ((Form_pg_database) GETSTRUCT(tup))->datlocprovider == COLLPROVIDER_LIBC;
		ReleaseSysCache(tup);
		return bytewise && GetDatabaseEncoding() == PG_UTF8 &&
			is_c_utf8(setlocale(LC_COLLATE, NULL));
	}
	tup = SearchSysCache1(COLLOID, ObjectIdGetDatum(collid));
	if (!HeapTupleIsValid(tup))
		return false;
	if (((Form_pg_collation) GETSTRUCT(tup))->collprovider == COLLPROVIDER_LIBC &&
		GetDatabaseEncoding() == PG_UTF8)
	{
		bool		isnull;
		Datum		d = SysCacheGetAttr(COLLOID, tup, Anum_pg_collation_collcollate, &isnull);

		bytewise = !isnull && is_c_utf8(TextDatumGetCString(d));
	}
	ReleaseSysCache(tup);
	return bytewise;
}

bool
PgGpuCollationIsDeterministic(Oid collid)
{
	return OidIsValid(collid) && get_collation_isdeterministic(collid);
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

static bool
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
static bool
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

/* Bytes as a text constant (a LIKE pattern compiled here). */
static bool
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
static int
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

static bool compile(PgGpuCompiler *c, Expr *e, int *type);

/* IN lists longer than this probe a key set instead of comparing each value */
#define PG_GPU_IN_LINEAR_MAX 16

int
PgGpuSetType(int keytype)
{
	switch (keytype)
	{
		case PG_GPU_INT2:
		case PG_GPU_INT4:
		case PG_GPU_INT8:
		case PG_GPU_DATE:
		case PG_GPU_TIMESTAMP:
			return PG_GPU_INT8;
		case PG_GPU_TEXT:
		case PG_GPU_BPCHAR:
			return keytype;
		default:
			return 0;			/* floats: -0 = 0 and NaN = NaN are not bit equality */
	}
}

int
PgGpuSetKeyType(Oid opno, Oid lefttype, Oid righttype, Oid collid)
{
	int			cmptype = 0;

	if (comparison_of(opno, lefttype, righttype, collid, &cmptype) != PG_GPU_CMP_EQ ||
		PgGpuSetType(cmptype) == 0)
		return 0;
	return cmptype;
}

int
PgGpuAddSet(PgGpuCompiler *c, int settype, List *source)
{
	if (c->task->nsets >= PG_GPU_MAX_SETS)
		return -1;
	c->set_sources = lappend(c->set_sources, source);
	c->task->sets[c->task->nsets].type = settype;
	return c->task->nsets++;
}

/* The instructions from start on as one program of an int8 value; false unless one value. */
static bool
int8_program(PgGpuCompiler *c, int start, pg_gpu_expr *out)
{
	if (c->depth != 1)
		return false;
	memset(out, 0, sizeof(*out));
	out->start = (uint16) start;
	out->len = (uint16) (c->task->nprog - start);
	out->type = PG_GPU_INT8;
	return true;
}

bool
PgGpuCompileSetValue(PgGpuCompiler *c, Expr *probe, int keytype, int set, bool ordinal,
					 pg_gpu_expr *out)
{
	int			start = c->task->nprog;
	int			t;

	c->depth = 0;
	if (!compile(c, probe, &t) ||
		!emit(c, ordinal ? PG_GPU_OP_SET_ORD : PG_GPU_OP_SET_MULT, keytype, set, 0, 0))
		return false;
	return int8_program(c, start, out);
}

PgGpuPayloadVar *
PgGpuFindPayloadVar(PgGpuCompiler *c, Var *v)
{
	ListCell   *lc;

	if (v->varlevelsup != 0)
		return NULL;
	foreach(lc, c->payload_vars)
	{
		PgGpuPayloadVar *pv = (PgGpuPayloadVar *) lfirst(lc);

		if (pv->var->varno == v->varno && pv->var->varattno == v->varattno)
			return pv;
	}
	return NULL;
}

/* The probe's key, then the payload word of the row it finds. */
static bool
compile_payload(PgGpuCompiler *c, PgGpuPayloadVar *pv)
{
	int			t;

	return compile(c, pv->probe, &t) &&
		emit(c, PG_GPU_OP_SET_VAL, pv->keytype, pv->set, (uint32) pv->col, 0);
}

bool
PgGpuCompilePayloadCode(PgGpuCompiler *c, PgGpuPayloadVar *pv, pg_gpu_expr *out)
{
	int			start = c->task->nprog;

	c->depth = 0;
	if (!is_text(pv->valtype) || !compile_payload(c, pv))
		return false;
	return int8_program(c, start, out);
}

/* A join's key equality: the probe side, then a match in the other side's set. */
static bool
compile_set_test(PgGpuCompiler *c, PgGpuSetTest *st, int *type)
{
	int			t;

	if (!compile(c, st->probe, &t))
		return false;
	*type = PG_GPU_BOOL;
	return emit(c, PG_GPU_OP_IN_SET, st->keytype, st->set, 1, 0);
}

static bool
compile_in(PgGpuCompiler *c, ScalarArrayOpExpr *sa, int *type)
{
	Expr	   *lhs = (Expr *) linitial(sa->args);
	Const	   *arr = (Const *) lsecond(sa->args);
	Oid			elemtype;
	int16		elmlen;
	bool		elmbyval;
	char		elmalign;
	Datum	   *elems;
	bool	   *nulls;
	int			nelems;
	int			cmptype = 0;
	int			strategy;
	int			ltype;
	int			first = 0;

	if (list_length(sa->args) != 2 || !IsA(arr, Const) || arr->constisnull)
		return false;
	elemtype = get_element_type(arr->consttype);
	if (!OidIsValid(elemtype) || PgGpuValueType(elemtype) == 0)
		return false;
	strategy = comparison_of(sa->opno, exprType((Node *) lhs), elemtype, sa->inputcollid,
							 &cmptype);
	if (!((sa->useOr && strategy == PG_GPU_CMP_EQ) || (!sa->useOr && strategy == PG_GPU_CMP_NE)))
		return false;
	if (!compile(c, lhs, &ltype))
		return false;
	get_typlenbyvalalign(elemtype, &elmlen, &elmbyval, &elmalign);
	deconstruct_array(DatumGetArrayTypeP(arr->constvalue), elemtype, elmlen, elmbyval,
					  elmalign, &elems, &nulls, &nelems);
	if (nelems == 0)
		return false;
	if (nelems > PG_GPU_IN_LINEAR_MAX && PgGpuSetType(cmptype) != 0)
	{
		/* a long list: a key set, one probe per row */
		PgGpuSetSource src;
		int			set;

		memset(&src, 0, sizeof(src));
		src.kind = PG_GPU_SET_ARRAY;
		src.array = (Const *) copyObject(arr);
		src.valtype = PgGpuValueType(elemtype);
		set = PgGpuAddSet(c, PgGpuSetType(cmptype), PgGpuSetSourceBuild(&src));

		if (set < 0 || !emit(c, PG_GPU_OP_IN_SET, cmptype, set, 0, 0))
			return false;
		if (!sa->useOr && !emit(c, PG_GPU_OP_NOT, PG_GPU_BOOL, 0, 0, 0))
			return false;
		*type = PG_GPU_BOOL;
		return true;
	}
	first = c->nconst;
	for (int i = 0; i < nelems; i++)
	{
		int			idx;

		/* ints as int64, floats as double: the comparison's own domain */
		if (!add_const(c, elems[i], nulls[i], PgGpuValueType(elemtype), &idx))
			return false;
	}
	if (!emit(c, PG_GPU_OP_IN, cmptype, first, (uint32) nelems, 0))
		return false;
	if (!sa->useOr && !emit(c, PG_GPU_OP_NOT, PG_GPU_BOOL, 0, 0, 0))
		return false;
	*type = PG_GPU_BOOL;
	return true;
}

static bool
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

/* Which dictionary function funcid is, if any. */
typedef enum PgGpuDictFn
{
	PG_GPU_DICT_FN_NONE = 0,
	PG_GPU_DICT_FN_CONTAINS,	/* pg_gpu_dict_contains(name, key) → boolean */
	PG_GPU_DICT_FN_LOOKUP		/* pg_gpu_dict_lookup(name, key) → bigint */
} PgGpuDictFn;


/* Which dictionary function funcid is: this library's, by its C symbol. */
static PgGpuDictFn
dict_function(Oid funcid)
{
	HeapTuple	tup;
	Form_pg_proc proc;
	Datum		d;
	bool		isnull;
	char	   *src = NULL,
			   *bin = NULL;
	const char *base;
	PgGpuDictFn fn = PG_GPU_DICT_FN_NONE;

	if (funcid < FirstNormalObjectId)
		return fn;
	tup = SearchSysCache1(PROCOID, ObjectIdGetDatum(funcid));
	if (!HeapTupleIsValid(tup))
		return fn;
	proc = (Form_pg_proc) GETSTRUCT(tup);
	/* ours, not a namesake: this library's C symbol, (text, text) */
	if (proc->prolang == ClanguageId && proc->pronargs == 2 &&
		proc->proargtypes.values[0] == TEXTOID && proc->proargtypes.values[1] == TEXTOID)
	{
		d = SysCacheGetAttr(PROCOID, tup, Anum_pg_proc_prosrc, &isnull);
		if (!isnull)
			src = TextDatumGetCString(d);
		d = SysCacheGetAttr(PROCOID, tup, Anum_pg_proc_probin, &isnull);
		if (!isnull)
			bin = TextDatumGetCString(d);
		base = bin ? strrchr(bin, '/') : NULL;
		base = base ? base + 1 : bin;
		if (src && base && (strcmp(base, "pg_gpu") == 0 || strcmp(base, "pg_gpu.so") == 0))
		{
			if (strcmp(src, "pg_gpu_dict_contains") == 0)
				fn = PG_GPU_DICT_FN_CONTAINS;
			else if (strcmp(src, "pg_gpu_dict_lookup") == 0)
				fn = PG_GPU_DICT_FN_LOOKUP;
		}
	}
	ReleaseSysCache(tup);
	return fn;
}

/*
 * pg_gpu_dict_contains / _lookup(name, key) with a constant name: a probe of the
 * dictionary, one key set however often the query names it.
 */
static bool
compile_dict(PgGpuCompiler *c, FuncExpr *f, PgGpuDictFn fn, int *type)
{
	Const	   *nm = (Const *) linitial(f->args);
	char	   *name;
	ListCell   *lc;
	int			set = -1,
				i = 0,
				t;

	if (list_length(f->args) != 2 || !IsA(nm, Const) || nm->constisnull)
		return false;
	name = TextDatumGetCString(nm->constvalue);
	/* a name the functions would reject: PostgreSQL raises their error */
	if (name[0] == '\0' || strlen(name) >= NAMEDATALEN ||
		strlen(name) != VARSIZE_ANY_EXHDR(DatumGetPointer(nm->constvalue)))
		return false;
	foreach(lc, c->set_sources)
	{
		PgGpuSetSource src;

		PgGpuSetSourceRead((List *) lfirst(lc), &src);
		if (src.kind == PG_GPU_SET_DICT && strcmp(src.dict, name) == 0)
			set = i;
		i++;
	}
	if (set < 0)
	{
		PgGpuSetSource src;

		memset(&src, 0, sizeof(src));
		src.kind = PG_GPU_SET_DICT;
		src.dict = name;
		if ((set = PgGpuAddSet(c, PG_GPU_TEXT, PgGpuSetSourceBuild(&src))) < 0)
			return false;
	}
	if (!compile(c, (Expr *) lsecond(f->args), &t) || t != PG_GPU_TEXT)
		return false;
	*type = fn == PG_GPU_DICT_FN_CONTAINS ? PG_GPU_BOOL : PG_GPU_INT8;
	return emit(c, fn == PG_GPU_DICT_FN_CONTAINS ? PG_GPU_OP_IN_SET : PG_GPU_OP_SET_ORD,
				PG_GPU_TEXT, set, 0, 0);
}

/*
 * When the subplan is a plain scan of one table (a Seq Scan whose filter and
 * first output column the GPU computes): its table's pages can give the keys,
 * as a join's build table's do.  The collect task and the table into src, if so.
 */
static void
subplan_collect(PgGpuCompiler *c, SubPlan *sp, int settype, PgGpuSetSource *src)
{
	PlannerInfo *subroot;
	Plan	   *plan;
	Index		scanrelid;
	Const	   *task;
	Oid			relid;
	double		cost;

	if (c->root == NULL || c->collect_task == NULL || sp->plan_id < 1 ||
		sp->plan_id > list_length(c->root->glob->subplans))
		return;
	plan = (Plan *) list_nth(c->root->glob->subplans, sp->plan_id - 1);
	subroot = (PlannerInfo *) list_nth(c->root->glob->subroots, sp->plan_id - 1);
	if (plan == NULL || subroot == NULL || !IsA(plan, SeqScan) || plan->lefttree != NULL ||
		plan->initPlan != NIL || plan->targetlist == NIL)
		return;
	scanrelid = ((Scan *) plan)->scanrelid;
	if (scanrelid < 1 || (int) scanrelid >= subroot->simple_rel_array_size)
		return;
	task = c->collect_task(subroot, subroot->simple_rel_array[scanrelid], plan->qual,
						   linitial_node(TargetEntry, plan->targetlist)->expr, settype,
						   plan->total_cost, plan->plan_rows, &cost, &relid);
	if (task != NULL)
	{
		src->task = task;
		src->relid = relid;
	}
}

/*
 * x IN (SELECT k ...) left as an uncorrelated SubPlan (PostgreSQL's hashed or
 * plain subplan, e.g. under NOT): a probe of the set of the subquery's keys, with
 * IN's three-valued answer.  (An AlternativeSubPlan, which setrefs resolves later,
 * only arises for EXISTS, whose answer is not a key set's: left to PostgreSQL.)
 */
static bool
compile_subplan(PgGpuCompiler *c, SubPlan *sp, int *type)
{
	OpExpr	   *op;
	Node	   *right;
	Param	   *p;
	PgGpuSetSource src;
	int			keytype,
				valtype,
				set,
				t;

	if (!pg_gpu_enable_gpujoin ||
		sp->subLinkType != ANY_SUBLINK || sp->parParam != NIL || sp->args != NIL ||
		list_length(sp->paramIds) != 1 || sp->testexpr == NULL || !IsA(sp->testexpr, OpExpr))
		return false;
	op = (OpExpr *) sp->testexpr;
	if (list_length(op->args) != 2)
		return false;
	right = (Node *) lsecond(op->args);
	while (IsA(right, RelabelType))
		right = (Node *) ((RelabelType *) right)->arg;
	if (!IsA(right, Param))
		return false;
	p = (Param *) right;
	if (p->paramkind != PARAM_EXEC || p->paramid != linitial_int(sp->paramIds) ||
		(valtype = PgGpuValueType(p->paramtype)) == 0 ||
		(keytype = PgGpuSetKeyType(op->opno, exprType((Node *) linitial(op->args)),
								   exprType((Node *) lsecond(op->args)), op->inputcollid)) == 0)
		return false;
	memset(&src, 0, sizeof(src));
	src.kind = PG_GPU_SET_SUBPLAN;
	src.plan_id = sp->plan_id;
	src.valtype = valtype;
	subplan_collect(c, sp, PgGpuSetType(keytype), &src);
	set = PgGpuAddSet(c, PgGpuSetType(keytype), PgGpuSetSourceBuild(&src));
	if (set < 0 || !compile(c, (Expr *) linitial(op->args), &t))
		return false;
	*type = PG_GPU_BOOL;
	return emit(c, PG_GPU_OP_IN_SET, keytype, set, 0, 0);
}

/*
 * x LIKE / NOT LIKE a constant pattern (textlike, bpcharlike and their negations;
 * bpcharlike is textlike on the blank-padded value).  Refused: a pattern that is
 * not a constant, a database encoding other than UTF-8 (like.c's other matchers
 * count characters differently, and the pattern's markers below could be
 * characters), a nondeterministic collation (PostgreSQL raises its error), and a
 * pattern ending in a lone escape, which PostgreSQL rejects with an error when
 * its matcher reaches it.  ESCAPE 'x' arrives folded by like_escape() into a
 * pattern with the default escape.  The pattern is rewritten for like_match
 * (expr.cuh): escapes resolved, % and _ as PG_GPU_LIKE_ANY / _ONE, bytes valid
 * UTF-8 never holds.
 */
static bool
compile_like(PgGpuCompiler *c, List *args, Oid collid, bool negate, int *type)
{
	Node	   *pat;
	text	   *p;
	const uint8 *b;
	int			n,
				m = 0,
				idx,
				t;
	uint8		buf[PG_GPU_MAX_STRPOOL];

	if (list_length(args) != 2 || GetDatabaseEncoding() != PG_UTF8 ||
		!PgGpuCollationIsDeterministic(collid))
		return false;
	pat = (Node *) lsecond(args);
	while (IsA(pat, RelabelType))
		pat = (Node *) ((RelabelType *) pat)->arg;
	if (!IsA(pat, Const) || ((Const *) pat)->constisnull ||
		PgGpuValueType(((Const *) pat)->consttype) != PG_GPU_TEXT)
		return false;
	p = DatumGetTextPP(((Const *) pat)->constvalue);
	b = (const uint8 *) VARDATA_ANY(p);
	n = VARSIZE_ANY_EXHDR(p);
	for (int i = 0; i < n; i++)
	{
		uint8		ch = b[i];

		if (m >= (int) sizeof(buf))
			return false;
		if (ch == '\\')
		{
			if (++i == n)
				return false;	/* "must not end with escape character" */
			buf[m++] = b[i];
		}
		else if (ch == '%')
		{
			/* %% is %: one place to backtrack to */
			if (m == 0 || buf[m - 1] != PG_GPU_LIKE_ANY)
				buf[m++] = PG_GPU_LIKE_ANY;
		}
		else if (ch == '_')
			buf[m++] = PG_GPU_LIKE_ONE;
		else
			buf[m++] = ch;
	}
	if (!compile(c, (Expr *) linitial(args), &t) || !is_text(t) ||
		!add_bytes_const(c, buf, m, &idx))
		return false;
	*type = PG_GPU_BOOL;
	return emit(c, PG_GPU_OP_LIKE, t, idx, negate ? 1 : 0, 0);
}

/* A non-NULL int4 constant's value. */
static bool
int4_const(Node *n, int32 *v)
{
	if (!IsA(n, Const) || ((Const *) n)->constisnull || ((Const *) n)->consttype != INT4OID)
		return false;
	*v = DatumGetInt32(((Const *) n)->constvalue);
	return true;
}

/*
 * substring(x from s for l), substr(x, s[, l]) and left(x, l >= 0) with constant
 * s and l, as text_substring computes them in a UTF-8 database: characters
 * max(s, 1) .. s + l - 1; a negative length raises (refused here), an end past
 * int4 means to the end of the string.
 */
static bool
compile_substr(PgGpuCompiler *c, FuncExpr *f, int *type)
{
	int64		skip = 0,
				count = PG_GPU_SUBSTR_ALL;
	int32		start = 1,
				len = 0;
	int			nargs = list_length(f->args);
	int			t,
				idx;

	if (GetDatabaseEncoding() != PG_UTF8 || nargs < 2 || nargs > 3)
		return false;
	if (f->funcid == F_LEFT)
	{
		if (nargs != 2 || !int4_const((Node *) lsecond(f->args), &len) || len < 0)
			return false;
		count = len;
	}
	else
	{
		if (!int4_const((Node *) lsecond(f->args), &start))
			return false;
		skip = Max(start, 1) - 1;
		if (nargs == 3)
		{
			int64		end;

			if (!int4_const((Node *) lthird(f->args), &len) || len < 0)
				return false;
			end = (int64) start + len;
			if (end < 1)
				count = 0;
			else if (end <= PG_INT32_MAX)
				count = end - (skip + 1);
		}
	}
	if (!compile(c, (Expr *) linitial(f->args), &t) || t != PG_GPU_TEXT ||
		!add_const(c, Int64GetDatum((int64) (((uint64) skip << 32) | (uint64) count)), false,
				   PG_GPU_INT8, &idx))
		return false;
	*type = PG_GPU_TEXT;
	return emit(c, PG_GPU_OP_SUBSTR, PG_GPU_TEXT, idx, 0, 0);
}

bool
PgGpuIsColumnText(Expr *expr, Index relid)
{
	for (;;)
	{
		if (IsA(expr, RelabelType))
			expr = ((RelabelType *) expr)->arg;
		else if (IsA(expr, FuncExpr) && ((FuncExpr *) expr)->args != NIL &&
				 (((FuncExpr *) expr)->funcid == F_TEXT_BPCHAR ||
				  ((FuncExpr *) expr)->funcid == F_SUBSTR_TEXT_INT4_INT4 ||
				  ((FuncExpr *) expr)->funcid == F_SUBSTR_TEXT_INT4 ||
				  ((FuncExpr *) expr)->funcid == F_SUBSTRING_TEXT_INT4_INT4 ||
				  ((FuncExpr *) expr)->funcid == F_SUBSTRING_TEXT_INT4 ||
				  ((FuncExpr *) expr)->funcid == F_LEFT))
			expr = (Expr *) linitial(((FuncExpr *) expr)->args);
		else
			break;
	}
	return IsA(expr, Var) && ((Var *) expr)->varno == (int) relid &&
		((Var *) expr)->varlevelsup == 0 && ((Var *) expr)->varattno > 0;
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
static bool
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
static bool
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
static bool
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

static bool
compile(PgGpuCompiler *c, Expr *e, int *type)
{
	ListCell   *lc;

	check_stack_depth();
	foreach(lc, c->set_tests)
		if (((PgGpuSetTest *) lfirst(lc))->clause == e)
			return compile_set_test(c, (PgGpuSetTest *) lfirst(lc), type);
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
				if (op->opfuncid == F_TEXTLIKE || op->opfuncid == F_BPCHARLIKE ||
					op->opfuncid == F_TEXTNLIKE || op->opfuncid == F_BPCHARNLIKE)
					return compile_like(c, op->args, op->inputcollid,
										op->opfuncid == F_TEXTNLIKE ||
										op->opfuncid == F_BPCHARNLIKE, type);
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
					PgGpuValueType(((CaseTestExpr *) e)->typeId) != c->case_type)
					return false;
				*type = c->case_type;
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
