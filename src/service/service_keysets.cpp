/*
 * service_keysets.cpp — the key-set requests a channel of the GPU service
 * serves (SVC_KS_*): sets built from a collect task's keys, from parts the
 * backend appends, or from a rows task's groups (a star join's dimension, its
 * payload beside it); a text payload's codes and their values.  The sets stay
 * the channel's (SvcWork) until it frees them, and a task begun on the channel
 * may probe only those (svc_same_set).
 *
 * Called from the channel's thread (service_thread.cpp), so zone D: engine
 * calls and the channel's memory, never PostgreSQL.  A host allocation that
 * fails answers PG_GPU_HOST_OUT_OF_MEMORY where it is caught here; one that
 * escapes fails the channel's task (svc_fail_step).
 */
extern "C" {
#include "postgres.h"

#include "pg_gpu.h"
}

#include <algorithm>
#include <new>
#include <vector>

#include "service/channel.h"
#include "service/service.h"
#include "service/service_int.h"

/*
 * Whether o holds n + 1 offsets into bytes of size bytes, from 0, never going
 * back: the engine reads value i at [o[i], o[i + 1]).
 */
static bool
svc_offsets_ok(const std::vector<char> &o, uint64 n, size_t bytes)
{
	const uint64 *off = (const uint64 *) o.data();

	if (o.size() != (n + 1) * sizeof(uint64) || off[0] != 0 || off[n] != bytes)
		return false;
	for (uint64 i = 0; i < n; i++)
		if (off[i + 1] < off[i])
			return false;
	return true;
}

/* Whether two references name the same set (the flags a backend sets aside). */
bool
svc_same_set(const pg_gpu_set_ref *a, const pg_gpu_set_ref *b)
{
	return a->tab == b->tab && a->mask == b->mask && a->vals == b->vals &&
		a->data == b->data && a->off == b->off && a->mult == b->mult &&
		a->max_mult == b->max_mult && a->trie == b->trie && a->pay == b->pay &&
		a->pay_null == b->pay_null && a->pay_n == b->pay_n && a->npay == b->npay &&
		a->type == b->type;
}

/* Answer key set i's reference (taken again: a payload changes it) and counts. */
static void
svc_answer_keyset(SvcChannel *ch, SvcWork *w, int i, int has_null)
{
	pg_gpu_set_ref *ref = &w->ref[i];

	memset(ref, 0, sizeof(*ref));
	pg_gpu_keyset_ref(w->ks[i], ref);
	ch->answer.keyset.ref = *ref;
	ch->answer.keyset.keys = w->nkeys[i];
	ch->answer.keyset.distinct = pg_gpu_keyset_size(w->ks[i]);
	ch->answer.keyset.has_null = has_null;
	ch->status = PG_GPU_OK;
}

/* A key set made: keep it, and answer its reference and counts. */
static void
svc_keep_keyset(SvcChannel *ch, SvcWork *w, pg_gpu_keyset *ks, uint64 keys, int has_null)
{
	w->nkeys[w->nks] = keys;
	w->ks[w->nks++] = ks;
	svc_answer_keyset(ch, w, w->nks - 1, has_null);
}

void
svc_op_keyset(SvcChannel *ch, SvcWork *w, uint32 op)
{
	pg_gpu_keyset *ks = NULL;
	uint64_t	keys = 0;
	int			has_null = 0;

	if (w->nks >= SVC_MAX_KEYSETS)
	{
		ch->status = svc_error(&ch->err, PG_GPU_INVALID_TASK, "too many key sets on one channel");
		return;
	}
	if (op == SVC_KS_COLLECTED)
	{
		if (w->agg == NULL || !ch->task.collect)
		{
			ch->status = svc_error(&ch->err, PG_GPU_INVALID_TASK, "no collect task on the channel");
			return;
		}
		ks = pg_gpu_agg_keyset(w->agg, ch->request.collected.type, &keys, &has_null, &ch->err);
		/* a task with a payload: its columns' distinct words (else -1) */
		for (int j = 0; j < PG_GPU_MAX_PAYLOAD; j++)
			ch->answer.keyset.pay_distinct[j] = ks != NULL ? pg_gpu_keyset_pay_distinct(ks, j) : -1;
	}
	else
	{
		uint64		n = (uint64) ch->request.build.keys;
		const std::vector<char> &v = w->part[SVC_PART_VALS],
					&d = w->part[SVC_PART_TEXT],
					&o = w->part[SVC_PART_OFFSETS];

		if ((!v.empty() && v.size() != n * sizeof(int64)) ||
			(!o.empty() && !svc_offsets_ok(o, n, d.size())))
		{
			ch->status = svc_error(&ch->err, PG_GPU_INVALID_TASK, "a key set's parts do not match its size");
			return;
		}
		if (!ch->request.build.emulate && (ch->status = pg_gpu_engine_init(&ch->err)) != PG_GPU_OK)
			return;
		ks = pg_gpu_keyset_build(ch->request.build.type, n,
								 v.empty() ? NULL : (const int64_t *) v.data(),
								 d.empty() ? NULL : d.data(),
								 o.empty() ? NULL : (const uint64_t *) o.data(),
								 ch->request.build.emulate, &ch->err);
		keys = n;
		for (int p = 0; p < SVC_NPARTS; p++)
			std::vector<char>().swap(w->part[p]);
	}
	if (ks == NULL)
	{
		ch->status = ch->err.status != PG_GPU_OK ? ch->err.status : PG_GPU_CUDA_ERROR;
		return;
	}
	svc_keep_keyset(ch, w, ks, keys, has_null);
}

