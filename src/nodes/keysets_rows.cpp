/*
 * keysets_rows.cpp — key sets from rows tasks (PgGpuRowsTask): a table's
 * passing rows grouped on the GPU by (key, columns), so that the host copies
 * only the groups' values and the build side's plan never runs.
 *
 * A star join's dimension (GpuAgg) reads each group as one row: its key and
 * payload words (PgGpuRowsOnGpu, or in the GPU service PgGpuRowsInService);
 * rows that repeat make PostgreSQL join, since an inner join's keys must be
 * unique there.  A GpuHashJoin that outputs the build side's columns
 * (PgGpuKeptRowsOnGpu) makes each group a row of its build plan's type and
 * keeps it as many times as the group has rows: a build side that repeats
 * keys, or whole rows, pairs each probe row with every one of them, as
 * PostgreSQL's join does.  Should the GPU give the task back, the plan runs
 * (keysets.cpp).
 */
extern "C" {
#include "postgres.h"

#include "access/htup_details.h"
#include "access/table.h"
#include "commands/explain.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "utils/memutils.h"

#include "pg_gpu.h"
#include "expr/expr_compile.h"
#include "expr/keybuf.h"
#include "nodes/keysets.h"
#include "nodes/keysets_int.h"
#include "scan/heap_reader.h"
}


/* A star join's dimension rows grouped on the GPU (PgGpuRowsTask): each group one row. */
typedef struct PgGpuRowsArg
{
	PgGpuKeyBuf *b;
	PgGpuPayloadBuf *pb;
	int			keytype;		/* the key's value type */
	MemoryContext text_cxt;
	PgGpuFallback *reason;
	char	   *msg;
	size_t		msglen;
} PgGpuRowsArg;

static bool
rows_group(void *arg, const uint64 *keys, uint32 nullmask, int64 rows)
{
	PgGpuRowsArg *a = (PgGpuRowsArg *) arg;
	Datum		vals[PG_GPU_MAX_PAYLOAD];
	bool		nulls[PG_GPU_MAX_PAYLOAD];

	if (nullmask & 1)
	{
		/* a NULL key joins nothing, however many rows have it */
		a->b->nonempty = true;
		a->b->has_null = true;
		return true;
	}
	if (rows > 1)
	{
		/* equal rows: their keys repeat, which the join must count */
		*a->reason = PG_GPU_FB_DUP_KEYS;
		snprintf(a->msg, a->msglen, "the join's build side has %lld equal rows",
				 (long long) rows);
		return false;
	}
	if (!PgGpuKeyBufAdd(a->b, PgGpuWordDatum(keys[0], a->keytype), false))
		goto full;
	for (int j = 0; j < a->pb->ncols; j++)
	{
		nulls[j] = (nullmask >> (j + 1)) & 1;
		vals[j] = nulls[j] ? (Datum) 0 : PgGpuWordDatum(keys[j + 1], a->pb->type[j]);
	}
	if (PgGpuPayloadValues(a->pb, vals, nulls, PgGpuKeyBufRoom(a->b), a->b->cxt, a->text_cxt))
		return true;
full:
	*a->reason = PG_GPU_FB_SLOT_MEMORY;
	snprintf(a->msg, a->msglen, "the keys of a key set need more than pg_gpu.slot_sort_memory (%d kB)",
			 pg_gpu_slot_sort_memory);
	return false;
}


/*
 * The build table's passing rows grouped on the GPU (its rows task), each group
 * handed to fn; the pages read and the GPU's time counted for EXPLAIN.  False
 * with *reason and msg set when the GPU could not, or fn stopped.
 */
static bool
collect_build_groups(const PgGpuSetSource *src, EState *estate, PgGpuSets *sets, int i,
					 const pg_gpu_agg_task *task, PgGpuGroupFn fn, void *arg,
					 PgGpuFallback *reason, char *msg, size_t msglen)
{
	Relation	rel;
	bool		ok;
	int64		pages = 0;
	double		gpu_ms = 0;

	/* the plan's child scans it too: the executor holds its lock already */
	rel = table_open(src->relid, NoLock);
	ok = PgGpuCollectGroups(rel, estate->es_snapshot, task, fn, arg, &pages, &gpu_ms,
							reason, msg, msglen, sets->rows_ms[i]);
	table_close(rel, NoLock);
	if (ok)
	{
		sets->gpu_collected[i] = true;
		sets->collect_pages[i] = pages;
		sets->collect_gpu_ms += gpu_ms;
	}
	return ok;
}

/* A rows task the GPU gave back: noted, and the build plan runs instead. */
static void
note_rows_fallback(PgGpuNode node, PgGpuFallback reason, const char *msg)
{
	char		detail[300];

	snprintf(detail, sizeof(detail), "reading the build side's rows: %s", msg);
	PgGpuNoteFallback(node, reason, detail);
}

