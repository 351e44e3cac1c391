/*
 * expr_datetime.cpp — a date compared with a timestamp constant.
 *
 * Reports write date ranges as `d < date '1994-01-01' + interval '1' year`: the
 * planner folds the right side into a timestamp constant, and the operator is
 * the cross-type date_lt_timestamp.  PostgreSQL compares by turning the date
 * into a timestamp (date_cmp_timestamp: midnight of that day; dates past the
 * timestamp range above every finite timestamp; date 'infinity' equal to
 * timestamp 'infinity').  For a constant t that is the same as comparing the
 * date with a date constant, which the kernels already do:
 *
 *   d <= t  iff  d <= floor(t / day)        d >  t  iff  d >  floor(t / day)
 *   d <  t  iff  d <  ceil(t / day)         d >= t  iff  d >= ceil(t / day)
 *   d =  t, d <> t: only when t is a midnight (else PostgreSQL's plan)
 *
 * and timestamp +-infinity become date +-infinity, which order the same way
 * against every date.  timestamptz depends on the session's time zone: not here.
 */
extern "C" {
#include "postgres.h"

#include "catalog/pg_type.h"
#include "datatype/timestamp.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "utils/date.h"
#include "utils/timestamp.h"
#include "utils/lsyscache.h"

#include "pg_gpu.h"
#include "expr/expr_compile.h"
}

bool
PgGpuIsDateTimestampCmp(Expr *e)
{
	OpExpr	   *op = (OpExpr *) e;
	Oid			lt,
				rt;

	if (!IsA(e, OpExpr) || op->opresulttype != BOOLOID || list_length(op->args) != 2)
		return false;
	lt = exprType((Node *) linitial(op->args));
	rt = exprType((Node *) lsecond(op->args));
	return (lt == DATEOID && rt == TIMESTAMPOID && IsA(lsecond(op->args), Const)) ||
		(lt == TIMESTAMPOID && rt == DATEOID && IsA(linitial(op->args), Const));
}

/* floor(a / b) for b > 0 */
static int64
floor_div(int64 a, int64 b)
{
	int64		q = a / b;

	return (a % b != 0 && a < 0) ? q - 1 : q;
}

bool
PgGpuCompileDateTimestampCmp(PgGpuCompiler *c, Expr *e, int *type)
{
	OpExpr	   *op = (OpExpr *) e;
	bool		date_left = exprType((Node *) linitial(op->args)) == DATEOID;
	Expr	   *date_arg = (Expr *) (date_left ? linitial(op->args) : lsecond(op->args));
	Const	   *ts = (Const *) (date_left ? lsecond(op->args) : linitial(op->args));
	int			strategy = PgGpuBtreeStrategy(op->opno, exprType((Node *) linitial(op->args)),
									   exprType((Node *) lsecond(op->args)));
	DateADT		bound = 0;
	Const	   *k;
	int			t;

	if (strategy == 0)
		return false;
	if (!date_left)
	{
		/* t OP d is d OP' t */
		switch (strategy)
		{
			case PG_GPU_CMP_LT:
				strategy = PG_GPU_CMP_GT;
				break;
			case PG_GPU_CMP_LE:
				strategy = PG_GPU_CMP_GE;
				break;
			case PG_GPU_CMP_GE:
				strategy = PG_GPU_CMP_LE;
				break;
			case PG_GPU_CMP_GT:
				strategy = PG_GPU_CMP_LT;
				break;
			default:
				break;
		}
	}
	if (!ts->constisnull)
	{
		Timestamp	v = DatumGetTimestamp(ts->constvalue);

		if (TIMESTAMP_IS_NOBEGIN(v))
			bound = DATEVAL_NOBEGIN;
		else if (TIMESTAMP_IS_NOEND(v))
			bound = DATEVAL_NOEND;
		else
		{
			int64		q = floor_div(v, USECS_PER_DAY);
			bool		midnight = (q * USECS_PER_DAY == v);

			if (!midnight && (strategy == PG_GPU_CMP_EQ || strategy == PG_GPU_CMP_NE))
				return false;
			if (!midnight && (strategy == PG_GPU_CMP_LT || strategy == PG_GPU_CMP_GE))
				q++;			/* ceil */
			bound = (DateADT) q;	/* within the timestamp range: far from int32's ends */
		}
	}
	k = makeConst(DATEOID, -1, InvalidOid, sizeof(DateADT), DateADTGetDatum(bound),
				  ts->constisnull, true);
	if (!PgGpuCompileNode(c, date_arg, &t) || t != PG_GPU_DATE ||
		!PgGpuCompileNode(c, (Expr *) k, &t) || t != PG_GPU_DATE)
		return false;
	*type = PG_GPU_BOOL;
	return PgGpuEmit(c, PG_GPU_OP_CMP, PG_GPU_DATE, strategy, 0, -1);
}