void
svc_op_append(SvcChannel *ch, SvcWork *w)
{
	int			p = ch->request.append.part;
	size_t		n = (size_t) ch->request.append.bytes;

	if (p < 0 || p >= SVC_NPARTS || n > SVC_WINDOW)
	{
		ch->status = svc_error(&ch->err, PG_GPU_INVALID_TASK, "a bad key set part");
		return;
	}
	try
	{
		w->part[p].insert(w->part[p].end(), ch->window, ch->window + n);
		ch->status = PG_GPU_OK;
	}
	catch (const std::bad_alloc &)
	{
		ch->status = svc_error(&ch->err, PG_GPU_HOST_OUT_OF_MEMORY, "no host memory for a key set");
	}
}

/*
 * The distinct non-NULL words among n (a payload column's): an open-addressed
 * table of the words seen, twice the size of n rounded up to a power of two.
 */
uint64
PgGpuDistinctWords(const uint64 *vals, const uint8 *nulls, uint64 n)
{
	uint64		cap = 16;
	uint64		distinct = 0;
	bool		zero = false;	/* 0 marks a free slot: counted apart */

	while (cap < 2 * n)
		cap <<= 1;
	std::vector<uint64> tab(cap, 0);

	for (uint64 r = 0; r < n; r++)
	{
		uint64		v = vals[r];

		if (nulls[r])
			continue;
		if (v == 0)
		{
			distinct += zero ? 0 : 1;
			zero = true;
			continue;
		}
		for (uint64 h = (v * UINT64CONST(0x9E3779B97F4A7C15)) >> 20;; h++)
		{
			uint64	   *slot = &tab[h & (cap - 1)];

			if (*slot == v)
				break;
			if (*slot == 0)
			{
				*slot = v;
				distinct++;
				break;
			}
		}
	}
	return distinct;
}

/*
 * SVC_KS_CODES: a text payload column's values (text and offset parts, in the order of
 * their positions): each position's code is the position of the first value
 * equal to it (what a key set of the values answers), kept for SVC_KS_PAYLOAD.
 * Only the codes cross back to the backend, inside the set's words.
 */
void
svc_op_codes(SvcChannel *ch, SvcWork *w)
{
	const SvcCodesReq *rq = &ch->request.codes;
	int			j = rq->col;
	uint64		m = (uint64) rq->values;
	const std::vector<char> &d = w->part[SVC_PART_TEXT],
				&o = w->part[SVC_PART_OFFSETS];
	pg_gpu_keyset *ks;
	int			type = rq->type;

	if (j < 0 || j >= PG_GPU_MAX_PAYLOAD || !w->part[SVC_PART_VALS].empty() ||
		!w->part[SVC_PART_NULLS].empty() ||
		!svc_offsets_ok(o, m, d.size()) || !svc_text_type(type))
	{
		ch->status = svc_error(&ch->err, PG_GPU_INVALID_TASK, "a payload column's values do not match their count");
		return;
	}
	if (!rq->emulate && (ch->status = pg_gpu_engine_init(&ch->err)) != PG_GPU_OK)
		return;
	try
	{
		w->codes[j].assign(m, 0);
	}
	catch (const std::bad_alloc &)
	{
		ch->status = svc_error(&ch->err, PG_GPU_HOST_OUT_OF_MEMORY, "no host memory for a payload's codes");
		return;
	}
	ch->status = PG_GPU_OK;
	if (m > 0)
	{
		ks = pg_gpu_keyset_build(type, m, NULL, d.empty() ? "" : d.data(),
								 (const uint64_t *) o.data(), rq->emulate, &ch->err);
		if (ks == NULL)
			ch->status = ch->err.status != PG_GPU_OK ? ch->err.status : PG_GPU_CUDA_ERROR;
		else
		{
			ch->status = pg_gpu_keyset_ordinals(ks, w->codes[j].data(), &ch->err);
			pg_gpu_keyset_free(ks);
		}
	}
	for (int p = 0; p < SVC_NPARTS; p++)
		std::vector<char>().swap(w->part[p]);
}

