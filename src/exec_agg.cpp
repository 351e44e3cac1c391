/*
 * exec_agg.cpp — executing GpuAgg.
 *
 * The CPU never touches tuples one at a time here.  It walks the table's blocks,
 * pins each buffer, and under the share lock records the line-pointer count and,
 * for a page that is not all-visible, a visibility bitmap computed with
 * PostgreSQL's own HeapTupleSatisfiesVisibility for the query's snapshot.  Then:
 *
 *  - registered mode (default): the shared buffer pool is registered with the GPU,
 *    so a chunk is just a list of device addresses of pinned buffers; the kernel
 *    reads the pages in place over PCIe.  Pins are held until the chunk's kernel
 *    has finished.  This is safe without the content lock: the pin blocks pruning
 *    and defragmentation (they need a cleanup lock), heap tuple data is never
 *    rewritten in place, and new tuples land behind the line-pointer count we
 *    captured under the lock.
 *  - gather mode (registration impossible or disabled): pages are memcpy'd into a
 *    pinned staging buffer and the pin is dropped at once.
 *
 * Chunks rotate through PG_GPU_AGG_SLOTS slots, each on its own CUDA stream, so
 * pinning chunk k+1 overlaps with the GPU reducing chunk k.
 *
 * Any engine failure (no GPU, out of GPU memory, a page the GPU cannot decode, a
 * CUDA error) ends the GPU attempt cleanly and the child plan — PostgreSQL's own
 * Partial Aggregate over the table — produces the same partial states instead.
 */
extern "C" {
#include "postgres.h"

#include "access/heapam.h"
#include "access/relscan.h"
#include "access/xact.h"
#include "catalog/pg_type.h"
#include "commands/explain.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/extensible.h"
#include "storage/buf_internals.h"
#include "storage/bufmgr.h"
#include "storage/predicate.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/ruleutils.h"
#include "utils/snapmgr.h"

#include "pg_gpu.h"
#include "pg_gpu_engine.h"
#include "agg_catalog.h"
#include "exec_scroll.h"
#include "gpuagg.h"
#include "exec_sets.h"
#include "pin_workers.h"
}

#include "guard.h"
#include "table_cache.h"

/*
 * Where each block of a recently scanned table sat in shared buffers.  The next
 * scan pins it with ReadRecentBuffer, which checks the buffer's tag instead of
 * looking the block up in the buffer mapping table; that lookup is the largest
 * part of the CPU's per-page cost.  A stale entry only costs the normal lookup.
 */
#define RECENT_TABLES 8

typedef struct RecentBuffers
{
	RelFileNode node;
	BlockNumber nblocks;
	Buffer	   *bufs;			/* in TopMemoryContext */
	uint64		last_use;
} RecentBuffers;

static RecentBuffers recent[RECENT_TABLES];
static uint64 recent_clock = 0;

static RecentBuffers *
recent_buffers(Relation rel, BlockNumber nblocks)
{
	RecentBuffers *victim = &recent[0];

	for (int i = 0; i < RECENT_TABLES; i++)
	{
		RecentBuffers *r = &recent[i];

		if (r->bufs && RelFileNodeEquals(r->node, rel->rd_node))
		{
			if (r->nblocks < nblocks)
			{
				r->bufs = (Buffer *) repalloc(r->bufs, sizeof(Buffer) * nblocks);
				memset(r->bufs + r->nblocks, 0, sizeof(Buffer) * (nblocks - r->nblocks));
				r->nblocks = nblocks;
			}
			r->last_use = ++recent_clock;
			return r;
		}
		if (r->last_use < victim->last_use)
			victim = r;
	}
	if (victim->bufs)
		pfree(victim->bufs);
	victim->node = rel->rd_node;
	victim->nblocks = nblocks;
	victim->bufs = (Buffer *) MemoryContextAllocZero(TopMemoryContext, sizeof(Buffer) * Max(1, nblocks));
	victim->last_use = ++recent_clock;
	return victim;
}

/*
 * The per-page CPU cost is mostly cache misses on the buffer descriptor and the
 * page header.  With the recent-buffer cache we know where blocks ahead of us
 * live, so we start those loads early.
 */
#define PREFETCH_AHEAD 8

static inline void
prefetch_buffer(Buffer b)
{
	if (b != InvalidBuffer && !BufferIsLocal(b))
	{
		__builtin_prefetch(GetBufferDescriptor(b - 1), 1);
		__builtin_prefetch(BufferGetPage(b), 0);
	}
}

/* Pin a block, through the recent-buffer cache when there is one. */
static inline Buffer
pin_block(Relation rel, BlockNumber blk, BufferAccessStrategy strategy, RecentBuffers *rb)
{
	Buffer		b;

	if (rb && rb->bufs[blk] != InvalidBuffer &&
		ReadRecentBuffer(rel->rd_node, MAIN_FORKNUM, blk, rb->bufs[blk]))
		return rb->bufs[blk];
	b = ReadBufferExtended(rel, MAIN_FORKNUM, blk, RBM_NORMAL, strategy);
	if (rb)
		rb->bufs[blk] = b;
	return b;
}

/* One relation's pages streamed to an engine (GpuAgg's table, a key set's). */
typedef struct PgGpuPageScan
{
	Relation	rel;
	Snapshot	snapshot;
	MemoryContext cxt;			/* of the pin arrays */
	pg_gpu_agg *agg;
	bool		emulate;
	bool		registered;		/* pages read in place */
	int			chunk_pages;
	BlockNumber nblocks;
	BlockNumber *page_blk;		/* GpuSort: block of each submitted page, in
								 * order (NULL: not kept) */
	int64		npage_blk;
	Buffer	   *pins[PG_GPU_AGG_SLOTS];	/* the backend's own, per engine slot */
	int			pins_cap;		/* room in each */
	int			npins[PG_GPU_AGG_SLOTS];
	int			chunks;
	PgGpuTableCacheScan tc;		/* the pages from GPU memory, or copied there */
	PgGpuPinCtx *pin_ctx;		/* parallel pin workers, when used */
	int			pin_workers;	/* launched */
	bool		pin_tried;		/* asked for pin workers */
	instr_time	t_pages;		/* CPU: pin, visibility, hand-over */
	instr_time	t_wait;			/* CPU waiting for chunk slots */
	PgGpuFallback fb_reason;
	char		fb_msg[256];
} PgGpuPageScan;

typedef struct GpuAggState
{
	CustomScanState css;

	/* from the plan */
	int			nout;
	int		   *out_state;
	int		   *out_coltype;
	int		   *out_col;
	pg_gpu_agg_task task;
	int			nkeys;
	Oid			key_typid[PG_GPU_MAX_KEYS];
	bool		direct;			/* emit final values (see gpuagg.h) */
	FmgrInfo   *finalfn;		/* per output column; fn_oid 0: none */
	MemoryContext row_cxt;		/* an output row's partial states */

	/*
	 * GpuSort: the same page streaming, then the sorted tuples; GpuHashJoin and
	 * GpuSemiJoin (also sort): a join's rows, unsorted
	 */
	bool		sort;
	PgGpuNode	node;			/* for pg_gpu_stats and fallbacks */
	bool		need_tid;		/* GpuSort: the output reads a system column */
	PgGpuScroll scroll;			/* GpuSort: rows kept for a scrollable cursor */
	BlockNumber *page_blk;		/* ... then each page's block (scan.page_blk) */
	BlockNumber page_blk_cap;
	pg_gpu_sort_batch batch;
	int64		batch_pos;
	HeapTupleData htup;			/* the tuple the scan slot points at */

	/* GpuHashJoin reading the build side (GPUAGG_PRIV_ROWS) */
	bool		rows_out;
	TupleTableSlot *probe_slot; /* the probe table's tuple (htup) */
	TupleTableSlot *build_slot; /* a kept build row */
	ExprState  *probe_key;		/* over probe_slot */
	FmgrInfo	eq;				/* the join's equality */
	Oid			eq_coll;
	bool		probe_left;		/* the probe key is its left argument */
	int			nfrom;			/* scan tuple columns: table attno > 0, or */
	int		   *from;			/* -(column of the build row) */
	int			max_attno;
	int64	   *heads;			/* each chain's first build row, in order */
	int64		nheads;
	int64	   *next;			/* the next build row with an equal key, or -1 */
	int64		head_pos;		/* the current probe row's chain is heads[head_pos] on */
	int64		chain;			/* its next build row to pair (-1: none left) */

	/*
	 * The scanned table.  ss_currentRelation stays NULL: execCurrent.c would
	 * take a custom scan with a relation for a plain scan of it and read the
	 * current row's TID from its scan slot, but a GPU node's row is a sorted,
	 * joined or aggregated one, as PostgreSQL's Sort, Hash Join or Agg would
	 * hand up, so WHERE CURRENT OF must say what it says over those.
	 */
	Relation	rel;

	/* execution */
	bool		done;
	bool		fallback;
	bool		gpu_ran;
	int64		next_group;		/* grouped: next group to emit */
	PgGpuFallback fb_reason;
	char		fb_msg[256];
	pg_gpu_agg *agg;
	PgGpuPageScan scan;			/* the table's pages streamed to agg */
	MemoryContextCallback cleanup;
	List	   *set_sources;	/* the task's key sets (expr_compile.h) */
	PgGpuSets	sets;

	/* instrumentation */
	pg_gpu_agg_result res;
	double		wall_ms;
	instr_time	t_setup;		/* engine start-up for this query */
	instr_time	t_finish;		/* final synchronisation and merge */
	instr_time	t_fetch;		/* GpuSort: copying sorted batches back */
} GpuAggState;

