/*
 * setjoin.h — recognising a join that a key set answers (issue 5).
 */
#ifndef PG_GPU_SETJOIN_H
#define PG_GPU_SETJOIN_H

#include "nodes/pathnodes.h"
#include "nodes/value.h"

#include "pg_gpu_engine.h"
#include "expr/expr_compile.h"

/*
 * A join of one plain table (the probe side, whose pages the GPU scans) with the
 * rest of the join (the build side, any plan, whose keys fill a key set) on one
 * equality: a semi-join (IN, EXISTS), an anti-join (NOT EXISTS) or an inner join;
 * a semi- or anti-join may add one inner.b <> outer.x.
 */
typedef struct PgGpuSetJoin
{
	RelOptInfo *probe;			/* the plain table (PgGpuFindSetJoinSides: any relation) */
	RelOptInfo *build;
	Path	   *build_path;		/* the build side's cheapest plan */
	JoinType	jointype;		/* JOIN_SEMI, JOIN_ANTI or JOIN_INNER; JOIN_RIGHT:
								 * a LEFT JOIN preserving the build side
								 * (PgGpuFindSetJoin's preserved_build) */
	Expr	   *clause;			/* the equality (an OpExpr) */
	Expr	   *probe_key;		/* its argument over the probe side */
	Expr	   *build_key;		/* the equality's argument over the build side */
	double		build_cost;		/* collecting its keys (set by the GPU planner) */
	int			build_resno;	/* the build key's column in build_path's output */
	int			build_valtype;	/* its pg_gpu_coltype */
	int			keytype;		/* the comparison type (PgGpuSetKeyType) */
	/*
	 * A semi- or anti-join's second clause inner.b <> outer.x (EXISTS (...
	 * WHERE k = x AND b <> y)), two columns of integer, date or timestamp
	 * type beside an integer key: the set keeps each key's least and greatest
	 * non-NULL b (the build plan's second column), and a probe row matches
	 * when its key has a b other than its x (docs/SEMANTICS.md 29).  NULL:
	 * none.
	 */
	Expr	   *ne_clause;		/* the <> (an OpExpr) */
	Expr	   *ne_probe;		/* x: its argument over the probe side */
	Expr	   *ne_build;		/* b: its argument over the build side */
} PgGpuSetJoin;

/*
 * Whether joinrel is such a join; fills *out.  With preserved_build, also a
 * LEFT JOIN of the build side (preserved) with the probe table (nullable), as
 * JOIN_RIGHT: for a caller that makes every build key a group.
 */
bool		PgGpuFindSetJoin(PlannerInfo *root, RelOptInfo *joinrel, PgGpuSetJoin *out,
							 bool preserved_build = false);

/*
 * The same with one of the two inputs of joinrel that the join path hook sees as
 * the probe side, whatever it is (a join, a subquery, a partitioned table): its
 * plan's rows then pass through the CPU (GpuSemiJoin and GpuHashJoin over a
 * child plan).  An inner join probes with the input of more rows.
 */
bool		PgGpuFindSetJoinSides(PlannerInfo *root, RelOptInfo *joinrel, RelOptInfo *outerrel,
								  RelOptInfo *innerrel, PgGpuSetJoin *out);

/*
 * The join's clause as the filter's last qual, answered by a key set of the
 * build side (a CHILD source: the node's second child, or its table's pages
 * collected on the GPU); an anti-join keeps the rows it does not match.
 * *unique: the source's flag that the keys must be unique; *set: the set's
 * index.  With keep_rows, the build plan's rows are kept for the output (a
 * GpuHashJoin reading the build side): from a rows task over the build
 * table's pages (grouped by the build plan's columns, each group kept once per
 * row) where the build side is one plain table whose columns the groups give
 * back exactly, else from that plan.  With payload_vars (a star join's dimension columns, the build
 * plan's columns after its key), the set carries their values: from a rows
 * task over the build table's pages (PgGpuRowsTask) or from the plan.  child:
 * the build plan's index in the node's custom_plans.  NIL if the task has no
 * room.
 */
