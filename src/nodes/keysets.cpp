/*
 * keysets.cpp — filling a task's key sets at run time (issue 5), for every node
 * whose task probes one (GpuAgg, GpuSort and the joins, over a table or a child
 * plan).
 *
 * A set's source (expr_compile.h) says where its keys come from: a constant
 * array (a long IN list), a child plan (a join's build side) or an uncorrelated
 * subplan, run once to the end, or a dictionary built beforehand (dict.cpp),
 * pinned while the task probes it.  A child plan or subplan that scans one table
 * the GPU reads carries a collect task: the keys are then collected from the
 * table's pages on the GPU (scan/table_task.cpp) and the plan runs only if
 * that fails.  Otherwise the keys are collected as the engine holds them
 * (integers as int64, text as bytes with offsets; NULLs never enter a set, but
 * are remembered for IN's three-valued answer), handed to the engine, which
 * builds the hash table on the GPU, and the task is pointed at it.  A
 * GpuHashJoin that outputs the build side keeps the child's rows too, in the
 * order of their keys' ordinals, chained by equal key (PgGpuSets.rows).  A
 * set whose source carries a rows task (a star join's dimension, a
 * GpuHashJoin's kept rows over one table) is filled from the groups the GPU
 * makes of the table's rows instead (keysets_rows.cpp).
 */
extern "C" {
#include "postgres.h"

#include "access/table.h"
#include "commands/explain.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "portability/instr_time.h"
#include "storage/bufmgr.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "pg_gpu.h"
#include "expr/expr_compile.h"
#include "expr/keybuf.h"
#include "nodes/keysets.h"
#include "nodes/keysets_int.h"
#include "dict/dict.h"
}

/* A constant array's elements. */
static void
collect_array(PgGpuKeyBuf *b, Const *arr)
{
	Oid			elemtype = get_element_type(arr->consttype);
	int16		elmlen;
	bool		elmbyval;
	char		elmalign;
	Datum	   *elems;
	bool	   *nulls;
	int			n;

	get_typlenbyvalalign(elemtype, &elmlen, &elmbyval, &elmalign);
	deconstruct_array(DatumGetArrayTypeP(arr->constvalue), elemtype, elmlen, elmbyval,
					  elmalign, &elems, &nulls, &n);
	for (int i = 0; i < n && PgGpuKeyBufAdd(b, elems[i], nulls[i]); i++)
		;
}

TupleTableSlot *
PgGpuPullKey(PlanState *ps, int resno, ExprState *key, ExprContext *econtext, Datum *d,
			 bool *isnull)
{
	TupleTableSlot *slot;

	CHECK_FOR_INTERRUPTS();
	slot = ExecProcNode(ps);
	if (TupIsNull(slot))
		return NULL;
	*d = (Datum) 0;
	*isnull = true;
	if (key != NULL)
	{
		ResetExprContext(econtext);
		econtext->ecxt_scantuple = slot;
		*d = ExecEvalExprSwitchContext(key, econtext, isnull);
	}
	else if (resno > 0)
		*d = slot_getattr(slot, resno, isnull);
	return slot;
}

static void *
grow_huge(void *p, Size bytes, MemoryContext cxt)
{
	return p ? repalloc_huge(p, bytes) : MemoryContextAllocHuge(cxt, bytes);
}

/* What is left of the keys' memory limit for the payload beside them. */
uint64
PgGpuKeyBufRoom(PgGpuKeyBuf *b)
{
	return b->limit - Min(b->limit, PgGpuKeyBufBytes(b));
}

/* Append value d (text or bpchar) to column j's bytes, in text_cxt. */
static void
payload_text(PgGpuPayloadBuf *pb, int j, Datum d, MemoryContext text_cxt)
{
	struct varlena *v = pg_detoast_datum_packed((struct varlena *) DatumGetPointer(d));
	uint64		len = VARSIZE_ANY_EXHDR(v);
	uint64		at = pb->toff[j][pb->ntext[j]];

	if (at + len > pb->tcap[j])
	{
		uint64		cap = Max(Max(pb->tcap[j] * 2, at + len), 8192);

		pb->tdata[j] = (char *) grow_huge(pb->tdata[j], cap, text_cxt);
		pb->bytes += cap - pb->tcap[j];
		pb->tcap[j] = cap;
	}
	memcpy(pb->tdata[j] + at, VARDATA_ANY(v), len);
	pb->toff[j][++pb->ntext[j]] = at + len;
	if ((Pointer) v != DatumGetPointer(d))
		pfree(v);
}

/*
 * One row's payload values (its key was not NULL); false when over the limit.
 * A text value's bytes are copied (detoasted) into text_cxt.
 */
