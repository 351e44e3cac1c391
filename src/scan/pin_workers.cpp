/*
 * pin_workers.cpp — pinning heap pages for the GPU in parallel workers.
 *
 * When the GPU reads pages in place, the only per-page work left to the CPU is
 * the buffer manager's: pin the buffer, take its share lock, note the line-pointer
 * count and (for pages that are not all-visible) per-tuple visibility, release the
 * lock, and unpin once the GPU is done with the page.  Measured on the GPU host,
 * that is 0.35-0.5 us per page in one backend, which bounds a 3 GB scan at
 * 130-180 ms while the GPU could finish in ~60 ms.  So that work is spread over
 * parallel workers:
 *
 *   - the leader keeps the CUDA context and only submits chunks;
 *   - workers claim ranges of CHUNK_PAGES blocks, pin and inspect them with the
 *     leader's snapshot, and publish buffer ids, line-pointer counts and
 *     visibility bitmaps in a ring of chunk slots in dynamic shared memory;
 *   - a worker keeps its pins until the leader marks the chunk done (the GPU has
 *     read those pages), then unpins and reuses the slot.
 *
 * A pin held by any backend keeps the buffer from being evicted or pruned, so the
 * leader may hand the pages' addresses to the GPU although it holds no pin itself.
 * Errors in a worker reach the leader through the parallel infrastructure at its
 * next CHECK_FOR_INTERRUPTS; an error in the leader terminates the workers, whose
 * aborts release their pins.
 */
extern "C" {
#include "postgres.h"

#include "access/parallel.h"
#include "access/heapam.h"
#include "access/table.h"
#include "access/xact.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "port/atomics.h"
#include "storage/bufmgr.h"
#include "storage/condition_variable.h"
#include "storage/shm_toc.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "pg_gpu.h"
#include "pg_gpu_layout.h"
#include "scan/heap_page.h"
#include "scan/pin_workers.h"

PGDLLEXPORT void PgGpuPinWorkerMain(dsm_segment *seg, shm_toc *toc);
}

#define PIN_SHARED_KEY	UINT64CONST(0x9C6A0001)
#define PIN_SNAPSHOT_KEY UINT64CONST(0x9C6A0002)

enum ChunkState
{
	CHUNK_FREE = 0,
	CHUNK_FILLING,				/* a worker is pinning its pages */
	CHUNK_READY,				/* published, pins held, waiting for the leader */
	CHUNK_TAKEN,				/* the leader has handed it to the GPU */
	CHUNK_DONE					/* the GPU has finished: the owner may unpin */
};

typedef struct PinChunk
{
	pg_atomic_uint32 state;
	int			npages;
	int			nvis;
	Buffer		buf[PG_GPU_PIN_CHUNK_PAGES];
	BlockNumber blk[PG_GPU_PIN_CHUNK_PAGES];	/* so the leader never reads a
												 * buffer descriptor */
	uint16		nlp[PG_GPU_PIN_CHUNK_PAGES];
	int32		vis_idx[PG_GPU_PIN_CHUNK_PAGES];
	bool		stable[PG_GPU_PIN_CHUNK_PAGES];
	uint32		vis[PG_GPU_PIN_CHUNK_PAGES * PG_GPU_VIS_WORDS];
} PinChunk;

typedef struct PinShared
{
	Oid			relid;
	BlockNumber nblocks;
	pg_atomic_uint32 next_block;	/* next unclaimed block range */
	pg_atomic_uint32 abort;		/* the leader gave up: unpin everything, stop */
	int			nslots;			/* chunks the workers may fill at once */
	bool		bulkread;		/* read missing pages through a bulk-read ring
								 * (a table too big to keep in shared buffers) */
	ConditionVariable cv;		/* any chunk changed state */
	PinChunk	chunks[PG_GPU_PIN_SLOTS];
} PinShared;

struct PgGpuPinCtx
{
	ParallelContext *pcxt;
	PinShared  *shared;
	int			total_chunks;
	int			delivered;
};

/* Pin, lock and inspect blocks [start, end) into chunk c (caller owns c). */
static void
fill_chunk(PinChunk *c, Relation rel, Snapshot snapshot, BlockNumber start, BlockNumber end,
		   BufferAccessStrategy strategy)
{
	int			n = 0,
				nvis = 0;

	for (BlockNumber blk = start; blk < end; blk++)
	{
		Buffer		b;
		OffsetNumber nlp;
		bool		has_bits;
		bool		stable;

		CHECK_FOR_INTERRUPTS();
		b = PgGpuPinInspect(rel, snapshot, blk, strategy, c->vis + (size_t) nvis * PG_GPU_VIS_WORDS,
							&nlp, &has_bits, &stable);
		if (b == InvalidBuffer)
			continue;
		c->buf[n] = b;
		c->blk[n] = blk;
		c->nlp[n] = nlp;
		c->vis_idx[n] = has_bits ? nvis++ : -1;
		c->stable[n] = stable;
		n++;
	}
	c->npages = n;
	c->nvis = nvis;
}

