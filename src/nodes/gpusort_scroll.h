/*
 * gpusort_scroll.h — GpuSort's rows kept for a scrollable cursor.
 *
 * PostgreSQL's Sort can be read backward, so a cursor over a sorted query may
 * FETCH BACKWARD even without SCROLL (PerformCursorOpen asks
 * ExecSupportsBackwardScan).  GpuSort hands its rows over in batches that are
 * gone once read, so where the executor asks for backward scans
 * (EXEC_FLAG_BACKWARD) it keeps the rows it emits in a random-access
 * tuplestore, as a Material node would, and reads them from there in either
 * direction.  Queries that only read forward pay nothing.
 */
#ifndef PG_GPU_GPUSORT_SCROLL_H
#define PG_GPU_GPUSORT_SCROLL_H

#ifdef __cplusplus
extern "C" {
#endif
#include "postgres.h"
#include "nodes/execnodes.h"
#include "utils/tuplestore.h"

typedef struct PgGpuScroll
{
	Tuplestorestate *store;		/* NULL: the node only runs forward */
	TupleTableSlot *slot;		/* a row read back from the store */
	bool		filled;			/* every row of this scan is in the store */
} PgGpuScroll;

/* eflags as BeginCustomScan got them; returns the eflags for the children. */
extern int	PgGpuScrollInit(PgGpuScroll *sc, CustomScanState *node, EState *estate, int eflags);
/* The next row in the executor's direction; next() yields the rows forward. */
extern TupleTableSlot *PgGpuScrollNext(PgGpuScroll *sc, CustomScanState *node,
									   TupleTableSlot *(*next) (CustomScanState *));
/* A rescan: the rows are produced again. */
extern void PgGpuScrollReset(PgGpuScroll *sc);
extern void PgGpuScrollEnd(PgGpuScroll *sc);

#ifdef __cplusplus
}
#endif

#endif							/* PG_GPU_GPUSORT_SCROLL_H */
