/*
 * agg_api.cpp — pg_gpu_agg_* and pg_gpu_sort_next: the task checked, the GPU or
 * its CPU twin chosen once at begin (agg_api.h), every later call sent through the
 * handle's function table.  Built with the host compiler, with or without nvcc.
 */
#include <new>

#include "engine/agg_api.h"
#include "engine/error.h"
#include "sort/sort.cuh"

using namespace pg_gpu::cuda;

static bool
valid_expr(const pg_gpu_agg_task *t, const pg_gpu_expr &e, bool required)
{
	if (e.len == 0)
		return !required;
	return e.start + e.len <= t->nprog && e.start + e.len <= PG_GPU_MAX_PROG;
}

bool
valid_agg_task(const pg_gpu_agg_task *t)
{
	if (t->ncols < 0 || t->ncols > PG_GPU_MAX_COLS ||
		t->ninputs < 0 || t->ninputs > PG_GPU_MAX_AGG_COLS ||
		t->nkeys < 0 || t->nkeys > PG_GPU_MAX_KEYS ||
		t->nprog < 0 || t->nprog > PG_GPU_MAX_PROG ||
		t->natts < 0 || t->natts > PG_GPU_MAX_DEFORM_ATTS || t->chunk_pages <= 0)
		return false;
	for (int c = 0; c < t->ncols; c++)
		if (t->cols[c].attidx >= t->natts ||
			(c > 0 && t->cols[c].attidx <= t->cols[c - 1].attidx))
			return false;
	for (int i = 0; i < t->nprog; i++)
	{
		const pg_gpu_instr &in = t->prog[i];

		if ((in.op == PG_GPU_OP_COL && in.a >= t->ncols) ||
			(in.op == PG_GPU_OP_CONST && in.a >= PG_GPU_MAX_CONSTS) ||
			(in.op == PG_GPU_OP_IN && in.a + in.b > PG_GPU_MAX_CONSTS) ||
			((in.op == PG_GPU_OP_LIKE || in.op == PG_GPU_OP_SUBSTR) &&
			 (in.a >= PG_GPU_MAX_CONSTS || ((t->const_null >> in.a) & 1))) ||
			(in.op == PG_GPU_OP_PICK && in.a >= PG_GPU_MAX_STACK))
			return false;
		/* jumps go forward, at most to the end of the programs */
		if ((in.op == PG_GPU_OP_JUMP || in.op == PG_GPU_OP_JUMP_UNLESS ||
			 in.op == PG_GPU_OP_JUMP_NOTNULL || in.op == PG_GPU_OP_AND_STEP ||
			 in.op == PG_GPU_OP_OR_STEP) &&
			(in.a <= i || in.a > t->nprog))
			return false;
		/* a set the caller filled in */
		if ((in.op == PG_GPU_OP_IN_SET || in.op == PG_GPU_OP_SET_MULT ||
			 in.op == PG_GPU_OP_SET_ORD || in.op == PG_GPU_OP_SET_VAL ||
			 in.op == PG_GPU_OP_SET_NE) &&
			(in.a >= t->nsets || t->nsets > PG_GPU_MAX_SETS ||
			 (t->sets[in.a].tab == 0 && t->sets[in.a].trie == 0) ||
			 (in.op == PG_GPU_OP_SET_MULT && t->sets[in.a].mult == 0) ||
			 (in.op == PG_GPU_OP_SET_VAL && (in.b >= (uint32_t) t->sets[in.a].npay ||
											 t->sets[in.a].trie != 0 ||
											 (t->sets[in.a].pay == 0 && t->sets[in.a].pay_n > 0))) ||
			 /* the least and greatest values beside integer keys */
			 (in.op == PG_GPU_OP_SET_NE && (t->sets[in.a].npay < 2 || t->sets[in.a].trie != 0 ||
											is_text_type(t->sets[in.a].type) ||
											(t->sets[in.a].pay == 0 && t->sets[in.a].pay_n > 0))) ||
			 is_text_type(in.type) != is_text_type(t->sets[in.a].type)))
			return false;
		/* text constants lie inside the pool */
		int			nc = (in.op == PG_GPU_OP_CONST || in.op == PG_GPU_OP_LIKE) ? 1
			: in.op == PG_GPU_OP_IN ? (int) in.b : 0;

		for (int j = 0; is_text_type(in.type) && j < nc; j++)
		{
			uint64_t	w = t->consts[in.a + j];

			if (!((t->const_null >> (in.a + j)) & 1) &&
				(w >> 32) + (uint32_t) w > PG_GPU_MAX_STRPOOL)
				return false;
		}
	}
	for (int i = 0; i < t->ninputs; i++)
		if (!valid_expr(t, t->inputs[i], true))
			return false;
	for (int k = 0; k < t->nkeys; k++)
		if (!valid_expr(t, t->keys[k], true))
			return false;
	/* weights: counting rows, or repeating a sort's rows by a set's multiplicity */
	if (t->weight.len > 0 && (t->ninputs > 0 || (t->nkeys > 0 && !t->sort) ||
							  (t->sort && sort_repeat_bound(*t) == 0)))
		return false;
	/* collecting: one integer or text key; beside an integer key, an integer aux */
	auto		int_word = [](int type) {
		return type == PG_GPU_INT2 || type == PG_GPU_INT4 || type == PG_GPU_INT8 ||
			type == PG_GPU_DATE || type == PG_GPU_TIMESTAMP;
	};
	auto		pay_word = [&](int type) {
		return int_word(type) || type == PG_GPU_BOOL;
	};
	if (t->collect_pay < 0 || t->collect_pay >= PG_GPU_MAX_KEYS ||
		(t->collect_pay > 0 && (!t->collect || t->nkeys != 1 + t->collect_pay)))
		return false;
	if (t->collect && t->collect_pay == 0 &&
		(t->nkeys < 1 || t->nkeys > 2 || t->ninputs > 0 || t->sort ||
		 !(is_text_type(t->keys[0].type) || int_word(t->keys[0].type)) ||
		 (t->nkeys == 2 && !(int_word(t->keys[0].type) && int_word(t->keys[1].type)))))
		return false;
	/* with a payload: an integer key, and words beside it */
	if (t->collect_pay > 0)
	{
		if (t->ninputs > 0 || t->sort || !int_word(t->keys[0].type))
			return false;
		for (int k = 1; k < t->nkeys; k++)
			if (!pay_word(t->keys[k].type))
				return false;
	}
	/* HAVING's pre-filter: grouped tasks only, each term on an input or the rows */
	if (t->nhaving < 0 || t->nhaving > PG_GPU_MAX_HAVING ||
		(t->nhaving > 0 && (t->nkeys == 0 || t->sort || t->collect)))
		return false;
	for (int h = 0; h < t->nhaving; h++)
		if (t->having[h].input < -1 || t->having[h].input >= t->ninputs ||
			t->having[h].op < PG_GPU_CMP_LT || t->having[h].op > PG_GPU_CMP_NE ||
			(t->having[h].input >= 0 && t->having[h].what != PG_GPU_HAV_COUNT &&
			 t->having[h].what != PG_GPU_HAV_SUM))
			return false;
	/* seeded groups: one integer key, a set of integer keys */
	if (t->seed_set < 0 || t->seed_set > PG_GPU_MAX_SETS || t->seed_n < 0 ||
		(t->seed_set > 0 &&
		 (t->nkeys != 1 || t->sort || t->collect || t->nhaving > 0 || t->weight.len > 0 ||
		  t->seed_set > t->nsets ||
		  !(t->keys[0].type == PG_GPU_INT2 || t->keys[0].type == PG_GPU_INT4 ||
			t->keys[0].type == PG_GPU_INT8) ||
		  t->sets[t->seed_set - 1].type != PG_GPU_INT8 || t->sets[t->seed_set - 1].trie != 0)))
		return false;
	return valid_expr(t, t->filter, false) && valid_expr(t, t->weight, false);
}


