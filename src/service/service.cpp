/*
 * service.cpp — the GPU service's side (service.h): its shared memory, the
 * background worker's registration, and the worker's main thread.  A task
 * channel's thread is service_thread.cpp; the key-set requests it serves are
 * service_keysets.cpp; service_int.h is what the three share.
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
 * After the start the main thread is the watchdog: a step past its channel's
 * timeout, a broken CUDA context or a thread that could not recover makes the
 * process exit 1 and the postmaster start a new one.  Its own C++ steps (the
 * GPU's start, the cache's upkeep) catch at their top as the channel threads'
 * do (service_thread.cpp): an exception must never reach std::terminate, whose
 * abort would make the postmaster reset the whole cluster.
 */
extern "C" {
#include "postgres.h"

#include <ctype.h>
#include <semaphore.h>
#include <stdlib.h>
#include <signal.h>
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
#include <thread>
#include <vector>

#include "service/channel.h"
#include "service/service.h"
#include "service/service_int.h"

SvcShared  *PgGpuSvc = NULL;
SvcShared  *PgGpuSvcDev[PG_GPU_MAX_DEVICES];
int			PgGpuSvcNdev = 0;

/* each worker's CUDA_VISIBLE_DEVICES ("": leave the server's as it is) */
static char svc_dev_env[PG_GPU_MAX_DEVICES][64];

std::atomic<bool> svc_stop{false};
std::atomic<int> svc_threads_live{0};
/* a thread met an error the service restarts for (a broken CUDA context) */
static std::atomic<bool> svc_restart{false};
/* ... or one it could not clean up after (svc_fail_step) */
std::atomic<bool> svc_thread_failed{false};
/* this process's generation: requests for another are refused */
uint32		svc_generation = 0;

/*
 * A fault the service restarts for: no new task may begin from now on (the
 * backends see the state at once, not at the watchdog's next look, 50 ms
 * later), and the watchdog makes the process exit.
 */
void
svc_give_up(void)
{
	svc_restart = true;
	pg_atomic_write_u32(&PgGpuSvc->state, SVC_DOWN);
}

uint64
svc_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64) ts.tv_sec * 1000000 + (uint64) ts.tv_nsec / 1000;
}

static Size
svc_shmem_size(void)
{
	return MAXALIGN(add_size(offsetof(SvcShared, ch),
							 mul_size(sizeof(SvcChannel), (Size) Max(pg_gpu_service_tasks, 1))));
}

/* Adds the comma-separated entries of list to the devices (spaces trimmed). */
static void
svc_add_devices(const char *list)
{
	const char *p = list;

	while (*p && PgGpuSvcNdev < PG_GPU_MAX_DEVICES)
	{
		const char *q = p;
		int			n;

		while (*q && *q != ',')
			q++;
		while (p < q && isspace((unsigned char) *p))
			p++;
		n = (int) (q - p);
		while (n > 0 && isspace((unsigned char) p[n - 1]))
			n--;
		if (n > 0)
			snprintf(svc_dev_env[PgGpuSvcNdev++], sizeof(svc_dev_env[0]), "%.*s", n, p);
		p = *q ? q + 1 : q;
	}
}

/*
 * The GPUs the service runs on, once, in the postmaster (its children inherit
 * them): pg_gpu.service_devices' entries, else CUDA_VISIBLE_DEVICES's, else
 * one per /dev/nvidiaN of the host.  At least one worker, whose
 * CUDA_VISIBLE_DEVICES stays the server's when it is the only one found that
 * way (a host without a GPU, a container without the device files).
 */
static void
svc_find_devices(void)
{
	const char *cvd = getenv("CUDA_VISIBLE_DEVICES");

	if (PgGpuSvcNdev > 0)
		return;
	if (pg_gpu_service_devices && pg_gpu_service_devices[0])
		svc_add_devices(pg_gpu_service_devices);
	else if (cvd != NULL && cvd[0])
		svc_add_devices(cvd);
	else
	{
		int			n = 0;

		/*
		 * How many, not which: CUDA numbers the GPUs a process can open from 0
		 * (a container given /dev/nvidia3 alone sees it as device 0).
		 */
		for (int i = 0; i < 64; i++)
		{
			char		path[32];

			snprintf(path, sizeof(path), "/dev/nvidia%d", i);
			if (access(path, F_OK) == 0)
				n++;
		}
		for (int i = 0; i < Min(n, PG_GPU_MAX_DEVICES); i++)
			snprintf(svc_dev_env[PgGpuSvcNdev++], sizeof(svc_dev_env[0]), "%d", i);
	}
	if (PgGpuSvcNdev <= 1)
	{
		PgGpuSvcNdev = 1;
		if (!(pg_gpu_service_devices && pg_gpu_service_devices[0]))
			svc_dev_env[0][0] = '\0';
	}
}

void
PgGpuServiceRequestShmem(void)
{
	if (pg_gpu_service)
	{
		svc_find_devices();
		RequestAddinShmemSpace(mul_size(svc_shmem_size(), PgGpuSvcNdev));
		RequestAddinShmemSpace(mul_size(MAXALIGN(PgGpuCcShmemSize()), PgGpuSvcNdev));
	}
}

