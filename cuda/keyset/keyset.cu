/*
 * keyset.cu — key sets on the GPU (keyset.cuh): the keys go to device memory once,
 * one thread per key inserts it with atomicCAS (equal keys: atomicMin keeps the
 * least index), and probes run one thread per probe key.
 */
#include <algorithm>
#include <new>

#include "cub.cuh"

#include "engine/engine_internal.cuh"
#include "engine/policy.cuh"
#include "keyset/keyset.cuh"
#include "keyset/keyset_engine.h"

using namespace pg_gpu::cuda;

struct engine_keyset
{
	keyset_keys keys = {};		/* device copies */
	int64_t    *d_vals = nullptr;
	uint8_t    *d_data = nullptr;
	uint64_t   *d_off = nullptr;
	uint64_t   *d_tab = nullptr;
	uint64_t   *d_mult = nullptr;	/* per least index: keys equal to it */
	uint64_t	max_mult = 0;	/* the largest of them */
	uint64_t	mask = 0;
	uint64_t   *d_pay = nullptr;	/* the payload (engine_keyset_payload) */
	uint8_t    *d_pay_null = nullptr;
	uint64_t	pay_n = 0;
	int			npay = 0;
};

static __global__ void
keyset_build_kernel(uint64_t *tab, uint64_t mask, keyset_keys k, uint64_t n,
					unsigned long long *distinct)
{
	for (uint64_t i = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; i < n;
		 i += (uint64_t) gridDim.x * blockDim.x)
	{
		uint64_t	h = keyset_hash(k, i);
		unsigned long long mine = keyset_slot(h, i);

		for (uint64_t s = h & mask;; s = (s + 1) & mask)
		{
			unsigned long long e = atomicCAS((unsigned long long *) &tab[s], 0ULL, mine);

			if (e == 0)
			{
				atomicAdd(distinct, 1ULL);
				break;
			}
			/* an equal key's slot: it keeps the least index (same hash bits) */
			if ((e >> 32) == (h >> 32) && keyset_equal(k, (e & 0xFFFFFFFFu) - 1, k, i))
			{
				atomicMin((unsigned long long *) &tab[s], mine);
				break;
			}
		}
	}
}

/* After the build: each key counts itself at its equals' least index. */
static __global__ void
keyset_count_kernel(const uint64_t *tab, uint64_t mask, keyset_keys k, uint64_t n,
					unsigned long long *mult)
{
	for (uint64_t i = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; i < n;
		 i += (uint64_t) gridDim.x * blockDim.x)
		atomicAdd(&mult[keyset_find(tab, mask, k, k, i)], 1ULL);
}

struct max_op
{
	__device__ unsigned long long operator()(unsigned long long a, unsigned long long b) const
	{
		return a > b ? a : b;
	}
};

/* The largest multiplicity: a block's maximum, then one atomic per block. */
static __global__ void
keyset_max_kernel(const unsigned long long *mult, uint64_t n, unsigned long long *out)
{
	using BlockReduce = cub::BlockReduce<unsigned long long, grid_policy::threads>;
	__shared__ typename BlockReduce::TempStorage tmp;
	unsigned long long m = 0;

	for (uint64_t i = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; i < n;
		 i += (uint64_t) gridDim.x * blockDim.x)
		m = mult[i] > m ? mult[i] : m;
	m = BlockReduce(tmp).Reduce(m, max_op());
	if (threadIdx.x == 0 && m > 0)
		atomicMax(out, m);
}

