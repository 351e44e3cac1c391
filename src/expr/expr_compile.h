/*
 * expr_compile.h — PostgreSQL expression trees to the engine's bytecode.
 */
#ifndef PG_GPU_EXPR_COMPILE_H
#define PG_GPU_EXPR_COMPILE_H

#include "nodes/makefuncs.h"
#include "nodes/pg_list.h"
#include "nodes/value.h"

#include "pg_gpu_engine.h"

/*
 * The planner's builder of a collect task over one table's pages
 * (planner/planner.h's PgGpuCollectTask), passed in so that compiling needs no
 * planner file.
 */
typedef Const *(*PgGpuCollectTaskFn) (struct PlannerInfo *root, struct RelOptInfo *rel,
									  List *quals, Expr *key, int settype, double plan_cost,
									  double plan_rows, double *cost, Oid *relid, Expr *aux);

/*
 * Compiles programs into one task.  While compiling, OP_COL instructions name
 * attribute indexes; PgGpuFinishPrograms turns them into indexes of task->cols
 * (sorted by attribute), which it fills.
 */
typedef struct PgGpuCompiler
{
	pg_gpu_agg_task *task;
	Index		relid;			/* the scanned relation's range-table index */
	int			depth;
	int			maxdepth;
	int			nconst;			/* constants used so far */
	int			nstr;			/* bytes of task->strpool used */
	int			natt;			/* attributes referenced so far */
	int16		att[PG_GPU_MAX_COLS];
	uint8		atttype[PG_GPU_MAX_COLS];
	uint8		attscale[PG_GPU_MAX_COLS];	/* DECIMAL columns' scale */
	int			scale;			/* the DECIMAL value compile() just left: its
								 * scale, and whether every value's dscale is
								 * that scale (expr_numeric.cpp) */
	bool		dscale_fixed;
	List	   *set_sources;	/* where each of task->sets comes from (below) */
	List	   *set_tests;		/* PgGpuSetTest: clauses a key set answers */
	List	   *payload_vars;	/* PgGpuPayloadVar: other tables' columns read
								 * through a key set's payload (star joins) */
	struct PlannerInfo *root;	/* the query's, when planning (NULL: no
								 * subplan's keys collected on the GPU) */
	PgGpuCollectTaskFn collect_task;	/* with root: the planner's collect
										 * task builder (PgGpuCollectTask) */
	int			case_slot;		/* 1 + the stack slot of the simple CASE's
								 * operand that CaseTestExpr reads (0: none) */
	int			case_type;		/* ... and its value type */
	int			case_scale;		/* ... a DECIMAL operand's scale and */
	bool		case_fixed;		/* dscale fixedness (expr_control.cpp) */
	/*
	 * With allow_params (GpuAgg), a parameter an InitPlan sets is read as a
	 * constant whose value the executor writes into the task before it runs
	 * (PgGpuTableNode.params): params holds (paramid, constant index, value
	 * type, scale) for each.  A numeric one only as an operand of a
	 * comparison (compare_param, while that comparison compiles) whose other
	 * operand's scale is below PG_GPU_PARAM_SCALE.
	 */
	bool		allow_params;
	Param	   *compare_param;
	List	   *params;
	List	   *param_nodes;	/* ... and the Params themselves (the plan's
								 * custom_exprs, for PostgreSQL's bookkeeping
								 * of the parameters a node depends on) */
} PgGpuCompiler;

/*
 * The scale a numeric parameter is carried at: its value exact at 16 digits
 * (an avg's or a quotient's dscale is at least NUMERIC_MIN_SIG_DIGITS, 16)
 * times ten; else its magnitude cut to 16 digits, then a 5.  No value of 16
 * digits or fewer equals the latter, and every one orders against it as
 * against the parameter itself, which lies strictly between the same two
 * neighbours: so the comparison is exact whatever the value's digits.
 */
#define PG_GPU_PARAM_SCALE 17

/* Whether p is set by an InitPlan of root's level or one above (a constant for a scan). */
bool		PgGpuInitPlanParam(struct PlannerInfo *root, Param *p);

