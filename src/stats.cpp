/*
 * stats.cpp — pg_gpu_stats: cluster-wide counters of GPU executions, CPU fallbacks
 * by reason, bytes moved and GPU time, per node kind.
 *
 * The counters live in shared memory when pg_gpu is preloaded (atomics, no locks);
 * otherwise each backend keeps its own, so the functions still answer.  Every
 * node's fallback goes through PgGpuNoteFallback here: counted, the table cache
 * emptied when the GPU ran out of memory, a warning under pg_gpu.expect_gpu.
 */
extern "C" {
#include "postgres.h"

#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "port/atomics.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "utils/builtins.h"

#include "pg_gpu.h"
#include "pg_gpu_engine.h"
#include "scan/table_cache.h"
}

#include "guard.h"

typedef struct PgGpuNodeStats
{
	pg_atomic_uint64 gpu_runs;
	pg_atomic_uint64 bytes;
	pg_atomic_uint64 gpu_us;
	pg_atomic_uint64 emulated;
	pg_atomic_uint64 fallbacks[PG_GPU_FB_COUNT];
} PgGpuNodeStats;

typedef struct PgGpuStatsShared
{
	PgGpuNodeStats node[PG_GPU_NODE_COUNT];
} PgGpuStatsShared;

static PgGpuStatsShared *shared_stats = NULL;
static PgGpuStatsShared local_stats;
static bool local_ready = false;

static const char *const node_names[PG_GPU_NODE_COUNT] = {"GpuAgg", "gpu_aggregates", "GpuSort", "GpuHashJoin", "GpuSemiJoin"};

const char *
PgGpuNodeName(PgGpuNode node)
{
	return node_names[node];
}
static const char *const fallback_names[PG_GPU_FB_COUNT] = {
	"no gpu", "not compiled", "out of gpu memory", "gpu error", "undecodable data",
	"unsupported", "serializable isolation", "injected failure",
	"expression error", "toasted value", "long key ties", "over slot_sort_memory",
	"duplicate join keys", "out of memory in the gpu service", "null preserved join key",
	"parameter value", "gpu service busy"
};

const char *
PgGpuFallbackName(PgGpuFallback reason)
{
	return fallback_names[reason];
}

static void
init_stats(PgGpuStatsShared *s)
{
	for (int n = 0; n < PG_GPU_NODE_COUNT; n++)
	{
		pg_atomic_init_u64(&s->node[n].gpu_runs, 0);
		pg_atomic_init_u64(&s->node[n].bytes, 0);
		pg_atomic_init_u64(&s->node[n].gpu_us, 0);
		pg_atomic_init_u64(&s->node[n].emulated, 0);
		for (int r = 0; r < PG_GPU_FB_COUNT; r++)
			pg_atomic_init_u64(&s->node[n].fallbacks[r], 0);
	}
}

static PgGpuStatsShared *
stats(void)
{
	if (shared_stats)
		return shared_stats;
	if (!local_ready)
	{
		init_stats(&local_stats);
		local_ready = true;
	}
	return &local_stats;
}

void
PgGpuStatsRequestShmem(void)
{
	RequestAddinShmemSpace(MAXALIGN(sizeof(PgGpuStatsShared)));
}

void
PgGpuStatsStartup(void)
{
	bool		found;

	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	shared_stats = (PgGpuStatsShared *) ShmemInitStruct("pg_gpu stats",
														sizeof(PgGpuStatsShared), &found);
	if (!found)
		init_stats(shared_stats);
	LWLockRelease(AddinShmemInitLock);
}

void
PgGpuStatsGpuRun(PgGpuNode node, uint64 bytes, double gpu_ms)
{
	PgGpuNodeStats *s = &stats()->node[node];

	pg_atomic_fetch_add_u64(&s->gpu_runs, 1);
	pg_atomic_fetch_add_u64(&s->bytes, bytes);
	pg_atomic_fetch_add_u64(&s->gpu_us, (uint64) (gpu_ms * 1000.0));
}

void
PgGpuStatsEmulatedRun(PgGpuNode node)
{
	pg_atomic_fetch_add_u64(&stats()->node[node].emulated, 1);
}

void
PgGpuStatsFallback(PgGpuNode node, PgGpuFallback reason)
{
	pg_atomic_fetch_add_u64(&stats()->node[node].fallbacks[reason], 1);
}

