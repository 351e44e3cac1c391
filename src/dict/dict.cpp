/*
 * dict.cpp — named dictionaries for repeated exact-match lookups (issue 5).
 *
 *   pg_gpu_dict_create(name, query [, kind])  the query's keys (one text, varchar
 *                                             or bpchar column) as a 'hash' table
 *                                             or a 'trie'; returns the distinct keys
 *   pg_gpu_dict_contains(name, key)           whether key is in it
 *   pg_gpu_dict_lookup(name, key)             its ordinal, or NULL
 *   pg_gpu_dict_drop(name)
 *   pg_gpu_dict_list()
 *
 * Lifetime: a dictionary belongs to the session that created it (its structure is
 * in that backend's memory and that backend's GPU context) and lasts until it is
 * dropped or the session ends.  It is a snapshot: the query runs once, at
 * creation, and later changes to its tables do not reach it (drop and create it
 * again).  Creating and dropping are not transactional, like PREPARE.
 *
 * Matching is exact, byte for byte, whatever the collation (bpchar keys lose their
 * trailing blanks, as its cast to text does).  A key's ordinal is its 1-based
 * position among the query's non-NULL keys, the first for a key met twice: order
 * the query to choose it.  NULL keys are skipped; a NULL key asked for is NULL.
 *
 * Called per row (PostgreSQL's own plans), the functions search the host copy.
 * Inside GpuAgg and GpuSort, expr_compile turns them into probes of the GPU copy
 * by the page kernels (nodes/keysets.cpp pins the dictionary for the query).
 */
extern "C" {
#include "postgres.h"

#include "access/xact.h"
#include "catalog/pg_language.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "commands/explain.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/hsearch.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/plancache.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"

#include "pg_gpu.h"
#include "dict/dict.h"
#include "expr/keybuf.h"
}

#include "guard.h"

typedef struct DictEntry
{
	char		name[NAMEDATALEN];	/* hash key */
	pg_gpu_dict *dict;
	char	   *query;			/* in TopMemoryContext */
	TimestampTz created;
	int			pins;			/* queries probing it now */
} DictEntry;

static HTAB *dicts = NULL;
static uint64 dict_generation = 0;	/* bumped by every create and drop */

/* A function's cache of the dictionary it last found (fn_extra). */
typedef struct DictCache
{
	uint64		generation;
	DictEntry  *entry;
	int			namelen;
	char		name[NAMEDATALEN];
} DictCache;

static void
dict_xact_callback(XactEvent event, void *arg)
{
	HASH_SEQ_STATUS it;
	DictEntry  *e;

	if (dicts == NULL ||
		(event != XACT_EVENT_COMMIT && event != XACT_EVENT_ABORT &&
		 event != XACT_EVENT_PARALLEL_COMMIT && event != XACT_EVENT_PARALLEL_ABORT &&
		 event != XACT_EVENT_PREPARE))
		return;
	/* queries end with their transaction: nothing probes a dictionary now */
	hash_seq_init(&it, dicts);
	while ((e = (DictEntry *) hash_seq_search(&it)) != NULL)
		e->pins = 0;
}

void
PgGpuDictInit(void)
{
	RegisterXactCallback(dict_xact_callback, NULL);
}

static HTAB *
dict_table(void)
{
	if (dicts == NULL)
	{
		HASHCTL		ctl;

		memset(&ctl, 0, sizeof(ctl));
		ctl.keysize = NAMEDATALEN;
		ctl.entrysize = sizeof(DictEntry);
		ctl.hcxt = TopMemoryContext;
		dicts = hash_create("pg_gpu dictionaries", 16, &ctl, HASH_ELEM | HASH_STRINGS | HASH_CONTEXT);
	}
	return dicts;
}

/* Argument argno as a dictionary name: not NULL, not too long. */
static void
arg_name(FunctionCallInfo fcinfo, int argno, char *name)
{
	text	   *t;
	int			len;

	if (PG_ARGISNULL(argno))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("dictionary name must not be null")));
	t = PG_GETARG_TEXT_PP(argno);
	len = VARSIZE_ANY_EXHDR(t);
	if (len == 0 || len >= NAMEDATALEN || memchr(VARDATA_ANY(t), 0, len) != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_NAME),
				 errmsg("invalid dictionary name \"%s\"", text_to_cstring(t)),
				 errdetail("A dictionary name has 1 to %d bytes.", NAMEDATALEN - 1)));
	memcpy(name, VARDATA_ANY(t), len);
	name[len] = '\0';
}

