/*
 * service_thread.cpp — a task channel's thread in the GPU service: the loop
 * that waits on the channel's semaphore, the dispatch of each request to its
 * step, a task's chunks started and watched on the engine, and what a step
 * that throws leaves behind.  The key-set requests it dispatches are
 * service_keysets.cpp's; the main thread that starts these threads,
 * service.cpp's.
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
 * restarts as for a broken CUDA context (exit 1).
 *
 * Nothing here calls PostgreSQL: engine calls, semaphores and atomics only.
 */
extern "C" {
#include "postgres.h"

#include <semaphore.h>
#include <signal.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "pg_gpu.h"
}

#include <atomic>
#include <exception>
#include <new>
#include <stdexcept>
#include <vector>

#include "service/channel.h"
#include "service/service.h"
#include "service/service_int.h"

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
static void
svc_end_task(SvcChannel *ch, SvcWork *w)
{
	if (w->agg)
		pg_gpu_agg_end(w->agg);	/* waits for the GPU */
	w->agg = NULL;
	w->sorted.nrows = 0;
	w->sorted_pos = 0;
	w->sorted_done = false;
	if (w->keysort)
		pg_gpu_keysort_end(w->keysort);
	w->keysort = NULL;
	w->order = NULL;
	w->norder = 0;
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
	std::vector<int64_t>().swap(w->ordinals);
	std::vector<int64_t>().swap(w->probed);
	for (int p = 0; p < SVC_NPARTS; p++)
		std::vector<char>().swap(w->part[p]);
	for (int j = 0; j < PG_GPU_MAX_PAYLOAD; j++)
	{
		std::vector<int64_t>().swap(w->codes[j]);
		std::vector<char>().swap(w->tdata[j]);
		std::vector<uint64>().swap(w->toff[j]);
		std::vector<uint64>().swap(w->tfirst[j]);
	}
}

bool
svc_bind_gpu(SvcChannel *ch, bool emulate)
{
	if (emulate)
		return true;
	if (PgGpuSvc->gpu != 1)
	{
		ch->status = svc_error(&ch->err, PG_GPU_NO_DEVICE, PgGpuSvc->gpu_message);
		return false;
	}
	/* binds this thread to the device the main thread started */
	return (ch->status = pg_gpu_engine_init(&ch->err)) == PG_GPU_OK;
}

static void
svc_op_begin(SvcChannel *ch, SvcWork *w)
{
	pg_gpu_agg **agg = &w->agg;
	pg_gpu_agg_slot buf;

	svc_end_task(ch, w);
	pg_atomic_write_u32(&ch->chunk_failed, 0);
	if (!svc_bind_gpu(ch, ch->task.emulate != 0))
		return;
	if (ch->task.gather || ch->task.cache_fill || ch->task.pages_resident ||
		ch->task.nsets < 0 || ch->task.nsets > PG_GPU_MAX_SETS)
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
	w->fault = ch->request.begin.fault;
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
	ch->answer.begin.capacity = Min(buf.capacity, SVC_CHUNK_PAGES);
	ch->tasks++;
}

static void
svc_op_finish(SvcChannel *ch, SvcWork *w, pg_gpu_agg *agg)
{
	const pg_gpu_agg_task *t = &ch->task;

	if ((ch->status = pg_gpu_agg_finish(agg, &w->res, &ch->err)) != PG_GPU_OK)
		return;
	ch->answer.finish = w->res;
	w->cc_publish = (w->cc != NULL);
	/*
	 * Every group must fit the window, or the backend could not take it.  Only
	 * text keys make a record longer than its fixed part, which always fits.
	 */
	bool		text = false;

	for (int k = 0; k < t->nkeys; k++)
		text |= svc_text_type(t->keys[k].type);
	if (text && !t->sort)
		for (int64 g = 0; g < w->res.ngroups; g++)
		{
			uint64		keys[PG_GPU_MAX_KEYS];
			uint32		nullmask = 0;
			int64		rows;
			pg_gpu_col_state states[PG_GPU_MAX_AGG_COLS];

			pg_gpu_agg_group(agg, g, keys, &nullmask, &rows, states);
			if (svc_group_size(t, keys, nullmask) > SVC_WINDOW)
			{
				ch->status = svc_error(&ch->err, PG_GPU_INVALID_TASK,
									   "a group key too long for the GPU service's window");
				return;
			}
		}
}

