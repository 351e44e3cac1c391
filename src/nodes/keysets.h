/*
 * keysets.h — filling a task's key sets at run time (issue 5).
 */
#ifndef PG_GPU_KEYSETS_H
#define PG_GPU_KEYSETS_H

#include "pg_gpu_engine.h"
#include "expr/expr_compile.h"
#include "expr/keybuf.h"
#include "scan/heap_reader.h"

/*
 * The next row of a child plan ps (NULL at its end; interruptible) and its key:
 * the expression key over the row, or else its column resno, or else none
 * (*isnull).
 */
TupleTableSlot *PgGpuPullKey(PlanState *ps, int resno, ExprState *key, ExprContext *econtext,
							 Datum *d, bool *isnull);

/* The key sets of one execution of a task. */
typedef struct PgGpuSets
{
	int			n;
	int			nbuilt;			/* sets whose counts below are filled */
	pg_gpu_keyset *ks[PG_GPU_MAX_SETS];
	/*
	 * svc: the GPU service's channel that holds the sets instead (ks[] NULL),
	 * for a task that runs there; svc_ref: each one's reference.  Set by the
	 * caller (PgGpuSetsInService), kept by PgGpuFreeSets.
	 */
	PgGpuSvcChannel *svc;
	pg_gpu_set_ref svc_ref[PG_GPU_MAX_SETS];
	char		dict[PG_GPU_MAX_SETS][NAMEDATALEN];	/* a dictionary's name, pinned
													 * ("" for other sets) */
	int64		keys[PG_GPU_MAX_SETS];	/* non-NULL keys collected */
	int64		distinct[PG_GPU_MAX_SETS];
	double		build_ms;		/* collecting the keys and building the sets */
	double		collect_ms;		/* ... of which running the sources, collecting */
	double		collect_gpu_ms;	/* GPU time of collections from pages */
	bool		gpu_collected[PG_GPU_MAX_SETS];	/* keys collected from pages on
													 * the GPU ... */
	int64		collect_pages[PG_GPU_MAX_SETS];	/* ... of so many pages */
	double		set_ms[PG_GPU_MAX_SETS];	/* building each set, its source run */
	/*
	 * A set from a rows task (a star join's dimension): the task's phases
	 * (begin, pages, finish, groups taken and end: heap_reader.h), then the
	 * set's build and its payload's, in ms.
	 */
	double		rows_ms[PG_GPU_MAX_SETS][6];
	/* a GpuHashJoin's kept rows from a rows task: its groups, distinct rows (else 0) */
	int64		rows_groups[PG_GPU_MAX_SETS];

	/*
	 * A CHILD source that keeps its rows (a GpuHashJoin whose output reads the
	 * build side): the rows with a non-NULL key, row i holding key i of the
	 * set, and each one's ordinal, the first row with an equal key.
	 */
	MemoryContext rows_cxt;
	MinimalTuple *rows;
	int64	   *ord;
	int64	   *next;			/* the next row with an equal key, or -1 */
	int64		nrows;

	/*
	 * Payloads (a star join's dimension columns): a text column's values by
	 * code (pay_text[set][col][code], the code being the payload word), kept
	 * past PgGpuFreeSets for the groups' keys, in pay_cxt (a child of the
	 * query's context, reset by the next build).
	 */
	MemoryContext pay_cxt;
	struct
	{
		const char *data;		/* value p: data[off[p] .. off[p + 1]) */
		const uint64 *off;
	}			pay_text[PG_GPU_MAX_SETS][PG_GPU_MAX_PAYLOAD];
	/* each payload column's distinct non-NULL values (-1: not known) */
	int64		pay_distinct[PG_GPU_MAX_SETS][PG_GPU_MAX_PAYLOAD];
} PgGpuSets;

/*
 * Build every set the sources (expr_compile.h) describe and point task->sets at
 * them.  children: the node's child plan states (CHILD sources index them);
 * estate: the query's (SUBPLAN sources run its subplans); node: the one
 * whose statistics count a collection the GPU gave back to the CPU.
 * False with *reason and msg set when the GPU cannot run the task.
 */
bool		PgGpuBuildSets(List *sources, List *children, EState *estate, PgGpuNode node,
						   pg_gpu_agg_task *task, PgGpuSets *sets, PgGpuFallback *reason,
						   char *msg, size_t msglen);

/*
 * Whether building the sets runs nothing a backend in parallel mode may not:
 * every set a constant array, a dictionary or collected on the GPU, and the
 * plans that run instead should the GPU give a collection back parallel-safe.
 */
bool		PgGpuSetsParallelSafe(List *sources, List *children, EState *estate);

/*
 * Whether a set's keys are collected on the GPU from a table of min_pages
 * pages or more (whose build scan then wants pin workers of its own).
 */
bool		PgGpuSetsScanLarge(List *sources, BlockNumber min_pages);

/*
 * Whether the GPU service can hold every set of these sources (no dictionary,
 * no payload, no kept rows): a task that probes them may then run there.
 */
bool		PgGpuSetsInService(List *sources);

/* Release the sets (after the engine that probes them); safe to repeat. */
void		PgGpuFreeSets(PgGpuSets *sets);

/* EXPLAIN: each set's source, and with ANALYZE its size. */
void		PgGpuExplainSets(List *sources, const PgGpuSets *sets, bool analyze,
							 ExplainState *es);

#endif							/* PG_GPU_KEYSETS_H */
