/*
 * heap_reader.cpp — streaming a heap table's pages to the GPU engine, for every
 * node that scans a table (GpuAgg, GpuSort, GpuHashJoin, GpuSemiJoin) and for a
 * key set collected from a table's pages (PgGpuCollectKeys, table_task.cpp).
 * The column cache's request and which blocks come from it are
 * service/cc_client.cpp's; heap_reader_int.h is what this file and
 * table_task.cpp share.
 *
 * The CPU never touches tuples one at a time here.  It walks the table's blocks,
 * pins each buffer, and under the share lock records the line-pointer count and,
 * for a page that is not all-visible, a visibility bitmap computed with
 * PostgreSQL's own HeapTupleSatisfiesVisibility for the query's snapshot
 * (heap_page.cpp).  Then:
 *
 *  - registered mode (default): the shared buffer pool is registered with the GPU,
 *    so a chunk is just a list of device addresses of pinned buffers; the kernel
 *    reads the pages in place over PCIe.  Pins are held until the chunk's kernel
 *    has finished.  This is safe without the content lock: the pin blocks pruning
 *    and defragmentation (they need a cleanup lock), heap tuple data is never
 *    rewritten in place, and new tuples land behind the line-pointer count we
 *    captured under the lock.
 *  - gather mode (registration impossible or disabled): pages are memcpy'd into a
 *    pinned staging buffer and the pin is dropped at once.
 *  - a table cache hit (table_cache.cpp): the pages' copies already in GPU
 *    memory are handed over by address; nothing is pinned.
 *
 * Chunks rotate through PG_GPU_AGG_SLOTS slots, each on its own CUDA stream, so
 * pinning chunk k+1 overlaps with the GPU working on chunk k.  A big table read
 * in place may be pinned by parallel workers instead (pin_workers.cpp), the
 * backend only handing their chunks over.
 *
 * A scan that cannot go on (no GPU, out of GPU memory, a page the GPU cannot
 * decode, a CUDA error) returns false with its reason in ps->fb_*; the caller
 * ends the engine, then PgGpuScanRelease drops the pins, and runs its CPU plan.
 */
extern "C" {
#include "postgres.h"

#include "access/heapam.h"
#include "access/visibilitymap.h"
#include "access/visibilitymapdefs.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/catalog.h"
#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"
#include "storage/buf_internals.h"
#include "storage/bufmgr.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "pg_gpu.h"
#include "pg_gpu_engine.h"
#include "expr/expr_compile.h"
#include "scan/buffer_hints.h"
#include "scan/heap_page.h"
#include "scan/heap_reader.h"
#include "service/service.h"
}

#include "service/channel.h"
#include "scan/heap_reader_int.h"

/*
 * Where each block of a recently scanned table sat in shared buffers.  The next
 * scan pins it with ReadRecentBuffer, which checks the buffer's tag instead of
 * looking the block up in the buffer mapping table; that lookup is the largest
 * part of the CPU's per-page cost.  A stale entry only costs the normal lookup.
 */
#define RECENT_TABLES 8

typedef struct RecentBuffers
{
	RelFileNode node;
	uint32		hint_base;		/* the file's place in the shared hints */
	BlockNumber nblocks;
	Buffer	   *bufs;			/* in TopMemoryContext */
	uint64		last_use;
} RecentBuffers;

static RecentBuffers recent[RECENT_TABLES];
static uint64 recent_clock = 0;

static RecentBuffers *
recent_buffers(Relation rel, BlockNumber nblocks)
{
	RecentBuffers *victim = &recent[0];

	for (int i = 0; i < RECENT_TABLES; i++)
	{
		RecentBuffers *r = &recent[i];

		if (r->bufs && RelFileNodeEquals(r->node, rel->rd_node))
		{
			if (r->nblocks < nblocks)
			{
				r->bufs = (Buffer *) repalloc(r->bufs, sizeof(Buffer) * nblocks);
				memset(r->bufs + r->nblocks, 0, sizeof(Buffer) * (nblocks - r->nblocks));
				r->nblocks = nblocks;
			}
			r->last_use = ++recent_clock;
			return r;
		}
		if (r->last_use < victim->last_use)
			victim = r;
	}
	if (victim->bufs)
		pfree(victim->bufs);
	victim->node = rel->rd_node;
	victim->hint_base = PgGpuBufferHintBase(&rel->rd_node);
	victim->nblocks = nblocks;
	victim->bufs = (Buffer *) MemoryContextAllocZero(TopMemoryContext, sizeof(Buffer) * Max(1, nblocks));
	victim->last_use = ++recent_clock;
	return victim;
}

