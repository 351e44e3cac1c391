/*
 * planner_join.h — recognising a join that a key set answers (issue 5).
 */
#ifndef PG_GPU_PLANNER_JOIN_H
#define PG_GPU_PLANNER_JOIN_H

/*
 * A join of one plain table (the probe side, whose pages the GPU scans) with the
 * rest of the join (the build side, any plan, whose keys fill a key set) on one
 * equality: a semi-join (IN, EXISTS), an anti-join (NOT EXISTS) or an inner join.
 */
typedef struct PgGpuSetJoin
{
	RelOptInfo *probe;			/* the plain table (PgGpuFindSetJoinSides: any relation) */
	RelOptInfo *build;
	Path	   *build_path;		/* the build side's cheapest plan */
	JoinType	jointype;		/* JOIN_SEMI, JOIN_ANTI or JOIN_INNER */
	Expr	   *clause;			/* the equality (an OpExpr) */
	Expr	   *probe_key;		/* its argument over the probe side */
	Expr	   *build_key;		/* the equality's argument over the build side */
	double		build_cost;		/* collecting its keys (set by the GPU planner) */
	int			build_resno;	/* the build key's column in build_path's output */
	int			build_valtype;	/* its pg_gpu_coltype */
	int			keytype;		/* the comparison type (PgGpuSetKeyType) */
} PgGpuSetJoin;

/*
 * A collect task (pg_gpu_engine.h) over one plain table, rel of root: the keys
 * key of its rows that pass quals, for a key set of type settype.  NULL when the
 * GPU cannot compute them, or (unless pg_gpu.force) when scanning the table's
 * pages costs more than the CPU's way: running the plan that gives them
 * (plan_cost, plan_rows) and collecting them.  *cost: the cheaper of the two;
 * *relid: the table (planner_agg.cpp).
 */
Const	   *PgGpuCollectTask(PlannerInfo *root, RelOptInfo *rel, List *quals, Expr *key,
							 int settype, double plan_cost, double plan_rows, double *cost,
							 Oid *relid);

/* Whether joinrel is such a join; fills *out. */
bool		PgGpuFindSetJoin(PlannerInfo *root, RelOptInfo *joinrel, PgGpuSetJoin *out);

/*
 * The same with one of the two inputs of joinrel that the join path hook sees as
 * the probe side, whatever it is (a join, a subquery, a partitioned table): its
 * plan's rows then pass through the CPU (GpuSemiJoin and GpuHashJoin over a
 * child plan).  An inner join probes with the input of more rows.
 */
bool		PgGpuFindSetJoinSides(PlannerInfo *root, RelOptInfo *joinrel, RelOptInfo *outerrel,
								  RelOptInfo *innerrel, PgGpuSetJoin *out);

#endif							/* PG_GPU_PLANNER_JOIN_H */