/* Accumulate the time since *since into *acc and restart *since. */
static inline void
lap(instr_time *acc, instr_time *since)
{
	instr_time	now;

	INSTR_TIME_SET_CURRENT(now);
	INSTR_TIME_ACCUM_DIFF(*acc, now, *since);
	*since = now;
}

static Node *CreateGpuAggState(CustomScan *cscan);
static Node *CreateGpuSortState(CustomScan *cscan);
static void BeginGpuAgg(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *ExecGpuAgg(CustomScanState *node);
static void EndGpuAgg(CustomScanState *node);
static void ReScanGpuAgg(CustomScanState *node);
static void ExplainGpuAgg(CustomScanState *node, List *ancestors, ExplainState *es);

CustomScanMethods gpuagg_scan_methods = {
	"GpuAgg",
	CreateGpuAggState
};

CustomScanMethods gpusort_scan_methods = {
	"GpuSort",
	CreateGpuSortState
};

CustomScanMethods gpuhashjoin_scan_methods = {
	"GpuHashJoin",
	CreateGpuSortState
};

CustomScanMethods gpusemijoin_scan_methods = {
	"GpuSemiJoin",
	CreateGpuSortState
};

static const CustomExecMethods gpuagg_exec_methods = {
	"GpuAgg",
	BeginGpuAgg,
	ExecGpuAgg,
	EndGpuAgg,
	ReScanGpuAgg,
	NULL, NULL,					/* mark/restore */
	NULL, NULL, NULL, NULL,		/* parallel */
	NULL,						/* shutdown */
	ExplainGpuAgg
};

/*
 * No mark/restore, no backward scan: PostgreSQL adds a Material node if needed.
 * GpuHashJoin and GpuSemiJoin run the same way (EXPLAIN names a node by its
 * plan's methods).
 */
static const CustomExecMethods gpusort_exec_methods = {
	"GpuSort",
	BeginGpuAgg,
	ExecGpuAgg,
	EndGpuAgg,
	ReScanGpuAgg,
	NULL, NULL,
	NULL, NULL, NULL, NULL,
	NULL,
	ExplainGpuAgg
};

static int *
int_list_array(List *l)
{
	int		   *a = (int *) palloc0(sizeof(int) * Max(1, list_length(l)));
	int			i = 0;
	ListCell   *lc;

	foreach(lc, l)
		a[i++] = lfirst_int(lc);
	return a;
}

static Node *
CreateGpuAggState(CustomScan *cscan)
{
	GpuAggState *s = (GpuAggState *) palloc0(sizeof(GpuAggState));

	NodeSetTag(s, T_CustomScanState);
	s->css.methods = &gpuagg_exec_methods;
	s->node = PG_GPU_NODE_AGG;
	return (Node *) s;
}

/*
 * GpuSort shares GpuAgg's state and page streaming; its scan tuples are the
 * table's own, pointing into the engine's batch of sorted tuples.  GpuHashJoin
 * and GpuSemiJoin are GpuSort without sort keys: the rows of an inner join, or
 * of a semi- or anti-join, in the order the GPU kept them.
 */
static Node *
CreateGpuSortState(CustomScan *cscan)
{
	if (cscan->scan.scanrelid == 0)
		return cscan->methods == &gpusort_scan_methods ? PgGpuCreateSortSlotState(cscan)
			: PgGpuCreateJoinSlotState(cscan);

	GpuAggState *s = (GpuAggState *) palloc0(sizeof(GpuAggState));

	NodeSetTag(s, T_CustomScanState);
	s->css.methods = &gpusort_exec_methods;
	s->sort = true;
	s->node = cscan->methods == &gpuhashjoin_scan_methods ? PG_GPU_NODE_HASHJOIN
		: cscan->methods == &gpusemijoin_scan_methods ? PG_GPU_NODE_SEMIJOIN
		: PG_GPU_NODE_SORT;
	return (Node *) s;
}

/*
 * Stops the scan's pin workers and, with release_pins, drops the pins it holds
 * (the engine reading those pages must have finished); safe to repeat.
 */
static void
scan_release(PgGpuPageScan *ps, bool release_pins)
{
	if (ps->pin_ctx)
	{
		PgGpuPinCtx *ctx = ps->pin_ctx;

		ps->pin_ctx = NULL;
		PgGpuPinWorkersAbort(ctx);
	}
	/* a fill that did not finish leaves no copies (the engine has ended) */
	if (ps->rel)
		PgGpuTableCacheDone(&ps->tc, ps->rel, false);
	if (release_pins)
		for (int i = 0; i < PG_GPU_AGG_SLOTS; i++)
		{
			for (int j = 0; j < ps->npins[i]; j++)
				ReleaseBuffer(ps->pins[i][j]);
			ps->npins[i] = 0;
		}
}

/* Releases the engine (unless kept) and any pins; safe to call more than once. */
static void
release_gpu(GpuAggState *s, bool release_pins, bool keep_engine = false)
{
	if (s->agg && !keep_engine)
	{
		pg_gpu_agg *agg = s->agg;

		s->agg = NULL;
		pg_gpu_agg_end(agg);	/* waits for in-flight kernels */
	}
	if (!s->agg)
		PgGpuFreeSets(&s->sets);	/* probed by the engine's kernels */
	scan_release(&s->scan, release_pins);
}

/* On error paths the query memory goes away; the engine must go with it. */
static void
gpuagg_cleanup_callback(void *arg)
{
	GpuAggState *s = (GpuAggState *) arg;

	if (s->agg)
	{
		pg_gpu_agg *agg = s->agg;

		s->agg = NULL;
		pg_gpu_agg_end(agg);
	}
	/*
	 * The kept build rows' context is a child of the query's, which deletes its
	 * children before it calls this: it is gone already.
	 */
	s->sets.rows_cxt = NULL;
	PgGpuFreeSets(&s->sets);
}

/* Whether an expression reads a system column (ctid and the like). */
static bool
reads_system_column(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var))
		return ((Var *) node)->varattno < 0;
	return expression_tree_walker(node, (bool (*)()) (void *) reads_system_column, context);
}