bool
PgGpuPayloadValues(PgGpuPayloadBuf *pb, const Datum *vals, const bool *nulls, uint64 limit,
			   MemoryContext pay_cxt, MemoryContext text_cxt)
{
	if (pb->n == pb->cap)
	{
		int64		cap = Max(1024, 2 * pb->cap);

		for (int j = 0; j < pb->ncols; j++)
		{
			pb->vals[j] = (uint64 *) grow_huge(pb->vals[j], sizeof(uint64) * cap, pay_cxt);
			pb->nulls[j] = (uint8 *) grow_huge(pb->nulls[j], cap, pay_cxt);
			if (pb->type[j] == PG_GPU_TEXT || pb->type[j] == PG_GPU_BPCHAR)
			{
				pb->toff[j] = (uint64 *) grow_huge(pb->toff[j], sizeof(uint64) * (cap + 1),
												   text_cxt);
				if (pb->cap == 0)
					pb->toff[j][0] = 0;
			}
		}
		pb->bytes += (cap - pb->cap) * pb->ncols * (2 * sizeof(uint64) + 1);
		pb->cap = cap;
	}
	for (int j = 0; j < pb->ncols; j++)
	{
		bool		isnull = nulls[j];
		Datum		d = vals[j];
		uint64		w = 0;

		pb->nulls[j][pb->n] = isnull ? 1 : 0;
		if (isnull)
			;
		else if (pb->type[j] == PG_GPU_TEXT || pb->type[j] == PG_GPU_BPCHAR)
		{
			w = (uint64) pb->ntext[j];
			payload_text(pb, j, d, text_cxt);
		}
		else if (!PgGpuDatumWord(d, pb->type[j], &w))
			elog(ERROR, "pg_gpu: payload value of an unexpected type");
		pb->vals[j][pb->n] = w;
	}
	pb->n++;
	return pb->bytes <= limit;
}

/* The payload of a child plan's row: its columns after the key's (resno). */
static bool
payload_add(PgGpuPayloadBuf *pb, TupleTableSlot *slot, int resno, uint64 limit,
			MemoryContext pay_cxt, MemoryContext text_cxt)
{
	Datum		vals[PG_GPU_MAX_PAYLOAD];
	bool		nulls[PG_GPU_MAX_PAYLOAD];

	for (int j = 0; j < pb->ncols; j++)
		vals[j] = slot_getattr(slot, resno + 1 + j, &nulls[j]);
	return PgGpuPayloadValues(pb, vals, nulls, limit, pay_cxt, text_cxt);
}

/*
 * A text payload column's positions become codes: the position of the first
 * value equal to each (a key set of the values, built where the task runs,
 * answers that).
 */
static bool
payload_codes(PgGpuPayloadBuf *pb, int j, int emulate, PgGpuSvcChannel *svc,
			  PgGpuFallback *reason, char *msg, size_t msglen)
{
	int64		m = pb->ntext[j];
	const uint64 *off = pb->toff[j];
	const char *data = pb->tdata[j] ? pb->tdata[j] : "";
	int64	   *ord;
	pg_gpu_error err;
	pg_gpu_keyset *ks;

	if (m == 0)
		return true;
	if (svc != NULL)
	{
		/* the service's set: it codes the words when the payload comes */
		bool		ok = PgGpuServiceKeysetCodes(svc, j, pb->type[j], (uint64) m, data, off,
												 emulate != 0, &err);

		if (!ok)
		{
			*reason = PgGpuFallbackFor(err.status);
			strlcpy(msg, err.message, msglen);
		}
		return ok;
	}
	ord = (int64 *) MemoryContextAllocHuge(CurrentMemoryContext, sizeof(int64) * m);
	ks = pg_gpu_keyset_build(pb->type[j], (uint64) m, NULL, data, off, emulate, &err);
	if (ks == NULL || pg_gpu_keyset_ordinals(ks, ord, &err) != PG_GPU_OK)
	{
		pg_gpu_keyset_free(ks);
		*reason = PgGpuFallbackFor(err.status);
		strlcpy(msg, err.message, msglen);
		return false;
	}
	pg_gpu_keyset_free(ks);
	for (int64 r = 0; r < pb->n; r++)
		if (!pb->nulls[j][r])
			pb->vals[j][r] = (uint64) ord[pb->vals[j][r]];
	pfree(ord);
	return true;
}

