/*
 * task.cpp — the parts of a task every node's planning builds alike
 * (planner.h): the compiler, the table's quals in order, the layout check, the
 * task and its filter's text as they go into custom_private, and the collect
 * task that fills a key set from a table's pages.
 */
extern "C" {
#include "postgres.h"

#include <float.h>

#include "access/table.h"
#include "catalog/pg_am.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "parser/parsetree.h"
#include "rewrite/rewriteManip.h"
#include "utils/lsyscache.h"
#include "utils/ruleutils.h"
#include "utils/rel.h"

#include "pg_gpu.h"
#include "pg_gpu_engine.h"
#include "expr/expr_compile.h"
#include "planner/planner.h"
#include "scan/heap_page.h"
}


void
PgGpuPlannerCompilerInit(PgGpuCompiler *c, pg_gpu_agg_task *task, Index relid, PlannerInfo *root)
{
	PgGpuCompilerInit(c, task, relid);
	c->root = root;
	c->collect_task = PgGpuCollectTask;
}

/*
 * Can the relation's tuples be decoded on the GPU for the task's columns?  Plain
 * heap in shared buffers (not temporary), and a layout the kernels walk.
 */
bool
PgGpuRelationSupported(Oid relid, pg_gpu_agg_task *task)
{
	Relation	rel = table_open(relid, NoLock);
	bool		ok = rel->rd_rel->relam == HEAP_TABLE_AM_OID &&
		rel->rd_rel->relpersistence != RELPERSISTENCE_TEMP &&
		PgGpuFillLayout(rel, task);

	table_close(rel, NoLock);
	return ok;
}


/*
 * The table's quals in the order the scan would evaluate them (createplan.c's
 * order_qual_clauses: security level, then cost; stable), so that a row raises an
 * error on the GPU exactly when it would in PostgreSQL's scan.
 */
List *
PgGpuOrderedQuals(PlannerInfo *root, List *restrictinfos)
{
	int			n = list_length(restrictinfos);
	RestrictInfo **ri = (RestrictInfo **) palloc(sizeof(RestrictInfo *) * Max(n, 1));
	Cost	   *cost = (Cost *) palloc(sizeof(Cost) * Max(n, 1));
	List	   *out = NIL;
	int			i = 0;
	ListCell   *lc;

	foreach(lc, restrictinfos)
	{
		QualCost	qc;

		ri[i] = lfirst_node(RestrictInfo, lc);
		cost_qual_eval_node(&qc, (Node *) ri[i]->clause, root);
		cost[i] = qc.per_tuple;
		i++;
	}
	for (i = 1; i < n; i++)
		for (int j = i; j > 0 &&
			 (ri[j]->security_level < ri[j - 1]->security_level ||
			  (ri[j]->security_level == ri[j - 1]->security_level && cost[j] < cost[j - 1])); j--)
		{
			RestrictInfo *r = ri[j];
			Cost		c = cost[j];

			ri[j] = ri[j - 1];
			cost[j] = cost[j - 1];
			ri[j - 1] = r;
			cost[j - 1] = c;
		}
	for (i = 0; i < n; i++)
		out = lappend(out, ri[i]->clause);
	return out;
}

/* The column of the scanned table that expr is (under binary-compatible casts). */
bool
PgGpuIsTableColumn(Expr *expr, Index relid)
{
	while (IsA(expr, RelabelType))
		expr = ((RelabelType *) expr)->arg;
	return IsA(expr, Var) && ((Var *) expr)->varno == (int) relid &&
		((Var *) expr)->varlevelsup == 0 && ((Var *) expr)->varattno > 0;
}

Const *
PgGpuTaskConst(const pg_gpu_agg_task *task)
{
	bytea	   *blob = (bytea *) palloc(VARHDRSZ + sizeof(pg_gpu_agg_task));

	SET_VARSIZE(blob, VARHDRSZ + sizeof(pg_gpu_agg_task));
	memcpy(VARDATA(blob), task, sizeof(pg_gpu_agg_task));
	return makeConst(BYTEAOID, -1, InvalidOid, -1, PointerGetDatum(blob), false, false);
}


/*
 * The GPU's filter as text, for EXPLAIN: the quals are compiled into the task and
 * never evaluated by PostgreSQL above the table, so setrefs never sees them.
 */
/*
 * A Var's "as written" name: a column reached through an aliased join keeps
 * that join's range-table index there (varnosyn), which a one-table deparse
 * context does not have; ChangeVarNodes leaves it alone.  Name it by the table.
 */
static bool
syn_to_table(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var))
	{
		Var		   *v = (Var *) node;

		if (v->varlevelsup == 0)
		{
			v->varnosyn = v->varno;
			v->varattnosyn = v->varattno;
		}
		return false;
	}
	return expression_tree_walker(node, (bool (*)()) (void *) syn_to_table, context);
}

String *
PgGpuFilterText(List *quals, Oid relid, Index varno)
{
	Node	   *e;

	if (quals == NIL)
		return makeString(pstrdup(""));
	e = (Node *) make_ands_explicit((List *) copyObject(quals));
	if (varno != 1)
		ChangeVarNodes(e, (int) varno, 1, 0);
	(void) syn_to_table(e, NULL);
	return makeString(deparse_expression(e, deparse_context_for(get_rel_name(relid), relid),
										 false, false));
}