/*
 * SVC_KS_PAYLOAD: the channel's last key set gets its payload (the vals and
 * NULL parts: ncols columns of `keys` words and NULL bytes, as pg_gpu_keyset_payload takes
 * them).  A text column's words are positions, replaced by SVC_KS_CODES's
 * codes.  The set's reference changes: the new one is answered.
 */
void
svc_op_payload(SvcChannel *ch, SvcWork *w)
{
	int			ncols = ch->request.payload.ncols;
	uint64		n = (uint64) ch->request.payload.keys;
	std::vector<char> &v = w->part[SVC_PART_VALS],
				&nl = w->part[SVC_PART_NULLS];
	uint64	   *vals = (uint64 *) v.data();
	const uint8 *nulls = (const uint8 *) nl.data();
	int			i = w->nks - 1;

	if (i < 0 || ncols <= 0 || ncols > PG_GPU_MAX_PAYLOAD || n != w->nkeys[i] ||
		v.size() != (size_t) ncols * n * sizeof(uint64) || nl.size() != (size_t) ncols * n)
	{
		ch->status = svc_error(&ch->err, PG_GPU_INVALID_TASK, "a key set's payload does not match it");
		return;
	}
	ch->status = PG_GPU_OK;
	for (int j = 0; j < ncols && ch->status == PG_GPU_OK; j++)
	{
		const std::vector<int64_t> &c = w->codes[j];

		if (c.empty())
			continue;
		for (uint64 r = 0; r < n; r++)
		{
			uint64	   *word = &vals[(uint64) j * n + r];

			if (nulls[(uint64) j * n + r])
				continue;
			if (*word >= c.size())
			{
				ch->status = svc_error(&ch->err, PG_GPU_INVALID_TASK, "a payload word names no value");
				break;
			}
			*word = (uint64) c[*word];
		}
	}
	for (int j = 0; j < PG_GPU_MAX_PAYLOAD && ch->status == PG_GPU_OK; j++)
		ch->answer.keyset.pay_distinct[j] = j < ncols ? (int64) PgGpuDistinctWords(vals + (uint64) j * n,
																		 nulls + (uint64) j * n, n)
			: -1;
	if (ch->status == PG_GPU_OK &&
		(ch->status = pg_gpu_keyset_payload(w->ks[i], ncols, vals, nulls, &ch->err)) == PG_GPU_OK)
		svc_answer_keyset(ch, w, i, 0);
	for (int p = 0; p < SVC_NPARTS; p++)
		std::vector<char>().swap(w->part[p]);
	for (int j = 0; j < PG_GPU_MAX_PAYLOAD; j++)
		std::vector<int64_t>().swap(w->codes[j]);
}

/*
 * SVC_KS_ROWS: a star join's dimension, its rows task finished on this channel
 * (groups of key and payload columns, a group per distinct row): the keys
 * become a key set of the channel, the payload columns its payload, without
 * the rows crossing to the backend.  A text column's words are dense codes
 * (0, 1, ... in the order the values first appear); the backend reads the
 * values of the codes with SVC_KS_TEXTS.  A NULL key joins nothing; a group of
 * equal rows makes no set (ks_dup_rows: PostgreSQL's join must count them).
 */