/* The payload handed to set i's engine set, its text columns' values kept. */
static bool
payload_attach(PgGpuPayloadBuf *pb, PgGpuSets *sets, int i, int emulate,
			   PgGpuFallback *reason, char *msg, size_t msglen)
{
	uint64	   *vals;
	uint8	   *nulls;
	pg_gpu_error err;

	for (int j = 0; j < pb->ncols; j++)
	{
		if (pb->type[j] != PG_GPU_TEXT && pb->type[j] != PG_GPU_BPCHAR)
			continue;
		if (!payload_codes(pb, j, emulate, sets->svc, reason, msg, msglen))
			return false;
		sets->pay_text[i][j].data = pb->tdata[j] ? pb->tdata[j] : "";
		sets->pay_text[i][j].off = pb->toff[j];
	}
	/* no keys: the columns are still declared, and never read */
	vals = (uint64 *) MemoryContextAllocHuge(CurrentMemoryContext,
											 sizeof(uint64) * Max(pb->n * pb->ncols, 1));
	nulls = (uint8 *) MemoryContextAllocHuge(CurrentMemoryContext, Max(pb->n * pb->ncols, 1));
	for (int j = 0; j < pb->ncols && pb->n > 0; j++)
	{
		memcpy(vals + j * pb->n, pb->vals[j], sizeof(uint64) * pb->n);
		memcpy(nulls + j * pb->n, pb->nulls[j], pb->n);
	}
	if (sets->svc == NULL)
		for (int j = 0; j < pb->ncols; j++)
			sets->pay_distinct[i][j] = (int64) PgGpuDistinctWords(vals + j * pb->n,
																   nulls + j * pb->n,
																   (uint64) pb->n);
	if (sets->svc != NULL
		? !PgGpuServiceKeysetPayload(sets->svc, pb->ncols, (uint64) pb->n, vals, nulls,
									 &sets->svc_ref[i], sets->pay_distinct[i], &err)
		: pg_gpu_keyset_payload(sets->ks[i], pb->ncols, vals, nulls, &err) != PG_GPU_OK)
	{
		*reason = PgGpuFallbackFor(err.status);
		strlcpy(msg, err.message, msglen);
		return false;
	}
	pfree(vals);
	pfree(nulls);
	return true;
}

/*
 * Every row of a child plan: its column resno; with sets, also a copy of each
 * row whose key is not NULL (sets->rows), within the keys' memory limit.
 */
static void
collect_child(PgGpuKeyBuf *b, PlanState *ps, int resno, PgGpuSets *sets,
			  PgGpuPayloadBuf *pb = NULL)
{
	uint64		bytes = 0;
	int64		cap = 0;

	for (;;)
	{
		TupleTableSlot *slot;
		bool		isnull;
		Datum		d;

		if ((slot = PgGpuPullKey(ps, resno, NULL, NULL, &d, &isnull)) == NULL)
			break;
		if (!PgGpuKeyBufAdd(b, d, isnull))
			break;				/* the caller falls back */
		if (pb != NULL && !isnull &&
			!payload_add(pb, slot, resno, PgGpuKeyBufRoom(b), b->cxt, sets->pay_cxt))
		{
			b->full = true;		/* over pg_gpu.slot_sort_memory: the caller falls back */
			break;
		}
		if (sets == NULL || isnull || pb != NULL)
			continue;
		if (sets->nrows == cap)
		{
			cap = Max(1024, 2 * cap);
			sets->rows = (MinimalTuple *) (sets->rows
										   ? repalloc_huge(sets->rows, sizeof(MinimalTuple) * cap)
										   : MemoryContextAllocHuge(sets->rows_cxt,
																	sizeof(MinimalTuple) * cap));
		}
		MemoryContext old = MemoryContextSwitchTo(sets->rows_cxt);

		sets->rows[sets->nrows] = ExecCopySlotMinimalTuple(slot);
		MemoryContextSwitchTo(old);
		bytes += GetMemoryChunkSpace(sets->rows[sets->nrows++]) + sizeof(MinimalTuple);
		if (bytes + PgGpuKeyBufBytes(b) > b->limit)
		{
			b->full = true;		/* over pg_gpu.slot_sort_memory: the caller falls back */
			break;
		}
	}
}

/*
 * The kept rows' ordinals: for each row's key, the first row with an equal key
 * (the GPU's SET_ORD, less one), as the set built from them answers.
 */
static bool
rows_ordinals(PgGpuSets *sets, int i, PgGpuFallback *reason, char *msg, size_t msglen)
{
	pg_gpu_error err;

	Assert(sets->nrows == sets->keys[i]);
	sets->ord = (int64 *) MemoryContextAllocHuge(sets->rows_cxt,
												 sizeof(int64) * Max(sets->nrows, 1));
	if (sets->svc != NULL
		? !PgGpuServiceKeysetOrdinals(sets->svc, (uint64) sets->nrows, sets->ord, &err)
		: pg_gpu_keyset_ordinals(sets->ks[i], sets->ord, &err) != PG_GPU_OK)
	{
		*reason = PgGpuFallbackFor(err.status);
		strlcpy(msg, err.message, msglen);
		return false;
	}

	/* the rows of each key chained from its first, in the plan's order */
	int64		n = sets->nrows;
	int64	   *tail = (int64 *) MemoryContextAllocHuge(sets->rows_cxt, sizeof(int64) * Max(n, 1));

	sets->next = (int64 *) MemoryContextAllocHuge(sets->rows_cxt, sizeof(int64) * Max(n, 1));
	for (int64 r = 0; r < n; r++)
	{
		int64		o = sets->ord[r];

		sets->next[r] = -1;
		if (o == r)
			tail[r] = r;
		else
		{
			Assert(o >= 0 && o < r);
			sets->next[tail[o]] = r;
			tail[o] = r;
		}
	}
	pfree(tail);
	return true;
}

