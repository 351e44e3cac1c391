/*
 * gpujoin.h — GpuHashJoin (inner joins) and GpuSemiJoin (semi- and anti-joins):
 * what their planner (gpujoin_plan.cpp) and executors (gpujoin_exec.cpp over
 * the probe table's pages, gpujoin_exec_slot.cpp over a child plan that gives
 * the probe rows) share: the custom_private layouts, built and read only
 * through the helpers below, and the scan methods.  Include after postgres.h.
 */
#ifndef PG_GPU_GPUJOIN_H
#define PG_GPU_GPUJOIN_H

#include "nodes/extensible.h"
#include "nodes/pathnodes.h"
#include "nodes/pg_list.h"
#include "nodes/primnodes.h"
#include "nodes/value.h"

#include "nodes/table_node.h"

/*
 * custom_private of a join over the probe table's pages (scanrelid > 0;
 * custom_plans: PostgreSQL's join, the build plan).  The scan tuples are the
 * probe table's own, in the order the GPU kept them; or, for a GpuHashJoin
 * whose output reads the build side too (probe_key set), put together from a
 * probe tuple and a kept build row (custom_scan_tlist).
 */
typedef enum GpuJoinPrivateIndex
{
	GPUJOIN_PRIV_TASK = 0,		/* Const bytea: pg_gpu_agg_task */
	GPUJOIN_PRIV_FILTER_TEXT,	/* String: the GPU filter, deparsed ("" if none) */
	GPUJOIN_PRIV_SETS,			/* List: the key set's source (expr_compile.h) */
	GPUJOIN_PRIV_PROBE_KEY,		/* Expr over the table, or NULL: the output
								 * reads the probe table alone */
	GPUJOIN_PRIV_FROM,			/* IntList: where each custom_scan_tlist column
								 * comes from, a table attno > 0 or -(column of
								 * the build plan's row) */
	GPUJOIN_PRIV_EQ,			/* OidList: the equality's function, collation */
	GPUJOIN_PRIV_PROBE_LEFT,	/* Integer: the probe key is its left argument */
	GPUJOIN_PRIV_COUNT,
	/* the path's list only */
	GPUJOIN_PATH_SCAN_TLIST = GPUJOIN_PRIV_COUNT,	/* with probe_key: the plan's
													 * custom_scan_tlist */
	GPUJOIN_PATH_RELID,			/* Integer: the probe table's rt index */
	GPUJOIN_PATH_COUNT
} GpuJoinPrivateIndex;

typedef struct GpuJoinPrivate
{
	Const	   *task;
	String	   *filter_text;
	List	   *sets;
	Expr	   *probe_key;
	List	   *from;
	List	   *eq;
	bool		probe_left;
	/* the path's only */
	List	   *scan_tlist;
	Index		relid;
} GpuJoinPrivate;

static inline List *
GpuJoinPrivateBuild(const GpuJoinPrivate *p, bool path)
{
	List	   *l = NIL;

	l = lappend(l, p->task);
	l = lappend(l, p->filter_text);
	l = lappend(l, p->sets);
	l = lappend(l, p->probe_key);
	l = lappend(l, p->from);
	l = lappend(l, p->eq);
	l = lappend(l, makeInteger(p->probe_left ? 1 : 0));
	Assert(list_length(l) == GPUJOIN_PRIV_COUNT);
	if (!path)
		return l;
	l = lappend(l, p->scan_tlist);
	l = lappend(l, makeInteger((int) p->relid));
	Assert(list_length(l) == GPUJOIN_PATH_COUNT);
	return l;
}

static inline void
GpuJoinPrivateRead(List *l, GpuJoinPrivate *p)
{
	memset(p, 0, sizeof(*p));
	p->task = (Const *) list_nth(l, GPUJOIN_PRIV_TASK);
	p->filter_text = (String *) list_nth(l, GPUJOIN_PRIV_FILTER_TEXT);
	p->sets = (List *) list_nth(l, GPUJOIN_PRIV_SETS);
	p->probe_key = (Expr *) list_nth(l, GPUJOIN_PRIV_PROBE_KEY);
	p->from = (List *) list_nth(l, GPUJOIN_PRIV_FROM);
	p->eq = (List *) list_nth(l, GPUJOIN_PRIV_EQ);
	p->probe_left = intVal(list_nth(l, GPUJOIN_PRIV_PROBE_LEFT)) != 0;
	if (list_length(l) < GPUJOIN_PATH_COUNT)
		return;
	p->scan_tlist = (List *) list_nth(l, GPUJOIN_PATH_SCAN_TLIST);
	p->relid = (Index) intVal(list_nth(l, GPUJOIN_PATH_RELID));
}

