/*
 * table_node.cpp — the executor half that GpuAgg, and GpuSort, GpuHashJoin and
 * GpuSemiJoin over a table share (table_node.h).
 *
 * Such a node runs its task once, on its first row: the key sets are built
 * (keysets.cpp), the engine begins, the table's pages stream through it
 * (scan/heap_reader.cpp) and the engine finishes.  Then the node hands up what
 * the engine kept: GpuAgg its groups (gpuagg_exec.cpp), the others the table's
 * tuples in batches, in the order the GPU kept them (PgGpuTableNodeNextTuple).
 * Any failure of the GPU ends the attempt cleanly and the node's first child,
 * PostgreSQL's own plan, gives the rows instead.
 */
extern "C" {
#include "postgres.h"

#include "executor/executor.h"
#include "executor/nodeSubplan.h"
#include "miscadmin.h"
#include "nodes/extensible.h"
#include "nodes/nodeFuncs.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "pg_gpu.h"
#include "pg_gpu_engine.h"
#include "nodes/table_node.h"
}

int *
PgGpuIntListArray(List *l)
{
	int		   *a = (int *) palloc0(sizeof(int) * Max(1, list_length(l)));
	int			i = 0;
	ListCell   *lc;

	foreach(lc, l)
		a[i++] = lfirst_int(lc);
	return a;
}

PgGpuTableNode *
PgGpuTableNodeCreate(size_t size, const CustomExecMethods *methods, PgGpuNode node,
					 bool batched)
{
	PgGpuTableNode *t = (PgGpuTableNode *) palloc0(size);

	NodeSetTag(t, T_CustomScanState);
	t->css.methods = methods;
	t->node = node;
	t->batched = batched;
	return t;
}

/* The GPU service's channel, once its task and sets are gone. */
static void
close_channel(PgGpuTableNode *t)
{
	PgGpuSvcChannel *svc = t->svc;

	t->svc = NULL;
	t->sets.svc = NULL;
	PgGpuServiceClose(svc);
}

void
PgGpuTableNodeRelease(PgGpuTableNode *t, bool release_pins, bool keep_engine)
{
	if (t->agg && !keep_engine)
	{
		pg_gpu_agg *agg = t->agg;

		t->agg = NULL;
		pg_gpu_agg_end(agg);	/* waits for in-flight kernels */
	}
	if (!t->agg)
	{
		PgGpuFreeSets(&t->sets);	/* probed by the engine's kernels */
		close_channel(t);
	}
	PgGpuScanRelease(&t->scan, release_pins);
}

/* On error paths the query memory goes away; the engine must go with it. */
static void
table_node_cleanup_callback(void *arg)
{
	PgGpuTableNode *t = (PgGpuTableNode *) arg;

	if (t->agg)
	{
		pg_gpu_agg *agg = t->agg;

		t->agg = NULL;
		pg_gpu_agg_end(agg);
	}
	/*
	 * The kept build rows' context is a child of the query's, which deletes its
	 * children before it calls this: it is gone already.
	 */
	t->sets.rows_cxt = NULL;
	t->sets.pay_cxt = NULL;
	PgGpuFreeSets(&t->sets);
	close_channel(t);
}

/* Whether an expression reads a system column (ctid and the like). */
static bool
reads_system_column(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var))
		return ((Var *) node)->varattno < 0;
	return expression_tree_walker(node, (bool (*)()) (void *) reads_system_column, context);
}

void
PgGpuTableNodeBegin(PgGpuTableNode *t, Const *task)
{
	t->rel = t->css.ss.ss_currentRelation;
	t->css.ss.ss_currentRelation = NULL;
	Assert(VARSIZE_ANY_EXHDR(DatumGetPointer(task->constvalue)) == sizeof(pg_gpu_agg_task));
	memcpy(&t->task, VARDATA_ANY(DatumGetPointer(task->constvalue)), sizeof(pg_gpu_agg_task));
}