List	   *PgGpuJoinSetTest(PlannerInfo *root, PgGpuCompiler *comp, PgGpuSetJoin *sj, Oid relid,
							 Integer **unique, int *set, bool keep_rows = false,
							 List *payload_vars = NIL, int child = 1);

/*
 * A star join: one plain table (the fact table, whose pages the GPU scans)
 * joined on one equality each to dimensions (a table, or tables joined among
 * themselves: a snowflake), each a set join of the fact table with it.  Every
 * join clause lies inside a dimension or joins one to the fact table; or, where
 * all the joins are inner joins, links two dimensions (residual: c_nationkey =
 * s_nationkey in TPC-H Q5, n1.n_name = 'FRANCE' AND n2.n_name = 'GERMANY' OR
 * ... in Q7), tested on the GPU per fact row with both dimensions' payloads.
 * An inner join with a dimension may also have clauses beside its equality
 * (Q19's OR of brands and quantities over lineitem and part): the same join
 * filter, over the fact row's columns and the dimension's payload.
 */
#define PG_GPU_STAR_MAX_DIMS 6

typedef struct PgGpuStarJoin
{
	RelOptInfo *fact;
	int			ndims;
	PgGpuSetJoin dims[PG_GPU_STAR_MAX_DIMS];
	List	   *residual;		/* the join filter: clauses (Expr) between
								 * dimensions, or beside a dimension's equality */
} PgGpuStarJoin;

/* Clauses over several tables as EXPLAIN shows them (each column with its table). */
String	   *PgGpuJoinFilterText(PlannerInfo *root, List *clauses);

/* Whether joinrel is such a join (the fact table the largest that can be). */
bool		PgGpuFindStarJoin(PlannerInfo *root, RelOptInfo *joinrel, PgGpuStarJoin *out);

/*
 * A star join's dimension expressions in within (GROUP BY keys and the
 * aggregates, not the expressions computed above them from the groups' keys):
 * each expression over one table of an inner join's dimension that
 * reads a text column, is of a type a payload word carries other than text
 * (bool: p_type LIKE 'PROMO%', n_name = 'BRAZIL'), and raises no error for any
 * row (leakproof operators and functions, LIKE with a valid constant pattern,
 * the control constructs).  The fact table's programs read a text payload
 * only as a GROUP BY key's code, so such an expression is a payload column of
 * its own, computed where the dimension's rows are read (on the GPU by its
 * rows task, or by its plan): once per dimension row, not per joined row,
 * which only an error could tell apart.  *rest: exprs (everything the
 * aggregation reads) with each of them a NULL constant, so that the columns
 * they alone read are not carried.
 */
/* Whether evaluating node may raise an error or have a side effect (setjoin.cpp) */
bool		PgGpuMayRaise(Node *node);
List	   *PgGpuStarDimExprs(PlannerInfo *root, PgGpuStarJoin *star, List *within, Node *exprs,
							  Node **rest);

/*
 * The rows of the set join sj, for GpuSort, GpuHashJoin and GpuSemiJoin:
 * *join_quals gets the join's qual for the filter; an inner join instead hands
 * each probe row out once per equal key (its weight), so its qual is NIL.
 * False if the task has no room.
 */
bool		PgGpuJoinRowsTest(PlannerInfo *root, PgGpuCompiler *comp, pg_gpu_agg_task *task,
							  PgGpuSetJoin *sj, Oid relid, List **join_quals);

/*
 * The Vars exprs, a set join's output, read: the probe table's in *probe_vars,
 * the build side's in *build_vars, each once.  False for a placeholder, an
 * outer query's Var or another table's.
 */
bool		PgGpuJoinOutput(List *exprs, PgGpuSetJoin *sj, List **probe_vars, List **build_vars);

/* sj's build plan keeping its rows: its key, then the columns build_vars. */
void		PgGpuKeepBuildRows(PlannerInfo *root, PgGpuSetJoin *sj, List *build_vars);

/* Whether exprs read the probe table alone: then its tuples are the join's rows. */
bool		PgGpuProbeOutput(List *exprs, PgGpuSetJoin *sj);

#endif							/* PG_GPU_SETJOIN_H */