/*
 * Key sets (task->sets) are filled in at run time from one of these sources, each
 * a List (a node's custom_private holds them), built and read only through
 * PgGpuSetSourceBuild/Read below:
 *   ARRAY:  a Const array, the value type of its elements
 *   CHILD:  index in custom_plans, resno of the key in the child's output, value
 *           type, Integer unique (1: keys must be unique, 2: keep the child's rows
 *           too, for a GpuHashJoin that outputs them), label for EXPLAIN, the
 *           payload's value types (a star join's dimension columns), the
 *           value type of an aux column (0: none; a semi- or anti-join's
 *           inner.b <> outer.x: the child's column after the key, each key's
 *           least and greatest non-NULL b kept as the set's payload)[, a
 *           collect task (pg_gpu_engine.h) over the build table's pages, that
 *           table's OID]; with the task, the GPU collects the keys and the child
 *           runs only if it cannot
 *   DICT:   the name of a dictionary (dict.h)
 *   SUBPLAN: plan_id of an uncorrelated x IN (SELECT ...) subplan, value type[, a
 *           collect task and table OID: when the subplan is a scan of one table,
 *           as for CHILD]
 */
typedef enum PgGpuSetKind
{
	PG_GPU_SET_ARRAY = 1,
	PG_GPU_SET_CHILD,
	PG_GPU_SET_DICT,
	PG_GPU_SET_SUBPLAN
} PgGpuSetKind;

/* The places in a source's List (after the kind, each kind its own). */
typedef enum PgGpuSetSourceIndex
{
	PG_GPU_SRC_KIND = 0,		/* Integer: PgGpuSetKind */
	PG_GPU_SRC_ARRAY_CONST = 1,
	PG_GPU_SRC_ARRAY_VALTYPE,
	PG_GPU_SRC_CHILD_INDEX = 1,
	PG_GPU_SRC_CHILD_RESNO,
	PG_GPU_SRC_CHILD_VALTYPE,
	PG_GPU_SRC_CHILD_UNIQUE,
	PG_GPU_SRC_CHILD_LABEL,
	PG_GPU_SRC_CHILD_PAYLOAD,	/* IntList: payload columns' value types */
	PG_GPU_SRC_CHILD_AUX,		/* Integer: the aux column's value type, or 0 */
	PG_GPU_SRC_CHILD_TASK,		/* optional, with the next */
	PG_GPU_SRC_CHILD_RELID,
	PG_GPU_SRC_DICT_NAME = 1,
	PG_GPU_SRC_SUBPLAN_ID = 1,
	PG_GPU_SRC_SUBPLAN_VALTYPE,
	PG_GPU_SRC_SUBPLAN_TASK,	/* optional, with the next */
	PG_GPU_SRC_SUBPLAN_RELID
} PgGpuSetSourceIndex;

/* A key set's source, as its List says it (the fields of its kind). */
typedef struct PgGpuSetSource
{
	int			kind;			/* PgGpuSetKind */
	Const	   *array;			/* ARRAY */
	int			valtype;		/* ARRAY, CHILD, SUBPLAN: the keys' value type */
	int			child;			/* CHILD: index in custom_plans */
	int			resno;			/* CHILD: the key's column in the child's row */
	Integer    *unique;			/* CHILD: 1 unique keys, 2 rows kept (the
								 * planner may set it after adding the source) */
	String	   *label;			/* CHILD: for EXPLAIN */
	List	   *payload;		/* CHILD: the value types (PgGpuValueType) of
								 * the payload columns, the child's columns
								 * after resno (NIL: none; then no collect task) */
	int			aux;			/* CHILD: the value type of an aux column (the
								 * child's column after resno), whose least and
								 * greatest non-NULL values per key the set
								 * keeps as its payload; 0: none */
	const char *dict;			/* DICT */
	int			plan_id;		/* SUBPLAN */
	Const	   *task;			/* CHILD, SUBPLAN: a collect task, or NULL */
	Oid			relid;			/* ... over this table */
} PgGpuSetSource;