/*
 * Set i is built (sets->keys[i] and ref's NULL flags filled): point the task
 * at it.  False (with the reason) when the join needs unique keys and they are
 * not.
 */
static bool
set_ready(PgGpuSets *sets, int i, pg_gpu_set_ref *ref, bool unique, PgGpuFallback *reason,
		  char *msg, size_t msglen)
{
	sets->nbuilt = i + 1;
	if (sets->svc != NULL)
	{
		uint8		has_null = ref->has_null,
					nonempty = ref->nonempty;

		/* the service's set: its reference and distinct count came with it */
		*ref = sets->svc_ref[i];
		ref->has_null = has_null;
		ref->nonempty = nonempty;
	}
	else
	{
		sets->distinct[i] = (int64) pg_gpu_keyset_size(sets->ks[i]);
		pg_gpu_keyset_ref(sets->ks[i], ref);
	}
	if (unique && sets->distinct[i] != sets->keys[i])
	{
		*reason = PG_GPU_FB_DUP_KEYS;
		snprintf(msg, msglen, "the join's build side has %lld keys, %lld of them distinct",
				 (long long) sets->keys[i], (long long) sets->distinct[i]);
		return false;
	}
	return true;
}

/* Set i from keys the GPU collected (sets->ks[i] and the task's ref filled). */
static bool
collected_ready(PgGpuSets *sets, int i, pg_gpu_set_ref *ref, PgGpuCollected *col, bool unique,
				instr_time t0c, PgGpuFallback *reason, char *msg, size_t msglen)
{
	sets->collect_ms += PgGpuMsSince(t0c);
	sets->ks[i] = col->ks;
	if (sets->svc != NULL)
	{
		sets->svc_ref[i] = col->ref;
		sets->distinct[i] = (int64) col->distinct;
	}
	sets->n = i + 1;
	sets->gpu_collected[i] = true;
	sets->collect_pages[i] = col->pages;
	sets->collect_gpu_ms += col->gpu_ms;
	sets->keys[i] = (int64) col->keys;
	ref->has_null = col->has_null != 0;
	ref->nonempty = col->nonempty;
	return set_ready(sets, i, ref, unique, reason, msg, msglen);
}

/*
 * A CHILD or SUBPLAN source whose keys come from one table the GPU can scan
 * (its collect task src->task): collect them from its pages.  False when the
 * GPU could not (noted; the child plan or subplan then runs instead).
 */
static bool
collect_on_gpu(const PgGpuSetSource *src, EState *estate, PgGpuNode node, int settype,
			   PgGpuCollected *col, PgGpuSvcChannel *svc)
{
	Const	   *tc = src->task;
	Oid			relid = src->relid;
	pg_gpu_agg_task *task = (pg_gpu_agg_task *) VARDATA_ANY(DatumGetPointer(tc->constvalue));
	PgGpuFallback reason = PG_GPU_FB_UNSUPPORTED;
	char		msg[256] = "";
	Relation	rel;
	bool		ok;

	/* the plan's child scans it too: the executor holds its lock already */
	rel = table_open(relid, NoLock);
	ok = PgGpuCollectKeys(rel, estate->es_snapshot, task, settype, col, &reason, msg, sizeof(msg),
						  svc);
	table_close(rel, NoLock);
	if (!ok)
	{
		char		detail[300];

		snprintf(detail, sizeof(detail), "collecting the build side's keys: %s", msg);
		PgGpuNoteFallback(node, reason, detail);
	}
	return ok;
}

