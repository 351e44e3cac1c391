/*
 * keyset_api.cpp — key sets (pg_gpu_keyset_*): a semi-join's or IN list's keys
 * in an open-addressing table, built and probed on the GPU (keyset.cu) or, when
 * emulated, here on the host with the same hashing and the same rule (the first
 * of equal keys holds the slot, keyset.cuh).  Host code: the build without nvcc
 * compiles it too.
 */
#include <string.h>

#include <algorithm>
#include <new>
#include <vector>

#include "emulate/emulate.h"
#include "engine/error.h"
#include "keyset/keyset.cuh"
#include "keyset/keyset_engine.h"

using namespace pg_gpu::cuda;

struct keyset_ops;

struct pg_gpu_keyset
{
	const keyset_ops *ops = nullptr;	/* the GPU's or the emulation's, from build */
	int			type = 0;
	uint64_t	n = 0;
	uint64_t	distinct = 0;
	/* emulated: the keys and the table on the host */
	std::vector<int64_t> vals;
	std::vector<uint8_t> data;
	std::vector<uint64_t> off;
	std::vector<uint64_t> tab;
	std::vector<uint64_t> mult;
	uint64_t	max_mult = 0;
	/* emulated: the payload (pg_gpu_keyset_payload) */
	std::vector<uint64_t> pay;
	std::vector<uint8_t> pay_null;
	int			npay = 0;
	/* the payload's distinct words, where known (pg_gpu_keyset_pay_distinct) */
	int64_t		pay_distinct[PG_GPU_MAX_PAYLOAD] = {-1, -1, -1, -1, -1, -1, -1, -1};
	engine_keyset *dev = nullptr;
};

static keyset_keys
host_keys(int type, const int64_t *vals, const char *data, const uint64_t *off)
{
	keyset_keys k;

	k.type = type;
	k.vals = vals;
	k.data = (const uint8_t *) data;
	k.off = off;
	return k;
}

/* ---- a set's function table, chosen once when it is built ---------------- */

struct keyset_ops
{
	pg_gpu_status (*probe) (pg_gpu_keyset *ks, const keyset_keys &q, uint64_t m, int64_t *out,
							pg_gpu_error *err);
	pg_gpu_status (*probe_ne) (pg_gpu_keyset *ks, const keyset_keys &q, uint64_t m,
							   const int64_t *x, const uint8_t *xnull, int64_t *out,
							   pg_gpu_error *err);
	pg_gpu_status (*ordinals) (pg_gpu_keyset *ks, int64_t *out, pg_gpu_error *err);
	void		(*ref) (const pg_gpu_keyset *ks, pg_gpu_set_ref *out);
};

/* The emulated set's keys, where its table points. */
static keyset_keys
own_keys(const pg_gpu_keyset *ks)
{
	return host_keys(ks->type, ks->vals.data(), (const char *) ks->data.data(), ks->off.data());
}

static const keyset_ops gpu_keyset_ops = {
	[](pg_gpu_keyset *ks, const keyset_keys &q, uint64_t m, int64_t *out, pg_gpu_error *err) {
		return engine_keyset_probe(ks->dev, q, m, out, err);
	},
	[](pg_gpu_keyset *ks, const keyset_keys &q, uint64_t m, const int64_t *x,
	   const uint8_t *xnull, int64_t *out, pg_gpu_error *err) {
		return engine_keyset_probe_ne(ks->dev, q, m, x, xnull, out, err);
	},
	[](pg_gpu_keyset *ks, int64_t *out, pg_gpu_error *err) {
		return engine_keyset_ordinals(ks->dev, ks->n, out, err);
	},
	[](const pg_gpu_keyset *ks, pg_gpu_set_ref *out) { engine_keyset_ref(ks->dev, out); },
};