static inline List *
PgGpuSetSourceBuild(const PgGpuSetSource *s)
{
	List	   *l = list_make1(makeInteger(s->kind));

	switch (s->kind)
	{
		case PG_GPU_SET_ARRAY:
			return lappend(lappend(l, s->array), makeInteger(s->valtype));
		case PG_GPU_SET_DICT:
			return lappend(l, makeString(pstrdup(s->dict)));
		case PG_GPU_SET_CHILD:
			l = lappend(l, makeInteger(s->child));
			l = lappend(l, makeInteger(s->resno));
			l = lappend(l, makeInteger(s->valtype));
			l = lappend(l, s->unique);
			l = lappend(l, s->label);
			l = lappend(l, s->payload);
			l = lappend(l, makeInteger(s->aux));
			Assert(list_length(l) == PG_GPU_SRC_CHILD_TASK);
			break;
		default:
			l = lappend(l, makeInteger(s->plan_id));
			l = lappend(l, makeInteger(s->valtype));
			Assert(list_length(l) == PG_GPU_SRC_SUBPLAN_TASK);
			break;
	}
	if (s->task != NULL)
		l = lappend(lappend(l, s->task), makeInteger((int) s->relid));
	return l;
}

static inline void
PgGpuSetSourceRead(List *l, PgGpuSetSource *s)
{
	int			at = -1;

	memset(s, 0, sizeof(*s));
	s->kind = intVal(list_nth(l, PG_GPU_SRC_KIND));
	switch (s->kind)
	{
		case PG_GPU_SET_ARRAY:
			s->array = (Const *) list_nth(l, PG_GPU_SRC_ARRAY_CONST);
			s->valtype = intVal(list_nth(l, PG_GPU_SRC_ARRAY_VALTYPE));
			break;
		case PG_GPU_SET_DICT:
			s->dict = strVal(list_nth(l, PG_GPU_SRC_DICT_NAME));
			break;
		case PG_GPU_SET_CHILD:
			s->child = intVal(list_nth(l, PG_GPU_SRC_CHILD_INDEX));
			s->resno = intVal(list_nth(l, PG_GPU_SRC_CHILD_RESNO));
			s->valtype = intVal(list_nth(l, PG_GPU_SRC_CHILD_VALTYPE));
			s->unique = (Integer *) list_nth(l, PG_GPU_SRC_CHILD_UNIQUE);
			s->label = (String *) list_nth(l, PG_GPU_SRC_CHILD_LABEL);
			s->payload = (List *) list_nth(l, PG_GPU_SRC_CHILD_PAYLOAD);
			s->aux = intVal(list_nth(l, PG_GPU_SRC_CHILD_AUX));
			at = PG_GPU_SRC_CHILD_TASK;
			break;
		default:
			s->plan_id = intVal(list_nth(l, PG_GPU_SRC_SUBPLAN_ID));
			s->valtype = intVal(list_nth(l, PG_GPU_SRC_SUBPLAN_VALTYPE));
			at = PG_GPU_SRC_SUBPLAN_TASK;
			break;
	}
	if (at > 0 && list_length(l) > at)
	{
		s->task = (Const *) list_nth(l, at);
		s->relid = (Oid) intVal(list_nth(l, at + 1));
	}
}

/*
 * An equality clause answered by a key set of its other side (a join's keys);
 * with ne_probe, the equality and inner.b <> ne_probe together, answered by a
 * set that keeps each key's least and greatest b (PG_GPU_OP_SET_NE).
 */
typedef struct PgGpuSetTest
{
	Expr	   *clause;			/* the OpExpr (or the two clauses' AND), matched
								 * by address */
	Expr	   *probe;			/* its argument over the scanned table */
	int			set;
	int			keytype;		/* comparison type (PgGpuSetKeyType) */
	Expr	   *ne_probe;		/* <>'s argument over the scanned table, or NULL */
} PgGpuSetTest;

