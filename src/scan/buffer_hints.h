/*
 * buffer_hints.h — where a table's blocks last sat in shared buffers, kept in
 * shared memory for every backend (buffer_hints.cpp).  Include after postgres.h.
 */
#ifndef PG_GPU_BUFFER_HINTS_H
#define PG_GPU_BUFFER_HINTS_H

#include "storage/buf.h"
#include "storage/relfilenode.h"

void		PgGpuBufferHintsRequestShmem(void);
void		PgGpuBufferHintsStartup(void);

/*
 * The buffer block blk of a relation file was last seen in, or InvalidBuffer;
 * base is PgGpuBufferHintBase of the file.
 */
uint32		PgGpuBufferHintBase(const RelFileNode *node);
Buffer		PgGpuBufferHint(uint32 base, BlockNumber blk);
void		PgGpuBufferHintSet(uint32 base, BlockNumber blk, Buffer b);

#endif							/* PG_GPU_BUFFER_HINTS_H */