static const keyset_ops host_keyset_ops = {
	[](pg_gpu_keyset *ks, const keyset_keys &q, uint64_t m, int64_t *out, pg_gpu_error *err) {
		keyset_keys k = own_keys(ks);

		if (!cancellable_for(m, [&](uint64_t j) {
			out[j] = keyset_find(ks->tab.data(), ks->tab.size() - 1, k, q, j);
		}))
			return cancelled(err);
		return PG_GPU_OK;
	},
	[](pg_gpu_keyset *ks, const keyset_keys &q, uint64_t m, const int64_t *x,
	   const uint8_t *xnull, int64_t *out, pg_gpu_error *err) {
		keyset_keys k = own_keys(ks);
		pg_gpu_set_ref set = {};

		ks->ops->ref(ks, &set);
		if (!cancellable_for(m, [&](uint64_t j) {
			int64_t		o = keyset_find(ks->tab.data(), ks->tab.size() - 1, k, q, j);

			out[j] = (o >= 0 && xnull[j] == 0 && set_ne_match(set, o, (uint64_t) x[j])) ? o : -1;
		}))
			return cancelled(err);
		return PG_GPU_OK;
	},
	[](pg_gpu_keyset *ks, int64_t *out, pg_gpu_error *err) {
		keyset_keys k = own_keys(ks);

		if (!cancellable_for(ks->n, [&](uint64_t i) {
			out[i] = keyset_find(ks->tab.data(), ks->tab.size() - 1, k, k, i);
		}))
			return cancelled(err);
		return PG_GPU_OK;
	},
	[](const pg_gpu_keyset *ks, pg_gpu_set_ref *out) {
		out->tab = (uint64_t) (uintptr_t) ks->tab.data();
		out->mask = ks->tab.size() - 1;
		out->vals = (uint64_t) (uintptr_t) ks->vals.data();
		out->data = (uint64_t) (uintptr_t) ks->data.data();
		out->off = (uint64_t) (uintptr_t) ks->off.data();
		out->mult = (uint64_t) (uintptr_t) ks->mult.data();
		out->max_mult = ks->max_mult;
		out->pay = (uint64_t) (uintptr_t) ks->pay.data();
		out->pay_null = (uint64_t) (uintptr_t) ks->pay_null.data();
		out->pay_n = ks->n;
		out->npay = ks->npay;
	},
};

extern "C" pg_gpu_keyset *
pg_gpu_keyset_build(int type, uint64_t n, const int64_t *vals, const char *data,
					const uint64_t *off, int emulate, pg_gpu_error *err)
{
	if (type != PG_GPU_INT8 && type != PG_GPU_TEXT && type != PG_GPU_BPCHAR)
	{
		host_error(err, PG_GPU_INVALID_TASK, "key sets hold integers or text");
		return nullptr;
	}
	if (n >= 0xFFFFFFFFULL)
	{
		host_error(err, PG_GPU_OUT_OF_MEMORY, "too many keys for one key set");
		return nullptr;
	}
	if (!emulate && pg_gpu_engine_init(err) != PG_GPU_OK)
		return nullptr;

	pg_gpu_keyset *ks = new (std::nothrow) pg_gpu_keyset();

	if (!ks)
	{
		host_error(err, PG_GPU_OUT_OF_MEMORY, "out of host memory");
		return nullptr;
	}
	ks->type = type;
	ks->ops = emulate ? &host_keyset_ops : &gpu_keyset_ops;
	ks->n = n;
	try
	{
		if (!emulate)
		{
			if (engine_keyset_build(host_keys(type, vals, data, off), n, &ks->dev, &ks->distinct,
									err) != PG_GPU_OK)
			{
				pg_gpu_keyset_free(ks);
				return nullptr;
			}
			return ks;
		}
		if (type == PG_GPU_INT8)
			ks->vals.assign(vals, vals + n);
		else
		{
			ks->off.assign(off, off + n + 1);
			ks->data.assign((const uint8_t *) data, (const uint8_t *) data + off[n]);
		}

		keyset_keys k = host_keys(type, ks->vals.data(), (const char *) ks->data.data(),
								  ks->off.data());
		uint64_t	mask = keyset_capacity(n) - 1;

		ks->tab.assign(mask + 1, 0);
		/* in index order, so the first of equal keys holds the slot */
		bool		done = cancellable_for(n, [&](uint64_t i) {
			uint64_t	h = keyset_hash(k, i);

			for (uint64_t s = h & mask;; s = (s + 1) & mask)
			{
				uint64_t	e = ks->tab[s];

				if (e == 0)
				{
					ks->tab[s] = keyset_slot(h, i);
					ks->distinct++;
					break;
				}
				if ((e >> 32) == (h >> 32) && keyset_equal(k, (e & 0xFFFFFFFFu) - 1, k, i))
					break;
			}
		});

		if (done)
		{
			ks->mult.assign(n > 0 ? n : 1, 0);
			done = cancellable_for(n, [&](uint64_t i) {
				ks->max_mult = std::max(ks->max_mult,
										++ks->mult[keyset_find(ks->tab.data(), mask, k, k, i)]);
			});
		}
		if (!done)
		{
			pg_gpu_keyset_free(ks);
			cancelled(err);
			return nullptr;
		}
	}
	catch (const std::bad_alloc &)
	{
		pg_gpu_keyset_free(ks);
		host_error(err, PG_GPU_OUT_OF_MEMORY, "out of host memory for a key set");
		return nullptr;
	}
	return ks;
}

