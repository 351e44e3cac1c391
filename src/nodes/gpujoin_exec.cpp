/*
 * gpujoin_exec.cpp — executing GpuHashJoin and GpuSemiJoin over the probe
 * table's pages.
 *
 * Such a join is GpuSort without sort keys (table_node.cpp): the GPU scans the
 * probe table, probing a key set of the build side, and hands back the rows of
 * an inner join (each once per equal key), or of a semi- or anti-join, in the
 * order it kept them.  A GpuHashJoin whose output reads the build side too gets
 * each matching probe row once, ordered by its key's first index in the set,
 * and pairs it with the build plan's rows of that key, kept in the same order
 * (keysets.cpp).  The fallback is its first child, PostgreSQL's join.  The
 * same nodes over a child plan that gives the probe rows are
 * gpujoin_exec_slot.cpp.
 */
extern "C" {
#include "postgres.h"

#include "executor/executor.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "pg_gpu.h"
#include "pg_gpu_engine.h"
#include "nodes/gpujoin.h"
}

#include "guard.h"

static Node *CreateGpuJoinState(CustomScan *cscan);
static void BeginGpuJoin(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *ExecGpuJoin(CustomScanState *node);
static void EndGpuJoin(CustomScanState *node);
static void ReScanGpuJoin(CustomScanState *node);
static void ExplainGpuJoin(CustomScanState *node, List *ancestors, ExplainState *es);

CustomScanMethods gpuhashjoin_scan_methods = {
	"GpuHashJoin",
	CreateGpuJoinState
};

CustomScanMethods gpusemijoin_scan_methods = {
	"GpuSemiJoin",
	CreateGpuJoinState
};

/*
 * The two joins run the same way (EXPLAIN names a node by its plan's methods;
 * the state's node, for the statistics, by them too).
 */
static const CustomExecMethods gpujoin_exec_methods = {
	"GpuJoin",
	BeginGpuJoin,
	ExecGpuJoin,
	EndGpuJoin,
	ReScanGpuJoin,
	NULL, NULL,
	NULL, NULL, NULL, NULL,
	NULL,
	ExplainGpuJoin
};

/* Over a child plan (scanrelid 0), the slot path's state. */
static Node *
CreateGpuJoinStateImpl(CustomScan *cscan)
{
	PgGpuNode	node = cscan->methods == &gpuhashjoin_scan_methods ? PG_GPU_NODE_HASHJOIN
		: PG_GPU_NODE_SEMIJOIN;

	if (cscan->scan.scanrelid == 0)
		return PgGpuCreateJoinSlotState(cscan, node);
	return (Node *) PgGpuTableNodeCreate(sizeof(GpuJoinState), &gpujoin_exec_methods, node, true);
}

static Node *
CreateGpuJoinState(CustomScan *cscan)
{
	Node	   *state = NULL;

	PG_GPU_GUARD(state = CreateGpuJoinStateImpl(cscan));
	return state;
}

static void
BeginGpuJoinImpl(GpuJoinState *s, EState *estate, int eflags)
{
	CustomScan *cscan = (CustomScan *) s->t.css.ss.ps.plan;
	GpuJoinPrivate priv;

	GpuJoinPrivateRead(cscan->custom_private, &priv);
	PgGpuTableNodeBegin(&s->t, priv.task);
	if (priv.probe_key != NULL)
	{
		/*
		 * A GpuHashJoin reading the build side: the scan tuple (custom_scan_tlist,
		 * projected from INDEX_VAR as ExecInitCustomScan set it up) is put
		 * together from a probe tuple and a kept build row.
		 */
		s->rows_out = true;
		s->probe_slot = ExecAllocTableSlot(&estate->es_tupleTable,
										   RelationGetDescr(s->t.rel),
										   &TTSOpsHeapTuple);
		/* no parent: this node's scan slot is the virtual one, not probe_slot */
		s->probe_key = ExecInitExpr(priv.probe_key, NULL);
		s->nfrom = list_length(priv.from);
		s->from = PgGpuIntListArray(priv.from);
		for (int c = 0; c < s->nfrom; c++)
			s->max_attno = Max(s->max_attno, s->from[c]);
		fmgr_info(linitial_oid(priv.eq), &s->eq);
		s->eq_coll = lsecond_oid(priv.eq);
		s->probe_left = priv.probe_left;
		s->t.css.ss.ps.resultopsfixed = false;
	}
	else
		PgGpuTableNodeHeapSlot(&s->t, estate);

	/* the fallback: PostgreSQL's join; then the build side */
	PgGpuTableNodeBeginChildren(&s->t, estate, eflags, priv.sets);
	if (s->rows_out)
		s->build_slot = ExecAllocTableSlot(&estate->es_tupleTable,
										   ExecGetResultType((PlanState *) lsecond(s->t.css.custom_ps)),
										   &TTSOpsMinimalTuple);
}

static void
BeginGpuJoin(CustomScanState *node, EState *estate, int eflags)
{
	PG_GPU_GUARD(BeginGpuJoinImpl((GpuJoinState *) node, estate, eflags));
}

/*
 * GpuHashJoin reading the build side: the first kept build row of each key, in
 * order (the rows of a key are chained from it, sets.next).
 */
static void
build_chains(GpuJoinState *s)
{
	PgGpuSets  *sets = &s->t.sets;

	s->heads = (int64 *) MemoryContextAllocHuge(sets->rows_cxt,
												sizeof(int64) * Max(sets->nrows, 1));
	s->next = sets->next;
	s->nheads = 0;
	for (int64 i = 0; i < sets->nrows; i++)
		if (sets->ord[i] == i)
			s->heads[s->nheads++] = i;
	s->head_pos = 0;
	s->chain = -1;
}

/*
 * GpuHashJoin reading the build side: the next output row.  The GPU hands back
 * each matching probe row once, in the order of its key's first index in the
 * set, which is the order of the chains: the chain of the probe row's key is
 * the first one from head_pos on whose key its join operator finds equal, and
 * the row is paired with each build row of it.
 */
static TupleTableSlot *
next_joined(GpuJoinState *s)
{
	TupleTableSlot *scanslot = s->t.css.ss.ss_ScanTupleSlot;
	ExprContext *econtext = s->t.css.ss.ps.ps_ExprContext;
	PgGpuSets  *sets = &s->t.sets;

	for (;;)
	{
		TupleTableSlot *out;
		int64		j;

		while (s->chain < 0)
		{
			Datum		pk,
						bk;
			bool		pnull,
						bnull;

			if (!PgGpuTableNodeNextTuple(&s->t, s->probe_slot))
				return NULL;
			ResetExprContext(econtext);
			econtext->ecxt_scantuple = s->probe_slot;
			pk = ExecEvalExprSwitchContext(s->probe_key, econtext, &pnull);
			/* detoasted copies the equality makes go with the row */
			MemoryContext old = MemoryContextSwitchTo(econtext->ecxt_per_tuple_memory);

			for (; !pnull && s->head_pos < s->nheads; s->head_pos++)
			{
				ExecStoreMinimalTuple(sets->rows[s->heads[s->head_pos]], s->build_slot, false);
				bk = slot_getattr(s->build_slot, 1, &bnull);
				if (!bnull &&
					DatumGetBool(s->probe_left
								 ? FunctionCall2Coll(&s->eq, s->eq_coll, pk, bk)
								 : FunctionCall2Coll(&s->eq, s->eq_coll, bk, pk)))
				{
					s->chain = s->heads[s->head_pos];
					break;
				}
			}
			MemoryContextSwitchTo(old);
			if (s->chain < 0)
				ereport(ERROR,
						(errcode(ERRCODE_INTERNAL_ERROR),
						 errmsg("GpuHashJoin found no build row for a row the GPU matched")));
			slot_getsomeattrs(s->probe_slot, s->max_attno);
		}
		j = s->chain;
		s->chain = s->next[j];
		ExecStoreMinimalTuple(sets->rows[j], s->build_slot, false);
		slot_getallattrs(s->build_slot);
		ExecClearTuple(scanslot);
		for (int c = 0; c < s->nfrom; c++)
		{
			int			f = s->from[c];
			TupleTableSlot *src = f > 0 ? s->probe_slot : s->build_slot;
			int			a = (f > 0 ? f : -f) - 1;

			scanslot->tts_values[c] = src->tts_values[a];
			scanslot->tts_isnull[c] = src->tts_isnull[a];
		}
		ExecStoreVirtualTuple(scanslot);
		if ((out = PgGpuTableNodeProject(&s->t, scanslot)) != NULL)
			return out;
	}
}

static TupleTableSlot *
ExecGpuJoinImpl(GpuJoinState *s)
{
	if (s->t.fallback)
		return PgGpuTableNodeChildRow(&s->t);	/* the query's rows */
	if (s->t.gpu_ran)
		return s->rows_out ? next_joined(s) : PgGpuTableNodeNextRow(&s->t);
	if (s->t.done)
		return NULL;
	if (!PgGpuTableNodeRun(&s->t))
		return PgGpuTableNodeChildRow(&s->t);
	if (s->rows_out)
	{
		build_chains(s);
		return next_joined(s);
	}
	return PgGpuTableNodeNextRow(&s->t);
}

static TupleTableSlot *
ExecGpuJoin(CustomScanState *node)
{
	TupleTableSlot *slot = NULL;

	PG_GPU_GUARD(slot = ExecGpuJoinImpl((GpuJoinState *) node));
	return slot;
}

static void
EndGpuJoin(CustomScanState *node)
{
	PG_GPU_GUARD(PgGpuTableNodeEnd(&((GpuJoinState *) node)->t));
}

static void
ReScanGpuJoinImpl(GpuJoinState *s)
{
	PgGpuTableNodeReScan(&s->t);
	s->chain = -1;
	s->head_pos = 0;
}

static void
ReScanGpuJoin(CustomScanState *node)
{
	PG_GPU_GUARD(ReScanGpuJoinImpl((GpuJoinState *) node));
}

static void
ExplainGpuJoinImpl(GpuJoinState *s, ExplainState *es)
{
	CustomScan *cscan = (CustomScan *) s->t.css.ss.ps.plan;
	GpuJoinPrivate priv;

	GpuJoinPrivateRead(cscan->custom_private, &priv);
	PgGpuTableNodeExplain(&s->t, strVal(priv.filter_text), es, PgGpuTableNodeExplainBatched);
}

static void
ExplainGpuJoin(CustomScanState *node, List *ancestors, ExplainState *es)
{
	PG_GPU_GUARD(ExplainGpuJoinImpl((GpuJoinState *) node, es));
}

void
PgGpuJoinExecInit(void)
{
	RegisterCustomScanMethods(&gpuhashjoin_scan_methods);
	RegisterCustomScanMethods(&gpusemijoin_scan_methods);
}