static void
BeginGpuAggImpl(GpuAggState *s, EState *estate, int eflags)
{
	CustomScan *cscan = (CustomScan *) s->css.ss.ps.plan;
	List	   *priv = cscan->custom_private;
	Const	   *task = (Const *) list_nth(priv, GPUAGG_PRIV_TASK);
	ListCell   *lc;
	int			k = 0;

	s->nout = list_length((List *) list_nth(priv, GPUAGG_PRIV_OUT_STATE));
	s->out_state = int_list_array((List *) list_nth(priv, GPUAGG_PRIV_OUT_STATE));
	s->out_coltype = int_list_array((List *) list_nth(priv, GPUAGG_PRIV_OUT_COLTYPE));
	s->out_col = int_list_array((List *) list_nth(priv, GPUAGG_PRIV_OUT_COL));

	s->rel = s->css.ss.ss_currentRelation;
	s->css.ss.ss_currentRelation = NULL;
	Assert(VARSIZE_ANY_EXHDR(DatumGetPointer(task->constvalue)) == sizeof(pg_gpu_agg_task));
	memcpy(&s->task, VARDATA_ANY(DatumGetPointer(task->constvalue)), sizeof(pg_gpu_agg_task));
	s->nkeys = s->sort ? 0 : s->task.nkeys;
	foreach(lc, cscan->custom_scan_tlist)
	{
		if (k >= s->nkeys)
			break;
		s->key_typid[k++] = exprType((Node *) lfirst_node(TargetEntry, lc)->expr);
	}
	s->row_cxt = AllocSetContextCreate(estate->es_query_cxt, "GpuAgg row",
									   ALLOCSET_SMALL_SIZES);
	{
		List	   *fns = (List *) list_nth(priv, GPUAGG_PRIV_FINALFN);
		int			i = 0;

		s->direct = (fns != NIL);
		s->finalfn = (FmgrInfo *) palloc0(sizeof(FmgrInfo) * Max(1, s->nout));
		foreach(lc, fns)
		{
			if (OidIsValid(lfirst_oid(lc)))
				fmgr_info(lfirst_oid(lc), &s->finalfn[i]);
			i++;
		}
	}

	/*
	 * GpuSort's scan tuples are heap tuples in the engine's batches: a heap slot
	 * (PostgreSQL 15 gives custom scans a virtual one), and the projection built
	 * again for it.
	 */
	if (s->sort && list_length(priv) > GPUAGG_PRIV_ROWS)
	{
		/*
		 * A GpuHashJoin reading the build side: the scan tuple (custom_scan_tlist,
		 * projected from INDEX_VAR as ExecInitCustomScan set it up) is put
		 * together from a probe tuple and a kept build row.
		 */
		List	   *rows = (List *) list_nth(priv, GPUAGG_PRIV_ROWS);
		List	   *oids = (List *) lthird(rows);

		s->rows_out = true;
		s->probe_slot = ExecAllocTableSlot(&estate->es_tupleTable,
										   RelationGetDescr(s->rel),
										   &TTSOpsHeapTuple);
		/* no parent: this node's scan slot is the virtual one, not probe_slot */
		s->probe_key = ExecInitExpr((Expr *) linitial(rows), NULL);
		s->nfrom = list_length((List *) lsecond(rows));
		s->from = int_list_array((List *) lsecond(rows));
		for (int c = 0; c < s->nfrom; c++)
			s->max_attno = Max(s->max_attno, s->from[c]);
		fmgr_info(linitial_oid(oids), &s->eq);
		s->eq_coll = lsecond_oid(oids);
		s->probe_left = intVal(lfourth(rows)) != 0;
		s->css.ss.ps.resultopsfixed = false;
	}
	else if (s->sort)
	{
		ExecInitScanTupleSlot(estate, &s->css.ss, RelationGetDescr(s->rel),
							  &TTSOpsHeapTuple);
		ExecAssignScanProjectionInfoWithVarno(&s->css.ss, cscan->scan.scanrelid);
		/* the fallback hands up its child's slots as they are: of another kind */
		s->css.ss.ps.resultopsfixed = false;
		s->need_tid = reads_system_column((Node *) cscan->scan.plan.targetlist, NULL) ||
			reads_system_column((Node *) cscan->scan.plan.qual, NULL);
		ItemPointerSetInvalid(&s->htup.t_self);
	}

	/* GpuSort for a scrollable cursor keeps its rows; the children run forward */
	if (s->node == PG_GPU_NODE_SORT)
		eflags = PgGpuScrollInit(&s->scroll, &s->css, estate, eflags);

	/* the fallback: PostgreSQL's own partial aggregate; then a join's build side */
	foreach(lc, cscan->custom_plans)
		s->css.custom_ps = lappend(s->css.custom_ps,
								   ExecInitNode((Plan *) lfirst(lc), estate, eflags));
	s->set_sources = (List *) list_nth(priv, GPUAGG_PRIV_SETS);
	if (s->rows_out)
		s->build_slot = ExecAllocTableSlot(&estate->es_tupleTable,
										   ExecGetResultType((PlanState *) lsecond(s->css.custom_ps)),
										   &TTSOpsMinimalTuple);

	s->cleanup.func = gpuagg_cleanup_callback;
	s->cleanup.arg = s;
	MemoryContextRegisterResetCallback(estate->es_query_cxt, &s->cleanup);
}

static void
BeginGpuAgg(CustomScanState *node, EState *estate, int eflags)
{
	PG_GPU_GUARD(BeginGpuAggImpl((GpuAggState *) node, estate, eflags));
}

PgGpuFallback
PgGpuFallbackFor(pg_gpu_status st)
{
	switch (st)
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
		default:
			return PG_GPU_FB_GPU_ERROR;
	}
}

void
PgGpuNoteFallback(PgGpuNode node, PgGpuFallback reason, const char *msg)
{
	PgGpuStatsFallback(node, reason);
	/* the GPU ran out of memory: the table cache gives its memory back */
	if (reason == PG_GPU_FB_OUT_OF_MEMORY)
		PgGpuTableCacheRelease();
	/* data the GPU declines by design, and injected failures, are expected */
	if (pg_gpu_expect_gpu && reason != PG_GPU_FB_INJECTED && reason != PG_GPU_FB_EXPR_ERROR &&
		reason != PG_GPU_FB_TOASTED && reason != PG_GPU_FB_LONG_KEY &&
		reason != PG_GPU_FB_SLOT_MEMORY && reason != PG_GPU_FB_DUP_KEYS)
		ereport(WARNING,
				(errmsg("%s fell back to the CPU: %s", PgGpuNodeName(node),
						PgGpuFallbackName(reason)),
				 errdetail("%s", msg)));
}

static bool
give_up(GpuAggState *s, PgGpuFallback reason, const char *msg)
{
	release_gpu(s, true);
	s->fb_reason = reason;
	strlcpy(s->fb_msg, msg, sizeof(s->fb_msg));
	return false;
}

/*
 * Physical layout of the attributes the kernels walk, into task; false if the
 * kernels cannot decode them (no "missing" values, no cstring columns).  The
 * planner asks when it builds the path, the executor again at run time, since the
 * table may have changed in between.
 */
bool
PgGpuFillLayout(Relation rel, pg_gpu_agg_task *task)
{
	TupleDesc	tupdesc = RelationGetDescr(rel);
	int			maxatt = -1;

	for (int c = 0; c < task->ncols; c++)
	{
		if (task->cols[c].attidx >= tupdesc->natts ||
			TupleDescAttr(tupdesc, task->cols[c].attidx)->atthasmissing)
			return false;
		maxatt = Max(maxatt, task->cols[c].attidx);
	}
	if (maxatt >= PG_GPU_MAX_DEFORM_ATTS)
		return false;
	task->natts = maxatt + 1;
	for (int j = 0; j <= maxatt; j++)
	{
		Form_pg_attribute att = TupleDescAttr(tupdesc, j);

		if (att->attlen == -2)
			return false;
		task->attlen[j] = att->attlen;
		switch (att->attalign)
		{
			case TYPALIGN_CHAR:
				task->attalign[j] = 1;
				break;
			case TYPALIGN_SHORT:
				task->attalign[j] = 2;
				break;
			case TYPALIGN_INT:
				task->attalign[j] = 4;
				break;
			default:
				task->attalign[j] = 8;
				break;
		}
	}
	return true;
}

/*
 * Per-tuple visibility of a share-locked page for the snapshot, as a bitmap over
 * line pointers (PostgreSQL's HeapTupleSatisfiesVisibility decides).
 */
void
PgGpuPageVisibility(Relation rel, Snapshot snapshot, Buffer buf, BlockNumber blk,
					OffsetNumber nlp, uint32 *bits)
{
	Page		page = BufferGetPage(buf);
	HeapTupleData tup;

	memset(bits, 0, sizeof(uint32) * PG_GPU_VIS_WORDS);
	tup.t_tableOid = RelationGetRelid(rel);
	for (OffsetNumber off = FirstOffsetNumber; off <= nlp; off++)
	{
		ItemId		lpp = PageGetItemId(page, off);

		if (!ItemIdIsNormal(lpp))
			continue;
		tup.t_data = (HeapTupleHeader) PageGetItem(page, lpp);
		tup.t_len = ItemIdGetLength(lpp);
		ItemPointerSet(&tup.t_self, blk, off);
		if (HeapTupleSatisfiesVisibility(&tup, snapshot, buf))
			bits[(off - 1) >> 5] |= 1u << ((off - 1) & 31);
	}
}

/*
 * Inspect a pinned, share-locked heap page for the GPU: its line-pointer count (0:
 * nothing to send) and, unless it is all-visible for this snapshot, its visibility
 * bitmap in *bits (*has_bits set).  Used by the backend and by the pin workers.
 */
