/*
 * table_task.cpp — a collect or rows task run to its end over one table's
 * pages (heap_reader.cpp streams them), its results taken before the engine
 * ends: a key set's keys collected on the GPU (PgGpuCollectKeys), a rows
 * task's groups handed to a callback (PgGpuCollectGroups: a dimension's or a
 * build side's rows), or made a key set with its payload in the GPU service
 * (PgGpuCollectRowsSet).
 *
 * Unlike a node's scan, nothing overlaps these: the probe scan waits for the
 * set, so the task begins, reads every page, finishes and ends here.
 */
extern "C" {
#include "postgres.h"

#include "miscadmin.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "pg_gpu.h"
#include "pg_gpu_engine.h"
#include "scan/heap_reader.h"
#include "service/service.h"
}

#include "scan/heap_reader_int.h"

/*
 * Run a collect or rows task (a key set's keys, a dimension's rows) over rel's
 * pages for the snapshot and, once the engine has finished, take its results
 * with take(ps, &res, arg); false with the fallback noted (scan_fail).  The
 * engine ends here.  Nothing overlaps this scan's pinning (the probe scan waits
 * for the set), so parallel workers pin its pages from an eighth of
 * pg_gpu.pin_workers_min_pages on: on the H100 host, collecting the 1 M keys of
 * bench Q5 (8,334 pages) took 15-18 ms with 8 workers against 18-22 ms without.
 */
typedef bool (*TakeFn) (PgGpuPageScan *ps, const pg_gpu_agg_result *res, void *arg);

static bool
run_table_task(Relation rel, Snapshot snapshot, const pg_gpu_agg_task *plan_task,
			   bool bound_pages, TakeFn take, void *arg, PgGpuFallback *reason, char *msg,
			   size_t msglen, PgGpuSvcChannel *svc = NULL, double *phase_ms = NULL)
{
	instr_time	t0,
				ph[4];
	pg_gpu_agg_task *task = (pg_gpu_agg_task *) palloc(sizeof(pg_gpu_agg_task));
	PgGpuPageScan ps;
	pg_gpu_agg_result res;
	pg_gpu_error err;
	instr_time	lapt;
	bool		ok = false;

	memcpy(task, plan_task, sizeof(*task));
	memset(&ps, 0, sizeof(ps));	/* no pin arrays yet */
	for (int k = 0; k < 4; k++)
		INSTR_TIME_SET_ZERO(ph[k]);
	INSTR_TIME_SET_CURRENT(lapt);
	t0 = lapt;
	if (!PgGpuScanPrepare(&ps, rel, snapshot, CurrentMemoryContext, task, svc))
	{
		*reason = ps.fb_reason;
		strlcpy(msg, ps.fb_msg, msglen);
		pfree(task);
		return false;
	}
	if (bound_pages)
		task->total_pages = Max(ps.nblocks, 1);	/* bounds the keys' buffers */

	/* on an error, the GPU must stop reading the pinned pages; abort unpins them */
	PG_TRY();
	{
		if ((ps.agg = PgGpuScanBegin(&ps, task, &err)) == NULL)
			scan_fail(&ps, PgGpuFallbackFor(err.status), err.message);
		else
		{
			PgGpuLap(&ph[0], &t0);
			INSTR_TIME_SET_CURRENT(lapt);
			/*
			 * Pin workers from pg_gpu.pin_workers_min_pages, as for any scan:
			 * from an eighth of it (measured on the H100 when build scans
			 * copied their pages), SSB's dimensions (4,660 and 11,461 pages)
			 * took 10-13 ms to read on the H200, about what starting the
			 * workers costs, against 0.55 µs a page pinned here.
			 */
			if (PgGpuScanPages(&ps, &lapt, pg_gpu_pin_workers_min_pages))
			{
				PgGpuLap(&ph[1], &t0);
				if (pg_gpu_agg_finish(ps.agg, &res, &err) != PG_GPU_OK)
					scan_fail(&ps, PgGpuFallbackFor(err.status), err.message);
				else
				{
					PgGpuScanComplete(&ps);
					PgGpuLap(&ph[2], &t0);
					ok = take(&ps, &res, arg);
				}
			}
		}
	}
	PG_CATCH();
	{
		/* read again after the longjmp */
		pg_gpu_agg_end(((volatile PgGpuPageScan *) &ps)->agg);
		PG_RE_THROW();
	}
	PG_END_TRY();
	pg_gpu_agg_end(ps.agg);		/* waits for in-flight kernels */
	PgGpuScanRelease(&ps, true);
	PgGpuLap(&ph[3], &t0);
	for (int k = 0; phase_ms && k < 4; k++)
		phase_ms[k] = INSTR_TIME_GET_MILLISEC(ph[k]);
	for (int i = 0; i < PG_GPU_AGG_SLOTS; i++)
		if (ps.pins[i])
			pfree(ps.pins[i]);
	if (!ok && ps.fb_msg[0] != '\0')
	{
		*reason = ps.fb_reason;
		strlcpy(msg, ps.fb_msg, msglen);
	}
	pfree(task);
	return ok;
}

