/*
 * client.cpp — the backend's side of the GPU service (service.h): a task
 * channel driven through the engine's handle (pg_gpu_agg_client), so the scan
 * code does not know whether its engine runs here or in the service.
 *
 * Waits sleep on the channel's answer semaphore in steps of 10 ms, between which
 * the backend checks that the service still runs (its generation unchanged) and,
 * where the caller can take an error, answers interrupts.  A request whose answer
 * an error interrupted stays pending; ending the handle takes that answer first,
 * then asks the service to drop the task (which waits for the GPU to finish with
 * the pages), and only then frees the channel.  Handles still open when the
 * backend exits are ended the same way (before_shmem_exit).
 *
 * Written C-style (no objects with destructors): an ereport may pass through.
 */
extern "C" {
#include "postgres.h"

#include <errno.h>
#include <semaphore.h>
#include <signal.h>
#include <time.h>

#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/ipc.h"
#include "storage/pmsignal.h"
#include "utils/builtins.h"

#include "pg_gpu.h"
}

#include "guard.h"
#include "service/channel.h"
#include "service/service.h"

#include "service/client_int.h"

static SvcClient *svc_open = NULL;
static bool svc_exit_hook = false;

static bool
svc_gone(const SvcClient *c)
{
	return pg_atomic_read_u32(&c->svc->generation) != c->gen ||
		pg_atomic_read_u32(&c->svc->state) == SVC_DOWN;
}

