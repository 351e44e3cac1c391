/*
 * expr_compile.h — PostgreSQL expression trees to the engine's bytecode.
 */
#ifndef PG_GPU_EXPR_COMPILE_H
#define PG_GPU_EXPR_COMPILE_H

#include "pg_gpu_engine.h"

/*
 * The planner's builder of a collect task over one table's pages
 * (planner/setjoin.h's PgGpuCollectTask), passed in so that compiling needs no
 * planner file.
 */
typedef Const *(*PgGpuCollectTaskFn) (struct PlannerInfo *root, struct RelOptInfo *rel,
									  List *quals, Expr *key, int settype, double plan_cost,
									  double plan_rows, double *cost, Oid *relid);

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
	List	   *set_sources;	/* where each of task->sets comes from (below) */
	List	   *set_tests;		/* PgGpuSetTest: clauses a key set answers */
	struct PlannerInfo *root;	/* the query's, when planning (NULL: no
								 * subplan's keys collected on the GPU) */
	PgGpuCollectTaskFn collect_task;	/* with root: the planner's collect
										 * task builder (PgGpuCollectTask) */
} PgGpuCompiler;

/*
 * Key sets (task->sets) are filled in at run time from one of these sources, each
 * a List whose first member is an Integer kind:
 *   ARRAY:  (kind, Const array, Integer value type of its elements)
 *   CHILD:  (kind, Integer index in custom_plans, Integer resno of the key in the
 *            child's output, Integer value type, Integer 1: keys must be unique (2: keep
 *            the child's rows too, for a GpuHashJoin that outputs them),
 *            String for EXPLAIN[, Const bytea: a collect task (pg_gpu_engine.h)
 *            over the build table's pages, Integer: that table's OID]); with the
 *            task, the GPU collects the keys and the child runs only if it cannot
 *   DICT:   (kind, String name of a dictionary, dict.h)
 *   SUBPLAN: (kind, Integer plan_id of an uncorrelated x IN (SELECT ...)
 *            subplan, Integer value type[, Const collect task, Integer table
 *            OID: when the subplan is a scan of one table, as for CHILD])
 */
#define PG_GPU_CHILD_TASK 6		/* the collect task's place in a CHILD source */
#define PG_GPU_SUBPLAN_TASK 3	/* ... in a SUBPLAN source */

typedef enum PgGpuSetKind
{
	PG_GPU_SET_ARRAY = 1,
	PG_GPU_SET_CHILD,
	PG_GPU_SET_DICT,
	PG_GPU_SET_SUBPLAN
} PgGpuSetKind;

/* An equality clause answered by a key set of its other side (a join's keys). */
typedef struct PgGpuSetTest
{
	Expr	   *clause;			/* the OpExpr, matched by address */
	Expr	   *probe;			/* its argument over the scanned table */
	int			set;
	int			keytype;		/* comparison type (PgGpuSetKeyType) */
} PgGpuSetTest;

/*
 * Add a set of the engine's key-set type settype (PgGpuSetType) and its source;
 * its index in task->sets, or -1 if the task has no room.
 */
int			PgGpuAddSet(PgGpuCompiler *c, int settype, List *source);

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

/* Fill task->cols and renumber column references; false if too many columns. */
bool		PgGpuFinishPrograms(PgGpuCompiler *c);

#endif							/* PG_GPU_EXPR_COMPILE_H */