static Datum
pg_gpu_stats_impl(FunctionCallInfo fcinfo)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;

	InitMaterializedSRF(fcinfo, 0);
	for (int n = 0; n < PG_GPU_NODE_COUNT; n++)
	{
		PgGpuNodeStats *s = &stats()->node[n];
		Datum		values[6];
		bool		nulls[6] = {false, false, false, false, false, false};
		uint64		fb = 0;

		for (int r = 0; r < PG_GPU_FB_COUNT; r++)
			fb += pg_atomic_read_u64(&s->fallbacks[r]);
		values[0] = CStringGetTextDatum(node_names[n]);
		values[1] = Int64GetDatum((int64) pg_atomic_read_u64(&s->gpu_runs));
		values[2] = Int64GetDatum((int64) fb);
		values[3] = Int64GetDatum((int64) pg_atomic_read_u64(&s->bytes));
		values[4] = Float8GetDatum(pg_atomic_read_u64(&s->gpu_us) / 1000.0);
		values[5] = Int64GetDatum((int64) pg_atomic_read_u64(&s->emulated));
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

static Datum
pg_gpu_fallbacks_impl(FunctionCallInfo fcinfo)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;

	InitMaterializedSRF(fcinfo, 0);
	for (int n = 0; n < PG_GPU_NODE_COUNT; n++)
		for (int r = 0; r < PG_GPU_FB_COUNT; r++)
		{
			Datum		values[3];
			bool		nulls[3] = {false, false, false};

			values[0] = CStringGetTextDatum(node_names[n]);
			values[1] = CStringGetTextDatum(fallback_names[r]);
			values[2] = Int64GetDatum((int64) pg_atomic_read_u64(&stats()->node[n].fallbacks[r]));
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		}
	return (Datum) 0;
}

static Datum
pg_gpu_stats_reset_impl(FunctionCallInfo fcinfo)
{
	init_stats(stats());
	PG_RETURN_VOID();
}

PG_GPU_SQL_FN(pg_gpu_stats)
PG_GPU_SQL_FN(pg_gpu_fallbacks)
PG_GPU_SQL_FN(pg_gpu_stats_reset)

/* ---- fallback accounting, for every node ---- */

/*
 * PG_GPU_CANCELLED is no failure: the engine stopped because a cancel or a
 * termination is pending (PgGpuEngineCancelHook), and it is raised here, before
 * any fallback is noted or PostgreSQL's plan starts; the query's memory
 * callbacks end the engine's handles.  Should the interrupt have gone (it never
 * does: the callback asks what CHECK_FOR_INTERRUPTS would), the caller goes on
 * as after a GPU error.
 */
void
PgGpuRaiseIfCancelled(int engine_status)
{
	if (engine_status == PG_GPU_CANCELLED)
		CHECK_FOR_INTERRUPTS();
}

/* The fallback reason of an engine status. */
PgGpuFallback
PgGpuFallbackFor(int engine_status)
{
	PgGpuRaiseIfCancelled(engine_status);
	switch ((pg_gpu_status) engine_status)
	{
		case PG_GPU_NOT_COMPILED:
			return PG_GPU_FB_NOT_COMPILED;
		case PG_GPU_NO_DEVICE:
			return PG_GPU_FB_NO_GPU;
		case PG_GPU_OUT_OF_MEMORY:
			return PG_GPU_FB_OUT_OF_MEMORY;
		case PG_GPU_BAD_PAGE:
			return PG_GPU_FB_BAD_PAGE;
		case PG_GPU_EXPR_ERROR:
			return PG_GPU_FB_EXPR_ERROR;
		case PG_GPU_TOASTED:
			return PG_GPU_FB_TOASTED;
		case PG_GPU_UNORDERED:
			return PG_GPU_FB_LONG_KEY;
		case PG_GPU_HOST_OUT_OF_MEMORY:
			return PG_GPU_FB_SERVICE_MEMORY;
		case PG_GPU_BUSY:
			return PG_GPU_FB_SERVICE_BUSY;
		default:
			return PG_GPU_FB_GPU_ERROR;
	}
}

void
PgGpuNoteFallback(PgGpuNode node, PgGpuFallback reason, const char *msg)
{
	/* a session that asked the GPU service to fail: its GPU errors are those */
	if (pg_gpu_debug_service_fault != PG_GPU_SVC_FAULT_NONE &&
		(reason == PG_GPU_FB_GPU_ERROR || reason == PG_GPU_FB_NO_GPU))
		reason = PG_GPU_FB_INJECTED;
	PgGpuStatsFallback(node, reason);
	/* the GPU ran out of memory: the table cache gives its memory back */
	if (reason == PG_GPU_FB_OUT_OF_MEMORY)
		PgGpuTableCacheRelease();
	/*
	 * Data the GPU declines by design, and injected failures, are expected;
	 * so is the service's out-of-memory when the session injected it (it keeps
	 * its own reason, so that a test sees it counted).
	 */
	if (pg_gpu_expect_gpu && reason != PG_GPU_FB_INJECTED && reason != PG_GPU_FB_EXPR_ERROR &&
		reason != PG_GPU_FB_TOASTED && reason != PG_GPU_FB_LONG_KEY &&
		reason != PG_GPU_FB_SLOT_MEMORY && reason != PG_GPU_FB_DUP_KEYS &&
		reason != PG_GPU_FB_NULL_KEYS && reason != PG_GPU_FB_PARAM_VALUE &&
		!(reason == PG_GPU_FB_SERVICE_MEMORY &&
		  pg_gpu_debug_service_fault == PG_GPU_SVC_FAULT_ALLOC))
		ereport(WARNING,
				(errmsg("%s fell back to the CPU: %s", PgGpuNodeName(node),
						PgGpuFallbackName(reason)),
				 errdetail("%s", msg)));
}
