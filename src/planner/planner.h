/*
 * planner.h — what every GPU node's planning shares: which tables are worth
 * planning for and what scanning them costs (cost.cpp), and the pieces of a
 * task built from the query (task.cpp).  Include after postgres.h.
 */
#ifndef PG_GPU_PLANNER_H
#define PG_GPU_PLANNER_H

#include "nodes/pathnodes.h"
#include "nodes/primnodes.h"
#include "nodes/value.h"

#include "pg_gpu_engine.h"
#include "expr/expr_compile.h"

/* ---- cost.cpp ---- */

/*
 * The input of a GpuAgg or GpuSort: one plain table (no inheritance, no sampling),
 * big enough to be worth starting GPU work for; its range-table entry, or NULL.
 */
RangeTblEntry *PgGpuPlainTable(PlannerInfo *root, RelOptInfo *input_rel, double scan_cost);

/*
 * Cost of streaming the table through the GPU: start-up (the engine's start,
 * unless first is false or it ran already), pages read in place or copied, and
 * tuple_factor units of per-tuple GPU work.
 */
double		PgGpuStartupCost(bool first = true, bool service = false);
double		PgGpuScanCost(RelOptInfo *input_rel, double tuple_factor, bool first = true,
							  bool service = false);

/* Offer a GPU path; pg_gpu.force makes it the only one. */
void		PgGpuAddPath(RelOptInfo *output_rel, Path *path);
void		PgGpuDropRiskyUpperPaths(PlannerInfo *root, RelOptInfo *output_rel, Cost gpu_total);
void		PgGpuDropRiskyNestLoops(RelOptInfo *joinrel, Cost gpu_total);
double		PgGpuHandoffCost(PlannerInfo *root, RelOptInfo *rel, double rows);
/* Collecting rows keys of a key set from a plan, in this backend (beyond the plan). */
double		PgGpuHostKeysCost(double rows);
/* A GpuHashJoin's build rows read by a rows task: the host's work for rows of them. */
double		PgGpuKeptRowsCost(double rows);

/* ---- rescan.cpp ---- */

/*
 * Whether root is a query level PostgreSQL reruns per outer row: a correlated
 * subquery (SubPlan or LATERAL), or one inside such a level.
 */
bool		PgGpuLevelRescanned(PlannerInfo *root);

/* joinrel's nested loops over this pair that would rescan a GPU node, fixed. */
void		PgGpuShieldNestLoops(PlannerInfo *root, RelOptInfo *joinrel, RelOptInfo *outerrel,
								 RelOptInfo *innerrel, JoinPathExtraData *extra);

/* Whether a relation of relids has a filter with a correlated SubPlan. */
bool		PgGpuFiltersWithCorrelatedSubplan(PlannerInfo *root, Relids relids);

/* ---- task.cpp ---- */

/* A compiler for a task planned over relid, in root (subplans' keys collected). */
void		PgGpuPlannerCompilerInit(PgGpuCompiler *c, pg_gpu_agg_task *task, Index relid,
									 PlannerInfo *root);

/* Whether the GPU decodes the relation's tuples for the task's columns. */
bool		PgGpuRelationSupported(Oid relid, pg_gpu_agg_task *task);

/* The table's quals in the order the scan would evaluate them. */
List	   *PgGpuOrderedQuals(PlannerInfo *root, List *restrictinfos);

/* The column of the scanned table that expr is (under binary-compatible casts). */
bool		PgGpuIsTableColumn(Expr *expr, Index relid);

/* The task as a bytea Const, for custom_private. */
Const	   *PgGpuTaskConst(const pg_gpu_agg_task *task);

/* The GPU's filter as text, for EXPLAIN. */
String	   *PgGpuFilterText(List *quals, Oid relid, Index varno);

/*
 * A collect task (pg_gpu_engine.h) over one plain table, rel of root: the keys
 * key of its rows that pass quals, for a key set of type settype.  NULL when the
 * GPU cannot compute them, or (unless pg_gpu.force) when scanning the table's
 * pages costs more than the CPU's way: running the plan that gives them
 * (plan_cost, plan_rows) and collecting them.  *cost: the cheaper of the two;
 * *relid: the table.  With aux (an integer, date or timestamp expression
 * beside an integer key), the set keeps each key's least and greatest
 * non-NULL aux (a semi-join's inner.b <> outer.x).
 */
Const	   *PgGpuCollectTask(PlannerInfo *root, RelOptInfo *rel, List *quals, Expr *key,
							 int settype, double plan_cost, double plan_rows, double *cost,
							 Oid *relid, Expr *aux = NULL);

/*
 * A rows task over one plain table, rel of root, for a star join's dimension:
 * its rows that pass quals grouped by keys (the join key, then the payload
 * columns), so that each group is one row and the host reads only the values
 * (keysets.cpp).  Integer, date, timestamp, bool and text values; NULL when the GPU
 * cannot, or (unless pg_gpu.force) when it costs more than running the plan
 * (plan_cost, plan_rows).  *cost: the cheaper of the two; *relid: the table.
 * group_cost: the host's work per row handed back (default, below 0:
 * cpu_operator_cost).
 */
Const	   *PgGpuRowsTask(PlannerInfo *root, RelOptInfo *rel, List *quals, List *keys,
						  double plan_cost, double plan_rows, double *cost, Oid *relid,
						  double group_cost = -1.0);

#endif							/* PG_GPU_PLANNER_H */
