/*
 * heap_reader_int.h — what heap_reader.cpp (the page loop) and table_task.cpp
 * (collect and rows tasks over a table) share.  Include after postgres.h and
 * scan/heap_reader.h.
 */
#ifndef PG_GPU_HEAP_READER_INT_H
#define PG_GPU_HEAP_READER_INT_H

#include "service/channel.h"

/* The scan cannot go on: false, with the reason kept for the caller. */
static inline bool
scan_fail(PgGpuPageScan *ps, PgGpuFallback reason, const char *msg)
{
	ps->fb_reason = reason;
	strlcpy(ps->fb_msg, msg, sizeof(ps->fb_msg));
	return false;
}

#endif							/* PG_GPU_HEAP_READER_INT_H */
