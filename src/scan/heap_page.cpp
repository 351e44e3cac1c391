/*
 * heap_page.cpp — a heap table's layout and its pages' visibility, as the GPU
 * kernels need them (heap_page.h).
 */
extern "C" {
#include "postgres.h"

#include "access/heapam.h"
#include "storage/bufmgr.h"
#include "utils/rel.h"

#include "pg_gpu.h"
#include "scan/heap_page.h"
}

/*
 * Physical layout of the attributes the kernels walk, into task; false if the
 * kernels cannot decode them (no "missing" values, no cstring columns).  The
 * planner asks when it builds the path, the executor again at run time, since the
 * table may have changed in between.
 */
bool
PgGpuFillLayout(Relation rel, pg_gpu_agg_task *task)
{
	TupleDesc	tupdesc = RelationGetDescr(rel);
	int			maxatt = -1;

	for (int c = 0; c < task->ncols; c++)
	{
		if (task->cols[c].attidx >= tupdesc->natts ||
			TupleDescAttr(tupdesc, task->cols[c].attidx)->atthasmissing)
			return false;
		maxatt = Max(maxatt, task->cols[c].attidx);
	}
	if (maxatt >= PG_GPU_MAX_DEFORM_ATTS)
		return false;
	task->natts = maxatt + 1;
	for (int j = 0; j <= maxatt; j++)
	{
		Form_pg_attribute att = TupleDescAttr(tupdesc, j);

		if (att->attlen == -2)
			return false;
		task->attlen[j] = att->attlen;
		switch (att->attalign)
		{
			case TYPALIGN_CHAR:
				task->attalign[j] = 1;
				break;
			case TYPALIGN_SHORT:
				task->attalign[j] = 2;
				break;
			case TYPALIGN_INT:
				task->attalign[j] = 4;
				break;
			default:
				task->attalign[j] = 8;
				break;
		}
	}
	return true;
}

/*
 * Per-tuple visibility of a share-locked page for the snapshot, as a bitmap over
 * line pointers (PostgreSQL's HeapTupleSatisfiesVisibility decides).
 */
static void
page_visibility(Relation rel, Snapshot snapshot, Buffer buf, BlockNumber blk,
				OffsetNumber nlp, uint32 *bits)
{
	Page		page = BufferGetPage(buf);
	HeapTupleData tup;

	memset(bits, 0, sizeof(uint32) * PG_GPU_VIS_WORDS);
	tup.t_tableOid = RelationGetRelid(rel);
	for (OffsetNumber off = FirstOffsetNumber; off <= nlp; off++)
	{
		ItemId		lpp = PageGetItemId(page, off);

		if (!ItemIdIsNormal(lpp))
			continue;
		tup.t_data = (HeapTupleHeader) PageGetItem(page, lpp);
		tup.t_len = ItemIdGetLength(lpp);
		ItemPointerSet(&tup.t_self, blk, off);
		if (HeapTupleSatisfiesVisibility(&tup, snapshot, buf))
			bits[(off - 1) >> 5] |= 1u << ((off - 1) & 31);
	}
}

/*
 * Inspect a pinned, share-locked heap page for the GPU: its line-pointer count (0:
 * nothing to send) and, unless it is all-visible for this snapshot, its visibility
 * bitmap in *bits (*has_bits set).  Used by the backend and by the pin workers.
 */
OffsetNumber
PgGpuInspectPage(Relation rel, Snapshot snapshot, Buffer buf, BlockNumber blk,
				 uint32 *bits, bool *has_bits, bool *stable)
{
	Page		page = BufferGetPage(buf);
	OffsetNumber nlp = PageIsNew(page) ? 0 : PageGetMaxOffsetNumber(page);

	*has_bits = false;
	*stable = true;
	if (nlp > 0 && (!PageIsAllVisible(page) || snapshot->takenDuringRecovery))
	{
		page_visibility(rel, snapshot, buf, blk, nlp, bits);
		*has_bits = true;
		*stable = false;
	}
	else if (nlp > 0 && PageHasFreeLinePointers(page))
	{
		/*
		 * All-visible, but an insert may reuse an unused line pointer below nlp
		 * while the GPU reads the page in place without the lock: the tuples are
		 * those that are there now.
		 */
		memset(bits, 0, sizeof(uint32) * PG_GPU_VIS_WORDS);
		for (OffsetNumber off = FirstOffsetNumber; off <= nlp; off++)
			if (ItemIdIsNormal(PageGetItemId(page, off)))
				bits[(off - 1) >> 5] |= 1u << ((off - 1) & 31);
		*has_bits = true;
	}
	return nlp;
}

Buffer
PgGpuPinInspect(Relation rel, Snapshot snapshot, BlockNumber blk, BufferAccessStrategy strategy,
				uint32 *bits, OffsetNumber *nlp, bool *has_bits, bool *stable)
{
	Buffer		b = ReadBufferExtended(rel, MAIN_FORKNUM, blk, RBM_NORMAL, strategy);

	LockBuffer(b, BUFFER_LOCK_SHARE);
	*nlp = PgGpuInspectPage(rel, snapshot, b, blk, bits, has_bits, stable);
	if (*nlp == 0)
	{
		UnlockReleaseBuffer(b);
		return InvalidBuffer;
	}
	LockBuffer(b, BUFFER_LOCK_UNLOCK);
	return b;
}
