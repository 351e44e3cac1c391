/*
 * table_cache.cpp — a table's heap pages kept in GPU memory between queries.
 *
 * A table that a backend scans on the GPU a second time is copied, as the scan
 * sends its pages, into an arena in device memory (the engine copies each page
 * it is given: task.cache_fill).  Later scans hand the engine the arena's
 * addresses instead of pinning shared buffers: nothing crosses PCIe but the page
 * references, and the CPU touches no page.  The cache belongs to the backend
 * (each has its own CUDA context), within pg_gpu.table_cache_size, least
 * recently used first out.
 *
 * When may a scan read the copies?  Only when each holds exactly the tuples the
 * query's snapshot sees on that block.  The check, made at every scan before the
 * copies are read, uses the visibility map (VM) as index-only scans do:
 *
 *  - The fill keeps only pages that were all-visible (PD_ALL_VISIBLE) when the
 *    scan inspected them under the share lock; any other page ends the fill.
 *    On a page with unused line pointers, an insert may reuse one while the
 *    engine copies the page in place, so the copy goes with a bitmap of the line
 *    pointers that were normal under the lock (PgGpuInspectPage), the same for
 *    every snapshot.  Before the fill's first page, it records the LSN of each
 *    VM page.
 *  - Every change to a heap page's tuples (insert, update, delete, also by COPY
 *    or logical replication) clears the block's all-visible bit, in the same
 *    critical section as the change and before its transaction can commit.
 *    Setting a bit again (VACUUM) WAL-logs it and moves the VM page's LSN.
 *  - So if at the scan every block's bit is set and every VM page still has the
 *    recorded LSN, no bit was cleared since before the copies were taken: no
 *    tuple changed since, except by a change still in its critical section,
 *    whose transaction the snapshot cannot see.  Bits and LSN are read under the
 *    VM page's share lock (setting and clearing take it exclusively).  Blocks
 *    added (the block count differs), a new relfilenode (TRUNCATE, VACUUM FULL,
 *    CLUSTER, a rewrite) and an emptied VM all fail the check.
 *  - Where setting a bit does not move the LSN (tables that are not WAL-logged),
 *    in recovery, for catalogs (updated in place) and with old_snapshot_threshold
 *    (whose snapshot-too-old checks read each page), there is no cache.
 *
 * The VM's own layout (two bits per heap block, 4 blocks a byte, after the page
 * header) is PostgreSQL's; the check confirms on every VM page that its first
 * and last heap blocks map where this file expects, else nothing is cached.
 */
extern "C" {
#include "postgres.h"

#include "access/visibilitymap.h"
#include "access/visibilitymapdefs.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/catalog.h"
#include "funcapi.h"
#include "utils/builtins.h"
#include "catalog/pg_class.h"
#include "storage/bufmgr.h"
#include "storage/bufpage.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "pg_gpu.h"
#include "scan/table_cache.h"
}

#include <algorithm>

#include "guard.h"

/* heap blocks one VM page covers (visibilitymap.c's layout) */
#define TC_VM_BLOCKS ((BlockNumber) ((BLCKSZ - MAXALIGN(SizeOfPageHeaderData)) * 4))
#define TC_ENTRIES 32

typedef enum TcState
{
	TC_SEEN = 0,				/* scanned; no copies */
	TC_FILLING,					/* a scan is copying the pages */
	TC_VALID,					/* copies taken; checked before every use */
	TC_DEAD						/* a fill that an error ended: freed at the next start */
} TcState;

struct PgGpuTableCacheEntry
{
	bool		used;
	Oid			relid;
	RelFileNode node;
	TcState		state;
	bool		busy;			/* a scan is reading or filling it now */
	SubTransactionId subid;		/* ... started in this subtransaction */
	bool		emulate;		/* the arena is host memory */
	BlockNumber nblocks;
	int64		npages;			/* copies: the pages with line pointers */
	BlockNumber *blk;			/* each copy's block */
	uint16	   *nlp;			/* ... and line-pointer count */
	int32	   *vis_of;			/* ... and bitmap (-1: none) */
	uint32	   *vis;			/* bitmaps of all-visible pages with unused line
								 * pointers: the normal ones when copied */
	int64		nvis;
	int64		vis_cap;
	XLogRecPtr *vm_lsn;			/* each VM page's LSN before the fill */
	uint64		arena;
	uint64		bytes;
	uint64		last_use;		/* also tells a scan that its entry is still its own */
	int64		scans;			/* scans that started (reading the copies or not) */
	int64		hits;			/* ... that read the copies */
	bool		release;		/* free the copies when the scan using them ends */
};