/*
 * The per-page CPU cost is mostly cache misses on the buffer descriptor and the
 * page header.  With the recent-buffer cache we know where blocks ahead of us
 * live, so we start those loads early.
 */
#define PREFETCH_AHEAD 8

static inline void
prefetch_buffer(Buffer b)
{
	if (b != InvalidBuffer && !BufferIsLocal(b))
	{
		__builtin_prefetch(GetBufferDescriptor(b - 1), 1);
		__builtin_prefetch(BufferGetPage(b), 0);
	}
}

/* Where blk probably is: this backend's last scan, else any backend's. */
static inline Buffer
recent_or_hint(RecentBuffers *rb, BlockNumber blk)
{
	Buffer		b = rb->bufs[blk];

	return b != InvalidBuffer ? b : PgGpuBufferHint(rb->hint_base, blk);
}

/* Pin a block, through the recent-buffer cache when there is one. */
static inline Buffer
pin_block(Relation rel, BlockNumber blk, BufferAccessStrategy strategy, RecentBuffers *rb)
{
	Buffer		b;

	if (rb && rb->bufs[blk] != InvalidBuffer &&
		ReadRecentBuffer(rel->rd_node, MAIN_FORKNUM, blk, rb->bufs[blk]))
		return rb->bufs[blk];
	if (rb && !RelationUsesLocalBuffers(rel))
	{
		/*
		 * Another backend's scan may know (a new connection's first scan).
		 * Shared buffers only: the hints are keyed by the file alone, which a
		 * temporary table's does not tell from a permanent one's (the planner
		 * keeps temporary tables off the GPU anyway).
		 */
		Buffer		h = PgGpuBufferHint(rb->hint_base, blk);

		if (h != InvalidBuffer && h != rb->bufs[blk] &&
			ReadRecentBuffer(rel->rd_node, MAIN_FORKNUM, blk, h))
		{
			rb->bufs[blk] = h;
			return h;
		}
	}
	b = ReadBufferExtended(rel, MAIN_FORKNUM, blk, RBM_NORMAL, strategy);
	if (rb)
	{
		rb->bufs[blk] = b;
		if (!RelationUsesLocalBuffers(rel))
			PgGpuBufferHintSet(rb->hint_base, blk, b);
	}
	return b;
}

/*
 * Stops the scan's pin workers and, with release_pins, drops the pins it holds
 * (the engine reading those pages must have finished); safe to repeat.
 */
void
PgGpuScanRelease(PgGpuPageScan *ps, bool release_pins)
{
	if (ps->pin_ctx)
	{
		PgGpuPinCtx *ctx = ps->pin_ctx;

		ps->pin_ctx = NULL;
		PgGpuPinWorkersAbort(ctx);
	}
	/* a fill that did not finish leaves no copies (the engine has ended) */
	if (ps->rel)
		PgGpuTableCacheDone(&ps->tc, ps->rel, false);
	if (release_pins)
		for (int i = 0; i < PG_GPU_AGG_SLOTS; i++)
		{
			for (int j = 0; j < ps->npins[i]; j++)
				ReleaseBuffer(ps->pins[i][j]);
			ps->npins[i] = 0;
		}
}

/*
 * Address the engine reads a pinned buffer at: the device address in the
 * registered pool, or, when the engine is emulated, the page itself (shared
 * memory has the same address in every backend).
 */
static inline uint64
page_addr(PgGpuPageScan *ps, Buffer b)
{
	if (ps->emulate)
		return (uint64) (uintptr_t) BufferGetPage(b);
	if (ps->remote)
		return ps->cc.pool_dev + (uint64) (b - 1) * BLCKSZ;
	return PgGpuSharedBufferDeviceAddr(b - 1);
}

/* page_addr for a chunk's many buffers: the pool's base once, then each offset. */
static inline uint64
chunk_base(PgGpuPageScan *ps)
{
	return ps->emulate ? 0 : page_addr(ps, 1);
}

static inline uint64
chunk_addr(PgGpuPageScan *ps, uint64 base, Buffer b)
{
	return ps->emulate ? (uint64) (uintptr_t) BufferGetPage(b) : base + (uint64) (b - 1) * BLCKSZ;
}

