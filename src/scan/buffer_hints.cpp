/*
 * buffer_hints.cpp — a cluster-wide memory of where blocks sat in shared
 * buffers.
 *
 * Pinning a block by ReadBufferExtended looks it up in the buffer mapping
 * table; ReadRecentBuffer instead checks the tag of a buffer the caller
 * believes holds it.  heap_reader.cpp keeps such beliefs per backend for a few
 * tables, which a new connection does not have: its first scan of a table
 * paid a lookup per block.
 *
 * The hints are one array of buffer numbers in shared memory, as many as there
 * are shared buffers (rounded up to a power of two), indexed by a hash of the
 * relation file plus the block number, so a table's consecutive blocks sit in
 * consecutive entries.  Entries are written and read without a lock: a word is
 * written whole, and a wrong or stale hint only costs the normal lookup, since
 * ReadRecentBuffer checks the buffer's tag under its header lock.
 *
 * The other part of a new connection's first scan, mapping each buffer page
 * into the process as it is first read (a forked backend inherits no page
 * table entries of shared memory), is the kernel's: madvise(MADV_POPULATE_READ)
 * ahead of the reads did the same work at the same cost (tried, 2026-11-29);
 * huge pages (huge_pages = on) make it 512 times fewer mappings.
 */
extern "C" {
#include "postgres.h"

#include "common/hashfn.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "utils/memutils.h"

#include "scan/buffer_hints.h"
}

static pg_atomic_uint32 *hints = NULL;
static uint32 hint_mask = 0;

static uint32
hints_count(void)
{
	uint32		n = 1024;

	while (n < (uint32) NBuffers && n < (1u << 30))
		n <<= 1;
	return n;
}

void
PgGpuBufferHintsRequestShmem(void)
{
	RequestAddinShmemSpace(MAXALIGN(sizeof(pg_atomic_uint32) * hints_count()));
}

void
PgGpuBufferHintsStartup(void)
{
	bool		found;
	uint32		n = hints_count();

	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	hints = (pg_atomic_uint32 *) ShmemInitStruct("pg_gpu buffer hints",
												 sizeof(pg_atomic_uint32) * n, &found);
	if (!found)
		for (uint32 i = 0; i < n; i++)
			pg_atomic_init_u32(&hints[i], 0);
	hint_mask = n - 1;
	LWLockRelease(AddinShmemInitLock);
}

uint32
PgGpuBufferHintBase(const RelFileNode *node)
{
	return hash_bytes((const unsigned char *) node, sizeof(RelFileNode));
}

Buffer
PgGpuBufferHint(uint32 base, BlockNumber blk)
{
	if (hints == NULL)
		return InvalidBuffer;

	uint32		b = pg_atomic_read_u32(&hints[(base + blk) & hint_mask]);

	return b >= 1 && b <= (uint32) NBuffers ? (Buffer) b : InvalidBuffer;
}

void
PgGpuBufferHintSet(uint32 base, BlockNumber blk, Buffer b)
{
	if (hints != NULL && b > 0)
		pg_atomic_write_u32(&hints[(base + blk) & hint_mask], (uint32) b);
}