/* Wait for the answer; false when the service stopped first. */
bool
svc_wait_answer(SvcClient *c, bool interruptible)
{
	for (;;)
	{
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 10 * 1000 * 1000;
		if (ts.tv_nsec >= 1000000000L)
		{
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		if (sem_timedwait(&c->ch->rsp, &ts) == 0)
		{
			pg_read_barrier();
			if (c->ch->ack != c->seq)
				continue;		/* a stopped service's answer to another request */
			c->pending = false;
			return true;
		}
		if (errno != EINTR && errno != ETIMEDOUT)
			elog(PANIC, "pg_gpu: sem_timedwait failed: %m");
		/* gone: restarted, stopping, or its process (or the postmaster) died */
		if (svc_gone(c) || !PostmasterIsAlive() ||
			(c->svc->pid > 0 && kill(c->svc->pid, 0) != 0 && errno == ESRCH))
		{
			c->pending = false;
			c->dead = true;
			return false;
		}
		if (interruptible)
			CHECK_FOR_INTERRUPTS();
	}
}

/* One request and its answer (ch->status, ch->err). */
pg_gpu_status
svc_request(SvcClient *c, SvcOp op, bool interruptible, pg_gpu_error *err)
{
	SvcChannel *ch = c->ch;

	if (c->dead || svc_gone(c))
	{
		c->dead = true;
		return svc_error(err, PG_GPU_CUDA_ERROR, "the GPU service stopped");
	}
	ch->req_gen = c->gen;
	ch->seq = ++c->seq;
	pg_write_barrier();
	ch->op = op;
	c->pending = true;
	sem_post(&ch->req);
	if (!svc_wait_answer(c, interruptible))
		return svc_error(err, PG_GPU_CUDA_ERROR, "the GPU service stopped");
	pg_read_barrier();
	if (ch->status != PG_GPU_OK)
		*err = ch->err;
	return ch->status;
}

/* ---- the handle's calls ------------------------------------------------- */

static int
svc_slot_idle(void *h, int slot)
{
	SvcClient *c = (SvcClient *) h;

	if (c->dead || svc_gone(c))
		return 1;				/* a stopped service reads no page */
	return pg_atomic_read_u32(&c->ch->slot_state[slot]) == SVC_SLOT_IDLE;
}

static pg_gpu_status
svc_slot_get(void *h, int slot, pg_gpu_agg_slot *out, pg_gpu_error *err)
{
	SvcClient *c = (SvcClient *) h;

	out->slot = slot;
	out->capacity = c->ch->answer.begin.capacity;
	out->refs = c->ch->refs[slot];
	out->vis = c->ch->vis[slot];
	out->staging = NULL;
	return PG_GPU_OK;
}

static pg_gpu_status
svc_submit(void *h, int slot, int npages, int nvis, pg_gpu_error *err)
{
	SvcClient *c = (SvcClient *) h;
	SvcChannel *ch = c->ch;

	if (c->dead || svc_gone(c))
	{
		c->dead = true;
		return svc_error(err, PG_GPU_CUDA_ERROR, "the GPU service stopped");
	}
	if (pg_atomic_read_u32(&ch->chunk_failed))
	{
		pg_read_barrier();
		*err = ch->chunk_err;
		return err->status;
	}
	if (npages > ch->answer.begin.capacity)
		return svc_error(err, PG_GPU_INVALID_TASK, "a chunk larger than its slot");
	ch->npages[slot] = npages;
	ch->nvis[slot] = nvis;
	ch->slot_seq[slot] = ++c->handed;
	pg_write_barrier();
	pg_atomic_write_u32(&ch->slot_state[slot], SVC_SLOT_HANDED);
	sem_post(&ch->req);
	return PG_GPU_OK;
}

static pg_gpu_status
svc_finish(void *h, pg_gpu_agg_result *res, pg_gpu_error *err)
{
	SvcClient *c = (SvcClient *) h;
	pg_gpu_status st;

	for (int s = 0; s < PG_GPU_AGG_SLOTS; s++)
		while (!svc_slot_idle(c, s))
		{
			CHECK_FOR_INTERRUPTS();
			pg_usleep(20);
		}
	pg_read_barrier();			/* the slots were seen idle: now their outcome */
	if (pg_atomic_read_u32(&c->ch->chunk_failed))
	{
		pg_read_barrier();
		*err = c->ch->chunk_err;
		return err->status;
	}
	if ((st = svc_request(c, SVC_FINISH, true, err)) != PG_GPU_OK)
		return st;
	*res = c->ch->answer.finish;
	return PG_GPU_OK;
}

/* Keep a text key's bytes for the handle's life. */
static char *
svc_keep_text(SvcClient *c, const char *v, size_t len)
{
	SvcText    *t = c->texts;
	char	   *p;

	if (t == NULL || t->size - t->used < len)
	{
		size_t		size = Max(len, (size_t) 64 * 1024);

		t = (SvcText *) malloc(offsetof(SvcText, data) + size);
		if (t == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_OUT_OF_MEMORY),
					 errmsg("out of memory for the GPU service's group keys")));
		t->next = c->texts;
		t->used = 0;
		t->size = size;
		c->texts = t;
	}
	p = t->data + t->used;
	memcpy(p, v, len);
	t->used += TYPEALIGN(8, len);
	if (t->used > t->size)
		t->used = t->size;
	return p;
}

/* The handle's copy of the window, allocated once. */
static void
svc_window_alloc(SvcClient *c)
{
	if (c->win == NULL)
	{
		c->win = (char *) malloc(SVC_WINDOW);
		c->win_off = (size_t *) malloc(sizeof(size_t) * (SVC_WINDOW / 8));
		c->win_ref = (uint64 *) malloc(sizeof(uint64) * (SVC_WINDOW / 8));
		if (c->win == NULL || c->win_off == NULL || c->win_ref == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_OUT_OF_MEMORY),
					 errmsg("out of memory for the GPU service's answers")));
	}
}

