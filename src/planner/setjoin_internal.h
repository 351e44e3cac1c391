/*
 * setjoin_internal.h — what setjoin.cpp (set joins) and starjoin.cpp (star
 * joins, each dimension a set join) share.
 */
#ifndef PG_GPU_SETJOIN_INTERNAL_H
#define PG_GPU_SETJOIN_INTERNAL_H

#include "planner/setjoin.h"

/*
 * Probe as the probe side of a join with the relations build_ids (setjoin.cpp
 * says how): allow_ne, a semi- or anti-join's <>; preserved_build, a LEFT
 * JOIN's preserved build side; residual, a star dimension's clauses beside
 * its equality.
 */
bool		PgGpuTryProbeOf(PlannerInfo *root, Relids join_ids, RelOptInfo *probe,
							Relids build_ids, bool any_probe, PgGpuSetJoin *out,
							bool allow_ne = false, bool preserved_build = false,
							List **residual = NULL);

/* The relation of relids: a table, or the join of its tables (NULL if none was made). */
RelOptInfo *PgGpuCompRel(PlannerInfo *root, Relids c);

/* Whether an expression holds a PlaceHolderVar (an outer join's nullable value). */
bool		PgGpuContainsPlaceholder(Node *node, void *context);

/* Whether a GPU join may run its inputs' plans twice (the fallback). */
bool		PgGpuInputsRerunnable(PlannerInfo *root);

#endif
