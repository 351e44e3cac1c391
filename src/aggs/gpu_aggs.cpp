/*
 * gpu_aggs.cpp — the explicit aggregates gpu_min, gpu_max, gpu_sum, gpu_avg,
 * gpu_stddev[_samp|_pop], gpu_variance, gpu_var_samp and gpu_var_pop.
 *
 * They work wherever an aggregate may appear (joins, subqueries, GROUP BY, window
 * frames are not supported by PostgreSQL for internal states without an inverse,
 * parallel plans).  The transition function only collects the group's non-NULL
 * values into a growing array; partial aggregation combines and serialises those
 * arrays.  The final function reduces the array to the exact state GpuAgg uses
 * (128-bit sums, Youngs-Cramer float states): on the GPU when the group holds at
 * least pg_gpu.min_rows values, else on the CPU with the same arithmetic.  It then
 * builds the built-in aggregate's own partial state (agg_catalog.cpp) and runs the
 * built-in's deserialise and final functions, so every result, type and error is
 * the built-in aggregate's.
 */
extern "C" {
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/syscache.h"

#include "pg_gpu.h"
#include "service/service.h"
#include "pg_gpu_engine.h"
#include "aggs/agg_catalog.h"
}

#include "guard.h"

typedef struct GpuCollect
{
	int			coltype;		/* pg_gpu_coltype */
	int			elsize;
	int64		n;
	int64		cap;
	char	   *data;			/* in the aggregate's memory context */
} GpuCollect;

static GpuCollect *
collect_new(MemoryContext cxt, int coltype)
{
	GpuCollect *c = (GpuCollect *) MemoryContextAllocZero(cxt, sizeof(GpuCollect));

	c->coltype = coltype;
	c->elsize = (coltype == PG_GPU_INT2) ? 2 :
		(coltype == PG_GPU_INT4 || coltype == PG_GPU_FLOAT4) ? 4 : 8;
	c->cap = 64;
	c->data = (char *) MemoryContextAlloc(cxt, c->cap * c->elsize);
	return c;
}

static void
collect_reserve(GpuCollect *c, int64 more)
{
	if (c->n + more <= c->cap)
		return;
	while (c->n + more > c->cap)
		c->cap *= 2;
	c->data = (char *) repalloc_huge(c->data, (Size) c->cap * c->elsize);
}

static MemoryContext
agg_context(FunctionCallInfo fcinfo, const char *fn)
{
	MemoryContext cxt;

	if (!AggCheckCallContext(fcinfo, &cxt))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s called in non-aggregate context", fn)));
	return cxt;
}

static Datum
pg_gpu_collect_impl(FunctionCallInfo fcinfo)
{
	MemoryContext cxt = agg_context(fcinfo, "pg_gpu_collect");
	GpuCollect *c;

	if (PG_ARGISNULL(0))
	{
		int			coltype = PgGpuColType(get_fn_expr_argtype(fcinfo->flinfo, 1));

		if (coltype == 0)
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("gpu aggregates accept smallint, integer, bigint, real and double precision")));
		c = collect_new(cxt, coltype);
	}
	else
		c = (GpuCollect *) PG_GETARG_POINTER(0);
	if (PG_ARGISNULL(1))
		PG_RETURN_POINTER(c);
	collect_reserve(c, 1);
	{
		char	   *p = c->data + (Size) c->n * c->elsize;

		switch (c->coltype)
		{
			case PG_GPU_INT2:
				*(int16 *) p = PG_GETARG_INT16(1);
				break;
			case PG_GPU_INT4:
				*(int32 *) p = PG_GETARG_INT32(1);
				break;
			case PG_GPU_INT8:
				*(int64 *) p = PG_GETARG_INT64(1);
				break;
			case PG_GPU_FLOAT4:
				*(float4 *) p = PG_GETARG_FLOAT4(1);
				break;
			default:
				*(float8 *) p = PG_GETARG_FLOAT8(1);
				break;
		}
	}
	c->n++;
	PG_RETURN_POINTER(c);
}