bool
PgGpuBuildSets(List *sources, List *children, EState *estate, PgGpuNode node,
			   pg_gpu_agg_task *task, PgGpuSets *sets, PgGpuFallback *reason, char *msg,
			   size_t msglen)
{
	/*
	 * The keys' buffers live in their own context (repalloc keeps them there);
	 * the child runs in the caller's, the query's, as the executor runs it.
	 */
	MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext, "pg_gpu key set",
											  ALLOCSET_DEFAULT_SIZES);
	uint64		limit = (uint64) pg_gpu_slot_sort_memory * 1024;
	instr_time	t0,
				t1;
	ListCell   *lc;
	int			i = 0;
	bool		ok = true;

	INSTR_TIME_SET_CURRENT(t0);
	PgGpuFreeSets(sets);
	if (sets->pay_cxt)
		MemoryContextReset(sets->pay_cxt);
	memset(sets->pay_text, 0, sizeof(sets->pay_text));
	for (int i = 0; i < PG_GPU_MAX_SETS; i++)
		for (int j = 0; j < PG_GPU_MAX_PAYLOAD; j++)
			sets->pay_distinct[i][j] = -1;
	sets->nbuilt = 0;
	sets->collect_ms = 0;
	sets->collect_gpu_ms = 0;
	memset(sets->gpu_collected, 0, sizeof(sets->gpu_collected));
	memset(sets->collect_pages, 0, sizeof(sets->collect_pages));
	memset(sets->rows_ms, 0, sizeof(sets->rows_ms));
	memset(sets->rows_groups, 0, sizeof(sets->rows_groups));
	foreach(lc, sources)
	{
		PgGpuSetSource src;
		int			kind;
		bool		unique = false;
		bool		keep_rows = false;
		PgGpuKeyBuf b;
		PgGpuPayloadBuf pb;
		PgGpuCollected col;
		pg_gpu_error err;
		pg_gpu_set_ref *ref = &task->sets[i];
		instr_time	t0c,
					tb;

		INSTR_TIME_SET_CURRENT(t0c);
		PgGpuSetSourceRead((List *) lfirst(lc), &src);
		kind = src.kind;
		memset(&pb, 0, sizeof(pb));
		if (kind == PG_GPU_SET_CHILD)
		{
			unique = src.unique->ival == 1;
			keep_rows = src.unique->ival == 2;
		}
		if (kind == PG_GPU_SET_DICT)
		{
			/* a dictionary: built already, pinned while this task probes it */
			sets->n = i + 1;
			if (!PgGpuDictPin(src.dict, task->emulate, ref, &sets->keys[i],
							  &sets->distinct[i], reason, msg, msglen))
			{
				ok = false;
				break;
			}
			strlcpy(sets->dict[i], src.dict, NAMEDATALEN);
			sets->nbuilt = i + 1;
			sets->set_ms[i] = PgGpuMsSince(t0c);
			i++;
			continue;
		}
		if (kind == PG_GPU_SET_CHILD && src.payload != NIL)
		{
			ListCell   *lt;

			if (sets->pay_cxt == NULL)
				sets->pay_cxt = AllocSetContextCreate(estate->es_query_cxt,
													  "pg_gpu star join payload",
													  ALLOCSET_DEFAULT_SIZES);
			foreach(lt, src.payload)
				pb.type[pb.ncols++] = lfirst_int(lt);
		}

		/*
		 * A star join's dimension whose key must be unique, every column a
		 * word: its key and payload collected where the GPU reads the table,
		 * the set made there, no row crossing to the backend.
		 */
		if (kind == PG_GPU_SET_CHILD && src.payload != NIL && src.task != NULL && unique &&
			PgGpuRowsAsCollect(&src, estate, sets, ref->type, &col))
		{
			if (!collected_ready(sets, i, ref, &col, unique, t0c, reason, msg, msglen))
			{
				ok = false;
				break;
			}
			for (int j = 0; j < list_length(src.payload); j++)
				sets->pay_distinct[i][j] = col.pay_distinct[j];
			sets->set_ms[i] = PgGpuMsSince(t0c);
			i++;
			continue;
		}

		/*
		 * A star join's dimension, its rows grouped on the GPU: each group's
		 * key and payload read, the plan never run (unless the GPU cannot).
		 */
		if (kind == PG_GPU_SET_CHILD && src.payload != NIL && src.task != NULL &&
			sets->svc != NULL)
		{
			bool		dup = false;

			if (PgGpuRowsInService(&src, estate, node, sets, i, ref, &pb, &dup))
			{
				sets->collect_ms += PgGpuMsSince(t0c);
				if (!set_ready(sets, i, ref, unique, reason, msg, msglen))
				{
					ok = false;
					break;
				}
				sets->set_ms[i] = PgGpuMsSince(t0c);
				i++;
				continue;
			}
			if (dup)
			{
				/* rows that repeat: their keys do too, so PostgreSQL joins */
				*reason = PG_GPU_FB_DUP_KEYS;
				strlcpy(msg, "the join's build side has rows that repeat", msglen);
				ok = false;
				break;
			}
		}
		else if (kind == PG_GPU_SET_CHILD && src.payload != NIL && src.task != NULL)
		{
			PlanState  *child = (PlanState *) list_nth(children, src.child);

			PgGpuKeyBufInit(&b, src.valtype, child->plan->plan_rows,
							child->plan->plan_width, limit, cxt);
			bool		dup = false;

			if (PgGpuRowsOnGpu(&src, estate, node, sets, i, &b, &pb, &dup))
			{
				sets->collect_ms += PgGpuMsSince(t0c);
				goto built;
			}
			if (dup)
			{
				/* rows that repeat: their keys do too, so PostgreSQL joins */
				*reason = PG_GPU_FB_DUP_KEYS;
				strlcpy(msg, "the join's build side has rows that repeat", msglen);
				ok = false;
				break;
			}
			/* what the GPU gave stays in pay_cxt until the next build */
			MemoryContextReset(cxt);
			pb.n = pb.cap = 0;
			pb.bytes = 0;
			memset(pb.vals, 0, sizeof(pb.vals));
			memset(pb.nulls, 0, sizeof(pb.nulls));
			memset(pb.tdata, 0, sizeof(pb.tdata));
			memset(pb.tcap, 0, sizeof(pb.tcap));
			memset(pb.toff, 0, sizeof(pb.toff));
			memset(pb.ntext, 0, sizeof(pb.ntext));
		}
		else if (keep_rows && src.task != NULL)
		{
			/*
			 * A GpuHashJoin's build rows, kept for its output, read from the
			 * build table by a rows task (keysets_rows.cpp); else the plan runs.
			 */
			PlanState  *child = (PlanState *) list_nth(children, src.child);

			PgGpuKeyBufInit(&b, src.valtype, child->plan->plan_rows,
							child->plan->plan_width, limit, cxt);
			sets->rows_cxt = AllocSetContextCreate(estate->es_query_cxt, "pg_gpu join rows",
												   ALLOCSET_DEFAULT_SIZES);
			if (PgGpuKeptRowsOnGpu(&src, child, estate, node, sets, i, &b) || b.full)
			{
				sets->collect_ms += PgGpuMsSince(t0c);
				goto built;
			}
			MemoryContextReset(cxt);
			MemoryContextDelete(sets->rows_cxt);
			sets->rows_cxt = NULL;
			sets->rows = NULL;
			sets->nrows = 0;
		}

		/*
		 * A child plan's or subplan's table read on the GPU: the plan itself
		 * never runs.
		 */
		if (src.task != NULL && src.payload == NIL && !keep_rows &&
			collect_on_gpu(&src, estate, node, ref->type, &col, sets->svc))
		{
			if (!collected_ready(sets, i, ref, &col, unique, t0c, reason, msg, msglen))
			{
				ok = false;
				break;
			}
			sets->set_ms[i] = PgGpuMsSince(t0c);
			i++;
			continue;
		}
		if (kind == PG_GPU_SET_ARRAY)
		{
			Const	   *arr = src.array;
			ArrayType  *a = DatumGetArrayTypeP(arr->constvalue);

			PgGpuKeyBufInit(&b, src.valtype, ArrayGetNItems(ARR_NDIM(a), ARR_DIMS(a)), 32,
							limit, cxt);
			collect_array(&b, arr);
		}
		else if (kind == PG_GPU_SET_SUBPLAN)
		{
			int			id = src.plan_id;
			PlanState  *sub = (id >= 1 && id <= list_length(estate->es_subplanstates))
				? (PlanState *) list_nth(estate->es_subplanstates, id - 1) : NULL;
			Bitmapset  *changed;

			if (sub == NULL)
			{
				/* not initialised here (a parallel worker, say): PostgreSQL runs it */
				*reason = PG_GPU_FB_UNSUPPORTED;
				strlcpy(msg, "the subquery's plan is not available", msglen);
				ok = false;
				break;
			}
			changed = bms_copy(sub->chgParam);

			/*
			 * From the start (PostgreSQL's own use of it rescans too), keeping the
			 * parameters changed since its last run marked as changed: should we
			 * fall back, PostgreSQL must not take a hash table it built before
			 * for still valid.
			 */
			ExecReScan(sub);
			PgGpuKeyBufInit(&b, src.valtype, sub->plan->plan_rows, sub->plan->plan_width,
							limit, cxt);
			collect_child(&b, sub, 1, NULL);
			sub->chgParam = bms_join(sub->chgParam, changed);
			sets->collect_ms += PgGpuMsSince(t0c);
		}
		else
		{
			PlanState  *child = (PlanState *) list_nth(children, src.child);

			PgGpuKeyBufInit(&b, src.valtype, child->plan->plan_rows,
							child->plan->plan_width, limit, cxt);
			if (keep_rows)
				sets->rows_cxt = AllocSetContextCreate(estate->es_query_cxt, "pg_gpu join rows",
													   ALLOCSET_DEFAULT_SIZES);
			if (src.aux != 0)
			{
				/* inner.b <> x: each key once, its least and greatest b beside it */
				(void) PgGpuMinMaxFromPlan(&b, &pb, child, src.resno, src.aux);
			}
			else
				collect_child(&b, child, src.resno, (keep_rows || pb.ncols > 0) ? sets : NULL,
							  pb.ncols > 0 ? &pb : NULL);
			sets->collect_ms += PgGpuMsSince(t0c);
		}
built:
		if (b.full)
		{
			*reason = PG_GPU_FB_SLOT_MEMORY;
			snprintf(msg, msglen, "the keys of a key set need more than pg_gpu.slot_sort_memory (%d kB)",
					 pg_gpu_slot_sort_memory);
			ok = false;
			break;
		}
		INSTR_TIME_SET_CURRENT(tb);
		if (sets->svc != NULL)
		{
			uint64		distinct = 0;

			/* the service's set (kept rows: their ordinals come from there) */
			sets->ks[i] = NULL;
			sets->n = i + 1;
			memset(&sets->svc_ref[i], 0, sizeof(sets->svc_ref[i]));
			if (!PgGpuServiceKeysetBuild(sets->svc, ref->type, (uint64) b.n, b.vals, b.data,
										 b.off, task->emulate != 0, &sets->svc_ref[i],
										 &distinct, &err))
			{
				*reason = PgGpuFallbackFor(err.status);
				strlcpy(msg, err.message, msglen);
				ok = false;
				break;
			}
			sets->distinct[i] = (int64) distinct;
		}
		else
		{
			sets->ks[i] = pg_gpu_keyset_build(ref->type, (uint64) b.n, b.vals, b.data, b.off,
											  task->emulate, &err);
			sets->n = i + 1;
		}
		if (sets->svc == NULL && sets->ks[i] == NULL)
		{
			*reason = PgGpuFallbackFor(err.status);
			strlcpy(msg, err.message, msglen);
			ok = false;
			break;
		}
		sets->keys[i] = b.n;
		ref->has_null = b.has_null;
		ref->nonempty = b.nonempty;
		Assert(pb.ncols == 0 || pb.n == b.n);
		sets->rows_ms[i][4] = PgGpuMsSince(tb);
		INSTR_TIME_SET_CURRENT(tb);
		if ((pb.ncols > 0 &&
			 !payload_attach(&pb, sets, i, task->emulate, reason, msg, msglen)) ||
			!set_ready(sets, i, ref, unique, reason, msg, msglen) ||
			(keep_rows && !rows_ordinals(sets, i, reason, msg, msglen)))
		{
			ok = false;
			break;
		}
		sets->rows_ms[i][5] = PgGpuMsSince(tb);
		MemoryContextReset(cxt);
		sets->set_ms[i] = PgGpuMsSince(t0c);
		i++;
	}
	MemoryContextDelete(cxt);
	INSTR_TIME_SET_CURRENT(t1);
	INSTR_TIME_SUBTRACT(t1, t0);
	sets->build_ms = INSTR_TIME_GET_MILLISEC(t1);
	if (!ok)
		PgGpuFreeSets(sets);
	return ok;
}

