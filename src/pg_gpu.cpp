/*
 * pg_gpu.cpp — module entry point.  _PG_init only dispatches: GUCs, shared memory
 * for the statistics and the GPU service, the service's worker, the planner hooks
 * and the executor node methods.
 */
extern "C" {
#include "postgres.h"

#include "access/parallel.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "storage/ipc.h"

#include "pg_gpu.h"
#include "dict/dict.h"
#include "scan/buffer_hints.h"
#include "service/service.h"

PG_MODULE_MAGIC;

PGDLLEXPORT void _PG_init(void);
}

#include "guard.h"

/* loaded from shared_preload_libraries (backends inherit it from the postmaster) */
bool		PgGpuPreloaded = false;

static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

static void
pg_gpu_shmem_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	PG_GPU_GUARD(PgGpuStatsRequestShmem());
	PG_GPU_GUARD(PgGpuBufferHintsRequestShmem());
	PG_GPU_GUARD(PgGpuServiceRequestShmem());
}

static void
pg_gpu_shmem_startup(void)
{
	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();
	PG_GPU_GUARD(PgGpuStatsStartup());
	PG_GPU_GUARD(PgGpuBufferHintsStartup());
	PG_GPU_GUARD(PgGpuServiceShmemStartup());
}

extern "C" void
_PG_init(void)
{
	PgGpuPreloaded = process_shared_preload_libraries_in_progress;
	PgGpuDefineGucs();
	/*
	 * Loaded on first use instead (CREATE EXTENSION, a pg_gpu function): the
	 * session works, but its settings exist only where it has been loaded, and
	 * the statistics have no shared memory.  Say so once, in this session.
	 */
	if (!process_shared_preload_libraries_in_progress && !IsParallelWorker())
		ereport(WARNING,
				(errmsg("pg_gpu is loaded without shared_preload_libraries"),
				 errdetail("There is no GPU service and no column cache; sessions that have not "
						   "loaded pg_gpu do not know its pg_gpu.* settings, and pg_gpu_stats "
						   "counts only this session's queries."),
				 errhint("Add pg_gpu to shared_preload_libraries in postgresql.conf and restart the server.")));
	if (process_shared_preload_libraries_in_progress)
	{
		prev_shmem_request_hook = shmem_request_hook;
		shmem_request_hook = pg_gpu_shmem_request;
		prev_shmem_startup_hook = shmem_startup_hook;
		shmem_startup_hook = pg_gpu_shmem_startup;
		PgGpuServiceRegisterWorker();
	}
	PgGpuExtensionInit();
	PgGpuPlannerInit();
	PgGpuDecorrelateInit();
	PgGpuAggExecInit();
	PgGpuSortExecInit();
	PgGpuJoinExecInit();
	PgGpuDictInit();
}