/* Device copies of host keys (n of them) into *d; frees nothing on failure. */
static pg_gpu_status
keys_to_device(const keyset_keys &h, uint64_t n, keyset_keys *d, int64_t **vals, uint8_t **data,
			   uint64_t **off, pg_gpu_error *err)
{
	pg_gpu_status st;

	*d = h;
	if (h.type == PG_GPU_INT8)
	{
		d->vals = nullptr;		/* never the caller's host buffer */
		if (n == 0)
			return PG_GPU_OK;
		if ((st = device_alloc(n * sizeof(int64_t), (void **) vals, err)) != PG_GPU_OK)
			return st;
		d->vals = *vals;
		return cuda_status(err, cudaMemcpy(*vals, h.vals, n * sizeof(int64_t),
										   cudaMemcpyHostToDevice), "cudaMemcpy");
	}
	if ((st = device_alloc((n + 1) * sizeof(uint64_t), (void **) off, err)) != PG_GPU_OK ||
		(st = device_alloc(h.off[n] > 0 ? h.off[n] : 1, (void **) data, err)) != PG_GPU_OK)
		return st;
	d->off = *off;
	d->data = *data;
	if ((st = cuda_status(err, cudaMemcpy(*off, h.off, (n + 1) * sizeof(uint64_t),
										  cudaMemcpyHostToDevice), "cudaMemcpy")) != PG_GPU_OK)
		return st;
	return h.off[n] == 0 ? PG_GPU_OK
		: cuda_status(err, cudaMemcpy(*data, h.data, h.off[n], cudaMemcpyHostToDevice),
					  "cudaMemcpy");
}

/* One thread per key, at least one block, at most grid_policy::max_blocks. */
static int
grid_blocks(uint64_t n)
{
	constexpr int T = grid_policy::threads;
	uint64_t	b = (n + T - 1) / T;

	return (int) (b < 1 ? 1 : b > (uint64_t) grid_policy::max_blocks ? grid_policy::max_blocks : b);
}

/* The table and the multiplicities of the keys ks->keys (n of them, on the device). */
static pg_gpu_status
keyset_fill(engine_keyset *ks, uint64_t n, uint64_t *distinct, pg_gpu_error *err)
{
	unsigned long long *d_count = nullptr;
	unsigned long long count[2] = {0, 0};	/* distinct keys, largest multiplicity */
	pg_gpu_status st;

	ks->mask = keyset_capacity(n) - 1;
	if ((st = device_alloc((ks->mask + 1) * sizeof(uint64_t), (void **) &ks->d_tab, err)) == PG_GPU_OK &&
		(st = device_alloc(std::max<uint64_t>(n, 1) * sizeof(uint64_t), (void **) &ks->d_mult, err)) == PG_GPU_OK &&
		(st = device_alloc(sizeof(count), (void **) &d_count, err)) == PG_GPU_OK)
	{
		cudaMemset(ks->d_tab, 0, (ks->mask + 1) * sizeof(uint64_t));
		cudaMemset(ks->d_mult, 0, std::max<uint64_t>(n, 1) * sizeof(uint64_t));
		cudaMemset(d_count, 0, sizeof(count));
		if (n > 0)
		{
			constexpr int T = grid_policy::threads;

			keyset_build_kernel<<<grid_blocks(n), T, 0, thread_stream>>>(ks->d_tab, ks->mask,
																		 ks->keys, n, d_count);
			keyset_count_kernel<<<grid_blocks(n), T, 0, thread_stream>>>(
				ks->d_tab, ks->mask, ks->keys, n, (unsigned long long *) ks->d_mult);
			keyset_max_kernel<<<grid_blocks(n), T, 0, thread_stream>>>(
				(const unsigned long long *) ks->d_mult, n, d_count + 1);
		}
		if ((st = stream_wait(thread_stream, err)) == PG_GPU_OK)
			st = cuda_status(err, cudaMemcpy(count, d_count, sizeof(count),
											 cudaMemcpyDeviceToHost), "keyset_build_kernel");
	}
	device_free(d_count);
	*distinct = count[0];
	ks->max_mult = count[1];
	return st;
}

pg_gpu_status
engine_keyset_build(const keyset_keys &k, uint64_t n, engine_keyset **dev, uint64_t *distinct,
					pg_gpu_error *err)
{
	keyset_keys dk;
	int64_t    *vals = nullptr;
	uint8_t    *data = nullptr;
	uint64_t   *off = nullptr;
	pg_gpu_status st = keys_to_device(k, n, &dk, &vals, &data, &off, err);

	*dev = nullptr;
	if (st != PG_GPU_OK)
	{
		device_free(vals);
		device_free(data);
		device_free(off);
		return st;
	}
	return engine_keyset_adopt(k.type, n, vals, data, off, dev, distinct, err);
}

