/*
 * gpusort_exec_slot.cpp — GpuSort over any child plan (the slot path).
 *
 * When the rows to sort do not come straight from one table's pages (a join, a
 * subquery, a partitioned table), GpuSort pulls them from its child plan one slot
 * at a time, as PostgreSQL's Sort does: it keeps each row as a minimal tuple and
 * hands the row's key values to the engine, which encodes them into sort words on
 * the CPU (the same encoding the kernels use, sort.cuh).  At the end of the input
 * the words go to the GPU, are radix-sorted there, and the order comes back; the
 * rows are emitted in that order.  Per-row work is PostgreSQL's own (the child's
 * slots), so this path is capped at the executor's per-tuple speed (docs/DESIGN.md);
 * what moves to the GPU is the O(n log n) comparison sort.
 *
 * Fallback is tuplesort over the same rows: with no GPU, keys the GPU's prefixes
 * cannot order, a GPU error, or more rows than pg_gpu.slot_sort_memory allows,
 * the rows kept so far and the rest of the input go to tuplesort_begin_heap with
 * the keys' own sort operators and collations.
 */
extern "C" {
#include "postgres.h"

#include "commands/explain.h"
#include "executor/executor.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "nodes/extensible.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/memutils.h"
#include "utils/ruleutils.h"
#include "utils/tuplesort.h"

#include "pg_gpu.h"
#include "pg_gpu_engine.h"
#include "nodes/gpusort.h"
#include "expr/expr_compile.h"
}

#include "nodes/gpusort_scroll.h"
#include "service/service.h"
#include "guard.h"

/* rows ahead whose tuples emission prefetches */
static const uint64 kPrefetch = 8;

