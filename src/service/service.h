/*
 * service.h — the GPU service (issue 21, docs/GPU_SERVICE.md): one background
 * worker owns the GPU, its CUDA context and the registered buffer pool, and runs
 * the aggregation tasks of every backend.  A backend that hands a task to it never
 * starts CUDA itself.
 *
 * Shared state (service.cpp): the service's pid, generation and readiness, and a
 * fixed pool of task channels in the main shared memory segment.  A channel is a
 * mailbox (one request at a time, POSIX semaphores both ways), three chunk slots
 * of page references and visibility bitmaps, and a window through which grouped
 * results come back.  The client (client.cpp) wraps a channel as an engine handle
 * (pg_gpu_agg_client), so the scan code drives it as it drives a local engine.
 *
 * Which tasks go there: aggregation and rows tasks without key sets, reading
 * pages in place (the service registered the buffer pool; emulated tasks read
 * the pages at their own address, which is the same in every process the
 * postmaster forked).  Sorts, key sets, dictionaries and the per-backend table
 * cache still run in the backend's own engine.
 */
#ifndef PG_GPU_SERVICE_H
#define PG_GPU_SERVICE_H

#include "pg_gpu_engine.h"

/* C linkage, as pg_gpu.h: it is included inside extern "C" blocks too */
#ifdef __cplusplus
extern "C" {
#endif

/* postmaster: shared memory, and the worker itself */
void		PgGpuServiceRequestShmem(void);
void		PgGpuServiceShmemStartup(void);
void		PgGpuServiceRegisterWorker(void);

PGDLLEXPORT void pg_gpu_service_main(Datum arg);

/*
 * Backend: whether the service runs this task now (it is up, has the GPU or
 * runs emulated tasks, and the task is of a kind it takes).  Tasks that probe
 * key sets, and collect tasks, only on a channel that holds the sets
 * (sets_here: PgGpuServiceOpen).
 */
bool		PgGpuServiceTakes(const pg_gpu_agg_task *task, bool sets_here);

/* Whether the service has the GPU up and the buffer pool registered. */
bool		PgGpuServiceGpuReady(void);

/* Whether other backends have GPU tasks in the service now. */
bool		PgGpuServiceOthersBusy(void);

/*
 * The GPUs the service runs on (a worker each; 0: no service), and, for
 * pg_gpu_cache_table's fills, the one this backend's next tasks must go to
 * (-1: any).
 */
int			PgGpuServiceDevices(void);
void		PgGpuServiceOnlyDevice(int dev);

/*
 * Worker d's GPU as its worker saw it at start, and its free memory now
 * (refreshed every 250 ms); false with *why (the worker's reason, or NULL:
 * still starting) when it has none.
 */
bool		PgGpuServiceDeviceInfo(int d, pg_gpu_device_info *info, uint64 *free_bytes,
								   const char **why);

/*
 * A channel held across tasks: its key sets live in the service until it is
 * closed, and the tasks begun on it probe them.  NULL with err set when none
 * is free in time or the service is not running.
 */
typedef struct SvcClient PgGpuSvcChannel;

PgGpuSvcChannel *PgGpuServiceOpen(pg_gpu_error *err);
void		PgGpuServiceClose(PgGpuSvcChannel *chan);

/*
 * Begin the task in the service, on the held channel on, or (on = NULL) on a
 * channel of its own that its end frees: a handle for pg_gpu_agg_*, or NULL
 * with err set (no free channel in time, the service stopped, the engine
 * refused it).
 */
pg_gpu_agg *PgGpuServiceBegin(PgGpuSvcChannel *on, const pg_gpu_agg_task *task,
							  pg_gpu_error *err);

/*
 * The same, asking for the columnar cache (colcache.h) with req: cc gets the
 * entry the service gave (entry -1: none) and where each chunk's cached runs,
 * blocks and fill LSNs go (the channel's arrays, per slot).
 */
struct CcRequest;
struct SvcRun;
typedef struct PgGpuSvcCc
{
	int			entry;
	uint32		gen;
	int32	   *nruns;
	struct SvcRun *runs[PG_GPU_AGG_SLOTS];
	uint32	   *blk[PG_GPU_AGG_SLOTS];
	uint64	   *fill_lsn[PG_GPU_AGG_SLOTS];
	int			dev;			/* the GPU the task went to (its worker's place) */
	uint64		pool_dev;		/* the buffer pool's device address there */
} PgGpuSvcCc;

pg_gpu_agg *PgGpuServiceBeginCc(PgGpuSvcChannel *on, const pg_gpu_agg_task *task,
								const struct CcRequest *req, PgGpuSvcCc *cc,
								pg_gpu_error *err);

/*
 * Key sets of a held channel: the keys of the collect task that finished on it
 * (pay_distinct, PG_GPU_MAX_PAYLOAD of them: its payload's distinct words, -1
 * unknown), or keys sent from here (as pg_gpu_keyset_build takes them).  *ref
 * gets the set's reference for a task's sets[] (its has_null and nonempty
 * kept).
 */
bool		PgGpuServiceKeysetCollected(PgGpuSvcChannel *chan, int type, pg_gpu_set_ref *ref,
										uint64 *keys, uint64 *distinct, int *has_null,
										int64 *pay_distinct, pg_gpu_error *err);
bool		PgGpuServiceKeysetBuild(PgGpuSvcChannel *chan, int type, uint64 n, const int64 *vals,
									const char *data, const uint64 *off, bool emulate,
									pg_gpu_set_ref *ref, uint64 *distinct, pg_gpu_error *err);
bool		PgGpuServiceKeysetCodes(PgGpuSvcChannel *chan, int col, int type, uint64 m,
									const char *data, const uint64 *off, bool emulate,
									pg_gpu_error *err);
bool		PgGpuServiceKeysetPayload(PgGpuSvcChannel *chan, int ncols, uint64 n,
									  const uint64 *vals, const uint8 *nulls,
									  pg_gpu_set_ref *ref, int64 *distinct,
									  pg_gpu_error *err);
uint64		PgGpuDistinctWords(const uint64 *vals, const uint8 *nulls, uint64 n);
bool		PgGpuServiceKeysetRows(PgGpuSvcChannel *chan, int type, pg_gpu_set_ref *ref,
								   uint64 *keys, uint64 *distinct, int *has_null,
								   int64 *pay_distinct, int64 *dup_rows, pg_gpu_error *err);
bool		PgGpuServiceKeysetTexts(PgGpuSvcChannel *chan, int col, int64 count,
									MemoryContext cxt, char **data, uint64 **off,
									pg_gpu_error *err);
pg_gpu_status PgGpuServiceKeysort(const pg_gpu_agg_task *task, const pg_gpu_keysort *enc,
								  MemoryContext cxt, uint32 **order, uint64 *n, double *gpu_ms,
								  uint64 *bytes_h2d, pg_gpu_error *err);
bool		PgGpuServiceKeysetProbe(PgGpuSvcChannel *chan, int set, uint64 m, const int64 *vals,
									const char *data, const uint64 *off, const int64 *x,
									const uint8 *xnull, int64 *out, pg_gpu_error *err);
bool		PgGpuServiceUp(bool emulate);
pg_gpu_status PgGpuServiceReduce(const void *values, int64 n, int coltype, int elsize,
								 bool emulate, pg_gpu_col_state *state, double *gpu_ms,
								 pg_gpu_error *err);
bool		PgGpuServiceKeysetOrdinals(PgGpuSvcChannel *chan, uint64 n, int64 *out,
									   pg_gpu_error *err);
void		PgGpuServiceKeysetsFree(PgGpuSvcChannel *chan);

#ifdef __cplusplus
}
#endif

#endif							/* PG_GPU_SERVICE_H */