/* Fetch the groups from g on into the handle's window. */
static void
svc_fetch_groups(SvcClient *c, int64 g)
{
	const pg_gpu_agg_task *t = &c->task;
	SvcChannel *ch = c->ch;
	pg_gpu_error err;
	size_t		used = 0;

	ch->request.groups.first = g;
	if (svc_request(c, SVC_GROUPS, true, &err) != PG_GPU_OK)
		ereport(ERROR,
				(errcode(ERRCODE_SYSTEM_ERROR),
				 errmsg("could not read the groups from the GPU service: %s", err.message)));
	if (ch->answer.window.n <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_SYSTEM_ERROR),
				 errmsg("the GPU service returned no group at %lld", (long long) g)));
	svc_window_alloc(c);
	c->win_n = 0;
	for (int32 i = 0; i < ch->answer.window.n; i++)
	{
		uint64		keys[PG_GPU_MAX_KEYS];
		uint32		nullmask;
		int64		rows;
		size_t		size = svc_group_get(ch->window + used, t, keys, &nullmask, &rows, NULL);

		/* text keys are kept for the handle's life (the groups' slots read them) */
		memcpy(c->win + used, ch->window + used, size);
		for (int k = 0; k < t->nkeys; k++)
			if (svc_text_type(t->keys[k].type) && !(nullmask & (1u << k)))
			{
				const char *v = (const char *) (uintptr_t) keys[k];

				if (c->win_text[k] == NULL &&
					(c->win_text[k] = (char **) malloc(sizeof(char *) * (SVC_WINDOW / 8))) == NULL)
					ereport(ERROR,
							(errcode(ERRCODE_OUT_OF_MEMORY),
							 errmsg("out of memory for the GPU service's group keys")));
				c->win_text[k][i] = svc_keep_text(c, v, VARSIZE(v));
			}
		c->win_off[i] = used;
		used += size;
	}
	c->win_g0 = g;
	c->win_n = ch->answer.window.n;
}

static void
svc_group(void *h, int64_t g, uint64_t *keys, uint32_t *nullmask, int64_t *rows,
		  pg_gpu_col_state *states)
{
	SvcClient *c = (SvcClient *) h;
	const pg_gpu_agg_task *t = &c->task;
	int64		i;

	if (g < c->win_g0 || g >= c->win_g0 + c->win_n)
		svc_fetch_groups(c, g);
	i = g - c->win_g0;
	(void) svc_group_get(c->win + c->win_off[i], t, keys, nullmask, rows, states);
	for (int k = 0; k < t->nkeys; k++)
		if (svc_text_type(t->keys[k].type) && !(*nullmask & (1u << k)))
			keys[k] = (uint64) (uintptr_t) c->win_text[k][i];
}

/*
 * A sort task's next rows (pg_gpu_sort_next): a window of them, copied into
 * the handle, valid until the next call.
 */
static pg_gpu_status
svc_sort_next(void *h, pg_gpu_sort_batch *out, pg_gpu_error *err)
{
	SvcClient *c = (SvcClient *) h;
	SvcChannel *ch = c->ch;
	size_t		used = 0;
	pg_gpu_status st;

	out->nrows = 0;
	if ((st = svc_request(c, SVC_SORT_NEXT, true, err)) != PG_GPU_OK)
		return st;
	svc_window_alloc(c);
	for (int32 i = 0; i < ch->answer.window.n; i++)
	{
		size_t		at;
		size_t		size = svc_tuple_get(ch->window + used, &c->win_ref[i], &at);

		c->win_off[i] = used + at;
		used += size;
	}
	memcpy(c->win, ch->window, used);
	out->nrows = ch->answer.window.n;
	/* row i's tuple is at data + (off[i] - off[0]) */
	out->data = c->win + (out->nrows > 0 ? c->win_off[0] : 0);
	out->off = (const uint64_t *) c->win_off;
	out->ref = c->win_ref;
	return PG_GPU_OK;
}

/* Take a pending answer, drop the task in the service, free the channel. */
static void
svc_close(SvcClient *c)
{
	pg_gpu_error err;

	HOLD_INTERRUPTS();
	pg_atomic_write_u32(&c->ch->abandon, 1);	/* an emulated step in flight stops */
	if (c->pending)
		(void) svc_wait_answer(c, false);
	if (!c->dead && !svc_gone(c))
		(void) svc_request(c, SVC_END, false, &err);
	pg_atomic_write_u32(&c->ch->abandon, 0);
	pg_atomic_write_u32(&c->ch->owner, 0);
	c->ch = NULL;
	RESUME_INTERRUPTS();
}