void
svc_op_ks_rows(SvcChannel *ch, SvcWork *w)
{
	pg_gpu_agg *agg = w->agg;
	const pg_gpu_agg_task *t = &ch->task;
	int			settype = ch->request.rows.type;
	int			npay = t->nkeys - 1;
	bool		ktext = svc_text_type(settype);
	std::vector<int64_t> kv;
	std::vector<char> kd;
	std::vector<uint64_t> ko;
	std::vector<uint64> pv[PG_GPU_MAX_PAYLOAD];
	std::vector<uint8> pn[PG_GPU_MAX_PAYLOAD];
	int			has_null = 0;
	pg_gpu_keyset *ks;

	ch->answer.keyset.dup_rows = 0;
	if (t->nkeys < 1 || npay > PG_GPU_MAX_PAYLOAD || t->sort || t->collect || w->nks >= SVC_MAX_KEYSETS ||
		(ktext != svc_text_type(t->keys[0].type)))
	{
		ch->status = svc_error(&ch->err, PG_GPU_INVALID_TASK, "no rows task for a key set on the channel");
		return;
	}
	try
	{
		ko.push_back(0);
		for (int j = 0; j < PG_GPU_MAX_PAYLOAD; j++)
		{
			w->tdata[j].clear();
			w->toff[j].assign(1, 0);
			w->tfirst[j].clear();
		}
		for (int64 g = 0; g < w->res.ngroups; g++)
		{
			uint64		keys[PG_GPU_MAX_KEYS];
			uint32		nullmask = 0;
			int64		rows = 0;
			pg_gpu_col_state states[PG_GPU_MAX_AGG_COLS];

			pg_gpu_agg_group(agg, g, keys, &nullmask, &rows, states);
			if (nullmask & 1)
			{
				has_null = 1;
				continue;
			}
			if (rows > 1)
			{
				ch->answer.keyset.dup_rows = rows;
				ch->status = svc_error(&ch->err, PG_GPU_INVALID_TASK, "the join's build side has rows that repeat");
				return;
			}
			if (ktext)
			{
				const char *v = (const char *) (uintptr_t) keys[0];

				kd.insert(kd.end(), v + VARHDRSZ, v + VARSIZE(v));
				ko.push_back(kd.size());
			}
			else
				kv.push_back((int64_t) keys[0]);
			for (int j = 0; j < npay; j++)
			{
				uint8		null = (nullmask >> (j + 1)) & 1;
				uint64		word = keys[j + 1];

				if (null)
					word = 0;
				else if (svc_text_type(t->keys[j + 1].type))
				{
					const char *v = (const char *) (uintptr_t) keys[j + 1];

					word = w->toff[j].size() - 1;	/* its position, coded below */
					w->tdata[j].insert(w->tdata[j].end(), v + VARHDRSZ, v + VARSIZE(v));
					w->toff[j].push_back(w->tdata[j].size());
				}
				else if (t->keys[j + 1].type == PG_GPU_BOOL)
					word = word != 0;
				pn[j].push_back(null);
				pv[j].push_back(word);
			}
		}
	}
	catch (const std::bad_alloc &)
	{
		ch->status = svc_error(&ch->err, PG_GPU_HOST_OUT_OF_MEMORY, "no host memory for a key set");
		return;
	}

	uint64		n = ktext ? ko.size() - 1 : kv.size();

	if (!t->emulate && (ch->status = pg_gpu_engine_init(&ch->err)) != PG_GPU_OK)
		return;
	ks = pg_gpu_keyset_build(settype, n, ktext ? NULL : kv.data(), ktext ? (kd.empty() ? "" : kd.data()) : NULL,
							 ktext ? ko.data() : NULL, t->emulate, &ch->err);
	if (ks == NULL)
	{
		ch->status = ch->err.status != PG_GPU_OK ? ch->err.status : PG_GPU_CUDA_ERROR;
		return;
	}
	/* the set is not the channel's until kept: a throw frees it on its way */
	try
	{
		ch->status = PG_GPU_OK;
		for (int j = 0; j < PG_GPU_MAX_PAYLOAD; j++)
			ch->answer.keyset.pay_distinct[j] = -1;
		for (int j = 0; j < npay && ch->status == PG_GPU_OK; j++)
		{
			uint64		m = w->toff[j].size() - 1;

			if (!svc_text_type(t->keys[j + 1].type))
			{
				ch->answer.keyset.pay_distinct[j] = (int64) PgGpuDistinctWords(pv[j].data(), pn[j].data(), n);
				continue;
			}
			/* a text column: each value's code, the first equal value's rank */
			std::vector<int64_t> ord(m);
			std::vector<uint64> dense(m);
			pg_gpu_keyset *vs = m == 0 ? NULL
				: pg_gpu_keyset_build(t->keys[j + 1].type, m, NULL,
									  w->tdata[j].empty() ? "" : w->tdata[j].data(),
									  w->toff[j].data(), t->emulate, &ch->err);

			if (m > 0 && (vs == NULL || (ch->status = pg_gpu_keyset_ordinals(vs, ord.data(), &ch->err)) != PG_GPU_OK))
			{
				if (ch->status == PG_GPU_OK)
					ch->status = ch->err.status != PG_GPU_OK ? ch->err.status : PG_GPU_CUDA_ERROR;
				pg_gpu_keyset_free(vs);
				break;
			}
			pg_gpu_keyset_free(vs);
			for (uint64 p = 0; p < m; p++)
			{
				if ((uint64) ord[p] == p)
				{
					dense[p] = w->tfirst[j].size();
					w->tfirst[j].push_back(p);
				}
				else
					dense[p] = dense[ord[p]];
			}
			for (uint64 r = 0; r < n; r++)
				if (!pn[j][r])
					pv[j][r] = dense[pv[j][r]];
			ch->answer.keyset.pay_distinct[j] = (int64) w->tfirst[j].size();
		}
		if (ch->status == PG_GPU_OK && npay > 0)
		{
			std::vector<uint64> vals((size_t) npay * n);
			std::vector<uint8> nulls((size_t) npay * n);

			for (int j = 0; j < npay; j++)
			{
				std::copy(pv[j].begin(), pv[j].end(), vals.begin() + (size_t) j * n);
				std::copy(pn[j].begin(), pn[j].end(), nulls.begin() + (size_t) j * n);
			}
			ch->status = pg_gpu_keyset_payload(ks, npay, vals.data(), nulls.data(), &ch->err);
		}
	}
	catch (...)
	{
		pg_gpu_keyset_free(ks);
		throw;
	}
	if (ch->status != PG_GPU_OK)
	{
		pg_gpu_keyset_free(ks);
		return;
	}
	svc_keep_keyset(ch, w, ks, n, has_null);
}

