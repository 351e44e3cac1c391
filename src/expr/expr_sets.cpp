/*
 * expr_sets.cpp — key sets in expressions (expr_compile.cpp's compiler): a
 * long IN list or an uncorrelated x IN (SELECT ...) made a set probed per row,
 * a join's key equality (PgGpuSetTest), a star join's dimension columns read
 * through a set's payload, pg_gpu_dict_contains/_lookup on a named
 * dictionary, and the programs that give a probe's count or ordinal.
 *
 * Compiling only names each set and where its keys will come from
 * (PgGpuSetSource, in the compiler's set_sources): the sets are filled at run
 * time (nodes/keysets.cpp), the task's bytecode probes them.
 */
extern "C" {
#include "postgres.h"

#include "access/transam.h"
#include "catalog/pg_language.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "nodes/nodeFuncs.h"
#include "nodes/pathnodes.h"
#include "nodes/plannodes.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "pg_gpu.h"
#include "expr/expr_compile.h"
}

#include "expr/expr_compile_int.h"

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
PgGpuSetNeType(Oid opno, Oid lefttype, Oid righttype, Oid collid)
{
	int			cmptype = 0;

	if (comparison_of(opno, lefttype, righttype, collid, &cmptype) != PG_GPU_CMP_NE ||
		!(cmptype == PG_GPU_INT8 || cmptype == PG_GPU_DATE || cmptype == PG_GPU_TIMESTAMP))
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

		if (pv->var != NULL && pv->var->varno == v->varno && pv->var->varattno == v->varattno)
			return pv;
	}
	return NULL;
}

PgGpuPayloadVar *
PgGpuFindPayloadExpr(PgGpuCompiler *c, Expr *e)
{
	ListCell   *lc;

	foreach(lc, c->payload_vars)
	{
		PgGpuPayloadVar *pv = (PgGpuPayloadVar *) lfirst(lc);

		if (pv->expr != NULL && equal(pv->expr, e))
			return pv;
	}
	return NULL;
}

/* The probe's key, then the payload word of the row it finds. */
bool
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

/*
 * A join's key equality: the probe side, then a match in the other side's set;
 * with inner.b <> x, the key and x, then whether the key has a b other than x
 * (never NULL: docs/SEMANTICS.md 29).
 */
bool
compile_set_test(PgGpuCompiler *c, PgGpuSetTest *st, int *type)
{
	int			t;

	if (!compile(c, st->probe, &t))
		return false;
	*type = PG_GPU_BOOL;
	if (st->ne_probe == NULL)
		return emit(c, PG_GPU_OP_IN_SET, st->keytype, st->set, 1, 0);
	return compile(c, st->ne_probe, &t) &&
		emit(c, PG_GPU_OP_SET_NE, st->keytype, st->set, 0, -1);
}

bool
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

/* Which dictionary function funcid is: this library's, by its C symbol. */
PgGpuDictFn
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
bool
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
						   plan->total_cost, plan->plan_rows, &cost, &relid, NULL);
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
bool
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