bool
PgGpuSetsParallelSafe(List *sources, List *children, EState *estate)
{
	ListCell   *lc;

	foreach(lc, sources)
	{
		PgGpuSetSource src;
		Plan	   *plan;

		PgGpuSetSourceRead((List *) lfirst(lc), &src);
		if (src.kind == PG_GPU_SET_ARRAY || src.kind == PG_GPU_SET_DICT)
			continue;
		if (src.task == NULL)
			return false;		/* no collect task: the plan runs */
		if (src.kind == PG_GPU_SET_CHILD)
			plan = ((PlanState *) list_nth(children, src.child))->plan;
		else
		{
			int			id = src.plan_id;
			List	   *subplans = estate->es_plannedstmt->subplans;

			if (id < 1 || id > list_length(subplans))
				return false;
			plan = (Plan *) list_nth(subplans, id - 1);
		}
		if (plan == NULL || !plan->parallel_safe)
			return false;
	}
	return true;
}

/*
 * Whether a set's keys are collected from a table of at least min_pages pages:
 * such a build scan starts pin workers of its own (run_table_task), and a probe
 * scan's workers started before it would take the pool's slots from it.  TPC-H
 * Q4 at SF 10 on the H200 (max_parallel_workers 16, pg_gpu.pin_workers 12):
 * with orders' 12 workers started first, collecting lineitem's 37.9 M keys
 * from 1.12 M pages took 727 ms; the same set built under no early workers
 * (Q21's anti join) took 324 ms.
 */