static void
unpin_chunk(PinChunk *c)
{
	for (int i = 0; i < c->npages; i++)
		ReleaseBuffer(c->buf[i]);
	c->npages = 0;
}

extern "C" void
PgGpuPinWorkerMain(dsm_segment *seg, shm_toc *toc)
{
	PinShared  *ps = (PinShared *) shm_toc_lookup(toc, PIN_SHARED_KEY, false);
	Snapshot	snapshot = RestoreSnapshot((char *) shm_toc_lookup(toc, PIN_SNAPSHOT_KEY, false));
	Relation	rel = table_open(ps->relid, AccessShareLock);
	bool		mine[PG_GPU_PIN_SLOTS] = {false};
	bool		more = true;
	BufferAccessStrategy strategy = ps->bulkread ? GetAccessStrategy(BAS_BULKREAD) : NULL;

	for (;;)
	{
		int			held = 0;
		int			slot = -1;

		if (pg_atomic_read_u32(&ps->abort))
		{
			for (int i = 0; i < PG_GPU_PIN_SLOTS; i++)
				if (mine[i])
					unpin_chunk(&ps->chunks[i]);
			break;
		}

		/* unpin chunks the GPU has finished with */
		for (int i = 0; i < PG_GPU_PIN_SLOTS; i++)
			if (mine[i])
			{
				if (pg_atomic_read_u32(&ps->chunks[i].state) == CHUNK_DONE)
				{
					unpin_chunk(&ps->chunks[i]);
					mine[i] = false;
					pg_atomic_write_u32(&ps->chunks[i].state, CHUNK_FREE);
					ConditionVariableBroadcast(&ps->cv);
				}
				else
					held++;
			}
		if (!more && held == 0)
			break;
		if (more)
			for (int i = 0; i < ps->nslots && slot < 0; i++)
			{
				uint32		expected = CHUNK_FREE;

				if (pg_atomic_compare_exchange_u32(&ps->chunks[i].state, &expected, CHUNK_FILLING))
					slot = i;
			}
		if (slot < 0)
		{
			ConditionVariableTimedSleep(&ps->cv, 10, PG_WAIT_EXTENSION);
			continue;
		}
		BlockNumber start = pg_atomic_fetch_add_u32(&ps->next_block, PG_GPU_PIN_CHUNK_PAGES);

		if (start >= ps->nblocks)
		{
			more = false;
			pg_atomic_write_u32(&ps->chunks[slot].state, CHUNK_FREE);
			continue;
		}
		fill_chunk(&ps->chunks[slot], rel, snapshot, start,
				   Min(ps->nblocks, start + PG_GPU_PIN_CHUNK_PAGES), strategy);
		mine[slot] = true;
		pg_atomic_write_u32(&ps->chunks[slot].state, CHUNK_READY);
		ConditionVariableBroadcast(&ps->cv);
	}
	ConditionVariableCancelSleep();
	table_close(rel, AccessShareLock);
}

