/*
 * heap_page.h — what the GPU needs to know of a heap table's pages: the
 * attributes' physical layout (for the planner and the executor) and, per
 * locked page, its line pointers and visibility bitmap (for the backend's page
 * scan and the pin workers).  Include after postgres.h.
 */
#ifndef PG_GPU_HEAP_PAGE_H
#define PG_GPU_HEAP_PAGE_H

#include "storage/buf.h"
#include "storage/off.h"
#include "utils/relcache.h"
#include "utils/snapshot.h"

#include "pg_gpu_engine.h"

/*
 * Fill the task's attribute layout from the relation; false if the kernels
 * cannot decode it.
 */
bool		PgGpuFillLayout(Relation rel, pg_gpu_agg_task *task);

/*
 * Line pointers and, unless all-visible, visibility bitmap of a locked page;
 * *stable: the bitmap (if any) holds for every snapshot.
 */
OffsetNumber PgGpuInspectPage(Relation rel, Snapshot snapshot, Buffer buf, BlockNumber blk,
							  uint32 *bits, bool *has_bits, bool *stable);

/*
 * Pin block blk and inspect it under the share lock (PgGpuInspectPage): the
 * buffer, pinned and unlocked, with *nlp line pointers; InvalidBuffer (no pin
 * kept) for a page with nothing to send.  The pin workers' and the leader's
 * per-page step of a scan read in place.
 */
Buffer		PgGpuPinInspect(Relation rel, Snapshot snapshot, BlockNumber blk,
							BufferAccessStrategy strategy, uint32 *bits, OffsetNumber *nlp,
							bool *has_bits, bool *stable);

#endif							/* PG_GPU_HEAP_PAGE_H */
