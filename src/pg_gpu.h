/*
 * pg_gpu.h — declarations shared by the PostgreSQL-facing files of pg_gpu.
 * Include after postgres.h (inside extern "C").
 */
#ifndef PG_GPU_H
#define PG_GPU_H

#include "compat.h"

/* ---- GUCs (guc.cpp) ---- */
extern bool pg_gpu_enabled;
extern bool pg_gpu_force;
extern bool pg_gpu_enable_gpuagg;
extern bool pg_gpu_enable_gpusort;
extern bool pg_gpu_enable_gpujoin;
extern bool pg_gpu_decorrelate;
extern bool pg_gpu_direct_groups;
extern int	pg_gpu_min_rows;
extern double pg_gpu_startup_cost;
extern double pg_gpu_init_cost;
extern double pg_gpu_page_cost;
extern double pg_gpu_copy_page_cost;
extern double pg_gpu_tuple_cost;
extern double pg_gpu_handoff_row_cost;
extern double pg_gpu_host_key_cost;
extern double pg_gpu_nestloop_risk;
extern int	pg_gpu_device_memory_limit;	/* kB, 0 = whole device */
extern int	pg_gpu_table_cache_size;	/* kB, 0 = no table cache */
extern int	pg_gpu_slot_sort_memory;	/* kB */
extern int	pg_gpu_join_batch_rows;
extern int	pg_gpu_chunk_pages;
extern bool pg_gpu_register_buffers;
extern bool pg_gpu_stage_pages;
extern int	pg_gpu_register_min_pages;
extern int	pg_gpu_register_after;
extern int	pg_gpu_pin_workers;
extern int	pg_gpu_pin_workers_min_pages;
extern bool pg_gpu_pin_workers_early;
extern bool pg_gpu_expect_gpu;
extern int	pg_gpu_debug_fail_after_chunks;
extern int	pg_gpu_debug_fold_hash_bits;
extern bool pg_gpu_emulate_gpu;
extern bool pg_gpu_service;
extern int	pg_gpu_service_tasks;
extern char *pg_gpu_service_devices;
extern int	pg_gpu_cache_size;		/* kB: the service's column cache */
extern bool pg_gpu_use_cache;
extern int	pg_gpu_service_timeout;	/* ms */
extern int	pg_gpu_debug_service_fault;

/* pg_gpu.debug_service_fault */
typedef enum PgGpuServiceFault
{
	PG_GPU_SVC_FAULT_NONE = 0,
	PG_GPU_SVC_FAULT_ERROR,
	PG_GPU_SVC_FAULT_EXIT,
	PG_GPU_SVC_FAULT_HANG,
	PG_GPU_SVC_FAULT_CRASH,
	PG_GPU_SVC_FAULT_ALLOC		/* std::bad_alloc in the task's first chunk */
} PgGpuServiceFault;

void		PgGpuDefineGucs(void);

/* loaded from shared_preload_libraries (pg_gpu.cpp) */
extern bool PgGpuPreloaded;

/* ---- stats (stats.cpp) ---- */
typedef enum PgGpuNode
{
	PG_GPU_NODE_AGG = 0,
	PG_GPU_NODE_FINAL,			/* the gpu_* aggregates' final reductions */
	PG_GPU_NODE_SORT,
	PG_GPU_NODE_HASHJOIN,		/* an inner join's rows, unsorted */
	PG_GPU_NODE_SEMIJOIN,		/* a semi- or anti-join's rows, unsorted */
	PG_GPU_NODE_COUNT
} PgGpuNode;

/* The node's name in pg_gpu_stats and EXPLAIN. */
const char *PgGpuNodeName(PgGpuNode node);