/* Wait (interruptibly) until the slot's chunk is done, then drop its pins. */
static void
wait_slot(PgGpuPageScan *ps, int slot)
{
	int			spins = 0;
	instr_time	t;

	INSTR_TIME_SET_CURRENT(t);
	while (!pg_gpu_agg_slot_idle(ps->agg, slot))
	{
		CHECK_FOR_INTERRUPTS();
		if (++spins > 2000)
			pg_usleep(20);
	}
	PgGpuLap(&ps->t_wait, &t);
	for (int j = 0; j < ps->npins[slot]; j++)
	{
		if (j + PREFETCH_AHEAD < ps->npins[slot])
			__builtin_prefetch(GetBufferDescriptor(ps->pins[slot][j + PREFETCH_AHEAD] - 1), 1);
		ReleaseBuffer(ps->pins[slot][j]);
	}
	ps->npins[slot] = 0;
	PgGpuLap(&ps->t_pages, &t);
}

/*
 * Room for n pins per engine slot in the backend's own pin arrays (kept from
 * run to run; pg_gpu.chunk_pages may have grown since).
 */
static void
reserve_pins(PgGpuPageScan *ps, int n)
{
	if (ps->pins_cap >= n)
		return;
	for (int i = 0; i < PG_GPU_AGG_SLOTS; i++)
	{
		Assert(ps->npins[i] == 0);
		if (ps->pins[i])
			pfree(ps->pins[i]);
		ps->pins[i] = (Buffer *) MemoryContextAlloc(ps->cxt, sizeof(Buffer) * n);
	}
	ps->pins_cap = n;
}

/* A chunk was handed over; false once pg_gpu.debug_fail_after_chunks says so. */
static bool
count_chunk(PgGpuPageScan *ps)
{
	ps->chunks++;
	if (pg_gpu_debug_fail_after_chunks >= 0 && ps->chunks > pg_gpu_debug_fail_after_chunks)
		return scan_fail(ps, PG_GPU_FB_INJECTED, "simulated GPU failure");
	return true;
}

/*
 * Pin blocks [start, end) in the leader into engine slot e's buffers (its pins
 * in ps->pins[e]); the chunk's pages and bitmaps.
 */
static void
leader_fill(PgGpuPageScan *ps, int e, BlockNumber start, BlockNumber end,
			BufferAccessStrategy strategy, pg_gpu_agg_slot *buf, int *npages, int *nvis)
{
	uint64		base = chunk_base(ps);
	int			n = 0,
				nv = 0;

	for (BlockNumber blk = start; blk < end; blk++)
	{
		Buffer		b;
		OffsetNumber nlp;
		bool		has_bits;
		bool		stable;
		uint32	   *bits = buf->vis + (size_t) nv * PG_GPU_VIS_WORDS;

		CHECK_FOR_INTERRUPTS();
		b = PgGpuPinInspect(ps->rel, ps->snapshot, blk, strategy, bits, &nlp, &has_bits, &stable);
		if (b == InvalidBuffer)
			continue;
		PgGpuTableCacheNote(&ps->tc, blk, nlp, has_bits, stable, bits);
		buf->refs[n].addr = chunk_addr(ps, base, b);
		buf->refs[n].nlp = nlp;
		buf->refs[n].vis_idx = has_bits ? nv++ : -1;
		ps->pins[e][ps->npins[e]++] = b;
		if (ps->page_blk)
			ps->page_blk[ps->npage_blk++] = blk;
		n++;
	}
	*npages = n;
	*nvis = nv;
}

static inline bool scan_bulkread(PgGpuPageScan *ps);

#define OWNER_LEADER (-2)		/* an engine slot's chunk the leader pinned */

/*
 * The leader's loop when parallel workers pin the pages: take published chunks,
 * hand them to the GPU, and tell their workers to unpin once the GPU is done.
 * Until the first worker's chunk arrives, the leader pins chunks itself rather
 * than leave the GPU idle while the workers start.
 */
