/*
 * gpusort_exec.cpp — executing GpuSort over a table's pages.
 *
 * GpuSort scans the table like GpuAgg (table_node.cpp: WHERE on the GPU, and a
 * set join's key set probed there), sorts the passing tuples on the GPU and
 * hands them up in order, read back in batches straight from the engine: its
 * scan tuples are the table's own heap tuples, pointing into the batch.  The
 * fallback is its child, PostgreSQL's cheapest sorted plan, whose rows it hands
 * up as they are.  A scrollable cursor's rows are kept (gpusort_scroll.cpp).
 * GpuSort over any other input is gpusort_exec_slot.cpp.
 */
extern "C" {
#include "postgres.h"

#include "executor/executor.h"

#include "pg_gpu.h"
#include "pg_gpu_engine.h"
#include "nodes/gpusort.h"
}

#include "guard.h"

static Node *CreateGpuSortState(CustomScan *cscan);
static void BeginGpuSort(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *ExecGpuSort(CustomScanState *node);
static void EndGpuSort(CustomScanState *node);
static void ReScanGpuSort(CustomScanState *node);
static void ExplainGpuSort(CustomScanState *node, List *ancestors, ExplainState *es);

CustomScanMethods gpusort_scan_methods = {
	"GpuSort",
	CreateGpuSortState
};

/* No mark/restore, no backward scan: PostgreSQL adds a Material node if needed. */
static const CustomExecMethods gpusort_exec_methods = {
	"GpuSort",
	BeginGpuSort,
	ExecGpuSort,
	EndGpuSort,
	ReScanGpuSort,
	NULL, NULL,
	NULL, NULL, NULL, NULL,
	NULL,
	ExplainGpuSort
};

/* Over a child plan (scanrelid 0), the slot path's state. */
static Node *
CreateGpuSortStateImpl(CustomScan *cscan)
{
	if (cscan->scan.scanrelid == 0)
		return PgGpuCreateSortSlotState(cscan);
	return (Node *) PgGpuTableNodeCreate(sizeof(GpuSortState), &gpusort_exec_methods,
										 PG_GPU_NODE_SORT, true);
}

static Node *
CreateGpuSortState(CustomScan *cscan)
{
	Node	   *state = NULL;

	PG_GPU_GUARD(state = CreateGpuSortStateImpl(cscan));
	return state;
}

static void
BeginGpuSortImpl(GpuSortState *s, EState *estate, int eflags)
{
	CustomScan *cscan = (CustomScan *) s->t.css.ss.ps.plan;
	GpuSortPrivate priv;

	GpuSortPrivateRead(cscan->custom_private, &priv);
	PgGpuTableNodeBegin(&s->t, priv.task);
	PgGpuTableNodeHeapSlot(&s->t, estate);
	/* a scrollable cursor's rows are kept; the children run forward */
	eflags = PgGpuScrollInit(&s->scroll, &s->t.css, estate, eflags);
	PgGpuTableNodeBeginChildren(&s->t, estate, eflags, priv.sets);
}

static void
BeginGpuSort(CustomScanState *node, EState *estate, int eflags)
{
	PG_GPU_GUARD(BeginGpuSortImpl((GpuSortState *) node, estate, eflags));
}

static TupleTableSlot *
ExecGpuSortImpl(GpuSortState *s)
{
	if (s->t.fallback)
		return PgGpuTableNodeChildRow(&s->t);	/* the query's rows */
	if (s->t.gpu_ran)
		return PgGpuTableNodeNextRow(&s->t);
	if (s->t.done)
		return NULL;
	if (!PgGpuTableNodeRun(&s->t))
		return PgGpuTableNodeChildRow(&s->t);
	return PgGpuTableNodeNextRow(&s->t);
}

static TupleTableSlot *
exec_forward(CustomScanState *node)
{
	return ExecGpuSortImpl((GpuSortState *) node);
}

static TupleTableSlot *
ExecGpuSort(CustomScanState *node)
{
	TupleTableSlot *slot = NULL;

	PG_GPU_GUARD(slot = PgGpuScrollNext(&((GpuSortState *) node)->scroll, node, exec_forward));
	return slot;
}

static void
EndGpuSortImpl(GpuSortState *s)
{
	PgGpuTableNodeRelease(&s->t, true, false);
	PgGpuScrollEnd(&s->scroll);
	PgGpuTableNodeEnd(&s->t);
}

static void
EndGpuSort(CustomScanState *node)
{
	PG_GPU_GUARD(EndGpuSortImpl((GpuSortState *) node));
}

static void
ReScanGpuSortImpl(GpuSortState *s)
{
	PgGpuScrollReset(&s->scroll);
	PgGpuTableNodeReScan(&s->t);
}

static void
ReScanGpuSort(CustomScanState *node)
{
	PG_GPU_GUARD(ReScanGpuSortImpl((GpuSortState *) node));
}

static void
ExplainGpuSortImpl(GpuSortState *s, ExplainState *es)
{
	CustomScan *cscan = (CustomScan *) s->t.css.ss.ps.plan;
	GpuSortPrivate priv;

	GpuSortPrivateRead(cscan->custom_private, &priv);
	PgGpuTableNodeExplain(&s->t, strVal(priv.filter_text), es, PgGpuTableNodeExplainBatched);
}

static void
ExplainGpuSort(CustomScanState *node, List *ancestors, ExplainState *es)
{
	PG_GPU_GUARD(ExplainGpuSortImpl((GpuSortState *) node, es));
}

void
PgGpuSortExecInit(void)
{
	RegisterCustomScanMethods(&gpusort_scan_methods);
}