static Datum
pg_gpu_collect_combine_impl(FunctionCallInfo fcinfo)
{
	MemoryContext cxt = agg_context(fcinfo, "pg_gpu_collect_combine");
	GpuCollect *a = PG_ARGISNULL(0) ? NULL : (GpuCollect *) PG_GETARG_POINTER(0);
	GpuCollect *b = PG_ARGISNULL(1) ? NULL : (GpuCollect *) PG_GETARG_POINTER(1);

	if (b == NULL)
	{
		if (a == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(a);
	}
	if (a == NULL)
		a = collect_new(cxt, b->coltype);
	collect_reserve(a, b->n);
	memcpy(a->data + (Size) a->n * a->elsize, b->data, (Size) b->n * b->elsize);
	a->n += b->n;
	PG_RETURN_POINTER(a);
}

static Datum
pg_gpu_collect_serialize_impl(FunctionCallInfo fcinfo)
{
	GpuCollect *c = (GpuCollect *) PG_GETARG_POINTER(0);
	Size		payload = (Size) c->n * c->elsize;
	bytea	   *out;

	(void) agg_context(fcinfo, "pg_gpu_collect_serialize");
	out = (bytea *) palloc(VARHDRSZ + sizeof(int32) + payload);
	SET_VARSIZE(out, VARHDRSZ + sizeof(int32) + payload);
	memcpy(VARDATA(out), &c->coltype, sizeof(int32));
	memcpy(VARDATA(out) + sizeof(int32), c->data, payload);
	PG_RETURN_BYTEA_P(out);
}

static Datum
pg_gpu_collect_deserialize_impl(FunctionCallInfo fcinfo)
{
	bytea	   *in = PG_GETARG_BYTEA_PP(0);
	int32		coltype;
	GpuCollect *c;
	Size		payload;

	(void) agg_context(fcinfo, "pg_gpu_collect_deserialize");
	if (VARSIZE_ANY_EXHDR(in) < sizeof(int32))
		ereport(ERROR, (errcode(ERRCODE_DATA_CORRUPTED),
						errmsg("invalid gpu aggregate state")));
	memcpy(&coltype, VARDATA_ANY(in), sizeof(int32));
	if (coltype < PG_GPU_INT2 || coltype > PG_GPU_FLOAT8)
		ereport(ERROR, (errcode(ERRCODE_DATA_CORRUPTED),
						errmsg("invalid gpu aggregate state")));
	c = collect_new(CurrentMemoryContext, coltype);
	payload = VARSIZE_ANY_EXHDR(in) - sizeof(int32);
	if (payload % c->elsize != 0)
		ereport(ERROR, (errcode(ERRCODE_DATA_CORRUPTED),
						errmsg("invalid gpu aggregate state")));
	collect_reserve(c, (int64) (payload / c->elsize));
	memcpy(c->data, VARDATA_ANY(in) + sizeof(int32), payload);
	c->n = (int64) (payload / c->elsize);
	PG_RETURN_POINTER(c);
}

/* ---- final functions ----------------------------------------------------- */

enum GpuAggKind
{
	K_MIN, K_MAX, K_SUM, K_AVG, K_STDDEV, K_STDDEV_SAMP, K_STDDEV_POP,
	K_VARIANCE, K_VAR_SAMP, K_VAR_POP, K_COUNT
};

#define BUILTIN5(p) {F_##p##_INT2, F_##p##_INT4, F_##p##_INT8, F_##p##_FLOAT4, F_##p##_FLOAT8}

/* The built-in aggregate each gpu_* aggregate equals, by kind and pg_gpu_coltype. */
static const Oid builtin[K_COUNT][5] = {
	BUILTIN5(MIN), BUILTIN5(MAX), BUILTIN5(SUM), BUILTIN5(AVG), BUILTIN5(STDDEV),
	BUILTIN5(STDDEV_SAMP), BUILTIN5(STDDEV_POP), BUILTIN5(VARIANCE), BUILTIN5(VAR_SAMP),
	BUILTIN5(VAR_POP),
};

/* The group's exact state: on the GPU from pg_gpu.min_rows values on, else here. */
static void
reduce_group(const GpuCollect *c, pg_gpu_col_state *col)
{
	if (pg_gpu_enabled && c->n >= pg_gpu_min_rows)
	{
		PgGpuFallback reason;
		char		msg[256];
		pg_gpu_error err;
		double		ms = 0;
		bool		ok = false;

		if (PgGpuServiceUp(pg_gpu_emulate_gpu))
		{
			/* the GPU service reduces it: no CUDA in the backend */
			ok = PgGpuServiceReduce(c->data, c->n, c->coltype, c->elsize, pg_gpu_emulate_gpu,
									col, &ms, &err) == PG_GPU_OK;
			if (!ok)
			{
				PgGpuRaiseIfCancelled(err.status);
				reason = PgGpuFallbackFor(err.status);
				strlcpy(msg, err.message, sizeof(msg));
			}
		}
		else if (pg_gpu_emulate_gpu)
		{
			pg_gpu_reduce_host(c->data, c->n, c->coltype, col);
			ok = true;
		}
		else if (PgGpuEnsureEngine(&reason, msg, sizeof(msg)))
		{
			ok = pg_gpu_reduce(c->data, c->n, c->coltype, col, &ms, &err) == PG_GPU_OK;
			if (!ok)
			{
				reason = err.status == PG_GPU_OUT_OF_MEMORY ? PG_GPU_FB_OUT_OF_MEMORY
					: PG_GPU_FB_GPU_ERROR;
				strlcpy(msg, err.message, sizeof(msg));
			}
		}
		if (ok)
		{
			if (pg_gpu_emulate_gpu)
				PgGpuStatsEmulatedRun(PG_GPU_NODE_FINAL);
			else
				PgGpuStatsGpuRun(PG_GPU_NODE_FINAL, (uint64) c->n * c->elsize, ms);
			return;
		}
		PgGpuStatsFallback(PG_GPU_NODE_FINAL, reason);
		if (pg_gpu_expect_gpu)
			ereport(WARNING,
					(errmsg("gpu aggregate fell back to the CPU: %s", PgGpuFallbackName(reason)),
					 errdetail("%s", msg)));
	}
	pg_gpu_reduce_host(c->data, c->n, c->coltype, col);
}

/*
 * The built-in aggregate's deserialise and final functions, looked up once per
 * call site (flinfo->fn_extra), not once per group.
 */
typedef struct BuiltinFinal
{
	int			coltype;
	bool		internal_state;
	FmgrInfo	deserialfn;
	FmgrInfo	finalfn;		/* fn_oid InvalidOid: none */
} BuiltinFinal;

static BuiltinFinal *
builtin_final(FunctionCallInfo fcinfo, int kind, int coltype)
{
	BuiltinFinal *bf = (BuiltinFinal *) fcinfo->flinfo->fn_extra;
	MemoryContext cxt = fcinfo->flinfo->fn_mcxt;
	Oid			aggoid = builtin[kind][coltype - PG_GPU_INT2];
	HeapTuple	tup;
	Form_pg_aggregate agg;

	if (bf && bf->coltype == coltype)
		return bf;
	if (!bf)
		bf = (BuiltinFinal *) MemoryContextAllocZero(cxt, sizeof(BuiltinFinal));
	tup = SearchSysCache1(AGGFNOID, ObjectIdGetDatum(aggoid));
	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for aggregate %u", aggoid);
	agg = (Form_pg_aggregate) GETSTRUCT(tup);
	bf->coltype = coltype;
	bf->internal_state = (agg->aggtranstype == INTERNALOID);
	bf->finalfn.fn_oid = InvalidOid;
	if (bf->internal_state)
		fmgr_info_cxt(agg->aggdeserialfn, &bf->deserialfn, cxt);
	if (OidIsValid(agg->aggfinalfn))
		fmgr_info_cxt(agg->aggfinalfn, &bf->finalfn, cxt);
	ReleaseSysCache(tup);
	fcinfo->flinfo->fn_extra = bf;
	return bf;
}

static Datum
call1(FunctionCallInfo outer, FmgrInfo *flinfo, Datum arg, bool argnull, bool *isnull)
{
	LOCAL_FCINFO(f, 2);

	if (flinfo->fn_strict && argnull)
	{
		*isnull = true;
		return (Datum) 0;
	}
	/* the built-ins' internal-state functions check for an aggregate context */
	InitFunctionCallInfoData(*f, flinfo, flinfo->fn_nargs, InvalidOid, outer->context, NULL);
	f->args[0].value = arg;
	f->args[0].isnull = argnull;
	if (flinfo->fn_nargs > 1)
	{
		f->args[1].value = (Datum) 0;	/* deserialise: the unused "internal" */
		f->args[1].isnull = false;
	}
	Datum		d = FunctionCallInvoke(f);

	*isnull = f->isnull;
	return d;
}

static Datum
gpu_final(FunctionCallInfo fcinfo, int kind)
{
	GpuCollect *c;
	pg_gpu_col_state col;
	PgGpuAggState st;
	BuiltinFinal *bf;
	bool		isnull;
	Datum		d;

	(void) agg_context(fcinfo, "gpu aggregate final function");
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();		/* no rows: NULL, as for every built-in here */
	c = (GpuCollect *) PG_GETARG_POINTER(0);
	reduce_group(c, &col);

	st = kind == K_MIN ? PG_GPU_AGGST_MIN : kind == K_MAX ? PG_GPU_AGGST_MAX :
		kind == K_SUM ? PG_GPU_AGGST_SUM : kind == K_AVG ? PG_GPU_AGGST_AVG : PG_GPU_AGGST_VAR;
	d = PgGpuPartialState(st, c->coltype, &col, col.n, &isnull);

	bf = builtin_final(fcinfo, kind, c->coltype);
	if (bf->internal_state)
	{
		/* our state is the built-in's serialised partial state */
		if (isnull)
			PG_RETURN_NULL();
		d = call1(fcinfo, &bf->deserialfn, d, false, &isnull);
	}
	if (OidIsValid(bf->finalfn.fn_oid))
		d = call1(fcinfo, &bf->finalfn, d, isnull, &isnull);
	if (isnull)
		PG_RETURN_NULL();
	return d;
}

PG_GPU_SQL_FN(pg_gpu_collect)
PG_GPU_SQL_FN(pg_gpu_collect_combine)
PG_GPU_SQL_FN(pg_gpu_collect_serialize)
PG_GPU_SQL_FN(pg_gpu_collect_deserialize)

#define FINAL(name, kind) \
	static Datum name##_impl(FunctionCallInfo fcinfo) { return gpu_final(fcinfo, kind); } \
	PG_GPU_SQL_FN(name)

FINAL(pg_gpu_final_min, K_MIN)
FINAL(pg_gpu_final_max, K_MAX)
FINAL(pg_gpu_final_sum, K_SUM)
FINAL(pg_gpu_final_avg, K_AVG)
FINAL(pg_gpu_final_stddev, K_STDDEV)
FINAL(pg_gpu_final_stddev_samp, K_STDDEV_SAMP)
FINAL(pg_gpu_final_stddev_pop, K_STDDEV_POP)
FINAL(pg_gpu_final_variance, K_VARIANCE)
FINAL(pg_gpu_final_var_samp, K_VAR_SAMP)
FINAL(pg_gpu_final_var_pop, K_VAR_POP)
