/*
 * client_sets.cpp — the backend's requests to the GPU service beyond a task's
 * chunks and results (client.cpp): key sets held on a node's channel (built
 * from rows sent, collected, a rows task's, their payloads, text codes and
 * ordinals), batched probes of a set, key sorts of rows encoded here, and a
 * gpu_* aggregate's reduction.  Bytes go a window at a time (SVC_KS_APPEND
 * parts) and answers come back the same way.
 */
extern "C" {
#include "postgres.h"

#include <semaphore.h>

#include "miscadmin.h"
#include "utils/memutils.h"

#include "pg_gpu.h"
}

#include "guard.h"
#include "service/channel.h"
#include "service/service.h"
#include "service/client_int.h"

/* The key set's answer: its reference (the caller's NULL flags kept) and counts. */
static void
svc_take_keyset(SvcClient *c, pg_gpu_set_ref *ref, uint64 *keys, uint64 *distinct,
				int *has_null)
{
	uint8		hn = ref->has_null,
				ne = ref->nonempty;
	const SvcKeysetAns *a = &c->ch->answer.keyset;

	*ref = a->ref;
	ref->has_null = hn;
	ref->nonempty = ne;
	*keys = a->keys;
	*distinct = a->distinct;
	*has_null = a->has_null;
}

bool
PgGpuServiceKeysetCollected(PgGpuSvcChannel *chan, int type, pg_gpu_set_ref *ref,
							uint64 *keys, uint64 *distinct, int *has_null, int64 *pay_distinct,
							pg_gpu_error *err)
{
	SvcClient  *c = (SvcClient *) chan;

	c->ch->request.collected.type = type;
	if (svc_request(c, SVC_KS_COLLECTED, false, err) != PG_GPU_OK)
		return false;
	svc_take_keyset(c, ref, keys, distinct, has_null);
	for (int j = 0; j < PG_GPU_MAX_PAYLOAD; j++)
		pay_distinct[j] = c->ch->answer.keyset.pay_distinct[j];
	return true;
}

/* Send bytes to the key set being built, a window at a time. */
static bool
svc_append(SvcClient *c, SvcPart part, const char *p, uint64 len, pg_gpu_error *err)
{
	while (len > 0)
	{
		uint64		n = Min(len, (uint64) SVC_WINDOW);

		memcpy(c->ch->window, p, n);
		c->ch->request.append.part = part;
		c->ch->request.append.bytes = (int64) n;
		if (svc_request(c, SVC_KS_APPEND, false, err) != PG_GPU_OK)
			return false;
		p += n;
		len -= n;
	}
	return true;
}

bool
PgGpuServiceKeysetBuild(PgGpuSvcChannel *chan, int type, uint64 n, const int64 *vals,
						const char *data, const uint64 *off, bool emulate,
						pg_gpu_set_ref *ref, uint64 *distinct, pg_gpu_error *err)
{
	SvcClient  *c = (SvcClient *) chan;
	uint64		keys;
	int			has_null;

	CHECK_FOR_INTERRUPTS();
	if ((vals && !svc_append(c, SVC_PART_VALS, (const char *) vals, n * sizeof(int64), err)) ||
		(off && data && !svc_append(c, SVC_PART_TEXT, data, off[n], err)) ||
		(off && !svc_append(c, SVC_PART_OFFSETS, (const char *) off, (n + 1) * sizeof(uint64), err)))
		return false;
	c->ch->request.build.type = type;
	c->ch->request.build.keys = (int64) n;
	c->ch->request.build.emulate = emulate ? 1 : 0;
	if (svc_request(c, SVC_KS_BUILD, false, err) != PG_GPU_OK)
		return false;
	svc_take_keyset(c, ref, &keys, distinct, &has_null);
	return true;
}

/*
 * A text payload column's values, in the order of their positions (the words
 * of PgGpuServiceKeysetPayload): the service codes them (each the position of
 * the first equal value) when the payload comes.
 */
