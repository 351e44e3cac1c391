/*
 * keysets.cpp — filling a task's key sets at run time (issue 5).
 *
 * A set's keys come from a constant array (a long IN list) or from a child plan
 * (a join's build side), run once to the end.  The keys are collected as the
 * engine holds them (integers as int64, text as bytes with offsets; NULLs never
 * enter a set, but are remembered for IN's three-valued answer), handed to the
 * engine, which builds the hash table on the GPU, and the task is pointed at it.
 */
extern "C" {
#include "postgres.h"

#include "access/table.h"
#include "commands/explain.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "portability/instr_time.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "pg_gpu.h"
#include "expr/expr_compile.h"
#include "nodes/keysets.h"
#include "dict/dict.h"
}

/* A copy of p (used bytes) in newsize bytes, or NULL with p kept. */
static void *
grow(MemoryContext cxt, void *p, Size used, Size newsize)
{
	void	   *q = MemoryContextAllocExtended(cxt, newsize, MCXT_ALLOC_HUGE | MCXT_ALLOC_NO_OOM);

	if (q == NULL)
		return NULL;
	if (p)
	{
		memcpy(q, p, used);
		pfree(p);
	}
	return q;
}

/* Bytes the buffers hold. */
static uint64
keybuf_bytes(const PgGpuKeyBuf *b)
{
	return b->text ? b->dcap + sizeof(uint64) * (b->cap + 1) : sizeof(int64) * b->cap;
}

void
PgGpuKeyBufInit(PgGpuKeyBuf *b, int valtype, double rows, int width, uint64 limit,
				MemoryContext cxt)
{
	rows = Min(Max(rows * 1.1, 1024.0), 1e6);
	memset(b, 0, sizeof(*b));
	b->cxt = cxt;
	b->limit = limit;
	b->valtype = valtype;
	b->text = (valtype == PG_GPU_TEXT || valtype == PG_GPU_BPCHAR);
	b->cap = (int64) rows;
	if (b->text)
	{
		b->off = (uint64 *) grow(cxt, NULL, 0, sizeof(uint64) * (b->cap + 1));
		b->dcap = (uint64) (rows * Min(Max(width, 8), 64));
		b->data = (char *) grow(cxt, NULL, 0, b->dcap);
		b->full = (b->off == NULL || b->data == NULL);
		if (b->off)
			b->off[0] = 0;
	}
	else
	{
		b->vals = (int64 *) grow(cxt, NULL, 0, sizeof(int64) * b->cap);
		b->full = (b->vals == NULL);
	}
}

/* The keys no longer fit: collecting stops, the caller falls back. */
static bool
keybuf_full(PgGpuKeyBuf *b)
{
	b->full = true;
	return false;
}

