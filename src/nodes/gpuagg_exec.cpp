/*
 * gpuagg_exec.cpp — executing GpuAgg.
 *
 * GpuAgg runs its task over the table's pages once, on its first row
 * (table_node.cpp, scan/heap_reader.cpp), then hands up one scan tuple per group
 * (or one for an ungrouped aggregate): the grouping keys and each output
 * column's partial state, exactly what PostgreSQL's Partial Aggregate would
 * emit (aggs/agg_catalog.cpp), or in direct mode the aggregates' final values.
 *
 * Any engine failure (no GPU, out of GPU memory, a page the GPU cannot decode, a
 * CUDA error) ends the GPU attempt cleanly and the child plan — PostgreSQL's own
 * Partial Aggregate over the table — produces the same partial states instead.
 */
extern "C" {
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "nodes/execnodes.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/numeric.h"

#include "pg_gpu.h"
#include "pg_gpu_engine.h"
#include "aggs/agg_catalog.h"
#include "nodes/gpuagg.h"
}

#include "guard.h"

static Node *CreateGpuAggState(CustomScan *cscan);
static void BeginGpuAgg(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *ExecGpuAgg(CustomScanState *node);
static void EndGpuAgg(CustomScanState *node);
static void ReScanGpuAgg(CustomScanState *node);
static void ExplainGpuAgg(CustomScanState *node, List *ancestors, ExplainState *es);

CustomScanMethods gpuagg_scan_methods = {
	"GpuAgg",
	CreateGpuAggState
};

static const CustomExecMethods gpuagg_exec_methods = {
	"GpuAgg",
	BeginGpuAgg,
	ExecGpuAgg,
	EndGpuAgg,
	ReScanGpuAgg,
	NULL, NULL,					/* mark/restore */
	NULL, NULL, NULL, NULL,		/* parallel */
	NULL,						/* shutdown */
	ExplainGpuAgg
};

static Node *
CreateGpuAggState(CustomScan *cscan)
{
	Node	   *state = NULL;

	PG_GPU_GUARD(state = (Node *) PgGpuTableNodeCreate(sizeof(GpuAggState),
													   &gpuagg_exec_methods,
													   PG_GPU_NODE_AGG, false));
	return state;
}

static void
BeginGpuAggImpl(GpuAggState *s, EState *estate, int eflags)
{
	CustomScan *cscan = (CustomScan *) s->t.css.ss.ps.plan;
	GpuAggPrivate priv;
	ListCell   *lc;
	int			k = 0;
	int			i = 0;

	GpuAggPrivateRead(cscan->custom_private, &priv);
	s->nout = list_length(priv.out_state);
	s->out_state = PgGpuIntListArray(priv.out_state);
	s->out_coltype = PgGpuIntListArray(priv.out_coltype);
	s->out_col = PgGpuIntListArray(priv.out_col);

	PgGpuTableNodeBegin(&s->t, priv.task);
	s->t.nkeys = s->t.task.nkeys;
	s->distinct = priv.distinct_text != NULL && strVal(priv.distinct_text)[0] != '\0';
	s->nkeys_out = s->t.nkeys - (s->distinct ? 1 : 0);
	for (int j = 0; j < PG_GPU_MAX_KEYS; j++)
		s->key_code[j] = j < list_length(priv.key_codes) ? list_nth_int(priv.key_codes, j) : -1;
	foreach(lc, cscan->custom_scan_tlist)
	{
		if (k >= s->nkeys_out)
			break;
		s->key_typid[k++] = exprType((Node *) lfirst_node(TargetEntry, lc)->expr);
	}
	s->row_cxt = AllocSetContextCreate(estate->es_query_cxt, "GpuAgg row",
									   ALLOCSET_SMALL_SIZES);
	s->direct = (priv.finalfns != NIL);
	s->finalfn = (FmgrInfo *) palloc0(sizeof(FmgrInfo) * Max(1, s->nout));
	s->deserialfn = (FmgrInfo *) palloc0(sizeof(FmgrInfo) * Max(1, s->nout));
	foreach(lc, priv.finalfns)
	{
		if (OidIsValid(lfirst_oid(lc)))
			fmgr_info(lfirst_oid(lc), &s->finalfn[i]);
		i++;
	}
	i = 0;
	foreach(lc, priv.deserialfns)
	{
		if (OidIsValid(lfirst_oid(lc)))
			fmgr_info(lfirst_oid(lc), &s->deserialfn[i]);
		i++;
	}
	if (s->direct)
	{
		/*
		 * The context a Finalize Aggregate calls these functions in: the
		 * deserialize functions check it (AggCheckCallContext), and one asking
		 * for the aggregate's memory gets the row's expression context.
		 */
		AggState   *as = makeNode(AggState);

		as->ss.ps.state = estate;
		as->curaggcontext = s->t.css.ss.ps.ps_ExprContext;
		s->aggcxt = (Node *) as;
	}

	s->t.params = priv.params;
	/* the fallback: PostgreSQL's own partial aggregate; then a join's build side */
	PgGpuTableNodeBeginChildren(&s->t, estate, eflags, priv.sets);
}

static void
BeginGpuAgg(CustomScanState *node, EState *estate, int eflags)
{
	PG_GPU_GUARD(BeginGpuAggImpl((GpuAggState *) node, estate, eflags));
}

/*
 * The scan tuple of one result row: keys, then the partial states (direct
 * mode: the final values; count(DISTINCT x) the fold's count).
 */
TupleTableSlot *
PgGpuAggEmitRow(GpuAggState *s, const uint64 *keys, uint32 nullmask, int64 rows,
				const pg_gpu_col_state *cols)
{
	TupleTableSlot *slot = s->t.css.ss.ss_ScanTupleSlot;
	int			nkeys = s->nkeys_out;
	MemoryContext old;

	/*
	 * A seeded group without rows (a LEFT JOIN's build key no probe row
	 * matched): PostgreSQL's join made one row for it, NULL on the probe side,
	 * so count(*) is 1; the inputs' states are empty (docs/SEMANTICS.md 32).
	 */
	if (s->t.task.seed_set > 0 && rows == 0)
	{
		rows = 1;
		s->seeded_empty++;
	}
	MemoryContextReset(s->row_cxt);
	old = MemoryContextSwitchTo(s->row_cxt);
	ExecClearTuple(slot);
	for (int k = 0; k < nkeys; k++)
	{
		slot->tts_isnull[k] = (nullmask >> k) & 1;
		if (slot->tts_isnull[k])
			slot->tts_values[k] = (Datum) 0;
		else if (s->key_code[k] >= 0)
		{
			/* a dimension's text column, grouped by its code */
			int			c = s->key_code[k];
			const char *data = s->t.sets.pay_text[c / PG_GPU_MAX_PAYLOAD][c % PG_GPU_MAX_PAYLOAD].data;
			const uint64 *off = s->t.sets.pay_text[c / PG_GPU_MAX_PAYLOAD][c % PG_GPU_MAX_PAYLOAD].off;

			/* a text or bpchar value, its bytes as the dimension held them */
			slot->tts_values[k] = PointerGetDatum(cstring_to_text_with_len(data + off[keys[k]],
																		   (int) (off[keys[k] + 1] - off[keys[k]])));
		}
		else if (s->key_typid[k] == NUMERICOID)
		{
			/* a numeric key's scaled integer: the value, printed at its scale */
			int			scale = s->t.task.keys[k].scale;

			slot->tts_values[k] = NumericGetDatum(scale == 0 ? int64_to_numeric((int64) keys[k]) :
												  int64_div_fast_to_numeric((int64) keys[k], scale));
		}
		else
			slot->tts_values[k] = PgGpuWordDatum(keys[k], PgGpuValueType(s->key_typid[k]));
	}
	for (int i = 0; i < s->nout; i++)
	{
		const pg_gpu_col_state *col = s->out_col[i] >= 0 ? &cols[s->out_col[i]] : NULL;

		if (s->out_state[i] == PG_GPU_AGGST_COUNT_DISTINCT)
		{
			/* count has no final function: the count is the value */
			slot->tts_isnull[nkeys + i] = false;
			slot->tts_values[nkeys + i] = Int64GetDatum(s->fold_distinct);
			continue;
		}

		Datum		d = PgGpuPartialState((PgGpuAggState) s->out_state[i], s->out_coltype[i],
										  col, rows, &slot->tts_isnull[nkeys + i]);

		/*
		 * direct mode, an internal state: the aggregate's deserialize function
		 * (strict) makes it from the serialized partial state
		 */
		if (s->direct && s->deserialfn[i].fn_oid != InvalidOid && !slot->tts_isnull[nkeys + i])
		{
			LOCAL_FCINFO(fcinfo, 2);

			InitFunctionCallInfoData(*fcinfo, &s->deserialfn[i], 2, InvalidOid, s->aggcxt, NULL);
			fcinfo->args[0].value = d;
			fcinfo->args[0].isnull = false;
			fcinfo->args[1].value = (Datum) 0;
			fcinfo->args[1].isnull = false;
			d = FunctionCallInvoke(fcinfo);
			slot->tts_isnull[nkeys + i] = fcinfo->isnull;
		}
		/* direct mode: the aggregate's own final function over its state */
		if (s->direct && s->finalfn[i].fn_oid != InvalidOid &&
			!(slot->tts_isnull[nkeys + i] && s->finalfn[i].fn_strict))
		{
			LOCAL_FCINFO(fcinfo, 1);

			InitFunctionCallInfoData(*fcinfo, &s->finalfn[i], 1, InvalidOid, s->aggcxt, NULL);
			fcinfo->args[0].value = d;
			fcinfo->args[0].isnull = slot->tts_isnull[nkeys + i];
			d = FunctionCallInvoke(fcinfo);
			slot->tts_isnull[nkeys + i] = fcinfo->isnull;
		}
		slot->tts_values[nkeys + i] = d;
	}
	MemoryContextSwitchTo(old);
	ExecStoreVirtualTuple(slot);
	return PgGpuTableNodeProject(&s->t, slot);
}

/* Grouped: the next group the engine kept, projected (NULL after the last). */
static TupleTableSlot *
next_group(GpuAggState *s)
{
	uint64		keys[PG_GPU_MAX_KEYS];
	uint32		nullmask;
	int64		rows;
	pg_gpu_col_state cols[PG_GPU_MAX_AGG_COLS];

	for (;;)
	{
		TupleTableSlot *out;

		if (s->next_group >= s->t.res.ngroups)
		{
			PgGpuTableNodeRelease(&s->t, true, false);
			return NULL;
		}
		CHECK_FOR_INTERRUPTS();
		pg_gpu_agg_group(s->t.agg, s->next_group++, keys, &nullmask, &rows, cols);
		if ((out = PgGpuAggEmitRow(s, keys, nullmask, rows, cols)) != NULL)
			return out;
	}
}

/* The fallback: PostgreSQL's plan's rows (partial or complete), projected. */
TupleTableSlot *
PgGpuAggNextChildRow(GpuAggState *s)
{
	for (;;)
	{
		TupleTableSlot *slot = PgGpuTableNodeChildRow(&s->t);
		TupleTableSlot *out;

		if (TupIsNull(slot))
			return NULL;
		if ((out = PgGpuTableNodeProject(&s->t, slot)) != NULL)
			return out;
	}
}

static TupleTableSlot *
ExecGpuAggImpl(GpuAggState *s)
{
	if (s->t.fallback)
		return PgGpuAggNextChildRow(s);
	if (s->t.gpu_ran && s->distinct)
		return PgGpuAggFoldNext(s);
	if (s->t.gpu_ran && s->t.nkeys > 0)
		return next_group(s);
	if (s->t.done)
		return NULL;
	if (!PgGpuTableNodeRun(&s->t))
		return PgGpuAggNextChildRow(s);
	if (s->distinct)
		return PgGpuAggFoldNext(s);
	if (s->t.nkeys > 0)
	{
		s->next_group = 0;
		return next_group(s);
	}
	return PgGpuAggEmitRow(s, NULL, 0, s->t.res.nrows, s->t.res.cols);
}

static TupleTableSlot *
ExecGpuAgg(CustomScanState *node)
{
	TupleTableSlot *slot = NULL;

	PG_GPU_GUARD(slot = ExecGpuAggImpl((GpuAggState *) node));
	return slot;
}

static void
EndGpuAggImpl(GpuAggState *s)
{
	PgGpuAggFoldReset(s);
	PgGpuTableNodeEnd(&s->t);
}

static void
EndGpuAgg(CustomScanState *node)
{
	PG_GPU_GUARD(EndGpuAggImpl((GpuAggState *) node));
}

static void
ReScanGpuAggImpl(GpuAggState *s)
{
	PgGpuTableNodeReScan(&s->t);
	PgGpuAggFoldReset(s);
	s->next_group = 0;
	s->seeded_empty = 0;
}

static void
ReScanGpuAgg(CustomScanState *node)
{
	PG_GPU_GUARD(ReScanGpuAggImpl((GpuAggState *) node));
}

/* EXPLAIN ANALYZE: the groups */
static void
explain_groups(PgGpuTableNode *t, ExplainState *es)
{
	if (t->nkeys > 0)
	{
		ExplainPropertyInteger("Groups", NULL, t->res.ngroups + t->res.groups_dropped, es);
		if (t->task.nhaving > 0)
			ExplainPropertyInteger("Groups Failing HAVING on the GPU", NULL,
								   t->res.groups_dropped, es);
		if (t->task.groups_max > 0)
			ExplainPropertyInteger("Groups Bound", NULL, t->task.groups_max, es);
		if (t->res.grows > 0)
			ExplainPropertyInteger("Hash Table Grows", NULL, t->res.grows, es);
	}
}

static void
ExplainGpuAggImpl(GpuAggState *s, ExplainState *es)
{
	CustomScan *cscan = (CustomScan *) s->t.css.ss.ps.plan;
	GpuAggPrivate priv;

	GpuAggPrivateRead(cscan->custom_private, &priv);
	if (s->distinct)
		ExplainPropertyText("Distinct", strVal(priv.distinct_text), es);
	/* a star join's join filter, tested with the dimensions' payloads */
	if (strVal(priv.join_filter_text)[0] != '\0')
		ExplainPropertyText("GPU Join Filter", strVal(priv.join_filter_text), es);
	/* HAVING's terms the GPU tests before groups come back (pg_gpu_agg_task.having) */
	if (s->t.task.nhaving > 0)
		ExplainPropertyInteger("HAVING Terms Tested on the GPU", NULL, s->t.task.nhaving, es);
	/* a LEFT JOIN's preserved keys, each a group (pg_gpu_agg_task.seed_set) */
	if (s->t.task.seed_set > 0)
	{
		ExplainPropertyText("Seeded Groups", "every key of the preserved side", es);
		if (es->analyze)
			ExplainPropertyInteger("Groups Without Rows", NULL, s->seeded_empty, es);
	}
	PgGpuTableNodeExplain(&s->t, strVal(priv.filter_text), es, explain_groups);
}

static void
ExplainGpuAgg(CustomScanState *node, List *ancestors, ExplainState *es)
{
	PG_GPU_GUARD(ExplainGpuAggImpl((GpuAggState *) node, es));
}

void
PgGpuAggExecInit(void)
{
	RegisterCustomScanMethods(&gpuagg_scan_methods);
}