pg_gpu_keyset *
pg_gpu_keyset_to_device(const pg_gpu_keyset *host, pg_gpu_error *err)
{
	return pg_gpu_keyset_build(host->type, host->n, host->vals.data(),
							   (const char *) host->data.data(), host->off.data(), 0, err);
}

extern "C" pg_gpu_status
pg_gpu_keyset_probe(pg_gpu_keyset *ks, uint64_t m, const int64_t *vals, const char *data,
					const uint64_t *off, int64_t *out, pg_gpu_error *err)
{
	return ks->ops->probe(ks, host_keys(ks->type, vals, data, off), m, out, err);
}

extern "C" pg_gpu_status
pg_gpu_keyset_probe_ne(pg_gpu_keyset *ks, uint64_t m, const int64_t *vals, const int64_t *x,
					   const uint8_t *xnull, int64_t *out, pg_gpu_error *err)
{
	if (ks->type != PG_GPU_INT8)
		return host_error(err, PG_GPU_INVALID_TASK, "a probe with <> takes integer keys");
	return ks->ops->probe_ne(ks, host_keys(ks->type, vals, nullptr, nullptr), m, x, xnull, out,
							 err);
}

/*
 * An emulated set's payload from aux (one word per key, in the keys' order):
 * each key's least and greatest aux at its ordinal (a collect task with an
 * aux value, emulated).
 */
pg_gpu_status
keyset_minmax_host(pg_gpu_keyset *ks, const int64_t *aux, pg_gpu_error *err)
{
	uint64_t	n = ks->n;

	if (ks->dev != nullptr || ks->type != PG_GPU_INT8)
		return host_error(err, PG_GPU_INVALID_TASK, "not an emulated set of integer keys");
	try
	{
		std::vector<int64_t> ord(n);
		pg_gpu_status st = ks->ops->ordinals(ks, ord.data(), err);

		if (st != PG_GPU_OK)
			return st;
		ks->pay.assign(2 * n, 0);
		ks->pay_null.assign(2 * n, 1);
		for (uint64_t i = 0; i < n; i++)
		{
			uint64_t	o = (uint64_t) ord[i];
			int64_t	   *lo = (int64_t *) &ks->pay[o],
					   *hi = (int64_t *) &ks->pay[n + o];

			if (ks->pay_null[o] || aux[i] < *lo)
				*lo = aux[i];
			if (ks->pay_null[o] || aux[i] > *hi)
				*hi = aux[i];
			ks->pay_null[o] = ks->pay_null[n + o] = 0;
		}
	}
	catch (const std::bad_alloc &)
	{
		return host_error(err, PG_GPU_OUT_OF_MEMORY, "out of host memory for a key set's payload");
	}
	ks->npay = 2;
	return PG_GPU_OK;
}

extern "C" pg_gpu_status
pg_gpu_keyset_ordinals(pg_gpu_keyset *ks, int64_t *out, pg_gpu_error *err)
{
	return ks->ops->ordinals(ks, out, err);
}

extern "C" uint64_t
pg_gpu_keyset_size(const pg_gpu_keyset *ks)
{
	return ks->distinct;
}