typedef struct TakeKeys
{
	int			settype;
	PgGpuCollected *out;
} TakeKeys;

static bool
take_keys(PgGpuPageScan *ps, const pg_gpu_agg_result *res, void *arg)
{
	TakeKeys   *a = (TakeKeys *) arg;
	pg_gpu_error err;

	if (ps->svc != NULL)
	{
		/* the set stays in the service, for the task that probes it there */
		a->out->ks = NULL;
		memset(&a->out->ref, 0, sizeof(a->out->ref));
		if (!PgGpuServiceKeysetCollected(ps->svc, a->settype, &a->out->ref, &a->out->keys,
										 &a->out->distinct, &a->out->has_null,
										 a->out->pay_distinct, &err))
			return scan_fail(ps, PgGpuFallbackFor(err.status), err.message);
	}
	else if ((a->out->ks = pg_gpu_agg_keyset(ps->agg, a->settype, &a->out->keys,
											 &a->out->has_null, &err)) == NULL)
		return scan_fail(ps, PgGpuFallbackFor(err.status), err.message);
	else
		for (int j = 0; j < PG_GPU_MAX_PAYLOAD; j++)
			a->out->pay_distinct[j] = pg_gpu_keyset_pay_distinct(a->out->ks, j);
	a->out->nonempty = res->nrows > 0;
	a->out->pages = res->pages;
	a->out->gpu_ms = res->gpu_ms;
	return true;
}

bool
PgGpuCollectKeys(Relation rel, Snapshot snapshot, const pg_gpu_agg_task *plan_task, int settype,
				 PgGpuCollected *out, PgGpuFallback *reason, char *msg, size_t msglen,
				 PgGpuSvcChannel *svc)
{
	TakeKeys	a = {settype, out};

	memset(out, 0, sizeof(*out));
	return run_table_task(rel, snapshot, plan_task, true, take_keys, &a, reason, msg, msglen,
						  svc);
}


typedef struct TakeGroups
{
	PgGpuGroupFn fn;
	void	   *arg;
	int64	   *pages;
	double	   *gpu_ms;
} TakeGroups;

static bool
take_groups(PgGpuPageScan *ps, const pg_gpu_agg_result *res, void *arg)
{
	TakeGroups *a = (TakeGroups *) arg;
	pg_gpu_col_state states[PG_GPU_MAX_AGG_COLS];

	*a->pages = res->pages;
	*a->gpu_ms = res->gpu_ms;
	for (int64 g = 0; g < res->ngroups; g++)
	{
		uint64		keys[PG_GPU_MAX_KEYS];
		uint32		nullmask = 0;
		int64		rows = 0;

		if ((g & 1023) == 0)
			CHECK_FOR_INTERRUPTS();
		pg_gpu_agg_group(ps->agg, g, keys, &nullmask, &rows, states);
		if (!a->fn(a->arg, keys, nullmask, rows))
			return false;
	}
	return true;
}

bool
PgGpuCollectGroups(Relation rel, Snapshot snapshot, const pg_gpu_agg_task *plan_task,
				   PgGpuGroupFn fn, void *arg, int64 *pages, double *gpu_ms,
				   PgGpuFallback *reason, char *msg, size_t msglen, double *phase_ms)
{
	TakeGroups	a = {fn, arg, pages, gpu_ms};

	return run_table_task(rel, snapshot, plan_task, false, take_groups, &a, reason, msg, msglen,
						  NULL, phase_ms);
}

typedef struct TakeRowsSet
{
	int			settype;
	PgGpuRowsSet *out;
} TakeRowsSet;

static bool
take_rows_set(PgGpuPageScan *ps, const pg_gpu_agg_result *res, void *arg)
{
	TakeRowsSet *a = (TakeRowsSet *) arg;
	pg_gpu_error err;

	a->out->pages = res->pages;
	a->out->gpu_ms = res->gpu_ms;
	a->out->nonempty = res->ngroups > 0;
	if (!PgGpuServiceKeysetRows(ps->svc, a->settype, &a->out->ref, &a->out->keys,
								&a->out->distinct, &a->out->has_null, a->out->pay_distinct,
								&a->out->dup_rows, &err))
		return scan_fail(ps, a->out->dup_rows > 0 ? PG_GPU_FB_DUP_KEYS : PgGpuFallbackFor(err.status),
						 err.message);
	return true;
}

bool
PgGpuCollectRowsSet(Relation rel, Snapshot snapshot, const pg_gpu_agg_task *plan_task,
					int settype, PgGpuSvcChannel *svc, PgGpuRowsSet *out, double *phase_ms,
					PgGpuFallback *reason, char *msg, size_t msglen)
{
	TakeRowsSet a = {settype, out};

	memset(out, 0, sizeof(*out));
	return run_table_task(rel, snapshot, plan_task, false, take_rows_set, &a, reason, msg, msglen,
						  svc, phase_ms);
}