pg_gpu_status
engine_keyset_adopt(int type, uint64_t n, int64_t *vals, uint8_t *data, uint64_t *off,
					engine_keyset **dev, uint64_t *distinct, pg_gpu_error *err)
{
	engine_keyset *ks = new (std::nothrow) engine_keyset();
	pg_gpu_status st;

	*dev = nullptr;
	if (!ks)
	{
		device_free(vals);
		device_free(data);
		device_free(off);
		return set_error(err, PG_GPU_OUT_OF_MEMORY, "out of host memory");
	}
	ks->d_vals = vals;
	ks->d_data = data;
	ks->d_off = off;
	ks->keys.type = type;
	ks->keys.vals = vals;
	ks->keys.data = data;
	ks->keys.off = off;
	if ((st = keyset_fill(ks, n, distinct, err)) != PG_GPU_OK)
	{
		engine_keyset_free(ks);
		return st;
	}
	*dev = ks;
	return PG_GPU_OK;
}

pg_gpu_status
engine_keyset_probe(engine_keyset *ks, const keyset_keys &q, uint64_t m, int64_t *out,
					pg_gpu_error *err)
{
	pg_gpu_set_ref set = {};
	double		ms;

	engine_keyset_ref(ks, &set);
	set.type = ks->keys.type;
	return engine_set_probe(set, q, m, out, &ms, err);
}

void
engine_keyset_free(engine_keyset *ks)
{
	if (!ks)
		return;
	device_free(ks->d_vals);
	device_free(ks->d_data);
	device_free(ks->d_off);
	device_free(ks->d_tab);
	device_free(ks->d_mult);
	device_free(ks->d_pay);
	device_free(ks->d_pay_null);
	delete ks;
}

pg_gpu_status
engine_keyset_payload(engine_keyset *ks, int ncols, uint64_t n, const uint64_t *vals,
					  const uint8_t *nulls, pg_gpu_error *err)
{
	uint64_t	words = (uint64_t) ncols * n;
	pg_gpu_status st;

	device_free(ks->d_pay);
	device_free(ks->d_pay_null);
	ks->d_pay = nullptr;
	ks->d_pay_null = nullptr;
	ks->npay = 0;
	if (words == 0)
	{
		/* no keys: nothing is ever read */
		ks->pay_n = 0;
		ks->npay = ncols;
		return PG_GPU_OK;
	}
	if ((st = device_alloc(words * sizeof(uint64_t), (void **) &ks->d_pay, err)) != PG_GPU_OK ||
		(st = device_alloc(words, (void **) &ks->d_pay_null, err)) != PG_GPU_OK ||
		(st = cuda_status(err, cudaMemcpy(ks->d_pay, vals, words * sizeof(uint64_t),
										  cudaMemcpyHostToDevice), "cudaMemcpy")) != PG_GPU_OK ||
		(st = cuda_status(err, cudaMemcpy(ks->d_pay_null, nulls, words, cudaMemcpyHostToDevice),
						  "cudaMemcpy")) != PG_GPU_OK)
		return st;
	ks->pay_n = n;
	ks->npay = ncols;
	return PG_GPU_OK;
}

/* Words of ncols columns a row, row after row, to column after column. */
static __global__ void
keyset_pay_rows_kernel(const uint64_t *pay, const uint8_t *pay_null, int ncols, uint64_t n,
					   uint64_t *out, uint8_t *out_null)
{
	uint64_t	words = n * (uint64_t) ncols;

	for (uint64_t i = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; i < words;
		 i += (uint64_t) gridDim.x * blockDim.x)
	{
		uint64_t	r = i / (uint64_t) ncols;
		uint64_t	c = i - r * (uint64_t) ncols;

		out[c * n + r] = pay[i];
		out_null[c * n + r] = pay_null[i];
	}
}