PgGpuPinCtx *
PgGpuPinWorkersStart(Relation rel, Snapshot snapshot, BlockNumber nblocks, int nworkers,
					 bool bulkread)
{
	ParallelContext *pcxt;
	PinShared  *ps;
	Size		snap_size = EstimateSnapshotSpace(snapshot);
	char	   *snap_area;
	PgGpuPinCtx *ctx;

	/*
	 * Not from a parallel worker; but the leader may already be in parallel mode
	 * (a Gather in the plan, e.g. in GpuAgg's fallback child), where another
	 * parallel context is as legal as a second Gather.
	 */
	if (nworkers <= 0 || IsParallelWorker() || !IsUnderPostmaster)
		return NULL;
	EnterParallelMode();
	pcxt = CreateParallelContext("pg_gpu", "PgGpuPinWorkerMain", nworkers);
	shm_toc_estimate_chunk(&pcxt->estimator, sizeof(PinShared));
	shm_toc_estimate_chunk(&pcxt->estimator, snap_size);
	shm_toc_estimate_keys(&pcxt->estimator, 2);
	InitializeParallelDSM(pcxt);
	if (pcxt->seg == NULL)
	{
		DestroyParallelContext(pcxt);
		ExitParallelMode();
		return NULL;
	}
	ps = (PinShared *) shm_toc_allocate(pcxt->toc, sizeof(PinShared));
	ps->relid = RelationGetRelid(rel);
	ps->nblocks = nblocks;
	pg_atomic_init_u32(&ps->next_block, 0);
	pg_atomic_init_u32(&ps->abort, 0);
	ps->bulkread = bulkread;
	/* never more than a quarter of shared_buffers pinned ahead of the GPU */
	ps->nslots = Max(1, Min(PG_GPU_PIN_SLOTS, NBuffers / (4 * PG_GPU_PIN_CHUNK_PAGES)));
	ConditionVariableInit(&ps->cv);
	for (int i = 0; i < PG_GPU_PIN_SLOTS; i++)
	{
		pg_atomic_init_u32(&ps->chunks[i].state, CHUNK_FREE);
		ps->chunks[i].npages = 0;
	}
	shm_toc_insert(pcxt->toc, PIN_SHARED_KEY, ps);
	snap_area = (char *) shm_toc_allocate(pcxt->toc, snap_size);
	SerializeSnapshot(snapshot, snap_area);
	shm_toc_insert(pcxt->toc, PIN_SNAPSHOT_KEY, snap_area);
	LaunchParallelWorkers(pcxt);
	if (pcxt->nworkers_launched == 0)
	{
		WaitForParallelWorkersToFinish(pcxt);
		DestroyParallelContext(pcxt);
		ExitParallelMode();
		return NULL;
	}
	ctx = (PgGpuPinCtx *) palloc0(sizeof(PgGpuPinCtx));
	ctx->pcxt = pcxt;
	ctx->shared = ps;
	ctx->total_chunks = (int) ((nblocks + PG_GPU_PIN_CHUNK_PAGES - 1) / PG_GPU_PIN_CHUNK_PAGES);
	return ctx;
}

int
PgGpuPinWorkersLaunched(PgGpuPinCtx *ctx)
{
	return ctx->pcxt->nworkers_launched;
}

bool
PgGpuPinAllDelivered(PgGpuPinCtx *ctx)
{
	return ctx->delivered >= ctx->total_chunks;
}

bool
PgGpuPinClaim(PgGpuPinCtx *ctx, BlockNumber *start, BlockNumber *end)
{
	PinShared  *ps = ctx->shared;
	BlockNumber first;

	if (pg_atomic_read_u32(&ps->next_block) >= ps->nblocks)
		return false;
	first = pg_atomic_fetch_add_u32(&ps->next_block, PG_GPU_PIN_CHUNK_PAGES);
	if (first >= ps->nblocks)
		return false;
	*start = first;
	*end = Min(ps->nblocks, first + PG_GPU_PIN_CHUNK_PAGES);
	ctx->delivered++;			/* a chunk of the count, pinned by the leader */
	return true;
}

int
PgGpuPinTakeReady(PgGpuPinCtx *ctx, PgGpuPinChunkView *view)
{
	PinShared  *ps = ctx->shared;

	for (int i = 0; i < PG_GPU_PIN_SLOTS; i++)
	{
		uint32		expected = CHUNK_READY;

		if (pg_atomic_compare_exchange_u32(&ps->chunks[i].state, &expected, CHUNK_TAKEN))
		{
			PinChunk   *c = &ps->chunks[i];

			view->npages = c->npages;
			view->nvis = c->nvis;
			view->buf = c->buf;
			view->blk = c->blk;
			view->nlp = c->nlp;
			view->vis_idx = c->vis_idx;
			view->stable = c->stable;
			view->vis = c->vis;
			ctx->delivered++;
			return i;
		}
	}
	return -1;
}

void
PgGpuPinChunkDone(PgGpuPinCtx *ctx, int chunk)
{
	pg_atomic_write_u32(&ctx->shared->chunks[chunk].state, CHUNK_DONE);
	ConditionVariableBroadcast(&ctx->shared->cv);
}

void
PgGpuPinWait(PgGpuPinCtx *ctx)
{
	ConditionVariableTimedSleep(&ctx->shared->cv, 1, PG_WAIT_EXTENSION);
	ConditionVariableCancelSleep();
}

void
PgGpuPinWorkersAbort(PgGpuPinCtx *ctx)
{
	pg_atomic_write_u32(&ctx->shared->abort, 1);
	ConditionVariableBroadcast(&ctx->shared->cv);
	PgGpuPinWorkersFinish(ctx);
}

void
PgGpuPinWorkersFinish(PgGpuPinCtx *ctx)
{
	WaitForParallelWorkersToFinish(ctx->pcxt);
	DestroyParallelContext(ctx->pcxt);
	ExitParallelMode();
	pfree(ctx);
}