void
PgGpuTableNodeHeapSlot(PgGpuTableNode *t, EState *estate)
{
	CustomScan *cscan = (CustomScan *) t->css.ss.ps.plan;

	ExecInitScanTupleSlot(estate, &t->css.ss, RelationGetDescr(t->rel), &TTSOpsHeapTuple);
	ExecAssignScanProjectionInfoWithVarno(&t->css.ss, cscan->scan.scanrelid);
	/* the fallback hands up its child's slots as they are: of another kind */
	t->css.ss.ps.resultopsfixed = false;
	t->need_tid = reads_system_column((Node *) cscan->scan.plan.targetlist, NULL) ||
		reads_system_column((Node *) cscan->scan.plan.qual, NULL);
	ItemPointerSetInvalid(&t->htup.t_self);
}

void
PgGpuTableNodeBeginChildren(PgGpuTableNode *t, EState *estate, int eflags, List *set_sources)
{
	CustomScan *cscan = (CustomScan *) t->css.ss.ps.plan;
	ListCell   *lc;

	/* the fallback: PostgreSQL's own plan; then a join's build side */
	foreach(lc, cscan->custom_plans)
		t->css.custom_ps = lappend(t->css.custom_ps,
								   ExecInitNode((Plan *) lfirst(lc), estate, eflags));
	t->set_sources = set_sources;
	PgGpuEngineCancelHook();
	t->cleanup.func = table_node_cleanup_callback;
	t->cleanup.arg = t;
	MemoryContextRegisterResetCallback(estate->es_query_cxt, &t->cleanup);
}

static bool
give_up(PgGpuTableNode *t, PgGpuFallback reason, const char *msg)
{
	PgGpuTableNodeRelease(t, true, false);
	t->fb_reason = reason;
	strlcpy(t->fb_msg, msg, sizeof(t->fb_msg));
	return false;
}

/*
 * A proven bound on the task's groups (its groups_max; 0: none): when every key
 * is a payload column of a set built (pg_gpu_agg_task.key_pay), the product of
 * their distinct values, each plus one for NULL.
 */
static int64
groups_bound(const pg_gpu_agg_task *task, const PgGpuSets *sets)
{
	double		most = 1;

	if (task->nkeys == 0 || task->sort || task->collect)
		return 0;
	for (int k = 0; k < task->nkeys; k++)
	{
		int			p = (int) task->key_pay[k] - 1;
		int			set = p / PG_GPU_MAX_PAYLOAD;

		if (p < 0 || set >= sets->nbuilt ||
			sets->pay_distinct[set][p % PG_GPU_MAX_PAYLOAD] < 0)
			return 0;
		most *= (double) sets->pay_distinct[set][p % PG_GPU_MAX_PAYLOAD] + 1;
	}
	return most <= (double) (INT64CONST(1) << 40) ? (int64) most : 0;
}

/*
 * Stream the table through the GPU.  Returns true with t->res filled, or false with
 * t->fb_reason set (engine released, pins dropped).
 */
/*
 * A numeric parameter's value as the task reads it at scale (the
 * PG_GPU_PARAM_SCALE, one digit past 16): exact at 16 digits, times ten;
 * else the magnitude cut to 16 digits and a 5 after it (expr_compile.h says
 * why the comparisons stay exact).  False for NaN, infinities and values too
 * large for the task's 90 bits.
 */
static bool
param_decimal(Datum d, int scale, __int128 *out)
{
	const __int128 limit = (__int128) 1 << PG_GPU_DEC_BITS;
	__int128	acc;
	int			ds;
	bool		inexact;
	bool		neg;

	if (!PgGpuNumericDigits(d, scale - 1, &acc, &ds, &inexact, &neg))
		return false;
	for (; ds < scale - 1; ds++)
		if ((acc *= 10) >= limit)
			return false;
	acc = acc * 10 + (inexact ? 5 : 0);
	if (acc >= limit)
		return false;
	*out = neg ? -acc : acc;
	return true;
}

/*
 * The values of the InitPlan parameters the task reads as constants
 * (PgGpuCompiler.params), each InitPlan run first if it has not been, as
 * ExecEvalParamExec does.  False, with why in msg, for a value the task
 * cannot hold (a numeric NaN, infinity or one beyond its 90 bits).
 */
