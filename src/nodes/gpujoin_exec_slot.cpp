/*
 * gpujoin_exec_slot.cpp — GpuSemiJoin and GpuHashJoin over a child plan that gives
 * the probe rows (issue 5's "or from any child plan").
 *
 * When the probe side is not one table whose pages the GPU can read (a join, a
 * subquery, a partitioned table), the node pulls the probe plan's rows in
 * batches, as PostgreSQL's own join would, keeps each as a minimal tuple and
 * computes its key with PostgreSQL's executor.  The batch's keys go to the GPU,
 * which probes the key set built from the other side (keysets.cpp: the build
 * plan's keys, or its table's pages collected on the GPU) and answers each key's
 * ordinal in the set.  Then the batch's rows are handed back:
 *
 *   semi-join    a row whose key is in the set, once
 *   anti-join    a row whose key is NULL or not in the set
 *
 * A semi- or anti-join with inner.b <> x beside its key (TPC-H Q21) computes
 * each row's x too and probes with pg_gpu_keyset_probe_ne: a key matches only
 * when some b of it differs from x (never for a NULL x: docs/SEMANTICS.md 29).
 *   inner join   a row whose key is in the set, once per build row of that key,
 *                put together with that row's columns
 *
 * An inner join keeps the build plan's rows (their key first): the set's
 * ordinal of a key is the index of the first kept row with an equal key, and
 * the rows of one key are chained from it (next[]).
 *
 * The probe rows pass through the CPU one by one, so this path is capped at the
 * executor's per-row speed; what the GPU takes is the build side's hash table
 * and the lookups.  Fallback: PostgreSQL's join (the first child) runs instead
 * when the GPU cannot build the set or fails before the first row went up; a
 * GPU failure after that is an error, since rows were handed back already.
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
#include "portability/instr_time.h"
#include "utils/memutils.h"
#include "utils/ruleutils.h"

#include "pg_gpu.h"
#include "pg_gpu_engine.h"
#include "nodes/gpujoin.h"
#include "expr/expr_compile.h"
#include "nodes/keysets.h"
}

#include "service/service.h"
#include "guard.h"

/* a batch of probe rows: pg_gpu.join_batch_rows, or so many bytes of them */
static const uint64 kBatchBytes = 64 * 1024 * 1024;

/* a batch row's answer besides an ordinal: no key in the set, a NULL key */
static const int64 kNoMatch = -1;
static const int64 kNullKey = -2;