bool
PgGpuRowsAsCollect(const PgGpuSetSource *src, EState *estate, PgGpuSets *sets, int settype,
				   PgGpuCollected *col)
{
	const pg_gpu_agg_task *rt = (const pg_gpu_agg_task *)
		VARDATA_ANY(DatumGetPointer(src->task->constvalue));
	int			npay = list_length(src->payload);
	auto		int_word = [](int t) {
		return t == PG_GPU_INT2 || t == PG_GPU_INT4 || t == PG_GPU_INT8 || t == PG_GPU_DATE ||
			t == PG_GPU_TIMESTAMP;
	};
	PgGpuFallback reason = PG_GPU_FB_UNSUPPORTED;
	char		msg[256] = "";
	pg_gpu_agg_task *task;
	Relation	rel;
	bool		ok;

	if (npay < 1 || npay >= PG_GPU_MAX_KEYS || rt->nkeys != npay + 1 || rt->ninputs > 0 ||
		rt->sort || rt->collect || settype != PG_GPU_INT8 || !int_word(rt->keys[0].type))
		return false;
	for (int j = 0; j < npay; j++)
	{
		int			t = rt->keys[j + 1].type;

		if (t != list_nth_int(src->payload, j) || !(int_word(t) || t == PG_GPU_BOOL))
			return false;
	}
	task = (pg_gpu_agg_task *) palloc(sizeof(pg_gpu_agg_task));
	memcpy(task, rt, sizeof(pg_gpu_agg_task));
	task->collect = 1;
	task->collect_pay = npay;
	task->collect_hint = rt->groups_hint;
	task->groups_hint = 0;
	/* the plan's child scans it too: the executor holds its lock already */
	rel = table_open(src->relid, NoLock);
	ok = PgGpuCollectKeys(rel, estate->es_snapshot, task, settype, col, &reason, msg, sizeof(msg),
						  sets->svc);
	table_close(rel, NoLock);
	pfree(task);
	return ok;
}

/*
 * A CHILD source with a payload and a rows task: the dimension's rows grouped
 * on the GPU into the key and payload buffers.  False when the GPU could not
 * (noted; the child plan then runs instead), or with *dup when rows repeat.
 */
bool
PgGpuRowsOnGpu(const PgGpuSetSource *src, EState *estate, PgGpuNode node, PgGpuSets *sets, int i,
			PgGpuKeyBuf *b, PgGpuPayloadBuf *pb, bool *dup)
{
	pg_gpu_agg_task *task = (pg_gpu_agg_task *) VARDATA_ANY(DatumGetPointer(src->task->constvalue));
	PgGpuFallback reason = PG_GPU_FB_UNSUPPORTED;
	char		msg[256] = "";
	PgGpuRowsArg arg;

	arg.b = b;
	arg.pb = pb;
	arg.keytype = task->keys[0].type;
	arg.text_cxt = sets->pay_cxt;
	arg.reason = &reason;
	arg.msg = msg;
	arg.msglen = sizeof(msg);
	if (collect_build_groups(src, estate, sets, i, task, rows_group, &arg, &reason, msg,
							 sizeof(msg)))
		return true;
	if (reason == PG_GPU_FB_DUP_KEYS)
		*dup = true;
	else
		note_rows_fallback(node, reason, msg);
	return false;
}

/*
 * A CHILD source with a payload and a rows task, its sets in the GPU service:
 * the rows task runs on the set's channel and its groups become the set there
 * (PgGpuCollectRowsSet); only the text columns' distinct values come back, for
 * the groups' keys.  False when the GPU could not (noted; the child plan then
 * runs instead), or with *dup when rows repeat.
 */
bool
PgGpuRowsInService(const PgGpuSetSource *src, EState *estate, PgGpuNode node, PgGpuSets *sets,
				int i, pg_gpu_set_ref *ref, const PgGpuPayloadBuf *pb, bool *dup)
{
	pg_gpu_agg_task *task = (pg_gpu_agg_task *) VARDATA_ANY(DatumGetPointer(src->task->constvalue));
	PgGpuFallback reason = PG_GPU_FB_UNSUPPORTED;
	char		msg[256] = "";
	PgGpuRowsSet rs;
	pg_gpu_error err;
	Relation	rel;
	bool		ok;

	/* the task's keys: the set's key, then the payload's columns */
	if (task->nkeys != pb->ncols + 1)
		return false;
	for (int j = 0; j < pb->ncols; j++)
		if (task->keys[j + 1].type != pb->type[j])
			return false;
	/* the plan's child scans it too: the executor holds its lock already */
	rel = table_open(src->relid, NoLock);
	ok = PgGpuCollectRowsSet(rel, estate->es_snapshot, task, ref->type, sets->svc, &rs,
							 sets->rows_ms[i], &reason, msg, sizeof(msg));
	table_close(rel, NoLock);
	if (!ok && (rs.dup_rows > 0 || reason == PG_GPU_FB_DUP_KEYS))
	{
		*dup = true;
		return false;
	}
	sets->n = i + 1;			/* a set of the channel, freed with the others */
	sets->ks[i] = NULL;
	for (int j = 0; ok && j < pb->ncols; j++)
	{
		char	   *data = NULL;
		uint64	   *off = NULL;

		sets->pay_distinct[i][j] = rs.pay_distinct[j];
		if (pb->type[j] != PG_GPU_TEXT && pb->type[j] != PG_GPU_BPCHAR)
			continue;
		if (!PgGpuServiceKeysetTexts(sets->svc, j, rs.pay_distinct[j], sets->pay_cxt, &data, &off,
									 &err))
		{
			reason = PgGpuFallbackFor(err.status);
			strlcpy(msg, err.message, sizeof(msg));
			ok = false;
		}
		sets->pay_text[i][j].data = data;
		sets->pay_text[i][j].off = off;
	}
	if (!ok)
	{
		char		detail[300];

		sets->n = i;
		snprintf(detail, sizeof(detail), "reading the build side's rows: %s", msg);
		PgGpuNoteFallback(node, reason, detail);
		return false;
	}
	sets->svc_ref[i] = rs.ref;
	sets->distinct[i] = (int64) rs.distinct;
	sets->keys[i] = (int64) rs.keys;
	sets->gpu_collected[i] = true;
	sets->collect_pages[i] = rs.pages;
	sets->collect_gpu_ms += rs.gpu_ms;
	ref->has_null = rs.has_null != 0;
	ref->nonempty = rs.nonempty;
	return true;
}