OffsetNumber
PgGpuInspectPage(Relation rel, Snapshot snapshot, Buffer buf, BlockNumber blk,
				 uint32 *bits, bool *has_bits, bool *stable)
{
	Page		page = BufferGetPage(buf);
	OffsetNumber nlp = PageIsNew(page) ? 0 : PageGetMaxOffsetNumber(page);

	*has_bits = false;
	*stable = true;
	if (nlp > 0 && (!PageIsAllVisible(page) || snapshot->takenDuringRecovery))
	{
		PgGpuPageVisibility(rel, snapshot, buf, blk, nlp, bits);
		*has_bits = true;
		*stable = false;
	}
	else if (nlp > 0 && PageHasFreeLinePointers(page))
	{
		/*
		 * All-visible, but an insert may reuse an unused line pointer below nlp
		 * while the GPU reads the page in place without the lock: the tuples are
		 * those that are there now.
		 */
		memset(bits, 0, sizeof(uint32) * PG_GPU_VIS_WORDS);
		for (OffsetNumber off = FirstOffsetNumber; off <= nlp; off++)
			if (ItemIdIsNormal(PageGetItemId(page, off)))
				bits[(off - 1) >> 5] |= 1u << ((off - 1) & 31);
		*has_bits = true;
	}
	return nlp;
}

/*
 * Address the engine reads a pinned buffer at: the device address in the
 * registered pool, or, when the engine is emulated, the page itself (shared
 * memory has the same address in every backend).
 */
static inline uint64
page_addr(PgGpuPageScan *ps, Buffer b)
{
	if (ps->emulate)
		return (uint64) (uintptr_t) BufferGetPage(b);
	return PgGpuSharedBufferDeviceAddr(b - 1);
}

/* Wait (interruptibly) until the slot's chunk is done, then drop its pins. */
static void
wait_slot(PgGpuPageScan *ps, int slot)
{
	int			spins = 0;
	instr_time	t;

	INSTR_TIME_SET_CURRENT(t);
	while (!pg_gpu_agg_slot_idle(ps->agg, slot))
	{
		CHECK_FOR_INTERRUPTS();
		if (++spins > 2000)
			pg_usleep(20);
	}
	lap(&ps->t_wait, &t);
	for (int j = 0; j < ps->npins[slot]; j++)
	{
		if (j + PREFETCH_AHEAD < ps->npins[slot])
			__builtin_prefetch(GetBufferDescriptor(ps->pins[slot][j + PREFETCH_AHEAD] - 1), 1);
		ReleaseBuffer(ps->pins[slot][j]);
	}
	ps->npins[slot] = 0;
	lap(&ps->t_pages, &t);
}

/*
 * Room for n pins per engine slot in the backend's own pin arrays (kept from
 * run to run; pg_gpu.chunk_pages may have grown since).
 */
static void
reserve_pins(PgGpuPageScan *ps, int n)
{
	if (ps->pins_cap >= n)
		return;
	for (int i = 0; i < PG_GPU_AGG_SLOTS; i++)
	{
		Assert(ps->npins[i] == 0);
		if (ps->pins[i])
			pfree(ps->pins[i]);
		ps->pins[i] = (Buffer *) MemoryContextAlloc(ps->cxt, sizeof(Buffer) * n);
	}
	ps->pins_cap = n;
}

/* The scan cannot go on: false, with the reason kept for the caller. */
static bool
scan_fail(PgGpuPageScan *ps, PgGpuFallback reason, const char *msg)
{
	ps->fb_reason = reason;
	strlcpy(ps->fb_msg, msg, sizeof(ps->fb_msg));
	return false;
}

/* A chunk was handed over; false once pg_gpu.debug_fail_after_chunks says so. */
static bool
count_chunk(PgGpuPageScan *ps)
{
	ps->chunks++;
	if (pg_gpu_debug_fail_after_chunks >= 0 && ps->chunks > pg_gpu_debug_fail_after_chunks)
		return scan_fail(ps, PG_GPU_FB_INJECTED, "simulated GPU failure");
	return true;
}

/*
 * The leader's loop when parallel workers pin the pages: take published chunks,
 * hand them to the GPU, and tell their workers to unpin once the GPU is done.
 */
static bool
run_chunks_from_workers(PgGpuPageScan *ps, instr_time *lapt)
{
	PgGpuPinCtx *ctx = ps->pin_ctx;
	int			owner[PG_GPU_AGG_SLOTS];
	pg_gpu_error err;

	for (int e = 0; e < PG_GPU_AGG_SLOTS; e++)
		owner[e] = -1;
	for (;;)
	{
		bool		progress = false;
		bool		busy = false;

		for (int e = 0; e < PG_GPU_AGG_SLOTS; e++)
			if (owner[e] >= 0 && pg_gpu_agg_slot_idle(ps->agg, e))
			{
				PgGpuPinChunkDone(ctx, owner[e]);
				owner[e] = -1;
				progress = true;
			}
		for (int e = 0; e < PG_GPU_AGG_SLOTS; e++)
		{
			PgGpuPinChunkView view;
			pg_gpu_agg_slot buf;
			int			idx;

			if (owner[e] >= 0)
			{
				busy = true;
				continue;
			}
			if ((idx = PgGpuPinTakeReady(ctx, &view)) < 0)
				break;
			progress = true;
			if (view.npages == 0)
			{
				PgGpuPinChunkDone(ctx, idx);
				continue;
			}
			if (pg_gpu_agg_slot_get(ps->agg, e, &buf, &err) != PG_GPU_OK)
				return scan_fail(ps, PgGpuFallbackFor(err.status), err.message);
			for (int i = 0; i < view.npages; i++)
			{
				if (ps->page_blk)
					ps->page_blk[ps->npage_blk++] = BufferGetBlockNumber(view.buf[i]);
				buf.refs[i].addr = page_addr(ps, view.buf[i]);
				buf.refs[i].nlp = view.nlp[i];
				buf.refs[i].vis_idx = view.vis_idx[i];
				PgGpuTableCacheNote(&ps->tc, BufferGetBlockNumber(view.buf[i]), view.nlp[i],
									view.vis_idx[i] >= 0, view.stable[i],
									view.vis + (size_t) Max(view.vis_idx[i], 0) * PG_GPU_VIS_WORDS);
			}
			memcpy(buf.vis, view.vis, sizeof(uint32) * PG_GPU_VIS_WORDS * view.nvis);
			owner[e] = idx;
			busy = true;
			if (pg_gpu_agg_submit(ps->agg, e, view.npages, view.nvis, &err) != PG_GPU_OK)
				return scan_fail(ps, PgGpuFallbackFor(err.status), err.message);
			if (!count_chunk(ps))
				return false;
		}
		lap(&ps->t_pages, lapt);
		/* every engine slot counts, not only those the submit loop reached */
		for (int e = 0; e < PG_GPU_AGG_SLOTS; e++)
			busy |= (owner[e] >= 0);
		if (!busy && PgGpuPinAllDelivered(ctx))
			break;
		if (!progress)
		{
			CHECK_FOR_INTERRUPTS();
			if (!busy)
				PgGpuPinWait(ctx);
		}
		lap(&ps->t_wait, lapt);
	}
	ps->pin_ctx = NULL;
	PgGpuPinWorkersFinish(ctx);
	lap(&ps->t_pages, lapt);
	return true;
}

/*
 * Before the engine starts: whether the GPU can scan the relation now (not
 * under serializable isolation, an engine, a layout the kernels walk; false with
 * ps->fb_* set), and how its pages will reach it.  Read in place from the
 * registered buffer pool when the table is big enough to pay for registering it
 * (once per backend, in the background); copy small tables, and any table while
 * registration is under way.  Sets the task's emulate, layout, gather and chunk
 * size.
 */
static bool
scan_prepare(PgGpuPageScan *ps, Relation rel, Snapshot snapshot, MemoryContext cxt,
			 pg_gpu_agg_task *task)
{
	Buffer	   *pins[PG_GPU_AGG_SLOTS];
	int			pins_cap = ps->pins_cap;

	/* the pin arrays of an earlier run (all released) are kept */
	memcpy(pins, ps->pins, sizeof(pins));
	memset(ps, 0, sizeof(*ps));
	memcpy(ps->pins, pins, sizeof(pins));
	ps->pins_cap = pins_cap;
	if (IsolationIsSerializable())
		return scan_fail(ps, PG_GPU_FB_SERIALIZABLE,
						 "serializable transactions need per-tuple predicate locks");
	task->emulate = pg_gpu_emulate_gpu ? 1 : 0;
	if (!task->emulate && !PgGpuEnsureEngine(&ps->fb_reason, ps->fb_msg, sizeof(ps->fb_msg)))
		return false;
	if (!PgGpuFillLayout(rel, task))
		return scan_fail(ps, PG_GPU_FB_UNSUPPORTED, "the table's layout changed");
	ps->rel = rel;
	ps->snapshot = snapshot;
	ps->cxt = cxt;
	ps->emulate = task->emulate != 0;
	ps->nblocks = RelationGetNumberOfBlocks(rel);
	if (ps->emulate)
		ps->registered = pg_gpu_register_buffers &&
			ps->nblocks >= (BlockNumber) pg_gpu_register_min_pages;
	else
		ps->registered = pg_gpu_register_buffers &&
			(ps->nblocks >= (BlockNumber) pg_gpu_register_min_pages ||
			 PgGpuSharedBuffersRegistered()) &&
			PgGpuRegisterSharedBuffers(false);
	task->gather = ps->registered ? 0 : 1;
	/* never hold more than a quarter of shared_buffers pinned */
	task->chunk_pages = Max(1, Min(pg_gpu_chunk_pages, NBuffers / (4 * PG_GPU_AGG_SLOTS)));
	ps->chunk_pages = task->chunk_pages;
	/* the table's pages in GPU memory (a hit reads them in place: gather = 0) */
	PgGpuTableCacheStart(rel, ps->nblocks, ps->emulate, task, &ps->tc);
	return true;
}