static PgGpuTableCacheEntry tc[TC_ENTRIES];
static uint64 tc_clock = 0;
static uint64 tc_bytes = 0;		/* arenas held */
static uint64 tc_no_fill_until = 0;	/* after running out of GPU memory: no
									 * fills until tc_clock passes this */
static bool tc_callbacks = false;

static void
tc_free_arena(PgGpuTableCacheEntry *e)
{
	if (e->arena)
	{
		pg_gpu_cache_free(e->arena, e->emulate ? 1 : 0);
		tc_bytes -= e->bytes;
	}
	e->arena = 0;
	e->bytes = 0;
	if (e->blk)
		pfree(e->blk);
	if (e->nlp)
		pfree(e->nlp);
	if (e->vis_of)
		pfree(e->vis_of);
	if (e->vis)
		pfree(e->vis);
	e->vis_of = NULL;
	e->vis = NULL;
	e->nvis = e->vis_cap = 0;
	if (e->vm_lsn)
		pfree(e->vm_lsn);
	e->blk = NULL;
	e->nlp = NULL;
	e->vm_lsn = NULL;
	e->npages = 0;
	e->state = TC_SEEN;
	e->release = false;
}

/*
 * An error ended the scans that were using entries: they are no longer busy,
 * and a fill's copies are incomplete.  The engine that was writing them is
 * ended by its node's cleanup, which may come later: the arena is freed at the
 * next start.
 */
static void
tc_abandon(SubTransactionId from)
{
	for (int i = 0; i < TC_ENTRIES; i++)
	{
		PgGpuTableCacheEntry *e = &tc[i];

		if (e->used && e->busy && e->subid >= from)
		{
			e->busy = false;
			if (e->state == TC_FILLING || e->release)
				e->state = TC_DEAD;
		}
	}
}

static void
tc_xact_callback(XactEvent event, void *arg)
{
	if (event == XACT_EVENT_ABORT || event == XACT_EVENT_PARALLEL_ABORT ||
		event == XACT_EVENT_COMMIT || event == XACT_EVENT_PARALLEL_COMMIT ||
		event == XACT_EVENT_PREPARE)
		tc_abandon(InvalidSubTransactionId);
}

static void
tc_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
					SubTransactionId parentSubid, void *arg)
{
	if (event == SUBXACT_EVENT_ABORT_SUB)
		tc_abandon(mySubid);
}

/*
 * Whether the relation's copies can be checked (the header comment): not where
 * setting a VM bit leaves its LSN, nor for a relfilenode created in this
 * transaction, which COPY FREEZE may fill: it adds tuples to an all-visible
 * page without clearing its bit (heap_multi_insert with HEAP_INSERT_FROZEN).
 */
static bool
tc_eligible(Relation rel)
{
	return rel->rd_rel->relpersistence == RELPERSISTENCE_PERMANENT &&
		RelationNeedsWAL(rel) &&
		rel->rd_createSubid == InvalidSubTransactionId &&
		rel->rd_firstRelfilenodeSubid == InvalidSubTransactionId &&
		!IsCatalogRelation(rel) &&
		!RecoveryInProgress() &&
		old_snapshot_threshold < 0;
}

/*
 * Walk the VM pages of blocks 0 .. nblocks-1 under their share locks: record
 * (record) or compare each page's LSN, and check that every block is
 * all-visible.  False if any is not, an LSN differs, or the VM is missing.
 */