/* rel as the table a collect or rows task scans: a plain one, read whole; else NULL. */
static RangeTblEntry *
task_table(PlannerInfo *root, RelOptInfo *rel)
{
	/* the task is costed by its caller: no scan cost rules it out here */
	return rel == NULL ? NULL : PgGpuPlainTable(root, rel, DBL_MAX);
}

/*
 * A collect task over one plain table: its rows' keys for a key set (see
 * setjoin.h).
 */
Const *
PgGpuCollectTask(PlannerInfo *root, RelOptInfo *rel, List *quals, Expr *key, int settype,
				 double plan_cost, double plan_rows, double *cost, Oid *relid, Expr *aux)
{
	RangeTblEntry *rte;
	PgGpuCompiler c;
	pg_gpu_agg_task *task;
	double		gpu_cost;

	/*
	 * The CPU's way: running the plan once and collecting its keys (cost.cpp).
	 * With an aux value the host also folds each row's b into its key's least
	 * and greatest (keysets_minmax.cpp): on the development machine, 3 M rows
	 * of TPC-H lineitem at scale factor 0.5 from a plan took 1.60 to 2.12 s for
	 * keys and b against 1.14 s for the keys alone, so half a key's cost more.
	 */
	double		cpu_cost = plan_cost + PgGpuHostKeysCost(plan_rows) * (aux != NULL ? 1.5 : 1.0);

	*cost = cpu_cost;
	if ((rte = task_table(root, rel)) == NULL)
		return NULL;
	gpu_cost = PgGpuScanCost(rel, 1.0, false);
	if (!pg_gpu_force && gpu_cost >= cpu_cost)
		return NULL;

	task = (pg_gpu_agg_task *) palloc0(sizeof(pg_gpu_agg_task));
	PgGpuCompilerInit(&c, task, rel->relid);
	if (!PgGpuCompileQuals(&c, quals, &task->filter) ||
		!PgGpuCompileExpr(&c, key, &task->keys[0]) ||
		PgGpuSetType(task->keys[0].type) != settype ||
		/* text keys' buffers are sized by the pages: bytes from the table only */
		((task->keys[0].type == PG_GPU_TEXT || task->keys[0].type == PG_GPU_BPCHAR) &&
		 !PgGpuIsColumnText(key, rel->relid)) ||
		(aux != NULL && (settype != PG_GPU_INT8 || !PgGpuCompileExpr(&c, aux, &task->keys[1]) ||
						 PgGpuSetType(task->keys[1].type) != PG_GPU_INT8)) ||
		c.set_sources != NIL || !PgGpuFinishPrograms(&c) ||
		!PgGpuRelationSupported(rte->relid, task))
		return NULL;
	task->nkeys = aux != NULL ? 2 : 1;
	task->collect = 1;
	task->collect_hint = (int64) Min(rel->rows, 1e12);
	*relid = rte->relid;
	*cost = Min(gpu_cost, cpu_cost);
	return PgGpuTaskConst(task);
}

Const *
PgGpuRowsTask(PlannerInfo *root, RelOptInfo *rel, List *quals, List *keys, double plan_cost,
			  double plan_rows, double *cost, Oid *relid, double group_cost)
{
	RangeTblEntry *rte;
	PgGpuCompiler c;
	pg_gpu_agg_task *task;
	double		gpu_cost;
	ListCell   *lc;

	/* the CPU's way: running the plan once and copying each row's values */
	double		cpu_cost = plan_cost + PgGpuHostKeysCost(plan_rows) +
		plan_rows * (list_length(keys) - 1) * cpu_operator_cost;

	*cost = cpu_cost;
	if (list_length(keys) > PG_GPU_MAX_KEYS || (rte = task_table(root, rel)) == NULL)
		return NULL;
	/* grouping a row per group: its pages, and a group per row */
	gpu_cost = PgGpuScanCost(rel, 1.0, false) +
		plan_rows * (group_cost >= 0 ? group_cost : cpu_operator_cost);
	if (!pg_gpu_force && gpu_cost >= cpu_cost)
		return NULL;

	task = (pg_gpu_agg_task *) palloc0(sizeof(pg_gpu_agg_task));
	PgGpuCompilerInit(&c, task, rel->relid);
	if (!PgGpuCompileQuals(&c, quals, &task->filter))
		return NULL;
	foreach(lc, keys)
	{
		Expr	   *k = (Expr *) lfirst(lc);
		pg_gpu_expr *e = &task->keys[task->nkeys];
		int			t = PgGpuValueType(exprType((Node *) k));

		/*
		 * Values kept exactly: integers, dates, timestamps, bools (0 or 1:
		 * a star join's dimension expression, PgGpuStarDimExprs), and text
		 * columns (their bytes bounded by the pages); floats are grouped by
		 * normalised bits, which would turn -0 into 0.
		 */
		if (t == 0 || t == PG_GPU_FLOAT4 || t == PG_GPU_FLOAT8 ||
			((t == PG_GPU_TEXT || t == PG_GPU_BPCHAR) && !PgGpuIsTableColumn(k, rel->relid)) ||
			!PgGpuCompileExpr(&c, k, e) || e->type != t)
			return NULL;
		task->nkeys++;
	}
	if (c.set_sources != NIL || !PgGpuFinishPrograms(&c) ||
		!PgGpuRelationSupported(rte->relid, task))
		return NULL;
	task->groups_hint = (int64) Min(Max(plan_rows, 1), 1e12);
	*relid = rte->relid;
	*cost = Min(gpu_cost, cpu_cost);
	return PgGpuTaskConst(task);
}