/*
 * custom_private of a join over a child plan that gives the probe rows
 * (scanrelid 0; custom_plans: PostgreSQL's join, the build plan, the probe
 * plan).  The scan tuple is the probe plan's row, then an inner join's build
 * row after its key (custom_scan_tlist); custom_exprs holds the probe key,
 * over the scan tuple's probe columns, and a semi- or anti-join's x of
 * inner.b <> x after it.  The path's list holds the probe key where the
 * plan's holds the probe row's width, and x (or NULL) at its end.
 */
typedef enum GpuJoinSlotPrivateIndex
{
	GPUJOIN_SLOT_TASK = 0,		/* Const bytea: pg_gpu_agg_task (the set's type) */
	GPUJOIN_SLOT_SETS,			/* List: the key set's source (expr_compile.h) */
	GPUJOIN_SLOT_JOINTYPE,		/* Integer: JOIN_INNER, JOIN_SEMI or JOIN_ANTI */
	GPUJOIN_SLOT_VALTYPE,		/* Integer: the probe key's pg_gpu_coltype */
	GPUJOIN_SLOT_NPROBE,		/* plan: Integer, the probe row's columns */
	GPUJOIN_SLOT_NE_VALTYPE,	/* Integer: x's pg_gpu_coltype (0: no <>) */
	GPUJOIN_SLOT_COUNT,
	GPUJOIN_SLOT_PATH_PROBE_KEY = GPUJOIN_SLOT_NPROBE,	/* path: the probe key */
	GPUJOIN_SLOT_PATH_NE_PROBE = GPUJOIN_SLOT_COUNT,	/* path: x, or NULL */
	GPUJOIN_SLOT_PATH_COUNT
} GpuJoinSlotPrivateIndex;

typedef struct GpuJoinSlotPrivate
{
	Const	   *task;
	List	   *sets;
	int			jointype;
	int			valtype;
	int			nprobe;			/* the plan's */
	int			ne_valtype;
	Expr	   *probe_key;		/* the path's */
	Expr	   *ne_probe;		/* the path's */
} GpuJoinSlotPrivate;

static inline List *
GpuJoinSlotPrivateBuild(const GpuJoinSlotPrivate *p, bool path)
{
	List	   *l = list_make4(p->task, p->sets, makeInteger(p->jointype),
							   makeInteger(p->valtype));

	l = lappend(l, path ? (void *) p->probe_key : (void *) makeInteger(p->nprobe));
	l = lappend(l, makeInteger(p->ne_valtype));
	Assert(list_length(l) == GPUJOIN_SLOT_COUNT);
	if (path)
		l = lappend(l, p->ne_probe);
	return l;
}

static inline void
GpuJoinSlotPrivateRead(List *l, GpuJoinSlotPrivate *p, bool path)
{
	memset(p, 0, sizeof(*p));
	p->task = (Const *) list_nth(l, GPUJOIN_SLOT_TASK);
	p->sets = (List *) list_nth(l, GPUJOIN_SLOT_SETS);
	p->jointype = intVal(list_nth(l, GPUJOIN_SLOT_JOINTYPE));
	p->valtype = intVal(list_nth(l, GPUJOIN_SLOT_VALTYPE));
	p->ne_valtype = intVal(list_nth(l, GPUJOIN_SLOT_NE_VALTYPE));
	if (path)
	{
		p->probe_key = (Expr *) list_nth(l, GPUJOIN_SLOT_PATH_PROBE_KEY);
		p->ne_probe = (Expr *) list_nth(l, GPUJOIN_SLOT_PATH_NE_PROBE);
	}
	else
		p->nprobe = intVal(list_nth(l, GPUJOIN_SLOT_NPROBE));
}