/* The task's groups and text keys are gone with it. */
static void
svc_task_forget(SvcClient *c)
{
	while (c->texts)
	{
		SvcText    *n = c->texts->next;

		free(c->texts);
		c->texts = n;
	}
	c->win_g0 = 0;
	c->win_n = 0;
}

void
svc_free_client(SvcClient *c)
{
	for (SvcClient **pp = &svc_open; *pp; pp = &(*pp)->next)
		if (*pp == c)
		{
			*pp = c->next;
			break;
		}
	if (c->ch)
		svc_close(c);
	svc_task_forget(c);
	free(c->win);
	free(c->win_off);
	free(c->win_ref);
	for (int k = 0; k < PG_GPU_MAX_KEYS; k++)
		free(c->win_text[k]);
	free(c);
}

/* The task's end: on a held channel only the task goes, else the channel too. */
static void
svc_end(void *h)
{
	SvcClient *c = (SvcClient *) h;

	if (!c->held)
	{
		svc_free_client(c);
		return;
	}
	HOLD_INTERRUPTS();
	if (c->ch)
		pg_atomic_write_u32(&c->ch->abandon, 1);	/* an emulated step in flight stops */
	if (c->ch && c->pending)
		(void) svc_wait_answer(c, false);
	if (c->ch && !c->dead && !svc_gone(c))
	{
		pg_gpu_error err;

		(void) svc_request(c, SVC_END_TASK, false, &err);
	}
	if (c->ch)
		pg_atomic_write_u32(&c->ch->abandon, 0);	/* its key sets serve on */
	svc_task_forget(c);
	RESUME_INTERRUPTS();
}

static const pg_gpu_agg_client_ops svc_ops = {
	svc_slot_idle, svc_slot_get, svc_submit, svc_finish, svc_group, svc_end, svc_sort_next
};

/* At exit, tasks still open are dropped before the pages are unpinned. */
static void
svc_at_exit(int code, Datum arg)
{
	for (SvcClient *c = svc_open; c; c = c->next)
		if (c->ch)
			svc_close(c);
}

/* ---- the entry points --------------------------------------------------- */

/* Whether worker svc takes tasks now: emulated ones, or (need_gpu) its GPU's. */
static inline bool
svc_up(SvcShared *svc, bool need_gpu)
{
	return pg_atomic_read_u32(&svc->state) != SVC_DOWN && (!need_gpu || svc->gpu == 1);
}

/* Whether some GPU's worker takes tasks now. */
static bool
svc_any_up(bool need_gpu)
{
	if (PgGpuSvc == NULL || !IsUnderPostmaster)
		return false;
	for (int d = 0; d < PgGpuSvcNdev; d++)
		if (svc_up(PgGpuSvcDev[d], need_gpu))
			return true;
	return false;
}

bool
PgGpuServiceGpuReady(void)
{
	return svc_any_up(true);
}

bool
PgGpuServiceTakes(const pg_gpu_agg_task *task, bool sets_here)
{
	/* key sets: only those built on the task's channel (sets_here) */
	if ((task->nsets > 0 || task->collect) && !sets_here)
		return false;
	return svc_any_up(!task->emulate);
}

/* Whether the service runs work now: emulated work, or work for a GPU. */
bool
PgGpuServiceUp(bool emulate)
{
	return svc_any_up(!emulate);
}

bool
PgGpuServiceOthersBusy(void)
{
	if (PgGpuSvc == NULL)
		return false;
	for (int d = 0; d < PgGpuSvcNdev; d++)
		for (int i = 0; i < PgGpuSvcDev[d]->nchannels; i++)
		{
			uint32		owner = pg_atomic_read_u32(&PgGpuSvcDev[d]->ch[i].owner);

			if (owner != 0 && owner != (uint32) MyProcPid)
				return true;
		}
	return false;
}