/*
 * A column of a star join's dimension (any relation but the scanned table),
 * read as payload column col of the key set set, found by the scanned table's
 * key probe (comparison type keytype).  Text columns travel as codes (the
 * ordinal of the first row with an equal value): only a GROUP BY key may read
 * them (PgGpuCompilePayloadCode), and the executor decodes them.
 */

typedef struct PgGpuPayloadVar
{
	Var		   *var;			/* the column, or NULL for ... */
	Expr	   *expr;			/* ... an expression over the dimension's
								 * columns computed where its rows are read
								 * (gpuagg_plan.cpp's dim_exprs), matched by
								 * equal() */
	Expr	   *probe;
	int			keytype;
	int			set;
	int			col;
	int			valtype;		/* PgGpuValueType of the column */
} PgGpuPayloadVar;

/* The payload column that reads Var v, or NULL. */
PgGpuPayloadVar *PgGpuFindPayloadVar(PgGpuCompiler *c, Var *v);

/* The payload column that is the expression e (not a Var), or NULL. */
PgGpuPayloadVar *PgGpuFindPayloadExpr(PgGpuCompiler *c, Expr *e);

/* A GROUP BY key that is a text payload column: its code, as an int8 program. */
bool		PgGpuCompilePayloadCode(PgGpuCompiler *c, PgGpuPayloadVar *pv, pg_gpu_expr *out);

/*
 * Add a set of the engine's key-set type settype (PgGpuSetType) and its source;
 * its index in task->sets, or -1 if the task has no room.
 */
int			PgGpuAddSet(PgGpuCompiler *c, int settype, List *source);

/*
 * Whether opno, over these argument types, is a <> whose two sides' words a
 * set's least and greatest values decide (integers with integers, dates with
 * dates, timestamps with timestamps): its comparison type, or 0.
 */
int			PgGpuSetNeType(Oid opno, Oid lefttype, Oid righttype, Oid collid);

/* The engine's key-set type (PG_GPU_INT8, _TEXT, _BPCHAR) for a comparison type. */
int			PgGpuSetType(int keytype);

/*
 * Whether opno, over these argument types and collation, is an equality a key set
 * answers exactly (integers, dates, timestamps; text types under deterministic
 * collations); its comparison type, or 0.
 */
int			PgGpuSetKeyType(Oid opno, Oid lefttype, Oid righttype, Oid collid);

/*
 * A program over probe: the number of keys of set equal to it (an inner join's
 * weight), or with ordinal 1 + the index of the first of them (NULL: none).
 */
bool		PgGpuCompileSetValue(PgGpuCompiler *c, Expr *probe, int keytype, int set,
								 bool ordinal, pg_gpu_expr *out);

void		PgGpuCompilerInit(PgGpuCompiler *c, pg_gpu_agg_task *task, Index relid);

/* pg_gpu_coltype of values of a type the kernels compute with, else 0. */
int			PgGpuValueType(Oid typid);

/*
 * Whether text under this collation sorts as bytes: C, POSIX, and glibc's C.UTF-8
 * (code point order, which UTF-8 bytes keep).
 */
bool		PgGpuCollationIsBytewise(Oid collid);

/* A GROUP BY key or equality of this text collation can compare bytes. */
bool		PgGpuCollationIsDeterministic(Oid collid);

/*
 * Whether a text expression's value always lies within one value of a column of
 * the scanned table: the column, or substrings and bpchar-to-text casts of it.
 * Keys copied into the engine's buffers (GROUP BY, collected key sets) must be,
 * since those buffers are sized by the pages read.
 */
bool		PgGpuIsColumnText(Expr *expr, Index relid);

/* Whether x LIKE pattern (args) raises no error for any x (expr_text.cpp). */
bool		PgGpuLikeCannotRaise(List *args, Oid collid);

/*
 * Whether fn is a function of LIKE or NOT LIKE over text or bpchar (the
 * operators' and the like()/notlike() forms); *negated for NOT LIKE.
 */
