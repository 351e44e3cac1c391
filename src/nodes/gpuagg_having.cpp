/*
 * gpuagg_having.cpp — HAVING's terms tested on the GPU: a GpuAgg's terms of
 * the form aggregate-compared-with-a-constant, ANDed, become the task's
 * pre-filter of finished groups (docs/SEMANTICS.md 31).
 */
extern "C" {
#include "postgres.h"

#include "catalog/pg_aggregate.h"
#include "nodes/nodeFuncs.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"

#include "pg_gpu.h"
#include "pg_gpu_engine.h"
#include "expr/expr_compile.h"
#include "aggs/agg_catalog.h"
#include "planner/setjoin.h"
#include "nodes/gpuagg_int.h"
}

#include "guard.h"

/*
 * An integer or numeric constant as an exact integer times 10^scale, if it is
 * one (no non-zero digit below the scale, and within 2^120): false otherwise.
 */
static bool
const_scaled(Const *c, int scale, int128 *out)
{
	const int128 limit = (int128) 1 << 120;
	int128		v;
	int			ds = 0;

	switch (c->consttype)
	{
		case INT2OID:
			v = DatumGetInt16(c->constvalue);
			break;
		case INT4OID:
			v = DatumGetInt32(c->constvalue);
			break;
		case INT8OID:
			v = DatumGetInt64(c->constvalue);
			break;
		case NUMERICOID:
			if (!PgGpuNumericScaled(c->constvalue, &v, &ds))
				return false;	/* NaN, Infinity, too big */
			break;
		default:
			return false;
	}
	for (; ds > scale; ds--)
	{
		if (v % 10 != 0)
			return false;		/* a digit below the scale */
		v /= 10;
	}
	for (; ds < scale; ds++)
	{
		if (v >= limit / 10 || v <= -limit / 10)
			return false;
		v *= 10;
	}
	*out = v;
	return true;
}

/* opno as a btree comparison (pg_gpu_cmp) of integers and numerics, or 0 */
static int
btree_cmp(Oid opno, Oid lefttype, Oid righttype)
{
	auto		number = [](Oid t) {
		return t == INT2OID || t == INT4OID || t == INT8OID || t == NUMERICOID;
	};

	if (!OidIsValid(opno) || !number(lefttype) || !number(righttype))
		return 0;
	return PgGpuBtreeStrategy(opno, lefttype, righttype);
}

/* term (an ANDed item of HAVING) as a pre-filter term in *hv, if it is one */
static bool
having_term(GpuAggBuild *b, Node *term, pg_gpu_having *hv)
{
	OpExpr	   *op = (OpExpr *) term;
	Node	   *l,
			   *r;
	Oid			opno;
	int			k = 0;
	int			state,
				col,
				coltype,
				cmp;
	int128		c;
	ListCell   *lc;

	if (!IsA(op, OpExpr) || list_length(op->args) != 2)
		return false;
	l = (Node *) linitial(op->args);
	r = (Node *) lsecond(op->args);
	opno = op->opno;
	if (IsA(l, Const) && IsA(r, Aggref))
	{
		Node	   *x = l;

		l = r;
		r = x;
		opno = get_commutator(opno);
	}
	if (!IsA(l, Aggref) || !IsA(r, Const) || ((Const *) r)->constisnull ||
		(cmp = btree_cmp(opno, exprType(l), exprType(r))) == 0)
		return false;
	foreach(lc, b->aggs)
	{
		if (equal(lfirst(lc), l))
			break;
		k++;
	}
	if (lc == NULL)
		return false;
	state = list_nth_int(b->out_state, k);
	col = list_nth_int(b->out_col, k);
	coltype = list_nth_int(b->out_coltype, k);
	memset(hv, 0, sizeof(*hv));
	if (state == PG_GPU_AGGST_COUNT_STAR)
		hv->input = -1;
	else if (state == PG_GPU_AGGST_COUNT && col >= 0)
	{
		hv->input = (int16) col;
		hv->what = PG_GPU_HAV_COUNT;
	}
	else if (state == PG_GPU_AGGST_SUM && col >= 0 &&
			 ((coltype & 0xFF) == PG_GPU_INT2 || (coltype & 0xFF) == PG_GPU_INT4 ||
			  (coltype & 0xFF) == PG_GPU_INT8 || (coltype & 0xFF) == PG_GPU_DECIMAL))
	{
		hv->input = (int16) col;
		hv->what = PG_GPU_HAV_SUM;
	}
	else
		return false;
	if (!const_scaled((Const *) r, (coltype & 0xFF) == PG_GPU_DECIMAL && hv->what == PG_GPU_HAV_SUM ?
					  coltype >> 8 : 0, &c))
		return false;
	hv->op = (uint8) cmp;
	hv->lo = (uint64) (uint128) c;
	hv->hi = (uint64) ((uint128) c >> 64);
	return true;
}

/*
 * Whether a HAVING term PostgreSQL may evaluate before a tested one raises
 * nothing and does nothing: a comparison of the integer or numeric btree
 * families between aggregates, grouping columns and constants (such a
 * comparison of valid values raises nothing, though numeric's are not marked
 * leakproof), or what PgGpuMayRaise accepts.
 */
static bool
having_term_safe(Node *term)
{
	if (IsA(term, OpExpr) && list_length(((OpExpr *) term)->args) == 2 &&
		btree_cmp(((OpExpr *) term)->opno, exprType((Node *) linitial(((OpExpr *) term)->args)),
				  exprType((Node *) lsecond(((OpExpr *) term)->args))) != 0)
	{
		ListCell   *lc;

		foreach(lc, ((OpExpr *) term)->args)
		{
			Node	   *a = (Node *) lfirst(lc);

			if (!IsA(a, Aggref) && !IsA(a, Var) && !IsA(a, Const))
				return false;
		}
		return true;
	}
	return !PgGpuMayRaise(term);
}

/*
 * HAVING's terms the GPU can test on a finished group (pg_gpu_agg_task.having):
 * count(*), or count or sum of an integer or numeric input, compared with a
 * constant by a btree comparison operator (or its <>).  Each ANDed term of that
 * form becomes one; the rest are left to GpuAgg's evaluation of the whole
 * HAVING, which sees every group the pre-filter passes.  No float input: a float
 * state's overflow is raised as its group is emitted, which a dropped group
 * would not be.  And none at all unless every other term is safe
 * (having_term_safe): PostgreSQL evaluates HAVING's terms in its own order
 * (order_qual_clauses: by cost, then as written) and stops at the first false
 * one, so a term that may raise or have a side effect could run before a tested
 * one there, for a group the GPU would hold back.
 */
void
PgGpuAggHavingPrefilter(GpuAggBuild *b, List *having)
{
	pg_gpu_agg_task *t = b->task;
	pg_gpu_having terms[PG_GPU_MAX_HAVING];
	int			n = 0;
	ListCell   *lc;

	for (int i = 0; i < t->ninputs; i++)
		if (t->inputs[i].type == PG_GPU_FLOAT4 || t->inputs[i].type == PG_GPU_FLOAT8)
			return;
	foreach(lc, having)
	{
		pg_gpu_having hv;

		if (having_term(b, (Node *) lfirst(lc), &hv))
		{
			if (n < PG_GPU_MAX_HAVING)
				terms[n++] = hv;
		}
		else if (!having_term_safe((Node *) lfirst(lc)))
			return;
	}
	t->nhaving = n;
	memcpy(t->having, terms, n * sizeof(pg_gpu_having));
}
