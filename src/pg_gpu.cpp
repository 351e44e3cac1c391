/*
 * pg_gpu.cpp — module entry point.  _PG_init only dispatches: GUCs, shared memory
 * for the statistics, the planner hooks and the executor node methods.
 */
extern "C" {
#include "postgres.h"

#include "fmgr.h"
#include "miscadmin.h"
#include "storage/ipc.h"

#include "pg_gpu.h"
#include "dict/dict.h"

PG_MODULE_MAGIC;

PGDLLEXPORT void _PG_init(void);
}

#include "guard.h"

static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

static void
pg_gpu_shmem_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	PG_GPU_GUARD(PgGpuStatsRequestShmem());
}

static void
pg_gpu_shmem_startup(void)
{
	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();
	PG_GPU_GUARD(PgGpuStatsStartup());
}

extern "C" void
_PG_init(void)
{
	PgGpuDefineGucs();
	if (process_shared_preload_libraries_in_progress)
	{
		prev_shmem_request_hook = shmem_request_hook;
		shmem_request_hook = pg_gpu_shmem_request;
		prev_shmem_startup_hook = shmem_startup_hook;
		shmem_startup_hook = pg_gpu_shmem_startup;
	}
	PgGpuPlannerInit();
	PgGpuAggExecInit();
	PgGpuSortExecInit();
	PgGpuJoinExecInit();
	PgGpuDictInit();
}