/* The GPU this backend's next tasks go to (pg_gpu_cache_table's fills): -1 any. */
static int	svc_only_device = -1;

void
PgGpuServiceOnlyDevice(int dev)
{
	svc_only_device = dev;
}

int
PgGpuServiceDevices(void)
{
	return PgGpuSvc == NULL ? 0 : PgGpuSvcNdev;
}

bool
PgGpuServiceDeviceInfo(int d, pg_gpu_device_info *info, uint64 *free_bytes, const char **why)
{
	SvcShared  *svc;

	if (PgGpuSvc == NULL || d < 0 || d >= PgGpuSvcNdev)
		return false;
	svc = PgGpuSvcDev[d];
	if (pg_atomic_read_u32(&svc->state) == SVC_DOWN || svc->gpu != 1)
	{
		if (svc->gpu == -1)
			*why = svc->gpu_message;
		return false;
	}
	pg_read_barrier();
	*info = svc->dev_info;
	*free_bytes = pg_atomic_read_u64(&svc->free_memory);
	return true;
}

/* Whether GPU d's column cache has a live entry for req's table. */
static bool
svc_holds(int d, const CcRequest *req)
{
	return req != NULL && req->want &&
		cc_find_entry(PgGpuCcDev[d], req->key.db, req->key.relid, req->key.emulate != 0) >= 0;
}

/*
 * The GPUs in the order to try them: least busy first (a task per channel in
 * use; one whose column cache holds the table counts as two tasks less busy,
 * since reading from the cache beats reading pages over PCIe), ties in turn
 * from a shared counter, so that one session's tasks spread too.
 */
static int
svc_order(const CcRequest *req, bool need_gpu, int *order)
{
	int			score[PG_GPU_MAX_DEVICES];
	int			n = 0;
	uint32		turn = pg_atomic_fetch_add_u32(&PgGpuSvcDev[0]->turn, 1);

	for (int k = 0; k < PgGpuSvcNdev; k++)
	{
		int			d = (int) ((turn + (uint32) k) % (uint32) PgGpuSvcNdev);
		SvcShared  *svc = PgGpuSvcDev[d];
		int			busy = 0;
		int			j;

		if (!svc_up(svc, need_gpu) || (svc_only_device >= 0 && d != svc_only_device))
			continue;
		for (int i = 0; i < svc->nchannels; i++)
			busy += pg_atomic_read_u32(&svc->ch[i].owner) != 0;
		busy = busy * 2 - (svc_holds(d, req) ? 4 : 0);
		/* insertion by score; equal scores keep the turn's order */
		for (j = n; j > 0 && score[j - 1] > busy; j--)
		{
			score[j] = score[j - 1];
			order[j] = order[j - 1];
		}
		score[j] = busy;
		order[j] = d;
		n++;
	}
	return n;
}

/* A free channel, or NULL after waiting as long as is safe. */
static SvcChannel *
svc_claim(const CcRequest *req, SvcShared **svc_out)
{
	/*
	 * A backend that holds a channel already (an open GpuAgg's groups) takes
	 * no turn: two such backends could wait for each other.
	 */
	int			waits = svc_open ? 0 : 10000;
	int			order[PG_GPU_MAX_DEVICES];

	for (int w = 0;; w++)
	{
		int			n = svc_order(req, !pg_gpu_emulate_gpu, order);

		for (int k = 0; k < n; k++)
		{
			SvcShared  *svc = PgGpuSvcDev[order[k]];

			for (int i = 0; i < svc->nchannels; i++)
			{
				SvcChannel *ch = &svc->ch[i];
				uint32		expected = 0;

				if (pg_atomic_read_u32(&ch->owner) == 0 &&
					pg_atomic_compare_exchange_u32(&ch->owner, &expected, (uint32) MyProcPid))
				{
					pg_atomic_write_u32(&ch->abandon, 0);	/* a dead owner's end */
					*svc_out = svc;
					return ch;
				}
			}
		}
		if (w >= waits)
			return NULL;
		CHECK_FOR_INTERRUPTS();
		pg_usleep(1000);
	}
}