static bool
set_params(PgGpuTableNode *t, char *msg, size_t len)
{
	ExprContext *econtext = t->css.ss.ps.ps_ExprContext;
	ListCell   *lc;

	for (lc = list_head(t->params); lc != NULL; lc = lnext(t->params, lc))
	{
		int			paramid = lfirst_int(lc);
		int			idx = lfirst_int(lc = lnext(t->params, lc));
		int			type = lfirst_int(lc = lnext(t->params, lc));
		int			scale = lfirst_int(lc = lnext(t->params, lc));
		ParamExecData *prm = &econtext->ecxt_param_exec_vals[paramid];

		if (prm->execPlan != NULL)
			ExecSetParamPlan((SubPlanState *) prm->execPlan, econtext);
		t->task.const_null &= ~(UINT64CONST(1) << idx);
		if (prm->isnull)
		{
			t->task.const_null |= UINT64CONST(1) << idx;
			continue;
		}
		if (type == PG_GPU_DECIMAL)
		{
			__int128	v;

			if (!param_decimal(prm->value, scale, &v))
			{
				snprintf(msg, len, "parameter $%d is a numeric the GPU cannot hold", paramid);
				return false;
			}
			t->task.consts[idx] = (uint64) v;
			t->task.consts[idx + 1] = (uint64) ((unsigned __int128) v >> 64);
		}
		else if (!PgGpuDatumWord(prm->value, type, &t->task.consts[idx]))
		{
			snprintf(msg, len, "parameter $%d has a value the GPU cannot read", paramid);
			return false;
		}
	}
	return true;
}

