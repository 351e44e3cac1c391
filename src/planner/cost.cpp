/*
 * cost.cpp — what a GPU path costs, and which tables are worth one, for every
 * node's planning (planner.h).  The model: the engine's start-up, each page read
 * in place or copied over PCIe, and per-tuple work, in PostgreSQL's cost units
 * (the pg_gpu.*_cost GUCs), so add_path decides; pg_gpu.force removes the
 * competition instead.
 */
extern "C" {
#include "postgres.h"

#include "optimizer/cost.h"
#include "optimizer/pathnode.h"
#include "parser/parsetree.h"
#include "utils/rel.h"

#include "pg_gpu.h"
#include "service/service.h"
#include "pg_gpu_engine.h"
#include "planner/planner.h"
}


/*
 * The input of a GpuAgg or GpuSort: one plain table (no inheritance, no sampling),
 * big enough to be worth starting GPU work for; its range-table entry, or NULL.
 * scan_cost is what PostgreSQL's cheapest plan of the table costs (for ORDER BY,
 * its cheapest sorted plan); the caller passes it because in UPPERREL_ORDERED the
 * rel's own cheapest path may have been freed (see gpusort_plan.cpp's
 * take_ordered_path).
 */
RangeTblEntry *
PgGpuPlainTable(PlannerInfo *root, RelOptInfo *input_rel, double scan_cost)
{
	RangeTblEntry *rte;

	if (input_rel->reloptkind != RELOPT_BASEREL || input_rel->rtekind != RTE_RELATION ||
		IS_DUMMY_REL(input_rel))
		return NULL;
	/* a scan cheaper than starting GPU work: don't even build the paths */
	if (!pg_gpu_force && scan_cost < pg_gpu_startup_cost)
		return NULL;
	rte = planner_rt_fetch(input_rel->relid, root);
	if (rte->inh || rte->tablesample ||
		(rte->relkind != RELKIND_RELATION && rte->relkind != RELKIND_MATVIEW))
		return NULL;
	return rte;
}


/*
 * Cost of streaming the table through the GPU: start-up (CUDA, once per backend,
 * unless another scan of the query starts it first),
 * pages read in place or copied, and tuple_factor units of per-tuple GPU work.
 */
/*
 * Starting GPU work for a query, and CUDA too where this backend has not yet,
 * unless the work is of a kind the GPU service runs (service) and the service
 * has the GPU up.
 */
double
PgGpuStartupCost(bool first, bool service)
{
	bool		started = pg_gpu_engine_initialized() || (service && PgGpuServiceGpuReady());

	return pg_gpu_startup_cost + (started || !first ? 0.0 : pg_gpu_init_cost);
}


double
PgGpuScanCost(RelOptInfo *input_rel, double tuple_factor, bool first, bool service)
{
	double		startup = PgGpuStartupCost(first, service);
	/* the service reads every page in place */
	bool		in_place = (service && PgGpuServiceGpuReady()) ||
		(pg_gpu_register_buffers && PgGpuSharedBuffersRegistered() &&
		 input_rel->pages >= (BlockNumber) pg_gpu_register_min_pages);

	return startup + input_rel->pages * (in_place ? pg_gpu_page_cost : pg_gpu_copy_page_cost) +
		input_rel->tuples * tuple_factor * pg_gpu_tuple_cost;
}


/*
 * The rows a GPU node hands to the CPU plan above it are processed there by one
 * process: the node takes the place of a parallel plan, and PostgreSQL's costs for
 * the joins and the aggregation above then assume no workers.  Where a parallel
 * plan could run (the rel may be scanned in parallel and workers are allowed),
 * each row handed up costs pg_gpu.handoff_row_cost more: on SSB at scale factor
 * 10 (H200, bench/logs/2026-11-26-h200-ssb10.md) the plans above a GPU join
 * took 0.11 to 0.25 cost units a row more than their estimate, against
 * PostgreSQL's 8-worker plan's time per cost unit, so that 12 M rows handed to a
 * serial plan (Q3.1, Q4.1, Q4.2) ran 1.6 to 2.9 times slower than that plan.
 * Rows that go straight to the client (the query's whole join, with nothing
 * above it to aggregate, sort, group or deduplicate) cost nothing more: there is
 * no plan above them to run in parallel.
 */
double
PgGpuHandoffCost(PlannerInfo *root, RelOptInfo *rel, double rows)
{
	Query	   *parse = root->parse;

	if (!rel->consider_parallel || max_parallel_workers_per_gather <= 0)
		return 0.0;
	if (bms_equal(rel->relids, root->all_baserels) && !parse->hasAggs &&
		!parse->hasWindowFuncs && !root->hasHavingQual && parse->groupClause == NIL &&
		parse->groupingSets == NIL && parse->distinctClause == NIL && parse->sortClause == NIL &&
		parse->setOperations == NULL)
		return 0.0;
	return rows * pg_gpu_handoff_row_cost;
}