static void BeginGpuJoinSlot(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *ExecGpuJoinSlot(CustomScanState *node);
static void EndGpuJoinSlot(CustomScanState *node);
static void ReScanGpuJoinSlot(CustomScanState *node);
static void ExplainGpuJoinSlot(CustomScanState *node, List *ancestors, ExplainState *es);

/* No mark/restore, no backward scan: PostgreSQL adds a Material node if needed. */
static const CustomExecMethods gpujoin_slot_exec_methods = {
	"GpuHashJoin",
	BeginGpuJoinSlot,
	ExecGpuJoinSlot,
	EndGpuJoinSlot,
	ReScanGpuJoinSlot,
	NULL, NULL,
	NULL, NULL, NULL, NULL,
	NULL,
	ExplainGpuJoinSlot
};

Node *
PgGpuCreateJoinSlotState(CustomScan *cscan, PgGpuNode node)
{
	GpuJoinSlotState *s = (GpuJoinSlotState *) palloc0(sizeof(GpuJoinSlotState));

	NodeSetTag(s, T_CustomScanState);
	s->css.methods = &gpujoin_slot_exec_methods;
	s->node = node;
	return (Node *) s;
}

/* children: PostgreSQL's join, the build plan, the probe plan */
static PlanState *
child(GpuJoinSlotState *s, int i)
{
	return (PlanState *) list_nth(s->css.custom_ps, i);
}

/* The batch and the key sets released; safe to repeat. */
/* The GPU service's channel that held the set, once the set is gone. */
static void
close_channel(GpuJoinSlotState *s)
{
	PgGpuSvcChannel *svc = s->sets.svc;

	s->sets.svc = NULL;
	PgGpuServiceClose(svc);
}

static void
release_all(GpuJoinSlotState *s)
{
	ExecClearTuple(s->css.ss.ss_ScanTupleSlot);
	if (s->probe_slot)
		ExecClearTuple(s->probe_slot);
	if (s->build_slot)
		ExecClearTuple(s->build_slot);
	s->rows = NULL;
	s->ord = NULL;
	s->nrows = 0;
	s->pos = 0;
	s->chain = -1;
	s->next = NULL;				/* in the kept rows' context */
	if (s->batch_cxt)
		MemoryContextReset(s->batch_cxt);
	PgGpuFreeSets(&s->sets);
	close_channel(s);
}

/* On error paths the query memory goes away; the GPU's sets must go with it. */
static void
join_slot_cleanup_callback(void *arg)
{
	GpuJoinSlotState *s = (GpuJoinSlotState *) arg;

	/* a child of the query's context, deleted before this runs */
	s->sets.rows_cxt = NULL;
	PgGpuFreeSets(&s->sets);
	close_channel(s);
}

static void
BeginGpuJoinSlotImpl(GpuJoinSlotState *s, EState *estate, int eflags)
{
	CustomScan *cscan = (CustomScan *) s->css.ss.ps.plan;
	GpuJoinSlotPrivate priv;
	Const	   *task;
	ListCell   *lc;

	PgGpuEngineCancelHook();
	GpuJoinSlotPrivateRead(cscan->custom_private, &priv, false);
	task = priv.task;
	Assert(VARSIZE_ANY_EXHDR(DatumGetPointer(task->constvalue)) == sizeof(pg_gpu_agg_task));
	memcpy(&s->task, VARDATA_ANY(DatumGetPointer(task->constvalue)), sizeof(pg_gpu_agg_task));
	s->set_sources = priv.sets;
	s->jointype = (JoinType) priv.jointype;
	s->valtype = priv.valtype;
	s->ne_valtype = priv.ne_valtype;
	s->nprobe = priv.nprobe;
	s->nbuild = list_length(cscan->custom_scan_tlist) - s->nprobe;
	s->chain = -1;

	/* PostgreSQL's join, the build plan, the probe plan */
	foreach(lc, cscan->custom_plans)
		s->css.custom_ps = lappend(s->css.custom_ps,
								   ExecInitNode((Plan *) lfirst(lc), estate,
												eflags & ~(EXEC_FLAG_BACKWARD | EXEC_FLAG_MARK)));
	/* the fallback hands up its child's slots as they are: of another kind */
	s->css.ss.ps.resultopsfixed = false;
	/* the key reads the scan tuple's first columns, which are the probe row's */
	s->probe_key = ExecInitExpr((Expr *) linitial(cscan->custom_exprs), NULL);
	if (s->ne_valtype != 0)
		s->ne_probe = ExecInitExpr((Expr *) lsecond(cscan->custom_exprs), NULL);
	s->probe_slot = ExecAllocTableSlot(&estate->es_tupleTable,
									   ExecGetResultType(child(s, 2)), &TTSOpsMinimalTuple);
	s->build_slot = ExecAllocTableSlot(&estate->es_tupleTable,
									   ExecGetResultType(child(s, 1)), &TTSOpsMinimalTuple);
	/* rows are only ever freed all together: no power-of-two rounding */
	s->batch_cxt = GenerationContextCreate(estate->es_query_cxt, "GpuJoin probe rows",
										   ALLOCSET_DEFAULT_SIZES);
	s->cleanup.func = join_slot_cleanup_callback;
	s->cleanup.arg = s;
	MemoryContextRegisterResetCallback(estate->es_query_cxt, &s->cleanup);
}

static void
BeginGpuJoinSlot(CustomScanState *node, EState *estate, int eflags)
{
	PG_GPU_GUARD(BeginGpuJoinSlotImpl((GpuJoinSlotState *) node, estate, eflags));
}

/* Record why the GPU does not run the join; the caller falls back. */
static bool
give_up(GpuJoinSlotState *s, PgGpuFallback reason, const char *msg)
{
	release_all(s);
	s->fb_reason = reason;
	strlcpy(s->fb_msg, msg, sizeof(s->fb_msg));
	return false;
}

/* Build the key set (and an inner join's chains of kept rows). */
static bool
start(GpuJoinSlotState *s)
{
	PgGpuFallback reason;
	char		msg[256];

	s->task.emulate = pg_gpu_emulate_gpu ? 1 : 0;
	/* the set in the GPU service, on a channel of the node's, where the batches probe it */
	if (PgGpuSetsInService(s->set_sources) && PgGpuServiceTakes(&s->task, true))
	{
		pg_gpu_error err;

		s->sets.svc = PgGpuServiceOpen(&err);	/* NULL: the backend's engine */
	}
	if (s->sets.svc == NULL && !s->task.emulate &&
		!PgGpuEnsureEngine(&reason, msg, sizeof(msg)))
		return give_up(s, reason, msg);
	if (!PgGpuBuildSets(s->set_sources, s->css.custom_ps, s->css.ss.ps.state, s->node,
						&s->task, &s->sets, &reason, msg, sizeof(msg)))
		return give_up(s, reason, msg);
	/*
	 * No key: a semi- or inner join has no row, and an anti-join every probe
	 * row, without a probe key computed (as PostgreSQL's hash join does).
	 */
	s->empty_set = s->sets.keys[0] == 0;
	if (s->empty_set && s->jointype != JOIN_ANTI)
		s->input_done = true;
	/* an inner join pairs a match with its key's kept rows, chained from the first */
	s->next = s->sets.next;
	return true;
}

/*
 * The next batch of probe rows with their answers; false at the end of the
 * input.  A GPU failure here is an error once rows went up.
 */
static bool
next_batch(GpuJoinSlotState *s)
{
	PlanState  *probe = child(s, 2);
	ExprContext *econtext = s->css.ss.ps.ps_ExprContext;
	PgGpuKeyBuf keys;
	int64	   *keyidx;
	int64	   *xs = NULL;		/* inner.b <> x: each key's x, and whether NULL */
	uint8	   *xnull = NULL;
	int64		cap = 1024;
	uint64		bytes = 0;
	pg_gpu_error err;
	instr_time	t0,
				t1;

	ExecClearTuple(s->css.ss.ss_ScanTupleSlot);
	ExecClearTuple(s->probe_slot);
	ExecClearTuple(s->build_slot);
	MemoryContextReset(s->batch_cxt);
	s->nrows = 0;
	s->pos = 0;
	s->chain = -1;
	if (s->input_done)
		return false;

	INSTR_TIME_SET_CURRENT(t0);
	s->rows = (MinimalTuple *) MemoryContextAlloc(s->batch_cxt, sizeof(MinimalTuple) * cap);
	keyidx = (int64 *) MemoryContextAlloc(s->batch_cxt, sizeof(int64) * cap);
	if (s->ne_valtype != 0)
	{
		xs = (int64 *) MemoryContextAlloc(s->batch_cxt, sizeof(int64) * cap);
		xnull = (uint8 *) MemoryContextAlloc(s->batch_cxt, cap);
	}
	PgGpuKeyBufInit(&keys, s->valtype,
					Max(1.0, Min((double) pg_gpu_join_batch_rows, probe->plan->plan_rows)), 32,
					4 * kBatchBytes, s->batch_cxt);
	/* rows and their detoasted keys */
	while (s->nrows < pg_gpu_join_batch_rows && bytes + keys.dlen < kBatchBytes)
	{
		TupleTableSlot *slot;
		Datum		d;
		bool		isnull;

		/* nothing can match an empty set: PostgreSQL computes no probe key then */
		slot = PgGpuPullKey(probe, 0, s->empty_set ? NULL : s->probe_key, econtext, &d, &isnull);
		if (slot == NULL)
		{
			s->input_done = true;
			break;
		}
		if (s->nrows == cap)
		{
			cap *= 2;
			s->rows = (MinimalTuple *) repalloc(s->rows, sizeof(MinimalTuple) * cap);
			keyidx = (int64 *) repalloc(keyidx, sizeof(int64) * cap);
			if (xs != NULL)
			{
				xs = (int64 *) repalloc(xs, sizeof(int64) * cap);
				xnull = (uint8 *) repalloc(xnull, cap);
			}
		}
		if (s->empty_set)
			keyidx[s->nrows] = kNoMatch;
		else
		{
			/* an anti-join's row of a NULL key stays; it matches nothing */
			keyidx[s->nrows] = isnull ? kNullKey : keys.n;
			if (!isnull && xs != NULL)
			{
				/* x beside the key (the scan tuple is still the probe row's) */
				bool		xn;
				Datum		xd = ExecEvalExprSwitchContext(s->ne_probe, econtext, &xn);
				uint64		w = 0;

				if (!xn && !PgGpuDatumWord(xd, s->ne_valtype, &w))
					elog(ERROR, "pg_gpu: a <> value of an unexpected type");
				xs[keys.n] = (int64) w;
				xnull[keys.n] = xn ? 1 : 0;
			}
			if (!isnull && !PgGpuKeyBufAdd(&keys, d, false))
			{
				if (s->emitted)
					ereport(ERROR,
							(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
							 errmsg("a join key of %s is too large for its batch",
									PgGpuNodeName(s->node))));
				return give_up(s, PG_GPU_FB_SLOT_MEMORY,
							   "a probe key does not fit in a batch of keys");
			}
		}
		MemoryContext old = MemoryContextSwitchTo(s->batch_cxt);

		s->rows[s->nrows] = ExecCopySlotMinimalTuple(slot);
		MemoryContextSwitchTo(old);
		bytes += s->rows[s->nrows]->t_len;
		s->nrows++;
	}
	INSTR_TIME_SET_CURRENT(t1);
	INSTR_TIME_ACCUM_DIFF(s->t_input, t1, t0);
	if (s->nrows == 0)
		return false;

	/* the keys' ordinals in the set, then each row's */
	s->ord = (int64 *) MemoryContextAlloc(s->batch_cxt, sizeof(int64) * Max(keys.n, 1));
	if (keys.n > 0 &&
		(s->sets.svc != NULL
		 ? (PgGpuServiceKeysetProbe(s->sets.svc, 0, (uint64) keys.n, keys.text ? NULL : keys.vals,
									keys.text ? keys.data : NULL, keys.text ? keys.off : NULL,
									xs, xnull, s->ord, &err) ? PG_GPU_OK : err.status)
		 : xs != NULL
		 ? pg_gpu_keyset_probe_ne(s->sets.ks[0], (uint64) keys.n, keys.vals, xs, xnull, s->ord,
								  &err)
		 : pg_gpu_keyset_probe(s->sets.ks[0], (uint64) keys.n, keys.vals, keys.data, keys.off,
							   s->ord, &err)) != PG_GPU_OK)
	{
		PgGpuRaiseIfCancelled(err.status);
		if (s->emitted)
			ereport(ERROR,
					(errcode(ERRCODE_SYSTEM_ERROR),
					 errmsg("%s lost the GPU after handing back rows: %s",
							PgGpuNodeName(s->node), err.message)));
		return give_up(s, PgGpuFallbackFor(err.status), err.message);
	}
	for (int64 i = s->nrows - 1; i >= 0; i--)
		if (keyidx[i] >= 0)
			keyidx[i] = s->ord[keyidx[i]];
	s->ord = keyidx;
	INSTR_TIME_SET_CURRENT(t0);
	INSTR_TIME_ACCUM_DIFF(s->t_probe, t0, t1);
	s->rows_probed += s->nrows;
	s->bytes_h2d += keys.text ? keys.dlen + (keys.n + 1) * sizeof(uint64)
		: keys.n * sizeof(int64);
	if (xs != NULL)
		s->bytes_h2d += keys.n * (sizeof(int64) + 1);
	s->batches++;
	return true;
}

/* The scan tuple of row pos - 1 (and build row j, an inner join's), projected. */
static TupleTableSlot *
emit(GpuJoinSlotState *s, int64 j)
{
	TupleTableSlot *scanslot = s->css.ss.ss_ScanTupleSlot;
	ProjectionInfo *proj = s->css.ss.ps.ps_ProjInfo;
	ExprContext *econtext = s->css.ss.ps.ps_ExprContext;

	ExecClearTuple(scanslot);
	slot_getallattrs(s->probe_slot);
	memcpy(scanslot->tts_values, s->probe_slot->tts_values, sizeof(Datum) * s->nprobe);
	memcpy(scanslot->tts_isnull, s->probe_slot->tts_isnull, sizeof(bool) * s->nprobe);
	if (s->nbuild > 0)
	{
		ExecStoreMinimalTuple(s->sets.rows[j], s->build_slot, false);
		slot_getallattrs(s->build_slot);
		memcpy(scanslot->tts_values + s->nprobe, s->build_slot->tts_values + 1,
			   sizeof(Datum) * s->nbuild);
		memcpy(scanslot->tts_isnull + s->nprobe, s->build_slot->tts_isnull + 1,
			   sizeof(bool) * s->nbuild);
	}
	ExecStoreVirtualTuple(scanslot);
	ResetExprContext(econtext);
	econtext->ecxt_scantuple = scanslot;
	if (s->css.ss.ps.qual && !ExecQual(s->css.ss.ps.qual, econtext))
		return NULL;
	s->emitted = true;
	return proj ? ExecProject(proj) : scanslot;
}

/* The next output row, or NULL at the end. */
static TupleTableSlot *
next_row(GpuJoinSlotState *s)
{
	for (;;)
	{
		TupleTableSlot *out;

		if (s->chain >= 0)
		{
			int64		j = s->chain;

			s->chain = s->next[j];
			if ((out = emit(s, j)) != NULL)
				return out;
			continue;
		}
		if (s->pos >= s->nrows)
		{
			if (!next_batch(s))
				return NULL;
			continue;
		}

		int64		o = s->ord[s->pos];
		bool		keep;

		ExecStoreMinimalTuple(s->rows[s->pos++], s->probe_slot, false);
		switch (s->jointype)
		{
			case JOIN_INNER:
				s->chain = o >= 0 ? o : -1;
				continue;
			case JOIN_ANTI:
				keep = o < 0;
				break;
			default:
				keep = o >= 0;
				break;
		}
		if (keep && (out = emit(s, -1)) != NULL)
			return out;
	}
}

static TupleTableSlot *
ExecGpuJoinSlotImpl(GpuJoinSlotState *s)
{
	TupleTableSlot *out;

	if (s->fallback)
		return ExecProcNode(child(s, 0));	/* the query's rows */
	if (s->finished)
		return NULL;
	if (!s->started)
	{
		s->started = true;
		if (start(s))
		{
			s->gpu_ran = true;
			if (s->task.emulate)
				PgGpuStatsEmulatedRun(s->node);
		}
	}
	if (s->gpu_ran && (out = next_row(s)) != NULL)
		return out;
	if (s->gpu_ran && s->fb_msg[0] == '\0')
	{
		/* the end: count the run, with the bytes it sent */
		if (!s->task.emulate)
			PgGpuStatsGpuRun(s->node, s->bytes_h2d, 0.0);
		release_all(s);
		s->finished = true;
		return NULL;
	}
	/* the GPU could not, before any row went up */
	s->gpu_ran = false;
	s->fallback = true;
	PgGpuNoteFallback(s->node, s->fb_reason, s->fb_msg);
	return ExecProcNode(child(s, 0));
}

static TupleTableSlot *
ExecGpuJoinSlot(CustomScanState *node)
{
	TupleTableSlot *slot = NULL;

	PG_GPU_GUARD(slot = ExecGpuJoinSlotImpl((GpuJoinSlotState *) node));
	return slot;
}

static void
EndGpuJoinSlotImpl(GpuJoinSlotState *s)
{
	ListCell   *lc;

	release_all(s);
	foreach(lc, s->css.custom_ps)
		ExecEndNode((PlanState *) lfirst(lc));
}

static void
EndGpuJoinSlot(CustomScanState *node)
{
	PG_GPU_GUARD(EndGpuJoinSlotImpl((GpuJoinSlotState *) node));
}

static void
ReScanGpuJoinSlotImpl(GpuJoinSlotState *s)
{
	ListCell   *lc;

	release_all(s);
	s->started = false;
	s->finished = false;
	s->gpu_ran = false;
	s->fallback = false;
	s->emitted = false;
	s->input_done = false;
	s->empty_set = false;
	s->fb_msg[0] = '\0';
	/* ExecReScan passes changed parameters to lefttree/righttree only */
	foreach(lc, s->css.custom_ps)
	{
		PlanState  *ps = (PlanState *) lfirst(lc);

		if (s->css.ss.ps.chgParam != NULL)
			UpdateChangedParamSet(ps, s->css.ss.ps.chgParam);
		if (ps->chgParam == NULL)
			ExecReScan(ps);
	}
}

static void
ReScanGpuJoinSlot(CustomScanState *node)
{
	PG_GPU_GUARD(ReScanGpuJoinSlotImpl((GpuJoinSlotState *) node));
}

static void
ExplainGpuJoinSlotImpl(GpuJoinSlotState *s, List *ancestors, ExplainState *es)
{
	CustomScan *cscan = (CustomScan *) s->css.ss.ps.plan;
	List	   *context = set_deparse_context_plan(es->deparse_cxt, (Plan *) cscan, ancestors);
	char	   *key = deparse_expression((Node *) linitial(cscan->custom_exprs), context,
										 true, false);
	List	   *sources = NIL;
	ListCell   *lc;

	/* the set's description, with the key as the plan computes it */
	foreach(lc, s->set_sources)
	{
		PgGpuSetSource src;

		PgGpuSetSourceRead((List *) lfirst(lc), &src);
		if (src.kind == PG_GPU_SET_CHILD)
		{
			/* "<kind> join" then the key, then what follows (a <>) */
			const char *l = strVal(src.label);
			const char *j = strstr(l, " join");
			int			at = j ? (int) (j - l) + 5 : (int) strlen(l);

			src.label = makeString(psprintf("%.*s on %s%s", at, l, key, l + at));
		}
		sources = lappend(sources, PgGpuSetSourceBuild(&src));
	}
	ExplainPropertyText("Probe", "child plan, keys computed on the CPU", es);
	PgGpuExplainSets(sources, &s->sets, es->analyze, es);
	if (!es->analyze)
		return;
	if (s->fallback)
	{
		ExplainPropertyText("Fallback", PgGpuFallbackName(s->fb_reason), es);
		ExplainPropertyText("Fallback Detail", s->fb_msg, es);
	}
	else if (s->gpu_ran)
	{
		ExplainPropertyText("Probed", s->task.emulate ? "on the CPU (emulated)" : "on the GPU", es);
		ExplainPropertyInteger("Rows Probed", NULL, s->rows_probed, es);
		ExplainPropertyInteger("Batches", NULL, s->batches, es);
		ExplainPropertyInteger("Bytes Moved", "bytes", (int64) s->bytes_h2d, es);
		ExplainPropertyFloat("Input Time", "ms", INSTR_TIME_GET_MILLISEC(s->t_input), 3, es);
		ExplainPropertyFloat("Probe Time", "ms", INSTR_TIME_GET_MILLISEC(s->t_probe), 3, es);
	}
}

static void
ExplainGpuJoinSlot(CustomScanState *node, List *ancestors, ExplainState *es)
{
	PG_GPU_GUARD(ExplainGpuJoinSlotImpl((GpuJoinSlotState *) node, ancestors, es));
}