static bool
run_on_gpu(PgGpuTableNode *t)
{
	Relation	rel = t->rel;
	Snapshot	snapshot = t->css.ss.ps.state->es_snapshot;
	PgGpuFallback reason;
	pg_gpu_error err;
	char		msg[256];
	instr_time	t0,
				t1,
				lapt;

	INSTR_TIME_SET_CURRENT(t0);
	lapt = t0;
	if (t->params != NIL && !set_params(t, msg, sizeof(msg)))
		return give_up(t, PG_GPU_FB_PARAM_VALUE, msg);
	INSTR_TIME_SET_ZERO(t->t_setup);
	INSTR_TIME_SET_ZERO(t->t_finish);
	INSTR_TIME_SET_ZERO(t->t_fetch);
	/*
	 * Key sets the GPU service can hold: a channel of its own keeps them
	 * there, where the task that probes them runs too.
	 */
	if (t->set_sources != NIL && t->svc == NULL && PgGpuSetsInService(t->set_sources))
	{
		pg_gpu_agg_task probe = t->task;

		probe.emulate = pg_gpu_emulate_gpu ? 1 : 0;
		if (PgGpuServiceTakes(&probe, true))
			t->svc = PgGpuServiceOpen(&err);	/* NULL: the backend's engine */
	}
	t->sets.svc = t->svc;
	if (!PgGpuScanPrepare(&t->scan, rel, snapshot, t->css.ss.ps.state->es_query_cxt, &t->task,
						  t->svc))
		return give_up(t, t->scan.fb_reason, t->scan.fb_msg);
	if (t->batched)
	{
		t->task.total_pages = Max(t->scan.nblocks, 1);
		t->task.sort_budget = (int64) pg_gpu_device_memory_limit * 1024;
	}
	/* each page's block, for the tuples' TIDs; kept from run to run (rescans) */
	if (t->need_tid)
	{
		if (t->page_blk_cap < Max(t->scan.nblocks, 1))
		{
			if (t->page_blk)
				pfree(t->page_blk);
			t->page_blk_cap = Max(t->scan.nblocks, 1);
			t->page_blk = (BlockNumber *)
				MemoryContextAllocHuge(t->css.ss.ps.state->es_query_cxt,
									   sizeof(BlockNumber) * t->page_blk_cap);
		}
		t->scan.page_blk = t->page_blk;
	}

	/*
	 * A join: the probe table's pin workers start first, so that their start-up
	 * and first chunks overlap the key set's build.  They put the backend in
	 * parallel mode, so only when the build runs nothing parallel-unsafe (and
	 * takes no parallel workers of its own): keys collected on the GPU, from
	 * plans PostgreSQL marked parallel-safe should the GPU give them back.  Not
	 * for a scan that asks for the column cache: its cached blocks are not
	 * pinned, and workers started for them would only be stopped.  Nor when a
	 * set is collected from a table big enough for pin workers of its own: the
	 * probe's would hold the pool's slots through the build scan that needs
	 * them more (PgGpuSetsScanLarge: TPC-H Q4's lineitem keys, 727 ms against
	 * 324 ms).
	 */
	if (t->set_sources != NIL && pg_gpu_pin_workers_early && t->scan.cc_req == NULL &&
		PgGpuSetsParallelSafe(t->set_sources, t->css.custom_ps, t->css.ss.ps.state) &&
		!PgGpuSetsScanLarge(t->set_sources, (BlockNumber) pg_gpu_pin_workers_min_pages))
		PgGpuScanStartWorkers(&t->scan, pg_gpu_pin_workers_min_pages, t->task.chunk_pages);
	if (t->set_sources != NIL &&
		!PgGpuBuildSets(t->set_sources, t->css.custom_ps, t->css.ss.ps.state,
						t->node, &t->task, &t->sets,
						&reason, msg, sizeof(msg)))
		return give_up(t, reason, msg);
	/*
	 * Seeded groups (a LEFT JOIN's preserved keys): a build row with a NULL
	 * key is a group of its own in PostgreSQL's join, which no key set holds
	 * (its keys' uniqueness the set's build checked).
	 */
	if (t->task.seed_set > 0)
	{
		int			set = t->task.seed_set - 1;

		if (t->task.sets[set].has_null)
			return give_up(t, PG_GPU_FB_NULL_KEYS,
						   "the left join's preserved side has a NULL join key");
		t->task.seed_n = t->sets.distinct[set];
	}
	t->task.groups_max = groups_bound(&t->task, &t->sets);
	t->agg = PgGpuScanBegin(&t->scan, &t->task, &err);
	if (!t->agg)
		return give_up(t, PgGpuFallbackFor(err.status), err.message);
	t->scan.agg = t->agg;
	PgGpuLap(&t->t_setup, &lapt);

	if (!PgGpuScanPages(&t->scan, &lapt, pg_gpu_pin_workers_min_pages))
		return give_up(t, t->scan.fb_reason, t->scan.fb_msg);

	INSTR_TIME_SET_CURRENT(lapt);
	if (pg_gpu_agg_finish(t->agg, &t->res, &err) != PG_GPU_OK)
		return give_up(t, PgGpuFallbackFor(err.status), err.message);
	PgGpuScanComplete(&t->scan);
	if (t->nkeys > 0 && (t->res.group_flags & PG_GPU_COLF_SXX_UNSURE))
		return give_up(t, PG_GPU_FB_EXPR_ERROR,
					   "float values so large that PostgreSQL's variance steps may overflow");
	/* grouped or batched: the engine holds the rows until they are emitted */
	PgGpuTableNodeRelease(t, true, t->nkeys > 0 || t->batched);
	PgGpuLap(&t->t_finish, &lapt);
	INSTR_TIME_SET_CURRENT(t1);
	INSTR_TIME_SUBTRACT(t1, t0);
	t->wall_ms = INSTR_TIME_GET_MILLISEC(t1);
	t->gpu_ran = true;
	return true;
}

bool
PgGpuTableNodeRun(PgGpuTableNode *t)
{
	t->done = true;
	if (!run_on_gpu(t))
	{
		t->fallback = true;
		PgGpuNoteFallback(t->node, t->fb_reason, t->fb_msg);
		return false;
	}
	if (t->task.emulate)
		PgGpuStatsEmulatedRun(t->node);
	else
		PgGpuStatsGpuRun(t->node, t->res.bytes_h2d, t->res.gpu_ms);
	if (t->batched)
	{
		t->batch.nrows = 0;
		t->batch_pos = 0;
	}
	return true;
}

