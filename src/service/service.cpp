/*
 * service.cpp — the GPU service's side (service.h): its shared memory, the
 * background worker, and one thread per task channel.
 *
 * The worker's main thread is a PostgreSQL process like any other: it handles
 * signals, reloads the configuration and starts the GPU.  The channel threads
 * never call PostgreSQL: they run engine calls (pg_gpu_engine.h, which is
 * PostgreSQL-free), semaphores and atomics only.  Threads start with every signal
 * blocked, so signals reach the main thread.
 *
 * The GPU starts once, when the service starts: CUDA's context and the
 * registration of the whole shared buffer pool, the 0.3-1.5 s that each backend
 * paid for itself before.  Until it is up, GPU tasks stay in their backends;
 * emulated tasks (pg_gpu.emulate_gpu, the tests without a GPU) run here from the
 * start, so the protocol is exercised wherever the tests run.
 *
 * A chunk's pages stay pinned by the backend until the thread has seen the GPU
 * finish with them (SVC_SLOT_IDLE), as with a local engine.  A thread waits for
 * its chunks by polling the engine every few microseconds while any is running,
 * and sleeps on its semaphore otherwise.
 *
 * Every thread catches at its top.  A step that throws (std::bad_alloc: the
 * host is out of memory; anything else: a bug) fails the channel's task only:
 * the backend reads the error in the answer or in chunk_failed and runs
 * PostgreSQL's plan, the task's engine and cache references and the channel's
 * key sets go, and the thread serves on.  An exception must never reach
 * std::terminate: the abort would make the postmaster reset the whole cluster.
 * Should the clean-up itself fail, or a thread's own set-up, the service
 * restarts as for a broken CUDA context (exit 1).  The main thread's C++ steps
 * (the GPU's start, the cache's upkeep) are guarded the same way.
 */
extern "C" {
#include "postgres.h"

#include <semaphore.h>
#include <signal.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/bufmgr.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "utils/guc.h"

#include "pg_gpu.h"
}

#include <atomic>
#include <exception>
#include <new>
#include <stdexcept>
#include <thread>
#include <vector>

#include "service/channel.h"
#include "service/service.h"

SvcShared  *PgGpuSvc = NULL;

static std::atomic<bool> svc_stop{false};
static std::atomic<int> svc_threads_live{0};
/* a thread met an error the service restarts for (a broken CUDA context) */
static std::atomic<bool> svc_restart{false};
/* ... or one it could not clean up after (svc_fail_step) */
static std::atomic<bool> svc_thread_failed{false};
/* this process's generation: requests for another are refused */
static uint32 svc_generation = 0;

/*
 * A fault the service restarts for: no new task may begin from now on (the
 * backends see the state at once, not at the watchdog's next look, 50 ms
 * later), and the watchdog makes the process exit.
 */
static void
svc_give_up(void)
{
	svc_restart = true;
	pg_atomic_write_u32(&PgGpuSvc->state, SVC_DOWN);
}

static uint64
svc_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64) ts.tv_sec * 1000000 + (uint64) ts.tv_nsec / 1000;
}

static Size
svc_shmem_size(void)
{
	return add_size(offsetof(SvcShared, ch),
					mul_size(sizeof(SvcChannel), (Size) Max(pg_gpu_service_tasks, 1)));
}

void
PgGpuServiceRequestShmem(void)
{
	if (pg_gpu_service)
	{
		RequestAddinShmemSpace(svc_shmem_size());
		RequestAddinShmemSpace(PgGpuCcShmemSize());
	}
}

void
PgGpuServiceShmemStartup(void)
{
	bool		found;

	if (!pg_gpu_service)
		return;
	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	{
		void	   *cc = ShmemInitStruct("pg_gpu cache", PgGpuCcShmemSize(), &found);

		if (!found)
			PgGpuCcShmemInit(cc);
		else
			PgGpuCc = (CcShared *) cc;
	}
	PgGpuSvc = (SvcShared *) ShmemInitStruct("pg_gpu service", svc_shmem_size(), &found);
	if (!found)
	{
		memset(PgGpuSvc, 0, offsetof(SvcShared, ch));
		pg_atomic_init_u32(&PgGpuSvc->state, SVC_DOWN);
		pg_atomic_init_u32(&PgGpuSvc->generation, 0);
		pg_atomic_init_u64(&PgGpuSvc->mem_in_use, 0);
		pg_atomic_init_u64(&PgGpuSvc->mem_cached, 0);
		pg_atomic_init_u32(&PgGpuSvc->restarts, 0);
		PgGpuSvc->nchannels = Max(pg_gpu_service_tasks, 1);
		for (int i = 0; i < PgGpuSvc->nchannels; i++)
		{
			SvcChannel *ch = &PgGpuSvc->ch[i];

			pg_atomic_init_u32(&ch->owner, 0);
			ch->op = SVC_NONE;
			for (int s = 0; s < PG_GPU_AGG_SLOTS; s++)
				pg_atomic_init_u32(&ch->slot_state[s], SVC_SLOT_IDLE);
			pg_atomic_init_u32(&ch->chunk_failed, 0);
			pg_atomic_init_u32(&ch->abandon, 0);
			pg_atomic_init_u64(&ch->busy_since, 0);
			ch->seq = 0;
			ch->ack = 0;
			ch->tasks = 0;
			if (sem_init(&ch->req, 1, 0) != 0 || sem_init(&ch->rsp, 1, 0) != 0)
				elog(FATAL, "pg_gpu: could not create the GPU service's semaphores: %m");
		}
	}
	LWLockRelease(AddinShmemInitLock);
}

void
PgGpuServiceRegisterWorker(void)
{
	BackgroundWorker w;

	if (!pg_gpu_service)
		return;
	memset(&w, 0, sizeof(w));
	w.bgw_flags = BGWORKER_SHMEM_ACCESS;
	w.bgw_start_time = BgWorkerStart_PostmasterStart;
	/* exit code 1 (a fault it gave up on, or a stop) restarts it after a second */
	w.bgw_restart_time = 1;
	strlcpy(w.bgw_library_name, "pg_gpu", sizeof(w.bgw_library_name));
	strlcpy(w.bgw_function_name, "pg_gpu_service_main", sizeof(w.bgw_function_name));
	strlcpy(w.bgw_name, "pg_gpu service", sizeof(w.bgw_name));
	strlcpy(w.bgw_type, "pg_gpu service", sizeof(w.bgw_type));
	RegisterBackgroundWorker(&w);
}

/* ---- a channel's thread ------------------------------------------------ */

