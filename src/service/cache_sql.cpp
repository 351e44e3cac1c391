/*
 * cache_sql.cpp — SQL over the GPU service's column cache (colcache.h):
 * pg_gpu_cache_table(), pg_gpu_uncache() and the rows of the pg_gpu_cache view.
 *
 * pg_gpu_cache_table runs `SELECT count(*)` over the table with the GPU
 * forced, asking for the given columns besides (PgGpuCacheExtraColumns): the
 * scan caches every all-visible page as it reads it.  It runs as the caller,
 * so PostgreSQL checks the caller's right to read the table; a page that is
 * not all-visible (VACUUM has not seen it since it changed) is not cached.
 */
extern "C" {
#include "postgres.h"

#include "access/relation.h"
#include "catalog/namespace.h"
#include "catalog/pg_database.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/timestamp.h"

#include "pg_gpu.h"
#include "scan/heap_reader.h"
}

#include "guard.h"
#include "service/channel.h"

/* The live entry of relid in this database (emulated or not), or -1. */
static int
cc_find(Oid relid, bool emulate)
{
	for (int i = 0; PgGpuCc && i < CC_ENTRIES; i++)
	{
		CcEntry    *e = &PgGpuCc->e[i];

		if (pg_atomic_read_u32(&e->state) == CC_LIVE && e->key.db == MyDatabaseId &&
			e->key.relid == relid && e->key.emulate == (emulate ? 1 : 0))
			return i;
	}
	return -1;
}

static Datum
pg_gpu_cache_table_impl(FunctionCallInfo fcinfo)
{
	Oid			relid = PG_GETARG_OID(0);
	Relation	rel;
	TupleDesc	desc;
	int16		att[PG_GPU_CC_MAX_COLS];
	int			n = 0;
	int			i;
	int64		blocks = 0;
	char	   *name;

	if (PgGpuCc == NULL || PgGpuCc->budget == 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("the GPU service's column cache is off"),
				 errhint("Set pg_gpu.service = on and pg_gpu.cache_size above 0, then restart the server.")));
	rel = relation_open(relid, AccessShareLock);
	desc = RelationGetDescr(rel);
	name = pstrdup(RelationGetRelationName(rel));
	if (rel->rd_rel->relkind != RELKIND_RELATION && rel->rd_rel->relkind != RELKIND_MATVIEW)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a table or materialized view", name)));
	if (PG_ARGISNULL(1))
	{
		for (int a = 0; a < desc->natts && n < PG_GPU_CC_MAX_COLS; a++)
			if (PgGpuCacheableAttr(TupleDescAttr(desc, a)))
				att[n++] = (int16) a;
	}
	else
	{
		Datum	   *names;
		bool	   *nulls;
		int			nn;

		deconstruct_array(PG_GETARG_ARRAYTYPE_P(1), TEXTOID, -1, false, TYPALIGN_INT,
						  &names, &nulls, &nn);
		for (int k = 0; k < nn; k++)
		{
			char	   *col;
			AttrNumber	a;

			if (nulls[k])
				continue;
			col = TextDatumGetCString(names[k]);
			a = get_attnum(relid, col);
			if (a <= 0)
				ereport(ERROR,
						(errcode(ERRCODE_UNDEFINED_COLUMN),
						 errmsg("column \"%s\" of relation \"%s\" does not exist", col, name)));
			if (!PgGpuCacheableAttr(TupleDescAttr(desc, a - 1)))
				ereport(ERROR,
						(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						 errmsg("column \"%s\" cannot be kept in the GPU cache", col),
						 errdetail("Only fixed-width columns of 1, 2, 4 or 8 bytes are cached; queries read the others from the table's pages.")));
			if (n == PG_GPU_CC_MAX_COLS)
				ereport(ERROR,
						(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
						 errmsg("at most %d columns of a table can be kept in the GPU cache",
								PG_GPU_CC_MAX_COLS)));
			att[n++] = (int16) (a - 1);
		}
	}
	relation_close(rel, AccessShareLock);
	if (n == 0)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("\"%s\" has no column the GPU cache can keep", name)));

	/* SELECT count(*) on the GPU, as the caller, caching the columns */
	{
		int			nest = NewGUCNestLevel();
		StringInfoData q;

		initStringInfo(&q);
		appendStringInfo(&q, "SELECT count(*) FROM %s",
						 quote_qualified_identifier(get_namespace_name(get_rel_namespace(relid)),
													name));
		(void) set_config_option("pg_gpu.force", "on", PGC_USERSET, PGC_S_SESSION,
								 GUC_ACTION_SAVE, true, 0, false);
		(void) set_config_option("pg_gpu.use_cache", "on", PGC_USERSET, PGC_S_SESSION,
								 GUC_ACTION_SAVE, true, 0, false);
		PgGpuCacheExtraColumns(relid, att, n);
		PG_TRY();
		{
			if (SPI_connect() != SPI_OK_CONNECT)
				elog(ERROR, "SPI_connect failed");
			if (SPI_execute(q.data, true, 0) != SPI_OK_SELECT)
				elog(ERROR, "could not scan \"%s\"", name);
			SPI_finish();
		}
		PG_FINALLY();
		{
			PgGpuCacheExtraColumns(InvalidOid, NULL, 0);
		}
		PG_END_TRY();
		AtEOXact_GUC(true, nest);
	}
	if ((i = cc_find(relid, pg_gpu_emulate_gpu)) >= 0)
		blocks = (int64) pg_atomic_read_u64(&PgGpuCc->e[i].blocks);
	if (blocks == 0)
		ereport(NOTICE,
				(errmsg("no block of \"%s\" is in the GPU cache", name),
				 errhint("Only all-visible pages are cached, and only when the GPU service runs the scan: run VACUUM on the table first.")));
	PG_RETURN_INT64(blocks);
}

