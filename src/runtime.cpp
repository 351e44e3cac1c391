/*
 * runtime.cpp — the backend's view of the GPU: lazy engine start, whether a GPU is
 * likely present (for planning without starting CUDA), registration of the shared
 * buffer pool, and pg_gpu_devices().
 *
 * The shared buffer pool is registered with the GPU once a backend's scans have
 * copied as much as it holds, or at once by a scan of a quarter of it
 * (pg_gpu.register_after), in the background: registering costs
 * tens of milliseconds per GB, once per backend, after which kernels read pinned
 * buffers in place over PCIe.  Measured on the H200 host with 8 GB of
 * shared_buffers, registering during a new connection's first query made it take
 * 1.0 s instead of 0.3 s.
 */
extern "C" {
#include "postgres.h"

#include <unistd.h>

#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/ipc.h"
#include "utils/builtins.h"

#include "pg_gpu.h"
#include "pg_gpu_engine.h"
#include "service/service.h"
}

#include "guard.h"

static int	device_likely = -1;	/* -1 unknown */
static bool engine_failed = false;
static bool registration_failed = false;
static uint64 pool_dev = 0;		/* device address of BufferBlocks */
static bool registration_started = false;
static uint64 bytes_copied = 0;	/* by scans that could have read in place */

bool
PgGpuDeviceLikely(void)
{
	if (!pg_gpu_engine_compiled() || engine_failed)
		return false;
	if (device_likely < 0)
		device_likely = (access("/dev/nvidiactl", F_OK) == 0 ||
						 access("/dev/nvidia0", F_OK) == 0) ? 1 : 0;
	return device_likely == 1;
}

static bool exit_wait_registered = false;

/*
 * At exit, a start-up still running on the engine's thread (its query was
 * cancelled) finishes first: the CUDA runtime must not be torn down under it.
 */
static void
wait_for_engine_start(int code, Datum arg)
{
	for (int i = 0; i < 30000 && pg_gpu_engine_init_async() == 0; i++)
		pg_usleep(1000);
}

/*
 * The engine's cancel callback: whether CHECK_FOR_INTERRUPTS would raise now (a
 * query cancel, statement_timeout, or termination, where interrupts can be
 * processed).  It reads flags only; the engine calls it on this thread.
 */
static int
backend_cancel_pending(void)
{
	return InterruptPending && (QueryCancelPending || ProcDiePending) &&
		INTERRUPTS_CAN_BE_PROCESSED();
}

void
PgGpuEngineCancelHook(void)
{
	/* a backend's; the GPU service's threads set their own (service_thread.cpp) */
	pg_gpu_engine_set_cancel(backend_cancel_pending);
}

bool
PgGpuEnsureEngine(PgGpuFallback *reason, char *msg, size_t msglen)
{
	pg_gpu_error err;

	if (IsPostmasterEnvironment && !IsUnderPostmaster)
	{
		/* never start CUDA in the postmaster */
		*reason = PG_GPU_FB_NO_GPU;
		strlcpy(msg, "not in a backend", msglen);
		return false;
	}
	pg_gpu_engine_set_memory_limit((uint64) pg_gpu_device_memory_limit * 1024);

	/*
	 * CUDA starts on a thread of the engine's (~0.4 s or more, once per
	 * backend): a cancel or statement_timeout meanwhile ends the query at once,
	 * and the start-up goes on for the next one.
	 */
	if (!exit_wait_registered)
	{
		on_proc_exit(wait_for_engine_start, (Datum) 0);
		exit_wait_registered = true;
	}
	while (pg_gpu_engine_init_async() == 0)
	{
		CHECK_FOR_INTERRUPTS();
		pg_usleep(1000);
	}
	if (pg_gpu_engine_init(&err) == PG_GPU_OK)
		return true;
	engine_failed = true;
	*reason = err.status == PG_GPU_NOT_COMPILED ? PG_GPU_FB_NOT_COMPILED : PG_GPU_FB_NO_GPU;
	strlcpy(msg, err.message, msglen);
	return false;
}

/*
 * Register the whole shared buffer pool with the GPU, once per backend, as one
 * page-aligned range (registrations must not overlap, and a buffer must not
 * straddle two of them).  It runs in the background: until it is done, callers
 * copy pages.  wait = true blocks until it has finished.  Returns whether the pool
 * can be read in place now.
 */