static void
svc_abs_time(struct timespec *ts, long usec)
{
	clock_gettime(CLOCK_REALTIME, ts);
	ts->tv_nsec += usec * 1000L;
	while (ts->tv_nsec >= 1000000000L)
	{
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

/* A record's fixed part (no text key) always fits the window. */
StaticAssertDecl(sizeof(uint64) * (PG_GPU_MAX_KEYS + 2) +
				 sizeof(pg_gpu_col_state) * PG_GPU_MAX_AGG_COLS <= SVC_WINDOW,
				 "the GPU service's window holds a group without text keys");

/* Bytes of group g's record in the window. */
static size_t
svc_record_size(const pg_gpu_agg_task *t, const uint64 *keys, uint32 nullmask)
{
	size_t		n = svc_group_fixed(t);

	for (int k = 0; k < t->nkeys; k++)
		if (svc_text_type(t->keys[k].type) && !(nullmask & (1u << k)))
			n += TYPEALIGN(8, VARSIZE((const char *) (uintptr_t) keys[k]));
	return n;
}

/*
 * pg_gpu.debug_service_fault, at a task's first chunk: a CUDA error (the task
 * fails), an error the service restarts for, a step that never ends (the
 * watchdog's), the process killed.  False when the chunk must fail.  (alloc,
 * std::bad_alloc, is thrown by svc_start_chunk: in the chunk's cache fill
 * when it has one, else before the chunk starts.)
 */
static bool
svc_inject(SvcChannel *ch, int *fault, pg_gpu_error *err)
{
	int			f = *fault;

	*fault = PG_GPU_SVC_FAULT_NONE;
	switch (f)
	{
		case PG_GPU_SVC_FAULT_ERROR:
			svc_error(err, PG_GPU_CUDA_ERROR, "injected CUDA error in the GPU service");
			return false;
		case PG_GPU_SVC_FAULT_EXIT:
			svc_error(err, PG_GPU_CUDA_ERROR, "injected sticky CUDA error: the GPU service restarts");
			svc_give_up();
			return false;
		case PG_GPU_SVC_FAULT_HANG:
			pg_atomic_write_u64(&ch->busy_since, svc_now_us());
			while (!svc_stop.load())
				usleep(1000);
			svc_error(err, PG_GPU_CUDA_ERROR, "injected hang");
			return false;
		case PG_GPU_SVC_FAULT_CRASH:
			kill(getpid(), SIGKILL);
			break;
		default:
			break;
	}
	return true;
}

/* Start a chunk the backend handed over; false when it could not start. */
static void
svc_start_chunk(SvcChannel *ch, pg_gpu_agg *agg, CcTaskState *cc, int s, int *fault)
{
	pg_gpu_agg_slot buf;
	pg_gpu_error err;
	int			n;
	int			nv;
	bool		fail_alloc = *fault == PG_GPU_SVC_FAULT_ALLOC;

	pg_read_barrier();			/* the slot's state was read: now its contents */
	n = ch->npages[s];
	nv = ch->nvis[s];
	err.status = PG_GPU_OK;
	if (fail_alloc)
		*fault = PG_GPU_SVC_FAULT_NONE;
	else if (*fault != PG_GPU_SVC_FAULT_NONE && !svc_inject(ch, fault, &err))
		goto fail;
	if (pg_gpu_agg_slot_get(agg, s, &buf, &err) != PG_GPU_OK)
		goto fail;
	if (n > buf.capacity || nv > n || n > SVC_CHUNK_PAGES)
	{
		svc_error(&err, PG_GPU_INVALID_TASK, "a chunk larger than its slot");
		goto fail;
	}
	memcpy(buf.refs, ch->refs[s], sizeof(pg_gpu_page_ref) * n);
	memcpy(buf.vis, ch->vis[s], sizeof(uint32) * PG_GPU_VIS_WORDS * nv);
	if (cc != NULL && buf.cc != NULL)
	{
		if (!PgGpuCcChunk(cc, &buf, n, ch->blk[s], ch->fill_lsn[s], ch->runs[s], ch->nruns[s],
						  fail_alloc, &err))
			goto fail;
	}
	else if (ch->nruns[s] != 0)
	{
		svc_error(&err, PG_GPU_INVALID_TASK, "cached blocks for a task without the cache");
		goto fail;
	}
	if (fail_alloc)
		throw std::bad_alloc();	/* injected, where no cache fill took it */
	pg_atomic_write_u32(&ch->slot_state[s], SVC_SLOT_RUNNING);
	if (pg_gpu_agg_submit(agg, s, n, nv, &err) != PG_GPU_OK)
		goto fail;
	return;
fail:
	ch->chunk_err = err;
	if (err.status == PG_GPU_CUDA_ERROR && !ch->task.emulate && !pg_gpu_engine_healthy())
		svc_give_up();
	pg_write_barrier();
	pg_atomic_write_u32(&ch->chunk_failed, 1);
	pg_atomic_write_u32(&ch->slot_state[s], SVC_SLOT_IDLE);
}

/* What a channel's thread holds: the task's engine and the channel's key sets. */
typedef struct SvcWork
{
	pg_gpu_agg *agg;
	CcTaskState *cc;			/* the task's columnar cache entry, if any */
	bool		cc_publish;		/* the task finished: its fills are kept */
	int			fault;			/* PgGpuServiceFault the task asked for */
	uint64		since[PG_GPU_AGG_SLOTS];	/* µs: when each running chunk started */
	int			nks;
	pg_gpu_keyset *ks[SVC_MAX_KEYSETS];
	pg_gpu_set_ref ref[SVC_MAX_KEYSETS];
	uint64		nkeys[SVC_MAX_KEYSETS];	/* keys given to each set */
	std::vector<char> part[4];	/* SVC_KS_APPEND: vals, text bytes, offsets, NULLs */
	/* SVC_KS_CODES: each text payload column's code for each value's position */
	std::vector<int64_t> codes[PG_GPU_MAX_PAYLOAD];
	/* SVC_KS_ROWS: each text payload column's values, and where code c's is */
	std::vector<char> tdata[PG_GPU_MAX_PAYLOAD];
	std::vector<uint64> toff[PG_GPU_MAX_PAYLOAD];
	std::vector<uint64> tfirst[PG_GPU_MAX_PAYLOAD];
} SvcWork;

static void
svc_end_task(SvcChannel *ch, SvcWork *w)
{
	if (w->agg)
		pg_gpu_agg_end(w->agg);	/* waits for the GPU */
	w->agg = NULL;
	PgGpuCcDetach(w->cc, w->cc_publish);
	w->cc = NULL;
	w->cc_publish = false;
	for (int s = 0; s < PG_GPU_AGG_SLOTS; s++)
		pg_atomic_write_u32(&ch->slot_state[s], SVC_SLOT_IDLE);
}

static void
svc_free_keysets(SvcWork *w)
{
	for (int i = 0; i < w->nks; i++)
		pg_gpu_keyset_free(w->ks[i]);
	w->nks = 0;
	for (int p = 0; p < 4; p++)
		std::vector<char>().swap(w->part[p]);
	for (int j = 0; j < PG_GPU_MAX_PAYLOAD; j++)
	{
		std::vector<int64_t>().swap(w->codes[j]);
		std::vector<char>().swap(w->tdata[j]);
		std::vector<uint64>().swap(w->toff[j]);
		std::vector<uint64>().swap(w->tfirst[j]);
	}
}

/*
 * Whether o holds n + 1 offsets into bytes of size bytes, from 0, never going
 * back: the engine reads value i at [o[i], o[i + 1]).
 */
static bool
svc_offsets_ok(const std::vector<char> &o, uint64 n, size_t bytes)
{
	const uint64 *off = (const uint64 *) o.data();

	if (o.size() != (n + 1) * sizeof(uint64) || off[0] != 0 || off[n] != bytes)
		return false;
	for (uint64 i = 0; i < n; i++)
		if (off[i + 1] < off[i])
			return false;
	return true;
}

/* Whether two references name the same set (the flags a backend sets aside). */
static bool
svc_same_set(const pg_gpu_set_ref *a, const pg_gpu_set_ref *b)
{
	return a->tab == b->tab && a->mask == b->mask && a->vals == b->vals &&
		a->data == b->data && a->off == b->off && a->mult == b->mult &&
		a->max_mult == b->max_mult && a->trie == b->trie && a->pay == b->pay &&
		a->pay_null == b->pay_null && a->pay_n == b->pay_n && a->npay == b->npay &&
		a->type == b->type;
}

/* Answer key set i's reference (taken again: a payload changes it) and counts. */
static void
svc_answer_keyset(SvcChannel *ch, SvcWork *w, int i, int has_null)
{
	pg_gpu_set_ref *ref = &w->ref[i];

	memset(ref, 0, sizeof(*ref));
	pg_gpu_keyset_ref(w->ks[i], ref);
	ch->ks_ref = *ref;
	ch->ks_keys = w->nkeys[i];
	ch->ks_distinct = pg_gpu_keyset_size(w->ks[i]);
	ch->ks_has_null = has_null;
	ch->status = PG_GPU_OK;
}

/* A key set made: keep it, and answer its reference and counts. */
static void
svc_keep_keyset(SvcChannel *ch, SvcWork *w, pg_gpu_keyset *ks, uint64 keys, int has_null)
{
	w->nkeys[w->nks] = keys;
	w->ks[w->nks++] = ks;
	svc_answer_keyset(ch, w, w->nks - 1, has_null);
}

static void
svc_op_keyset(SvcChannel *ch, SvcWork *w, uint32 op)
{
	pg_gpu_keyset *ks = NULL;
	uint64_t	keys = 0;
	int			has_null = 0;

	if (w->nks >= SVC_MAX_KEYSETS)
	{
		ch->status = svc_error(&ch->err, PG_GPU_INVALID_TASK, "too many key sets on one channel");
		return;
	}
	if (op == SVC_KS_COLLECTED)
	{
		if (w->agg == NULL || !ch->task.collect)
		{
			ch->status = svc_error(&ch->err, PG_GPU_INVALID_TASK, "no collect task on the channel");
			return;
		}
		ks = pg_gpu_agg_keyset(w->agg, (int) ch->arg, &keys, &has_null, &ch->err);
	}
	else
	{
		uint64		n = (uint64) ch->arg2;
		const std::vector<char> &v = w->part[0],
					&d = w->part[1],
					&o = w->part[2];

		if ((!v.empty() && v.size() != n * sizeof(int64)) ||
			(!o.empty() && !svc_offsets_ok(o, n, d.size())))
		{
			ch->status = svc_error(&ch->err, PG_GPU_INVALID_TASK, "a key set's parts do not match its size");
			return;
		}
		if (!ch->emulate && (ch->status = pg_gpu_engine_init(&ch->err)) != PG_GPU_OK)
			return;
		ks = pg_gpu_keyset_build((int) ch->arg, n,
								 v.empty() ? NULL : (const int64_t *) v.data(),
								 d.empty() ? NULL : d.data(),
								 o.empty() ? NULL : (const uint64_t *) o.data(),
								 ch->emulate, &ch->err);
		keys = n;
		for (int p = 0; p < 4; p++)
			std::vector<char>().swap(w->part[p]);
	}
	if (ks == NULL)
	{
		ch->status = ch->err.status != PG_GPU_OK ? ch->err.status : PG_GPU_CUDA_ERROR;
		return;
	}
	svc_keep_keyset(ch, w, ks, keys, has_null);
}

static void
svc_op_append(SvcChannel *ch, SvcWork *w)
{
	int			p = (int) ch->arg;
	size_t		n = (size_t) ch->arg2;

	if (p < 0 || p > 3 || n > SVC_WINDOW)
	{
		ch->status = svc_error(&ch->err, PG_GPU_INVALID_TASK, "a bad key set part");
		return;
	}
	try
	{
		w->part[p].insert(w->part[p].end(), ch->window, ch->window + n);
		ch->status = PG_GPU_OK;
	}
	catch (const std::bad_alloc &)
	{
		ch->status = svc_error(&ch->err, PG_GPU_HOST_OUT_OF_MEMORY, "no host memory for a key set");
	}
}

/*
 * The distinct non-NULL words among n (a payload column's): an open-addressed
 * table of the words seen, twice the size of n rounded up to a power of two.
 */
uint64
PgGpuDistinctWords(const uint64 *vals, const uint8 *nulls, uint64 n)
{
	uint64		cap = 16;
	uint64		distinct = 0;
	bool		zero = false;	/* 0 marks a free slot: counted apart */

	while (cap < 2 * n)
		cap <<= 1;
	std::vector<uint64> tab(cap, 0);

	for (uint64 r = 0; r < n; r++)
	{
		uint64		v = vals[r];

		if (nulls[r])
			continue;
		if (v == 0)
		{
			distinct += zero ? 0 : 1;
			zero = true;
			continue;
		}
		for (uint64 h = (v * UINT64CONST(0x9E3779B97F4A7C15)) >> 20;; h++)
		{
			uint64	   *slot = &tab[h & (cap - 1)];

			if (*slot == v)
				break;
			if (*slot == 0)
			{
				*slot = v;
				distinct++;
				break;
			}
		}
	}
	return distinct;
}

/*
 * SVC_KS_CODES: a text payload column's values (parts 1 and 2, in the order of
 * their positions): each position's code is the position of the first value
 * equal to it (what a key set of the values answers), kept for SVC_KS_PAYLOAD.
 * Only the codes cross back to the backend, inside the set's words.
 */
static void
svc_op_codes(SvcChannel *ch, SvcWork *w)
{
	int			j = (int) ch->arg;
	uint64		m = (uint64) ch->arg2;
	const std::vector<char> &d = w->part[1],
				&o = w->part[2];
	pg_gpu_keyset *ks;
	int			type = ch->val_type;

	if (j < 0 || j >= PG_GPU_MAX_PAYLOAD || !w->part[0].empty() || !w->part[3].empty() ||
		!svc_offsets_ok(o, m, d.size()) || !svc_text_type(type))
	{
		ch->status = svc_error(&ch->err, PG_GPU_INVALID_TASK, "a payload column's values do not match their count");
		return;
	}
	if (!ch->emulate && (ch->status = pg_gpu_engine_init(&ch->err)) != PG_GPU_OK)
		return;
	try
	{
		w->codes[j].assign(m, 0);
	}
	catch (const std::bad_alloc &)
	{
		ch->status = svc_error(&ch->err, PG_GPU_HOST_OUT_OF_MEMORY, "no host memory for a payload's codes");
		return;
	}
	ch->status = PG_GPU_OK;
	if (m > 0)
	{
		ks = pg_gpu_keyset_build(type, m, NULL, d.empty() ? "" : d.data(),
								 (const uint64_t *) o.data(), ch->emulate, &ch->err);
		if (ks == NULL)
			ch->status = ch->err.status != PG_GPU_OK ? ch->err.status : PG_GPU_CUDA_ERROR;
		else
		{
			ch->status = pg_gpu_keyset_ordinals(ks, w->codes[j].data(), &ch->err);
			pg_gpu_keyset_free(ks);
		}
	}
	for (int p = 0; p < 4; p++)
		std::vector<char>().swap(w->part[p]);
}

/*
 * SVC_KS_PAYLOAD: the channel's last key set gets its payload (parts 0 and 3:
 * arg columns of arg2 words and NULL bytes, as pg_gpu_keyset_payload takes
 * them).  A text column's words are positions, replaced by SVC_KS_CODES's
 * codes.  The set's reference changes: the new one is answered.
 */
static void
svc_op_payload(SvcChannel *ch, SvcWork *w)
{
	int			ncols = (int) ch->arg;
	uint64		n = (uint64) ch->arg2;
	std::vector<char> &v = w->part[0],
				&nl = w->part[3];
	uint64	   *vals = (uint64 *) v.data();
	const uint8 *nulls = (const uint8 *) nl.data();
	int			i = w->nks - 1;

	if (i < 0 || ncols <= 0 || ncols > PG_GPU_MAX_PAYLOAD || n != w->nkeys[i] ||
		v.size() != (size_t) ncols * n * sizeof(uint64) || nl.size() != (size_t) ncols * n)
	{
		ch->status = svc_error(&ch->err, PG_GPU_INVALID_TASK, "a key set's payload does not match it");
		return;
	}
	ch->status = PG_GPU_OK;
	for (int j = 0; j < ncols && ch->status == PG_GPU_OK; j++)
	{
		const std::vector<int64_t> &c = w->codes[j];

		if (c.empty())
			continue;
		for (uint64 r = 0; r < n; r++)
		{
			uint64	   *word = &vals[(uint64) j * n + r];

			if (nulls[(uint64) j * n + r])
				continue;
			if (*word >= c.size())
			{
				ch->status = svc_error(&ch->err, PG_GPU_INVALID_TASK, "a payload word names no value");
				break;
			}
			*word = (uint64) c[*word];
		}
	}
	for (int j = 0; j < PG_GPU_MAX_PAYLOAD && ch->status == PG_GPU_OK; j++)
		ch->ks_pay_distinct[j] = j < ncols ? (int64) PgGpuDistinctWords(vals + (uint64) j * n,
																		 nulls + (uint64) j * n, n)
			: -1;
	if (ch->status == PG_GPU_OK &&
		(ch->status = pg_gpu_keyset_payload(w->ks[i], ncols, vals, nulls, &ch->err)) == PG_GPU_OK)
		svc_answer_keyset(ch, w, i, 0);
	for (int p = 0; p < 4; p++)
		std::vector<char>().swap(w->part[p]);
	for (int j = 0; j < PG_GPU_MAX_PAYLOAD; j++)
		std::vector<int64_t>().swap(w->codes[j]);
}

/*
 * SVC_KS_ROWS: a star join's dimension, its rows task finished on this channel
 * (groups of key and payload columns, a group per distinct row): the keys
 * become a key set of the channel, the payload columns its payload, without
 * the rows crossing to the backend.  A text column's words are dense codes
 * (0, 1, ... in the order the values first appear); the backend reads the
 * values of the codes with SVC_KS_TEXTS.  A NULL key joins nothing; a group of
 * equal rows makes no set (ks_dup_rows: PostgreSQL's join must count them).
 */
static void
svc_op_ks_rows(SvcChannel *ch, SvcWork *w, pg_gpu_agg *agg)
{
	const pg_gpu_agg_task *t = &ch->task;
	int			settype = (int) ch->arg;
	int			npay = t->nkeys - 1;
	bool		ktext = svc_text_type(settype);
	std::vector<int64_t> kv;
	std::vector<char> kd;
	std::vector<uint64_t> ko;
	std::vector<uint64> pv[PG_GPU_MAX_PAYLOAD];
	std::vector<uint8> pn[PG_GPU_MAX_PAYLOAD];
	int			has_null = 0;
	pg_gpu_keyset *ks;

	ch->ks_dup_rows = 0;
	if (t->nkeys < 1 || npay > PG_GPU_MAX_PAYLOAD || t->sort || t->collect || w->nks >= SVC_MAX_KEYSETS ||
		(ktext != svc_text_type(t->keys[0].type)))
	{
		ch->status = svc_error(&ch->err, PG_GPU_INVALID_TASK, "no rows task for a key set on the channel");
		return;
	}
	try
	{
		ko.push_back(0);
		for (int j = 0; j < PG_GPU_MAX_PAYLOAD; j++)
		{
			w->tdata[j].clear();
			w->toff[j].assign(1, 0);
			w->tfirst[j].clear();
		}
		for (int64 g = 0; g < ch->res.ngroups; g++)
		{
			uint64		keys[PG_GPU_MAX_KEYS];
			uint32		nullmask = 0;
			int64		rows = 0;
			pg_gpu_col_state states[PG_GPU_MAX_AGG_COLS];

			pg_gpu_agg_group(agg, g, keys, &nullmask, &rows, states);
			if (nullmask & 1)
			{
				has_null = 1;
				continue;
			}
			if (rows > 1)
			{
				ch->ks_dup_rows = rows;
				ch->status = svc_error(&ch->err, PG_GPU_INVALID_TASK, "the join's build side has rows that repeat");
				return;
			}
			if (ktext)
			{
				const char *v = (const char *) (uintptr_t) keys[0];

				kd.insert(kd.end(), v + VARHDRSZ, v + VARSIZE(v));
				ko.push_back(kd.size());
			}
			else
				kv.push_back((int64_t) keys[0]);
			for (int j = 0; j < npay; j++)
			{
				uint8		null = (nullmask >> (j + 1)) & 1;
				uint64		word = keys[j + 1];

				if (null)
					word = 0;
				else if (svc_text_type(t->keys[j + 1].type))
				{
					const char *v = (const char *) (uintptr_t) keys[j + 1];

					word = w->toff[j].size() - 1;	/* its position, coded below */
					w->tdata[j].insert(w->tdata[j].end(), v + VARHDRSZ, v + VARSIZE(v));
					w->toff[j].push_back(w->tdata[j].size());
				}
				else if (t->keys[j + 1].type == PG_GPU_BOOL)
					word = word != 0;
				pn[j].push_back(null);
				pv[j].push_back(word);
			}
		}
	}
	catch (const std::bad_alloc &)
	{
		ch->status = svc_error(&ch->err, PG_GPU_HOST_OUT_OF_MEMORY, "no host memory for a key set");
		return;
	}

	uint64		n = ktext ? ko.size() - 1 : kv.size();

	if (!t->emulate && (ch->status = pg_gpu_engine_init(&ch->err)) != PG_GPU_OK)
		return;
	ks = pg_gpu_keyset_build(settype, n, ktext ? NULL : kv.data(), ktext ? (kd.empty() ? "" : kd.data()) : NULL,
							 ktext ? ko.data() : NULL, t->emulate, &ch->err);
	if (ks == NULL)
	{
		ch->status = ch->err.status != PG_GPU_OK ? ch->err.status : PG_GPU_CUDA_ERROR;
		return;
	}
	/* the set is not the channel's until kept: a throw frees it on its way */
	try
	{
		ch->status = PG_GPU_OK;
		for (int j = 0; j < PG_GPU_MAX_PAYLOAD; j++)
			ch->ks_pay_distinct[j] = -1;
		for (int j = 0; j < npay && ch->status == PG_GPU_OK; j++)
		{
			uint64		m = w->toff[j].size() - 1;

			if (!svc_text_type(t->keys[j + 1].type))
			{
				ch->ks_pay_distinct[j] = (int64) PgGpuDistinctWords(pv[j].data(), pn[j].data(), n);
				continue;
			}
			/* a text column: each value's code, the first equal value's rank */
			std::vector<int64_t> ord(m);
			std::vector<uint64> dense(m);
			pg_gpu_keyset *vs = m == 0 ? NULL
				: pg_gpu_keyset_build(t->keys[j + 1].type, m, NULL,
									  w->tdata[j].empty() ? "" : w->tdata[j].data(),
									  w->toff[j].data(), t->emulate, &ch->err);

			if (m > 0 && (vs == NULL || (ch->status = pg_gpu_keyset_ordinals(vs, ord.data(), &ch->err)) != PG_GPU_OK))
			{
				if (ch->status == PG_GPU_OK)
					ch->status = ch->err.status != PG_GPU_OK ? ch->err.status : PG_GPU_CUDA_ERROR;
				pg_gpu_keyset_free(vs);
				break;
			}
			pg_gpu_keyset_free(vs);
			for (uint64 p = 0; p < m; p++)
			{
				if ((uint64) ord[p] == p)
				{
					dense[p] = w->tfirst[j].size();
					w->tfirst[j].push_back(p);
				}
				else
					dense[p] = dense[ord[p]];
			}
			for (uint64 r = 0; r < n; r++)
				if (!pn[j][r])
					pv[j][r] = dense[pv[j][r]];
			ch->ks_pay_distinct[j] = (int64) w->tfirst[j].size();
		}
		if (ch->status == PG_GPU_OK && npay > 0)
		{
			std::vector<uint64> vals((size_t) npay * n);
			std::vector<uint8> nulls((size_t) npay * n);

			for (int j = 0; j < npay; j++)
			{
				std::copy(pv[j].begin(), pv[j].end(), vals.begin() + (size_t) j * n);
				std::copy(pn[j].begin(), pn[j].end(), nulls.begin() + (size_t) j * n);
			}
			ch->status = pg_gpu_keyset_payload(ks, npay, vals.data(), nulls.data(), &ch->err);
		}
	}
	catch (...)
	{
		pg_gpu_keyset_free(ks);
		throw;
	}
	if (ch->status != PG_GPU_OK)
	{
		pg_gpu_keyset_free(ks);
		return;
	}
	svc_keep_keyset(ch, w, ks, n, has_null);
}

/* SVC_KS_TEXTS: the values of a text column's codes, from code arg2 on. */
static void
svc_op_ks_texts(SvcChannel *ch, SvcWork *w)
{
	int			j = (int) ch->arg;
	uint64		c = (uint64) ch->arg2;
	size_t		used = 0;
	int32		n = 0;

	if (j < 0 || j >= PG_GPU_MAX_PAYLOAD || c > w->tfirst[j].size())
	{
		ch->status = svc_error(&ch->err, PG_GPU_INVALID_TASK, "no such payload values");
		return;
	}
	for (; c < w->tfirst[j].size(); c++, n++)
	{
		uint64		p = w->tfirst[j][c];
		uint32		len = (uint32) (w->toff[j][p + 1] - w->toff[j][p]);

		if (used + sizeof(uint32) + len > SVC_WINDOW)
			break;
		memcpy(ch->window + used, &len, sizeof(uint32));
		memcpy(ch->window + used + sizeof(uint32), w->tdata[j].data() + w->toff[j][p], len);
		used += sizeof(uint32) + len;
	}
	ch->ngroups = n;
	ch->status = n > 0 || c == w->tfirst[j].size() ? PG_GPU_OK
		: svc_error(&ch->err, PG_GPU_INVALID_TASK, "a payload value too long for the GPU service's window");
}

static void
svc_op_begin(SvcChannel *ch, SvcWork *w)
{
	pg_gpu_agg **agg = &w->agg;
	pg_gpu_agg_slot buf;

	svc_end_task(ch, w);
	pg_atomic_write_u32(&ch->chunk_failed, 0);
	if (!ch->task.emulate)
	{
		if (PgGpuSvc->gpu != 1)
		{
			ch->status = svc_error(&ch->err, PG_GPU_NO_DEVICE, PgGpuSvc->gpu_message);
			return;
		}
		/* binds this thread to the device the main thread started */
		if ((ch->status = pg_gpu_engine_init(&ch->err)) != PG_GPU_OK)
			return;
	}
	if (ch->task.gather || ch->task.cache_fill || ch->task.pages_resident ||
		ch->task.sort || ch->task.nsets < 0 || ch->task.nsets > PG_GPU_MAX_SETS)
	{
		ch->status = svc_error(&ch->err, PG_GPU_INVALID_TASK, "a task the GPU service does not run");
		return;
	}
	/* the sets it probes are this channel's (no other address is valid here) */
	for (int i = 0; i < ch->task.nsets; i++)
	{
		bool		found = false;

		for (int k = 0; k < w->nks && !found; k++)
			found = svc_same_set(&ch->task.sets[i], &w->ref[k]);
		if (!found)
		{
			ch->status = svc_error(&ch->err, PG_GPU_INVALID_TASK, "a key set the GPU service did not build");
			return;
		}
	}
	w->fault = ch->fault;
	ch->cc_entry = -1;
	w->cc = PgGpuCcAttach(&ch->cc_req, &ch->task, &ch->cc_entry, &ch->cc_gen);
	if ((*agg = pg_gpu_agg_begin(&ch->task, &ch->err)) == NULL)
	{
		PgGpuCcDetach(w->cc, false);
		w->cc = NULL;
		ch->cc_entry = -1;
		ch->status = ch->err.status;
		return;
	}
	if ((ch->status = pg_gpu_agg_slot_get(*agg, 0, &buf, &ch->err)) != PG_GPU_OK)
	{
		pg_gpu_agg_end(*agg);
		*agg = NULL;
		return;
	}
	ch->capacity = Min(buf.capacity, SVC_CHUNK_PAGES);
	ch->tasks++;
}

static void
svc_op_finish(SvcChannel *ch, SvcWork *w, pg_gpu_agg *agg)
{
	const pg_gpu_agg_task *t = &ch->task;

	if ((ch->status = pg_gpu_agg_finish(agg, &ch->res, &ch->err)) != PG_GPU_OK)
		return;
	w->cc_publish = (w->cc != NULL);
	/*
	 * Every group must fit the window, or the backend could not take it.  Only
	 * text keys make a record longer than its fixed part, which always fits.
	 */
	bool		text = false;

	for (int k = 0; k < t->nkeys; k++)
		text |= svc_text_type(t->keys[k].type);
	if (text)
		for (int64 g = 0; g < ch->res.ngroups; g++)
		{
			uint64		keys[PG_GPU_MAX_KEYS];
			uint32		nullmask = 0;
			int64		rows;
			pg_gpu_col_state states[PG_GPU_MAX_AGG_COLS];

			pg_gpu_agg_group(agg, g, keys, &nullmask, &rows, states);
			if (svc_record_size(t, keys, nullmask) > SVC_WINDOW)
			{
				ch->status = svc_error(&ch->err, PG_GPU_INVALID_TASK,
									   "a group key too long for the GPU service's window");
				return;
			}
		}
}

static void
svc_op_groups(SvcChannel *ch, pg_gpu_agg *agg)
{
	const pg_gpu_agg_task *t = &ch->task;
	size_t		used = 0;
	int32		n = 0;

	for (int64 g = ch->arg; g < ch->res.ngroups; g++, n++)
	{
		uint64		keys[PG_GPU_MAX_KEYS];
		uint32		nullmask = 0;
		int64		rows = 0;
		pg_gpu_col_state states[PG_GPU_MAX_AGG_COLS];
		char	   *p = ch->window + used;
		size_t		size;

		pg_gpu_agg_group(agg, g, keys, &nullmask, &rows, states);
		size = svc_record_size(t, keys, nullmask);
		if (used + size > SVC_WINDOW)
			break;
		memcpy(p, keys, sizeof(uint64) * t->nkeys);
		p += sizeof(uint64) * t->nkeys;
		*(uint64 *) p = nullmask;
		p += sizeof(uint64);
		memcpy(p, &rows, sizeof(int64));
		p += sizeof(int64);
		memcpy(p, states, sizeof(pg_gpu_col_state) * t->ninputs);
		p += sizeof(pg_gpu_col_state) * t->ninputs;
		for (int k = 0; k < t->nkeys; k++)
			if (svc_text_type(t->keys[k].type) && !(nullmask & (1u << k)))
			{
				const char *v = (const char *) (uintptr_t) keys[k];

				memcpy(p, v, VARSIZE(v));
				p += TYPEALIGN(8, VARSIZE(v));
			}
		used += size;
	}
	ch->ngroups = n;
	ch->status = PG_GPU_OK;
}

/* The engine's device memory, for pg_gpu_service(), after a task ends. */
static void
svc_note_memory(void)
{
	uint64		cached = 0;
	uint64		in_use = pg_gpu_engine_memory(&cached);

	pg_atomic_write_u64(&PgGpuSvc->mem_in_use, in_use);
	pg_atomic_write_u64(&PgGpuSvc->mem_cached, cached);
}

/*
 * Run the channel's request op (SVC_NONE: only its chunks handed over or
 * running); false when there is no request to answer.
 */
static bool
svc_step(SvcChannel *ch, SvcWork *w, uint32 op)
{
	if (op != SVC_NONE && ch->req_gen != svc_generation)
	{
		/* a request of a backend that has not seen the restart: not run */
		ch->status = svc_error(&ch->err, PG_GPU_CUDA_ERROR, "the GPU service restarted");
	}
	else if (op == SVC_END_TASK || op == SVC_END)
	{
		/* chunks handed over but not started never start */
		svc_end_task(ch, w);
		if (op == SVC_END)
			svc_free_keysets(w);
		ch->status = PG_GPU_OK;
		svc_note_memory();
	}
	else
	{
		pg_gpu_agg *agg = w->agg;
		bool		still = false;
		uint64		oldest = 0;

		for (int s = 0; agg && s < PG_GPU_AGG_SLOTS; s++)
			if (pg_atomic_read_u32(&ch->slot_state[s]) == SVC_SLOT_HANDED)
			{
				w->since[s] = svc_now_us();
				svc_start_chunk(ch, agg, w->cc, s, &w->fault);
			}
		for (int s = 0; agg && s < PG_GPU_AGG_SLOTS; s++)
			if (pg_atomic_read_u32(&ch->slot_state[s]) == SVC_SLOT_RUNNING)
			{
				if (pg_gpu_agg_slot_idle(agg, s))
					pg_atomic_write_u32(&ch->slot_state[s], SVC_SLOT_IDLE);
				else
				{
					still = true;
					if (oldest == 0 || w->since[s] < oldest)
						oldest = w->since[s];
				}
			}
		/* the watchdog's clock: the oldest chunk still on the GPU */
		pg_atomic_write_u64(&ch->busy_since, still ? oldest : 0);
		if (op == SVC_NONE)
			return false;
		pg_atomic_write_u64(&ch->busy_since, svc_now_us());
		if (op == SVC_BEGIN)
			svc_op_begin(ch, w);
		else if (op == SVC_KS_APPEND)
			svc_op_append(ch, w);
		else if (op == SVC_KS_BUILD || op == SVC_KS_COLLECTED)
			svc_op_keyset(ch, w, op);
		else if (op == SVC_KS_CODES)
			svc_op_codes(ch, w);
		else if (op == SVC_KS_PAYLOAD)
			svc_op_payload(ch, w);
		else if (op == SVC_KS_TEXTS)
			svc_op_ks_texts(ch, w);
		else if (op == SVC_KS_FREE)
		{
			svc_free_keysets(w);
			ch->status = PG_GPU_OK;
		}
		else if (agg == NULL)
			ch->status = svc_error(&ch->err, PG_GPU_INVALID_TASK,
								   "no task in the GPU service (it restarted)");
		else if (op == SVC_FINISH)
			svc_op_finish(ch, w, agg);
		else if (op == SVC_KS_ROWS)
			svc_op_ks_rows(ch, w, agg);
		else if (op == SVC_GROUPS)
			svc_op_groups(ch, agg);
	}
	return true;
}

/*
 * A step threw: the channel's task fails (chunk_failed, and the answer when
 * there is a request), its engine ends (waiting for the GPU), its cache
 * entry's reference goes without publishing its fills, and the channel's key
 * sets go.  Nothing here allocates; if the clean-up throws all the same, the
 * service restarts.
 */
static void
svc_fail_step(SvcChannel *ch, SvcWork *w, bool answer, pg_gpu_status st, const char *msg)
{
	pg_gpu_error err;

	svc_error(&err, st, msg);
	ch->chunk_err = err;
	pg_write_barrier();
	pg_atomic_write_u32(&ch->chunk_failed, 1);	/* seen before the slots go idle */
	if (answer)
	{
		ch->err = err;
		ch->status = st;
	}
	w->cc_publish = false;
	/* the watchdog's clock runs while the engine waits for the GPU */
	pg_atomic_write_u64(&ch->busy_since, svc_now_us());
	try
	{
		svc_end_task(ch, w);
		svc_free_keysets(w);
		svc_note_memory();
	}
	catch (...)
	{
		svc_thread_failed = true;
		svc_give_up();
	}
	pg_atomic_write_u64(&ch->busy_since, 0);
}

/* Serve channel i until the service stops (svc_serve's body). */
/*
 * The engine's cancel callback on a channel's thread: the backend is ending
 * its task while an emulated step runs (a chunk on the CPU takes up to a few
 * hundred milliseconds), so the step stops and the backend's cancel or error
 * is not held up by it.  Steps on the GPU take milliseconds and are let finish.
 */
static thread_local SvcChannel *svc_my_channel = NULL;

static int
svc_abandoned(void)
{
	SvcChannel *ch = svc_my_channel;

	return ch != NULL && ch->task.emulate && pg_atomic_read_u32(&ch->abandon) != 0;
}

static void
svc_serve_channel(int i)
{
	SvcChannel *ch = &PgGpuSvc->ch[i];
	SvcWork    *w = new SvcWork();

	svc_my_channel = ch;
	pg_gpu_engine_set_cancel(svc_abandoned);

	w->agg = NULL;
	w->cc = NULL;
	w->cc_publish = false;
	w->fault = PG_GPU_SVC_FAULT_NONE;
	w->nks = 0;
	/* sleeps of a few microseconds while chunks run, not the default 50 */
	(void) prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
	while (!svc_stop.load())
	{
		struct timespec ts;
		bool		running = false;
		bool		answer;
		uint32		op;

		for (int s = 0; w->agg && s < PG_GPU_AGG_SLOTS; s++)
			running |= pg_atomic_read_u32(&ch->slot_state[s]) == SVC_SLOT_RUNNING;
		svc_abs_time(&ts, running ? 10 : 200000);
		(void) sem_timedwait(&ch->req, &ts);

		op = (uint32) ch->op;
		pg_read_barrier();
		answer = op != SVC_NONE;
		try
		{
			answer = svc_step(ch, w, op);
		}
		catch (const std::bad_alloc &)
		{
			svc_fail_step(ch, w, answer, PG_GPU_HOST_OUT_OF_MEMORY,
						  "out of memory in the GPU service");
		}
		catch (const std::length_error &)
		{
			/* a vector asked for more than it can hold: out of memory too */
			svc_fail_step(ch, w, answer, PG_GPU_HOST_OUT_OF_MEMORY,
						  "out of memory in the GPU service");
		}
		catch (...)
		{
			svc_fail_step(ch, w, answer, PG_GPU_CUDA_ERROR,
						  "an internal error in the GPU service");
		}
		if (!answer)
			continue;
		/* a CUDA error that broke the context: every later task would fail */
		if (ch->status == PG_GPU_CUDA_ERROR && !ch->task.emulate && !pg_gpu_engine_healthy())
			svc_give_up();
		pg_atomic_write_u64(&ch->busy_since, 0);
		ch->ack = ch->seq;
		pg_write_barrier();
		ch->op = SVC_NONE;
		sem_post(&ch->rsp);
	}
	svc_end_task(ch, w);
	svc_free_keysets(w);
	delete w;
}

/*
 * A channel's thread.  Its steps catch their own exceptions (svc_fail_step);
 * what escapes them (its set-up, its end) restarts the service: the channel
 * would go unserved, and its backend sees the service go down and falls back.
 */
static void
svc_serve(int i)
{
	try
	{
		svc_serve_channel(i);
	}
	catch (...)
	{
		svc_thread_failed = true;
		svc_give_up();
	}
	svc_threads_live--;
}

/* ---- the worker's main thread ------------------------------------------ */

static volatile sig_atomic_t svc_got_sigterm = false;

static void
svc_sigterm(SIGNAL_ARGS)
{
	int			save_errno = errno;

	svc_got_sigterm = true;
	SetLatch(MyLatch);
	errno = save_errno;
}

/* Wait (answering signals) for a start-up step the engine runs on its thread. */
static bool
svc_wait_step(int (*poll) (void), int running)
{
	while (poll() == running)
	{
		if (svc_got_sigterm)
			return false;
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, 5,
						 PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
	}
	return true;
}

static int
svc_poll_init(void)
{
	return pg_gpu_engine_init_async();
}

static int
svc_poll_registration(void)
{
	uint64		dev;
	pg_gpu_error err;

	return pg_gpu_engine_registration(&dev, &err);
}

/* Start CUDA and register the buffer pool; PgGpuSvc->gpu says how it went. */
static void
svc_start_gpu(void)
{
	char	   *start = BufferBlocks;
	char	   *astart = (char *) TYPEALIGN_DOWN(4096, start);
	char	   *aend = (char *) TYPEALIGN(4096, BufferBlocks + (uint64) NBuffers * BLCKSZ);
	pg_gpu_error err;
	uint64		dev = 0;
	instr_time	t0,
				t1;

	INSTR_TIME_SET_CURRENT(t0);
	pg_gpu_engine_set_memory_limit((uint64) pg_gpu_device_memory_limit * 1024);

	/*
	 * No shortcut on a machine without a GPU: the engine's own start-up says
	 * why none is usable (no driver, a driver too old, none visible, or a
	 * build without the engine), in the words pg_gpu_devices() uses too.
	 * Without a driver it fails at once.
	 */
	if (pg_gpu_engine_compiled() && !svc_wait_step(svc_poll_init, 0))
		return;
	if (pg_gpu_engine_init(&err) != PG_GPU_OK)
	{
		PgGpuSvc->gpu = -1;
		strlcpy(PgGpuSvc->gpu_message, err.message, sizeof(PgGpuSvc->gpu_message));
		ereport(LOG, (errmsg("pg_gpu service: no GPU: %s", err.message)));
		return;
	}
	(void) pg_gpu_engine_register_host_async(astart, (uint64) (aend - astart));
	if (!svc_wait_step(svc_poll_registration, 1))
		return;
	if (pg_gpu_engine_registration(&dev, &err) != 2)
	{
		PgGpuSvc->gpu = -1;
		strlcpy(PgGpuSvc->gpu_message, err.message, sizeof(PgGpuSvc->gpu_message));
		ereport(LOG, (errmsg("pg_gpu service: cannot register the shared buffer pool: %s",
							 err.message)));
		return;
	}
	INSTR_TIME_SET_CURRENT(t1);
	INSTR_TIME_SUBTRACT(t1, t0);
	PgGpuSvc->pool_dev = dev + (uint64) (start - astart);
	PgGpuSvc->start_ms = INSTR_TIME_GET_MILLISEC(t1);
	pg_write_barrier();
	PgGpuSvc->gpu = 1;
	ereport(LOG, (errmsg("pg_gpu service: GPU ready in %.0f ms, %llu MB of shared buffers registered",
						 PgGpuSvc->start_ms,
						 (unsigned long long) ((aend - astart) >> 20))));
}

/*
 * The last step of the service's exit: leave without exit()'s handlers.  The
 * CUDA runtime's teardown must not run under a thread that is still in a CUDA
 * call (a hung kernel's), and a crash there would make the postmaster reset
 * the whole cluster.  Registered first, so it runs after every other on_proc_exit.
 */
static void
svc_hard_exit(int code, Datum arg)
{
	/* backends waiting for an answer stop waiting (postmaster death too) */
	if (PgGpuSvc != NULL)
		pg_atomic_write_u32(&PgGpuSvc->state, SVC_DOWN);
	_exit(code);
}

/*
 * A step of the main thread that runs C++ code (the GPU's start, the cache's
 * upkeep): false when it threw, with what in msg.  The caller reports it once
 * out of the catch and restarts the service.  (The GPU's start waits on the
 * latch and logs: neither leaves this frame by longjmp.)
 */
static bool
svc_main_step(void (*step) (void), char *msg, size_t len)
{
	try
	{
		step();
		return true;
	}
	catch (const std::bad_alloc &)
	{
		strlcpy(msg, "out of memory", len);
	}
	catch (...)
	{
		strlcpy(msg, "an internal error", len);
	}
	return false;
}

/* A step running past its timeout: the channel whose step it is, or -1. */
static int
svc_overdue(uint64 now)
{
	for (int i = 0; i < PgGpuSvc->nchannels; i++)
	{
		SvcChannel *ch = &PgGpuSvc->ch[i];
		uint64		since = pg_atomic_read_u64(&ch->busy_since);
		uint64		limit = (uint64) (ch->timeout_ms > 0 ? ch->timeout_ms : 60000) * 1000;

		if (since != 0 && now > since && now - since > limit)
			return i;
	}
	return -1;
}

extern "C" void
pg_gpu_service_main(Datum arg)
{
	int			started = 0;
	int			overdue = -1;
	char		failed[64] = "";	/* a main thread step that threw: what */
	const char *failed_in = NULL;

	on_proc_exit(svc_hard_exit, (Datum) 0);

	pqsignal(SIGTERM, svc_sigterm);
	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	BackgroundWorkerUnblockSignals();
	if (PgGpuSvc == NULL)
		proc_exit(0);

	PgGpuSvc->gpu = 0;
	PgGpuSvc->pool_dev = 0;
	pg_atomic_write_u64(&PgGpuSvc->mem_in_use, 0);
	pg_atomic_write_u64(&PgGpuSvc->mem_cached, 0);
	PgGpuSvc->pid = MyProcPid;
	PgGpuSvc->gpu_message[0] = '\0';
	for (int i = 0; i < PgGpuSvc->nchannels; i++)
	{
		SvcChannel *ch = &PgGpuSvc->ch[i];

		while (sem_trywait(&ch->req) == 0)
			;
		while (sem_trywait(&ch->rsp) == 0)
			;
		ch->op = SVC_NONE;
		pg_atomic_write_u64(&ch->busy_since, 0);	/* a step of the process before */
		for (int s = 0; s < PG_GPU_AGG_SLOTS; s++)
			pg_atomic_write_u32(&ch->slot_state[s], SVC_SLOT_IDLE);
	}
	PgGpuCcReset();				/* the cache went with the process before */
	svc_generation = pg_atomic_add_fetch_u32(&PgGpuSvc->generation, 1);

	/* the threads, with every signal blocked (they inherit the mask) */
	{
		sigset_t	all,
					saved;

		sigfillset(&all);
		pthread_sigmask(SIG_BLOCK, &all, &saved);
		for (int i = 0; i < PgGpuSvc->nchannels; i++)
		{
			try
			{
				std::thread(svc_serve, i).detach();
				started++;
				svc_threads_live++;
			}
			catch (...)
			{
				break;
			}
		}
		pthread_sigmask(SIG_SETMASK, &saved, NULL);
	}
	if (started < PgGpuSvc->nchannels)
	{
		svc_stop = true;
		ereport(LOG, (errmsg("pg_gpu service: could not start its threads")));
		proc_exit(1);
	}
	pg_write_barrier();
	pg_atomic_write_u32(&PgGpuSvc->state, SVC_STARTING);
	if (!svc_main_step(svc_start_gpu, failed, sizeof(failed)))
		failed_in = "starting the GPU";
	else if (!svc_restart.load())	/* a task's fault during the start: stays down */
		pg_atomic_write_u32(&PgGpuSvc->state, SVC_READY);

	/* the watchdog: every 50 ms, a step past its time or a thread's restart */
	while (failed_in == NULL && !svc_got_sigterm && !svc_restart.load() &&
		   (overdue = svc_overdue(svc_now_us())) < 0)
	{
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, 50,
						 PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		if (!svc_main_step(PgGpuCcMaintain, failed, sizeof(failed)))
		{
			failed_in = "keeping the column cache";
			break;
		}
		if (ConfigReloadPending)
		{
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
		}
	}

	/*
	 * Stop: no new tasks, the backends' tasks in flight fail (they see the
	 * state) and run PostgreSQL's plan.  A clean stop lets the threads end
	 * their steps; after a fault the process goes at once (a hung kernel never
	 * ends) and the postmaster starts a new one a second later, with a new
	 * context: exit code 1 restarts a worker without resetting the cluster.
	 */
	pg_atomic_write_u32(&PgGpuSvc->state, SVC_DOWN);
	svc_stop = true;
	if (!svc_got_sigterm)
	{
		pg_atomic_fetch_add_u32(&PgGpuSvc->restarts, 1);
		if (failed_in != NULL)
			ereport(LOG, (errmsg("pg_gpu service: %s while %s: restarting", failed, failed_in)));
		else if (svc_thread_failed.load())
			ereport(LOG,
					(errmsg("pg_gpu service: a task channel's thread could not recover from an error: restarting")));
		else if (overdue >= 0)
			ereport(LOG,
					(errmsg("pg_gpu service: a GPU task's step ran past pg_gpu.service_timeout (%d ms): restarting",
							PgGpuSvc->ch[overdue].timeout_ms)));
		else
			ereport(LOG, (errmsg("pg_gpu service: a CUDA error it cannot recover from: restarting")));
		proc_exit(1);
	}
	for (int i = 0; i < PgGpuSvc->nchannels; i++)
		sem_post(&PgGpuSvc->ch[i].req);
	for (int w = 0; w < 5000 && svc_threads_live.load() > 0; w++)
		pg_usleep(1000);
	proc_exit(1);
}
