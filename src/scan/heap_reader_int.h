/*
 * heap_reader_int.h — what heap_reader.cpp (the page loop), cc_scan.cpp (the
 * column cache's side of a scan) and table_task.cpp (collect and rows tasks
 * over a table) share.  Include after postgres.h and scan/heap_reader.h.
 */
#ifndef PG_GPU_HEAP_READER_INT_H
#define PG_GPU_HEAP_READER_INT_H

#include "access/visibilitymapdefs.h"
#include "access/xlogdefs.h"

#include "service/channel.h"

/* The scan cannot go on: false, with the reason kept for the caller. */
static inline bool
scan_fail(PgGpuPageScan *ps, PgGpuFallback reason, const char *msg)
{
	ps->fb_reason = reason;
	strlcpy(ps->fb_msg, msg, sizeof(ps->fb_msg));
	return false;
}

/* cc_scan.cpp */
CcRequest  *cc_request(Relation rel, Snapshot snapshot, const pg_gpu_agg_task *task,
					   BlockNumber nblocks);
bool		cc_read_vm(Relation rel, uint32 v, Buffer *vmbuf, uint8 *map, XLogRecPtr *lsn);
void		cc_note_scan(PgGpuPageScan *ps);

static inline bool
cc_vm_visible(const uint8 *map, uint32 i)
{
	return ((map[i >> 2] >> ((i & 3) * BITS_PER_HEAPBLOCK)) & VISIBILITYMAP_ALL_VISIBLE) != 0;
}

/* Whether the 64 blocks of the 16 VM bytes at map are all all-visible. */
static inline bool
cc_vm_visible64(const uint8 *map)
{
	uint64		a,
				b;
	const uint64 all = UINT64CONST(0x5555555555555555);	/* every ALL_VISIBLE bit */

	StaticAssertStmt(VISIBILITYMAP_ALL_VISIBLE == 1 && BITS_PER_HEAPBLOCK == 2,
					 "the VM's layout as this file reads it");
	memcpy(&a, map, 8);
	memcpy(&b, map + 8, 8);
	return (a & all) == all && (b & all) == all;
}

#endif							/* PG_GPU_HEAP_READER_INT_H */