static bool
tc_vm_check(Relation rel, BlockNumber nblocks, XLogRecPtr *lsn, bool record)
{
	Buffer		vmbuf = InvalidBuffer;
	BlockNumber nvm = (nblocks + TC_VM_BLOCKS - 1) / TC_VM_BLOCKS;
	bool		ok = true;

	for (BlockNumber v = 0; v < nvm && ok; v++)
	{
		BlockNumber first = v * TC_VM_BLOCKS;
		BlockNumber end = Min(nblocks, first + TC_VM_BLOCKS);
		uint8		st_first;
		Page		page;
		const uint8 *map;

		/* pins VM page v (the layout check: first and last block map to it) */
		(void) visibilitymap_get_status(rel, end - 1, &vmbuf);
		if (!BufferIsValid(vmbuf) || BufferGetBlockNumber(vmbuf) != v)
		{
			ok = false;
			break;
		}
		st_first = visibilitymap_get_status(rel, first, &vmbuf);
		if (!BufferIsValid(vmbuf) || BufferGetBlockNumber(vmbuf) != v)
		{
			ok = false;
			break;
		}
		LockBuffer(vmbuf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(vmbuf);
		if (record)
			lsn[v] = PageGetLSN(page);
		else if (PageGetLSN(page) != lsn[v])
			ok = false;
		map = (const uint8 *) PageGetContents(page);
		/* the first block's bit, read as visibilitymap.c reads it */
		if (ok && (st_first & VISIBILITYMAP_ALL_VISIBLE) && !(map[0] & VISIBILITYMAP_ALL_VISIBLE))
			ok = false;
		/* four blocks a byte: whole bytes first (0x55: every all-visible bit) */
		{
			BlockNumber nb = end - first;
			BlockNumber full = nb / 4;

			for (BlockNumber i = 0; ok && i < full; i++)
				if ((map[i] & 0x55) != 0x55)
					ok = false;
			for (BlockNumber b = full * 4; ok && b < nb; b++)
				if (!((map[b >> 2] >> ((b & 3) * BITS_PER_HEAPBLOCK)) & VISIBILITYMAP_ALL_VISIBLE))
					ok = false;
		}
		LockBuffer(vmbuf, BUFFER_LOCK_UNLOCK);
	}
	if (BufferIsValid(vmbuf))
		ReleaseBuffer(vmbuf);
	return ok;
}

/*
 * The relation's entry: its relfilenode's, else the relation's with an older
 * relfilenode (TRUNCATE, VACUUM FULL: its copies go, its scans count on), else
 * a new one in place of the least recently used (NULL: all busy).
 */
static PgGpuTableCacheEntry *
tc_lookup(Relation rel)
{
	PgGpuTableCacheEntry *victim = NULL;
	PgGpuTableCacheEntry *same_rel = NULL;

	for (int i = 0; i < TC_ENTRIES; i++)
	{
		PgGpuTableCacheEntry *e = &tc[i];

		if (e->used && e->relid == RelationGetRelid(rel) &&
			RelFileNodeEquals(e->node, rel->rd_node))
			return e;
		if (e->busy)
			continue;
		if (e->used && e->relid == RelationGetRelid(rel))
			same_rel = e;
		/* an unused entry, else the least recently used one without copies */
		if (victim == NULL || !e->used ||
			(victim->used && ((victim->arena != 0) > (e->arena != 0) ||
							  ((victim->arena != 0) == (e->arena != 0) &&
							   e->last_use < victim->last_use))))
			victim = e;
	}
	if (same_rel)
	{
		tc_free_arena(same_rel);
		same_rel->node = rel->rd_node;
		return same_rel;
	}
	if (victim == NULL)
		return NULL;
	tc_free_arena(victim);
	memset(victim, 0, sizeof(*victim));
	victim->used = true;
	victim->relid = RelationGetRelid(rel);
	victim->node = rel->rd_node;
	return victim;
}

/* Free least recently used arenas (not busy, not keep) until bytes more fit. */
static bool
tc_make_room(uint64 bytes, uint64 budget, PgGpuTableCacheEntry *keep)
{
	while (tc_bytes + bytes > budget)
	{
		PgGpuTableCacheEntry *victim = NULL;

		for (int i = 0; i < TC_ENTRIES; i++)
		{
			PgGpuTableCacheEntry *e = &tc[i];

			if (e->used && e->arena && !e->busy && e != keep &&
				(victim == NULL || e->last_use < victim->last_use))
				victim = e;
		}
		if (victim == NULL)
			return false;
		tc_free_arena(victim);
	}
	return true;
}

/*
 * The GPU ran out of memory: free the copies (those in use when their scan
 * ends), and fill none for the next 64 scans, lest every query allocate a copy
 * and run out again.
 */
void
PgGpuTableCacheRelease(void)
{
	for (int i = 0; i < TC_ENTRIES; i++)
		if (tc[i].used && tc[i].arena)
		{
			if (tc[i].busy)
				tc[i].release = true;
			else
				tc_free_arena(&tc[i]);
		}
	tc_no_fill_until = tc_clock + 64;
}

void
PgGpuTableCacheStart(Relation rel, BlockNumber nblocks, bool emulate, pg_gpu_agg_task *task,
					 PgGpuTableCacheScan *cs)
{
	uint64		budget = (uint64) pg_gpu_table_cache_size * 1024;
	uint64		bytes = (uint64) nblocks * BLCKSZ;
	PgGpuTableCacheEntry *e;
	pg_gpu_error err;
	uint64		arena;

	memset(cs, 0, sizeof(*cs));
	task->cache_fill = 0;
	task->cache_pages = 0;
	task->pages_resident = 0;
	if (!tc_callbacks)
	{
		RegisterXactCallback(tc_xact_callback, NULL);
		RegisterSubXactCallback(tc_subxact_callback, NULL);
		tc_callbacks = true;
	}
	/*
	 * An engine that wrote a dead fill's arena may outlive the error (a cursor's,
	 * kept by an outer transaction level); cudaFree waits for the device's work.
	 */
	for (int i = 0; i < TC_ENTRIES; i++)
		if (tc[i].used && tc[i].state == TC_DEAD)
			tc_free_arena(&tc[i]);
	(void) tc_make_room(0, budget, NULL);	/* the budget may have shrunk */
	if (budget == 0 || nblocks == 0)
		return;
	if (!tc_eligible(rel))
	{
		strlcpy(cs->why, "not WAL-logged, new in this transaction, a catalog, in recovery "
				"or old_snapshot_threshold", sizeof(cs->why));
		return;
	}
	if ((e = tc_lookup(rel)) == NULL || e->busy)
	{
		strlcpy(cs->why, "in use by another scan", sizeof(cs->why));
		return;
	}
	e->last_use = ++tc_clock;
	e->scans++;
	if (e->state == TC_VALID)
	{
		if (e->emulate == emulate && e->nblocks == nblocks &&
			tc_vm_check(rel, nblocks, e->vm_lsn, false))
		{
			cs->use = PG_GPU_TC_HIT;
			cs->entry = e;
			cs->gen = e->last_use;
			e->hits++;
			e->busy = true;
			e->subid = GetCurrentSubTransactionId();
			task->pages_resident = 1;
			task->gather = 0;
			return;
		}
		tc_free_arena(e);		/* the table changed since the copies */
	}

	/* a table scanned once may be a one-off: copy it the second time */
	if (e->scans < 2)
	{
		strlcpy(cs->why, "first scan", sizeof(cs->why));
		return;
	}
	if (tc_clock < tc_no_fill_until)
	{
		strlcpy(cs->why, "the GPU ran out of memory lately", sizeof(cs->why));
		return;
	}
	if (bytes > budget || !tc_make_room(bytes, budget, e))
	{
		strlcpy(cs->why, "over pg_gpu.table_cache_size", sizeof(cs->why));
		return;
	}
	e->vm_lsn = (XLogRecPtr *) MemoryContextAlloc(TopMemoryContext,
												  sizeof(XLogRecPtr) * ((nblocks + TC_VM_BLOCKS - 1) / TC_VM_BLOCKS));
	/* not all-visible now: the fill could not finish */
	if (!tc_vm_check(rel, nblocks, e->vm_lsn, true))
	{
		strlcpy(cs->why, "not every block all-visible", sizeof(cs->why));
		tc_free_arena(e);
		return;
	}
	e->blk = (BlockNumber *) MemoryContextAllocHuge(TopMemoryContext, sizeof(BlockNumber) * nblocks);
	e->nlp = (uint16 *) MemoryContextAllocHuge(TopMemoryContext, sizeof(uint16) * nblocks);
	e->vis_of = (int32 *) MemoryContextAllocHuge(TopMemoryContext, sizeof(int32) * nblocks);
	if (pg_gpu_cache_alloc(bytes, emulate ? 1 : 0, &arena, &err) != PG_GPU_OK)
	{
		snprintf(cs->why, sizeof(cs->why), "no memory: %s", err.message);
		tc_free_arena(e);
		return;
	}
	e->arena = arena;
	e->bytes = bytes;
	tc_bytes += bytes;
	e->emulate = emulate;
	e->nblocks = nblocks;
	e->npages = 0;
	e->state = TC_FILLING;
	e->busy = true;
	e->subid = GetCurrentSubTransactionId();
	cs->use = PG_GPU_TC_FILL;
	cs->entry = e;
	cs->gen = e->last_use;
	cs->fill_ok = true;
	task->cache_fill = arena;
	task->cache_pages = nblocks;
}

int64
PgGpuTableCachePages(const PgGpuTableCacheScan *cs, const BlockNumber **blk, const uint16 **nlp,
					 const int32 **vis_of, const uint32 **vis, uint64 *arena)
{
	Assert(cs->use == PG_GPU_TC_HIT && cs->entry);
	*blk = cs->entry->blk;
	*nlp = cs->entry->nlp;
	*vis_of = cs->entry->vis_of;
	*vis = cs->entry->vis;
	*arena = cs->entry->arena;
	return cs->entry->npages;
}

void
PgGpuTableCacheNoteSlow(PgGpuTableCacheScan *cs, BlockNumber blk, uint16 nlp, const uint32 *bits)
{
	PgGpuTableCacheEntry *e = cs->entry;

	if (cs->npages >= (int64) e->nblocks)
	{
		cs->fill_ok = false;
		return;
	}
	e->blk[cs->npages] = blk;
	e->nlp[cs->npages] = nlp;
	e->vis_of[cs->npages] = -1;
	if (bits)
	{
		if (e->nvis == e->vis_cap)
		{
			e->vis_cap = Max(64, 2 * e->vis_cap);
			e->vis = e->vis
				? (uint32 *) repalloc_huge(e->vis, sizeof(uint32) * PG_GPU_VIS_WORDS * e->vis_cap)
				: (uint32 *) MemoryContextAllocHuge(TopMemoryContext,
													sizeof(uint32) * PG_GPU_VIS_WORDS * e->vis_cap);
		}
		memcpy(e->vis + (size_t) e->nvis * PG_GPU_VIS_WORDS, bits, sizeof(uint32) * PG_GPU_VIS_WORDS);
		e->vis_of[cs->npages] = (int32) e->nvis++;
	}
}

void
PgGpuTableCacheDone(PgGpuTableCacheScan *cs, Relation rel, bool ok)
{
	PgGpuTableCacheEntry *e = cs->entry;

	if (e == NULL)
		return;
	cs->entry = NULL;
	if (!e->busy || e->last_use != cs->gen)	/* an error ended it (tc_abandon) */
		return;
	e->busy = false;
	if (e->release)
	{
		/* the GPU ran out of memory meanwhile (PgGpuTableCacheRelease) */
		if (cs->use == PG_GPU_TC_FILL)
			strlcpy(cs->why, "the GPU ran out of memory", sizeof(cs->why));
		tc_free_arena(e);
		return;
	}
	if (cs->use != PG_GPU_TC_FILL || e->state != TC_FILLING)
		return;
	if (!ok)
		strlcpy(cs->why, "the scan did not finish", sizeof(cs->why));
	else if (!cs->fill_ok)
		strlcpy(cs->why, "a page was not all-visible", sizeof(cs->why));
	else if (RelationGetNumberOfBlocks(rel) != e->nblocks ||
			 !tc_vm_check(rel, e->nblocks, e->vm_lsn, false))
		strlcpy(cs->why, "the table changed during the scan", sizeof(cs->why));
	else
	{
		e->state = TC_VALID;
		e->npages = cs->npages;
		cs->filled = true;
		return;
	}
	tc_free_arena(e);
}

/* pg_gpu_table_cache(): the session's entries, most recently used first. */
static Datum
pg_gpu_table_cache_impl(FunctionCallInfo fcinfo)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	PgGpuTableCacheEntry *order[TC_ENTRIES];
	int			n = 0;

	InitMaterializedSRF(fcinfo, 0);
	for (int i = 0; i < TC_ENTRIES; i++)
		if (tc[i].used)
			order[n++] = &tc[i];
	std::sort(order, order + n, [](const PgGpuTableCacheEntry *a, const PgGpuTableCacheEntry *b) {
		return a->last_use > b->last_use;
	});
	for (int i = 0; i < n; i++)
	{
		PgGpuTableCacheEntry *e = order[i];
		Datum		values[6];
		bool		nulls[6] = {false, false, false, false, false, false};

		values[0] = ObjectIdGetDatum(e->relid);
		values[1] = CStringGetTextDatum(e->state == TC_VALID ? "copied" :
										e->state == TC_FILLING ? "filling" :
										e->state == TC_DEAD ? "abandoned" : "scanned");
		values[2] = Int64GetDatum(e->state == TC_VALID ? e->npages : 0);
		values[3] = Int64GetDatum((int64) e->bytes);
		values[4] = Int64GetDatum(e->scans);
		values[5] = Int64GetDatum(e->hits);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

PG_GPU_SQL_FN(pg_gpu_table_cache)