static bool
run_chunks_from_workers(PgGpuPageScan *ps, instr_time *lapt)
{
	PgGpuPinCtx *ctx = ps->pin_ctx;
	int			owner[PG_GPU_AGG_SLOTS];
	bool		workers_delivered = false;
	BufferAccessStrategy strategy = NULL;
	pg_gpu_error err;

	reserve_pins(ps, PG_GPU_PIN_CHUNK_PAGES);
	for (int e = 0; e < PG_GPU_AGG_SLOTS; e++)
		owner[e] = -1;
	for (;;)
	{
		bool		progress = false;
		bool		busy = false;

		for (int e = 0; e < PG_GPU_AGG_SLOTS; e++)
			if (owner[e] != -1 && pg_gpu_agg_slot_idle(ps->agg, e))
			{
				if (owner[e] == OWNER_LEADER)
				{
					for (int j = 0; j < ps->npins[e]; j++)
						ReleaseBuffer(ps->pins[e][j]);
					ps->npins[e] = 0;
				}
				else
					PgGpuPinChunkDone(ctx, owner[e]);
				owner[e] = -1;
				progress = true;
			}
		for (int e = 0; e < PG_GPU_AGG_SLOTS; e++)
		{
			PgGpuPinChunkView view;
			pg_gpu_agg_slot buf;
			int			idx;
			BlockNumber start,
						end;

			if (owner[e] != -1)
			{
				busy = true;
				continue;
			}
			if ((idx = PgGpuPinTakeReady(ctx, &view)) < 0)
			{
				int			npages,
							nvis;

				if (workers_delivered || !PgGpuPinClaim(ctx, &start, &end))
					break;
				if (strategy == NULL && scan_bulkread(ps))
					strategy = GetAccessStrategy(BAS_BULKREAD);
				if (pg_gpu_agg_slot_get(ps->agg, e, &buf, &err) != PG_GPU_OK)
					return scan_fail(ps, PgGpuFallbackFor(err.status), err.message);
				leader_fill(ps, e, start, end, strategy, &buf, &npages, &nvis);
				progress = true;
				if (npages == 0)
					continue;
				owner[e] = OWNER_LEADER;
				busy = true;
				ps->leader_chunks++;
				if (pg_gpu_agg_submit(ps->agg, e, npages, nvis, &err) != PG_GPU_OK)
					return scan_fail(ps, PgGpuFallbackFor(err.status), err.message);
				if (!count_chunk(ps))
					return false;
				continue;
			}
			workers_delivered = true;
			progress = true;
			if (view.npages == 0)
			{
				PgGpuPinChunkDone(ctx, idx);
				continue;
			}
			if (pg_gpu_agg_slot_get(ps->agg, e, &buf, &err) != PG_GPU_OK)
				return scan_fail(ps, PgGpuFallbackFor(err.status), err.message);
			/*
			 * The leader's per-page work is the scan's one serial part, so it
			 * reads no buffer descriptor (BufferGetBlockNumber: a call and a
			 * likely cache miss a page; the workers noted each block) and takes
			 * the address as the pool's base plus the buffer's offset.
			 */
			uint64		base = chunk_base(ps);

			for (int i = 0; i < view.npages; i++)
			{
				Buffer		b = view.buf[i];

				if (ps->page_blk)
					ps->page_blk[ps->npage_blk++] = view.blk[i];
				buf.refs[i].addr = chunk_addr(ps, base, b);
				buf.refs[i].nlp = view.nlp[i];
				buf.refs[i].vis_idx = view.vis_idx[i];
				if (ps->tc.use == PG_GPU_TC_FILL)
					PgGpuTableCacheNote(&ps->tc, view.blk[i], view.nlp[i],
										view.vis_idx[i] >= 0, view.stable[i],
										view.vis + (size_t) Max(view.vis_idx[i], 0) * PG_GPU_VIS_WORDS);
			}
			memcpy(buf.vis, view.vis, sizeof(uint32) * PG_GPU_VIS_WORDS * view.nvis);
			owner[e] = idx;
			busy = true;
			if (pg_gpu_agg_submit(ps->agg, e, view.npages, view.nvis, &err) != PG_GPU_OK)
				return scan_fail(ps, PgGpuFallbackFor(err.status), err.message);
			if (!count_chunk(ps))
				return false;
		}
		PgGpuLap(&ps->t_pages, lapt);
		/* every engine slot counts, not only those the submit loop reached */
		for (int e = 0; e < PG_GPU_AGG_SLOTS; e++)
			busy |= (owner[e] >= 0);
		if (!busy && PgGpuPinAllDelivered(ctx))
			break;
		if (!progress)
		{
			CHECK_FOR_INTERRUPTS();
			if (!busy)
				PgGpuPinWait(ctx);
		}
		PgGpuLap(&ps->t_wait, lapt);
	}
	ps->pin_ctx = NULL;
	PgGpuPinWorkersFinish(ctx);
	if (strategy)
		FreeAccessStrategy(strategy);
	PgGpuLap(&ps->t_pages, lapt);
	return true;
}

/*
 * Before the engine starts: whether the GPU can scan the relation now (not
 * under serializable isolation, an engine, a layout the kernels walk; false with
 * ps->fb_* set), and how its pages will reach it.  Read in place from the
 * registered buffer pool when the table is big enough to pay for registering it
 * (once per backend, in the background); copy small tables, and any table while
 * registration is under way.  Sets the task's emulate, layout, gather and chunk
 * size.
 */