typedef enum PgGpuFallback
{
	PG_GPU_FB_NO_GPU = 0,		/* no device or no driver */
	PG_GPU_FB_NOT_COMPILED,		/* built without nvcc */
	PG_GPU_FB_OUT_OF_MEMORY,
	PG_GPU_FB_GPU_ERROR,
	PG_GPU_FB_BAD_PAGE,			/* data the GPU cannot decode */
	PG_GPU_FB_UNSUPPORTED,		/* found unsupported at execution time */
	PG_GPU_FB_SERIALIZABLE,		/* serializable isolation needs per-tuple predicate locks */
	PG_GPU_FB_INJECTED,			/* pg_gpu.debug_fail_after_chunks */
	PG_GPU_FB_EXPR_ERROR,		/* an expression raised an error on the GPU: the
								 * CPU re-runs the query to raise PostgreSQL's own */
	PG_GPU_FB_TOASTED,			/* a compressed or out-of-line text value: the CPU
								 * re-runs the query */
	PG_GPU_FB_LONG_KEY,			/* text or numeric sort keys the GPU's prefixes
								 * (64 bytes, 64 digits) cannot order: the CPU
								 * sorts */
	PG_GPU_FB_SLOT_MEMORY,		/* GpuSort over a child plan: more rows than
								 * pg_gpu.slot_sort_memory; tuplesort sorts */
	PG_GPU_FB_DUP_KEYS,			/* an inner join whose aggregates need each key
								 * once met duplicate keys: the CPU joins */
	PG_GPU_FB_SERVICE_MEMORY,	/* the GPU service ran out of host memory
								 * (std::bad_alloc in its thread): the task
								 * failed, the service went on */
	PG_GPU_FB_NULL_KEYS,		/* a LEFT JOIN's preserved side, whose keys are
								 * GpuAgg's groups, holds a NULL key: the CPU
								 * joins */
	PG_GPU_FB_PARAM_VALUE,		/* an InitPlan's value the task cannot hold (a
								 * numeric NaN, infinity, or beyond its 90
								 * bits): PostgreSQL's plan */
	PG_GPU_FB_SERVICE_BUSY,		/* every task channel of the GPU service was in
								 * use (a backend that holds one already does
								 * not wait for a second): PostgreSQL's plan */
	PG_GPU_FB_COUNT
} PgGpuFallback;

void		PgGpuStatsRequestShmem(void);
void		PgGpuStatsStartup(void);
void		PgGpuStatsGpuRun(PgGpuNode node, uint64 bytes, double gpu_ms);
void		PgGpuStatsEmulatedRun(PgGpuNode node);
void		PgGpuStatsFallback(PgGpuNode node, PgGpuFallback reason);
const char *PgGpuFallbackName(PgGpuFallback reason);

/*
 * The fallback reason of an engine status (a pg_gpu_status); PG_GPU_CANCELLED
 * raises the pending interrupt instead (PgGpuRaiseIfCancelled).
 */
PgGpuFallback PgGpuFallbackFor(int engine_status);
/* The engine stopped for a pending cancel (PG_GPU_CANCELLED): raise it now. */
void		PgGpuRaiseIfCancelled(int engine_status);

/*
 * Count a node's fallback, give the table cache's memory back when the GPU ran
 * out of it, and warn under pg_gpu.expect_gpu unless the reason is expected.
 */
void		PgGpuNoteFallback(PgGpuNode node, PgGpuFallback reason, const char *msg);

/* ---- runtime (runtime.cpp) ---- */
/*
 * Let the engine's calls on this backend's thread end early when a query cancel
 * or termination is pending (pg_gpu_engine_set_cancel): each node calls it as it
 * begins.  Their PG_GPU_CANCELLED then becomes the interrupt's own error in
 * PgGpuFallbackFor.
 */
void		PgGpuEngineCancelHook(void);
/* Start the engine in this backend; false (and *reason, *msg) if no GPU. */
bool		PgGpuEnsureEngine(PgGpuFallback *reason, char *msg, size_t msglen);
/* Whether a GPU path may be planned without forcing (no CUDA start). */
bool		PgGpuDeviceLikely(void);
/*
 * Start (or with wait, finish) registering the shared buffer pool with the GPU,
 * once per backend, once its scans have copied pg_gpu.register_after (a scan of
 * scan_blocks pages asks); false while it is not usable (pages are then copied).
 */
bool		PgGpuRegisterSharedBuffers(bool wait, uint32 scan_blocks = 0);
bool		PgGpuSharedBuffersRegistered(void);
/* Device address of a shared buffer; the pool must be registered. */
uint64		PgGpuSharedBufferDeviceAddr(int buf_id);
/* layout_check.cpp: run-time half of the layout check */
bool		PgGpuLayoutOk(void);

/* ---- the extension in this database (extension.cpp) ---- */
bool		PgGpuExtensionPresent(void);
void		PgGpuExtensionInit(void);
/* service/cache_sql.cpp: drop this database's column cache entries */
void		PgGpuCacheDrop(Oid db, Oid relid);

/* ---- the nodes: planner hooks (planner/hooks.cpp), scan methods (nodes/) ---- */
void		PgGpuPlannerInit(void);
/* the planner hook that decorrelates scalar aggregates (planner/decorrelate.cpp) */
void		PgGpuDecorrelateInit(void);
void		PgGpuAggExecInit(void);
void		PgGpuSortExecInit(void);
void		PgGpuJoinExecInit(void);

#endif							/* PG_GPU_H */
