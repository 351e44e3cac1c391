/*
 * heap_reader.h — streaming one heap table's pages to an engine (heap_reader.cpp;
 * the column cache's side is service/cc_client.h), and a collect or rows task
 * run over them to its end (table_task.cpp).
 * Include after postgres.h.
 */
#ifndef PG_GPU_HEAP_READER_H
#define PG_GPU_HEAP_READER_H

#include "portability/instr_time.h"
#include "storage/buf.h"
#include "utils/relcache.h"
#include "utils/snapshot.h"

#include "pg_gpu_engine.h"
#include "scan/pin_workers.h"
#include "scan/table_cache.h"
#include "service/service.h"

#include "service/cc_client.h"

/* One relation's pages streamed to an engine (GpuAgg's table, a key set's). */
typedef struct PgGpuPageScan
{
	Relation	rel;
	Snapshot	snapshot;
	MemoryContext cxt;			/* of the pin arrays */
	pg_gpu_agg *agg;
	bool		emulate;
	bool		registered;		/* pages read in place */
	bool		staged;			/* registered pages pulled into GPU memory first */
	bool		remote;			/* the GPU service runs the task (service.h) */
	PgGpuSvcChannel *svc;		/* ... on this held channel (its key sets) */
	int			chunk_pages;
	BlockNumber nblocks;
	BlockNumber *page_blk;		/* GpuSort: block of each submitted page, in
								 * order (NULL: not kept) */
	int64		npage_blk;
	Buffer	   *pins[PG_GPU_AGG_SLOTS];	/* the backend's own, per engine slot */
	int			pins_cap;		/* room in each */
	int			npins[PG_GPU_AGG_SLOTS];
	int			chunks;
	PgGpuTableCacheScan tc;		/* the pages from GPU memory, or copied there */
	struct CcRequest *cc_req;	/* the service's column cache asked for (NULL: not) */
	PgGpuSvcCc	cc;				/* ... and given: entry -1 when not */
	int64		cc_blocks;		/* blocks read from it */
	int64		cc_fill;		/* pages handed over to be cached */
	int			cc_run_blocks;	/* cached blocks a chunk carries at most */
	PgGpuPinCtx *pin_ctx;		/* parallel pin workers, when used */
	int			pin_workers;	/* launched */
	int			leader_chunks;	/* chunks the leader pinned while they started */
	bool		pin_tried;		/* asked for pin workers */
	instr_time	t_pages;		/* CPU: pin, visibility, hand-over */
	instr_time	t_wait;			/* CPU waiting for chunk slots */
	PgGpuFallback fb_reason;
	char		fb_msg[256];
} PgGpuPageScan;

/* Accumulate the time since *since into *acc and restart *since. */
static inline void
PgGpuLap(instr_time *acc, instr_time *since)
{
	instr_time	now;

	INSTR_TIME_SET_CURRENT(now);
	INSTR_TIME_ACCUM_DIFF(*acc, now, *since);
	*since = now;
}

/*
 * Before the engine starts: whether the GPU can scan rel now (false with
 * ps->fb_* set), and how its pages will reach it; sets the task's emulate,
 * layout, gather and chunk size.  ps's pin arrays of an earlier run are kept.
 */
bool		PgGpuScanPrepare(PgGpuPageScan *ps, Relation rel, Snapshot snapshot,
							 MemoryContext cxt, pg_gpu_agg_task *task,
							 PgGpuSvcChannel *svc = NULL);

/* The engine for a prepared scan: the GPU service's (ps->remote) or the backend's. */
pg_gpu_agg *PgGpuScanBegin(PgGpuPageScan *ps, const pg_gpu_agg_task *task, pg_gpu_error *err);

/*
 * Start pin workers for a prepared scan when they pay (see heap_reader.cpp);
 * whether they run.  capacity: the pages an engine slot takes.
 */
bool		PgGpuScanStartWorkers(PgGpuPageScan *ps, int pin_workers_min_pages, int capacity);

/*
 * Stream every page to ps->agg and wait for the GPU to finish with them; false
 * with ps->fb_* set when the scan cannot go on.
 */
bool		PgGpuScanPages(PgGpuPageScan *ps, instr_time *lapt, int pin_workers_min_pages);

/* The engine finished without an error: a table-cache fill is complete. */
void		PgGpuScanComplete(PgGpuPageScan *ps);

/*
 * Stop the pin workers and, with release_pins, drop the pins held (the
 * engine reading those pages must have finished); safe to repeat.
 */
void		PgGpuScanRelease(PgGpuPageScan *ps, bool release_pins);

/* A key set whose keys the GPU collected from a table's pages. */
typedef struct PgGpuCollected
{
	pg_gpu_keyset *ks;			/* NULL: the set is the GPU service's ... */
	pg_gpu_set_ref ref;			/* ... with this reference */
	uint64		distinct;		/* ... and so many distinct keys */
	uint64		keys;			/* non-NULL keys */
	int			has_null;
	bool		nonempty;		/* a row passed the build filter */
	int64		pages;
	double		gpu_ms;
	/* a task with a payload (collect_pay): each column's distinct words, -1 unknown */
	int64		pay_distinct[PG_GPU_MAX_PAYLOAD];
} PgGpuCollected;

/*
 * Run a collect task (pg_gpu_engine.h) over rel's pages for the snapshot: the
 * keys of its passing rows as a key set of type settype (table_task.cpp).  False
 * with *reason and msg set when the GPU could not.
 */
bool		PgGpuCollectKeys(Relation rel, Snapshot snapshot, const pg_gpu_agg_task *task,
							 int settype, PgGpuCollected *out, PgGpuFallback *reason, char *msg,
							 size_t msglen, PgGpuSvcChannel *svc = NULL);

/*
 * Run a rows task (planner.h's PgGpuRowsTask) over rel's pages for the
 * snapshot and hand each group to fn (its key words as pg_gpu_agg_group gives
 * them, valid during the call; its NULL mask and row count); false from fn
 * stops.  *pages and *gpu_ms: what the scan read and took; phase_ms (4, or
 * NULL): milliseconds to begin, to read the pages, to finish, and to take the
 * groups and end.  False with *reason and msg set when the GPU could not (or fn
 * stopped: its reason).
 */
typedef bool (*PgGpuGroupFn) (void *arg, const uint64 *keys, uint32 nullmask, int64 rows);

bool		PgGpuCollectGroups(Relation rel, Snapshot snapshot, const pg_gpu_agg_task *plan_task,
							   PgGpuGroupFn fn, void *arg, int64 *pages, double *gpu_ms,
							   PgGpuFallback *reason, char *msg, size_t msglen,
							   double *phase_ms);

/*
 * A rows task on a channel of the GPU service whose groups become a key set
 * there, with the payload (PgGpuServiceKeysetRows): what it answered.
 */
typedef struct PgGpuRowsSet
{
	pg_gpu_set_ref ref;
	uint64		keys;
	uint64		distinct;
	int			has_null;
	bool		nonempty;		/* the task's table had passing rows */
	int64		pay_distinct[PG_GPU_MAX_PAYLOAD];
	int64		dup_rows;		/* > 0: rows repeat, no set made */
	int64		pages;
	double		gpu_ms;
} PgGpuRowsSet;

bool		PgGpuCollectRowsSet(Relation rel, Snapshot snapshot, const pg_gpu_agg_task *plan_task,
								int settype, PgGpuSvcChannel *svc, PgGpuRowsSet *out,
								double *phase_ms, PgGpuFallback *reason, char *msg,
								size_t msglen);

#endif							/* PG_GPU_HEAP_READER_H */