/*
 * A channel claimed for this backend on the least busy GPU (one that holds
 * req's table in its column cache counts as less busy), or NULL with err set.
 */
static SvcClient *
svc_open_client(bool held, const CcRequest *req, pg_gpu_error *err)
{
	SvcClient  *c;
	SvcChannel *ch;
	SvcShared  *svc = NULL;

	if ((ch = svc_claim(req, &svc)) == NULL)
	{
		svc_error(err, PG_GPU_BUSY,
				 "every task channel of the GPU service is in use (pg_gpu.service_tasks)");
		return NULL;
	}
	if ((c = (SvcClient *) calloc(1, sizeof(SvcClient))) == NULL)
	{
		pg_atomic_write_u32(&ch->owner, 0);
		svc_error(err, PG_GPU_OUT_OF_MEMORY, "out of host memory");
		return NULL;
	}
	if (!svc_exit_hook)
	{
		before_shmem_exit(svc_at_exit, (Datum) 0);
		svc_exit_hook = true;
	}
	c->svc = svc;
	c->ch = ch;
	c->held = held;
	c->gen = pg_atomic_read_u32(&svc->generation);
	c->seq = ch->seq;			/* numbers go on from the channel's last owner's */
	c->next = svc_open;
	svc_open = c;
	ch->generation = c->gen;
	return c;
}

PgGpuSvcChannel *
PgGpuServiceOpen(pg_gpu_error *err)
{
	if (!svc_any_up(false))
	{
		svc_error(err, PG_GPU_NO_DEVICE, "the GPU service is not running");
		return NULL;
	}
	return (PgGpuSvcChannel *) svc_open_client(true, NULL, err);
}

void
PgGpuServiceClose(PgGpuSvcChannel *chan)
{
	if (chan)
		svc_free_client((SvcClient *) chan);
}

pg_gpu_agg *
PgGpuServiceBegin(PgGpuSvcChannel *on, const pg_gpu_agg_task *task, pg_gpu_error *err)
{
	return PgGpuServiceBeginCc(on, task, NULL, NULL, err);
}

pg_gpu_agg *
PgGpuServiceBeginCc(PgGpuSvcChannel *on, const pg_gpu_agg_task *task, const CcRequest *req,
					PgGpuSvcCc *cc, pg_gpu_error *err)
{
	SvcClient  *c = (SvcClient *) on;
	pg_gpu_agg *agg;

	if (cc)
	{
		cc->entry = -1;
		cc->dev = 0;
		cc->pool_dev = 0;
	}

	if (!PgGpuServiceTakes(task, on != NULL))
	{
		svc_error(err, PG_GPU_INVALID_TASK, "the GPU service does not take this task");
		return NULL;
	}
	if (c == NULL && (c = svc_open_client(false, req, err)) == NULL)
		return NULL;
	if (c->ch == NULL || c->dead)
	{
		svc_error(err, PG_GPU_CUDA_ERROR, "the GPU service stopped");
		return NULL;
	}
	c->task = *task;
	c->ch->task = *task;
	c->ch->request.begin.fault = pg_gpu_debug_service_fault;
	c->ch->request.begin.timeout_ms = pg_gpu_service_timeout;
	if (req && cc)
		c->ch->cc_req = *req;
	else
		c->ch->cc_req.want = 0;
	c->ch->cc_entry = -1;
	for (int s = 0; s < PG_GPU_AGG_SLOTS; s++)
		c->ch->nruns[s] = 0;
	/* quick (buffers allocated): not interruptible, so the channel cannot leak */
	if (svc_request(c, SVC_BEGIN, false, err) != PG_GPU_OK)
	{
		if (!c->held)
			svc_free_client(c);
		return NULL;
	}
	if ((agg = pg_gpu_agg_client(&svc_ops, c)) == NULL)
	{
		svc_end(c);
		svc_error(err, PG_GPU_OUT_OF_MEMORY, "out of host memory");
		return NULL;
	}
	if (cc)
	{
		/* where the pages are in this GPU's registration of the buffer pool */
		cc->dev = c->svc->device;
		cc->pool_dev = c->svc->pool_dev;
	}
	if (cc && c->ch->cc_entry >= 0)
	{
		cc->entry = c->ch->cc_entry;
		cc->gen = c->ch->cc_gen;
		cc->nruns = c->ch->nruns;
		for (int s = 0; s < PG_GPU_AGG_SLOTS; s++)
		{
			cc->runs[s] = c->ch->runs[s];
			cc->blk[s] = c->ch->blk[s];
			cc->fill_lsn[s] = c->ch->fill_lsn[s];
		}
	}
	return agg;
}

