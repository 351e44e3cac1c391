/*
 * gpuagg.h — GpuAgg: what its planner (gpuagg_plan.cpp) and executor
 * (gpuagg_exec.cpp) share: the custom_private layout, built and read only
 * through the helpers below, and the scan methods.  Include after postgres.h.
 */
#ifndef PG_GPU_GPUAGG_H
#define PG_GPU_GPUAGG_H

#include "nodes/extensible.h"
#include "nodes/pathnodes.h"
#include "nodes/pg_list.h"
#include "nodes/primnodes.h"
#include "nodes/value.h"

#include "nodes/table_node.h"

/*
 * custom_private of a GpuAgg CustomScan, indexed by this enum.  custom_scan_tlist
 * holds the grouping keys (task.nkeys of them) and then one partial Aggref per
 * output column; output columns carry the state kind, the argument's
 * pg_gpu_coltype and the index of its engine input.  The task (programs, columns,
 * inputs, keys) is a bytea Const; the executor fills in the table's layout.
 * The WHERE quals live only in the task; their text is kept for EXPLAIN.
 *
 * Direct mode (grouped): custom_scan_tlist holds the keys and the aggregates'
 * final values, which GpuAgg computes with PostgreSQL's final functions (an
 * internal state first made from its serialized form by the aggregate's
 * deserialize function, as a Finalize Aggregate does); the plan's qual is HAVING
 * and its targetlist the query's output.
 * count(DISTINCT x) is always direct (grouped or not): the task groups by the
 * keys and x, and GpuAgg folds the groups of equal keys (gpuagg_fold.cpp).
 */
typedef enum GpuAggPrivateIndex
{
	GPUAGG_PRIV_OUT_STATE = 0,	/* IntList */
	GPUAGG_PRIV_OUT_COLTYPE,	/* IntList */
	GPUAGG_PRIV_OUT_COL,		/* IntList */
	GPUAGG_PRIV_TASK,			/* Const bytea: pg_gpu_agg_task */
	GPUAGG_PRIV_FILTER_TEXT,	/* String: the GPU filter, deparsed ("" if none) */
	GPUAGG_PRIV_FINALFN,		/* OidList: direct mode, each aggregate's final
								 * function (InvalidOid: none); NIL: partial mode */
	GPUAGG_PRIV_SETS,			/* List: where each key set of the task comes from
								 * (expr_compile.h); a join's build side is the
								 * second of custom_plans */
	GPUAGG_PRIV_KEY_CODES,		/* IntList: per grouping key, -1 or the text
								 * payload it codes (set * PG_GPU_MAX_PAYLOAD
								 * + column; a star join's dimension column) */
	GPUAGG_PRIV_DISTINCT_TEXT,	/* String: count(DISTINCT x)'s x, deparsed ("" if
								 * none); x is then the task's last key, which
								 * GpuAgg folds away (gpuagg_fold.cpp) */
	GPUAGG_PRIV_DESERIALFN,		/* OidList: direct mode, each aggregate's
								 * deserialize function where its state is
								 * internal (InvalidOid: none) */
	GPUAGG_PRIV_JOIN_FILTER_TEXT,	/* String: a star join's clauses between
									 * dimensions, deparsed ("" if none) */
	GPUAGG_PRIV_PARAMS,			/* IntList: InitPlan parameters read as
								 * constants (PgGpuCompiler.params) */
	GPUAGG_PRIV_COUNT,
	/* the path's list only; the plan moves them where they belong */
	GPUAGG_PATH_SCAN_TLIST = GPUAGG_PRIV_COUNT,	/* direct mode: custom_scan_tlist */
	GPUAGG_PATH_HAVING,			/* direct mode: the plan's qual */
	GPUAGG_PATH_RELID,			/* Integer: the scanned table's range-table index */
	GPUAGG_PATH_PARAM_EXPRS,	/* the InitPlan parameters read (custom_exprs) */
	GPUAGG_PATH_COUNT
} GpuAggPrivateIndex;

typedef struct GpuAggPrivate
{
	List	   *out_state;
	List	   *out_coltype;
	List	   *out_col;
	Const	   *task;
	String	   *filter_text;
	List	   *finalfns;
	List	   *sets;
	List	   *key_codes;
	String	   *distinct_text;
	List	   *deserialfns;
	String	   *join_filter_text;
	List	   *params;
	/* the path's only */
	List	   *scan_tlist;
	Node	   *having;
	Index		relid;
	List	   *param_exprs;
} GpuAggPrivate;

/* The plan's custom_private (path false) or the path's (path true). */
static inline List *
GpuAggPrivateBuild(const GpuAggPrivate *p, bool path)
{
	List	   *l = NIL;

	l = lappend(l, p->out_state);
	l = lappend(l, p->out_coltype);
	l = lappend(l, p->out_col);
	l = lappend(l, p->task);
	l = lappend(l, p->filter_text);
	l = lappend(l, p->finalfns);
	l = lappend(l, p->sets);
	l = lappend(l, p->key_codes);
	l = lappend(l, p->distinct_text);
	l = lappend(l, p->deserialfns);
	l = lappend(l, p->join_filter_text);
	l = lappend(l, p->params);
	Assert(list_length(l) == GPUAGG_PRIV_COUNT);
	if (!path)
		return l;
	l = lappend(l, p->scan_tlist);
	l = lappend(l, p->having);
	l = lappend(l, makeInteger((int) p->relid));
	l = lappend(l, p->param_exprs);
	Assert(list_length(l) == GPUAGG_PATH_COUNT);
	return l;
}