bool
PgGpuRegisterSharedBuffers(bool wait, uint32 scan_blocks)
{
	char	   *start = BufferBlocks;
	char	   *end = BufferBlocks + (uint64) NBuffers * BLCKSZ;
	char	   *astart = (char *) TYPEALIGN_DOWN(4096, start);
	char	   *aend = (char *) TYPEALIGN(4096, end);
	uint64		dev = 0;
	pg_gpu_error err;
	int			st;

	if (pool_dev != 0)
		return true;
	if (registration_failed)
		return false;

	/*
	 * Not before the backend's scans have copied as much as the pool holds
	 * (pg_gpu.register_after): the driver's time registering takes holds up
	 * the backend's queries meanwhile, and a session that runs a few queries
	 * and disconnects would never win it back.
	 */
	if (!wait && !registration_started)
	{
		uint64		pool = (uint64) NBuffers * BLCKSZ;
		uint64		after = pg_gpu_register_after < 0 ? pool
			: (uint64) pg_gpu_register_after * 1024;
		uint64		scan = (uint64) scan_blocks * BLCKSZ;

		/*
		 * ... except for a scan of a quarter of the pool or more (with the
		 * default): reading in place saves it about 0.1 s per GB, so a
		 * session that runs such scans wins the registration back within a
		 * query or two.
		 */
		if (bytes_copied < after && !(pg_gpu_register_after < 0 && scan >= pool / 4))
		{
			bytes_copied += scan;
			return false;
		}
	}
	registration_started = true;
	st = pg_gpu_engine_register_host_async(astart, (uint64) (aend - astart));
	while (wait && st == 1)
	{
		CHECK_FOR_INTERRUPTS();
		pg_usleep(1000);
		st = pg_gpu_engine_registration(&dev, &err);
	}
	st = pg_gpu_engine_registration(&dev, &err);
	if (st == 2)
	{
		pool_dev = dev + (uint64) (start - astart);
		return true;
	}
	if (st == -1)
	{
		ereport(LOG,
				(errmsg("pg_gpu: cannot register the shared buffer pool with the GPU, copying pages instead"),
				 errdetail("%s", err.message)));
		registration_failed = true;
	}
	return false;
}

bool
PgGpuSharedBuffersRegistered(void)
{
	return pool_dev != 0;
}

uint64
PgGpuSharedBufferDeviceAddr(int buf_id)
{
	Assert(pool_dev != 0);
	return pool_dev + (uint64) buf_id * BLCKSZ;
}

/* SQL: register the buffer pool now and wait for it; whether it worked. */
static Datum
pg_gpu_register_buffer_pool_impl(FunctionCallInfo fcinfo)
{
	PgGpuFallback reason;
	char		msg[256];

	if (!PgGpuEnsureEngine(&reason, msg, sizeof(msg)))
		PG_RETURN_BOOL(false);
	PG_RETURN_BOOL(PgGpuRegisterSharedBuffers(true));
}

PG_GPU_SQL_FN(pg_gpu_register_buffer_pool)

static Datum
pg_gpu_devices_impl(FunctionCallInfo fcinfo)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	pg_gpu_device_info info[16];
	pg_gpu_error err;
	int			n;

	InitMaterializedSRF(fcinfo, 0);

	/*
	 * With the GPU service, its workers say (a row per worker's GPU, ordinal
	 * its place in pg_gpu_service()): asking CUDA here would start a context in
	 * this backend, hundreds of milliseconds and memory on the GPU.
	 */
	if (PgGpuServiceDevices() > 0 && IsUnderPostmaster)
	{
		int			rows = 0;
		const char *why = NULL;

		for (int d = 0; d < PgGpuServiceDevices(); d++)
		{
			pg_gpu_device_info di;
			uint64		free_b;

			if (!PgGpuServiceDeviceInfo(d, &di, &free_b, &why))
				continue;
			Datum		values[6];
			bool		nulls[6] = {false, false, false, false, false, false};
			char		cc[16];

			snprintf(cc, sizeof(cc), "%d.%d", di.cc_major, di.cc_minor);
			values[0] = Int32GetDatum(d);
			values[1] = CStringGetTextDatum(di.name);
			values[2] = CStringGetTextDatum(cc);
			values[3] = Int32GetDatum(di.multiprocessors);
			values[4] = Int64GetDatum((int64) di.total_memory);
			values[5] = Int64GetDatum((int64) free_b);
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
			rows++;
		}
		if (rows == 0)
			ereport(NOTICE,
					(errmsg("no GPU is available"),
					 errdetail("%s", why ? why : "The GPU service has not started its GPU yet.")));
		return (Datum) 0;
	}
	n = pg_gpu_engine_devices(info, lengthof(info), &err);
	if (n < 0)
	{
		ereport(NOTICE,
				(errmsg("no GPU is available"),
				 errdetail("%s", err.message)));
		return (Datum) 0;
	}
	for (int i = 0; i < n && i < (int) lengthof(info); i++)
	{
		Datum		values[6];
		bool		nulls[6] = {false, false, false, false, false, false};
		char		cc[16];

		snprintf(cc, sizeof(cc), "%d.%d", info[i].cc_major, info[i].cc_minor);
		values[0] = Int32GetDatum(info[i].ordinal);
		values[1] = CStringGetTextDatum(info[i].name);
		values[2] = CStringGetTextDatum(cc);
		values[3] = Int32GetDatum(info[i].multiprocessors);
		values[4] = Int64GetDatum((int64) info[i].total_memory);
		values[5] = Int64GetDatum((int64) info[i].free_memory);
		nulls[5] = (i != 0);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

PG_GPU_SQL_FN(pg_gpu_devices)
