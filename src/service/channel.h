/*
 * channel.h — the GPU service's shared memory: its state and the task channels
 * (service_thread.cpp serves them, client.cpp drives them).  Include after
 * postgres.h.
 *
 * One request at a time per channel: the backend writes op, its request's
 * member of `request` (protocol.h), its number and the service generation it
 * is for, posts req and waits on rsp; the
 * service's thread for the channel runs it (refusing another generation's),
 * fills its member of `answer`, sets ack to its number and posts rsp.  The
 * backend takes only an answer whose ack is its request's: a post left by a
 * stopped service is skipped.  Chunks do not wait for an answer: the backend
 * fills a slot's
 * references and bitmaps, sets the slot's state to HANDED and posts req; the
 * thread starts it on the GPU (RUNNING) and sets it IDLE once the GPU is done
 * with the pages, which is when the backend may unpin them.  sem_post and
 * sem_wait order the memory around them; the slot states are atomics.
 */
#ifndef PG_GPU_SERVICE_CHANNEL_H
#define PG_GPU_SERVICE_CHANNEL_H

#include <semaphore.h>

#include "port/atomics.h"

#include "pg_gpu_engine.h"
#include "service/colcache.h"
#include "service/protocol.h"

#define SVC_CHUNK_PAGES 4096		/* pages per chunk slot */

#define SVC_MAX_KEYSETS PG_GPU_MAX_SETS

typedef enum SvcSlotState
{
	SVC_SLOT_IDLE = 0,
	SVC_SLOT_HANDED,			/* filled by the backend, not started */
	SVC_SLOT_RUNNING			/* started on the GPU */
} SvcSlotState;

typedef enum SvcState
{
	SVC_DOWN = 0,
	SVC_STARTING,				/* emulated tasks run; the GPU is starting */
	SVC_READY					/* the GPU has started, or failed to */
} SvcState;

typedef struct SvcChannel
{
	pg_atomic_uint32 owner;		/* 0: free; else the owning backend's pid */
	uint32		generation;		/* the service's when the channel was taken */
	sem_t		req;			/* to the service */
	sem_t		rsp;			/* to the backend */
	volatile int32 op;		/* SvcOp */
	uint32		req_gen;		/* the service generation the request is for */
	uint32		seq;			/* the request's number (the backend counts) */
	volatile uint32 ack;		/* the number of the request last answered: an
								 * answer posted for another (a request of a
								 * service that has stopped) is not this one's */
	SvcRequests request;		/* the op's member: its arguments (protocol.h) */
	SvcAnswers	answer;			/* the op's member: what it answers */
	pg_atomic_uint64 busy_since;	/* µs: the step the thread runs began (0: none) */
	pg_gpu_status status;		/* of the request */
	pg_gpu_error err;
	pg_atomic_uint32 slot_state[PG_GPU_AGG_SLOTS];
	int32		npages[PG_GPU_AGG_SLOTS];
	int32		nvis[PG_GPU_AGG_SLOTS];
	uint64		slot_seq[PG_GPU_AGG_SLOTS];	/* the order chunks were handed
												 * over in: they start in it */
	pg_atomic_uint32 chunk_failed;	/* a chunk could not start: chunk_err says why */
	pg_atomic_uint32 abandon;	/* the backend is ending the task (an error, a
								 * cancel): an emulated step in flight stops */
	pg_gpu_error chunk_err;
	int64		tasks;			/* begun through this channel */
	pg_gpu_agg_task task;		/* SVC_BEGIN's task */
	/* SVC_BEGIN: the columnar cache asked for, and the entry given (-1: none) */
	CcRequest	cc_req;
	int32		cc_entry;
	uint32		cc_gen;
	/* per chunk: cached runs, and each page's block and fill LSN (0: no fill) */
	int32		nruns[PG_GPU_AGG_SLOTS];
	SvcRun		runs[PG_GPU_AGG_SLOTS][SVC_MAX_RUNS];
	uint32		blk[PG_GPU_AGG_SLOTS][SVC_CHUNK_PAGES];
	uint64		fill_lsn[PG_GPU_AGG_SLOTS][SVC_CHUNK_PAGES];
	pg_gpu_page_ref refs[PG_GPU_AGG_SLOTS][SVC_CHUNK_PAGES];
	uint32		vis[PG_GPU_AGG_SLOTS][SVC_CHUNK_PAGES * PG_GPU_VIS_WORDS];
	char		window[SVC_WINDOW];
} SvcChannel;

typedef struct SvcShared
{
	pg_atomic_uint32 state;		/* SvcState */
	pg_atomic_uint32 generation;	/* +1 at every start of the service */
	pg_atomic_uint32 restarts;	/* the service gave up on the GPU (faults) */
	int32		pid;
	int32		gpu;			/* 1: up and the pool registered; -1: not */
	uint64		pool_dev;		/* device address of BufferBlocks */
	double		start_ms;		/* CUDA start-up and registration */
	pg_atomic_uint64 mem_in_use;	/* the engine's device bytes held by tasks */
	pg_atomic_uint64 mem_cached;	/* ... and kept in its pool, after the last task */
	char		gpu_message[256];	/* why there is no GPU */
	pg_gpu_device_info dev_info;	/* its GPU, once gpu = 1 (pg_gpu_devices()) */
	pg_atomic_uint64 free_memory;	/* the GPU's free bytes, refreshed by the watchdog */
	int32		device;			/* this worker's place in PgGpuSvcDev */
	pg_atomic_uint32 turn;		/* device 0's: whose turn ties go to */
	char		device_name[64];	/* its CUDA_VISIBLE_DEVICES ("": unset) */
	int32		nchannels;
	SvcChannel	ch[FLEXIBLE_ARRAY_MEMBER];
} SvcShared;

/*
 * Each GPU's service worker's state and channels (PgGpuSvcNdev of them), and
 * in a service worker its own (PgGpuSvc; in a backend the first GPU's).
 */
extern SvcShared *PgGpuSvc;
extern SvcShared *PgGpuSvcDev[PG_GPU_MAX_DEVICES];
extern int	PgGpuSvcNdev;

/* Fill err; the status, for `return svc_error(...)` and `ch->status = svc_error(...)`. */
static inline pg_gpu_status
svc_error(pg_gpu_error *err, pg_gpu_status st, const char *msg)
{
	err->status = st;
	strlcpy(err->message, msg, sizeof(err->message));
	return st;
}

#endif							/* PG_GPU_SERVICE_CHANNEL_H */
