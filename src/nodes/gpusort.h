/*
 * gpusort.h — GpuSort: what its planner (gpusort_plan.cpp) and executors
 * (gpusort_exec.cpp over a table's pages, gpusort_exec_slot.cpp over a child
 * plan) share: the custom_private layouts, built and read only through the
 * helpers below, and the scan methods.  Include after postgres.h.
 */
#ifndef PG_GPU_GPUSORT_H
#define PG_GPU_GPUSORT_H

#include "nodes/extensible.h"
#include "nodes/pathnodes.h"
#include "nodes/pg_list.h"
#include "nodes/primnodes.h"
#include "nodes/value.h"
#include "utils/tuplesort.h"

#include "nodes/gpusort_scroll.h"
#include "nodes/table_node.h"

/*
 * custom_private of a GpuSort over a table (scanrelid > 0): the scan tuples are
 * the table's own, in the order the GPU sorted them.  The WHERE quals live only
 * in the task; their text is kept for EXPLAIN.
 */
typedef enum GpuSortPrivateIndex
{
	GPUSORT_PRIV_TASK = 0,		/* Const bytea: pg_gpu_agg_task (filter, keys) */
	GPUSORT_PRIV_FILTER_TEXT,	/* String: the GPU filter, deparsed ("" if none) */
	GPUSORT_PRIV_SETS,			/* List: the key sets' sources (expr_compile.h):
								 * a set join's build side is the second of
								 * custom_plans */
	GPUSORT_PRIV_COUNT,
	/* the path's list only */
	GPUSORT_PATH_RELID = GPUSORT_PRIV_COUNT,	/* Integer: the table's rt index */
	GPUSORT_PATH_COUNT
} GpuSortPrivateIndex;

typedef struct GpuSortPrivate
{
	Const	   *task;
	String	   *filter_text;
	List	   *sets;
	Index		relid;			/* the path's only */
} GpuSortPrivate;

static inline List *
GpuSortPrivateBuild(const GpuSortPrivate *p, bool path)
{
	List	   *l = list_make3(p->task, p->filter_text, p->sets);

	Assert(list_length(l) == GPUSORT_PRIV_COUNT);
	if (path)
		l = lappend(l, makeInteger((int) p->relid));
	return l;
}

static inline void
GpuSortPrivateRead(List *l, GpuSortPrivate *p)
{
	memset(p, 0, sizeof(*p));
	p->task = (Const *) list_nth(l, GPUSORT_PRIV_TASK);
	p->filter_text = (String *) list_nth(l, GPUSORT_PRIV_FILTER_TEXT);
	p->sets = (List *) list_nth(l, GPUSORT_PRIV_SETS);
	if (list_length(l) >= GPUSORT_PATH_COUNT)
		p->relid = (Index) intVal(list_nth(l, GPUSORT_PATH_RELID));
}

/*
 * custom_private of a GpuSort over a child plan (scanrelid 0, the slot path): the
 * scan tuple is the child's row (custom_scan_tlist is the child's targetlist);
 * each key is a column of it, with what tuplesort needs to sort it instead.
 * The path's list is the plan's.
 */
typedef enum GpuSortSlotPrivateIndex
{
	GPUSORT_SLOT_TASK = 0,		/* Const bytea: pg_gpu_agg_task (key types, order) */
	GPUSORT_SLOT_ATTNOS,		/* IntList: the keys' columns, from 1 */
	GPUSORT_SLOT_SORTOPS,		/* OidList */
	GPUSORT_SLOT_COLLATIONS,	/* OidList */
	GPUSORT_SLOT_NULLS_FIRST,	/* IntList */
	GPUSORT_SLOT_COUNT
} GpuSortSlotPrivateIndex;

typedef struct GpuSortSlotPrivate
{
	Const	   *task;
	List	   *attnos;
	List	   *sortops;
	List	   *collations;
	List	   *nulls_first;
} GpuSortSlotPrivate;

static inline List *
GpuSortSlotPrivateBuild(const GpuSortSlotPrivate *p)
{
	List	   *l = list_make5(p->task, p->attnos, p->sortops, p->collations, p->nulls_first);

	Assert(list_length(l) == GPUSORT_SLOT_COUNT);
	return l;
}

static inline void
GpuSortSlotPrivateRead(List *l, GpuSortSlotPrivate *p)
{
	p->task = (Const *) list_nth(l, GPUSORT_SLOT_TASK);
	p->attnos = (List *) list_nth(l, GPUSORT_SLOT_ATTNOS);
	p->sortops = (List *) list_nth(l, GPUSORT_SLOT_SORTOPS);
	p->collations = (List *) list_nth(l, GPUSORT_SLOT_COLLATIONS);
	p->nulls_first = (List *) list_nth(l, GPUSORT_SLOT_NULLS_FIRST);
}

/* The executor's state of a GpuSort over a table (gpusort_exec.cpp). */
typedef struct GpuSortState
{
	PgGpuTableNode t;			/* the scan; its rows come back batched */
	PgGpuScroll scroll;			/* rows kept for a scrollable cursor */
} GpuSortState;

/* The executor's state of a GpuSort over a child plan (gpusort_exec_slot.cpp). */
typedef struct GpuSortSlotState
{
	CustomScanState css;

	/* from the plan */
	pg_gpu_agg_task task;
	int			nkeys;
	AttrNumber	attno[PG_GPU_MAX_KEYS];
	Oid			sortop[PG_GPU_MAX_KEYS];
	Oid			coll[PG_GPU_MAX_KEYS];
	bool		nulls_first[PG_GPU_MAX_KEYS];

	/* the rows kept for the GPU sort */
	MemoryContext rows_cxt;
	MemoryContext key_cxt;		/* a row's detoasted key values */
	MinimalTuple *rows;
	MinimalTuple *sorted;		/* rows in order (the first norder) */
	int64		nrows;
	int64		cap;
	uint64		row_bytes;
	pg_gpu_keysort *ks;
	bool		remote;			/* the GPU service sorts; ks only encodes */
	uint64_t	norder;
	uint64_t	pos;
	uint64_t	rows_sorted;	/* for EXPLAIN */

	/* the fallback */
	Tuplesortstate *ts;

	/* execution */
	bool		loaded;
	PgGpuScroll scroll;			/* rows kept for a scrollable cursor */
	bool		gpu_ran;
	bool		fallback;
	PgGpuFallback fb_reason;
	char		fb_msg[256];
	MemoryContextCallback cleanup;

	/* instrumentation */
	double		gpu_ms;
	uint64_t	bytes_h2d;
	instr_time	t_input;		/* pulling rows, keeping them, encoding keys */
	instr_time	t_sort;			/* the engine's sort, round trip */
} GpuSortSlotState;

extern CustomScanMethods gpusort_scan_methods;

/* gpusort_exec_slot.cpp: the state of a GpuSort over a child plan */
Node	   *PgGpuCreateSortSlotState(CustomScan *cscan);

/* planner: the paths of UPPERREL_ORDERED (planner/hooks.cpp calls it) */
void		PgGpuSortPaths(PlannerInfo *root, RelOptInfo *input_rel, RelOptInfo *output_rel);

/* Whether path is a GpuSort path, over a table or a child plan (rescan.cpp). */
bool		PgGpuIsSortPath(Path *path);

/* executor: register the scan methods */
void		PgGpuSortExecInit(void);

#endif							/* PG_GPU_GPUSORT_H */
