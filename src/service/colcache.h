/*
 * colcache.h — the GPU service's columnar table cache (issue 21, step 4;
 * docs/GPU_SERVICE.md "The shared columnar cache").  Include after postgres.h.
 *
 * The service keeps, per table (database, relation, relfilenode), the columns
 * that queries read, deformed once from all-visible heap pages into GPU memory
 * (pg_gpu_cc_seg segments, one per chunk that filled them), within
 * pg_gpu.cache_size for the whole cluster, least recently used table out first.
 *
 * Shared memory holds what backends read without asking: each entry's key,
 * columns and counters, a bit per heap block that is cached, and, per
 * visibility-map page, the VM page's LSN under which its blocks were cached.
 * Only the service writes them.  A backend reads a block from the cache when
 * its bit is set, the VM says all-visible now and the VM page's LSN is the one
 * recorded; every other block is read from its heap page in the same scan.  The
 * service checks again when the chunk arrives, under its lock (a block dropped
 * meanwhile fails the task: PostgreSQL's plan answers).
 */
#ifndef PG_GPU_SERVICE_COLCACHE_H
#define PG_GPU_SERVICE_COLCACHE_H

#include "port/atomics.h"
#include "storage/bufpage.h"
#include "storage/relfilenode.h"

#include "pg_gpu_engine.h"

#define CC_ENTRIES 64
#define CC_POOL_BITS (1u << 25)		/* cacheable heap blocks, all entries (256 GB) */
#define CC_POOL_LSNS 2048			/* VM pages, all entries */
/* heap blocks one VM page covers (visibilitymap.c's layout) */
#define CC_VM_BLOCKS ((uint32) ((BLCKSZ - MAXALIGN(SizeOfPageHeaderData)) * 4))

typedef struct CcKey
{
	Oid			db;
	Oid			relid;
	RelFileNode node;
	int32		emulate;
} CcKey;

typedef enum CcState
{
	CC_FREE = 0,
	CC_LIVE
} CcState;

typedef struct CcEntry
{
	pg_atomic_uint32 state;		/* CcState */
	pg_atomic_uint32 gen;		/* +1 at every (re)use of the slot */
	CcKey		key;
	pg_gpu_cc_layout layout;	/* its columns (cols[].attidx) */
	uint32		cap_blocks;		/* blocks 0 .. cap_blocks - 1 may be cached */
	uint32		bit_off;		/* its bits in CcShared.bits */
	uint32		lsn_off;		/* its VM LSNs in CcShared.lsn */
	uint32		nvm;
	pg_atomic_uint64 blocks;	/* cached now */
	pg_atomic_uint64 bytes;
	pg_atomic_uint64 scans;		/* scans that read it */
	pg_atomic_uint64 hits;		/* ... at least one block from it */
	pg_atomic_uint64 last_use;	/* TimestampTz of the last scan */
	pg_atomic_uint32 drop;		/* pg_gpu_uncache asked */
	int32		dev;			/* the GPU service worker whose cache it is in */
} CcEntry;

typedef struct CcShared
{
	uint64		budget;			/* pg_gpu.cache_size, bytes */
	pg_atomic_uint64 bytes;
	pg_atomic_uint64 evictions;
	CcEntry		e[CC_ENTRIES];
	pg_atomic_uint64 bits[CC_POOL_BITS / 64];
	pg_atomic_uint64 lsn[CC_POOL_LSNS];
} CcShared;

/*
 * Every GPU's cache (one per service worker, service.h), and in a service
 * worker its own (PgGpuCc).
 */
#define PG_GPU_MAX_DEVICES 16
extern CcShared *PgGpuCc;
extern CcShared *PgGpuCcDev[PG_GPU_MAX_DEVICES];

/* What a backend asks for at a task's begin (SvcChannel.cc_req). */
typedef struct CcRequest
{
	int32		want;			/* 0: no cache for this task */
	CcKey		key;
	pg_gpu_cc_layout layout;	/* every attribute's attlen/attalign; cols: wanted */
	uint32		nblocks;
} CcRequest;

/* A run of cached blocks a chunk reads (SvcChannel.runs). */
typedef struct SvcRun
{
	uint32		first;
	uint32		count;
	uint64		lsn;			/* the VM page's, as the backend read it */
} SvcRun;

#define SVC_MAX_RUNS 1024			/* runs per chunk */
#define SVC_RUN_BLOCKS 32768		/* cached blocks per chunk */

static inline bool
cc_bit(const CcEntry *e, uint32 blk)
{
	uint32		b = e->bit_off + blk;

	return blk < e->cap_blocks &&
		((pg_atomic_read_u64(&PgGpuCcDev[e->dev]->bits[b / 64]) >> (b % 64)) & 1) != 0;
}

/* The entry's bits of blocks blk .. blk + 63 (blk a multiple of 64, below cap). */
static inline uint64
cc_bits64(const CcEntry *e, uint32 blk)
{
	return blk + 64 <= e->cap_blocks ? pg_atomic_read_u64(&PgGpuCcDev[e->dev]->bits[(e->bit_off + blk) / 64]) : 0;
}

static inline uint64
cc_vm_lsn(const CcEntry *e, uint32 v)
{
	return v < e->nvm ? pg_atomic_read_u64(&PgGpuCcDev[e->dev]->lsn[e->lsn_off + v]) : 0;
}

/* The live entry of a table (db, relid, emulated or not) in cache cc, or -1. */
static inline int
cc_find_entry(const CcShared *cc, Oid db, Oid relid, bool emulate)
{
	for (int i = 0; cc && i < CC_ENTRIES; i++)
	{
		const CcEntry *e = &cc->e[i];

		if (pg_atomic_read_u32((pg_atomic_uint32 *) &e->state) == CC_LIVE &&
			e->key.db == db && e->key.relid == relid && e->key.emulate == (emulate ? 1 : 0))
			return i;
	}
	return -1;
}

/* shared memory; at the service's start, every entry goes (its memory did) */
Size		PgGpuCcShmemSize(void);
void		PgGpuCcShmemInit(void *mem, int dev);
void		PgGpuCcReset(void);

/*
 * The service's side (threads: no PostgreSQL calls).  A task attaches at its
 * begin (the entry's index, or -1: none; task->cc and cc_col set), hands each
 * chunk's runs and fills (PgGpuCcChunk, false with err set: fail the task),
 * publishes its fills when it finished without an error, and detaches.
 * Attach and Chunk may throw std::bad_alloc (the thread's catch fails the
 * task), leaving the cache as it was; Detach and Maintain never throw.
 * fail_alloc (pg_gpu.debug_service_fault = alloc) throws where a fill takes
 * its room.
 */
struct CcTaskState;
typedef struct CcTaskState CcTaskState;

CcTaskState *PgGpuCcAttach(const CcRequest *req, pg_gpu_agg_task *task, int *entry,
						   uint32 *gen);
bool		PgGpuCcChunk(CcTaskState *ts, pg_gpu_agg_slot *buf, int npages,
						 const uint32 *blk, const uint64 *fill_lsn, const SvcRun *runs,
						 int nruns, bool fail_alloc, pg_gpu_error *err);
void		PgGpuCcDetach(CcTaskState *ts, bool publish);
/* the main thread, now and then: drops asked for, the budget */
void		PgGpuCcMaintain(void);

#endif							/* PG_GPU_SERVICE_COLCACHE_H */