static bool
scan_prepare(PgGpuPageScan *ps, Relation rel, Snapshot snapshot, MemoryContext cxt,
			 pg_gpu_agg_task *task, PgGpuSvcChannel *svc)
{
	Buffer	   *pins[PG_GPU_AGG_SLOTS];
	int			pins_cap = ps->pins_cap;

	/* the pin arrays of an earlier run (all released) are kept */
	memcpy(pins, ps->pins, sizeof(pins));
	memset(ps, 0, sizeof(*ps));
	memcpy(ps->pins, pins, sizeof(pins));
	ps->pins_cap = pins_cap;
	if (IsolationIsSerializable())
		return scan_fail(ps, PG_GPU_FB_SERIALIZABLE,
						 "serializable transactions need per-tuple predicate locks");
	task->emulate = pg_gpu_emulate_gpu ? 1 : 0;
	ps->svc = svc;
	ps->remote = PgGpuServiceTakes(task, svc != NULL);
	if (svc != NULL && !ps->remote)
		return scan_fail(ps, PG_GPU_FB_NO_GPU, "the GPU service stopped");
	if (!ps->remote && !task->emulate &&
		!PgGpuEnsureEngine(&ps->fb_reason, ps->fb_msg, sizeof(ps->fb_msg)))
		return false;
	if (!PgGpuFillLayout(rel, task))
		return scan_fail(ps, PG_GPU_FB_UNSUPPORTED, "the table's layout changed");
	ps->rel = rel;
	ps->snapshot = snapshot;
	ps->cxt = cxt;
	ps->emulate = task->emulate != 0;
	ps->nblocks = RelationGetNumberOfBlocks(rel);
	/* never hold more than a quarter of shared_buffers pinned */
	task->chunk_pages = Max(1, Min(pg_gpu_chunk_pages, NBuffers / (4 * PG_GPU_AGG_SLOTS)));
	ps->chunk_pages = task->chunk_pages;
	if (ps->remote && (ps->cc_req = PgGpuCcRequest(rel, snapshot, task, ps->nblocks)) != NULL)
	{
		/* the service's column cache, not the backend's own table cache */
		ps->registered = true;
		task->gather = 0;
		return true;
	}
	if (ps->remote)
	{
		/*
		 * The service reads every page in place.  A table this session keeps
		 * in its own GPU memory (or copies there now) stays with the
		 * backend's engine: the service has no table cache yet.  But a
		 * backend that has not started CUDA does not start it for that: on
		 * the H200 host that made a new session's second query take 332 ms
		 * instead of 20 (emulated, nothing starts: the cache is tested).
		 */
		/* a task on a held channel (its sets are the service's) runs there */
		if (svc == NULL && (ps->emulate || pg_gpu_engine_initialized()))
			PgGpuTableCacheStart(rel, ps->nblocks, ps->emulate, task, &ps->tc);
		if (ps->tc.use == PG_GPU_TC_NONE)
		{
			ps->registered = true;
			task->gather = 0;
			return true;
		}
		ps->remote = false;
		if (!task->emulate &&
			!PgGpuEnsureEngine(&ps->fb_reason, ps->fb_msg, sizeof(ps->fb_msg)))
		{
			PgGpuTableCacheDone(&ps->tc, rel, false);
			return false;
		}
	}
	if (ps->emulate)
		ps->registered = pg_gpu_register_buffers &&
			ps->nblocks >= (BlockNumber) pg_gpu_register_min_pages;
	else
		ps->registered = pg_gpu_register_buffers &&
			(ps->nblocks >= (BlockNumber) pg_gpu_register_min_pages ||
			 PgGpuSharedBuffersRegistered()) &&
			PgGpuRegisterSharedBuffers(false, ps->nblocks);
	task->gather = ps->registered ? 0 : 1;
	/* the table's pages in GPU memory (a hit reads them in place: gather = 0) */
	if (ps->tc.use == PG_GPU_TC_NONE)
		PgGpuTableCacheStart(rel, ps->nblocks, ps->emulate, task, &ps->tc);
	else if (ps->tc.use == PG_GPU_TC_HIT)
		task->gather = 0;
	return true;
}

