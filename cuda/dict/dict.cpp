/*
 * dict.cpp — dictionaries (pg_gpu_engine.h): named key sets kept for
 * repeated lookups, as a hash table (keyset.cuh) or a LOUDS trie (trie.cuh).
 *
 * Both are built on the host, which keeps them for lookups on the CPU (a query
 * PostgreSQL runs itself calls the lookup functions row by row), and copied to
 * the GPU, where GpuAgg's and GpuSort's kernels probe them like any key set.
 *
 * The trie is built from the distinct keys in byte order, one level at a time:
 * a node is a range of sorted keys sharing its depth's prefix; its children split
 * the range on the next byte, and a range of one key becomes a leaf holding the
 * rest of the key as its tail.
 */
#include <algorithm>
#include <chrono>
#include <new>
#include <numeric>
#include <vector>

#include "dict/trie.cuh"
#include "emulate/emulate.h"
#include "keyset/keyset_engine.h"

using namespace pg_gpu::cuda;

struct host_trie
{
	std::vector<uint64_t> louds;
	std::vector<uint64_t> sel0;
	std::vector<uint8_t> labels;
	std::vector<uint64_t> term;
	std::vector<uint32_t> term_rank;
	std::vector<uint64_t> toff;
	std::vector<uint8_t> tail;
	std::vector<uint32_t> ord;
	uint64_t	nbits = 0;
	trie_view	view = {};

	void		push_bit(bool one)
	{
		if ((nbits & 63) == 0)
			louds.push_back(0);
		if (one)
			louds.back() |= 1ULL << (nbits & 63);
		nbits++;
	}
};

struct pg_gpu_dict
{
	pg_gpu_dict_info info = {};
	/* a hash table: on the host, and on the GPU */
	pg_gpu_keyset *hash = nullptr;
	pg_gpu_keyset *dev_hash = nullptr;
	/* a trie: on the host, and on the GPU */
	host_trie	trie;
	engine_trie *dev_trie = nullptr;
	pg_gpu_set_ref host_ref = {};	/* the host copy as a set (pg_gpu_dict_ref) */
};