/*
 * A table that fits comfortably stays in shared buffers, where the next query
 * reads it in place; a larger one cycles through a bulk-read ring instead of
 * flushing the pool.
 */
static inline bool
scan_bulkread(PgGpuPageScan *ps)
{
	return ps->nblocks > (BlockNumber) (NBuffers / 2);
}

/*
 * Start parallel workers that pin the pages for the GPU, when the scan reads
 * them in place and the table is big enough; whether they run (ps->pin_ctx).
 * Before the engine starts (a join's key set is built first) the chunk size
 * the task asks for stands in for the engine's slots, which scan_pages checks.
 */
static bool
scan_start_workers(PgGpuPageScan *ps, int pin_workers_min_pages, int capacity)
{
	if (ps->pin_ctx == NULL && ps->registered && ps->tc.use != PG_GPU_TC_HIT &&
		!scan_bulkread(ps) && pg_gpu_pin_workers > 0 &&
		ps->nblocks >= (BlockNumber) pin_workers_min_pages && capacity >= PG_GPU_PIN_CHUNK_PAGES)
	{
		ps->pin_tried = true;
		ps->pin_ctx = PgGpuPinWorkersStart(ps->rel, ps->snapshot, ps->nblocks, pg_gpu_pin_workers);
		if (ps->pin_ctx)
			ps->pin_workers = PgGpuPinWorkersLaunched(ps->pin_ctx);
	}
	return ps->pin_ctx != NULL;
}

/* The engine slot's previous chunk done (its pins dropped), its buffers in *buf. */
static bool
take_slot(PgGpuPageScan *ps, int slot, instr_time *lapt, pg_gpu_agg_slot *buf)
{
	pg_gpu_error err;

	wait_slot(ps, slot);
	INSTR_TIME_SET_CURRENT(*lapt);
	if (pg_gpu_agg_slot_get(ps->agg, slot, buf, &err) != PG_GPU_OK)
		return scan_fail(ps, PgGpuFallbackFor(err.status), err.message);
	return true;
}

/* Hand the slot's npages (if any) to the engine; a chunk counted. */
static bool
give_slot(PgGpuPageScan *ps, int slot, int npages, int nvis, instr_time *lapt)
{
	pg_gpu_error err;

	if (npages > 0 && pg_gpu_agg_submit(ps->agg, slot, npages, nvis, &err) != PG_GPU_OK)
		return scan_fail(ps, PgGpuFallbackFor(err.status), err.message);
	lap(&ps->t_pages, lapt);
	return count_chunk(ps);
}

/*
 * A table cache hit: hand the engine the copies' addresses in GPU memory, in
 * chunks as large as its slots take; nothing is pinned.
 */
static bool
scan_cached(PgGpuPageScan *ps, instr_time *lapt)
{
	const BlockNumber *blk;
	const uint16 *nlp;
	const int32 *vis_of;
	const uint32 *vis;
	uint64		arena;
	int64		n = PgGpuTableCachePages(&ps->tc, &blk, &nlp, &vis_of, &vis, &arena);
	int64		k = 0;
	int			slot = 0;

	while (k < n)
	{
		pg_gpu_agg_slot buf;
		int			npages = 0;
		int			nvis = 0;

		CHECK_FOR_INTERRUPTS();
		if (!take_slot(ps, slot, lapt, &buf))
			return false;
		for (; k < n && npages < buf.capacity; k++, npages++)
		{
			pg_gpu_page_ref *ref = &buf.refs[npages];

			ref->addr = arena + (uint64) k * BLCKSZ;
			ref->nlp = nlp[k];
			ref->vis_idx = -1;
			if (vis_of[k] >= 0)
			{
				memcpy(buf.vis + (size_t) nvis * PG_GPU_VIS_WORDS,
					   vis + (size_t) vis_of[k] * PG_GPU_VIS_WORDS, sizeof(uint32) * PG_GPU_VIS_WORDS);
				ref->vis_idx = nvis++;
			}
			if (ps->page_blk)
				ps->page_blk[ps->npage_blk++] = blk[k];
		}
		if (!give_slot(ps, slot, npages, nvis, lapt))
			return false;
		slot = (slot + 1) % PG_GPU_AGG_SLOTS;
	}
	for (int i = 0; i < PG_GPU_AGG_SLOTS; i++)
		wait_slot(ps, i);
	return true;
}

static bool scan_shared_buffers(PgGpuPageScan *ps, instr_time *lapt, int pin_workers_min_pages);

/*
 * Stream every page of the relation to ps->agg (begun with the prepared task)
 * and wait for the GPU to finish with them: from the table cache, or from shared
 * buffers (and maybe filling the cache).  False with ps->fb_* set when the scan
 * cannot go on; the caller then ends the engine before scan_release.
 */
static bool
scan_pages(PgGpuPageScan *ps, instr_time *lapt, int pin_workers_min_pages)
{
	bool		ok;

	if (ps->tc.use == PG_GPU_TC_HIT)
		ok = scan_cached(ps, lapt);
	else
		ok = scan_shared_buffers(ps, lapt, pin_workers_min_pages);
	return ok;
}

/*
 * The engine finished the scan without an error: a fill's copies are complete.
 * Not before: an engine that meets an error (an expression's, a page it cannot
 * decode) stops working on chunks, and their copies were never made; such a
 * scan's fill is abandoned by scan_release.
 */
static void
scan_complete(PgGpuPageScan *ps)
{
	PgGpuTableCacheDone(&ps->tc, ps->rel, true);
}

/* Pin the relation's pages in shared buffers and hand them to the engine. */
static bool
scan_shared_buffers(PgGpuPageScan *ps, instr_time *lapt, int pin_workers_min_pages)
{
	Relation	rel = ps->rel;
	Snapshot	snapshot = ps->snapshot;
	BlockNumber nblocks = ps->nblocks;
	BlockNumber blk = 0;
	BufferAccessStrategy strategy = NULL;
	RecentBuffers *rb = NULL;
	pg_gpu_agg_slot probe;
	pg_gpu_error err;
	int			slot = 0;
	int			capacity;

	if (pg_gpu_agg_slot_get(ps->agg, 0, &probe, &err) != PG_GPU_OK)
		return scan_fail(ps, PgGpuFallbackFor(err.status), err.message);
	/* workers started before the engine, for slots that turned out smaller */
	if (ps->pin_ctx && probe.capacity < PG_GPU_PIN_CHUNK_PAGES)
	{
		PgGpuPinCtx *ctx = ps->pin_ctx;

		ps->pin_ctx = NULL;
		ps->pin_workers = 0;
		PgGpuPinWorkersAbort(ctx);
	}
	/* in place and big enough: let parallel workers do the pinning */
	if (scan_start_workers(ps, pin_workers_min_pages, probe.capacity))
		return run_chunks_from_workers(ps, lapt);

	if (scan_bulkread(ps))
		strategy = GetAccessStrategy(BAS_BULKREAD);
	else if (nblocks > 0)
		rb = recent_buffers(rel, nblocks);

	reserve_pins(ps, ps->chunk_pages);

	while (blk < nblocks)
	{
		pg_gpu_agg_slot buf;
		int			npages = 0;
		int			nvis = 0;

		if (!take_slot(ps, slot, lapt, &buf))
			return false;
		capacity = Min(buf.capacity, ps->chunk_pages);

		for (; blk < nblocks && npages < capacity; blk++)
		{
			Buffer		b;
			Page		page;
			OffsetNumber nlp;
			bool		has_bits;
			bool		stable;
			pg_gpu_page_ref *ref;

			CHECK_FOR_INTERRUPTS();
			if (rb && blk + PREFETCH_AHEAD < nblocks)
				prefetch_buffer(rb->bufs[blk + PREFETCH_AHEAD]);
			b = pin_block(rel, blk, strategy, rb);
			LockBuffer(b, BUFFER_LOCK_SHARE);
			page = BufferGetPage(b);
			nlp = PgGpuInspectPage(rel, snapshot, b, blk,
								   buf.vis + (size_t) nvis * PG_GPU_VIS_WORDS, &has_bits, &stable);
			if (nlp == 0)
			{
				UnlockReleaseBuffer(b);
				continue;
			}
			ref = &buf.refs[npages];
			ref->nlp = nlp;
			PgGpuTableCacheNote(&ps->tc, blk, nlp, has_bits, stable,
								buf.vis + (size_t) nvis * PG_GPU_VIS_WORDS);
			ref->vis_idx = has_bits ? nvis++ : -1;
			if (ps->registered)
			{
				LockBuffer(b, BUFFER_LOCK_UNLOCK);
				ref->addr = page_addr(ps, b);
				ps->pins[slot][ps->npins[slot]++] = b;
			}
			else
			{
				memcpy(buf.staging + (size_t) npages * BLCKSZ, page, BLCKSZ);
				ref->addr = 0;
				UnlockReleaseBuffer(b);
			}
			if (ps->page_blk)
				ps->page_blk[ps->npage_blk++] = blk;
			npages++;
		}
		if (!give_slot(ps, slot, npages, nvis, lapt))
			return false;
		slot = (slot + 1) % PG_GPU_AGG_SLOTS;
	}
	for (int i = 0; i < PG_GPU_AGG_SLOTS; i++)
		wait_slot(ps, i);
	if (strategy)
		FreeAccessStrategy(strategy);
	return true;
}