bool
PgGpuServiceKeysetCodes(PgGpuSvcChannel *chan, int col, int type, uint64 m, const char *data,
						const uint64 *off, bool emulate, pg_gpu_error *err)
{
	SvcClient  *c = (SvcClient *) chan;

	CHECK_FOR_INTERRUPTS();
	if (!svc_append(c, SVC_PART_TEXT, data, off[m], err) ||
		!svc_append(c, SVC_PART_OFFSETS, (const char *) off, (m + 1) * sizeof(uint64), err))
		return false;
	c->ch->request.codes.col = col;
	c->ch->request.codes.values = (int64) m;
	c->ch->request.codes.type = type;
	c->ch->request.codes.emulate = emulate ? 1 : 0;
	return svc_request(c, SVC_KS_CODES, false, err) == PG_GPU_OK;
}

/*
 * The payload of the channel's last key set (pg_gpu_keyset_payload's layout);
 * *ref becomes the set's new reference (its NULL flags kept), distinct[j] the
 * distinct non-NULL words of column j (text: distinct values).
 */
bool
PgGpuServiceKeysetPayload(PgGpuSvcChannel *chan, int ncols, uint64 n, const uint64 *vals,
						  const uint8 *nulls, pg_gpu_set_ref *ref, int64 *distinct,
						  pg_gpu_error *err)
{
	SvcClient  *c = (SvcClient *) chan;
	uint64		keys,
				ndistinct;
	int			has_null;

	CHECK_FOR_INTERRUPTS();
	if (!svc_append(c, SVC_PART_VALS, (const char *) vals, (uint64) ncols * n * sizeof(uint64), err) ||
		!svc_append(c, SVC_PART_NULLS, (const char *) nulls, (uint64) ncols * n, err))
		return false;
	c->ch->request.payload.ncols = ncols;
	c->ch->request.payload.keys = (int64) n;
	if (svc_request(c, SVC_KS_PAYLOAD, false, err) != PG_GPU_OK)
		return false;
	svc_take_keyset(c, ref, &keys, &ndistinct, &has_null);
	for (int j = 0; j < ncols; j++)
		distinct[j] = c->ch->answer.keyset.pay_distinct[j];
	return true;
}

/*
 * The finished rows task on the channel (a star join's dimension: groups of
 * key and payload columns) becomes its key set with the payload (SVC_KS_ROWS);
 * pay_distinct[j]: column j's distinct values, a text column's codes being
 * 0 .. pay_distinct[j] - 1.  False with *dup_rows > 0 when rows repeat.
 */
bool
PgGpuServiceKeysetRows(PgGpuSvcChannel *chan, int type, pg_gpu_set_ref *ref, uint64 *keys,
					   uint64 *distinct, int *has_null, int64 *pay_distinct, int64 *dup_rows,
					   pg_gpu_error *err)
{
	SvcClient  *c = (SvcClient *) chan;

	CHECK_FOR_INTERRUPTS();
	c->ch->request.rows.type = type;
	c->ch->answer.keyset.dup_rows = 0;
	if (svc_request(c, SVC_KS_ROWS, true, err) != PG_GPU_OK)
	{
		*dup_rows = c->ch->answer.keyset.dup_rows;
		return false;
	}
	*dup_rows = 0;
	svc_take_keyset(c, ref, keys, distinct, has_null);
	for (int j = 0; j < PG_GPU_MAX_PAYLOAD; j++)
		pay_distinct[j] = c->ch->answer.keyset.pay_distinct[j];
	return true;
}

/*
 * The values of a text payload column's count codes (SVC_KS_TEXTS), as bytes
 * with offsets in cxt: code k's value is (*data)[(*off)[k] .. (*off)[k + 1]).
 */
bool
PgGpuServiceKeysetTexts(PgGpuSvcChannel *chan, int col, int64 count, MemoryContext cxt,
						char **data, uint64 **off, pg_gpu_error *err)
{
	SvcClient  *c = (SvcClient *) chan;
	uint64		cap = 8192,
				used = 0;
	int64		k = 0;

	*off = (uint64 *) MemoryContextAllocHuge(cxt, sizeof(uint64) * (count + 1));
	*data = (char *) MemoryContextAllocHuge(cxt, cap);
	(*off)[0] = 0;
	while (k < count)
	{
		const char *p = c->ch->window;

		CHECK_FOR_INTERRUPTS();
		c->ch->request.texts.col = col;
		c->ch->request.texts.first = k;
		if (svc_request(c, SVC_KS_TEXTS, true, err) != PG_GPU_OK)
			return false;
		if (c->ch->answer.window.n <= 0)
		{
			svc_error(err, PG_GPU_INVALID_TASK, "the GPU service returned no payload value");
			return false;
		}
		for (int32 i = 0; i < c->ch->answer.window.n && k < count; i++, k++)
		{
			const char *v;
			uint32		len;

			p += svc_text_get(p, &v, &len);
			if (used + len > cap)
			{
				cap = Max(cap * 2, used + len);
				*data = (char *) repalloc_huge(*data, cap);
			}
			memcpy(*data + used, v, len);
			used += len;
			(*off)[k + 1] = used;
		}
	}
	return true;
}