bool
PgGpuSetsScanLarge(List *sources, BlockNumber min_pages)
{
	ListCell   *lc;

	foreach(lc, sources)
	{
		PgGpuSetSource src;
		Relation	rel;
		BlockNumber nblocks;

		PgGpuSetSourceRead((List *) lfirst(lc), &src);
		if ((src.kind != PG_GPU_SET_CHILD && src.kind != PG_GPU_SET_SUBPLAN) ||
			src.task == NULL || !OidIsValid(src.relid))
			continue;
		/* the plan holds the table's lock */
		rel = table_open(src.relid, NoLock);
		nblocks = RelationGetNumberOfBlocks(rel);
		table_close(rel, NoLock);
		if (nblocks >= min_pages)
			return true;
	}
	return false;
}

bool
PgGpuSetsInService(List *sources)
{
	ListCell   *lc;

	foreach(lc, sources)
	{
		PgGpuSetSource src;

		PgGpuSetSourceRead((List *) lfirst(lc), &src);
		if (src.kind == PG_GPU_SET_DICT)
			return false;
	}
	return true;
}

void
PgGpuFreeSets(PgGpuSets *sets)
{
	/* the service's sets: dropped there now */
	if (sets->svc != NULL && sets->n > 0)
		PgGpuServiceKeysetsFree(sets->svc);
	for (int i = 0; i < sets->n; i++)
	{
		pg_gpu_keyset *ks = sets->ks[i];

		sets->ks[i] = NULL;
		pg_gpu_keyset_free(ks);
		if (sets->dict[i][0] != '\0')
			PgGpuDictUnpin(sets->dict[i]);
		sets->dict[i][0] = '\0';
	}
	sets->n = 0;
	if (sets->rows_cxt)
		MemoryContextDelete(sets->rows_cxt);
	sets->rows_cxt = NULL;
	sets->rows = NULL;
	sets->ord = NULL;
	sets->next = NULL;
	sets->nrows = 0;
}