static void
svc_shmem_init(SvcShared *svc, int dev)
{
	memset(svc, 0, offsetof(SvcShared, ch));
	pg_atomic_init_u32(&svc->state, SVC_DOWN);
	pg_atomic_init_u32(&svc->generation, 0);
	pg_atomic_init_u64(&svc->mem_in_use, 0);
	pg_atomic_init_u64(&svc->mem_cached, 0);
	pg_atomic_init_u32(&svc->restarts, 0);
	pg_atomic_init_u32(&svc->turn, 0);
	pg_atomic_init_u64(&svc->free_memory, 0);
	svc->device = dev;
	strlcpy(svc->device_name, svc_dev_env[dev], sizeof(svc->device_name));
	svc->nchannels = Max(pg_gpu_service_tasks, 1);
	for (int i = 0; i < svc->nchannels; i++)
	{
		SvcChannel *ch = &svc->ch[i];

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

void
PgGpuServiceShmemStartup(void)
{
	bool		found;
	char	   *cc;
	char	   *svc;

	if (!pg_gpu_service)
		return;
	svc_find_devices();
	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	cc = (char *) ShmemInitStruct("pg_gpu cache",
								  mul_size(MAXALIGN(PgGpuCcShmemSize()), PgGpuSvcNdev), &found);
	for (int d = 0; d < PgGpuSvcNdev; d++)
	{
		PgGpuCcDev[d] = (CcShared *) (cc + (Size) d * MAXALIGN(PgGpuCcShmemSize()));
		if (!found)
			PgGpuCcShmemInit(PgGpuCcDev[d], d);
	}
	PgGpuCc = PgGpuCcDev[0];
	svc = (char *) ShmemInitStruct("pg_gpu service", mul_size(svc_shmem_size(), PgGpuSvcNdev),
								   &found);
	for (int d = 0; d < PgGpuSvcNdev; d++)
	{
		PgGpuSvcDev[d] = (SvcShared *) (svc + (Size) d * svc_shmem_size());
		if (!found)
			svc_shmem_init(PgGpuSvcDev[d], d);
	}
	PgGpuSvc = PgGpuSvcDev[0];
	LWLockRelease(AddinShmemInitLock);
}

void
PgGpuServiceRegisterWorker(void)
{
	BackgroundWorker w;

	if (!pg_gpu_service)
		return;
	svc_find_devices();
	for (int d = 0; d < PgGpuSvcNdev; d++)
	{
		memset(&w, 0, sizeof(w));
		w.bgw_flags = BGWORKER_SHMEM_ACCESS;
		w.bgw_start_time = BgWorkerStart_PostmasterStart;
		/* exit code 1 (a fault it gave up on, or a stop) restarts it after a second */
		w.bgw_restart_time = 1;
		strlcpy(w.bgw_library_name, "pg_gpu", sizeof(w.bgw_library_name));
		strlcpy(w.bgw_function_name, "pg_gpu_service_main", sizeof(w.bgw_function_name));
		if (PgGpuSvcNdev == 1)
			strlcpy(w.bgw_name, "pg_gpu service", sizeof(w.bgw_name));
		else
			snprintf(w.bgw_name, sizeof(w.bgw_name), "pg_gpu service %d", d);
		strlcpy(w.bgw_type, "pg_gpu service", sizeof(w.bgw_type));
		w.bgw_main_arg = Int32GetDatum(d);
		RegisterBackgroundWorker(&w);
	}
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
	/* what pg_gpu_devices() shows, so that no backend starts CUDA to ask */
	if (pg_gpu_engine_devices(&PgGpuSvc->dev_info, 1, &err) >= 1)
		pg_atomic_write_u64(&PgGpuSvc->free_memory, PgGpuSvc->dev_info.free_memory);
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
		uint64		limit = (uint64) (ch->request.begin.timeout_ms > 0 ? ch->request.begin.timeout_ms : 60000) * 1000;

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
	uint32		ticks = 0;

	on_proc_exit(svc_hard_exit, (Datum) 0);

	pqsignal(SIGTERM, svc_sigterm);
	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	BackgroundWorkerUnblockSignals();
	{
		int			dev = DatumGetInt32(arg);

		if (PgGpuSvc == NULL || dev < 0 || dev >= PgGpuSvcNdev)
			proc_exit(0);
		/* this worker's GPU and cache; CUDA has not started in this process */
		PgGpuSvc = PgGpuSvcDev[dev];
		PgGpuCc = PgGpuCcDev[dev];
		if (PgGpuSvc->device_name[0] && setenv("CUDA_VISIBLE_DEVICES", PgGpuSvc->device_name, 1) != 0)
			ereport(LOG, (errmsg("pg_gpu service: could not set CUDA_VISIBLE_DEVICES: %m")));
	}

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
		/* the GPU's free memory for pg_gpu_devices(), every 250 ms */
		if (PgGpuSvc->gpu == 1 && ++ticks % 5 == 0)
		{
			uint64		free_b;

			if (pg_gpu_engine_free_memory(&free_b))
				pg_atomic_write_u64(&PgGpuSvc->free_memory, free_b);
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
							PgGpuSvc->ch[overdue].request.begin.timeout_ms)));
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