/*
 * The GPU begins by starting CUDA and then checks the task; the emulation only
 * checks it.
 */
extern "C" pg_gpu_agg *
pg_gpu_agg_begin(const pg_gpu_agg_task *task, pg_gpu_error *err)
{
	if (!task->emulate)
		return gpu_agg_begin(task, err);
	if (!valid_agg_task(task))
	{
		set_error(err, PG_GPU_INVALID_TASK, "invalid aggregation task");
		return nullptr;
	}
	return emulate_agg_begin(task, err);
}

extern "C" int
pg_gpu_agg_slot_idle(pg_gpu_agg *agg, int slot)
{
	return agg->ops->slot_idle(agg, slot);
}

extern "C" int
pg_gpu_agg_all_idle(pg_gpu_agg *agg)
{
	for (int i = 0; i < PG_GPU_AGG_SLOTS; i++)
		if (!pg_gpu_agg_slot_idle(agg, i))
			return 0;
	return 1;
}

extern "C" pg_gpu_status
pg_gpu_agg_slot_get(pg_gpu_agg *agg, int slot, pg_gpu_agg_slot *out, pg_gpu_error *err)
{
	if (slot < 0 || slot >= PG_GPU_AGG_SLOTS || !pg_gpu_agg_slot_idle(agg, slot))
		return set_error(err, PG_GPU_INVALID_TASK, "chunk slot %d is not idle", slot);
	return agg->ops->slot_get(agg, slot, out);
}