void
PgGpuExplainSets(List *sources, const PgGpuSets *sets, bool analyze, ExplainState *es)
{
	ListCell   *lc;
	int			i = 0;

	foreach(lc, sources)
	{
		PgGpuSetSource src;
		StringInfoData buf;

		PgGpuSetSourceRead((List *) lfirst(lc), &src);
		initStringInfo(&buf);
		if (src.kind == PG_GPU_SET_ARRAY)
			appendStringInfoString(&buf, "IN list");
		else if (src.kind == PG_GPU_SET_SUBPLAN)
			appendStringInfo(&buf, "IN (SubPlan %d)", src.plan_id);
		else if (src.kind == PG_GPU_SET_DICT)
			appendStringInfo(&buf, "dictionary %s", quote_identifier(src.dict));
		else
			appendStringInfoString(&buf, strVal(src.label));
		if (analyze && i < sets->nbuilt)
		{
			appendStringInfo(&buf, " (%lld keys, %lld distinct", (long long) sets->keys[i],
							 (long long) sets->distinct[i]);
			if (sets->gpu_collected[i] && src.kind == PG_GPU_SET_CHILD && src.unique->ival == 2)
			{
				/* a GpuHashJoin's build rows, grouped by a rows task */
				appendStringInfo(&buf, ", rows collected on the GPU from %lld pages as %lld distinct",
								 (long long) sets->collect_pages[i],
								 (long long) sets->rows_groups[i]);
			}
			else if (sets->gpu_collected[i])
				appendStringInfo(&buf, ", collected on the GPU from %lld pages",
								 (long long) sets->collect_pages[i]);
			if (es->timing)
				appendStringInfo(&buf, ", %.3f ms", sets->set_ms[i]);
			if (es->timing && sets->rows_ms[i][0] + sets->rows_ms[i][1] > 0)
			{
				const double *r = sets->rows_ms[i];

				/* a dimension's rows task, then the set built from its rows */
				appendStringInfo(&buf, ": rows task %.3f begin, %.3f pages, %.3f finish, %.3f rows",
								 r[0], r[1], r[2], r[3]);
				if (r[4] + r[5] > 0)
					appendStringInfo(&buf, "; set %.3f, payload %.3f", r[4], r[5]);
				else
					appendStringInfoString(&buf, " (the set built in the GPU service)");
			}
			appendStringInfoChar(&buf, ')');
		}
		ExplainPropertyText("Key Set", buf.data, es);
		i++;
	}
	if (analyze && sets->nbuilt > 0)
	{
		ExplainPropertyFloat("Key Set Build Time", "ms", sets->build_ms, 3, es);
		ExplainPropertyFloat("Key Set Collect Time", "ms", sets->collect_ms, 3, es);
		if (sets->collect_gpu_ms > 0)
			ExplainPropertyFloat("Key Set GPU Time", "ms", sets->collect_gpu_ms, 3, es);
	}
}