pg_gpu_status
engine_keyset_payload_rows(engine_keyset *ks, int ncols, uint64_t n, const uint64_t *pay,
						   const uint8_t *pay_null, int64_t *distinct, pg_gpu_error *err)
{
	uint64_t	words = (uint64_t) ncols * n;
	pg_gpu_status st;

	device_free(ks->d_pay);
	device_free(ks->d_pay_null);
	ks->d_pay = nullptr;
	ks->d_pay_null = nullptr;
	ks->npay = ncols;
	ks->pay_n = n;
	for (int c = 0; distinct != nullptr && c < ncols; c++)
		distinct[c] = n == 0 ? 0 : -1;
	if (words == 0)
		return PG_GPU_OK;		/* no keys: nothing is ever read */
	if ((st = device_alloc(words * sizeof(uint64_t), (void **) &ks->d_pay, err)) != PG_GPU_OK ||
		(st = device_alloc(words, (void **) &ks->d_pay_null, err)) != PG_GPU_OK)
		return st;
	keyset_pay_rows_kernel<<<grid_blocks(words), grid_policy::threads, 0, thread_stream>>>(
		pay, pay_null, ncols, n, ks->d_pay, ks->d_pay_null);
	if ((st = cuda_status(err, cudaGetLastError(), "keyset_pay_rows_kernel")) != PG_GPU_OK ||
		(st = stream_wait(thread_stream, err)) != PG_GPU_OK)
		return st;

	/*
	 * Each column's distinct words, in a set of its own: a NULL's word is 0,
	 * so the count may pass the distinct non-NULL values by one, never fall
	 * short of them.
	 */
	for (int c = 0; distinct != nullptr && c < ncols; c++)
	{
		int64_t    *tmp = nullptr;
		engine_keyset *t = nullptr;
		uint64_t	d = 0;

		if ((st = device_alloc(n * sizeof(int64_t), (void **) &tmp, err)) != PG_GPU_OK ||
			(st = cuda_status(err, cudaMemcpy(tmp, ks->d_pay + (uint64_t) c * n, n * sizeof(int64_t),
											  cudaMemcpyDeviceToDevice), "cudaMemcpy")) != PG_GPU_OK)
		{
			device_free(tmp);
			return st;
		}
		if ((st = engine_keyset_adopt(PG_GPU_INT8, n, tmp, nullptr, nullptr, &t, &d, err)) != PG_GPU_OK)
			return st;
		engine_keyset_free(t);
		distinct[c] = (int64_t) d;
	}
	return PG_GPU_OK;
}

/*
 * Each key's least and greatest aux at its ordinal: both start NULL (and at
 * the type's far ends), and each key's aux folds in with an atomic.
 */
static __global__ void
keyset_minmax_kernel(const uint64_t *tab, uint64_t mask, keyset_keys k, uint64_t n,
					 const int64_t *aux, long long *lo, long long *hi, uint8_t *null)
{
	for (uint64_t i = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; i < n;
		 i += (uint64_t) gridDim.x * blockDim.x)
	{
		int64_t		o = keyset_find(tab, mask, k, k, i);

		atomicMin(&lo[o], (long long) aux[i]);
		atomicMax(&hi[o], (long long) aux[i]);
		null[o] = 0;
		null[n + o] = 0;
	}
}

static __global__ void
keyset_minmax_init(uint64_t n, long long *lo, long long *hi)
{
	for (uint64_t i = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; i < n;
		 i += (uint64_t) gridDim.x * blockDim.x)
	{
		lo[i] = INT64_MAX;
		hi[i] = INT64_MIN;
	}
}