bool
PgGpuScanPrepare(PgGpuPageScan *ps, Relation rel, Snapshot snapshot, MemoryContext cxt,
				 pg_gpu_agg_task *task, PgGpuSvcChannel *svc)
{
	bool		ok = scan_prepare(ps, rel, snapshot, cxt, task, svc);

	/* registered pages: pulled into GPU memory by a copy kernel (not a sort's) */
	task->stage = ok && pg_gpu_stage_pages && ps->registered && !task->gather &&
		!task->pages_resident && !task->sort && !task->emulate;
	ps->staged = task->stage != 0;
	return ok;
}

/* The engine for a prepared scan: the GPU service's, or the backend's own. */
pg_gpu_agg *
PgGpuScanBegin(PgGpuPageScan *ps, const pg_gpu_agg_task *task, pg_gpu_error *err)
{
	ps->cc.entry = -1;

	/*
	 * A grouped task's hash table is sized for every row of a chunk being a
	 * new group (group/group.cu's reserve): its cached chunks hold no more
	 * blocks than a chunk of pages.  With 32,768, 16 clients' grouped tasks
	 * kept 50 GB in the service's pool (7 GB reading pages).  Unless the
	 * groups are proven few (a star join's, groups_max, known once its sets
	 * are built): the table is then sized for them alone.
	 */
	ps->cc_run_blocks = task->nkeys > 0 && !(task->groups_max > 0 && task->groups_max <= 65536)
		? Min(ps->chunk_pages, SVC_RUN_BLOCKS) : SVC_RUN_BLOCKS;
	if (ps->remote)
		return PgGpuServiceBeginCc(ps->svc, task, ps->cc_req, &ps->cc, err);
	return pg_gpu_agg_begin(task, err);
}

/*
 * A table that fits comfortably stays in shared buffers, where the next query
 * reads it in place; a larger one cycles through a bulk-read ring instead of
 * flushing the pool.
 */
static inline bool
scan_bulkread(PgGpuPageScan *ps)
{
	return ps->nblocks > (BlockNumber) (NBuffers / 2);
}

/*
 * Start parallel workers that pin the pages for the GPU, when the scan reads
 * them in place and the table is big enough; whether they run (ps->pin_ctx).
 * Before the engine starts (a join's key set is built first) the chunk size
 * the task asks for stands in for the engine's slots, which PgGpuScanPages checks.
 */
bool
PgGpuScanStartWorkers(PgGpuPageScan *ps, int pin_workers_min_pages, int capacity)
{
	/*
	 * Pin workers spend CPUs to finish one scan sooner: that pays while CPUs
	 * are idle, not while other backends' GPU tasks run.  On the H200 host, 16
	 * clients connecting per query ran 95 queries/s with them (p95 316 ms)
	 * and 116/s without (p95 216 ms); one session's query ran 18 ms with them.
	 */
	if (ps->pin_ctx == NULL && ps->registered && ps->tc.use != PG_GPU_TC_HIT &&
		pg_gpu_pin_workers > 0 &&
		ps->nblocks >= (BlockNumber) pin_workers_min_pages && capacity >= PG_GPU_PIN_CHUNK_PAGES &&
		!PgGpuServiceOthersBusy())
	{
		ps->pin_tried = true;
		ps->pin_ctx = PgGpuPinWorkersStart(ps->rel, ps->snapshot, ps->nblocks, pg_gpu_pin_workers,
										   scan_bulkread(ps));
		if (ps->pin_ctx)
			ps->pin_workers = PgGpuPinWorkersLaunched(ps->pin_ctx);
	}
	return ps->pin_ctx != NULL;
}

/* The engine slot's previous chunk done (its pins dropped), its buffers in *buf. */
static bool
take_slot(PgGpuPageScan *ps, int slot, instr_time *lapt, pg_gpu_agg_slot *buf)
{
	pg_gpu_error err;

	wait_slot(ps, slot);
	INSTR_TIME_SET_CURRENT(*lapt);
	if (pg_gpu_agg_slot_get(ps->agg, slot, buf, &err) != PG_GPU_OK)
		return scan_fail(ps, PgGpuFallbackFor(err.status), err.message);
	return true;
}

/*
 * Hand the slot's npages to the engine if it holds anything (pages, or runs of
 * the column cache's blocks); a chunk counted.
 */
static bool
give_slot(PgGpuPageScan *ps, int slot, int npages, int nvis, instr_time *lapt, int nruns = 0)
{
	pg_gpu_error err;

	if ((npages > 0 || nruns > 0) &&
		pg_gpu_agg_submit(ps->agg, slot, npages, nvis, &err) != PG_GPU_OK)
		return scan_fail(ps, PgGpuFallbackFor(err.status), err.message);
	PgGpuLap(&ps->t_pages, lapt);
	return count_chunk(ps);
}