extern "C" pg_gpu_status
pg_gpu_keyset_payload(pg_gpu_keyset *ks, int ncols, const uint64_t *vals, const uint8_t *nulls,
					  pg_gpu_error *err)
{
	if (ncols <= 0)
		return PG_GPU_OK;
	if (ks->dev)
		return engine_keyset_payload(ks->dev, ncols, ks->n, vals, nulls, err);
	try
	{
		ks->pay.assign(vals, vals + (uint64_t) ncols * ks->n);
		ks->pay_null.assign(nulls, nulls + (uint64_t) ncols * ks->n);
	}
	catch (const std::bad_alloc &)
	{
		return host_error(err, PG_GPU_OUT_OF_MEMORY, "out of host memory for a key set's payload");
	}
	ks->npay = ncols;
	return PG_GPU_OK;
}

extern "C" int64_t
pg_gpu_keyset_pay_distinct(const pg_gpu_keyset *ks, int col)
{
	return col >= 0 && col < PG_GPU_MAX_PAYLOAD ? ks->pay_distinct[col] : -1;
}

void
keyset_set_pay_distinct(pg_gpu_keyset *ks, int ncols, const int64_t *distinct)
{
	for (int c = 0; c < ncols && c < PG_GPU_MAX_PAYLOAD; c++)
		ks->pay_distinct[c] = distinct[c];
}

pg_gpu_status
keyset_payload_rows_host(pg_gpu_keyset *ks, int ncols, const uint64_t *pay,
						 const uint8_t *pay_null, pg_gpu_error *err)
{
	uint64_t	n = ks->n;
	int64_t		distinct[PG_GPU_MAX_PAYLOAD];
	pg_gpu_status st;

	try
	{
		std::vector<uint64_t> vals((size_t) ncols * n);
		std::vector<uint8_t> nulls((size_t) ncols * n);

		for (uint64_t r = 0; r < n; r++)
			for (int c = 0; c < ncols; c++)
			{
				vals[(size_t) c * n + r] = pay[r * ncols + c];
				nulls[(size_t) c * n + r] = pay_null[r * ncols + c];
			}
		if ((st = pg_gpu_keyset_payload(ks, ncols, vals.data(), nulls.data(), err)) != PG_GPU_OK)
			return st;
		/* as on the GPU: a NULL's word (0) counts as a value */
		for (int c = 0; c < ncols && c < PG_GPU_MAX_PAYLOAD; c++)
		{
			if (n > PG_GPU_PAY_DISTINCT_MAX)
			{
				distinct[c] = -1;
				continue;
			}
			std::vector<uint64_t> col(vals.begin() + (size_t) c * n,
									  vals.begin() + (size_t) (c + 1) * n);

			std::sort(col.begin(), col.end());
			distinct[c] = (int64_t) (std::unique(col.begin(), col.end()) - col.begin());
		}
	}
	catch (const std::bad_alloc &)
	{
		return host_error(err, PG_GPU_OUT_OF_MEMORY, "out of host memory for a key set's payload");
	}
	keyset_set_pay_distinct(ks, ncols, distinct);
	return PG_GPU_OK;
}

extern "C" void
pg_gpu_keyset_ref(const pg_gpu_keyset *ks, pg_gpu_set_ref *out)
{
	uint8_t		has_null = out->has_null,
				nonempty = out->nonempty;

	memset(out, 0, sizeof(*out));
	out->type = ks->type;
	out->has_null = has_null;
	out->nonempty = nonempty;
	ks->ops->ref(ks, out);
}

pg_gpu_keyset *
keyset_from_engine(int type, uint64_t n, uint64_t distinct, engine_keyset *dev)
{
	pg_gpu_keyset *ks = new (std::nothrow) pg_gpu_keyset();

	if (!ks)
		return nullptr;
	ks->ops = &gpu_keyset_ops;
	ks->type = type;
	ks->n = n;
	ks->distinct = distinct;
	ks->dev = dev;
	return ks;
}

extern "C" void
pg_gpu_keyset_free(pg_gpu_keyset *ks)
{
	if (!ks)
		return;
	engine_keyset_free(ks->dev);
	delete ks;
}