/* The executor's state of a join over the probe table (gpujoin_exec.cpp). */
typedef struct GpuJoinState
{
	PgGpuTableNode t;			/* the probe table's scan, its rows batched */

	/* a GpuHashJoin reading the build side (probe_key in custom_private) */
	bool		rows_out;
	TupleTableSlot *probe_slot; /* the probe table's tuple (t.htup) */
	TupleTableSlot *build_slot; /* a kept build row */
	ExprState  *probe_key;		/* over probe_slot */
	FmgrInfo	eq;				/* the join's equality */
	Oid			eq_coll;
	bool		probe_left;		/* the probe key is its left argument */
	int			nfrom;			/* scan tuple columns: table attno > 0, or */
	int		   *from;			/* -(column of the build row) */
	int			max_attno;
	int64	   *heads;			/* each chain's first build row, in order */
	int64		nheads;
	int64	   *next;			/* the next build row with an equal key, or -1 */
	int64		head_pos;		/* the current probe row's chain is heads[head_pos] on */
	int64		chain;			/* its next build row to pair (-1: none left) */
} GpuJoinState;

/* The executor's state of a join over a child plan (gpujoin_exec_slot.cpp). */
typedef struct GpuJoinSlotState
{
	CustomScanState css;

	/* from the plan */
	pg_gpu_agg_task task;		/* the key set's type */
	List	   *set_sources;
	PgGpuNode	node;
	JoinType	jointype;
	int			valtype;		/* pg_gpu_coltype of the probe key's value */
	int			ne_valtype;		/* ... of x's, of inner.b <> x (0: none) */
	ExprState  *ne_probe;		/* x, over the probe row */
	int			nprobe;			/* scan tuple columns from the probe row ... */
	int			nbuild;			/* ... then from a build row, after its key */
	ExprState  *probe_key;		/* over the probe row */

	PgGpuSets	sets;
	int64	   *next;			/* inner: the next kept build row of an equal key */

	/* the current batch */
	MemoryContext batch_cxt;
	TupleTableSlot *probe_slot; /* a kept probe row */
	TupleTableSlot *build_slot; /* a kept build row */
	MinimalTuple *rows;
	int64	   *ord;			/* each row's ordinal, kNoMatch or kNullKey */
	int64		nrows;
	int64		pos;			/* the next row to look at */
	int64		chain;			/* inner: the next build row to pair with row pos - 1 */
	bool		input_done;		/* the probe plan gave its last row */
	bool		empty_set;		/* the build side has no key */

	/* execution */
	bool		started;
	bool		finished;		/* every row went up */
	bool		gpu_ran;
	bool		fallback;
	bool		emitted;		/* a row went up: no falling back after this */
	PgGpuFallback fb_reason;
	char		fb_msg[256];
	MemoryContextCallback cleanup;

	/* instrumentation */
	int64		rows_probed;
	int64		batches;
	uint64		bytes_h2d;
	instr_time	t_input;		/* pulling rows, keeping them, their keys */
	instr_time	t_probe;		/* the GPU's probes, round trip */
} GpuJoinSlotState;

extern CustomScanMethods gpuhashjoin_scan_methods;
extern CustomScanMethods gpusemijoin_scan_methods;

/* gpujoin_exec_slot.cpp: the state of a join (node) over a child plan */
Node	   *PgGpuCreateJoinSlotState(CustomScan *cscan, PgGpuNode node);

/* planner: the paths of a join rel (planner/hooks.cpp calls it) */
void		PgGpuJoinPaths(PlannerInfo *root, RelOptInfo *joinrel, RelOptInfo *outerrel,
						   RelOptInfo *innerrel);

/*
 * PostgreSQL's own plan for a GPU node's fallback: path, or where path is a
 * GpuHashJoin or GpuSemiJoin, the join it falls back to.
 */
Path	   *PgGpuJoinCpuPath(PlannerInfo *root, Path *path);

/* Whether path is a GpuHashJoin or GpuSemiJoin path (rescan.cpp). */
bool		PgGpuIsJoinPath(Path *path);

/* executor: register the scan methods */
void		PgGpuJoinExecInit(void);

#endif							/* PG_GPU_GPUJOIN_H */