/* A GpuHashJoin's build rows grouped on the GPU: each group a row, kept once per row it had. */
typedef struct PgGpuKeptArg
{
	PgGpuKeyBuf *b;
	PgGpuSets  *sets;
	TupleDesc	desc;			/* the build plan's rows: the key, then the columns */
	const pg_gpu_agg_task *task;
	int64		cap;			/* of sets->rows */
	uint64		bytes;			/* the rows and their pointers */
	int64		groups;
} PgGpuKeptArg;

static bool
kept_group(void *arg, const uint64 *keys, uint32 nullmask, int64 rows)
{
	PgGpuKeptArg *a = (PgGpuKeptArg *) arg;
	PgGpuSets  *sets = a->sets;
	Datum		vals[PG_GPU_MAX_KEYS];
	bool		nulls[PG_GPU_MAX_KEYS];
	MinimalTuple tup;
	MemoryContext old;

	if (nullmask & 1)
	{
		/* a NULL key joins nothing, however many rows have it */
		return PgGpuKeyBufAdd(a->b, (Datum) 0, true);
	}
	for (int c = 0; c < a->task->nkeys; c++)
	{
		nulls[c] = (nullmask >> c) & 1;
		vals[c] = nulls[c] ? (Datum) 0 : PgGpuWordDatum(keys[c], a->task->keys[c].type);
	}
	old = MemoryContextSwitchTo(sets->rows_cxt);
	tup = heap_form_minimal_tuple(a->desc, vals, nulls);
	MemoryContextSwitchTo(old);
	a->bytes += GetMemoryChunkSpace(tup);
	a->groups++;

	/* the group's rows: the same tuple, and its key, once for each */
	for (int64 r = 0; r < rows; r++)
	{
		if (sets->nrows == a->cap)
		{
			int64		cap = Max(1024, 2 * a->cap);

			sets->rows = (MinimalTuple *) (sets->rows
										   ? repalloc_huge(sets->rows, sizeof(MinimalTuple) * cap)
										   : MemoryContextAllocHuge(sets->rows_cxt,
																	sizeof(MinimalTuple) * cap));
			a->bytes += (cap - a->cap) * sizeof(MinimalTuple);
			a->cap = cap;
		}
		if (!PgGpuKeyBufAdd(a->b, vals[0], false))
			return false;		/* b->full: the caller falls back */
		sets->rows[sets->nrows++] = tup;
		if (a->bytes + PgGpuKeyBufBytes(a->b) > a->b->limit)
		{
			a->b->full = true;	/* over pg_gpu.slot_sort_memory */
			return false;
		}
	}
	return true;
}

bool
PgGpuKeptRowsOnGpu(const PgGpuSetSource *src, PlanState *child, EState *estate, PgGpuNode node,
				   PgGpuSets *sets, int i, PgGpuKeyBuf *b)
{
	pg_gpu_agg_task *task = (pg_gpu_agg_task *) VARDATA_ANY(DatumGetPointer(src->task->constvalue));
	TupleDesc	desc = ExecGetResultType(child);
	PgGpuFallback reason = PG_GPU_FB_UNSUPPORTED;
	char		msg[256] = "";
	PgGpuKeptArg arg;

	/* the task's keys are the build plan's columns, value for value */
	if (task->nkeys != desc->natts || task->nkeys > PG_GPU_MAX_KEYS)
		return false;
	for (int c = 0; c < desc->natts; c++)
		if (PgGpuValueType(TupleDescAttr(desc, c)->atttypid) != task->keys[c].type)
			return false;
	memset(&arg, 0, sizeof(arg));
	arg.b = b;
	arg.sets = sets;
	arg.desc = desc;
	arg.task = task;
	if (!collect_build_groups(src, estate, sets, i, task, kept_group, &arg, &reason, msg,
							  sizeof(msg)))
	{
		/* rows past the memory cap: the plan's would not fit either, the caller fails */
		if (!b->full)
			note_rows_fallback(node, reason, msg);
		return false;
	}
	sets->rows_groups[i] = arg.groups;
	return true;
}
