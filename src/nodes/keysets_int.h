/*
 * keysets_int.h — what keysets.cpp (sets from arrays, plans, subplans, pages,
 * dictionaries) and keysets_rows.cpp (sets from rows tasks: a star join's
 * dimension, a GpuHashJoin's kept build rows) share.  Include after
 * postgres.h and nodes/keysets.h.
 */
#ifndef PG_GPU_KEYSETS_INT_H
#define PG_GPU_KEYSETS_INT_H

#include "portability/instr_time.h"

/*
 * A star join's dimension rows, as a payload: for each row with a non-NULL key,
 * the words of the columns after the key (a text column: the position of its
 * value in that column's list of non-NULL values, which the set's codes then
 * replace).
 */
typedef struct PgGpuPayloadBuf
{
	int			ncols;
	int			type[PG_GPU_MAX_PAYLOAD];
	uint64	   *vals[PG_GPU_MAX_PAYLOAD];
	uint8	   *nulls[PG_GPU_MAX_PAYLOAD];
	int64		n;
	int64		cap;
	/*
	 * A text column's non-NULL values, one after another: value p's bytes
	 * are tdata[off[p] .. off[p + 1]) (toff holds ntext + 1 offsets).
	 */
	char	   *tdata[PG_GPU_MAX_PAYLOAD];
	uint64		tcap[PG_GPU_MAX_PAYLOAD];
	uint64	   *toff[PG_GPU_MAX_PAYLOAD];
	int64		ntext[PG_GPU_MAX_PAYLOAD];
	uint64		bytes;
} PgGpuPayloadBuf;

/* What is left of the keys' memory limit for the payload beside them. */
uint64		PgGpuKeyBufRoom(PgGpuKeyBuf *b);

/*
 * One row's payload values (its key was not NULL); false when over the limit.
 * A text value's bytes are copied (detoasted) into text_cxt.
 */
bool		PgGpuPayloadValues(PgGpuPayloadBuf *pb, const Datum *vals, const bool *nulls,
							   uint64 limit, MemoryContext pay_cxt, MemoryContext text_cxt);

/* Milliseconds since t0. */
static inline double
PgGpuMsSince(instr_time t0)
{
	instr_time	t;

	INSTR_TIME_SET_CURRENT(t);
	INSTR_TIME_SUBTRACT(t, t0);
	return INSTR_TIME_GET_MILLISEC(t);
}

/*
 * A CHILD source with a payload and a rows task whose key must be unique, an
 * integer key and payload columns of words (no text): read instead by a
 * collect task with the payload (collect_pay), the set made where the GPU
 * reads the table (in the GPU service with sets->svc), its payload beside it,
 * no row crossing to the backend.  False when that does not apply or the GPU
 * could not (the rows task, or the plan, then runs).
 */
bool		PgGpuRowsAsCollect(const PgGpuSetSource *src, EState *estate, PgGpuSets *sets,
							   int settype, struct PgGpuCollected *col);

/*
 * A CHILD source with a payload and a rows task (a star join's dimension):
 * its rows grouped on the GPU into the key and payload buffers.  False when
 * the GPU could not (noted; the child plan then runs instead), or with *dup
 * when rows repeat.
 */
bool		PgGpuRowsOnGpu(const PgGpuSetSource *src, EState *estate, PgGpuNode node,
						   PgGpuSets *sets, int i, PgGpuKeyBuf *b, PgGpuPayloadBuf *pb,
						   bool *dup);

/*
 * The same with the sets in the GPU service: the groups become the set there
 * (ref filled).
 */
bool		PgGpuRowsInService(const PgGpuSetSource *src, EState *estate, PgGpuNode node,
							   PgGpuSets *sets, int i, pg_gpu_set_ref *ref,
							   const PgGpuPayloadBuf *pb, bool *dup);

/*
 * A CHILD source whose rows a GpuHashJoin keeps for its output, with a rows
 * task over the build table's pages: the rows grouped on the GPU by (key,
 * output columns), each group made one row of the build plan's type (child's
 * result) and kept as many times as it has rows (sets->rows, in rows_cxt),
 * its key that many times in b.  False when the GPU could not (noted; the
 * caller then runs the child plan instead), or with b->full when the rows
 * exceed the keys' memory limit (the plan's would too).
 */
bool		PgGpuKeptRowsOnGpu(const PgGpuSetSource *src, PlanState *child, EState *estate,
							   PgGpuNode node, PgGpuSets *sets, int i, PgGpuKeyBuf *b);

/*
 * A CHILD source with an aux column (a semi- or anti-join's inner.b <> outer.x)
 * from its plan ps (keysets_minmax.cpp): its rows' integer keys (column resno)
 * and b (the next column, of value type auxtype), each distinct key once in b,
 * its least and greatest non-NULL b as pb's two columns; a row whose b is NULL
 * is left out.  False when over the keys' memory limit (b->full).
 */
bool		PgGpuMinMaxFromPlan(PgGpuKeyBuf *b, PgGpuPayloadBuf *pb, PlanState *ps, int resno,
								int auxtype);

#endif							/* PG_GPU_KEYSETS_INT_H */