static void BeginGpuSortSlot(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *ExecGpuSortSlot(CustomScanState *node);
static void EndGpuSortSlot(CustomScanState *node);
static void ReScanGpuSortSlot(CustomScanState *node);
static void ExplainGpuSortSlot(CustomScanState *node, List *ancestors, ExplainState *es);

/* No mark/restore, no backward scan: PostgreSQL adds a Material node if needed. */
static const CustomExecMethods gpusort_slot_exec_methods = {
	"GpuSort",
	BeginGpuSortSlot,
	ExecGpuSortSlot,
	EndGpuSortSlot,
	ReScanGpuSortSlot,
	NULL, NULL,
	NULL, NULL, NULL, NULL,
	NULL,
	ExplainGpuSortSlot
};

Node *
PgGpuCreateSortSlotState(CustomScan *cscan)
{
	GpuSortSlotState *s = (GpuSortSlotState *) palloc0(sizeof(GpuSortSlotState));

	NodeSetTag(s, T_CustomScanState);
	s->css.methods = &gpusort_slot_exec_methods;
	return (Node *) s;
}

static PlanState *
child_of(GpuSortSlotState *s)
{
	return (PlanState *) linitial(s->css.custom_ps);
}

/* The engine's key sort released; safe to call more than once. */
static void
end_keysort(GpuSortSlotState *s)
{
	if (s->ks)
	{
		pg_gpu_keysort *ks = s->ks;

		s->ks = NULL;
		pg_gpu_keysort_end(ks);
	}
}

/* Engine released, kept rows dropped; safe to call more than once. */
static void
release_rows(GpuSortSlotState *s)
{
	end_keysort(s);
	s->norder = 0;
	s->pos = 0;
	s->rows = NULL;
	s->sorted = NULL;
	s->nrows = 0;
	s->cap = 0;
	s->row_bytes = 0;
	MemoryContextReset(s->rows_cxt);
}

static void
release_all(GpuSortSlotState *s)
{
	release_rows(s);
	if (s->ts)
	{
		Tuplesortstate *ts = s->ts;

		s->ts = NULL;
		tuplesort_end(ts);
	}
}

/* On error paths the query memory goes away; the engine's memory must go with it. */
static void
slot_cleanup_callback(void *arg)
{
	end_keysort((GpuSortSlotState *) arg);
}

static void
BeginGpuSortSlotImpl(GpuSortSlotState *s, EState *estate, int eflags)
{
	CustomScan *cscan = (CustomScan *) s->css.ss.ps.plan;
	GpuSortSlotPrivate priv;
	Const	   *task;
	TupleDesc	desc = s->css.ss.ss_ScanTupleSlot->tts_tupleDescriptor;
	ListCell   *a,
			   *o,
			   *c,
			   *n;
	int			k = 0;

	PgGpuEngineCancelHook();
	GpuSortSlotPrivateRead(cscan->custom_private, &priv);
	task = priv.task;
	Assert(VARSIZE_ANY_EXHDR(DatumGetPointer(task->constvalue)) == sizeof(pg_gpu_agg_task));
	memcpy(&s->task, VARDATA_ANY(DatumGetPointer(task->constvalue)), sizeof(pg_gpu_agg_task));
	forfour(a, priv.attnos, o, priv.sortops, c, priv.collations, n, priv.nulls_first)
	{
		s->attno[k] = (AttrNumber) lfirst_int(a);
		s->sortop[k] = lfirst_oid(o);
		s->coll[k] = lfirst_oid(c);
		s->nulls_first[k] = lfirst_int(n) != 0;
		k++;
	}
	s->nkeys = k;

	/* the scan tuples are the kept minimal tuples (or tuplesort's) */
	ExecInitScanTupleSlot(estate, &s->css.ss, desc, &TTSOpsMinimalTuple);
	ExecAssignScanProjectionInfoWithVarno(&s->css.ss, INDEX_VAR);
	/* rows are only ever freed all together: no power-of-two rounding */
	s->rows_cxt = GenerationContextCreate(estate->es_query_cxt, "GpuSort rows",
										  ALLOCSET_DEFAULT_SIZES);
	s->key_cxt = AllocSetContextCreate(estate->es_query_cxt, "GpuSort key values",
									   ALLOCSET_SMALL_SIZES);
	PgGpuScrollInit(&s->scroll, &s->css, estate, eflags);
	s->css.custom_ps = list_make1(ExecInitNode((Plan *) linitial(cscan->custom_plans),
											   estate, eflags & ~(EXEC_FLAG_REWIND |
																  EXEC_FLAG_BACKWARD |
																  EXEC_FLAG_MARK)));
	s->cleanup.func = slot_cleanup_callback;
	s->cleanup.arg = s;
	MemoryContextRegisterResetCallback(estate->es_query_cxt, &s->cleanup);
}

static void
BeginGpuSortSlot(CustomScanState *node, EState *estate, int eflags)
{
	PG_GPU_GUARD(BeginGpuSortSlotImpl((GpuSortSlotState *) node, estate, eflags));
}

/*
 * Give the sort to tuplesort: the rows kept so far go in first, and the caller
 * feeds it the rest of the input.
 */
static void
to_tuplesort(GpuSortSlotState *s, PgGpuFallback reason, const char *msg)
{
	TupleTableSlot *scanslot = s->css.ss.ss_ScanTupleSlot;
	int64		bound = s->task.sort_limit;

	s->fallback = true;
	s->fb_reason = reason;
	strlcpy(s->fb_msg, msg, sizeof(s->fb_msg));
	PgGpuNoteFallback(PG_GPU_NODE_SORT, reason, msg);
	s->ts = tuplesort_begin_heap(scanslot->tts_tupleDescriptor, s->nkeys, s->attno, s->sortop,
								 s->coll, s->nulls_first, work_mem, NULL, TUPLESORT_NONE);
	if (bound > 0)
		tuplesort_set_bound(s->ts, bound);
	for (int64 i = 0; i < s->nrows; i++)
	{
		ExecStoreMinimalTuple(s->rows[i], scanslot, false);
		tuplesort_puttupleslot(s->ts, scanslot);
	}
	ExecClearTuple(scanslot);
	release_rows(s);
}

/* Keep one row and hand its keys to the engine; false: *reason and err say why not. */
static bool
keep_row(GpuSortSlotState *s, TupleTableSlot *slot, PgGpuFallback *reason, pg_gpu_error *err)
{
	uint64_t	vals[PG_GPU_MAX_KEYS];
	uint32_t	lens[PG_GPU_MAX_KEYS];
	uint32_t	nulls = 0;
	MemoryContext old;
	MinimalTuple mt;
	pg_gpu_status st;

	if (s->nrows == s->cap)
	{
		int64		cap = s->cap ? 2 * s->cap : 1024;

		old = MemoryContextSwitchTo(s->rows_cxt);
		s->rows = (MinimalTuple *) (s->rows
									? repalloc_huge(s->rows, sizeof(MinimalTuple) * cap)
									: MemoryContextAllocHuge(s->rows_cxt, sizeof(MinimalTuple) * cap));
		MemoryContextSwitchTo(old);
		s->row_bytes += (cap - s->cap) * sizeof(MinimalTuple);
		s->cap = cap;
	}
	old = MemoryContextSwitchTo(s->rows_cxt);
	mt = ExecCopySlotMinimalTuple(slot);
	MemoryContextSwitchTo(old);
	s->rows[s->nrows++] = mt;
	s->row_bytes += mt->t_len;

	MemoryContextReset(s->key_cxt);
	old = MemoryContextSwitchTo(s->key_cxt);
	for (int k = 0; k < s->nkeys; k++)
	{
		bool		isnull;
		Datum		d = slot_getattr(slot, s->attno[k], &isnull);

		vals[k] = 0;
		lens[k] = 0;
		if (isnull)
		{
			nulls |= 1u << k;
			continue;
		}
		if (!PgGpuDatumWord(d, s->task.keys[k].type, &vals[k]))
		{
			/* text, bpchar, numeric: their bytes after the varlena header */
			struct varlena *v = PG_DETOAST_DATUM_PACKED(d);

			vals[k] = (uint64) (uintptr_t) VARDATA_ANY(v);
			lens[k] = (uint32) VARSIZE_ANY_EXHDR(v);
		}
	}
	st = pg_gpu_keysort_add(s->ks, vals, lens, nulls, err);
	MemoryContextSwitchTo(old);
	if (st != PG_GPU_OK)
	{
		*reason = PgGpuFallbackFor(st);
		return false;
	}
	if (s->row_bytes + pg_gpu_keysort_bytes(s->ks) > (uint64) pg_gpu_slot_sort_memory * 1024)
	{
		*reason = PG_GPU_FB_SLOT_MEMORY;
		snprintf(err->message, sizeof(err->message),
				 "the rows to sort are larger than pg_gpu.slot_sort_memory (%d kB)",
				 pg_gpu_slot_sort_memory);
		return false;
	}
	return true;
}

/* Pull the whole input, then sort it on the GPU or with tuplesort. */
static void
load_and_sort(GpuSortSlotState *s)
{
	PlanState  *child = child_of(s);
	pg_gpu_error err;
	PgGpuFallback reason;
	char		msg[256];
	const uint32_t *order;
	instr_time	t0,
				t1;

	INSTR_TIME_SET_CURRENT(t0);
	s->loaded = true;
	s->task.emulate = pg_gpu_emulate_gpu ? 1 : 0;
	/*
	 * The GPU service sorts the words when it runs: the backend only encodes
	 * them (no CUDA here).  Else the backend's own engine.
	 */
	s->remote = PgGpuServiceTakes(&s->task, false);
	if (s->remote)
	{
		if ((s->ks = pg_gpu_keysort_begin_encode(&s->task, &err)) == NULL)
			to_tuplesort(s, PgGpuFallbackFor(err.status), err.message);
	}
	else if (!s->task.emulate && !PgGpuEnsureEngine(&reason, msg, sizeof(msg)))
		to_tuplesort(s, reason, msg);
	else if ((s->ks = pg_gpu_keysort_begin(&s->task, &err)) == NULL)
		to_tuplesort(s, PgGpuFallbackFor(err.status), err.message);
	for (;;)
	{
		TupleTableSlot *slot = ExecProcNode(child);

		if (TupIsNull(slot))
			break;
		if (s->ts)
			tuplesort_puttupleslot(s->ts, slot);
		else if (!keep_row(s, slot, &reason, &err))
			to_tuplesort(s, reason, err.message);	/* the row was kept */
	}
	INSTR_TIME_SET_CURRENT(t1);
	INSTR_TIME_ACCUM_DIFF(s->t_input, t1, t0);
	if (!s->ts)
	{
		uint32	   *remote_order = NULL;
		pg_gpu_status st;

		if (s->remote)
		{
			st = PgGpuServiceKeysort(&s->task, s->ks, s->rows_cxt, &remote_order, &s->norder,
									 &s->gpu_ms, &s->bytes_h2d, &err);
			order = remote_order;
		}
		else
			st = pg_gpu_keysort_sort(s->ks, &order, &s->norder, &s->gpu_ms, &s->bytes_h2d,
									 &err);
		if (st == PG_GPU_OK)
		{
			/*
			 * The row pointers in order, in one tight loop (its random reads
			 * overlap), so that emission reads them in sequence.
			 */
			s->sorted = (MinimalTuple *) MemoryContextAllocHuge(s->rows_cxt,
															   sizeof(MinimalTuple) * Max(s->norder, 1));
			for (uint64_t i = 0; i < s->norder; i++)
			{
				if ((i & 0xFFFF) == 0)
					CHECK_FOR_INTERRUPTS();
				s->sorted[i] = s->rows[order[i]];
			}
			s->gpu_ran = true;
			s->rows_sorted = s->norder;
			if (s->task.emulate)
				PgGpuStatsEmulatedRun(PG_GPU_NODE_SORT);
			else
				PgGpuStatsGpuRun(PG_GPU_NODE_SORT, s->bytes_h2d, s->gpu_ms);
		}
		else
			to_tuplesort(s, PgGpuFallbackFor(err.status), err.message);
	}
	if (s->ts)
		tuplesort_performsort(s->ts);
	INSTR_TIME_SET_CURRENT(t0);
	INSTR_TIME_ACCUM_DIFF(s->t_sort, t0, t1);
}

static TupleTableSlot *
ExecGpuSortSlotImpl(GpuSortSlotState *s)
{
	TupleTableSlot *scanslot = s->css.ss.ss_ScanTupleSlot;
	ProjectionInfo *proj = s->css.ss.ps.ps_ProjInfo;
	ExprContext *econtext = s->css.ss.ps.ps_ExprContext;

	if (!s->loaded)
		load_and_sort(s);
	if (s->ts)
	{
		if (!tuplesort_gettupleslot(s->ts, true, false, scanslot, NULL))
			return NULL;
	}
	else
	{
		if (s->pos >= s->norder)
		{
			/* the slots must not point into the rows once they are gone */
			ExecClearTuple(scanslot);
			if (proj)
				ExecClearTuple(s->css.ss.ps.ps_ResultTupleSlot);
			release_rows(s);
			return NULL;
		}
		/* the tuples lie in input order: fetch a few rows ahead */
		if (s->pos + kPrefetch < s->norder)
			__builtin_prefetch(s->sorted[s->pos + kPrefetch]);
		ExecStoreMinimalTuple(s->sorted[s->pos++], scanslot, false);
	}
	if (!proj)
		return scanslot;
	ResetExprContext(econtext);
	econtext->ecxt_scantuple = scanslot;
	return ExecProject(proj);
}

static TupleTableSlot *
exec_forward(CustomScanState *node)
{
	return ExecGpuSortSlotImpl((GpuSortSlotState *) node);
}

static TupleTableSlot *
ExecGpuSortSlot(CustomScanState *node)
{
	TupleTableSlot *slot = NULL;

	PG_GPU_GUARD(slot = PgGpuScrollNext(&((GpuSortSlotState *) node)->scroll, node,
										exec_forward));
	return slot;
}

static void
EndGpuSortSlotImpl(GpuSortSlotState *s)
{
	release_all(s);
	PgGpuScrollEnd(&s->scroll);
	ExecEndNode(child_of(s));
}

static void
EndGpuSortSlot(CustomScanState *node)
{
	PG_GPU_GUARD(EndGpuSortSlotImpl((GpuSortSlotState *) node));
}

static void
ReScanGpuSortSlotImpl(GpuSortSlotState *s)
{
	PlanState  *child = child_of(s);

	ExecClearTuple(s->css.ss.ss_ScanTupleSlot);
	release_all(s);
	PgGpuScrollReset(&s->scroll);
	s->loaded = false;
	s->gpu_ran = false;
	s->fallback = false;
	/* ExecReScan passes changed parameters to lefttree/righttree only */
	if (s->css.ss.ps.chgParam != NULL)
		UpdateChangedParamSet(child, s->css.ss.ps.chgParam);
	if (child->chgParam == NULL)
		ExecReScan(child);
}

static void
ReScanGpuSortSlot(CustomScanState *node)
{
	PG_GPU_GUARD(ReScanGpuSortSlotImpl((GpuSortSlotState *) node));
}

static void
ExplainGpuSortSlotImpl(GpuSortSlotState *s, List *ancestors, ExplainState *es)
{
	CustomScan *cscan = (CustomScan *) s->css.ss.ps.plan;
	List	   *context = set_deparse_context_plan(es->deparse_cxt, (Plan *) cscan, ancestors);
	List	   *keys = NIL;

	for (int k = 0; k < s->nkeys; k++)
	{
		TargetEntry *tle = (TargetEntry *) list_nth(cscan->custom_scan_tlist, s->attno[k] - 1);
		Node	   *v = (Node *) makeVar(INDEX_VAR, s->attno[k], exprType((Node *) tle->expr),
										 exprTypmod((Node *) tle->expr),
										 exprCollation((Node *) tle->expr), 0);
		char	   *key = deparse_expression(v, context, list_length(es->rtable) > 1, false);

		if (s->task.key_desc[k])
			key = psprintf("%s DESC", key);
		if (s->task.key_nulls_first[k] != (s->task.key_desc[k] != 0))
			key = psprintf("%s NULLS %s", key, s->task.key_nulls_first[k] ? "FIRST" : "LAST");
		keys = lappend(keys, key);
	}
	ExplainPropertyList("Sort Key", keys, es);
	if (!es->analyze)
		return;
	if (s->gpu_ran)
	{
		ExplainPropertyText("Input", s->task.emulate ? "child plan, sort emulated on the CPU"
							: "child plan, keys sorted on the GPU", es);
		ExplainPropertyInteger("Rows Sorted", NULL, (int64) s->rows_sorted, es);
		ExplainPropertyInteger("Bytes Moved", "bytes", (int64) s->bytes_h2d, es);
		ExplainPropertyFloat("GPU Time", "ms", s->gpu_ms, 3, es);
		ExplainPropertyFloat("Input Time", "ms", INSTR_TIME_GET_MILLISEC(s->t_input), 3, es);
		ExplainPropertyFloat("Sort Time", "ms", INSTR_TIME_GET_MILLISEC(s->t_sort), 3, es);
	}
	else if (s->fallback)
	{
		ExplainPropertyText("Fallback", PgGpuFallbackName(s->fb_reason), es);
		ExplainPropertyText("Fallback Detail", s->fb_msg, es);
	}
}

static void
ExplainGpuSortSlot(CustomScanState *node, List *ancestors, ExplainState *es)
{
	PG_GPU_GUARD(ExplainGpuSortSlotImpl((GpuSortSlotState *) node, ancestors, es));
}
