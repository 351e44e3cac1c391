/*
 * pin_workers.h — parallel workers that pin heap pages for the GPU (see
 * pin_workers.cpp).  Include after postgres.h.
 */
#ifndef PG_GPU_PIN_WORKERS_H
#define PG_GPU_PIN_WORKERS_H

#include "storage/buf.h"
#include "utils/relcache.h"
#include "utils/snapshot.h"

#define PG_GPU_PIN_CHUNK_PAGES 1024
#define PG_GPU_PIN_SLOTS 24

typedef struct PgGpuPinCtx PgGpuPinCtx;

/* A published chunk, valid until PgGpuPinChunkDone. */
typedef struct PgGpuPinChunkView
{
	int			npages;
	int			nvis;
	const Buffer *buf;
	const BlockNumber *blk;
	const uint16 *nlp;
	const int32 *vis_idx;
	const bool *stable;			/* each page's bitmap is the same for every
								 * snapshot (PgGpuInspectPage) */
	const uint32 *vis;
} PgGpuPinChunkView;

/*
 * Launch up to nworkers; NULL if none could start (the caller pins itself).
 * bulkread: pages not in shared buffers come in through bulk-read rings.
 */
PgGpuPinCtx *PgGpuPinWorkersStart(Relation rel, Snapshot snapshot, BlockNumber nblocks,
								  int nworkers, bool bulkread);
int			PgGpuPinWorkersLaunched(PgGpuPinCtx *ctx);
/*
 * The next chunk's blocks [*start, *end), for the leader to pin itself (while
 * the workers start); false when every block is claimed.
 */
bool		PgGpuPinClaim(PgGpuPinCtx *ctx, BlockNumber *start, BlockNumber *end);
/* A ready chunk's slot number (and its contents), or -1 if none is ready now. */
int			PgGpuPinTakeReady(PgGpuPinCtx *ctx, PgGpuPinChunkView *view);
bool		PgGpuPinAllDelivered(PgGpuPinCtx *ctx);
/* The GPU has finished with the chunk's pages: its worker may unpin them. */
void		PgGpuPinChunkDone(PgGpuPinCtx *ctx, int chunk);
/* Sleep briefly until some chunk changes state. */
void		PgGpuPinWait(PgGpuPinCtx *ctx);
void		PgGpuPinWorkersFinish(PgGpuPinCtx *ctx);
/* Tell the workers to unpin and stop (the leader is giving up), then finish. */
void		PgGpuPinWorkersAbort(PgGpuPinCtx *ctx);

#endif							/* PG_GPU_PIN_WORKERS_H */