extern "C" pg_gpu_status
pg_gpu_agg_submit(pg_gpu_agg *agg, int slot, int npages, int nvis, pg_gpu_error *err)
{
	if (npages < 0)
		return PG_GPU_OK;
	/* an empty chunk may still carry cached rows (task.cc) */
	return agg->ops->submit(agg, slot, npages, nvis, err);
}

extern "C" pg_gpu_status
pg_gpu_agg_finish(pg_gpu_agg *agg, pg_gpu_agg_result *res, pg_gpu_error *err)
{
	return agg->ops->finish(agg, res, err);
}

extern "C" void
pg_gpu_agg_group(pg_gpu_agg *agg, int64_t g, uint64_t *keys, uint32_t *nullmask,
				 int64_t *rows, pg_gpu_col_state *states)
{
	agg->ops->group(agg, g, keys, nullmask, rows, states);
}

extern "C" pg_gpu_status
pg_gpu_sort_next(pg_gpu_agg *agg, pg_gpu_sort_batch *out, pg_gpu_error *err)
{
	return agg->ops->sort_next(agg, out, err);
}

extern "C" pg_gpu_keyset *
pg_gpu_agg_keyset(pg_gpu_agg *agg, int type, uint64_t *keys, int *has_null, pg_gpu_error *err)
{
	return agg->ops->keyset(agg, type, keys, has_null, err);
}

extern "C" void
pg_gpu_agg_end(pg_gpu_agg *agg)
{
	if (agg)
		agg->ops->end(agg);
}

/* ---- a task run by another process (pg_gpu_agg_client) ------------------ */

namespace
{
struct client_agg : pg_gpu_agg
{
	const pg_gpu_agg_client_ops *cops;
	void	   *h;
};

client_agg *
as_client(pg_gpu_agg *a)
{
	return static_cast<client_agg *>(a);
}

int
client_slot_idle(pg_gpu_agg *a, int slot)
{
	return as_client(a)->cops->slot_idle(as_client(a)->h, slot);
}

pg_gpu_status
client_slot_get(pg_gpu_agg *a, int slot, pg_gpu_agg_slot *out)
{
	pg_gpu_error err;

	return as_client(a)->cops->slot_get(as_client(a)->h, slot, out, &err);
}

pg_gpu_status
client_submit(pg_gpu_agg *a, int slot, int npages, int nvis, pg_gpu_error *err)
{
	return as_client(a)->cops->submit(as_client(a)->h, slot, npages, nvis, err);
}

pg_gpu_status
client_finish(pg_gpu_agg *a, pg_gpu_agg_result *res, pg_gpu_error *err)
{
	return as_client(a)->cops->finish(as_client(a)->h, res, err);
}

void
client_group(pg_gpu_agg *a, int64_t g, uint64_t *keys, uint32_t *nullmask, int64_t *rows,
			 pg_gpu_col_state *states)
{
	as_client(a)->cops->group(as_client(a)->h, g, keys, nullmask, rows, states);
}

pg_gpu_status
client_sort_next(pg_gpu_agg *a, pg_gpu_sort_batch *out, pg_gpu_error *err)
{
	out->nrows = 0;
	if (as_client(a)->cops->sort_next == nullptr)
		return set_error(err, PG_GPU_INVALID_TASK, "sort tasks do not run through this client");
	return as_client(a)->cops->sort_next(as_client(a)->h, out, err);
}

pg_gpu_keyset *
client_keyset(pg_gpu_agg *, int, uint64_t *, int *, pg_gpu_error *err)
{
	set_error(err, PG_GPU_INVALID_TASK, "collect tasks do not run through the GPU service");
	return nullptr;
}

void
client_end(pg_gpu_agg *a)
{
	client_agg *c = as_client(a);

	c->cops->end(c->h);
	delete c;
}

const agg_ops client_ops = {
	client_slot_idle, client_slot_get, client_submit, client_finish, client_group,
	client_sort_next, client_keyset, client_end
};
}							/* namespace */

extern "C" pg_gpu_agg *
pg_gpu_agg_client(const pg_gpu_agg_client_ops *ops, void *h)
{
	client_agg *c = new (std::nothrow) client_agg;

	if (c == nullptr)
		return nullptr;
	c->ops = &client_ops;
	c->cops = ops;
	c->h = h;
	return c;
}
