/*
 * guc.cpp — pg_gpu's configuration parameters.
 *
 * Cost parameters are in PostgreSQL's cost units (seq_page_cost = 1).  Their defaults
 * come from bench/ on the reference GPU host (an H100 over PCIe 5), converted at
 * ~750 cost units per millisecond, the density of PostgreSQL's own parallel plans
 * there (the most favourable to the CPU, so the GPU is chosen conservatively):
 * ~0.35 ms fixed per query, ~0.35 us per page read in place, ~1.5 us per page
 * copied, ~0.4 s to start CUDA in a backend.  See bench/RESULTS.md.
 *
 * Who may set what, as PostgreSQL does with its own: the planner's switches and
 * costs (like enable_* and *_cost) and per-query host memory (like work_mem)
 * are for every user; what takes the cluster's GPU and its memory (memory caps,
 * the table cache, buffer registration, chunk sizes, pin workers) and the test
 * settings that inject failures, emulate the GPU or turn fallbacks into
 * warnings are for superusers (PGC_SUSET).
 */
extern "C" {
#include "postgres.h"

#include <float.h>
#include <limits.h>

#include "miscadmin.h"
#include "utils/guc.h"

#include "pg_gpu.h"
}

bool		pg_gpu_enabled = true;
bool		pg_gpu_force = false;
bool		pg_gpu_enable_gpuagg = true;
bool		pg_gpu_enable_gpusort = true;
bool		pg_gpu_enable_gpujoin = true;
bool		pg_gpu_direct_groups = true;
int			pg_gpu_min_rows = 100000;
double		pg_gpu_startup_cost = 300.0;
double		pg_gpu_init_cost = 100000.0;
double		pg_gpu_page_cost = 0.25;
double		pg_gpu_copy_page_cost = 1.0;
double		pg_gpu_tuple_cost = 0.0001;
double		pg_gpu_handoff_row_cost = 0.12;
double		pg_gpu_host_key_cost = 0.3;
double		pg_gpu_nestloop_risk = 2.0;
int			pg_gpu_device_memory_limit = 0;
int			pg_gpu_table_cache_size = 1024 * 1024;
int			pg_gpu_slot_sort_memory = 1024 * 1024;
int			pg_gpu_chunk_pages = 4096;
int			pg_gpu_join_batch_rows = 256 * 1024;
bool		pg_gpu_register_buffers = true;
bool		pg_gpu_stage_pages = false;
int			pg_gpu_register_min_pages = 4096;
int			pg_gpu_register_after = -1;
int			pg_gpu_pin_workers = 12;
int			pg_gpu_pin_workers_min_pages = 16384;
bool		pg_gpu_pin_workers_early = true;
bool		pg_gpu_expect_gpu = false;
int			pg_gpu_debug_fail_after_chunks = -1;
int			pg_gpu_debug_fold_hash_bits = 64;
bool		pg_gpu_emulate_gpu = false;
bool		pg_gpu_service = true;
int			pg_gpu_service_tasks = 16;
char	   *pg_gpu_service_devices = NULL;
int			pg_gpu_cache_size = 4 * 1024 * 1024;	/* kB */
bool		pg_gpu_use_cache = true;
int			pg_gpu_service_timeout = 60000;
int			pg_gpu_debug_service_fault = PG_GPU_SVC_FAULT_NONE;

static const struct config_enum_entry service_fault_options[] = {
	{"none", PG_GPU_SVC_FAULT_NONE, false},
	{"error", PG_GPU_SVC_FAULT_ERROR, false},
	{"exit", PG_GPU_SVC_FAULT_EXIT, false},
	{"hang", PG_GPU_SVC_FAULT_HANG, false},
	{"crash", PG_GPU_SVC_FAULT_CRASH, false},
	{"alloc", PG_GPU_SVC_FAULT_ALLOC, false},
	{NULL, 0, false}
};

