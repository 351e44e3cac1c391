/*
 * pg_gpu_layout.h — PostgreSQL's on-disk heap layout, as numbers the GPU can use.
 *
 * The engine never includes PostgreSQL headers, so the few layout facts the page
 * deformer needs are written down here once.  src/layout_check.cpp static_asserts
 * every one of them against PostgreSQL's real structs, so a mismatch fails the build
 * instead of producing wrong answers.
 */
#ifndef PG_GPU_LAYOUT_H
#define PG_GPU_LAYOUT_H

#define PG_GPU_BLCKSZ				8192
#define PG_GPU_PAGE_HEADER_SIZE		24	/* offsetof(PageHeaderData, pd_linp) */
#define PG_GPU_PD_LOWER_OFF			12	/* offsetof(PageHeaderData, pd_lower) */
#define PG_GPU_MAX_TUPLES_PER_PAGE	291 /* MaxHeapTuplesPerPage */
#define PG_GPU_VIS_WORDS			10	/* 32-bit words per visibility bitmap */

/* ItemIdData bit-fields (little-endian, as gcc lays them out) */
#define PG_GPU_LP_OFF(w)			((w) & 0x7FFFu)
#define PG_GPU_LP_FLAGS(w)			(((w) >> 15) & 0x3u)
#define PG_GPU_LP_LEN(w)			((w) >> 17)
#define PG_GPU_LP_NORMAL			1

/* HeapTupleHeaderData */
#define PG_GPU_T_INFOMASK2_OFF		18
#define PG_GPU_T_INFOMASK_OFF		20
#define PG_GPU_T_HOFF_OFF			22
#define PG_GPU_T_BITS_OFF			23
#define PG_GPU_HEAP_NATTS_MASK		0x07FF
#define PG_GPU_HEAP_HASNULL			0x0001
#define PG_GPU_HEAP_HASVARWIDTH		0x0002

/* varlena headers (little-endian) */
#define PG_GPU_VARTAG_ONDISK		18
#define PG_GPU_VARATT_EXTERNAL_SIZE	16	/* sizeof(varatt_external) */
#define PG_GPU_VARATT_PTR_SIZE		8	/* indirect / expanded pointers */

#endif							/* PG_GPU_LAYOUT_H */