/*
 * A table cache hit: hand the engine the copies' addresses in GPU memory, in
 * chunks as large as its slots take; nothing is pinned.
 */
static bool
scan_cached(PgGpuPageScan *ps, instr_time *lapt)
{
	const BlockNumber *blk;
	const uint16 *nlp;
	const int32 *vis_of;
	const uint32 *vis;
	uint64		arena;
	int64		n = PgGpuTableCachePages(&ps->tc, &blk, &nlp, &vis_of, &vis, &arena);
	int64		k = 0;
	int			slot = 0;

	while (k < n)
	{
		pg_gpu_agg_slot buf;
		int			npages = 0;
		int			nvis = 0;

		CHECK_FOR_INTERRUPTS();
		if (!take_slot(ps, slot, lapt, &buf))
			return false;
		for (; k < n && npages < buf.capacity; k++, npages++)
		{
			pg_gpu_page_ref *ref = &buf.refs[npages];

			ref->addr = arena + (uint64) k * BLCKSZ;
			ref->nlp = nlp[k];
			ref->vis_idx = -1;
			if (vis_of[k] >= 0)
			{
				memcpy(buf.vis + (size_t) nvis * PG_GPU_VIS_WORDS,
					   vis + (size_t) vis_of[k] * PG_GPU_VIS_WORDS, sizeof(uint32) * PG_GPU_VIS_WORDS);
				ref->vis_idx = nvis++;
			}
			if (ps->page_blk)
				ps->page_blk[ps->npage_blk++] = blk[k];
		}
		if (!give_slot(ps, slot, npages, nvis, lapt))
			return false;
		slot = (slot + 1) % PG_GPU_AGG_SLOTS;
	}
	for (int i = 0; i < PG_GPU_AGG_SLOTS; i++)
		wait_slot(ps, i);
	return true;
}

static bool scan_shared_buffers(PgGpuPageScan *ps, instr_time *lapt, int pin_workers_min_pages);

/*
 * Stream every page of the relation to ps->agg (begun with the prepared task)
 * and wait for the GPU to finish with them: from the table cache, or from shared
 * buffers (and maybe filling the cache).  False with ps->fb_* set when the scan
 * cannot go on; the caller then ends the engine before PgGpuScanRelease.
 */
bool
PgGpuScanPages(PgGpuPageScan *ps, instr_time *lapt, int pin_workers_min_pages)
{
	bool		ok;

	if (ps->tc.use == PG_GPU_TC_HIT)
		ok = scan_cached(ps, lapt);
	else
		ok = scan_shared_buffers(ps, lapt, pin_workers_min_pages);
	return ok;
}

/*
 * The engine finished the scan without an error: a fill's copies are complete.
 * Not before: an engine that meets an error (an expression's, a page it cannot
 * decode) stops working on chunks, and their copies were never made; such a
 * scan's fill is abandoned by PgGpuScanRelease.
 */
void
PgGpuScanComplete(PgGpuPageScan *ps)
{
	PgGpuTableCacheDone(&ps->tc, ps->rel, true);
	PgGpuCcNoteScan(&ps->cc, ps->cc_blocks);
}