static DictEntry *
find_dict(const char *name)
{
	DictEntry  *e = (DictEntry *) hash_search(dict_table(), name, HASH_FIND, NULL);

	if (e == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("dictionary \"%s\" does not exist", name),
				 errhint("Create it with pg_gpu_dict_create() in this session: dictionaries belong to the session that created them.")));
	return e;
}

/* The dictionary named by argument 0, through the function's cache. */
static DictEntry *
arg_dict(FunctionCallInfo fcinfo)
{
	DictCache  *c = (DictCache *) fcinfo->flinfo->fn_extra;
	text	   *t;

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("dictionary name must not be null")));
	t = PG_GETARG_TEXT_PP(0);
	if (c && c->generation == dict_generation && c->namelen == (int) VARSIZE_ANY_EXHDR(t) &&
		memcmp(c->name, VARDATA_ANY(t), c->namelen) == 0)
		return c->entry;
	if (c == NULL)
	{
		c = (DictCache *) MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(DictCache));
		fcinfo->flinfo->fn_extra = c;
	}
	c->generation = ~(uint64) 0;
	arg_name(fcinfo, 0, c->name);
	c->entry = find_dict(c->name);
	c->namelen = strlen(c->name);
	c->generation = dict_generation;
	return c->entry;
}

static const char *
kind_name(int kind)
{
	return kind == PG_GPU_DICT_TRIE ? "trie" : "hash";
}

/* Whether to copy a new dictionary to the GPU now. */
static bool
dict_on_device(void)
{
	PgGpuFallback reason;
	char		msg[256];

	if (!pg_gpu_enabled || pg_gpu_emulate_gpu || !PgGpuDeviceLikely())
		return false;
	return PgGpuEnsureEngine(&reason, msg, sizeof(msg));
}

