/*
 * table_node.h — what the GPU nodes that scan one heap table's pages share
 * (GpuAgg, and GpuSort, GpuHashJoin and GpuSemiJoin over a table): the engine's
 * run over the table, the fallback to the node's CPU plan, the rows the engine
 * keeps handed back in batches, and EXPLAIN's account of the scan.  Each node's
 * state struct starts with a PgGpuTableNode (table_node.cpp).  Include after
 * postgres.h.
 */
#ifndef PG_GPU_TABLE_NODE_H
#define PG_GPU_TABLE_NODE_H

#include "access/htup.h"
#include "commands/explain.h"
#include "nodes/execnodes.h"

#include "pg_gpu_engine.h"
#include "nodes/keysets.h"
#include "scan/heap_reader.h"

typedef struct PgGpuTableNode
{
	CustomScanState css;

	/* from the plan */
	PgGpuNode	node;			/* for pg_gpu_stats and fallbacks */
	pg_gpu_agg_task task;
	int			nkeys;			/* GpuAgg: grouping keys, which the engine
								 * keeps (0 for the other nodes) */
	bool		batched;		/* the engine keeps the rows, handed back in
								 * batches (GpuSort, GpuHashJoin, GpuSemiJoin) */
	List	   *set_sources;	/* the task's key sets (expr_compile.h) */
	List	   *params;			/* InitPlan parameters whose values the task's
								 * constants take before each run
								 * (PgGpuCompiler.params) */

	/*
	 * The scanned table.  ss_currentRelation stays NULL: execCurrent.c would
	 * take a custom scan with a relation for a plain scan of it and read the
	 * current row's TID from its scan slot, but a GPU node's row is a sorted,
	 * joined or aggregated one, as PostgreSQL's Sort, Hash Join or Agg would
	 * hand up, so WHERE CURRENT OF must say what it says over those.
	 */
	Relation	rel;

	/* batched rows */
	bool		need_tid;		/* the output reads a system column */
	BlockNumber *page_blk;		/* ... then each page's block (scan.page_blk) */
	BlockNumber page_blk_cap;
	pg_gpu_sort_batch batch;
	int64		batch_pos;
	HeapTupleData htup;			/* the tuple the scan slot points at */

	/* execution */
	bool		done;
	bool		fallback;
	bool		gpu_ran;
	PgGpuFallback fb_reason;
	char		fb_msg[256];
	pg_gpu_agg *agg;
	PgGpuPageScan scan;			/* the table's pages streamed to agg */
	MemoryContextCallback cleanup;
	PgGpuSets	sets;
	PgGpuSvcChannel *svc;		/* the GPU service's channel holding the sets and
								 * running the task, while they live */

	/* instrumentation */
	pg_gpu_agg_result res;
	double		wall_ms;
	instr_time	t_setup;		/* engine start-up for this query */
	instr_time	t_finish;		/* final synchronisation and merge */
	instr_time	t_fetch;		/* batched rows: copying batches back */
} PgGpuTableNode;

/* An IntList of custom_private as an array (one element at least). */
int		   *PgGpuIntListArray(List *l);

/* A node's state of size bytes, its first member a PgGpuTableNode. */
PgGpuTableNode *PgGpuTableNodeCreate(size_t size, const CustomExecMethods *methods,
									 PgGpuNode node, bool batched);

/* BeginCustomScan, first: the table (kept from execCurrent.c) and the task. */
void		PgGpuTableNodeBegin(PgGpuTableNode *t, Const *task);

/*
 * The scan tuple a table's own tuple in the engine's batches: a heap slot
 * (PostgreSQL 15 gives custom scans a virtual one) and the projection built
 * again for it.
 */
void		PgGpuTableNodeHeapSlot(PgGpuTableNode *t, EState *estate);

/*
 * BeginCustomScan, last: the child plans (the CPU plan first, then a join's
 * build side), the key sets' sources, and the callback that ends the engine
 * with the query's memory.
 */
void		PgGpuTableNodeBeginChildren(PgGpuTableNode *t, EState *estate, int eflags,
										List *set_sources);

/*
 * Run the task over the table once (t->done set): true with t->res filled and
 * the run counted, or false with t->fallback set and the fallback counted.
 */
bool		PgGpuTableNodeRun(PgGpuTableNode *t);

/* The node's output for one scan tuple, or NULL if its qual rejects it. */
TupleTableSlot *PgGpuTableNodeProject(PgGpuTableNode *t, TupleTableSlot *scanslot);

/* The CPU plan's next row (the node's fallback). */
TupleTableSlot *PgGpuTableNodeChildRow(PgGpuTableNode *t);

/*
 * Batched rows: the next tuple of the engine's batches, in order, into slot;
 * false once every tuple was handed out (the engine is then released).
 */
bool		PgGpuTableNodeNextTuple(PgGpuTableNode *t, TupleTableSlot *slot);

/* Batched rows: the next one, projected (NULL at the end). */
TupleTableSlot *PgGpuTableNodeNextRow(PgGpuTableNode *t);

/* Release the engine (unless keep_engine) and any pins; safe to repeat. */
void		PgGpuTableNodeRelease(PgGpuTableNode *t, bool release_pins, bool keep_engine);

/* EndCustomScan: the engine, then the child plans. */
void		PgGpuTableNodeEnd(PgGpuTableNode *t);

/* ReScanCustomScan: back to before the run; the child plans rescanned. */
void		PgGpuTableNodeReScan(PgGpuTableNode *t);

/*
 * ExplainCustomScan: the GPU filter, the key sets and, with ANALYZE, the
 * scan's account; node_rows adds the node's own lines after "Bytes Moved".
 */
void		PgGpuTableNodeExplain(PgGpuTableNode *t, const char *filter, ExplainState *es,
								  void (*node_rows) (PgGpuTableNode *t, ExplainState *es));

/* node_rows of the batched nodes: the rows kept, the sort's runs and top-N. */
void		PgGpuTableNodeExplainBatched(PgGpuTableNode *t, ExplainState *es);

#endif							/* PG_GPU_TABLE_NODE_H */