/*
 * GpuSort over a child plan, sorted in the service: the rows' words encoded
 * here (enc, pg_gpu_keysort_begin_encode) go over a channel of its own a
 * window at a time, the service's key sort orders them, and the order comes
 * back into *order (palloc'd in cxt; *n positions: the task's sort_limit
 * first when it has one).  A status other than PG_GPU_OK with err set
 * (PG_GPU_UNORDERED: keys the words cannot order).
 */
pg_gpu_status
PgGpuServiceKeysort(const pg_gpu_agg_task *task, const pg_gpu_keysort *enc, MemoryContext cxt,
					uint32 **order, uint64 *n, double *gpu_ms, uint64 *bytes_h2d,
					pg_gpu_error *err)
{
	SvcClient  *volatile c;
	pg_gpu_keysort_shape shape;
	pg_gpu_status st = PG_GPU_OK;

	pg_gpu_keysort_shape_of(enc, &shape);
	*n = 0;
	*order = NULL;
	if ((c = (SvcClient *) PgGpuServiceOpen(err)) == NULL)
		return err->status;
	PG_TRY();
	{
		SvcChannel *ch = c->ch;

		c->task = *task;
		ch->task = *task;
		ch->request.keysort = shape;
		st = svc_request(c, SVC_KEYSORT_BEGIN, true, err);
		for (int w = 0; st == PG_GPU_OK && w < shape.nwords; w++)
		{
			const uint64_t *words = pg_gpu_keysort_words(enc, w);

			for (uint64 first = 0; st == PG_GPU_OK && first < shape.rows;)
			{
				uint64		k = Min(shape.rows - first, (uint64) (SVC_WINDOW / sizeof(uint64)));

				memcpy(ch->window, words + first, k * sizeof(uint64));
				ch->request.put.word = w;
				ch->request.put.first = (int64) first;
				ch->request.put.n = (int64) k;
				st = svc_request(c, SVC_KEYSORT_PUT, true, err);
				first += k;
			}
		}
		if (st == PG_GPU_OK && (st = svc_request(c, SVC_KEYSORT_SORT, true, err)) == PG_GPU_OK)
		{
			uint64		total = ch->answer.keysort.n;

			*gpu_ms = ch->answer.keysort.gpu_ms;
			*bytes_h2d = ch->answer.keysort.bytes_h2d;
			*order = (uint32 *) MemoryContextAllocHuge(cxt, sizeof(uint32) * Max(total, 1));
			for (uint64 first = 0; st == PG_GPU_OK && first < total;)
			{
				ch->request.order.first = (int64) first;
				if ((st = svc_request(c, SVC_KEYSORT_ORDER, true, err)) != PG_GPU_OK)
					break;
				if (ch->answer.window.n <= 0)
				{
					st = svc_error(err, PG_GPU_INVALID_TASK, "the GPU service returned no order");
					break;
				}
				memcpy(*order + first, ch->window, sizeof(uint32) * ch->answer.window.n);
				first += (uint64) ch->answer.window.n;
			}
			if (st == PG_GPU_OK)
				*n = total;
		}
	}
	PG_FINALLY();
	{
		svc_free_client(c);
	}
	PG_END_TRY();
	return st;
}

/*
 * Probe key set `set` of the channel with m keys (vals, or text bytes and
 * offsets; with x and xnull, pg_gpu_keyset_probe_ne's): out[j] = key j's
 * ordinal in the set, or -1.
 */
