/*
 * table_cache.h — a table's heap pages kept in GPU memory between queries, and
 * the checks that tell whether they still hold what the table holds
 * (table_cache.cpp).  Include after postgres.h.
 */
#ifndef PG_GPU_TABLE_CACHE_H
#define PG_GPU_TABLE_CACHE_H

#include "storage/block.h"
#include "utils/relcache.h"

#include "pg_gpu_engine.h"

typedef struct PgGpuTableCacheEntry PgGpuTableCacheEntry;

/* What a scan does with the table cache. */
typedef enum PgGpuTableCacheUse
{
	PG_GPU_TC_NONE = 0,			/* the pages come from shared buffers */
	PG_GPU_TC_HIT,				/* ... from the cache, in GPU memory */
	PG_GPU_TC_FILL				/* from shared buffers, and the engine keeps a
								 * copy of each in a new cache */
} PgGpuTableCacheUse;

typedef struct PgGpuTableCacheScan
{
	PgGpuTableCacheUse use;
	PgGpuTableCacheEntry *entry;
	uint64		gen;			/* the entry's last_use when this scan took it */
	int64		npages;			/* fill: pages handed to the engine so far */
	bool		fill_ok;		/* fill: each of them all-visible (a bitmap, if
								 * any, the same for every snapshot) */
	bool		filled;			/* fill: the cache is valid after this scan */
	char		why[96];		/* none: why not (EXPLAIN) */
} PgGpuTableCacheScan;

/*
 * Before the engine starts: use the relation's cache if it is valid now, else
 * maybe fill one during this scan (the table was scanned before and fits the
 * budget).  Sets the task's cache_fill, cache_pages, pages_resident and, for a
 * hit, gather = 0.
 */
void		PgGpuTableCacheStart(Relation rel, BlockNumber nblocks, bool emulate,
								 pg_gpu_agg_task *task, PgGpuTableCacheScan *cs);

/*
 * A hit: the cached pages, in the order they are to be handed over; a page
 * whose vis_of is not -1 takes the bitmap at vis + vis_of * PG_GPU_VIS_WORDS.
 */
int64		PgGpuTableCachePages(const PgGpuTableCacheScan *cs, const BlockNumber **blk,
								 const uint16 **nlp, const int32 **vis_of, const uint32 **vis,
								 uint64 *arena);

/*
 * A fill: the next page the engine was given (its copy is the next in the
 * arena), with PgGpuInspectPage's findings and bitmap.
 */
static inline void
PgGpuTableCacheNote(PgGpuTableCacheScan *cs, BlockNumber blk, uint16 nlp, bool has_bits,
					bool stable, const uint32 *bits);

/*
 * After the scan (ok: every page went to the engine and it has finished with
 * them): a fill's cache becomes valid if the table still is what it copied.
 */
void		PgGpuTableCacheDone(PgGpuTableCacheScan *cs, Relation rel, bool ok);

/* Free every cache no scan is using (the GPU ran out of memory). */
void		PgGpuTableCacheRelease(void);

/* Out of line part of PgGpuTableCacheNote. */
void		PgGpuTableCacheNoteSlow(PgGpuTableCacheScan *cs, BlockNumber blk, uint16 nlp,
									const uint32 *bits);

static inline void
PgGpuTableCacheNote(PgGpuTableCacheScan *cs, BlockNumber blk, uint16 nlp, bool has_bits,
					bool stable, const uint32 *bits)
{
	if (cs->use != PG_GPU_TC_FILL)
		return;
	if (!stable)
		cs->fill_ok = false;
	if (cs->fill_ok)
		PgGpuTableCacheNoteSlow(cs, blk, nlp, has_bits ? bits : NULL);
	cs->npages++;
}

#endif							/* PG_GPU_TABLE_CACHE_H */