pg_gpu_status
engine_keyset_minmax(engine_keyset *ks, const int64_t *aux, uint64_t n, pg_gpu_error *err)
{
	pg_gpu_status st;

	device_free(ks->d_pay);
	device_free(ks->d_pay_null);
	ks->d_pay = nullptr;
	ks->d_pay_null = nullptr;
	ks->npay = 2;
	ks->pay_n = n;
	if (n == 0)
		return PG_GPU_OK;		/* no keys: nothing is ever read */
	if ((st = device_alloc(2 * n * sizeof(uint64_t), (void **) &ks->d_pay, err)) != PG_GPU_OK ||
		(st = device_alloc(2 * n, (void **) &ks->d_pay_null, err)) != PG_GPU_OK)
		return st;

	constexpr int T = grid_policy::threads;
	long long  *lo = (long long *) ks->d_pay;

	cudaMemsetAsync(ks->d_pay_null, 1, 2 * n, thread_stream);
	keyset_minmax_init<<<grid_blocks(n), T, 0, thread_stream>>>(n, lo, lo + n);
	keyset_minmax_kernel<<<grid_blocks(n), T, 0, thread_stream>>>(ks->d_tab, ks->mask, ks->keys, n,
																  aux, lo, lo + n, ks->d_pay_null);
	if ((st = cuda_status(err, cudaGetLastError(), "keyset_minmax_kernel")) != PG_GPU_OK)
		return st;
	return stream_wait(thread_stream, err);
}

void
engine_keyset_ref(const engine_keyset *ks, pg_gpu_set_ref *out)
{
	out->tab = (uint64_t) (uintptr_t) ks->d_tab;
	out->mask = ks->mask;
	out->vals = (uint64_t) (uintptr_t) ks->keys.vals;
	out->data = (uint64_t) (uintptr_t) ks->keys.data;
	out->off = (uint64_t) (uintptr_t) ks->keys.off;
	out->mult = (uint64_t) (uintptr_t) ks->d_mult;
	out->max_mult = ks->max_mult;
	out->pay = (uint64_t) (uintptr_t) ks->d_pay;
	out->pay_null = (uint64_t) (uintptr_t) ks->d_pay_null;
	out->pay_n = ks->pay_n;
	out->npay = ks->npay;
}

/* ---- bulk lookups in any set: a key set or a dictionary (dict/trie.cu) ---- */

/*
 * One thread per probe key (seed 003's query-parallel search).  With x, an
 * integer key's ordinal only where some b of the key differs from its x (not
 * NULL: xnull): pg_gpu_keyset_probe_ne.
 */
static __global__ void
set_probe_kernel(pg_gpu_set_ref set, keyset_keys q, uint64_t m, int64_t *out,
				 const int64_t *xs = nullptr, const uint8_t *xnull = nullptr)
{
	for (uint64_t j = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; j < m;
		 j += (uint64_t) gridDim.x * blockDim.x)
	{
		pval		x;

		x.null = false;
		if (q.type == PG_GPU_INT8)
		{
			x.bits = (uint64_t) q.vals[j];
			x.len = 0;
		}
		else
		{
			x.bits = (uint64_t) (uintptr_t) (q.data + q.off[j]);
			x.len = (uint32_t) (q.off[j + 1] - q.off[j]);
		}
		out[j] = set_find(set, x, q.type);
		if (xs != nullptr && out[j] >= 0 &&
			(xnull[j] != 0 || !set_ne_match(set, out[j], (uint64_t) xs[j])))
			out[j] = -1;
	}
}

/* The set's own keys probed on the device, where they already are. */
pg_gpu_status
engine_keyset_ordinals(engine_keyset *ks, uint64_t n, int64_t *out, pg_gpu_error *err)
{
	pg_gpu_set_ref set = {};
	int64_t    *d_out = nullptr;
	pg_gpu_status st;

	if (n == 0)
		return PG_GPU_OK;
	engine_keyset_ref(ks, &set);
	set.type = ks->keys.type;
	set.nonempty = 1;
	if ((st = device_alloc(n * sizeof(int64_t), (void **) &d_out, err)) == PG_GPU_OK)
	{
		set_probe_kernel<<<grid_blocks(n), grid_policy::threads, 0, thread_stream>>>(set, ks->keys,
																					 n, d_out);
		if ((st = cuda_status(err, cudaGetLastError(), "set_probe_kernel")) == PG_GPU_OK)
			st = cuda_status(err, cudaMemcpy(out, d_out, n * sizeof(int64_t),
											 cudaMemcpyDeviceToHost), "cudaMemcpy");
	}
	device_free(d_out);
	return st;
}

