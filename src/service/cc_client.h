/*
 * cc_client.h — a backend's side of the GPU service's column cache
 * (colcache.h): what may be cached (cc_columns.cpp), what a scan asks for at its
 * task's begin, which of its blocks it takes from the cache, and the entry's
 * counters once it is over (cc_client.cpp).  The scan's page loop
 * (scan/heap_reader.cpp) sees only these calls.  Include after postgres.h.
 */
#ifndef PG_GPU_SERVICE_CC_CLIENT_H
#define PG_GPU_SERVICE_CC_CLIENT_H

#include "access/xlogdefs.h"
#include "catalog/pg_attribute.h"
#include "storage/buf.h"
#include "utils/relcache.h"
#include "utils/snapshot.h"

#include "pg_gpu_engine.h"
#include "service/service.h"

/*
 * Columns of relid that pg_gpu_cache_table wants cached besides the next
 * scan's own (n 0: none); whether an attribute's values can be cached (*col,
 * when given: in what form); why a table cannot be (NULL: it can).
 */
void		PgGpuCacheExtraColumns(Oid relid, const int16 *attidx, int n);
bool		PgGpuCacheableAttr(Form_pg_attribute a, pg_gpu_agg_column *col);
const char *PgGpuCacheRefusal(Relation rel);

/* What to ask the service for at the task's begin (palloc'd), or NULL: no cache. */
struct CcRequest *PgGpuCcRequest(Relation rel, Snapshot snapshot, const pg_gpu_agg_task *task,
								 BlockNumber nblocks);

/*
 * A scan's walk over its table with the entry the service gave (cc->entry;
 * none: every block is read from its page).  PgGpuCcTake: how many blocks from
 * blk on (at most room) the scan takes from the cache, appended to the chunk's
 * runs (0: read blk's page); PgGpuCcFillLsn: the VM LSN blk's page is cached
 * under when the service deforms it (0: not cached), valid after a Take of blk.
 */
typedef struct PgGpuCcWalk
{
	Relation	rel;
	const struct CcEntry *ce;	/* NULL: no entry */
	Buffer		vmbuf;
	uint8	   *vm_map;			/* a copy of the current VM page's bits */
	uint32		vm_cur;			/* its number (UINT32_MAX: none yet) */
	bool		vm_ok;
	XLogRecPtr	vm_lsn;
	uint64		ent_lsn;		/* the entry's LSN for that VM page */
} PgGpuCcWalk;

void		PgGpuCcWalkBegin(PgGpuCcWalk *w, Relation rel, const PgGpuSvcCc *cc);
uint32		PgGpuCcTake(PgGpuCcWalk *w, BlockNumber blk, BlockNumber nblocks, uint32 room,
						struct SvcRun *runs, int *nruns);
uint64		PgGpuCcFillLsn(const PgGpuCcWalk *w);
void		PgGpuCcWalkEnd(PgGpuCcWalk *w);

/* The scan is over: the entry's counters (blocks: those it read from the cache). */
void		PgGpuCcNoteScan(const PgGpuSvcCc *cc, uint64 blocks);

#endif							/* PG_GPU_SERVICE_CC_CLIENT_H */