bool
PgGpuKeyBufAdd(PgGpuKeyBuf *b, Datum d, bool isnull)
{
	uint64		limit = b->limit;

	if (b->full)
		return false;
	b->nonempty = true;
	if (isnull)
	{
		b->has_null = true;
		return true;
	}
	if (b->n == b->cap)
	{
		void	   *p;

		if (keybuf_bytes(b) * 2 > limit)
			return keybuf_full(b);
		if (b->text)
			p = grow(b->cxt, b->off, sizeof(uint64) * (b->n + 1), sizeof(uint64) * (2 * b->cap + 1));
		else
			p = grow(b->cxt, b->vals, sizeof(int64) * b->n, sizeof(int64) * 2 * b->cap);
		if (p == NULL)
			return keybuf_full(b);
		if (b->text)
			b->off = (uint64 *) p;
		else
			b->vals = (int64 *) p;
		b->cap *= 2;
	}
	if (!b->text)
	{
		uint64		bits;

		if (!PgGpuDatumWord(d, b->valtype, &bits))
			elog(ERROR, "pg_gpu: key set value of an unexpected type");
		b->vals[b->n++] = (int64) bits;
		return true;
	}

	struct varlena *v = (struct varlena *) DatumGetPointer(d);
	struct varlena *plain = pg_detoast_datum_packed(v);
	uint64		len = VARSIZE_ANY_EXHDR(plain);

	if (b->dlen + len > b->dcap)
	{
		uint64		cap = b->dcap;
		char	   *p;

		while (b->dlen + len > cap)
			cap *= 2;
		if (keybuf_bytes(b) + (cap - b->dcap) > limit ||
			(p = (char *) grow(b->cxt, b->data, b->dlen, cap)) == NULL)
		{
			if (plain != v)
				pfree(plain);
			return keybuf_full(b);
		}
		b->data = p;
		b->dcap = cap;
	}
	memcpy(b->data + b->dlen, VARDATA_ANY(plain), len);
	b->dlen += len;
	b->off[++b->n] = b->dlen;
	if (plain != v)
		pfree(plain);
	return true;
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

/*
 * Every row of a child plan: its column resno; with sets, also a copy of each
 * row whose key is not NULL (sets->rows), within the keys' memory limit.
 */
static void
collect_child(PgGpuKeyBuf *b, PlanState *ps, int resno, PgGpuSets *sets)
{
	uint64		bytes = 0;
	int64		cap = 0;

	for (;;)
	{
		TupleTableSlot *slot;
		bool		isnull;
		Datum		d;

		CHECK_FOR_INTERRUPTS();
		slot = ExecProcNode(ps);
		if (TupIsNull(slot))
			break;
		d = slot_getattr(slot, resno, &isnull);
		if (!PgGpuKeyBufAdd(b, d, isnull))
			break;				/* the caller falls back */
		if (sets == NULL || isnull)
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
		if (bytes + keybuf_bytes(b) > b->limit)
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
	if (pg_gpu_keyset_ordinals(sets->ks[i], sets->ord, &err) != PG_GPU_OK)
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

/* Milliseconds since t0. */
static double
ms_since(instr_time t0)
{
	instr_time	t;

	INSTR_TIME_SET_CURRENT(t);
	INSTR_TIME_SUBTRACT(t, t0);
	return INSTR_TIME_GET_MILLISEC(t);
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
	sets->distinct[i] = (int64) pg_gpu_keyset_size(sets->ks[i]);
	sets->nbuilt = i + 1;
	pg_gpu_keyset_ref(sets->ks[i], ref);
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
	sets->collect_ms += ms_since(t0c);
	sets->ks[i] = col->ks;
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
 * (its collect task at position at): collect them from its pages.  False when
 * the GPU could not (noted; the child plan or subplan then runs instead).
 */
static bool
collect_on_gpu(List *src, int at, EState *estate, PgGpuNode node, int settype,
			   PgGpuCollected *col)
{
	Const	   *tc = (Const *) list_nth(src, at);
	Oid			relid = (Oid) intVal(list_nth(src, at + 1));
	pg_gpu_agg_task *task = (pg_gpu_agg_task *) VARDATA_ANY(DatumGetPointer(tc->constvalue));
	PgGpuFallback reason;
	char		msg[256];
	Relation	rel;
	bool		ok;

	/* the plan's child scans it too: the executor holds its lock already */
	rel = table_open(relid, NoLock);
	ok = PgGpuCollectKeys(rel, estate->es_snapshot, task, settype, col, &reason, msg, sizeof(msg));
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
	sets->nbuilt = 0;
	sets->collect_ms = 0;
	sets->collect_gpu_ms = 0;
	memset(sets->gpu_collected, 0, sizeof(sets->gpu_collected));
	memset(sets->collect_pages, 0, sizeof(sets->collect_pages));
	foreach(lc, sources)
	{
		List	   *src = (List *) lfirst(lc);
		int			kind = intVal(linitial(src));
		bool		unique = false;
		bool		keep_rows = false;
		PgGpuKeyBuf b;
		PgGpuCollected col;
		pg_gpu_error err;
		pg_gpu_set_ref *ref = &task->sets[i];
		instr_time	t0c;

		INSTR_TIME_SET_CURRENT(t0c);
		if (kind == PG_GPU_SET_DICT)
		{
			/* a dictionary: built already, pinned while this task probes it */
			sets->n = i + 1;
			if (!PgGpuDictPin(strVal(lsecond(src)), task->emulate, ref, &sets->keys[i],
							  &sets->distinct[i], reason, msg, msglen))
			{
				ok = false;
				break;
			}
			strlcpy(sets->dict[i], strVal(lsecond(src)), NAMEDATALEN);
			sets->nbuilt = i + 1;
			i++;
			continue;
		}
		if (kind == PG_GPU_SET_ARRAY)
		{
			Const	   *arr = (Const *) lsecond(src);
			ArrayType  *a = DatumGetArrayTypeP(arr->constvalue);

			PgGpuKeyBufInit(&b, intVal(lthird(src)), ArrayGetNItems(ARR_NDIM(a), ARR_DIMS(a)), 32,
							limit, cxt);
			collect_array(&b, arr);
		}
		else if (kind == PG_GPU_SET_SUBPLAN && list_length(src) > PG_GPU_SUBPLAN_TASK &&
				 collect_on_gpu(src, PG_GPU_SUBPLAN_TASK, estate, node, ref->type, &col))
		{
			/* the subplan's table read on the GPU: the subplan itself never runs */
			if (!collected_ready(sets, i, ref, &col, false, t0c, reason, msg, msglen))
			{
				ok = false;
				break;
			}
			i++;
			continue;
		}
		else if (kind == PG_GPU_SET_SUBPLAN)
		{
			int			id = intVal(lsecond(src));
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
			PgGpuKeyBufInit(&b, intVal(lthird(src)), sub->plan->plan_rows, sub->plan->plan_width,
							limit, cxt);
			collect_child(&b, sub, 1, NULL);
			sub->chgParam = bms_join(sub->chgParam, changed);
			sets->collect_ms += ms_since(t0c);
		}
		else
		{
			PlanState  *child = (PlanState *) list_nth(children, intVal(lsecond(src)));

			unique = intVal(list_nth(src, 4)) == 1;
			keep_rows = intVal(list_nth(src, 4)) == 2;
			if (list_length(src) > PG_GPU_CHILD_TASK &&
				collect_on_gpu(src, PG_GPU_CHILD_TASK, estate, node, ref->type, &col))
			{
				if (!collected_ready(sets, i, ref, &col, unique, t0c, reason, msg, msglen))
				{
					ok = false;
					break;
				}
				i++;
				continue;
			}
			PgGpuKeyBufInit(&b, intVal(lfourth(src)), child->plan->plan_rows,
							child->plan->plan_width, limit, cxt);
			if (keep_rows)
				sets->rows_cxt = AllocSetContextCreate(estate->es_query_cxt, "pg_gpu join rows",
													   ALLOCSET_DEFAULT_SIZES);
			collect_child(&b, child, intVal(lthird(src)), keep_rows ? sets : NULL);
			sets->collect_ms += ms_since(t0c);
		}
		if (b.full)
		{
			*reason = PG_GPU_FB_SLOT_MEMORY;
			snprintf(msg, msglen, "the keys of a key set need more than pg_gpu.slot_sort_memory (%d kB)",
					 pg_gpu_slot_sort_memory);
			ok = false;
			break;
		}
		sets->ks[i] = pg_gpu_keyset_build(ref->type, (uint64) b.n, b.vals, b.data, b.off,
										  task->emulate, &err);
		sets->n = i + 1;
		if (sets->ks[i] == NULL)
		{
			*reason = PgGpuFallbackFor(err.status);
			strlcpy(msg, err.message, msglen);
			ok = false;
			break;
		}
		sets->keys[i] = b.n;
		ref->has_null = b.has_null;
		ref->nonempty = b.nonempty;
		if (!set_ready(sets, i, ref, unique, reason, msg, msglen) ||
			(keep_rows && !rows_ordinals(sets, i, reason, msg, msglen)))
		{
			ok = false;
			break;
		}
		MemoryContextReset(cxt);
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
		List	   *src = (List *) lfirst(lc);
		int			kind = intVal(linitial(src));
		int			at = kind == PG_GPU_SET_CHILD ? PG_GPU_CHILD_TASK : PG_GPU_SUBPLAN_TASK;
		Plan	   *plan;

		if (kind == PG_GPU_SET_ARRAY || kind == PG_GPU_SET_DICT)
			continue;
		if (list_length(src) <= at)
			return false;		/* no collect task: the plan runs */
		if (kind == PG_GPU_SET_CHILD)
			plan = ((PlanState *) list_nth(children, intVal(lsecond(src))))->plan;
		else
		{
			int			id = intVal(lsecond(src));
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

void
PgGpuFreeSets(PgGpuSets *sets)
{
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
		List	   *src = (List *) lfirst(lc);
		StringInfoData buf;

		initStringInfo(&buf);
		if (intVal(linitial(src)) == PG_GPU_SET_ARRAY)
			appendStringInfoString(&buf, "IN list");
		else if (intVal(linitial(src)) == PG_GPU_SET_SUBPLAN)
			appendStringInfo(&buf, "IN (SubPlan %d)", intVal(lsecond(src)));
		else if (intVal(linitial(src)) == PG_GPU_SET_DICT)
			appendStringInfo(&buf, "dictionary %s", quote_identifier(strVal(lsecond(src))));
		else
			appendStringInfoString(&buf, strVal(list_nth(src, 5)));
		if (analyze && i < sets->nbuilt)
		{
			appendStringInfo(&buf, " (%lld keys, %lld distinct", (long long) sets->keys[i],
							 (long long) sets->distinct[i]);
			if (sets->gpu_collected[i])
				appendStringInfo(&buf, ", collected on the GPU from %lld pages",
								 (long long) sets->collect_pages[i]);
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
