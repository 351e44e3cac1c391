/*
 * keysets_minmax.cpp — a key set for a semi- or anti-join with inner.b <> outer.x
 * (TPC-H Q21's EXISTS (... l2.l_suppkey <> l1.l_suppkey)) from its build plan.
 *
 * What decides such a join for a probe row of key k and value x is whether k has
 * a non-NULL b other than x: that is, whether k's least or greatest non-NULL b
 * differs from x (docs/SEMANTICS.md 29).  The set keeps each key once, with
 * those two values as its payload (columns 0 and 1, as PG_GPU_OP_SET_NE and
 * pg_gpu_keyset_probe_ne read them).  Keys collected on the GPU from the build
 * table's pages get them there (a collect task with an aux value); this file
 * does it for a build plan's rows, on the host: the rows' integer keys and b
 * words, then an open-addressed table of the distinct keys folding each one's
 * b values.  Rows whose b is NULL never satisfy <> and are left out.
 */
extern "C" {
#include "postgres.h"

#include "commands/explain.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "utils/memutils.h"

#include "pg_gpu.h"
#include "expr/expr_compile.h"
#include "expr/keybuf.h"
#include "nodes/keysets.h"
#include "nodes/keysets_int.h"
}

/* The same mixing as the engine's integer keys (any will do: host only). */
static inline uint64
mix_word(uint64 x)
{
	x ^= x >> 33;
	x *= UINT64CONST(0xff51afd7ed558ccd);
	x ^= x >> 33;
	x *= UINT64CONST(0xc4ceb9fe1a85ec53);
	x ^= x >> 33;
	return x;
}

bool
PgGpuMinMaxFromPlan(PgGpuKeyBuf *b, PgGpuPayloadBuf *pb, PlanState *ps, int resno, int auxtype)
{
	int64	   *aux = NULL;
	int64		acap = 0;

	Assert(!b->text);
	memset(pb, 0, sizeof(*pb));
	pb->ncols = 2;
	pb->type[0] = pb->type[1] = PG_GPU_INT8;

	/* the rows: key words in b, b's words beside them */
	for (;;)
	{
		TupleTableSlot *slot;
		bool		isnull,
					auxnull;
		Datum		d,
					a;
		uint64		w;

		if ((slot = PgGpuPullKey(ps, resno, NULL, NULL, &d, &isnull)) == NULL)
			break;
		a = slot_getattr(slot, resno + 1, &auxnull);
		if (isnull || auxnull)
		{
			/* a NULL key matches nothing, a NULL b satisfies no <> */
			if (isnull && !PgGpuKeyBufAdd(b, d, true))
				return false;
			continue;
		}
		if (!PgGpuDatumWord(a, auxtype, &w))
			elog(ERROR, "pg_gpu: a <> value of an unexpected type");
		if (!PgGpuKeyBufAdd(b, d, false))
			return false;
		if (b->n > acap)
		{
			int64		cap = Max(1024, 2 * acap);

			if (PgGpuKeyBufBytes(b) + sizeof(int64) * cap > b->limit)
			{
				b->full = true;
				return false;
			}
			aux = (int64 *) (aux ? repalloc_huge(aux, sizeof(int64) * cap)
							 : MemoryContextAllocHuge(b->cxt, sizeof(int64) * cap));
			acap = cap;
		}
		aux[b->n - 1] = (int64) w;
	}

	/*
	 * Each distinct key once, at the place of its first row: a table of row
	 * indexes + 1 (0: free), twice the rows at least.
	 */
	int64		n = b->n;
	uint64		size = 16;

	while (size < 2 * (uint64) n)
		size <<= 1;
	if (PgGpuKeyBufBytes(b) + sizeof(int64) * (acap + size + 2 * n) + n > b->limit)
	{
		b->full = true;
		return false;
	}

	int64	   *tab = (int64 *) MemoryContextAllocHuge(b->cxt, sizeof(int64) * size);
	int64		u = 0;

	memset(tab, 0, sizeof(int64) * size);
	for (int j = 0; j < 2; j++)
	{
		pb->vals[j] = (uint64 *) MemoryContextAllocHuge(b->cxt, sizeof(uint64) * Max(n, 1));
		pb->nulls[j] = (uint8 *) MemoryContextAllocHuge(b->cxt, Max(n, 1));
	}
	for (int64 i = 0; i < n; i++)
	{
		int64		k = b->vals[i];

		if ((i & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		for (uint64 s = mix_word((uint64) k) & (size - 1);; s = (s + 1) & (size - 1))
		{
			if (tab[s] == 0)
			{
				/* a new key: the u-th, its b so far its least and greatest */
				tab[s] = u + 1;
				b->vals[u] = k;
				pb->vals[0][u] = pb->vals[1][u] = (uint64) aux[i];
				pb->nulls[0][u] = pb->nulls[1][u] = 0;
				u++;
				break;
			}
			if (b->vals[tab[s] - 1] == k)
			{
				int64		at = tab[s] - 1;

				if (aux[i] < (int64) pb->vals[0][at])
					pb->vals[0][at] = (uint64) aux[i];
				if (aux[i] > (int64) pb->vals[1][at])
					pb->vals[1][at] = (uint64) aux[i];
				break;
			}
		}
	}
	b->n = u;
	pb->n = pb->cap = u;
	pfree(tab);
	if (aux)
		pfree(aux);
	return true;
}