TupleTableSlot *
PgGpuTableNodeProject(PgGpuTableNode *t, TupleTableSlot *scanslot)
{
	ProjectionInfo *proj = t->css.ss.ps.ps_ProjInfo;
	ExprContext *econtext = t->css.ss.ps.ps_ExprContext;
	ExprState  *qual = t->css.ss.ps.qual;

	ResetExprContext(econtext);
	econtext->ecxt_scantuple = scanslot;
	if (qual && !ExecQual(qual, econtext))
	{
		InstrCountFiltered1(&t->css.ss.ps, 1);
		return NULL;
	}
	return proj ? ExecProject(proj) : scanslot;
}

TupleTableSlot *
PgGpuTableNodeChildRow(PgGpuTableNode *t)
{
	return ExecProcNode((PlanState *) linitial(t->css.custom_ps));
}

bool
PgGpuTableNodeNextTuple(PgGpuTableNode *t, TupleTableSlot *slot)
{
	uint64		r;

	if (t->batch_pos >= t->batch.nrows)
	{
		pg_gpu_error err;
		instr_time	it;

		if (t->agg == NULL)
			return false;		/* every row was handed out, the engine is gone */
		CHECK_FOR_INTERRUPTS();
		ExecClearTuple(slot);	/* it points into the batch about to be refilled */
		INSTR_TIME_SET_CURRENT(it);
		if (pg_gpu_sort_next(t->agg, &t->batch, &err) != PG_GPU_OK)
		{
			PgGpuRaiseIfCancelled(err.status);
			ereport(ERROR,
					(errcode(ERRCODE_SYSTEM_ERROR),
					 errmsg("GpuSort could not read its sorted rows: %s", err.message)));
		}
		PgGpuLap(&t->t_fetch, &it);
		t->batch_pos = 0;
		if (t->batch.nrows == 0)
		{
			PgGpuTableNodeRelease(t, true, false);
			return false;
		}
	}
	r = t->batch.ref[t->batch_pos];
	t->htup.t_len = (uint32) (r & 0xFFFF);
	t->htup.t_data = (HeapTupleHeader) (t->batch.data +
										(t->batch.off[t->batch_pos] - t->batch.off[0]));
	/* a random read per row (the rows are in key order): only when asked for */
	if (t->need_tid)
		ItemPointerSet(&t->htup.t_self, t->scan.page_blk[r >> 32],
					   (OffsetNumber) ((r >> 16) & 0xFFFF));
	t->htup.t_tableOid = RelationGetRelid(t->rel);
	t->batch_pos++;
	ExecStoreHeapTuple(&t->htup, slot, false);
	return true;
}

TupleTableSlot *
PgGpuTableNodeNextRow(PgGpuTableNode *t)
{
	TupleTableSlot *scanslot = t->css.ss.ss_ScanTupleSlot;

	for (;;)
	{
		TupleTableSlot *out;

		if (!PgGpuTableNodeNextTuple(t, scanslot))
			return NULL;
		if ((out = PgGpuTableNodeProject(t, scanslot)) != NULL)
			return out;
	}
}

void
PgGpuTableNodeEnd(PgGpuTableNode *t)
{
	ListCell   *lc;

	PgGpuTableNodeRelease(t, true, false);
	foreach(lc, t->css.custom_ps)
		ExecEndNode((PlanState *) lfirst(lc));
}

void
PgGpuTableNodeReScan(PgGpuTableNode *t)
{
	ListCell   *lc;

	PgGpuTableNodeRelease(t, true, false);
	t->done = false;
	t->fallback = false;
	t->gpu_ran = false;
	t->batch.nrows = 0;
	t->batch_pos = 0;
	/* ExecReScan passes changed parameters to lefttree/righttree only */
	foreach(lc, t->css.custom_ps)
	{
		if (t->css.ss.ps.chgParam != NULL)
			UpdateChangedParamSet((PlanState *) lfirst(lc), t->css.ss.ps.chgParam);
		ExecReScan((PlanState *) lfirst(lc));
	}
}