/* engine_set_probe, and with x (host words and NULL bytes) the probe with inner.b <> x */
static pg_gpu_status
set_probe(const pg_gpu_set_ref &set, const keyset_keys &q, uint64_t m, int64_t *out,
		  const int64_t *x, const uint8_t *xnull, double *kernel_ms, pg_gpu_error *err)
{
	keyset_keys dq;
	int64_t    *vals = nullptr,
			   *d_out = nullptr,
			   *d_x = nullptr;
	uint8_t    *d_data = nullptr,
			   *d_xnull = nullptr;
	uint64_t   *d_off = nullptr;
	cudaEvent_t e0 = nullptr,
				e1 = nullptr;
	float		ms = 0;
	pg_gpu_status st;

	*kernel_ms = 0;
	if (m == 0)
		return PG_GPU_OK;
	if ((st = keys_to_device(q, m, &dq, &vals, &d_data, &d_off, err)) == PG_GPU_OK &&
		(st = device_alloc(m * sizeof(int64_t), (void **) &d_out, err)) == PG_GPU_OK &&
		(x == nullptr ||
		 ((st = device_alloc(m * sizeof(int64_t), (void **) &d_x, err)) == PG_GPU_OK &&
		  (st = device_alloc(m, (void **) &d_xnull, err)) == PG_GPU_OK &&
		  (st = cuda_status(err, cudaMemcpy(d_x, x, m * sizeof(int64_t), cudaMemcpyHostToDevice),
							"cudaMemcpy")) == PG_GPU_OK &&
		  (st = cuda_status(err, cudaMemcpy(d_xnull, xnull, m, cudaMemcpyHostToDevice),
							"cudaMemcpy")) == PG_GPU_OK)) &&
		(st = cuda_status(err, cudaEventCreate(&e0), "cudaEventCreate")) == PG_GPU_OK &&
		(st = cuda_status(err, cudaEventCreate(&e1), "cudaEventCreate")) == PG_GPU_OK)
	{
		cudaEventRecord(e0);
		set_probe_kernel<<<grid_blocks(m), grid_policy::threads, 0, thread_stream>>>(set, dq, m,
																					 d_out, d_x,
																					 d_xnull);
		if ((st = cuda_status(err, cudaGetLastError(), "set_probe_kernel")) == PG_GPU_OK)
			cudaEventRecord(e1);
		if (st == PG_GPU_OK &&
			(st = event_wait(e1, err)) == PG_GPU_OK)
		{
			cudaEventElapsedTime(&ms, e0, e1);
			*kernel_ms = ms;
			st = cuda_status(err, cudaMemcpy(out, d_out, m * sizeof(int64_t),
											 cudaMemcpyDeviceToHost), "cudaMemcpy");
		}
	}
	if (e0)
		cudaEventDestroy(e0);
	if (e1)
		cudaEventDestroy(e1);
	device_free(vals);
	device_free(d_data);
	device_free(d_off);
	device_free(d_out);
	device_free(d_x);
	device_free(d_xnull);
	return st;
}

pg_gpu_status
engine_set_probe(const pg_gpu_set_ref &set, const keyset_keys &q, uint64_t m, int64_t *out,
				 double *kernel_ms, pg_gpu_error *err)
{
	return set_probe(set, q, m, out, nullptr, nullptr, kernel_ms, err);
}

pg_gpu_status
engine_keyset_probe_ne(engine_keyset *ks, const keyset_keys &q, uint64_t m, const int64_t *x,
					   const uint8_t *xnull, int64_t *out, pg_gpu_error *err)
{
	pg_gpu_set_ref set = {};
	double		ms;

	engine_keyset_ref(ks, &set);
	set.type = ks->keys.type;
	return set_probe(set, q, m, out, x, xnull, &ms, err);
}