/*
 * A key set's keys that come from a plan (not from the build table's pages, on
 * the GPU) pass through this backend one row at a time: the plan's rows pulled
 * through the executor, each key converted and copied into a key buffer (a row
 * kept for a GpuHashJoin that outputs it copied too), then sent to the engine.
 * The plan's own cost counts the plan; this counts the rest, at
 * pg_gpu.host_key_cost a key.  Measured on the H100 host, TPC-H Q12 at scale
 * factor 5: a GpuHashJoin collected 7.5 M orders rows on the host (keys and
 * o_orderpriority kept) in 3,272 ms of its 3,662 ms, 0.44 us a key.  At the
 * model's 750 cost units a millisecond (guc.cpp) that is 0.33 units a key, of
 * which the orders scan's own cost (about 200,000 units by PostgreSQL's
 * formula: some 125,000 pages, 7.5 M rows) covers 0.03: 0.3 a key.  The old
 * charge, 2 cpu_operator_costs (0.005) a key, was 60 times too low: at default
 * costs the GPU join won the plan and ran 2.6 times slower than PostgreSQL's
 * parallel hash join.  Keys the GPU collects from the build table's pages
 * (PgGpuCollectTask) pay none of it, so that way now wins more often.
 */
double
PgGpuHostKeysCost(double rows)
{
	return rows * pg_gpu_host_key_cost;
}

/*
 * A GpuHashJoin's build rows read by a rows task (keysets_rows.cpp) run no
 * plan and pass nothing through the executor: the GPU scans the build table
 * (PgGpuScanCost, charged by the caller) and hands back one group per
 * distinct row, and the host makes each group a row (a minimal tuple, as the
 * plan's rows are copied), adds its key and points at the row once per row of
 * the group; the kept rows' ordinals follow as for a plan's rows.  Measured,
 * emulated, on the development machine's CPU (1 M distinct rows: int8 key,
 * date, int, char(15); perf): making the groups rows took 0.23 us a row,
 * against 0.40-0.45 us a row for the plan's way (its scan included, which is
 * what pg_gpu.host_key_cost stands for on top of the plan's cost).  Fetching
 * the groups from the GPU and the GPU's grouping are not measured on a GPU
 * yet, and through the GPU service the emulated fetch took about 0.5 us a
 * group: until a GPU host measures it, each row is charged what a
 * host-collected key is (pg_gpu.host_key_cost), on top of the build table's
 * GPU scan, so default plans choose this build side no more readily than the
 * plan's.
 */
double
PgGpuKeptRowsCost(double rows)
{
	return rows * pg_gpu_host_key_cost;
}


/*
 * The rel's cheapest unparameterized parallel-safe path by total cost, or NULL
 * (get_cheapest_parallel_safe_total_inner's choice).
 */
static Path *
cheapest_parallel_safe(RelOptInfo *rel)
{
	Path	   *best = NULL;
	ListCell   *lc;

	foreach(lc, rel->pathlist)
	{
		Path	   *p = (Path *) lfirst(lc);

		if (p->parallel_safe && PATH_REQ_OUTER(p) == NULL &&
			(best == NULL || p->total_cost < best->total_cost))
			best = p;
	}
	return best;
}

/*
 * A nested loop that probes a parameterized inner path once per row of a join
 * (the risk below): its per-row part, the cost above its outer side's; else 0.
 */
static Cost
risky_part(Path *p)
{
	JoinPath   *jp = (JoinPath *) p;

	if (!IsA(p, NestPath) || PATH_REQ_OUTER(jp->innerjoinpath) == NULL ||
		!IS_JOIN_REL(jp->outerjoinpath->parent))
		return 0;
	return p->total_cost - jp->outerjoinpath->total_cost;
}

/*
 * Drop from rel's paths each one (not parameterized) that costs at most
 * gpu_total, but more once the risky part risk() finds in it is multiplied by
 * pg_gpu.nestloop_risk.
 */
static void
drop_risky(RelOptInfo *rel, Cost gpu_total, Cost (*risk) (Path *), bool keep_sorted = false)
{
	ListCell   *lc;

	if (pg_gpu_force || pg_gpu_nestloop_risk <= 1.0)
		return;
	foreach(lc, rel->pathlist)
	{
		Path	   *p = (Path *) lfirst(lc);
		Cost		part;

		if (PATH_REQ_OUTER(p) != NULL || p->total_cost > gpu_total ||
			(keep_sorted && p->pathkeys != NIL))
			continue;
		part = risk(p);
		if (part > 0 && gpu_total < p->total_cost + (pg_gpu_nestloop_risk - 1.0) * part)
			rel->pathlist = foreach_delete_current(rel->pathlist, lc);
	}
}