bool
PgGpuServiceKeysetProbe(PgGpuSvcChannel *chan, int set, uint64 m, const int64 *vals,
						const char *data, const uint64 *off, const int64 *x, const uint8 *xnull,
						int64 *out, pg_gpu_error *err)
{
	SvcClient  *c = (SvcClient *) chan;
	uint64		k = 0;

	CHECK_FOR_INTERRUPTS();
	if ((off == NULL && !svc_append(c, SVC_PART_VALS, (const char *) vals, m * sizeof(int64), err)) ||
		(off && !svc_append(c, SVC_PART_TEXT, data, off[m], err)) ||
		(off && !svc_append(c, SVC_PART_OFFSETS, (const char *) off, (m + 1) * sizeof(uint64), err)) ||
		(x && !svc_append(c, SVC_PART_X, (const char *) x, m * sizeof(int64), err)) ||
		(x && !svc_append(c, SVC_PART_NULLS, (const char *) xnull, m, err)))
		return false;
	c->ch->request.probe.set = set;
	c->ch->request.probe.ne = x != NULL;
	c->ch->request.probe.keys = (int64) m;
	if (svc_request(c, SVC_KS_PROBE, true, err) != PG_GPU_OK)
		return false;
	while (k < m)
	{
		c->ch->request.probe_out.first = (int64) k;
		if (svc_request(c, SVC_KS_PROBE_OUT, true, err) != PG_GPU_OK)
			return false;
		if (c->ch->answer.window.n <= 0)
		{
			svc_error(err, PG_GPU_INVALID_TASK, "the GPU service returned no probe answer");
			return false;
		}
		memcpy(out + k, c->ch->window, sizeof(int64) * Min((uint64) c->ch->answer.window.n, m - k));
		k += (uint64) c->ch->answer.window.n;
	}
	return true;
}

/*
 * A gpu_* aggregate's group (n values of elsize bytes, coltype's) reduced in
 * the service, on a channel taken for it: *state and the GPU's time.
 */
pg_gpu_status
PgGpuServiceReduce(const void *values, int64 n, int coltype, int elsize, bool emulate,
				   pg_gpu_col_state *state, double *gpu_ms, pg_gpu_error *err)
{
	SvcClient  *volatile c;
	pg_gpu_status st = PG_GPU_OK;

	if ((c = (SvcClient *) PgGpuServiceOpen(err)) == NULL)
		return err->status;
	PG_TRY();
	{
		if (!svc_append(c, SVC_PART_VALS, (const char *) values, (uint64) n * elsize, err))
			st = err->status;
		else
		{
			c->ch->request.reduce.coltype = coltype;
			c->ch->request.reduce.emulate = emulate ? 1 : 0;
			c->ch->request.reduce.n = n;
			if ((st = svc_request(c, SVC_REDUCE, true, err)) == PG_GPU_OK)
			{
				*state = c->ch->answer.reduce.state;
				*gpu_ms = c->ch->answer.reduce.gpu_ms;
			}
		}
	}
	PG_FINALLY();
	{
		svc_free_client(c);
	}
	PG_END_TRY();
	return st;
}

/* The ordinals of the channel's last key set's n keys (SVC_KS_ORDINALS). */
bool
PgGpuServiceKeysetOrdinals(PgGpuSvcChannel *chan, uint64 n, int64 *out, pg_gpu_error *err)
{
	SvcClient  *c = (SvcClient *) chan;
	uint64		k = 0;

	do
	{
		CHECK_FOR_INTERRUPTS();
		c->ch->request.ordinals.first = (int64) k;
		if (svc_request(c, SVC_KS_ORDINALS, true, err) != PG_GPU_OK)
			return false;
		if (c->ch->answer.window.n <= 0 && k < n)
		{
			svc_error(err, PG_GPU_INVALID_TASK, "the GPU service returned no ordinal");
			return false;
		}
		memcpy(out + k, c->ch->window,
			   sizeof(int64) * Min((uint64) c->ch->answer.window.n, n - k));
		k += (uint64) c->ch->answer.window.n;
	} while (k < n);
	return true;
}

void
PgGpuServiceKeysetsFree(PgGpuSvcChannel *chan)
{
	SvcClient  *c = (SvcClient *) chan;
	pg_gpu_error err;

	if (c && c->ch)
	{
		HOLD_INTERRUPTS();
		if (c->pending)
			(void) svc_wait_answer(c, false);
		(void) svc_request(c, SVC_KS_FREE, false, &err);
		RESUME_INTERRUPTS();
	}
}