static Datum
pg_gpu_dict_create_impl(FunctionCallInfo fcinfo)
{
	char		name[NAMEDATALEN];
	char	   *query;
	char	   *kindstr;
	int			kind;
	MemoryContext keycxt,
				rowcxt,
				oldcxt;
	SPIPlanPtr	plan;
	Portal		portal;
	Oid			coltype;
	PgGpuKeyBuf b;
	pg_gpu_dict *d;
	pg_gpu_dict_info info;
	pg_gpu_error err;
	DictEntry  *e;
	bool		found;
	char	   *qcopy;

	arg_name(fcinfo, 0, name);
	if (PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("dictionary query must not be null")));
	if (PG_ARGISNULL(2))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("dictionary kind must not be null")));
	query = text_to_cstring(PG_GETARG_TEXT_PP(1));
	kindstr = text_to_cstring(PG_GETARG_TEXT_PP(2));
	if (strcmp(kindstr, "hash") == 0)
		kind = PG_GPU_DICT_HASH;
	else if (strcmp(kindstr, "trie") == 0)
		kind = PG_GPU_DICT_TRIE;
	else
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown dictionary kind \"%s\"", kindstr),
				 errhint("The kinds are 'hash' and 'trie'.")));
	if (hash_search(dict_table(), name, HASH_FIND, NULL) != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_DUPLICATE_OBJECT),
				 errmsg("dictionary \"%s\" already exists", name),
				 errhint("Drop it first with pg_gpu_dict_drop().")));

	/* the keys, collected in this call's context (SPI's goes at SPI_finish) */
	keycxt = AllocSetContextCreate(CurrentMemoryContext, "pg_gpu dictionary keys",
								   ALLOCSET_DEFAULT_SIZES);
	rowcxt = AllocSetContextCreate(CurrentMemoryContext, "pg_gpu dictionary row",
								   ALLOCSET_DEFAULT_SIZES);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "pg_gpu: SPI_connect failed");
	plan = SPI_prepare(query, 0, NULL);
	if (plan == NULL)
		elog(ERROR, "pg_gpu: SPI_prepare failed: %s", SPI_result_code_string(SPI_result));
	if (!SPI_is_cursor_plan(plan))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("dictionary query must be a single SELECT returning one text column")));
	/* a dictionary is a snapshot of keys: a query that writes or locks rows is not one */
	{
		CachedPlanSource *src = (CachedPlanSource *) linitial(SPI_plan_get_plan_sources(plan));
		ListCell   *lc;

		foreach(lc, src->query_list)
		{
			Query	   *q = lfirst_node(Query, lc);

			if (q->commandType != CMD_SELECT || q->hasModifyingCTE || q->rowMarks != NIL)
				ereport(ERROR,
						(errcode(ERRCODE_WRONG_OBJECT_TYPE),
						 errmsg("dictionary query must be a single SELECT returning one text column"),
						 q->commandType != CMD_SELECT ?
						 errdetail("The query is a %s.", GetCommandTagName(src->commandTag)) :
						 errdetail("The query changes or locks rows.")));
		}
	}
	portal = SPI_cursor_open(NULL, plan, NULL, NULL, true);
	if (portal->tupDesc->natts != 1)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("dictionary query must return a single text column"),
				 errdetail("It returns %d columns.", portal->tupDesc->natts)));
	coltype = getBaseType(TupleDescAttr(portal->tupDesc, 0)->atttypid);
	if (coltype != TEXTOID && coltype != VARCHAROID && coltype != BPCHAROID)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("dictionary query must return a single text column"),
				 errdetail("Its column is of type %s.", format_type_be(coltype)),
				 errhint("Cast the column to text.")));
	PgGpuKeyBufInit(&b, PG_GPU_TEXT, 1e5, 32, MaxAllocHugeSize, keycxt);
	for (;;)
	{
		SPI_cursor_fetch(portal, true, 10000);
		if (SPI_processed == 0)
			break;
		oldcxt = MemoryContextSwitchTo(rowcxt);
		for (uint64 i = 0; i < SPI_processed; i++)
		{
			bool		isnull;
			Datum		v = SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull);

			if (!isnull && coltype == BPCHAROID)
				v = DirectFunctionCall1(rtrim1, v);
			if (!isnull && !PgGpuKeyBufAdd(&b, v, false))
				ereport(ERROR,
						(errcode(ERRCODE_OUT_OF_MEMORY),
						 errmsg("out of memory collecting the keys of dictionary \"%s\"", name)));
		}
		MemoryContextSwitchTo(oldcxt);
		MemoryContextReset(rowcxt);
		SPI_freetuptable(SPI_tuptable);
		CHECK_FOR_INTERRUPTS();
	}
	SPI_cursor_close(portal);
	SPI_finish();
	if (b.full)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory collecting the keys of dictionary \"%s\"", name)));

	qcopy = MemoryContextStrdup(TopMemoryContext, query);
	d = pg_gpu_dict_build(kind, (uint64) b.n, b.data, b.off, 0, &err);
	MemoryContextDelete(keycxt);
	MemoryContextDelete(rowcxt);
	if (d == NULL)
	{
		pfree(qcopy);
		PgGpuRaiseIfCancelled(err.status);
		ereport(ERROR,
				(errcode(err.status == PG_GPU_OUT_OF_MEMORY ? ERRCODE_OUT_OF_MEMORY : ERRCODE_INTERNAL_ERROR),
				 errmsg("cannot build dictionary \"%s\": %s", name, err.message)));
	}
	e = (DictEntry *) hash_search(dict_table(), name, HASH_ENTER_NULL, &found);
	if (e == NULL || found)
	{
		/* out of memory, or the query itself created the name */
		pg_gpu_dict_free(d);
		pfree(qcopy);
		if (e == NULL)
			ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
		ereport(ERROR,
				(errcode(ERRCODE_DUPLICATE_OBJECT),
				 errmsg("dictionary \"%s\" already exists", name)));
	}
	e->dict = d;
	e->query = qcopy;
	e->created = GetCurrentTimestamp();
	e->pins = 0;
	dict_generation++;

	/* to the GPU now, where there is one; else when a query first needs it */
	if (dict_on_device())
	{
		pg_gpu_set_ref ref;

		if (pg_gpu_dict_ref(d, 0, &ref, &err) != PG_GPU_OK)
			ereport(LOG,
					(errmsg("pg_gpu: dictionary \"%s\" stays on the CPU for now", name),
					 errdetail("%s", err.message)));
	}
	pg_gpu_dict_get_info(d, &info);
	PG_RETURN_INT64((int64) info.distinct);
}

static Datum
pg_gpu_dict_contains_impl(FunctionCallInfo fcinfo)
{
	DictEntry  *e = arg_dict(fcinfo);
	text	   *k;

	if (PG_ARGISNULL(1))
		PG_RETURN_NULL();
	k = PG_GETARG_TEXT_PP(1);
	PG_RETURN_BOOL(pg_gpu_dict_find(e->dict, VARDATA_ANY(k), VARSIZE_ANY_EXHDR(k)) >= 0);
}