/* Pin the relation's pages in shared buffers and hand them to the engine. */
static bool
scan_shared_buffers(PgGpuPageScan *ps, instr_time *lapt, int pin_workers_min_pages)
{
	Relation	rel = ps->rel;
	Snapshot	snapshot = ps->snapshot;
	BlockNumber nblocks = ps->nblocks;
	BlockNumber blk = 0;
	BufferAccessStrategy strategy = NULL;
	RecentBuffers *rb = NULL;
	pg_gpu_agg_slot probe;
	pg_gpu_error err;
	int			slot = 0;
	int			capacity;

	if (pg_gpu_agg_slot_get(ps->agg, 0, &probe, &err) != PG_GPU_OK)
		return scan_fail(ps, PgGpuFallbackFor(err.status), err.message);
	/* workers started before the engine, for slots that turned out smaller */
	if (ps->pin_ctx && probe.capacity < PG_GPU_PIN_CHUNK_PAGES)
	{
		PgGpuPinCtx *ctx = ps->pin_ctx;

		ps->pin_ctx = NULL;
		ps->pin_workers = 0;
		PgGpuPinWorkersAbort(ctx);
	}
	/* the column cache's blocks are not pinned: the backend walks the table */
	if (ps->pin_ctx && ps->cc.entry >= 0)
	{
		PgGpuPinCtx *ctx = ps->pin_ctx;

		ps->pin_ctx = NULL;
		ps->pin_workers = 0;
		PgGpuPinWorkersAbort(ctx);
	}
	/* in place and big enough: let parallel workers do the pinning */
	if (ps->cc.entry < 0 && PgGpuScanStartWorkers(ps, pin_workers_min_pages, probe.capacity))
		return run_chunks_from_workers(ps, lapt);

	if (scan_bulkread(ps))
		strategy = GetAccessStrategy(BAS_BULKREAD);
	else if (nblocks > 0)
		rb = recent_buffers(rel, nblocks);

	reserve_pins(ps, ps->chunk_pages);

	/* the column cache's blocks (the entry's, under the VM pages at hand) */
	PgGpuCcWalk walk;
	bool		cc = ps->cc.entry >= 0;

	PgGpuCcWalkBegin(&walk, rel, &ps->cc);

	while (blk < nblocks)
	{
		pg_gpu_agg_slot buf;
		int			npages = 0;
		int			nvis = 0;
		int			nruns = 0;
		int			cached = 0;
		SvcRun	   *runs = cc ? ps->cc.runs[slot] : NULL;

		if (!take_slot(ps, slot, lapt, &buf))
		{
			PgGpuCcWalkEnd(&walk);
			return false;
		}
		capacity = Min(buf.capacity, ps->chunk_pages);

		for (; blk < nblocks && npages < capacity &&
			 !(cc && (nruns >= SVC_MAX_RUNS - 1 || cached >= ps->cc_run_blocks)); blk++)
		{
			Buffer		b;
			Page		page;
			OffsetNumber nlp;
			bool		has_bits;
			bool		stable;
			pg_gpu_page_ref *ref;

			CHECK_FOR_INTERRUPTS();
			if (cc)
			{
				/* blocks from the cache, from blk on: nothing to pin */
				uint32		n = PgGpuCcTake(&walk, blk, nblocks, ps->cc_run_blocks - cached,
											runs, &nruns);

				if (n > 0)
				{
					cached += n;
					ps->cc_blocks += n;
					blk += n - 1;	/* the loop adds the last one */
					continue;
				}
			}
			if (rb && blk + PREFETCH_AHEAD < nblocks)
				prefetch_buffer(recent_or_hint(rb, blk + PREFETCH_AHEAD));
			b = pin_block(rel, blk, strategy, rb);
			LockBuffer(b, BUFFER_LOCK_SHARE);
			page = BufferGetPage(b);
			nlp = PgGpuInspectPage(rel, snapshot, b, blk,
								   buf.vis + (size_t) nvis * PG_GPU_VIS_WORDS, &has_bits, &stable);
			if (nlp == 0)
			{
				UnlockReleaseBuffer(b);
				continue;
			}
			ref = &buf.refs[npages];
			ref->nlp = nlp;
			if (cc)
			{
				/* an all-visible page, under a VM page read before it: cache it */
				uint64		fill = stable ? PgGpuCcFillLsn(&walk) : 0;

				ps->cc.blk[slot][npages] = blk;
				ps->cc.fill_lsn[slot][npages] = fill;
				ps->cc_fill += fill != 0;
			}
			PgGpuTableCacheNote(&ps->tc, blk, nlp, has_bits, stable,
								buf.vis + (size_t) nvis * PG_GPU_VIS_WORDS);
			ref->vis_idx = has_bits ? nvis++ : -1;
			if (ps->registered)
			{
				LockBuffer(b, BUFFER_LOCK_UNLOCK);
				ref->addr = page_addr(ps, b);
				ps->pins[slot][ps->npins[slot]++] = b;
			}
			else
			{
				memcpy(buf.staging + (size_t) npages * BLCKSZ, page, BLCKSZ);
				ref->addr = 0;
				UnlockReleaseBuffer(b);
			}
			if (ps->page_blk)
				ps->page_blk[ps->npage_blk++] = blk;
			npages++;
		}
		if (cc)
			ps->cc.nruns[slot] = nruns;
		if (!give_slot(ps, slot, npages, nvis, lapt, nruns))
		{
			PgGpuCcWalkEnd(&walk);
			return false;
		}
		slot = (slot + 1) % PG_GPU_AGG_SLOTS;
	}
	for (int i = 0; i < PG_GPU_AGG_SLOTS; i++)
		wait_slot(ps, i);
	PgGpuCcWalkEnd(&walk);
	if (strategy)
		FreeAccessStrategy(strategy);
	return true;
}
