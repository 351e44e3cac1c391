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
#include "access/visibilitymap.h"
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
#include "utils/syscache.h"
#include "utils/rel.h"
#include "utils/timestamp.h"

#include "pg_gpu.h"
#include "scan/heap_reader.h"
}

#include "guard.h"
#include "service/channel.h"

/*
 * Wait for the GPU service to be ready for this session's cache fills: after
 * a fault it restarts (a second's pause, then CUDA and the buffer pool's
 * registration: up to several seconds on a large pool).  Emulated fills need
 * only the process.  Gives up after SVC_READY_WAIT_MS with an error that says
 * so, rather than caching nothing and blaming the table.
 */
#define SVC_READY_WAIT_MS 20000

static void
cc_wait_for_service(SvcShared *svc, bool emulate)
{
	for (int waited = 0;; waited += 10)
	{
		uint32		state = pg_atomic_read_u32(&svc->state);
		int			gpu = svc->gpu;

		pg_read_barrier();
		if (state != SVC_DOWN && (emulate || gpu != 0))
		{
			if (!emulate && gpu != 1)
				ereport(ERROR,
						(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
						 errmsg("the GPU service has no GPU, so nothing can be kept in the GPU cache"),
						 errdetail("%s", svc->gpu_message),
						 errhint("SELECT * FROM pg_gpu_service() shows the service's state.")));
			return;
		}
		if (waited >= SVC_READY_WAIT_MS)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("the GPU service is restarting"),
					 errdetail("It was not ready after %d s.", SVC_READY_WAIT_MS / 1000),
					 errhint("Try again in a moment; SELECT * FROM pg_gpu_service() shows its state, and the server log why it restarted.")));
		CHECK_FOR_INTERRUPTS();
		pg_usleep(10000);
	}
}

/* SELECT count(*) over relid on the GPU, as the caller, caching columns att[n] besides */
static void
cc_scan(Oid relid, const char *name, const int16 *att, int n)
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

