/*
 * cc_client.cpp — a table scan's side of the GPU service's column cache
 * (cc_client.h, colcache.h): what a scan asks the service to keep or read at
 * its task's begin (PgGpuCcRequest: the columns in the form the cache keeps
 * them), which blocks its page loop takes from the cache (PgGpuCcTake: where
 * the entry's bits and the visibility map page's LSN say it may), and the
 * entry's counters once the scan is over.  What may be cached at all is
 * cc_columns.cpp's.
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
#include "service/service.h"
#include "service/cc_client.h"
}

#include "service/channel.h"

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
PgGpuCcRequest(Relation rel, Snapshot snapshot, const pg_gpu_agg_task *task, BlockNumber nblocks)
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
static bool
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

static inline bool
cc_vm_visible(const uint8 *map, uint32 i)
{
	return ((map[i >> 2] >> ((i & 3) * BITS_PER_HEAPBLOCK)) & VISIBILITYMAP_ALL_VISIBLE) != 0;
}

/* Whether the 64 blocks of the 16 VM bytes at map are all all-visible. */
static inline bool
cc_vm_visible64(const uint8 *map)
{
	uint64		a,
				b;
	const uint64 all = UINT64CONST(0x5555555555555555);	/* every ALL_VISIBLE bit */

	StaticAssertStmt(VISIBILITYMAP_ALL_VISIBLE == 1 && BITS_PER_HEAPBLOCK == 2,
					 "the VM's layout as this file reads it");
	memcpy(&a, map, 8);
	memcpy(&b, map + 8, 8);
	return (a & all) == all && (b & all) == all;
}

void
PgGpuCcWalkBegin(PgGpuCcWalk *w, Relation rel, const PgGpuSvcCc *cc)
{
	w->rel = rel;
	w->ce = cc->entry >= 0 ? &PgGpuCcDev[cc->dev]->e[cc->entry] : NULL;
	w->vmbuf = InvalidBuffer;
	w->vm_map = w->ce ? (uint8 *) palloc(CC_VM_BLOCKS / 4) : NULL;
	w->vm_cur = UINT32_MAX;
	w->vm_ok = false;
	w->vm_lsn = InvalidXLogRecPtr;
	w->ent_lsn = 0;
}

uint32
PgGpuCcTake(PgGpuCcWalk *w, BlockNumber blk, BlockNumber nblocks, uint32 room,
			SvcRun *runs, int *nruns)
{
	const CcEntry *ce = w->ce;
	uint32		v = blk / CC_VM_BLOCKS;
	uint32		n = 0;

	if (ce == NULL)
		return 0;
	if (v != w->vm_cur)
	{
		w->vm_cur = v;
		w->vm_ok = cc_read_vm(w->rel, v, &w->vmbuf, w->vm_map, &w->vm_lsn);
		w->ent_lsn = cc_vm_lsn(ce, v);
	}
	if (w->vm_ok && w->ent_lsn == w->vm_lsn)
	{
		uint32		i = blk - v * CC_VM_BLOCKS;

		/* 64 at a time: one word of the entry's bits, 16 bytes of the VM */
		if (blk % 64 == 0 && i + 64 <= CC_VM_BLOCKS && blk + 64 <= nblocks && room >= 64 &&
			cc_bits64(ce, blk) == ~(uint64) 0 && cc_vm_visible64(w->vm_map + i / 4))
			n = 64;
		else if (room >= 1 && cc_vm_visible(w->vm_map, i) && cc_bit(ce, blk))
			n = 1;
	}
	if (n > 0)
	{
		/* from the cache: nothing to pin; a run stays under one VM page */
		if (*nruns > 0 && runs[*nruns - 1].first + runs[*nruns - 1].count == blk &&
			runs[*nruns - 1].first / CC_VM_BLOCKS == v)
			runs[*nruns - 1].count += n;
		else
			runs[(*nruns)++] = {blk, n, w->vm_lsn};
	}
	return n;
}

uint64
PgGpuCcFillLsn(const PgGpuCcWalk *w)
{
	return w->ce && w->vm_ok ? (uint64) w->vm_lsn : 0;
}

void
PgGpuCcWalkEnd(PgGpuCcWalk *w)
{
	if (BufferIsValid(w->vmbuf))
		ReleaseBuffer(w->vmbuf);
	w->vmbuf = InvalidBuffer;
	if (w->vm_map)
		pfree(w->vm_map);
	w->vm_map = NULL;
}

/* The scan is over: the entry's counters. */
void
PgGpuCcNoteScan(const PgGpuSvcCc *cc, uint64 blocks)
{
	CcEntry    *e;

	if (cc->entry < 0 || PgGpuCc == NULL)
		return;
	e = &PgGpuCcDev[cc->dev]->e[cc->entry];
	if (pg_atomic_read_u32(&e->gen) != cc->gen)
		return;
	pg_atomic_fetch_add_u64(&e->scans, 1);
	if (blocks > 0)
		pg_atomic_fetch_add_u64(&e->hits, 1);
	pg_atomic_write_u64(&e->last_use, (uint64) GetCurrentTimestamp());
}