static void
svc_op_groups(SvcChannel *ch, SvcWork *w)
{
	const pg_gpu_agg_task *t = &ch->task;
	size_t		used = 0;
	int32		n = 0;

	for (int64 g = ch->request.groups.first; g < w->res.ngroups; g++, n++)
	{
		uint64		keys[PG_GPU_MAX_KEYS];
		uint32		nullmask = 0;
		int64		rows = 0;
		pg_gpu_col_state states[PG_GPU_MAX_AGG_COLS];
		size_t		size;

		pg_gpu_agg_group(w->agg, g, keys, &nullmask, &rows, states);
		size = svc_group_size(t, keys, nullmask);
		if (used + size > SVC_WINDOW)
			break;
		svc_group_put(ch->window + used, t, keys, nullmask, rows, states);
		used += size;
	}
	ch->answer.window.n = n;
	ch->status = PG_GPU_OK;
}

/*
 * SVC_SORT_NEXT: as many of a sort task's rows as the window holds, in order,
 * taken from the engine's batches (one may be left part-way for the next
 * request); none when every row was sent.
 */
static void
svc_op_sort_next(SvcChannel *ch, SvcWork *w)
{
	size_t		used = 0;
	int32		n = 0;

	if (!ch->task.sort)
	{
		ch->status = svc_error(&ch->err, PG_GPU_INVALID_TASK, "not a sort task");
		return;
	}
	for (;;)
	{
		const pg_gpu_sort_batch *b = &w->sorted;
		uint64		ref;

		if (w->sorted_pos >= b->nrows)
		{
			if (w->sorted_done)
				break;
			if ((ch->status = pg_gpu_sort_next(w->agg, &w->sorted, &ch->err)) != PG_GPU_OK)
				return;
			w->sorted_pos = 0;
			w->sorted_done = w->sorted.nrows == 0;
			continue;
		}
		ref = b->ref[w->sorted_pos];
		if (used + svc_tuple_size(ref) > SVC_WINDOW)
			break;
		svc_tuple_put(ch->window + used, ref,
					  b->data + (b->off[w->sorted_pos] - b->off[0]));
		used += svc_tuple_size(ref);
		w->sorted_pos++;
		n++;
	}
	ch->answer.window.n = n;
	ch->status = PG_GPU_OK;
}

/*
 * SVC_KEYSORT_*: GpuSort over a child plan.  The backend encodes its rows'
 * keys into sort words (pg_gpu_keysort_begin_encode) and sends them a word
 * at a time; the channel's key sort orders them and sends the order back.
 */
static void
svc_op_keysort_begin(SvcChannel *ch, SvcWork *w)
{
	svc_end_task(ch, w);
	if (!svc_bind_gpu(ch, ch->task.emulate != 0))
		return;
	w->keysort = pg_gpu_keysort_begin_words(&ch->task, &ch->request.keysort, &ch->err);
	ch->status = w->keysort ? PG_GPU_OK : ch->err.status;
	if (w->keysort)
		ch->tasks++;
}

static void
svc_op_keysort_put(SvcChannel *ch, SvcWork *w)
{
	const SvcKeysortPutReq *rq = &ch->request.put;

	if (w->keysort == NULL || rq->n < 0 || (uint64) rq->n * sizeof(uint64) > SVC_WINDOW)
	{
		ch->status = svc_error(&ch->err, PG_GPU_INVALID_TASK, "no key sort on the channel");
		return;
	}
	ch->status = pg_gpu_keysort_put(w->keysort, rq->word, (uint64) rq->first, (uint64) rq->n,
									(const uint64_t *) ch->window, &ch->err);
}

static void
svc_op_keysort_sort(SvcChannel *ch, SvcWork *w)
{
	SvcKeysortAns *a = &ch->answer.keysort;
	uint64_t	n = 0;
	uint64_t	h2d = 0;

	if (w->keysort == NULL)
	{
		ch->status = svc_error(&ch->err, PG_GPU_INVALID_TASK, "no key sort on the channel");
		return;
	}
	ch->status = pg_gpu_keysort_sort(w->keysort, &w->order, &n, &a->gpu_ms, &h2d, &ch->err);
	w->norder = ch->status == PG_GPU_OK ? n : 0;
	a->n = w->norder;
	a->bytes_h2d = h2d;
}