PG_GPU_SQL_FN(pg_gpu_cache_table)

/* Drop relid's entries (InvalidOid: all of this database's); how many. */
static Datum
pg_gpu_uncache_impl(FunctionCallInfo fcinfo)
{
	Oid			relid = PG_ARGISNULL(0) ? InvalidOid : PG_GETARG_OID(0);
	int			asked = 0;

	if (PgGpuCc == NULL)
		PG_RETURN_INT32(0);
	if (OidIsValid(relid) && pg_class_aclcheck(relid, GetUserId(), ACL_SELECT) != ACLCHECK_OK)
		aclcheck_error(ACLCHECK_NO_PRIV, OBJECT_TABLE, get_rel_name(relid));
	for (int i = 0; i < CC_ENTRIES; i++)
	{
		CcEntry    *e = &PgGpuCc->e[i];

		if (pg_atomic_read_u32(&e->state) == CC_LIVE && e->key.db == MyDatabaseId &&
			(!OidIsValid(relid) || e->key.relid == relid))
		{
			pg_atomic_write_u32(&e->drop, 1);
			asked++;
		}
	}
	/* the service drops an entry once no task reads it (every 50 ms) */
	for (int t = 0; t < 200; t++)
	{
		bool		left = false;

		for (int i = 0; i < CC_ENTRIES; i++)
			left |= pg_atomic_read_u32(&PgGpuCc->e[i].state) == CC_LIVE &&
				pg_atomic_read_u32(&PgGpuCc->e[i].drop) != 0;
		if (!left)
			break;
		CHECK_FOR_INTERRUPTS();
		pg_usleep(10000);
	}
	PG_RETURN_INT32(asked);
}

PG_GPU_SQL_FN(pg_gpu_uncache)

/* The entries, for the view pg_gpu_cache. */
static Datum
pg_gpu_cache_entries_impl(FunctionCallInfo fcinfo)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;

	InitMaterializedSRF(fcinfo, 0);
	for (int i = 0; PgGpuCc && i < CC_ENTRIES; i++)
	{
		CcEntry    *e = &PgGpuCc->e[i];
		Datum		values[9];
		bool		nulls[9] = {false, false, false, false, false, false, false, false, false};
		Datum		cols[PG_GPU_CC_MAX_COLS];
		CcEntry		copy;

		if (pg_atomic_read_u32(&e->state) != CC_LIVE)
			continue;
		memcpy(&copy.key, &e->key, sizeof(copy.key));
		memcpy(&copy.layout, &e->layout, sizeof(copy.layout));
		for (int c = 0; c < copy.layout.ncols && c < PG_GPU_CC_MAX_COLS; c++)
			cols[c] = Int16GetDatum(copy.layout.cols[c].attidx + 1);
		values[0] = ObjectIdGetDatum(copy.key.db);
		values[1] = ObjectIdGetDatum(copy.key.relid);
		values[2] = PointerGetDatum(construct_array(cols, Min(copy.layout.ncols, PG_GPU_CC_MAX_COLS),
													INT2OID, 2, true, TYPALIGN_SHORT));
		values[3] = Int64GetDatum((int64) pg_atomic_read_u64(&e->blocks));
		values[4] = Int64GetDatum((int64) pg_atomic_read_u64(&e->bytes));
		values[5] = Int64GetDatum((int64) pg_atomic_read_u64(&e->scans));
		values[6] = Int64GetDatum((int64) pg_atomic_read_u64(&e->hits));
		values[7] = TimestampTzGetDatum((TimestampTz) pg_atomic_read_u64(&e->last_use));
		nulls[7] = pg_atomic_read_u64(&e->last_use) == 0;
		values[8] = BoolGetDatum(copy.key.emulate != 0);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

PG_GPU_SQL_FN(pg_gpu_cache_entries)