/*
 * SQL: the service's state, a row per GPU (none when it is not configured).
 * Before ALTER EXTENSION pg_gpu UPDATE to 0.5 the function has 10 columns
 * (no device, no visible_device).
 */
static Datum
pg_gpu_service_status_impl(FunctionCallInfo fcinfo)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	static const char *const states[] = {"down", "starting", "ready"};

	InitMaterializedSRF(fcinfo, 0);
	if (rsinfo->setDesc->natts != 10 && rsinfo->setDesc->natts != 12)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("pg_gpu_service() does not match the installed pg_gpu library"),
				 errhint("Run ALTER EXTENSION pg_gpu UPDATE.")));
	if (PgGpuSvc == NULL)
		return (Datum) 0;
	for (int d = 0; d < PgGpuSvcNdev; d++)
	{
		SvcShared  *svc = PgGpuSvcDev[d];
		bool		v05 = rsinfo->setDesc->natts == 12;
		int			k = v05 ? 1 : 0;
		Datum		values[12];
		bool		nulls[12];
		uint32		state = pg_atomic_read_u32(&svc->state);
		int			in_use = 0;
		int64		tasks = 0;

		memset(nulls, 0, sizeof(nulls));
		for (int i = 0; i < svc->nchannels; i++)
		{
			in_use += pg_atomic_read_u32(&svc->ch[i].owner) != 0;
			tasks += svc->ch[i].tasks;
		}
		values[0] = Int32GetDatum(d);
		values[k + 0] = Int32GetDatum(svc->pid);
		nulls[k + 0] = state == SVC_DOWN;
		values[k + 1] = CStringGetTextDatum(states[Min(state, 2)]);
		if (svc->gpu == 1)
			values[k + 2] = CStringGetTextDatum("ready");
		else if (svc->gpu == 0)
			values[k + 2] = CStringGetTextDatum("starting");
		else
			values[k + 2] = CStringGetTextDatum(psprintf("none: %s", svc->gpu_message));
		values[k + 3] = Float8GetDatum(svc->start_ms);
		nulls[k + 3] = svc->gpu != 1;
		values[k + 4] = Int32GetDatum(svc->nchannels);
		values[k + 5] = Int32GetDatum(in_use);
		values[k + 6] = Int64GetDatum(tasks);
		values[k + 7] = Int64GetDatum((int64) pg_atomic_read_u64(&svc->mem_in_use));
		values[k + 8] = Int64GetDatum((int64) pg_atomic_read_u64(&svc->mem_cached));
		values[k + 9] = Int32GetDatum((int32) pg_atomic_read_u32(&svc->restarts));
		if (v05)
		{
			values[11] = CStringGetTextDatum(svc->device_name);
			nulls[11] = svc->device_name[0] == '\0';
		}
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

PG_GPU_SQL_FN(pg_gpu_service_status)