static Datum
pg_gpu_cache_table_impl(FunctionCallInfo fcinfo)
{
	Oid			relid;
	Relation	rel;
	TupleDesc	desc;
	int16		att[PG_GPU_CC_MAX_COLS];
	int			n = 0;
	int			i;
	int64		blocks = 0;
	BlockNumber all_visible = 0;
	char	   *name;
	const char *refusal;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	relid = PG_GETARG_OID(0);
	if (PgGpuCc == NULL || PgGpuCc->budget == 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("the GPU service's column cache is off"),
				 !PgGpuPreloaded ?
				 errhint("Add pg_gpu to shared_preload_libraries in postgresql.conf and restart the server.") :
				 PgGpuSvc == NULL ?
				 errhint("Set pg_gpu.service = on in postgresql.conf and restart the server.") :
				 errhint("Set pg_gpu.cache_size above 0 in postgresql.conf and restart the server.")));
	rel = relation_open(relid, AccessShareLock);
	desc = RelationGetDescr(rel);
	name = pstrdup(RelationGetRelationName(rel));
	if (rel->rd_rel->relkind != RELKIND_RELATION && rel->rd_rel->relkind != RELKIND_MATVIEW)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a table or materialized view", name)));
	if ((refusal = PgGpuCacheRefusal(rel)) != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("\"%s\" cannot be kept in the GPU cache", name),
				 errdetail("Only permanent tables outside the system catalogs are cached, and %s.", refusal)));
	if (PG_ARGISNULL(1))
	{
		for (int a = 0; a < desc->natts && n < PG_GPU_CC_MAX_COLS; a++)
			if (PgGpuCacheableAttr(TupleDescAttr(desc, a), NULL))
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
			if (!PgGpuCacheableAttr(TupleDescAttr(desc, a - 1), NULL))
				ereport(ERROR,
						(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						 errmsg("column \"%s\" cannot be kept in the GPU cache", col),
						 errdetail("Only fixed-width columns of 1, 2, 4 or 8 bytes, numeric columns with a scale of 0 to %d, and char(n) and varchar(n) columns with n up to %d are cached; queries read the others from the table's pages.",
								   PG_GPU_DEC_MAX_SCALE, PG_GPU_CC_TEXT_MAX - 1)));
			if (n == PG_GPU_CC_MAX_COLS)
				ereport(ERROR,
						(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
						 errmsg("at most %d columns of a table can be kept in the GPU cache",
								PG_GPU_CC_MAX_COLS)));
			att[n++] = (int16) (a - 1);
		}
	}
	visibilitymap_count(rel, &all_visible, NULL);
	relation_close(rel, AccessShareLock);
	if (n == 0)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("\"%s\" has no column the GPU cache can keep", name),
				 errdetail("Only fixed-width columns of 1, 2, 4 or 8 bytes are cached.")));
	if (all_visible == 0)
	{
		/* nothing to cache, and no reason to start a scan */
		ereport(NOTICE,
				(errmsg("no page of \"%s\" is all-visible, so none is in the GPU cache", name),
				 errdetail("Only all-visible pages are cached: pages VACUUM has seen since they last changed."),
				 errhint("Run VACUUM on the table (with synchronous_commit = off, a moment after the last commit), then call this again.")));
		PG_RETURN_INT64(0);
	}
	/*
	 * Every GPU keeps its own cache: the table is scanned on each in turn,
	 * and the answer is the blocks each of them holds (the fewest).  A
	 * service that restarts under the scan (a fault in another session's
	 * task, say) caches nothing: the scan is tried once more on the new one.
	 */
	blocks = -1;
	for (int d = 0; d < PgGpuServiceDevices(); d++)
	{
		SvcShared  *svc = PgGpuSvcDev[d];
		int64		got = 0;

		for (int attempt = 0; attempt < 2 && got == 0; attempt++)
		{
			uint32		gen;

			cc_wait_for_service(svc, pg_gpu_emulate_gpu);
			gen = pg_atomic_read_u32(&svc->generation);
			PgGpuServiceOnlyDevice(d);
			PG_TRY();
			{
				cc_scan(relid, name, att, n);
			}
			PG_FINALLY();
			{
				PgGpuServiceOnlyDevice(-1);
			}
			PG_END_TRY();
			if ((i = cc_find_entry(PgGpuCcDev[d], MyDatabaseId, relid, pg_gpu_emulate_gpu)) >= 0)
				got = (int64) pg_atomic_read_u64(&PgGpuCcDev[d]->e[i].blocks);
			if (got == 0 && pg_atomic_read_u32(&svc->state) != SVC_DOWN &&
				pg_atomic_read_u32(&svc->generation) == gen)
				break;
		}
		if (got == 0)
		{
			/* the table has all-visible pages and the service was ready: the scan did not cache */
			if (pg_atomic_read_u32(&svc->state) == SVC_DOWN)
				ereport(NOTICE,
						(errmsg("no block of \"%s\" is in the GPU cache: the GPU service restarted during the scan", name),
						 errhint("Try again in a moment; the server log says why it restarted.")));
			else
				ereport(NOTICE,
						(errmsg("no block of \"%s\" is in the GPU cache: its scan did not run in the GPU service", name),
						 errhint("pg_gpu_fallbacks says why a scan gave the query back to PostgreSQL; a cache too small for the table's columns (pg_gpu.cache_size) caches nothing either.")));
		}
		blocks = blocks < 0 ? got : Min(blocks, got);
	}
	blocks = Max(blocks, 0);
	PG_RETURN_INT64(blocks);
}

PG_GPU_SQL_FN(pg_gpu_cache_table)

/*
 * May the current role drop relid's entries?  Dropping them throws away what
 * every session's queries read, so it takes what VACUUM (and resetting a
 * table's statistics) takes: the table's owner, the database's owner, or a
 * superuser.  Entries of a table dropped meanwhile: the database's owner.
 */
static bool
cc_may_drop(Oid relid)
{
	if (superuser() || pg_database_ownercheck(MyDatabaseId, GetUserId()))
		return true;
	return SearchSysCacheExists1(RELOID, ObjectIdGetDatum(relid)) &&
		pg_class_ownercheck(relid, GetUserId());
}

