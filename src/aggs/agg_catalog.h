/*
 * agg_catalog.h — which aggregates GpuAgg computes, and the partial states it hands
 * to PostgreSQL's Finalize Aggregate.
 */
#ifndef PG_GPU_AGG_CATALOG_H
#define PG_GPU_AGG_CATALOG_H

#include "pg_gpu_engine.h"

/* Shape of the partial (transition) state an aggregate needs. */
typedef enum PgGpuAggState
{
	PG_GPU_AGGST_COUNT_STAR = 0,
	PG_GPU_AGGST_COUNT,
	PG_GPU_AGGST_MIN,
	PG_GPU_AGGST_MAX,
	PG_GPU_AGGST_SUM,
	PG_GPU_AGGST_AVG,
	PG_GPU_AGGST_VAR,			/* variance and stddev, every flavour */
	PG_GPU_AGGST_COUNT_DISTINCT /* count(DISTINCT x): counted by GpuAgg's fold */
} PgGpuAggState;

/* Returns false if the aggregate is not one GpuAgg computes. */
bool		PgGpuAggLookup(Oid aggfnoid, PgGpuAggState *state, Oid *argtype);

/* pg_gpu_coltype for a column type, or 0 if the kernels cannot decode it. */
int			PgGpuColType(Oid typid);

/*
 * pg_gpu_coltype of an aggregate's input: PgGpuColType's, and PG_GPU_DATE /
 * PG_GPU_TIMESTAMP for date and timestamp(tz) (min and max only).
 */
int			PgGpuAggColType(Oid typid);

/*
 * The partial state of one aggregate, in the exact form (type, and serialized bytes
 * for internal states) that its combine/deserialize functions expect.  Raises the
 * errors PostgreSQL would have raised (overflow).  coltype is the input's
 * pg_gpu_coltype; for PG_GPU_DECIMAL, with the input's scale << 8.
 */
Datum		PgGpuPartialState(PgGpuAggState state, int coltype,
							  const pg_gpu_col_state *col, int64 nrows, bool *isnull);

#endif							/* PG_GPU_AGG_CATALOG_H */
