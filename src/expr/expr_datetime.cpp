/*
 * expr_datetime.cpp — a date compared with a timestamp constant; EXTRACT and
 * date_part of a date or timestamp.
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
#include "parser/scansup.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/datetime.h"
#include "utils/fmgroids.h"
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

/*
 * EXTRACT(field FROM x) is extract(text, date|timestamp), numeric since
 * PostgreSQL 14; date_part(text, timestamp) is float8, and date_part(text, date)
 * a SQL function the planner inlines as date_part(text, x::timestamp).  The
 * field is decoded here as those functions decode it (downcase, DecodeUnits,
 * DecodeSpecial); a unit the type does not have raises an error in PostgreSQL,
 * so it stays there.  timestamptz depends on the session's time zone: not here.
 * The values come from cuda/datetime.cuh (docs/SEMANTICS.md 28).
 */
bool
PgGpuIsExtract(Expr *e)
{
	if (!IsA(e, FuncExpr))
		return false;
	switch (((FuncExpr *) e)->funcid)
	{
		case F_EXTRACT_TEXT_DATE:
		case F_EXTRACT_TEXT_TIMESTAMP:
		case F_DATE_PART_TEXT_DATE:
		case F_DATE_PART_TEXT_TIMESTAMP:
			return true;
		default:
			return false;
	}
}

/* The pg_gpu_dt_field of a constant unit, or 0 (from_ts: of a timestamp, else a date). */
static int
unit_field(Node *n, bool from_ts)
{
	Const	   *k = (Const *) n;
	text	   *units;
	char	   *low;
	int			type,
				val;

	if (!IsA(n, Const) || k->constisnull || k->consttype != TEXTOID)
		return 0;
	units = DatumGetTextPP(k->constvalue);
	low = downcase_truncate_identifier(VARDATA_ANY(units), VARSIZE_ANY_EXHDR(units), false);
	type = DecodeUnits(0, low, &val);
	if (type == UNKNOWN_FIELD)
		type = DecodeSpecial(0, low, &val);
	if (type == RESERV)
		return val == DTK_EPOCH ? PG_GPU_DT_EPOCH : 0;
	if (type != UNITS)
		return 0;
	switch (val)
	{
		case DTK_YEAR:
			return PG_GPU_DT_YEAR;
		case DTK_MONTH:
			return PG_GPU_DT_MONTH;
		case DTK_DAY:
			return PG_GPU_DT_DAY;
		case DTK_QUARTER:
			return PG_GPU_DT_QUARTER;
		case DTK_WEEK:
			return PG_GPU_DT_WEEK;
		case DTK_DOW:
			return PG_GPU_DT_DOW;
		case DTK_ISODOW:
			return PG_GPU_DT_ISODOW;
		case DTK_DOY:
			return PG_GPU_DT_DOY;
		case DTK_DECADE:
			return PG_GPU_DT_DECADE;
		case DTK_CENTURY:
			return PG_GPU_DT_CENTURY;
		case DTK_MILLENNIUM:
			return PG_GPU_DT_MILLENNIUM;
		case DTK_ISOYEAR:
			return PG_GPU_DT_ISOYEAR;
		case DTK_JULIAN:
			return PG_GPU_DT_JULIAN;
		case DTK_HOUR:
			return from_ts ? PG_GPU_DT_HOUR : 0;
		case DTK_MINUTE:
			return from_ts ? PG_GPU_DT_MINUTE : 0;
		case DTK_SECOND:
			return from_ts ? PG_GPU_DT_SECOND : 0;
		case DTK_MILLISEC:
			return from_ts ? PG_GPU_DT_MILLISEC : 0;
		case DTK_MICROSEC:
			return from_ts ? PG_GPU_DT_MICROSEC : 0;
		default:
			return 0;
	}
}

bool
PgGpuCompileExtract(PgGpuCompiler *c, Expr *e, int *type)
{
	FuncExpr   *f = (FuncExpr *) e;
	bool		numeric = f->funcid == F_EXTRACT_TEXT_DATE || f->funcid == F_EXTRACT_TEXT_TIMESTAMP;
	Expr	   *arg;
	Oid			argtype;
	uint32		src;
	int			field;
	int			t;

	if (list_length(f->args) != 2)
		return false;
	arg = (Expr *) lsecond(f->args);
	argtype = exprType((Node *) arg);
	if (f->funcid == F_EXTRACT_TEXT_DATE)
		src = PG_GPU_DATE;
	else if (f->funcid == F_DATE_PART_TEXT_DATE)
		src = PG_GPU_DATE | PG_GPU_DT_DATE_AS_TS;
	else if (argtype != TIMESTAMPOID)
		return false;			/* timestamptz: the session's time zone */
	else if (IsA(arg, FuncExpr) && ((FuncExpr *) arg)->funcid == F_TIMESTAMP_DATE &&
			 list_length(((FuncExpr *) arg)->args) == 1)
	{
		/* date::timestamp (date2timestamp), done by the opcode */
		arg = (Expr *) linitial(((FuncExpr *) arg)->args);
		src = PG_GPU_DATE | PG_GPU_DT_DATE_AS_TS;
	}
	else
		src = PG_GPU_TIMESTAMP;
	if (exprType((Node *) arg) != (src == PG_GPU_DATE || (src & PG_GPU_DT_DATE_AS_TS) ? DATEOID
								   : TIMESTAMPOID))
		return false;
	field = unit_field((Node *) linitial(f->args), src != PG_GPU_DATE);
	/* a timestamp's numeric Julian day divides (select_div_scale): not here */
	if (field == 0 || (numeric && field == PG_GPU_DT_JULIAN && src != PG_GPU_DATE))
		return false;
	if (!PgGpuCompileNode(c, arg, &t) || t != (int) (src & 0xFF))
		return false;
	if (numeric)
	{
		c->scale = field == PG_GPU_DT_SECOND ||
			(field == PG_GPU_DT_EPOCH && src != PG_GPU_DATE) ? 6 :
			field == PG_GPU_DT_MILLISEC ? 3 : 0;
		c->dscale_fixed = true;
		*type = PG_GPU_DECIMAL;
	}
	else
		*type = PG_GPU_FLOAT8;
	return PgGpuEmit(c, PG_GPU_OP_DATEPART, *type, field, src, 0);
}