static Datum
pg_gpu_dict_lookup_impl(FunctionCallInfo fcinfo)
{
	DictEntry  *e = arg_dict(fcinfo);
	text	   *k;
	int64		i;

	if (PG_ARGISNULL(1))
		PG_RETURN_NULL();
	k = PG_GETARG_TEXT_PP(1);
	i = pg_gpu_dict_find(e->dict, VARDATA_ANY(k), VARSIZE_ANY_EXHDR(k));
	if (i < 0)
		PG_RETURN_NULL();
	PG_RETURN_INT64(i + 1);
}

static Datum
pg_gpu_dict_drop_impl(FunctionCallInfo fcinfo)
{
	char		name[NAMEDATALEN];
	DictEntry  *e;

	arg_name(fcinfo, 0, name);
	e = find_dict(name);
	if (e->pins > 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_IN_USE),
				 errmsg("dictionary \"%s\" is in use by a running query", name)));
	pg_gpu_dict_free(e->dict);
	pfree(e->query);
	hash_search(dicts, name, HASH_REMOVE, NULL);
	dict_generation++;
	PG_RETURN_VOID();
}

static Datum
pg_gpu_dict_list_impl(FunctionCallInfo fcinfo)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	HASH_SEQ_STATUS it;
	DictEntry  *e;

	InitMaterializedSRF(fcinfo, 0);
	hash_seq_init(&it, dict_table());
	while ((e = (DictEntry *) hash_seq_search(&it)) != NULL)
	{
		pg_gpu_dict_info info;
		Datum		values[11];
		bool		nulls[11];

		pg_gpu_dict_get_info(e->dict, &info);
		memset(nulls, 0, sizeof(nulls));
		values[0] = CStringGetTextDatum(e->name);
		values[1] = CStringGetTextDatum(kind_name(info.kind));
		values[2] = Int64GetDatum((int64) info.keys);
		values[3] = Int64GetDatum((int64) info.distinct);
		values[4] = Int64GetDatum((int64) info.nodes);
		nulls[4] = info.kind != PG_GPU_DICT_TRIE;
		values[5] = Int64GetDatum((int64) info.host_bytes);
		values[6] = Int64GetDatum((int64) info.device_bytes);
		nulls[6] = info.device_bytes == 0;
		values[7] = Float8GetDatum(info.build_ms);
		values[8] = Float8GetDatum(info.upload_ms);
		nulls[8] = info.device_bytes == 0;
		values[9] = TimestampTzGetDatum(e->created);
		values[10] = CStringGetTextDatum(e->query);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

bool
PgGpuDictPin(const char *name, bool emulate, pg_gpu_set_ref *ref, int64 *keys, int64 *distinct,
			 PgGpuFallback *reason, char *msg, size_t msglen)
{
	DictEntry  *e = (DictEntry *) hash_search(dict_table(), name, HASH_FIND, NULL);
	pg_gpu_dict_info info;
	pg_gpu_error err;

	if (e == NULL)
	{
		/* PostgreSQL's plan raises the error, if it calls the function at all */
		*reason = PG_GPU_FB_UNSUPPORTED;
		snprintf(msg, msglen, "dictionary \"%s\" does not exist", name);
		return false;
	}
	pg_gpu_dict_get_info(e->dict, &info);
	*keys = (int64) info.keys;
	*distinct = (int64) info.distinct;
	if (pg_gpu_dict_ref(e->dict, emulate, ref, &err) != PG_GPU_OK)
	{
		*reason = PgGpuFallbackFor(err.status);
		snprintf(msg, msglen, "dictionary \"%s\" cannot go to the GPU: %s", name, err.message);
		return false;
	}
	e->pins++;
	return true;
}

void
PgGpuDictUnpin(const char *name)
{
	DictEntry  *e = dicts ? (DictEntry *) hash_search(dicts, name, HASH_FIND, NULL) : NULL;

	if (e && e->pins > 0)
		e->pins--;
}

PG_GPU_SQL_FN(pg_gpu_dict_create)
PG_GPU_SQL_FN(pg_gpu_dict_contains)
PG_GPU_SQL_FN(pg_gpu_dict_lookup)
PG_GPU_SQL_FN(pg_gpu_dict_drop)
PG_GPU_SQL_FN(pg_gpu_dict_list)