static void
svc_op_keysort_order(SvcChannel *ch, SvcWork *w)
{
	uint64		first = (uint64) ch->request.order.first;
	uint64		n;

	if (w->order == NULL || first > w->norder)
	{
		ch->status = svc_error(&ch->err, PG_GPU_INVALID_TASK, "no sorted order on the channel");
		return;
	}
	n = Min(w->norder - first, (uint64) (SVC_WINDOW / sizeof(uint32)));
	memcpy(ch->window, w->order + first, n * sizeof(uint32));
	ch->answer.window.n = (int32) n;
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

static void
svc_op_finish_step(SvcChannel *ch, SvcWork *w)
{
	svc_op_finish(ch, w, w->agg);
}

static void
svc_op_free_keysets(SvcChannel *ch, SvcWork *w)
{
	svc_free_keysets(w);
	ch->status = PG_GPU_OK;
}

static void
svc_op_keyset_collected(SvcChannel *ch, SvcWork *w)
{
	svc_op_keyset(ch, w, SVC_KS_COLLECTED);
}

static void
svc_op_keyset_build(SvcChannel *ch, SvcWork *w)
{
	svc_op_keyset(ch, w, SVC_KS_BUILD);
}

/*
 * The steps, by request: whether it needs the channel's task begun, and what
 * runs it.  SVC_END_TASK and SVC_END are svc_step's own (they run under any
 * generation's task).
 */
typedef struct SvcStep
{
	SvcOp		op;
	bool		needs_task;
	void		(*run) (SvcChannel *ch, SvcWork *w);
} SvcStep;

static constexpr SvcStep svc_steps[SVC_NOPS] = {
	{SVC_NONE, false, NULL},
	{SVC_BEGIN, false, svc_op_begin},
	{SVC_FINISH, true, svc_op_finish_step},
	{SVC_GROUPS, true, svc_op_groups},
	{SVC_SORT_NEXT, true, svc_op_sort_next},
	{SVC_END_TASK, false, NULL},
	{SVC_END, false, NULL},
	{SVC_KS_COLLECTED, false, svc_op_keyset_collected},
	{SVC_KS_APPEND, false, svc_op_append},
	{SVC_KS_BUILD, false, svc_op_keyset_build},
	{SVC_KS_FREE, false, svc_op_free_keysets},
	{SVC_KS_CODES, false, svc_op_codes},
	{SVC_KS_PAYLOAD, false, svc_op_payload},
	{SVC_KS_ROWS, true, svc_op_ks_rows},
	{SVC_KS_TEXTS, false, svc_op_ks_texts},
	{SVC_KS_ORDINALS, false, svc_op_ks_ordinals},
	{SVC_KEYSORT_BEGIN, false, svc_op_keysort_begin},
	{SVC_KEYSORT_PUT, false, svc_op_keysort_put},
	{SVC_KEYSORT_SORT, false, svc_op_keysort_sort},
	{SVC_KEYSORT_ORDER, false, svc_op_keysort_order},
	{SVC_KS_PROBE, false, svc_op_ks_probe},
	{SVC_KS_PROBE_OUT, false, svc_op_ks_probe_out},
	{SVC_REDUCE, false, svc_op_reduce},
};

static constexpr bool
svc_steps_in_order(void)
{
	for (int i = 0; i < SVC_NOPS; i++)
		if (svc_steps[i].op != i)
			return false;
	return true;
}

static_assert(svc_steps_in_order(), "svc_steps lists every request in SvcOp's order");


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

		/*
		 * Chunks handed over start in the order they were handed over, not by
		 * slot: the engine numbers pages in the order chunks start, and a sort
		 * task's rows name their page by that number (the backend maps it back
		 * to the block for ctid).  Two or three may be waiting at once.
		 */
		for (;;)
		{
			int			next = -1;

			for (int s = 0; agg && s < PG_GPU_AGG_SLOTS; s++)
				if (pg_atomic_read_u32(&ch->slot_state[s]) == SVC_SLOT_HANDED &&
					(next < 0 || ch->slot_seq[s] < ch->slot_seq[next]))
					next = s;
			if (next < 0)
				break;
			pg_read_barrier();
			w->since[next] = svc_now_us();
			svc_start_chunk(ch, agg, w->cc, next, &w->fault);
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
		if (op <= SVC_NONE || op >= SVC_NOPS || svc_steps[op].run == NULL)
			ch->status = svc_error(&ch->err, PG_GPU_INVALID_TASK, "an unknown GPU service request");
		else if (svc_steps[op].needs_task && agg == NULL)
			ch->status = svc_error(&ch->err, PG_GPU_INVALID_TASK,
								   "no task in the GPU service (it restarted)");
		else
			svc_steps[op].run(ch, w);
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
	w->keysort = NULL;
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
void
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