static double
ms_since(std::chrono::steady_clock::time_point t0)
{
	return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

/* Bytes of a hash key set of n text keys of dlen bytes (keyset.cu's layout). */
static uint64_t
hash_bytes(uint64_t n, uint64_t dlen)
{
	return dlen + 8 * (n + 1) + 8 * keyset_capacity(n) + 8 * std::max<uint64_t>(n, 1);
}

/* The trie's arrays, in trie_view's order, and their sizes in bytes. */
static void
trie_arrays(const host_trie &t, const void **p, uint64_t *bytes)
{
	p[0] = t.louds.data();
	bytes[0] = t.louds.size() * 8;
	p[1] = t.sel0.data();
	bytes[1] = t.sel0.size() * 8;
	p[2] = t.labels.data();
	bytes[2] = t.labels.size();
	p[3] = t.term.data();
	bytes[3] = t.term.size() * 8;
	p[4] = t.term_rank.data();
	bytes[4] = t.term_rank.size() * 4;
	p[5] = t.toff.data();
	bytes[5] = t.toff.size() * 8;
	p[6] = t.tail.data();
	bytes[6] = t.tail.size();
	p[7] = t.ord.data();
	bytes[7] = t.ord.size() * 4;
}

static void
trie_build(host_trie &t, uint64_t n, const uint8_t *data, const uint64_t *off, uint64_t *distinct)
{
	auto		len = [&](uint32_t i) { return off[i + 1] - off[i]; };
	auto		at = [&](uint32_t i, uint64_t d) { return data[off[i] + d]; };

	/* the keys in byte order, equal keys by index; the first 8 bytes decide most */
	std::vector<std::pair<uint64_t, uint32_t>> keys(n);

	for (uint64_t i = 0; i < n; i++)
	{
		uint64_t	pre = 0;

		for (uint64_t b = 0; b < 8; b++)
			pre = pre << 8 | (b < len((uint32_t) i) ? at((uint32_t) i, b) : 0);
		keys[i] = {pre, (uint32_t) i};
	}
	std::sort(keys.begin(), keys.end(), [&](const auto &a, const auto &b) {
		if (a.first != b.first)
			return a.first < b.first;

		uint64_t	la = len(a.second),
					lb = len(b.second);
		int			c = memcmp(data + off[a.second], data + off[b.second], std::min(la, lb));

		if (c != 0)
			return c < 0;
		if (la != lb)
			return la < lb;
		return a.second < b.second;
	});

	/* distinct keys: the first of equals has the least index */
	std::vector<uint32_t> s;

	s.reserve(n);
	for (uint64_t i = 0; i < n; i++)
	{
		uint32_t	k = keys[i].second;

		if (!s.empty() && len(s.back()) == len(k) &&
			memcmp(data + off[s.back()], data + off[k], len(k)) == 0)
			continue;
		s.push_back(k);
	}
	std::vector<std::pair<uint64_t, uint32_t>>().swap(keys);
	*distinct = s.size();

	/* breadth first, a level at a time: each node is a range of s */
	std::vector<std::pair<uint32_t, uint32_t>> level{{0, (uint32_t) s.size()}},
				next;
	uint64_t	v = 0;

	t.labels.push_back(0);
	t.toff.push_back(0);
	for (uint64_t depth = 0; !level.empty(); depth++)
	{
		next.clear();
		for (auto [lo, hi] : level)
		{
			if ((v & 63) == 0)
				t.term.push_back(0);
			if (hi - lo == 1 || (hi > lo && len(s[lo]) == depth))
			{
				/* ends a key: a leaf's tail is the rest of its key */
				uint32_t	k = s[lo];
				uint64_t	tl = hi - lo == 1 ? len(k) - depth : 0;

				t.term.back() |= 1ULL << (v & 63);
				t.tail.insert(t.tail.end(), data + off[k] + depth, data + off[k] + depth + tl);
				t.toff.push_back(t.tail.size());
				t.ord.push_back(k);
				lo = hi - lo == 1 ? hi : lo + 1;
			}
			while (lo < hi)
			{
				uint8_t		b = at(s[lo], depth);
				uint32_t	e = lo + 1;

				while (e < hi && at(s[e], depth) == b)
					e++;
				t.push_bit(true);
				t.labels.push_back(b);
				next.emplace_back(lo, e);
				lo = e;
			}
			t.push_bit(false);
			v++;
		}
		level.swap(next);
	}
	t.louds.push_back(0);		/* a word past the end: scans may read it */

	/* every 64th 0, and the terminals before each word */
	uint64_t	zeros = 0;

	for (uint64_t w = 0; w * 64 < t.nbits; w++)
	{
		uint64_t	z = ~t.louds[w];

		if (t.nbits - w * 64 < 64)
			z &= (1ULL << (t.nbits - w * 64)) - 1;
		for (; z != 0; z &= z - 1, zeros++)
			if ((zeros & 63) == 0)
				t.sel0.push_back(w * 64 + bits_ctz(z));
	}
	uint32_t	r = 0;

	for (uint64_t w = 0; w < t.term.size(); w++)
	{
		t.term_rank.push_back(r);
		r += bits_popc(t.term[w]);
	}

	t.view.louds = t.louds.data();
	t.view.sel0 = t.sel0.data();
	t.view.labels = t.labels.data();
	t.view.term = t.term.data();
	t.view.term_rank = t.term_rank.data();
	t.view.toff = t.toff.data();
	t.view.tail = t.tail.data();
	t.view.ord = t.ord.data();
	t.view.nnodes = v;
}

/* Copy the structure to the GPU if it is not there yet. */
static pg_gpu_status
dict_to_device(pg_gpu_dict *d, pg_gpu_error *err)
{
	auto		t0 = std::chrono::steady_clock::now();
	pg_gpu_status st = PG_GPU_OK;

	if (d->dev_hash || d->dev_trie)
		return PG_GPU_OK;
	if (d->info.kind == PG_GPU_DICT_HASH)
	{
		if (!(d->dev_hash = pg_gpu_keyset_to_device(d->hash, err)))
			return err->status;
		d->info.device_bytes = d->info.host_bytes;
	}
	else
	{
		const void *p[8];
		uint64_t	bytes[8];

		trie_arrays(d->trie, p, bytes);
		if ((st = pg_gpu_engine_init(err)) != PG_GPU_OK ||
			(st = engine_trie_upload(p, bytes, d->trie.view.nnodes, &d->dev_trie, err)) != PG_GPU_OK)
			return st;
		d->info.device_bytes = 0;
		for (int i = 0; i < 8; i++)
			d->info.device_bytes += bytes[i];
	}
	d->info.upload_ms = ms_since(t0);
	return PG_GPU_OK;
}

/* The structure as a set: the host copy, or the GPU's (d must be there). */
static void
dict_set_ref(const pg_gpu_dict *d, bool host, pg_gpu_set_ref *out)
{
	memset(out, 0, sizeof(*out));
	out->nonempty = 1;			/* an empty dictionary answers false, not NULL */
	if (d->info.kind == PG_GPU_DICT_HASH)
		pg_gpu_keyset_ref(host ? d->hash : d->dev_hash, out);
	else
	{
		out->trie = host ? (uint64_t) (uintptr_t) &d->trie.view : engine_trie_view(d->dev_trie);
		out->type = PG_GPU_TEXT;
	}
}

extern "C" pg_gpu_dict *
pg_gpu_dict_build(int kind, uint64_t n, const char *data, const uint64_t *off, int device,
				  pg_gpu_error *err)
{
	auto		t0 = std::chrono::steady_clock::now();
	pg_gpu_dict *d = new (std::nothrow) pg_gpu_dict();

	if (!d)
	{
		host_error(err, PG_GPU_OUT_OF_MEMORY, "out of host memory");
		return nullptr;
	}
	if (n >= 0xFFFFFFFFULL)
	{
		delete d;
		host_error(err, PG_GPU_OUT_OF_MEMORY, "too many keys for one dictionary");
		return nullptr;
	}
	d->info.kind = kind;
	d->info.keys = n;
	try
	{
		if (kind == PG_GPU_DICT_HASH)
		{
			d->hash = pg_gpu_keyset_build(PG_GPU_TEXT, n, nullptr, data, off, 1, err);
			if (!d->hash)
			{
				delete d;
				return nullptr;
			}
			d->info.distinct = pg_gpu_keyset_size(d->hash);
			d->info.host_bytes = hash_bytes(n, off[n]);
		}
		else
		{
			const void *p[8];
			uint64_t	bytes[8];

			trie_build(d->trie, n, (const uint8_t *) data, off, &d->info.distinct);
			trie_arrays(d->trie, p, bytes);
			for (int i = 0; i < 8; i++)
				d->info.host_bytes += bytes[i];
			d->info.nodes = d->trie.view.nnodes;
		}
	}
	catch (const std::bad_alloc &)
	{
		pg_gpu_dict_free(d);
		host_error(err, PG_GPU_OUT_OF_MEMORY, "out of host memory for a dictionary");
		return nullptr;
	}
	catch (...)
	{
		pg_gpu_dict_free(d);
		host_error(err, PG_GPU_INVALID_TASK, "building a dictionary failed");
		return nullptr;
	}
	d->info.build_ms = ms_since(t0);
	dict_set_ref(d, true, &d->host_ref);
	if (device && dict_to_device(d, err) != PG_GPU_OK)
	{
		pg_gpu_dict_free(d);
		return nullptr;
	}
	return d;
}

extern "C" int64_t
pg_gpu_dict_find(const pg_gpu_dict *d, const char *p, uint32_t len)
{
	pval		x;

	x.bits = (uint64_t) (uintptr_t) p;
	x.len = len;
	x.null = false;
	return set_find(d->host_ref, x, PG_GPU_TEXT);
}

extern "C" pg_gpu_status
pg_gpu_dict_probe(pg_gpu_dict *d, uint64_t m, const char *data, const uint64_t *off,
				  int64_t *out, double *kernel_ms, pg_gpu_error *err)
{
	pg_gpu_set_ref ref = {};
	pg_gpu_status st;

	if ((st = pg_gpu_dict_ref(d, 0, &ref, err)) != PG_GPU_OK)
		return st;
	keyset_keys q = {PG_GPU_TEXT, nullptr, (const uint8_t *) data, off};

	return engine_set_probe(ref, q, m, out, kernel_ms, err);
}

extern "C" void
pg_gpu_dict_get_info(const pg_gpu_dict *d, pg_gpu_dict_info *out)
{
	*out = d->info;
}

extern "C" pg_gpu_status
pg_gpu_dict_ref(pg_gpu_dict *d, int emulate, pg_gpu_set_ref *out, pg_gpu_error *err)
{
	pg_gpu_status st;

	if (emulate)
	{
		*out = d->host_ref;
		return PG_GPU_OK;
	}
	if ((st = dict_to_device(d, err)) != PG_GPU_OK)
		return st;
	dict_set_ref(d, false, out);
	return PG_GPU_OK;
}

extern "C" void
pg_gpu_dict_free(pg_gpu_dict *d)
{
	if (!d)
		return;
	pg_gpu_keyset_free(d->hash);
	pg_gpu_keyset_free(d->dev_hash);
	engine_trie_free(d->dev_trie);
	delete d;
}