/*
 * A nested loop that probes its inner side once per outer row (its inner path
 * parameterized: an index scan) costs in proportion to the estimate of its outer
 * rows; a GPU join's key set costs about the same whatever that estimate.  Where
 * the outer side is itself a join, that estimate can be far too low (TPC-H Q21 at
 * SF 10: 10,807 rows estimated above a semi-join, 707,593 came), and above a GPU
 * node the loop runs in one process where PostgreSQL's own plan would share it
 * among its workers (Q21 took 5.6 s against PostgreSQL's 3.7 s).  So a GPU join
 * path for joinrel that costs less than such a loop would with its per-row part
 * multiplied by pg_gpu.nestloop_risk takes the loop's place: the loop is dropped
 * from the rel's paths before the GPU path is offered.  Loops over a base table
 * (whose estimate is the table's filter's) and loops the GPU path cannot come
 * near stay.  Called before PgGpuAddPath with the GPU path's total cost.
 */
void
PgGpuDropRiskyNestLoops(RelOptInfo *joinrel, Cost gpu_total)
{
	drop_risky(joinrel, gpu_total, risky_part);
}

/*
 * The part of path's cost that such risky loops inside it (a nested loop probing
 * a parameterized inner path per row of a join) spend per outer row: what
 * PgGpuDropRiskyNestLoops would multiply.  Only through the nodes an
 * aggregation's input plan is made of; any other node counts nothing.
 */
static Cost
risky_loop_cost(Path *p)
{
	if (p == NULL)
		return 0;
	switch (nodeTag(p))
	{
		case T_NestPath:
		case T_HashPath:
		case T_MergePath:
			{
				JoinPath   *jp = (JoinPath *) p;

				return risky_part(p) + risky_loop_cost(jp->outerjoinpath) +
					risky_loop_cost(jp->innerjoinpath);
			}
		case T_AggPath:
			return risky_loop_cost(((AggPath *) p)->subpath);
		case T_GroupPath:
			return risky_loop_cost(((GroupPath *) p)->subpath);
		case T_SortPath:
		case T_IncrementalSortPath:
			return risky_loop_cost(((SortPath *) p)->subpath);
		case T_ProjectionPath:
			return risky_loop_cost(((ProjectionPath *) p)->subpath);
		case T_GatherPath:
			return risky_loop_cost(((GatherPath *) p)->subpath);
		case T_GatherMergePath:
			return risky_loop_cost(((GatherMergePath *) p)->subpath);
		case T_MaterialPath:
			return risky_loop_cost(((MaterialPath *) p)->subpath);
		default:
			return 0;
	}
}

/*
 * The same risk where a GPU aggregation replaces the whole join: an
 * aggregation's paths whose input plans hold such loops (TPC-H Q11 at SF 10:
 * nested loops from supplier into partsupp's index, priced 87 K units and
 * taking 1.18 s, where PostgreSQL's plans of scans run at 500-750 units a ms),
 * and that cost less than the GPU's path only until their loops' per-row part
 * is multiplied by pg_gpu.nestloop_risk, leave output_rel; under a LIMIT (or
 * a cursor's fraction) sorted ones stay.  Called before PgGpuAddPath with
 * the GPU path's total cost.
 */
void
PgGpuDropRiskyUpperPaths(PlannerInfo *root, RelOptInfo *output_rel, Cost gpu_total)
{
	/* under a LIMIT a sorted path's start-up counts: PostgreSQL weighs it */
	drop_risky(output_rel, gpu_total, risky_loop_cost,
			   root->limit_tuples >= 0 || root->tuple_fraction > 0);
}

/*
 * Offer a GPU path; pg_gpu.force makes it the only one.
 *
 * A GPU path is never parallel-safe.  PostgreSQL's partial plans above this rel
 * (the inner side of a parallel hash join, say) take its cheapest parallel-safe
 * path; were add_path to drop that one as dominated by the GPU path, they would
 * take a worse one, and a query whose final plan holds no GPU node at all would
 * run slower than with pg_gpu off (TPC-H Q21 at SF 10: 0.82x, its join order
 * under the Gather changed).  So that path stays in the list, at its place by
 * total cost, whatever the GPU path's cost.
 */
void
PgGpuAddPath(RelOptInfo *output_rel, Path *path)
{
	Path	   *keep = NULL;
	int			at = 0;
	ListCell   *lc;

	if (pg_gpu_force)
	{
		output_rel->pathlist = NIL;
		output_rel->partial_pathlist = NIL;
		add_path(output_rel, path);
		return;
	}
	if (output_rel->consider_parallel && !path->parallel_safe)
		keep = cheapest_parallel_safe(output_rel);
	if (keep != NULL)
		output_rel->pathlist = list_delete_ptr(output_rel->pathlist, keep);
	add_path(output_rel, path);
	if (keep == NULL)
		return;
	foreach(lc, output_rel->pathlist)
	{
		if (((Path *) lfirst(lc))->total_cost >= keep->total_cost)
			break;
		at++;
	}
	output_rel->pathlist = list_insert_nth(output_rel->pathlist, at, keep);
}