static inline void
GpuAggPrivateRead(List *l, GpuAggPrivate *p)
{
	memset(p, 0, sizeof(*p));
	p->out_state = (List *) list_nth(l, GPUAGG_PRIV_OUT_STATE);
	p->out_coltype = (List *) list_nth(l, GPUAGG_PRIV_OUT_COLTYPE);
	p->out_col = (List *) list_nth(l, GPUAGG_PRIV_OUT_COL);
	p->task = (Const *) list_nth(l, GPUAGG_PRIV_TASK);
	p->filter_text = (String *) list_nth(l, GPUAGG_PRIV_FILTER_TEXT);
	p->finalfns = (List *) list_nth(l, GPUAGG_PRIV_FINALFN);
	p->sets = (List *) list_nth(l, GPUAGG_PRIV_SETS);
	p->key_codes = (List *) list_nth(l, GPUAGG_PRIV_KEY_CODES);
	p->distinct_text = (String *) list_nth(l, GPUAGG_PRIV_DISTINCT_TEXT);
	p->deserialfns = (List *) list_nth(l, GPUAGG_PRIV_DESERIALFN);
	p->join_filter_text = (String *) list_nth(l, GPUAGG_PRIV_JOIN_FILTER_TEXT);
	p->params = (List *) list_nth(l, GPUAGG_PRIV_PARAMS);
	if (list_length(l) < GPUAGG_PATH_COUNT)
		return;
	p->scan_tlist = (List *) list_nth(l, GPUAGG_PATH_SCAN_TLIST);
	p->having = (Node *) list_nth(l, GPUAGG_PATH_HAVING);
	p->relid = (Index) intVal(list_nth(l, GPUAGG_PATH_RELID));
	p->param_exprs = (List *) list_nth(l, GPUAGG_PATH_PARAM_EXPRS);
}

/* The executor's state of a GpuAgg (gpuagg_exec.cpp). */
typedef struct GpuAggState
{
	PgGpuTableNode t;			/* the scan of the table; t.nkeys: grouping keys */

	/* from the plan */
	int			nout;
	int		   *out_state;
	int		   *out_coltype;
	int		   *out_col;
	Oid			key_typid[PG_GPU_MAX_KEYS];
	int			key_code[PG_GPU_MAX_KEYS];	/* GPUAGG_PRIV_KEY_CODES */
	bool		direct;			/* emit final values (see above) */
	FmgrInfo   *finalfn;		/* per output column; fn_oid 0: none */
	FmgrInfo   *deserialfn;		/* per output column; fn_oid 0: none */
	Node	   *aggcxt;			/* an AggState that the deserialize and final
								 * functions' AggCheckCallContext accepts */
	MemoryContext row_cxt;		/* an output row's partial states */

	/* count(DISTINCT x): the task's last key is x (GPUAGG_PRIV_DISTINCT_TEXT) */
	bool		distinct;
	int			nkeys_out;		/* grouping keys in the scan tuple */
	int64		fold_distinct;	/* the emitted row's count(DISTINCT x) */
	int64		seeded_empty;	/* seeded groups emitted without rows */

	/* execution */
	int64		next_group;		/* grouped: next group to emit */
	/* the fold (gpuagg_fold.cpp): every group's record, equal keys together */
	MemoryContext fold_cxt;
	char	   *fold_recs;		/* fold_n records of fold_size bytes */
	struct GpuAggFoldEntry *fold_ix;	/* the records in order: by their keys' hash */
	int64		fold_run_end;	/* the run of equal hashes being folded */
	bool		fold_run_mixed; /* ... holds more than one group (a collision) */
	int64		fold_n;
	int64		fold_pos;
	size_t		fold_size;
	bool		fold_ready;
	bool		fold_emitted;	/* ungrouped: the one row went out */
} GpuAggState;

extern CustomScanMethods gpuagg_scan_methods;

/* planner: the paths of UPPERREL_GROUP_AGG (planner/hooks.cpp calls it) */
void		PgGpuAggPaths(PlannerInfo *root, RelOptInfo *input_rel, RelOptInfo *output_rel,
						  GroupPathExtraData *extra);

/* Whether path is a GpuAgg path (rescan.cpp). */
bool		PgGpuIsAggPath(Path *path);

/* executor: the scan tuple of one result row (gpuagg_exec.cpp) */
TupleTableSlot *PgGpuAggEmitRow(GpuAggState *s, const uint64 *keys, uint32 nullmask,
								int64 rows, const pg_gpu_col_state *cols);

/* count(DISTINCT x): the next folded row, projected (NULL after the last) */
TupleTableSlot *PgGpuAggFoldNext(GpuAggState *s);

/* count(DISTINCT x): forget the fold (rescan, end) */
void		PgGpuAggFoldReset(GpuAggState *s);
TupleTableSlot *PgGpuAggNextChildRow(GpuAggState *s);

/* executor: register the scan methods */
void		PgGpuAggExecInit(void);

#endif							/* PG_GPU_GPUAGG_H */