void
PgGpuTableNodeExplainBatched(PgGpuTableNode *t, ExplainState *es)
{
	ExplainPropertyInteger(t->node == PG_GPU_NODE_SORT ? "Rows Sorted" : "Rows Kept", NULL,
						   t->res.nrows, es);
	if (t->res.sort_runs > 0)
		ExplainPropertyInteger("Sorted Runs Merged", NULL, t->res.sort_runs, es);
	if (t->res.sort_topn > 0)
		ExplainPropertyInteger("Top-N Rows Kept", NULL, t->res.sort_topn, es);
}

void
PgGpuTableNodeExplain(PgGpuTableNode *t, const char *filter, ExplainState *es,
					  void (*node_rows) (PgGpuTableNode *t, ExplainState *es))
{
	CustomScan *cscan = (CustomScan *) t->css.ss.ps.plan;

	if (filter[0] != '\0')
		ExplainPropertyText("GPU Filter", filter, es);
	PgGpuExplainSets(t->set_sources, &t->sets, es->analyze && t->gpu_ran, es);
	if (!es->analyze)
		return;
	if (t->gpu_ran)
	{
		ExplainPropertyText("Page Access",
							t->task.emulate ? "emulated on the CPU" :
							t->scan.tc.use == PG_GPU_TC_HIT ? "copies in GPU memory (table cache)" :
							t->scan.staged ? "shared buffers pulled into GPU memory by a copy kernel" :
							t->scan.registered ? "shared buffers read in place" : "copied via pinned staging",
							es);
		if (t->scan.tc.use != PG_GPU_TC_NONE)
			ExplainPropertyText("Table Cache",
								t->scan.tc.use == PG_GPU_TC_HIT ? "read from GPU memory" :
								t->scan.tc.filled ? "filled" :
								psprintf("fill abandoned: %s", t->scan.tc.why), es);
		else if (t->scan.tc.why[0])
			ExplainPropertyText("Table Cache", psprintf("not used: %s", t->scan.tc.why), es);
		if (t->scan.cc.entry >= 0)
			ExplainPropertyText("GPU Cache",
								psprintf("%lld blocks from cache, %lld from pages (%lld to cache)",
										 (long long) t->scan.cc_blocks, (long long) t->res.pages,
										 (long long) t->scan.cc_fill), es);
		ExplainPropertyInteger("Pages", NULL, t->res.pages, es);
		ExplainPropertyInteger("Chunks", NULL, t->res.chunks, es);
		ExplainPropertyInteger("Bytes Moved", "bytes", (int64) t->res.bytes_h2d, es);
		node_rows(t, es);
		if (t->scan.pin_workers > 0)
		{
			ExplainPropertyInteger("Pin Workers", NULL, t->scan.pin_workers, es);
			if (t->scan.leader_chunks > 0)
				ExplainPropertyInteger("Chunks Pinned by Leader", NULL, t->scan.leader_chunks, es);
		}
		else if (t->scan.pin_tried)
			ExplainPropertyText("Pin Workers", "none could be launched", es);
		/* the node's own phase timers: no per-row cost, so also under TIMING OFF */
		{
			ExplainPropertyFloat("GPU Time", "ms", t->res.gpu_ms, 3, es);
			ExplainPropertyFloat(psprintf("%s Wall Time", cscan->methods->CustomName), "ms",
								 t->wall_ms, 3, es);
			ExplainPropertyFloat("CPU Setup Time", "ms", INSTR_TIME_GET_MILLISEC(t->t_setup), 3, es);
			ExplainPropertyFloat("CPU Page Time", "ms", INSTR_TIME_GET_MILLISEC(t->scan.t_pages), 3, es);
			ExplainPropertyFloat("CPU Wait Time", "ms", INSTR_TIME_GET_MILLISEC(t->scan.t_wait), 3, es);
			ExplainPropertyFloat("Finish Time", "ms", INSTR_TIME_GET_MILLISEC(t->t_finish), 3, es);
			if (t->batched)
				ExplainPropertyFloat("Batch Copy Time", "ms", INSTR_TIME_GET_MILLISEC(t->t_fetch), 3, es);
		}
	}
	else if (t->fallback)
	{
		ExplainPropertyText("Fallback", PgGpuFallbackName(t->fb_reason), es);
		ExplainPropertyText("Fallback Detail", t->fb_msg, es);
	}
}
