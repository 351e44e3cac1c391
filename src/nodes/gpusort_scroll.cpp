/*
 * gpusort_scroll.cpp — GpuSort's rows kept for a scrollable cursor (gpusort_scroll.h).
 */
extern "C" {
#include "postgres.h"

#include "executor/executor.h"
#include "executor/tuptable.h"
#include "miscadmin.h"

}

#include "nodes/gpusort_scroll.h"

int
PgGpuScrollInit(PgGpuScroll *sc, CustomScanState *node, EState *estate, int eflags)
{
	memset(sc, 0, sizeof(*sc));
	if ((eflags & EXEC_FLAG_BACKWARD) == 0)
		return eflags;
	sc->store = tuplestore_begin_heap(true, false, work_mem);
	sc->slot = ExecAllocTableSlot(&estate->es_tupleTable, ExecGetResultType(&node->ss.ps),
								  &TTSOpsMinimalTuple);
	/* the rows are read once, forward: the children need not go back */
	return eflags & ~(EXEC_FLAG_BACKWARD | EXEC_FLAG_MARK);
}

TupleTableSlot *
PgGpuScrollNext(PgGpuScroll *sc, CustomScanState *node,
				TupleTableSlot *(*next) (CustomScanState *))
{
	if (sc->store == NULL)
		return next(node);
	if (!sc->filled)
	{
		for (;;)
		{
			TupleTableSlot *row = next(node);

			if (TupIsNull(row))
				break;
			tuplestore_puttupleslot(sc->store, row);
		}
		sc->filled = true;
	}
	if (!tuplestore_gettupleslot(sc->store, ScanDirectionIsForward(node->ss.ps.state->es_direction),
								 false, sc->slot))
		return NULL;
	return sc->slot;
}

void
PgGpuScrollReset(PgGpuScroll *sc)
{
	if (sc->store == NULL)
		return;
	ExecClearTuple(sc->slot);
	tuplestore_clear(sc->store);
	sc->filled = false;
}

void
PgGpuScrollEnd(PgGpuScroll *sc)
{
	if (sc->store == NULL)
		return;
	ExecClearTuple(sc->slot);
	tuplestore_end(sc->store);
	sc->store = NULL;
}