/*
 * A key set's keys from a table's pages.  Nothing overlaps this scan's pinning
 * (the probe scan waits for the set), so parallel workers pin its pages from an
 * eighth of pg_gpu.pin_workers_min_pages on: on the H100 host, collecting the
 * 1 M keys of bench Q5 (8,334 pages) took 15-18 ms with 8 workers against
 * 18-22 ms without.
 */
bool
PgGpuCollectKeys(Relation rel, Snapshot snapshot, const pg_gpu_agg_task *plan_task, int settype,
				 PgGpuCollected *out, PgGpuFallback *reason, char *msg, size_t msglen)
{
	pg_gpu_agg_task *task = (pg_gpu_agg_task *) palloc(sizeof(pg_gpu_agg_task));
	PgGpuPageScan ps;
	pg_gpu_agg_result res;
	pg_gpu_error err;
	instr_time	lapt;
	bool		ok = false;

	memcpy(task, plan_task, sizeof(*task));
	memset(out, 0, sizeof(*out));
	memset(&ps, 0, sizeof(ps));	/* no pin arrays yet */
	INSTR_TIME_SET_CURRENT(lapt);
	if (!scan_prepare(&ps, rel, snapshot, CurrentMemoryContext, task))
	{
		*reason = ps.fb_reason;
		strlcpy(msg, ps.fb_msg, msglen);
		pfree(task);
		return false;
	}
	task->total_pages = Max(ps.nblocks, 1);	/* bounds the keys' buffers */

	/* on an error, the GPU must stop reading the pinned pages; abort unpins them */
	PG_TRY();
	{
		if ((ps.agg = pg_gpu_agg_begin(task, &err)) == NULL)
			scan_fail(&ps, PgGpuFallbackFor(err.status), err.message);
		else if (scan_pages(&ps, &lapt, pg_gpu_pin_workers_min_pages / 8))
		{
			if (pg_gpu_agg_finish(ps.agg, &res, &err) != PG_GPU_OK ||
				(out->ks = pg_gpu_agg_keyset(ps.agg, settype, &out->keys, &out->has_null,
											 &err)) == NULL)
				scan_fail(&ps, PgGpuFallbackFor(err.status), err.message);
			else
			{
				scan_complete(&ps);
				out->nonempty = res.nrows > 0;
				out->pages = res.pages;
				out->gpu_ms = res.gpu_ms;
				ok = true;
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
	scan_release(&ps, true);
	for (int i = 0; i < PG_GPU_AGG_SLOTS; i++)
		if (ps.pins[i])
			pfree(ps.pins[i]);
	if (!ok)
	{
		*reason = ps.fb_reason;
		strlcpy(msg, ps.fb_msg, msglen);
	}
	pfree(task);
	return ok;
}

/*
 * Stream the table through the GPU.  Returns true with s->res filled, or false with
 * s->fb_reason set (engine released, pins dropped).
 */
static bool
run_on_gpu(GpuAggState *s)
{
	Relation	rel = s->rel;
	Snapshot	snapshot = s->css.ss.ps.state->es_snapshot;
	PgGpuFallback reason;
	pg_gpu_error err;
	char		msg[256];
	instr_time	t0,
				t1,
				lapt;

	INSTR_TIME_SET_CURRENT(t0);
	lapt = t0;
	INSTR_TIME_SET_ZERO(s->t_setup);
	INSTR_TIME_SET_ZERO(s->t_finish);
	INSTR_TIME_SET_ZERO(s->t_fetch);
	if (!scan_prepare(&s->scan, rel, snapshot, s->css.ss.ps.state->es_query_cxt, &s->task))
		return give_up(s, s->scan.fb_reason, s->scan.fb_msg);
	if (s->sort)
	{
		s->task.total_pages = Max(s->scan.nblocks, 1);
		s->task.sort_budget = (int64) pg_gpu_device_memory_limit * 1024;
	}
	/* each page's block, for the tuples' TIDs; kept from run to run (rescans) */
	if (s->need_tid)
	{
		if (s->page_blk_cap < Max(s->scan.nblocks, 1))
		{
			if (s->page_blk)
				pfree(s->page_blk);
			s->page_blk_cap = Max(s->scan.nblocks, 1);
			s->page_blk = (BlockNumber *)
				MemoryContextAllocHuge(s->css.ss.ps.state->es_query_cxt,
									   sizeof(BlockNumber) * s->page_blk_cap);
		}
		s->scan.page_blk = s->page_blk;
	}

	/*
	 * A join: the probe table's pin workers start first, so that their start-up
	 * and first chunks overlap the key set's build.  They put the backend in
	 * parallel mode, so only when the build runs nothing parallel-unsafe (and
	 * takes no parallel workers of its own): keys collected on the GPU, from
	 * plans PostgreSQL marked parallel-safe should the GPU give them back.
	 */
	if (s->set_sources != NIL && pg_gpu_pin_workers_early &&
		PgGpuSetsParallelSafe(s->set_sources, s->css.custom_ps, s->css.ss.ps.state))
		scan_start_workers(&s->scan, pg_gpu_pin_workers_min_pages, s->task.chunk_pages);
	if (s->set_sources != NIL &&
		!PgGpuBuildSets(s->set_sources, s->css.custom_ps, s->css.ss.ps.state,
						s->node, &s->task, &s->sets,
						&reason, msg, sizeof(msg)))
		return give_up(s, reason, msg);
	s->agg = pg_gpu_agg_begin(&s->task, &err);
	if (!s->agg)
		return give_up(s, PgGpuFallbackFor(err.status), err.message);
	s->scan.agg = s->agg;
	lap(&s->t_setup, &lapt);

	if (!scan_pages(&s->scan, &lapt, pg_gpu_pin_workers_min_pages))
		return give_up(s, s->scan.fb_reason, s->scan.fb_msg);

	INSTR_TIME_SET_CURRENT(lapt);
	if (pg_gpu_agg_finish(s->agg, &s->res, &err) != PG_GPU_OK)
		return give_up(s, PgGpuFallbackFor(err.status), err.message);
	scan_complete(&s->scan);
	if (s->nkeys > 0 && (s->res.group_flags & PG_GPU_COLF_SXX_UNSURE))
		return give_up(s, PG_GPU_FB_EXPR_ERROR,
					   "float values so large that PostgreSQL's variance steps may overflow");
	/* grouped or sorted: the engine holds the rows until they are emitted */
	release_gpu(s, true, s->nkeys > 0 || s->sort);
	lap(&s->t_finish, &lapt);
	INSTR_TIME_SET_CURRENT(t1);
	INSTR_TIME_SUBTRACT(t1, t0);
	s->wall_ms = INSTR_TIME_GET_MILLISEC(t1);
	s->gpu_ran = true;
	return true;
}

/*
 * The node's output for one scan tuple, or NULL if the qual (HAVING, in direct
 * mode) rejects it.
 */
static TupleTableSlot *
project(GpuAggState *s, TupleTableSlot *scanslot)
{
	ProjectionInfo *proj = s->css.ss.ps.ps_ProjInfo;
	ExprContext *econtext = s->css.ss.ps.ps_ExprContext;
	ExprState  *qual = s->css.ss.ps.qual;

	ResetExprContext(econtext);
	econtext->ecxt_scantuple = scanslot;
	if (qual && !ExecQual(qual, econtext))
	{
		InstrCountFiltered1(&s->css.ss.ps, 1);
		return NULL;
	}
	return proj ? ExecProject(proj) : scanslot;
}

/* A grouping key's word from the engine as a Datum of its type. */
static Datum
key_datum(Oid typid, uint64 w)
{
	switch (typid)
	{
		case INT2OID:
			return Int16GetDatum((int16) (int64) w);
		case INT4OID:
		case DATEOID:
			return Int32GetDatum((int32) (int64) w);
		case FLOAT4OID:
			{
				double		d;

				memcpy(&d, &w, 8);
				return Float4GetDatum((float4) d);
			}
		case FLOAT8OID:
			{
				double		d;

				memcpy(&d, &w, 8);
				return Float8GetDatum(d);
			}
		case TEXTOID:
		case VARCHAROID:
		case BPCHAROID:
			/* the engine's copy of the group's first value, a varlena */
			return PointerGetDatum((void *) (uintptr_t) w);
		default:				/* int8, timestamp, timestamptz */
			return Int64GetDatum((int64) w);
	}
}

/* The scan tuple of one result row: keys, then the partial states. */
static TupleTableSlot *
emit_row(GpuAggState *s, const uint64 *keys, uint32 nullmask, int64 rows,
		 const pg_gpu_col_state *cols)
{
	TupleTableSlot *slot = s->css.ss.ss_ScanTupleSlot;
	MemoryContext old;

	MemoryContextReset(s->row_cxt);
	old = MemoryContextSwitchTo(s->row_cxt);
	ExecClearTuple(slot);
	for (int k = 0; k < s->nkeys; k++)
	{
		slot->tts_isnull[k] = (nullmask >> k) & 1;
		slot->tts_values[k] = slot->tts_isnull[k] ? (Datum) 0 : key_datum(s->key_typid[k], keys[k]);
	}
	for (int i = 0; i < s->nout; i++)
	{
		const pg_gpu_col_state *col = s->out_col[i] >= 0 ? &cols[s->out_col[i]] : NULL;

		Datum		d = PgGpuPartialState((PgGpuAggState) s->out_state[i], s->out_coltype[i],
										  col, rows, &slot->tts_isnull[s->nkeys + i]);

		/* direct mode: the aggregate's own final function over its state */
		if (s->direct && s->finalfn[i].fn_oid != InvalidOid &&
			!(slot->tts_isnull[s->nkeys + i] && s->finalfn[i].fn_strict))
		{
			LOCAL_FCINFO(fcinfo, 1);

			InitFunctionCallInfoData(*fcinfo, &s->finalfn[i], 1, InvalidOid, NULL, NULL);
			fcinfo->args[0].value = d;
			fcinfo->args[0].isnull = slot->tts_isnull[s->nkeys + i];
			d = FunctionCallInvoke(fcinfo);
			slot->tts_isnull[s->nkeys + i] = fcinfo->isnull;
		}
		slot->tts_values[s->nkeys + i] = d;
	}
	MemoryContextSwitchTo(old);
	ExecStoreVirtualTuple(slot);
	return project(s, slot);
}

/*
 * GpuSort: the next tuple of the engine's batches, in order, into slot; false
 * once every tuple was handed out (the engine is then released).
 */
static bool
next_batch_tuple(GpuAggState *s, TupleTableSlot *slot)
{
	uint64		r;

	if (s->batch_pos >= s->batch.nrows)
	{
		pg_gpu_error err;
		instr_time	t;

		if (s->agg == NULL)
			return false;		/* every row was handed out, the engine is gone */
		CHECK_FOR_INTERRUPTS();
		ExecClearTuple(slot);	/* it points into the batch about to be refilled */
		INSTR_TIME_SET_CURRENT(t);
		if (pg_gpu_sort_next(s->agg, &s->batch, &err) != PG_GPU_OK)
			ereport(ERROR,
					(errcode(ERRCODE_SYSTEM_ERROR),
					 errmsg("GpuSort could not read its sorted rows: %s", err.message)));
		lap(&s->t_fetch, &t);
		s->batch_pos = 0;
		if (s->batch.nrows == 0)
		{
			release_gpu(s, true);
			return false;
		}
	}
	r = s->batch.ref[s->batch_pos];
	s->htup.t_len = (uint32) (r & 0xFFFF);
	s->htup.t_data = (HeapTupleHeader) (s->batch.data +
										(s->batch.off[s->batch_pos] - s->batch.off[0]));
	/* a random read per row (the rows are in key order): only when asked for */
	if (s->need_tid)
		ItemPointerSet(&s->htup.t_self, s->scan.page_blk[r >> 32],
					   (OffsetNumber) ((r >> 16) & 0xFFFF));
	s->htup.t_tableOid = RelationGetRelid(s->rel);
	s->batch_pos++;
	ExecStoreHeapTuple(&s->htup, slot, false);
	return true;
}

/* GpuSort: the next sorted tuple, projected. */
static TupleTableSlot *
next_sorted(GpuAggState *s)
{
	TupleTableSlot *scanslot = s->css.ss.ss_ScanTupleSlot;

	for (;;)
	{
		TupleTableSlot *out;

		if (!next_batch_tuple(s, scanslot))
			return NULL;
		if ((out = project(s, scanslot)) != NULL)
			return out;
	}
}

/*
 * GpuHashJoin reading the build side: the first kept build row of each key, in
 * order (the rows of a key are chained from it, sets.next).
 */
static void
build_chains(GpuAggState *s)
{
	s->heads = (int64 *) MemoryContextAllocHuge(s->sets.rows_cxt,
												sizeof(int64) * Max(s->sets.nrows, 1));
	s->next = s->sets.next;
	s->nheads = 0;
	for (int64 i = 0; i < s->sets.nrows; i++)
		if (s->sets.ord[i] == i)
			s->heads[s->nheads++] = i;
	s->head_pos = 0;
	s->chain = -1;
}

/*
 * GpuHashJoin reading the build side: the next output row.  The GPU hands back
 * each matching probe row once, in the order of its key's first index in the
 * set, which is the order of the chains: the chain of the probe row's key is
 * the first one from head_pos on whose key its join operator finds equal, and
 * the row is paired with each build row of it.
 */
static TupleTableSlot *
next_joined(GpuAggState *s)
{
	TupleTableSlot *scanslot = s->css.ss.ss_ScanTupleSlot;
	ExprContext *econtext = s->css.ss.ps.ps_ExprContext;

	for (;;)
	{
		TupleTableSlot *out;
		int64		j;

		while (s->chain < 0)
		{
			Datum		pk,
						bk;
			bool		pnull,
						bnull;

			if (!next_batch_tuple(s, s->probe_slot))
				return NULL;
			ResetExprContext(econtext);
			econtext->ecxt_scantuple = s->probe_slot;
			pk = ExecEvalExprSwitchContext(s->probe_key, econtext, &pnull);
			/* detoasted copies the equality makes go with the row */
			MemoryContext old = MemoryContextSwitchTo(econtext->ecxt_per_tuple_memory);

			for (; !pnull && s->head_pos < s->nheads; s->head_pos++)
			{
				ExecStoreMinimalTuple(s->sets.rows[s->heads[s->head_pos]], s->build_slot, false);
				bk = slot_getattr(s->build_slot, 1, &bnull);
				if (!bnull &&
					DatumGetBool(s->probe_left
								 ? FunctionCall2Coll(&s->eq, s->eq_coll, pk, bk)
								 : FunctionCall2Coll(&s->eq, s->eq_coll, bk, pk)))
				{
					s->chain = s->heads[s->head_pos];
					break;
				}
			}
			MemoryContextSwitchTo(old);
			if (s->chain < 0)
				ereport(ERROR,
						(errcode(ERRCODE_INTERNAL_ERROR),
						 errmsg("GpuHashJoin found no build row for a row the GPU matched")));
			slot_getsomeattrs(s->probe_slot, s->max_attno);
		}
		j = s->chain;
		s->chain = s->next[j];
		ExecStoreMinimalTuple(s->sets.rows[j], s->build_slot, false);
		slot_getallattrs(s->build_slot);
		ExecClearTuple(scanslot);
		for (int c = 0; c < s->nfrom; c++)
		{
			int			f = s->from[c];
			TupleTableSlot *src = f > 0 ? s->probe_slot : s->build_slot;
			int			a = (f > 0 ? f : -f) - 1;

			scanslot->tts_values[c] = src->tts_values[a];
			scanslot->tts_isnull[c] = src->tts_isnull[a];
		}
		ExecStoreVirtualTuple(scanslot);
		if ((out = project(s, scanslot)) != NULL)
			return out;
	}
}

static TupleTableSlot *
ExecGpuAggImpl(GpuAggState *s)
{
	TupleTableSlot *slot;

	if (s->fallback && s->sort)
		return ExecProcNode((PlanState *) linitial(s->css.custom_ps));	/* the query's rows */
	if (s->gpu_ran && s->sort)
		return s->rows_out ? next_joined(s) : next_sorted(s);
	if (s->fallback)
	{
		for (;;)
		{
			TupleTableSlot *out;

			slot = ExecProcNode((PlanState *) linitial(s->css.custom_ps));
			if (TupIsNull(slot))
				return NULL;
			if ((out = project(s, slot)) != NULL)
				return out;
		}
	}
	if (s->gpu_ran && s->nkeys > 0)
	{
		uint64		keys[PG_GPU_MAX_KEYS];
		uint32		nullmask;
		int64		rows;
		pg_gpu_col_state cols[PG_GPU_MAX_AGG_COLS];

		for (;;)
		{
			TupleTableSlot *out;

			if (s->next_group >= s->res.ngroups)
			{
				release_gpu(s, true);
				return NULL;
			}
			CHECK_FOR_INTERRUPTS();
			pg_gpu_agg_group(s->agg, s->next_group++, keys, &nullmask, &rows, cols);
			if ((out = emit_row(s, keys, nullmask, rows, cols)) != NULL)
				return out;
		}
	}
	if (s->done)
		return NULL;
	s->done = true;

	if (!run_on_gpu(s))
	{
		s->fallback = true;
		PgGpuNoteFallback(s->node, s->fb_reason, s->fb_msg);
		return ExecGpuAggImpl(s);
	}
	if (s->task.emulate)
		PgGpuStatsEmulatedRun(s->node);
	else
		PgGpuStatsGpuRun(s->node, s->res.bytes_h2d, s->res.gpu_ms);
	if (s->sort)
	{
		s->batch.nrows = 0;
		s->batch_pos = 0;
		if (s->rows_out)
		{
			build_chains(s);
			return next_joined(s);
		}
		return next_sorted(s);
	}

	if (s->nkeys > 0)
	{
		s->next_group = 0;
		return ExecGpuAggImpl(s);
	}
	return emit_row(s, NULL, 0, s->res.nrows, s->res.cols);
}

static TupleTableSlot *
exec_forward(CustomScanState *node)
{
	return ExecGpuAggImpl((GpuAggState *) node);
}

static TupleTableSlot *
ExecGpuAgg(CustomScanState *node)
{
	TupleTableSlot *slot = NULL;

	PG_GPU_GUARD(slot = PgGpuScrollNext(&((GpuAggState *) node)->scroll, node, exec_forward));
	return slot;
}

static void
EndGpuAgg(CustomScanState *node)
{
	GpuAggState *s = (GpuAggState *) node;

	ListCell   *lc;

	release_gpu(s, true);
	PgGpuScrollEnd(&s->scroll);
	foreach(lc, s->css.custom_ps)
		ExecEndNode((PlanState *) lfirst(lc));
}

static void
ReScanGpuAgg(CustomScanState *node)
{
	GpuAggState *s = (GpuAggState *) node;
	ListCell   *lc;

	release_gpu(s, true);
	PgGpuScrollReset(&s->scroll);
	s->done = false;
	s->fallback = false;
	s->gpu_ran = false;
	s->next_group = 0;
	s->batch.nrows = 0;
	s->batch_pos = 0;
	s->chain = -1;
	s->head_pos = 0;
	/* ExecReScan passes changed parameters to lefttree/righttree only */
	foreach(lc, s->css.custom_ps)
	{
		if (s->css.ss.ps.chgParam != NULL)
			UpdateChangedParamSet((PlanState *) lfirst(lc), s->css.ss.ps.chgParam);
		ExecReScan((PlanState *) lfirst(lc));
	}
}

static void
ExplainGpuAgg(CustomScanState *node, List *ancestors, ExplainState *es)
{
	GpuAggState *s = (GpuAggState *) node;
	CustomScan *cscan = (CustomScan *) s->css.ss.ps.plan;

	const char *filter = strVal(list_nth(cscan->custom_private, GPUAGG_PRIV_FILTER_TEXT));

	if (filter[0] != '\0')
		ExplainPropertyText("GPU Filter", filter, es);
	PgGpuExplainSets(s->set_sources, &s->sets, es->analyze && s->gpu_ran, es);
	if (!es->analyze)
		return;
	if (s->gpu_ran)
	{
		ExplainPropertyText("Page Access",
							s->task.emulate ? "emulated on the CPU" :
							s->scan.tc.use == PG_GPU_TC_HIT ? "copies in GPU memory (table cache)" :
							s->scan.registered ? "shared buffers read in place" : "copied via pinned staging",
							es);
		if (s->scan.tc.use != PG_GPU_TC_NONE)
			ExplainPropertyText("Table Cache",
								s->scan.tc.use == PG_GPU_TC_HIT ? "read from GPU memory" :
								s->scan.tc.filled ? "filled" :
								psprintf("fill abandoned: %s", s->scan.tc.why), es);
		else if (s->scan.tc.why[0])
			ExplainPropertyText("Table Cache", psprintf("not used: %s", s->scan.tc.why), es);
		ExplainPropertyInteger("Pages", NULL, s->res.pages, es);
		ExplainPropertyInteger("Chunks", NULL, s->res.chunks, es);
		ExplainPropertyInteger("Bytes Moved", "bytes", (int64) s->res.bytes_h2d, es);
		if (s->sort)
		{
			ExplainPropertyInteger(s->node == PG_GPU_NODE_SORT ? "Rows Sorted" : "Rows Kept", NULL,
								   s->res.nrows, es);
			if (s->res.sort_runs > 0)
				ExplainPropertyInteger("Sorted Runs Merged", NULL, s->res.sort_runs, es);
			if (s->res.sort_topn > 0)
				ExplainPropertyInteger("Top-N Rows Kept", NULL, s->res.sort_topn, es);
		}
		if (s->nkeys > 0)
		{
			ExplainPropertyInteger("Groups", NULL, s->res.ngroups, es);
			if (s->res.grows > 0)
				ExplainPropertyInteger("Hash Table Grows", NULL, s->res.grows, es);
		}
		if (s->scan.pin_workers > 0)
			ExplainPropertyInteger("Pin Workers", NULL, s->scan.pin_workers, es);
		else if (s->scan.pin_tried)
			ExplainPropertyText("Pin Workers", "none could be launched", es);
		/* the node's own phase timers: no per-row cost, so also under TIMING OFF */
		{
			ExplainPropertyFloat("GPU Time", "ms", s->res.gpu_ms, 3, es);
			ExplainPropertyFloat(psprintf("%s Wall Time", cscan->methods->CustomName), "ms",
								 s->wall_ms, 3, es);
			ExplainPropertyFloat("CPU Setup Time", "ms", INSTR_TIME_GET_MILLISEC(s->t_setup), 3, es);
			ExplainPropertyFloat("CPU Page Time", "ms", INSTR_TIME_GET_MILLISEC(s->scan.t_pages), 3, es);
			ExplainPropertyFloat("CPU Wait Time", "ms", INSTR_TIME_GET_MILLISEC(s->scan.t_wait), 3, es);
			ExplainPropertyFloat("Finish Time", "ms", INSTR_TIME_GET_MILLISEC(s->t_finish), 3, es);
			if (s->sort)
				ExplainPropertyFloat("Batch Copy Time", "ms", INSTR_TIME_GET_MILLISEC(s->t_fetch), 3, es);
		}
	}
	else if (s->fallback)
	{
		ExplainPropertyText("Fallback", PgGpuFallbackName(s->fb_reason), es);
		ExplainPropertyText("Fallback Detail", s->fb_msg, es);
	}
}

void
PgGpuAggExecInit(void)
{
	RegisterCustomScanMethods(&gpuagg_scan_methods);
	RegisterCustomScanMethods(&gpusort_scan_methods);
	RegisterCustomScanMethods(&gpuhashjoin_scan_methods);
	RegisterCustomScanMethods(&gpusemijoin_scan_methods);
}