void
PgGpuDefineGucs(void)
{
	DefineCustomBoolVariable("pg_gpu.enabled",
							 "Enables planning of GPU paths.",
							 NULL, &pg_gpu_enabled, true,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("pg_gpu.force",
							 "Takes every supported GPU path regardless of cost.",
							 "Meant for tests and benchmarks.",
							 &pg_gpu_force, false,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("pg_gpu.enable_gpuagg",
							 "Enables the GpuAgg aggregation node.",
							 NULL, &pg_gpu_enable_gpuagg, true,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("pg_gpu.enable_gpusort",
							 "Enables the GpuSort node for ORDER BY.",
							 NULL, &pg_gpu_enable_gpusort, true,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("pg_gpu.enable_gpujoin",
							 "Enables exact-match lookups on the GPU: joins, IN and EXISTS against a key set.",
							 NULL, &pg_gpu_enable_gpujoin, true,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("pg_gpu.decorrelate",
							 "Plans a correlated scalar aggregate in WHERE also as a join with the aggregate grouped by its keys.",
							 "The rewritten plan is kept when it holds a GPU node and costs less.",
							 &pg_gpu_decorrelate, true,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("pg_gpu.direct_groups",
							 "Lets GpuAgg finish groups itself with PostgreSQL's final functions.",
							 "When off, grouped GpuAgg always emits partial states to a Finalize Aggregate.",
							 &pg_gpu_direct_groups, true,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("pg_gpu.min_rows",
							"Smallest group the gpu_* aggregates reduce on the GPU.",
							"Smaller groups are reduced on the CPU, with the same arithmetic.",
							&pg_gpu_min_rows, 100000, 0, INT_MAX,
							PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomRealVariable("pg_gpu.startup_cost",
							 "Cost of starting GPU work for one query (launches, synchronisation).",
							 NULL, &pg_gpu_startup_cost, 300.0, 0.0, DBL_MAX,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomRealVariable("pg_gpu.init_cost",
							 "Cost of starting CUDA in a backend that has not used the GPU yet.",
							 NULL, &pg_gpu_init_cost, 100000.0, 0.0, DBL_MAX,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomRealVariable("pg_gpu.page_cost",
							 "Cost of pinning one heap page that the GPU reads in place.",
							 NULL, &pg_gpu_page_cost, 0.25, 0.0, DBL_MAX,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomRealVariable("pg_gpu.copy_page_cost",
							 "Cost of pinning one heap page and copying it through a staging buffer.",
							 "Applies to tables below pg_gpu.register_min_pages and before the buffer pool is registered.",
							 &pg_gpu_copy_page_cost, 1.0, 0.0, DBL_MAX,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomRealVariable("pg_gpu.tuple_cost",
							 "Cost of deforming and aggregating one tuple on the GPU.",
							 NULL, &pg_gpu_tuple_cost, 0.0001, 0.0, DBL_MAX,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomRealVariable("pg_gpu.handoff_row_cost",
							 "Cost of each row a GPU join hands to the CPU plan above it, where a parallel plan could run instead.",
							 "The rows a GPU node returns are processed by a serial plan; PostgreSQL's parallel plan would share that work among its workers.",
							 &pg_gpu_handoff_row_cost, 0.12, 0.0, DBL_MAX,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomRealVariable("pg_gpu.nestloop_risk",
							 "How far a nested loop's per-outer-row cost may be underestimated before a GPU join is preferred to it.",
							 "Where a nested loop over a join probes its inner side once per outer row, and a GPU join of the same rels would cost less than the loop with its per-row part multiplied by this, the loop is not offered. 1 turns this off.",
							 &pg_gpu_nestloop_risk, 2.0, 1.0, 1000.0,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomRealVariable("pg_gpu.host_key_cost",
							 "Cost of each key (or row) of a key set's build side that the backend collects from a plan.",
							 "Keys collected from the build table's pages on the GPU do not pay it.",
							 &pg_gpu_host_key_cost, 0.3, 0.0, DBL_MAX,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("pg_gpu.device_memory_limit",
							"Caps the GPU memory one query's engine may allocate (0: no cap).",
							NULL, &pg_gpu_device_memory_limit, 0, 0, INT_MAX,
							PGC_SUSET, GUC_UNIT_KB, NULL, NULL, NULL);
	DefineCustomIntVariable("pg_gpu.table_cache_size",
							"GPU memory a backend may keep tables' pages in between queries "
							"(0: none).",
							"A table the backend scans on the GPU a second time is copied to GPU "
							"memory as it is read; later scans read the copies while the "
							"visibility map shows the table unchanged.",
							&pg_gpu_table_cache_size, 1024 * 1024, 0, INT_MAX,
							PGC_SUSET, GUC_UNIT_KB, NULL, NULL, NULL);
	DefineCustomIntVariable("pg_gpu.slot_sort_memory",
							"Host memory a GpuSort over a child plan (a join, say) keeps its rows "
							"in, and a join's build side its keys; beyond it, PostgreSQL's "
							"tuplesort sorts them, or its join runs.",
							NULL, &pg_gpu_slot_sort_memory, 1024 * 1024, 64, INT_MAX,
							PGC_USERSET, GUC_UNIT_KB, NULL, NULL, NULL);
	DefineCustomIntVariable("pg_gpu.join_batch_rows",
							"Probe rows a GpuHashJoin or GpuSemiJoin over a child plan takes "
							"before the GPU probes their keys.",
							NULL, &pg_gpu_join_batch_rows, 256 * 1024, 1, 64 * 1024 * 1024,
							PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("pg_gpu.chunk_pages",
							"Heap pages per chunk sent to the GPU.",
							NULL, &pg_gpu_chunk_pages, 4096, 1, 1 << 20,
							PGC_SUSET, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("pg_gpu.register_buffers",
							 "Lets the GPU read the shared buffer pool in place.",
							 "When off, pages are copied through pinned staging buffers.",
							 &pg_gpu_register_buffers, true,
							 PGC_SUSET, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("pg_gpu.stage_pages",
							 "Pulls each chunk of registered pages into GPU memory with a copy kernel before the operator reads it.",
							 "When off, the operator's blocks read their pages in place over PCIe.",
							 &pg_gpu_stage_pages, false,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("pg_gpu.register_min_pages",
							"Smallest table that makes a backend register the buffer pool with the GPU.",
							"Registering costs tens of milliseconds per GB of shared_buffers, once per backend; smaller tables are copied.",
							&pg_gpu_register_min_pages, 4096, 0, INT_MAX,
							PGC_SUSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("pg_gpu.register_after",
							"Data a backend's scans copy to the GPU before it registers the buffer pool.",
							"Registering takes about a second of the driver's time per 8 GB of shared_buffers, "
							"which the backend's queries wait for meanwhile; reading in place saves about that "
							"much once a backend has scanned as much as the pool holds. -1: the size of "
							"shared_buffers, or at once for a scan of a quarter of it; 0: at the first "
							"large scan.",
							&pg_gpu_register_after, -1, -1, INT_MAX,
							PGC_SUSET, GUC_UNIT_KB, NULL, NULL, NULL);
	DefineCustomIntVariable("pg_gpu.pin_workers",
							"Parallel workers that pin heap pages for a GpuAgg scan read in place.",
							"0 pins in the backend itself.",
							&pg_gpu_pin_workers, 12, 0, 64,
							PGC_SUSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("pg_gpu.pin_workers_min_pages",
							"Smallest table for which pin workers are started.",
							NULL, &pg_gpu_pin_workers_min_pages, 16384, 0, INT_MAX,
							PGC_SUSET, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("pg_gpu.pin_workers_early",
							 "Starts a join's probe-side pin workers before its key set is built.",
							 "Their start-up and first chunks then overlap the build.",
							 &pg_gpu_pin_workers_early, true,
							 PGC_SUSET, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("pg_gpu.expect_gpu",
							 "Warns whenever a query planned for the GPU falls back to the CPU.",
							 "Used by make gpucheck to prove offload on a GPU host.",
							 &pg_gpu_expect_gpu, false,
							 PGC_SUSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("pg_gpu.debug_fail_after_chunks",
							"Simulates a GPU failure after this many chunks (-1: never).",
							"For testing the mid-query CPU fallback.",
							&pg_gpu_debug_fail_after_chunks, -1, -1, INT_MAX,
							PGC_SUSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("pg_gpu.debug_fold_hash_bits",
							"Keeps only this many bits of count(DISTINCT)'s group hashes.",
							"For testing: fewer bits make hash collisions, which the fold must sort out.",
							&pg_gpu_debug_fold_hash_bits, 64, 0, 64,
							PGC_SUSET, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("pg_gpu.emulate_gpu",
							 "Runs the GPU engine's code on the CPU instead of a GPU.",
							 "For testing GPU plans end to end on machines without a GPU.",
							 &pg_gpu_emulate_gpu, false,
							 PGC_SUSET, 0, NULL, NULL, NULL);
	/*
	 * The service's settings are read when the server starts, so they exist
	 * only where pg_gpu is preloaded: PostgreSQL refuses (FATAL) a
	 * PGC_POSTMASTER variable defined later, which would end the session of a
	 * CREATE EXTENSION or LOAD without preloading.  Loaded late, the library
	 * has no service and no column cache, and says so in its warning.
	 */
	if (process_shared_preload_libraries_in_progress)
	{
		DefineCustomBoolVariable("pg_gpu.service",
								 "Runs GPU aggregations in one background process that owns the GPU.",
								 "The service starts CUDA and registers the buffer pool once, when the "
								 "server starts, so backends do not (docs/GPU_SERVICE.md). Off: every "
								 "backend starts its own.",
								 &pg_gpu_service, true,
								 PGC_POSTMASTER, 0, NULL, NULL, NULL);
		DefineCustomIntVariable("pg_gpu.service_tasks",
								"GPU tasks the service runs at once (one channel of about 1.4 MB "
								"of shared memory each).",
								"A task that finds every channel in use waits for one, up to 10 s, "
								"then runs on PostgreSQL's plan.",
								&pg_gpu_service_tasks, 16, 1, 1024,
								PGC_POSTMASTER, 0, NULL, NULL, NULL);
		DefineCustomIntVariable("pg_gpu.cache_size",
								"GPU memory the GPU service keeps tables' columns in, for every "
								"session (0: none).",
								"Columns that GPU aggregations read are deformed once from "
								"all-visible pages into GPU memory and read from there while the "
								"visibility map shows their blocks unchanged; least recently used "
								"tables go first (docs/GPU_SERVICE.md).",
								&pg_gpu_cache_size, 4 * 1024 * 1024, 0, INT_MAX,
								PGC_POSTMASTER, GUC_UNIT_KB, NULL, NULL, NULL);
		DefineCustomStringVariable("pg_gpu.service_devices",
								   "The GPUs the GPU service runs on: one service worker for each "
								   "entry, as CUDA_VISIBLE_DEVICES names a GPU (empty: every GPU).",
								   "Empty starts one worker per GPU the server may use "
								   "(CUDA_VISIBLE_DEVICES's entries when it is set, else the "
								   "host's /dev/nvidiaN); each worker has its own task channels "
								   "and column cache, and each task goes to the least busy one "
								   "(docs/GPU_SERVICE.md).",
								   &pg_gpu_service_devices, "",
								   PGC_POSTMASTER, 0, NULL, NULL, NULL);
	}
	else
	{
		pg_gpu_service = false;
		pg_gpu_service_tasks = 0;
		pg_gpu_cache_size = 0;
	}
	DefineCustomBoolVariable("pg_gpu.use_cache",
							 "Lets this session's GPU aggregations read and fill the GPU service's "
							 "column cache.",
							 NULL, &pg_gpu_use_cache, true,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("pg_gpu.service_timeout",
							"Time a GPU task's step may take in the GPU service before the service "
							"takes the GPU for hung and restarts.",
							"The queries in flight then run on PostgreSQL's plan.",
							&pg_gpu_service_timeout, 60000, 100, INT_MAX,
							PGC_SUSET, GUC_UNIT_MS, NULL, NULL, NULL);
	DefineCustomEnumVariable("pg_gpu.debug_service_fault",
							 "Makes the GPU service fail this session's next GPU tasks.",
							 "For testing: error (a CUDA error), exit (an error the service restarts "
							 "for), hang (a task that never finishes), crash (the service killed), "
							 "alloc (the service out of host memory in the task).",
							 &pg_gpu_debug_service_fault, PG_GPU_SVC_FAULT_NONE,
							 service_fault_options, PGC_SUSET, 0, NULL, NULL, NULL);
	MarkGUCPrefixReserved("pg_gpu");
}