bool		PgGpuLikeFunction(Oid fn, bool *negated);

/* One expression; false (task unchanged in meaning) if it cannot run on the GPU. */
bool		PgGpuCompileExpr(PgGpuCompiler *c, Expr *expr, pg_gpu_expr *out);

/* A list of quals (implicit AND, evaluated as ExecQual does), or NIL. */
bool		PgGpuCompileQuals(PgGpuCompiler *c, List *quals, pg_gpu_expr *out);

/*
 * A program reading attribute attidx as the given type, which expressions do not
 * otherwise take: PG_GPU_ANY reads only its NULL-ness (count(x) over types the
 * kernels do not decode), PG_GPU_NUMERIC its bytes (GpuSort keys).
 */
bool		PgGpuCompileColumnAs(PgGpuCompiler *c, int attidx, int type, pg_gpu_expr *out);

/*
 * A fixed-width value as the engine's 64-bit word (integers and dates as int64,
 * floats as double bits, bool 0/1); false for other types.
 */
bool		PgGpuDatumWord(Datum d, int type, uint64 *bits);

/*
 * The engine's word of a value of type (a pg_gpu_coltype) as a Datum: the
 * inverse of PgGpuDatumWord; text is the address of a varlena the engine holds.
 */
Datum		PgGpuWordDatum(uint64 w, int type);

/*
 * The btree strategy (PG_GPU_CMP_*) of opno over exactly (lefttype, righttype) in
 * any operator family, or 0.
 */
int			PgGpuBtreeStrategy(Oid opno, Oid lefttype, Oid righttype);
/* a numeric Datum as v * 10^dscale (below 2^PG_GPU_DEC_BITS); false for NaN, +-Inf, too big */
bool		PgGpuNumericScaled(Datum d, __int128 *v, int *dscale);
bool		PgGpuNumericDigits(Datum d, int max_frac, __int128 *mag, int *dscale,
							   bool *inexact, bool *neg);

/*
 * For expr_numeric.cpp: compile() itself, emit() (push: the change of stack
 * depth), and the note that an attribute is read as type (DECIMAL: at scale).
 */
bool		PgGpuCompileNode(PgGpuCompiler *c, Expr *e, int *type);
bool		PgGpuEmit(PgGpuCompiler *c, int op, int type, int a, uint32 b, int push);
bool		PgGpuUseAttribute(PgGpuCompiler *c, int attidx, int type, int scale);

/*
 * numeric as DECIMAL (expr_numeric.cpp): whether e is a numeric expression or
 * comparison this compiles (else compile() goes on), and then the result.
 */
bool		PgGpuIsNumericNode(Expr *e);
/* The scale a numeric column of this typmod is read at; fixed: every value's dscale. */
int			PgGpuNumericColumnScale(int32 typmod, bool *fixed);
bool		PgGpuCompileNumeric(PgGpuCompiler *c, Expr *e, int *type);

/* A date compared with a timestamp constant (expr_datetime.cpp). */
bool		PgGpuIsDateTimestampCmp(Expr *e);
bool		PgGpuCompileDateTimestampCmp(PgGpuCompiler *c, Expr *e, int *type);

/*
 * EXTRACT / date_part of a date or timestamp with a constant field
 * (expr_datetime.cpp): numeric (a DECIMAL at the field's scale, dscale fixed)
 * or float8.
 */
bool		PgGpuIsExtract(Expr *e);
bool		PgGpuCompileExtract(PgGpuCompiler *c, Expr *e, int *type);

/*
 * A numeric GROUP BY key: a DECIMAL of fixed dscale whose scaled integer (at
 * out->scale) travels as an int8 word (expr_numeric.cpp).
 */
bool		PgGpuCompileNumericKey(PgGpuCompiler *c, Expr *e, pg_gpu_expr *out);

/* Fill task->cols and renumber column references; false if too many columns. */
bool		PgGpuFinishPrograms(PgGpuCompiler *c);

#endif							/* PG_GPU_EXPR_COMPILE_H */
