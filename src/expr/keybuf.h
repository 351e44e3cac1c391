/*
 * keybuf.h — keys collected as the engine takes them (keybuf.cpp).  Include
 * after postgres.h.
 */
#ifndef PG_GPU_KEYBUF_H
#define PG_GPU_KEYBUF_H

#include "utils/palloc.h"

/*
 * Keys being collected as the engine takes them: integers as int64 (vals), text
 * as bytes (data) with n + 1 offsets (off).  NULLs are only remembered.
 */
typedef struct PgGpuKeyBuf
{
	MemoryContext cxt;
	uint64		limit;			/* bytes the buffers may take */
	int			valtype;		/* pg_gpu_coltype of the values */
	bool		text;
	int64		n;
	int64		cap;
	int64	   *vals;			/* integers */
	uint64	   *off;			/* text: n + 1 offsets into data */
	char	   *data;
	uint64		dlen;
	uint64		dcap;
	bool		has_null;
	bool		nonempty;
	bool		full;			/* over the limit, or no memory */
} PgGpuKeyBuf;

/* Room for about rows keys of width bytes (a guess, capped; the buffers grow). */
void		PgGpuKeyBufInit(PgGpuKeyBuf *b, int valtype, double rows, int width, uint64 limit,
							MemoryContext cxt);

/* Add one value (detoasted); false once the keys no longer fit (b->full). */
bool		PgGpuKeyBufAdd(PgGpuKeyBuf *b, Datum d, bool isnull);

/* Bytes the buffers hold. */
uint64		PgGpuKeyBufBytes(const PgGpuKeyBuf *b);

#endif							/* PG_GPU_KEYBUF_H */