/*
 * Drop relid's entries (InvalidOid: those of this database's tables the role
 * may drop, as a database-wide VACUUM skips the others); how many.
 */
static Datum
pg_gpu_uncache_impl(FunctionCallInfo fcinfo)
{
	Oid			relid = PG_ARGISNULL(0) ? InvalidOid : PG_GETARG_OID(0);
	int			asked = 0;

	if (OidIsValid(relid) && !cc_may_drop(relid))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("must be owner of table %s", get_rel_name(relid)),
				 errdetail("Dropping a table from the GPU cache takes what VACUUM takes: the table's owner, the database's owner or a superuser.")));
	if (PgGpuCc == NULL)
		PG_RETURN_INT32(0);
	for (int d = 0; d < PgGpuServiceDevices(); d++)
		for (int i = 0; i < CC_ENTRIES; i++)
		{
			CcEntry    *e = &PgGpuCcDev[d]->e[i];

			if (pg_atomic_read_u32(&e->state) == CC_LIVE && e->key.db == MyDatabaseId &&
				(OidIsValid(relid) ? e->key.relid == relid : cc_may_drop(e->key.relid)))
			{
				pg_atomic_write_u32(&e->drop, 1);
				asked++;
			}
		}
	/* the service drops an entry once no task reads it (every 50 ms) */
	for (int t = 0; t < 200; t++)
	{
		bool		left = false;

		for (int d = 0; d < PgGpuServiceDevices(); d++)
			for (int i = 0; i < CC_ENTRIES; i++)
				left |= pg_atomic_read_u32(&PgGpuCcDev[d]->e[i].state) == CC_LIVE &&
					pg_atomic_read_u32(&PgGpuCcDev[d]->e[i].drop) != 0;
		if (!left)
			break;
		CHECK_FOR_INTERRUPTS();
		pg_usleep(10000);
	}
	PG_RETURN_INT32(asked);
}

PG_GPU_SQL_FN(pg_gpu_uncache)

/*
 * Entries no query can read again go now, not when least recently used
 * (extension.cpp): database db's (DROP EXTENSION pg_gpu, DROP DATABASE) or, with
 * relid valid, that table's in db (DROP TABLE).  Asked, not waited for: the
 * service drops an entry once no task reads it.
 */
void
PgGpuCacheDrop(Oid db, Oid relid)
{
	for (int d = 0; d < PgGpuServiceDevices(); d++)
		for (int i = 0; i < CC_ENTRIES; i++)
		{
			CcEntry    *e = &PgGpuCcDev[d]->e[i];

			if (pg_atomic_read_u32(&e->state) == CC_LIVE && e->key.db == db &&
				(!OidIsValid(relid) || e->key.relid == relid))
				pg_atomic_write_u32(&e->drop, 1);
		}
}

/* The entries, for the view pg_gpu_cache. */
static Datum
pg_gpu_cache_entries_impl(FunctionCallInfo fcinfo)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;

	InitMaterializedSRF(fcinfo, 0);
	if (rsinfo->setDesc->natts != 9 && rsinfo->setDesc->natts != 10)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("pg_gpu_cache_entries() does not match the installed pg_gpu library"),
				 errhint("Run ALTER EXTENSION pg_gpu UPDATE.")));
	for (int k = 0; k < PgGpuServiceDevices() * CC_ENTRIES; k++)
	{
		int			d = k / CC_ENTRIES;
		CcEntry    *e = &PgGpuCcDev[d]->e[k % CC_ENTRIES];
		Datum		values[10];
		bool		nulls[10] = {false, false, false, false, false, false, false, false, false, false};
		Datum		cols[PG_GPU_CC_MAX_COLS];
		CcEntry		copy;

		/* an entry being dropped is read by no new scan: not listed */
		if (pg_atomic_read_u32(&e->state) != CC_LIVE || pg_atomic_read_u32(&e->drop) != 0)
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
		values[9] = Int32GetDatum(d);	/* read by 0.5's function only */
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

PG_GPU_SQL_FN(pg_gpu_cache_entries)