/* SVC_KS_TEXTS: the values of a text column's codes, from code `first` on. */
void
svc_op_ks_texts(SvcChannel *ch, SvcWork *w)
{
	int			j = ch->request.texts.col;
	uint64		c = (uint64) ch->request.texts.first;
	size_t		used = 0;
	int32		n = 0;

	if (j < 0 || j >= PG_GPU_MAX_PAYLOAD || c > w->tfirst[j].size())
	{
		ch->status = svc_error(&ch->err, PG_GPU_INVALID_TASK, "no such payload values");
		return;
	}
	for (; c < w->tfirst[j].size(); c++, n++)
	{
		uint64		p = w->tfirst[j][c];
		uint32		len = (uint32) (w->toff[j][p + 1] - w->toff[j][p]);

		if (used + svc_text_size(len) > SVC_WINDOW)
			break;
		svc_text_put(ch->window + used, w->tdata[j].data() + w->toff[j][p], len);
		used += svc_text_size(len);
	}
	ch->answer.window.n = n;
	ch->status = n > 0 || c == w->tfirst[j].size() ? PG_GPU_OK
		: svc_error(&ch->err, PG_GPU_INVALID_TASK, "a payload value too long for the GPU service's window");
}

/*
 * SVC_KS_ORDINALS: the ordinals of the channel's last set's own keys, in the
 * order they were given (pg_gpu_keyset_ordinals), from key `first` on: a
 * GpuHashJoin's kept build rows are chained by them.  Computed at the first
 * request (first 0), kept until the sets go.
 */
void
svc_op_ks_ordinals(SvcChannel *ch, SvcWork *w)
{
	int			i = w->nks - 1;
	uint64		first = (uint64) ch->request.ordinals.first;
	uint64		n;

	if (i < 0)
	{
		ch->status = svc_error(&ch->err, PG_GPU_INVALID_TASK, "no key set on the channel");
		return;
	}
	if (first == 0)
	{
		w->ordinals.assign(w->nkeys[i], 0);
		if (w->nkeys[i] > 0 &&
			(ch->status = pg_gpu_keyset_ordinals(w->ks[i], w->ordinals.data(), &ch->err)) != PG_GPU_OK)
			return;
	}
	if (w->ordinals.size() != w->nkeys[i] || first > w->ordinals.size())
	{
		ch->status = svc_error(&ch->err, PG_GPU_INVALID_TASK, "no such key set ordinals");
		return;
	}
	n = Min((uint64) (w->ordinals.size() - first), (uint64) (SVC_WINDOW / sizeof(int64)));
	memcpy(ch->window, w->ordinals.data() + first, n * sizeof(int64));
	ch->answer.window.n = (int32) n;
	ch->status = PG_GPU_OK;
}

