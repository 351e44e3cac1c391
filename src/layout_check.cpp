/*
 * layout_check.cpp — compile-time proof that cuda/pg_gpu_layout.h matches the
 * PostgreSQL headers pg_gpu is built against.  Nothing here runs.
 */
extern "C" {
#include "postgres.h"

#include "access/htup_details.h"
#include "storage/bufpage.h"
#include "storage/itemid.h"

#include "pg_gpu.h"
#include "pg_gpu_layout.h"
}

static_assert(BLCKSZ == PG_GPU_BLCKSZ, "BLCKSZ");
static_assert(SizeOfPageHeaderData == PG_GPU_PAGE_HEADER_SIZE, "page header size");
static_assert(offsetof(PageHeaderData, pd_lower) == PG_GPU_PD_LOWER_OFF, "pd_lower");
static_assert(MaxHeapTuplesPerPage == PG_GPU_MAX_TUPLES_PER_PAGE, "MaxHeapTuplesPerPage");
static_assert((PG_GPU_MAX_TUPLES_PER_PAGE + 31) / 32 == PG_GPU_VIS_WORDS, "bitmap words");
static_assert(sizeof(ItemIdData) == 4, "ItemIdData");
static_assert(LP_NORMAL == PG_GPU_LP_NORMAL, "LP_NORMAL");
static_assert(offsetof(HeapTupleHeaderData, t_infomask2) == PG_GPU_T_INFOMASK2_OFF, "t_infomask2");
static_assert(offsetof(HeapTupleHeaderData, t_infomask) == PG_GPU_T_INFOMASK_OFF, "t_infomask");
static_assert(offsetof(HeapTupleHeaderData, t_hoff) == PG_GPU_T_HOFF_OFF, "t_hoff");
static_assert(offsetof(HeapTupleHeaderData, t_bits) == PG_GPU_T_BITS_OFF, "t_bits");
static_assert(HEAP_NATTS_MASK == PG_GPU_HEAP_NATTS_MASK, "HEAP_NATTS_MASK");
static_assert(HEAP_HASNULL == PG_GPU_HEAP_HASNULL, "HEAP_HASNULL");
static_assert(HEAP_HASVARWIDTH == PG_GPU_HEAP_HASVARWIDTH, "HEAP_HASVARWIDTH");
static_assert(VARTAG_ONDISK == PG_GPU_VARTAG_ONDISK, "VARTAG_ONDISK");
static_assert(sizeof(varatt_external) == PG_GPU_VARATT_EXTERNAL_SIZE, "varatt_external");
static_assert(sizeof(varatt_indirect) == PG_GPU_VARATT_PTR_SIZE, "varatt_indirect");
static_assert(sizeof(varatt_expanded) == PG_GPU_VARATT_PTR_SIZE, "varatt_expanded");
#ifdef WORDS_BIGENDIAN
#error "pg_gpu's page decoder assumes a little-endian heap layout"
#endif

/* ItemIdData is a bit-field: its layout can only be checked at run time. */

bool
PgGpuLayoutOk(void)
{
	ItemIdData	id;
	uint32		w;

	id.lp_off = 1234;
	id.lp_flags = LP_NORMAL;
	id.lp_len = 4321;
	memcpy(&w, &id, sizeof(w));
	return PG_GPU_LP_OFF(w) == 1234 && PG_GPU_LP_FLAGS(w) == LP_NORMAL &&
		PG_GPU_LP_LEN(w) == 4321;
}
