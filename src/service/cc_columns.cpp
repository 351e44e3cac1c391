/*
 * cc_columns.cpp — which tables and columns the GPU service's column cache can
 * keep (colcache.h), and in what form: the backend's side, for a scan's
 * request (cc_client.cpp) and for pg_gpu_cache_table (cache_sql.cpp).
 */
extern "C" {
#include "postgres.h"

#include "access/xlog.h"
#include "catalog/catalog.h"
#include "catalog/pg_type.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "pg_gpu.h"
#include "pg_gpu_engine.h"
#include "expr/expr_compile.h"
#include "service/cc_client.h"
}

/*
 * The bytes of a char(n) or varchar(n) column's cells: the smallest of 4, 8, 16
 * and 32 that holds n single-byte characters and a short varlena's 1-byte
 * header; 0 when none does, or the column has no length (text, varchar, bpchar
 * without one).  A value of multi-byte characters is kept where it still fits.
 */
static int
text_cell_bytes(int32 typmod)
{
	int32		n = typmod - (int32) VARHDRSZ;

	if (typmod < (int32) VARHDRSZ || n < 1)
		return 0;
	for (int w = 4; w <= PG_GPU_CC_TEXT_MAX; w *= 2)
		if (n + 1 <= w)
			return w;
	return 0;
}

/*
 * Whether attribute a's values can be cached: fixed width, by value; a
 * numeric(p,s) with s in 0 .. PG_GPU_DEC_MAX_SCALE, kept decoded as DECIMAL at s
 * (16 bytes); a char(n) or varchar(n) with n up to PG_GPU_CC_TEXT_MAX - 1, kept
 * as short varlenas in cells of text_cell_bytes (type PG_GPU_TEXT, scale the
 * cell's bytes).  A value the GPU cannot keep is marked and read as such.
 * *col, when given, receives how the cache keeps it.
 */
bool
PgGpuCacheableAttr(Form_pg_attribute a, pg_gpu_agg_column *col)
{
	pg_gpu_agg_column c;
	bool		fixed = false;

	memset(&c, 0, sizeof(c));
	c.attidx = (int16) (a->attnum - 1);
	if (a->attisdropped)
		return false;
	if (a->atttypid == NUMERICOID)
	{
		c.scale = (uint8) PgGpuNumericColumnScale(a->atttypmod, &fixed);
		c.type = PG_GPU_DECIMAL;
		if (!fixed)
			return false;
	}
	else if (a->atttypid == BPCHAROID || a->atttypid == VARCHAROID)
	{
		c.scale = (uint8) text_cell_bytes(a->atttypmod);
		c.type = PG_GPU_TEXT;
		if (c.scale == 0)
			return false;
	}
	else if (!a->attbyval ||
			 !(a->attlen == 1 || a->attlen == 2 || a->attlen == 4 || a->attlen == 8))
		return false;
	if (col)
		*col = c;
	return true;
}

/*
 * Why rel's blocks can never be in the column cache, or NULL when they can.
 * The rule of colcache.h holds only where setting a VM bit stamps the VM page
 * with an LSN (WAL-logged relations, as table_cache.cpp's) and where a page's
 * tuples are never rewritten in place (not catalogs).
 */
const char *
PgGpuCacheRefusal(Relation rel)
{
	if (rel->rd_rel->relpersistence == RELPERSISTENCE_TEMP)
		return "it is a temporary table";
	if (rel->rd_rel->relpersistence == RELPERSISTENCE_UNLOGGED)
		return "it is an unlogged table";
	if (IsCatalogRelation(rel))
		return "it is a system catalog";
	if (!RelationNeedsWAL(rel) || rel->rd_createSubid != InvalidSubTransactionId ||
		rel->rd_firstRelfilenodeSubid != InvalidSubTransactionId)
		return "it was created or rewritten in this transaction";
	if (RecoveryInProgress())
		return "the server is in recovery";
	if (old_snapshot_threshold >= 0)
		return "old_snapshot_threshold is set";
	if (RelationGetDescr(rel)->natts > PG_GPU_MAX_DEFORM_ATTS)
		return "it has more columns than the GPU deforms";
	return NULL;
}
