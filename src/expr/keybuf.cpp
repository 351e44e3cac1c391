/*
 * keybuf.cpp — keys collected as the engine takes them, for a key set
 * (nodes/keysets.cpp), a dictionary (dict/dict.cpp) or a join's batch of probe
 * keys (nodes/gpujoin_exec_slot.cpp): integers as the engine's 64-bit words,
 * text as detoasted bytes with offsets, within a memory limit.
 */
extern "C" {
#include "postgres.h"

#include "fmgr.h"
#include "utils/memutils.h"

#include "pg_gpu.h"
#include "expr/expr_compile.h"
#include "expr/keybuf.h"
}

/* A copy of p (used bytes) in newsize bytes, or NULL with p kept. */
static void *
grow(MemoryContext cxt, void *p, Size used, Size newsize)
{
	void	   *q = MemoryContextAllocExtended(cxt, newsize, MCXT_ALLOC_HUGE | MCXT_ALLOC_NO_OOM);

	if (q == NULL)
		return NULL;
	if (p)
	{
		memcpy(q, p, used);
		pfree(p);
	}
	return q;
}

uint64
PgGpuKeyBufBytes(const PgGpuKeyBuf *b)
{
	return b->text ? b->dcap + sizeof(uint64) * (b->cap + 1) : sizeof(int64) * b->cap;
}

void
PgGpuKeyBufInit(PgGpuKeyBuf *b, int valtype, double rows, int width, uint64 limit,
				MemoryContext cxt)
{
	rows = Min(Max(rows * 1.1, 1024.0), 1e6);
	memset(b, 0, sizeof(*b));
	b->cxt = cxt;
	b->limit = limit;
	b->valtype = valtype;
	b->text = (valtype == PG_GPU_TEXT || valtype == PG_GPU_BPCHAR);
	b->cap = (int64) rows;
	if (b->text)
	{
		b->off = (uint64 *) grow(cxt, NULL, 0, sizeof(uint64) * (b->cap + 1));
		b->dcap = (uint64) (rows * Min(Max(width, 8), 64));
		b->data = (char *) grow(cxt, NULL, 0, b->dcap);
		b->full = (b->off == NULL || b->data == NULL);
		if (b->off)
			b->off[0] = 0;
	}
	else
	{
		b->vals = (int64 *) grow(cxt, NULL, 0, sizeof(int64) * b->cap);
		b->full = (b->vals == NULL);
	}
}

/* The keys no longer fit: collecting stops, the caller falls back. */
static bool
keybuf_full(PgGpuKeyBuf *b)
{
	b->full = true;
	return false;
}

bool
PgGpuKeyBufAdd(PgGpuKeyBuf *b, Datum d, bool isnull)
{
	uint64		limit = b->limit;

	if (b->full)
		return false;
	b->nonempty = true;
	if (isnull)
	{
		b->has_null = true;
		return true;
	}
	if (b->n == b->cap)
	{
		void	   *p;

		if (PgGpuKeyBufBytes(b) * 2 > limit)
			return keybuf_full(b);
		if (b->text)
			p = grow(b->cxt, b->off, sizeof(uint64) * (b->n + 1), sizeof(uint64) * (2 * b->cap + 1));
		else
			p = grow(b->cxt, b->vals, sizeof(int64) * b->n, sizeof(int64) * 2 * b->cap);
		if (p == NULL)
			return keybuf_full(b);
		if (b->text)
			b->off = (uint64 *) p;
		else
			b->vals = (int64 *) p;
		b->cap *= 2;
	}
	if (!b->text)
	{
		uint64		bits;

		if (!PgGpuDatumWord(d, b->valtype, &bits))
			elog(ERROR, "pg_gpu: key set value of an unexpected type");
		b->vals[b->n++] = (int64) bits;
		return true;
	}

	struct varlena *v = (struct varlena *) DatumGetPointer(d);
	struct varlena *plain = pg_detoast_datum_packed(v);
	uint64		len = VARSIZE_ANY_EXHDR(plain);

	if (b->dlen + len > b->dcap)
	{
		uint64		cap = b->dcap;
		char	   *p;

		while (b->dlen + len > cap)
			cap *= 2;
		if (PgGpuKeyBufBytes(b) + (cap - b->dcap) > limit ||
			(p = (char *) grow(b->cxt, b->data, b->dlen, cap)) == NULL)
		{
			if (plain != v)
				pfree(plain);
			return keybuf_full(b);
		}
		b->data = p;
		b->dcap = cap;
	}
	memcpy(b->data + b->dlen, VARDATA_ANY(plain), len);
	b->dlen += len;
	b->off[++b->n] = b->dlen;
	if (plain != v)
		pfree(plain);
	return true;
}

