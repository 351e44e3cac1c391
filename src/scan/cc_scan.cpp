/*
 * cc_scan.cpp — a table scan's side of the GPU service's column cache
 * (service/colcache.h): what a scan asks the service to keep or read at its
 * task's begin (cc_request: the columns in the form the cache keeps them),
 * the visibility map read as heap_reader.cpp's page loop checks cached blocks
 * against it, and the entry's counters once the scan is over.
 *
 * The page loop itself, which takes a run of blocks from the cache where the
 * entry's bits and the VM page's LSN say it may, stays in heap_reader.cpp;
 * what may be cached at all is cc_columns.cpp's.
 */
extern "C" {
#include "postgres.h"

#include "access/visibilitymap.h"
#include "access/visibilitymapdefs.h"
#include "access/xlog.h"
#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "utils/timestamp.h"
#include "storage/bufmgr.h"
#include "utils/rel.h"

#include "pg_gpu.h"
#include "pg_gpu_engine.h"
#include "scan/heap_reader.h"
#include "service/service.h"
}

#include "service/channel.h"
#include "scan/heap_reader_int.h"

/* Columns pg_gpu_cache_table asks to be cached besides a query's own. */
static Oid	cc_extra_relid = InvalidOid;
static int	cc_extra_n = 0;
static int16 cc_extra_att[PG_GPU_CC_MAX_COLS];

void
PgGpuCacheExtraColumns(Oid relid, const int16 *attidx, int n)
{
	cc_extra_relid = relid;
	cc_extra_n = Min(n, PG_GPU_CC_MAX_COLS);
	if (n > 0)
		memcpy(cc_extra_att, attidx, sizeof(int16) * cc_extra_n);
}

/* What to ask the service for at the task's begin, or NULL: no column cache for this scan. */
CcRequest  *
cc_request(Relation rel, Snapshot snapshot, const pg_gpu_agg_task *task, BlockNumber nblocks)
{
	TupleDesc	desc = RelationGetDescr(rel);
	CcRequest  *req;
	pg_gpu_cc_layout *l;

	if (!pg_gpu_use_cache || PgGpuCc == NULL || PgGpuCc->budget == 0 || nblocks == 0 ||
		task->sort || task->collect || task->ncols > PG_GPU_CC_MAX_COLS ||
		PgGpuCacheRefusal(rel) != NULL || snapshot->takenDuringRecovery)
		return NULL;
	/*
	 * A table with no all-visible page has nothing to cache yet: no entry for
	 * it (it would hold one of the service's slots until evicted).  The VM is
	 * small: a page per 32,672 blocks.
	 */
	{
		BlockNumber all_visible = 0;

		visibilitymap_count(rel, &all_visible, NULL);
		if (all_visible == 0)
			return NULL;
	}
	req = (CcRequest *) palloc0(sizeof(CcRequest));
	l = &req->layout;
	for (int a = 0; a < desc->natts; a++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, a);

		l->attlen[a] = att->attlen;
		l->attalign[a] = att->attalign == TYPALIGN_DOUBLE ? 8 : att->attalign == TYPALIGN_INT ? 4
			: att->attalign == TYPALIGN_SHORT ? 2 : 1;
	}
	l->natts = desc->natts;
	for (int c = 0; c < task->ncols + (cc_extra_relid == RelationGetRelid(rel) ? cc_extra_n : 0); c++)
	{
		int			a = c < task->ncols ? task->cols[c].attidx : cc_extra_att[c - task->ncols];
		Form_pg_attribute att;
		pg_gpu_agg_column col;
		bool		dup = false;

		if (a < 0 || a >= desc->natts)
			return NULL;
		att = TupleDescAttr(desc, a);
		if (!PgGpuCacheableAttr(att, &col))
			return NULL;
		for (int k = 0; k < l->ncols; k++)
			dup |= l->cols[k].attidx == a;
		if (dup)
			continue;
		if (l->ncols == PG_GPU_CC_MAX_COLS)
			return NULL;
		/* numeric, text: as the cache keeps it, whatever this task reads of it */
		l->cols[l->ncols] = col;
		if (col.type != PG_GPU_DECIMAL && col.type != PG_GPU_TEXT)
			l->cols[l->ncols].type = c < task->ncols ? task->cols[c].type : 0;
		l->nullable[l->ncols] = !att->attnotnull;
		l->ncols++;
	}
	if (l->ncols == 0)
		return NULL;
	req->want = 1;
	req->key.db = MyDatabaseId;
	req->key.relid = RelationGetRelid(rel);
	req->key.node = rel->rd_node;
	req->key.emulate = task->emulate;
	req->nblocks = nblocks;
	return req;
}

/*
 * VM page v of the relation: its LSN and its bits (a copy, read under the VM
 * page's share lock); false when it does not exist or is not laid out as this
 * file expects (then no block under it is read from or put in the cache).
 */
bool
cc_read_vm(Relation rel, uint32 v, Buffer *vmbuf, uint8 *map, XLogRecPtr *lsn)
{
	uint8		st;
	Page		page;

	st = visibilitymap_get_status(rel, (BlockNumber) v * CC_VM_BLOCKS, vmbuf);
	if (!BufferIsValid(*vmbuf) || BufferGetBlockNumber(*vmbuf) != v)
		return false;
	LockBuffer(*vmbuf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(*vmbuf);
	*lsn = PageGetLSN(page);
	memcpy(map, PageGetContents(page), CC_VM_BLOCKS / 4);
	LockBuffer(*vmbuf, BUFFER_LOCK_UNLOCK);
	/* the first block's bit, read as visibilitymap.c reads it */
	return ((st & VISIBILITYMAP_ALL_VISIBLE) != 0) == ((map[0] & VISIBILITYMAP_ALL_VISIBLE) != 0) &&
		*lsn != InvalidXLogRecPtr;
}

/* The scan is over: the entry's counters. */
void
cc_note_scan(PgGpuPageScan *ps)
{
	CcEntry    *e;

	if (ps->cc.entry < 0 || PgGpuCc == NULL)
		return;
	e = &PgGpuCcDev[ps->cc.dev]->e[ps->cc.entry];
	if (pg_atomic_read_u32(&e->gen) != ps->cc.gen)
		return;
	pg_atomic_fetch_add_u64(&e->scans, 1);
	if (ps->cc_blocks > 0)
		pg_atomic_fetch_add_u64(&e->hits, 1);
	pg_atomic_write_u64(&e->last_use, (uint64) GetCurrentTimestamp());
}