/*
 * SVC_KS_PROBE: a batch of probe keys (GpuHashJoin and GpuSemiJoin over a
 * child plan) against one of the channel's sets: each key's ordinal in the
 * set, or -1, kept for SVC_KS_PROBE_OUT.  With ne, pg_gpu_keyset_probe_ne's
 * x values and NULL bytes come in their parts.
 */
void
svc_op_ks_probe(SvcChannel *ch, SvcWork *w)
{
	const SvcProbeReq *rq = &ch->request.probe;
	uint64		n = (uint64) rq->keys;
	const std::vector<char> &v = w->part[SVC_PART_VALS],
				&d = w->part[SVC_PART_TEXT],
				&o = w->part[SVC_PART_OFFSETS],
				&x = w->part[SVC_PART_X],
				&xn = w->part[SVC_PART_NULLS];
	bool		text = !o.empty();

	if (rq->set < 0 || rq->set >= w->nks || rq->keys < 0 ||
		(text ? (!v.empty() || !svc_offsets_ok(o, n, d.size())) : v.size() != n * sizeof(int64)) ||
		(rq->ne && (text || x.size() != n * sizeof(int64) || xn.size() != n)))
	{
		ch->status = svc_error(&ch->err, PG_GPU_INVALID_TASK, "a probe's keys do not match their count");
		return;
	}
	w->probed.assign(n, -1);
	ch->status = PG_GPU_OK;
	if (n > 0)
		ch->status = rq->ne
			? pg_gpu_keyset_probe_ne(w->ks[rq->set], n, (const int64_t *) v.data(),
									 (const int64_t *) x.data(), (const uint8_t *) xn.data(),
									 w->probed.data(), &ch->err)
			: pg_gpu_keyset_probe(w->ks[rq->set], n,
								  text ? NULL : (const int64_t *) v.data(),
								  text ? (d.empty() ? "" : d.data()) : NULL,
								  text ? (const uint64_t *) o.data() : NULL,
								  w->probed.data(), &ch->err);
	for (int p = 0; p < SVC_NPARTS; p++)
		std::vector<char>().swap(w->part[p]);
}

/* SVC_KS_PROBE_OUT: the last probe's answers from `first` on. */
void
svc_op_ks_probe_out(SvcChannel *ch, SvcWork *w)
{
	uint64		first = (uint64) ch->request.probe_out.first;
	uint64		n;

	if (first > w->probed.size())
	{
		ch->status = svc_error(&ch->err, PG_GPU_INVALID_TASK, "no such probe answers");
		return;
	}
	n = Min((uint64) (w->probed.size() - first), (uint64) (SVC_WINDOW / sizeof(int64)));
	memcpy(ch->window, w->probed.data() + first, n * sizeof(int64));
	ch->answer.window.n = (int32) n;
	ch->status = PG_GPU_OK;
}

/* SVC_REDUCE: a gpu_* aggregate's group reduced to its exact state. */
void
svc_op_reduce(SvcChannel *ch, SvcWork *w)
{
	const SvcReduceReq *rq = &ch->request.reduce;
	std::vector<char> &v = w->part[SVC_PART_VALS];
	SvcReduceAns *a = &ch->answer.reduce;

	memset(a, 0, sizeof(*a));
	if (rq->n < 0 || (rq->n == 0 ? !v.empty() : v.size() % (size_t) rq->n != 0))
	{
		ch->status = svc_error(&ch->err, PG_GPU_INVALID_TASK, "a group's values do not match their count");
		return;
	}
	if (rq->emulate)
	{
		pg_gpu_reduce_host(v.empty() ? NULL : v.data(), rq->n, rq->coltype, &a->state);
		ch->status = PG_GPU_OK;
	}
	else if (svc_bind_gpu(ch, false))
		ch->status = pg_gpu_reduce(v.empty() ? NULL : v.data(), rq->n, rq->coltype, &a->state,
								   &a->gpu_ms, &ch->err);
	for (int p = 0; p < SVC_NPARTS; p++)
		std::vector<char>().swap(w->part[p]);
}
