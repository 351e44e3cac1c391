/*
 * collect.cu — a collect task: the keys of a scan's passing rows gathered on the
 * GPU into a key set (keyset.cu), for a semi-join's or an IN list's probe side.
 *
 * Each block takes one page at a time; a warp claims room for its keys (and their
 * bytes) with one atomic each.  The arrays are sized from the planner's hint and
 * grown between chunks when a bound of the queued keys would pass them
 * (collect_reserve).  At finish the text keys are packed end to end and the
 * arrays handed to the key set without leaving the device.
 */
#include <algorithm>

#include "cub.cuh"

#include "engine/primitives.cuh"
#include "engine/task.cuh"
#include "keyset/keyset_engine.h"

namespace pg_gpu {
namespace cuda {

/*
 * Each passing row's key is appended (and its aux value beside it, where the
 * task has one: a row whose aux is NULL is left out).  A warp claims
 * room for its keys (and their bytes) with one atomic each: every lane walks the
 * page's line pointers in step, so the warp's shuffles see all 32 lanes.
 */
__global__ void __launch_bounds__(page_policy::threads)
collect_pages_kernel(const page_chunk chunk, const __grid_constant__ pg_gpu_agg_task task,
					 collect_out co, unsigned long long *rows, int *err)
{
	constexpr int T = page_policy::threads;
	__shared__ uint4 page[PG_GPU_BLCKSZ / 16];
	const int	tid = threadIdx.x;
	const int	lane = tid & 31;
	const bool	text = is_text_type(task.keys[0].type);
	const int	npay = task.collect_pay;
	const bool	with_aux = task.nkeys == 2 && npay == 0;
	unsigned long long nrows = 0;
	bool		saw_null = false;

	for_each_page<T>(chunk, page, no_store(), [&](int, const pg_gpu_page_ref &ref,
												  const uint8_t *pg, const uint32_t *pvis, int lt) {
		for_each_line_lockstep<T>(pg, ref.nlp, pvis, lt, [&](int, int v, const uint8_t *tup,
															  uint32_t len) {
			bool		have = false;
			pval		kv[PG_GPU_MAX_KEYS];
			pval	   &k = kv[0];

			k.len = 0;
			if (v != 0)
			{
				int			r = v < 0 ? v : eval_tuple(tup, len, task, nullptr, kv);

				if (r < 0)
					atomicCAS(err, 0, tup_status(r));
				else if (r == TUP_OK)
				{
					nrows++;
					if (k.null)
						saw_null = true;
					else
						have = !with_aux || !kv[1].null;
				}
			}

			unsigned	mask = __ballot_sync(0xFFFFFFFFu, have);

			if (mask == 0)
				return;

			/* this lane's bytes, and the warp's before it */
			uint64_t	mine = (have && text) ? k.len : 0;
			uint64_t	incl = mine;

			for (int d = 1; d < 32; d <<= 1)
			{
				uint64_t	t = __shfl_up_sync(0xFFFFFFFFu, incl, d);

				if (lane >= d)
					incl += t;
			}

			uint64_t	total = __shfl_sync(0xFFFFFFFFu, incl, 31);
			unsigned long long kbase = 0,
						bbase = 0;

			if (lane == 0)
			{
				kbase = atomicAdd(&co.count[0], (unsigned long long) __popc(mask));
				if (total > 0)
					bbase = atomicAdd(&co.count[1], (unsigned long long) total);
			}
			kbase = __shfl_sync(0xFFFFFFFFu, kbase, 0);
			bbase = __shfl_sync(0xFFFFFFFFu, bbase, 0);
			if (!have)
				return;

			uint64_t	idx = kbase + __popc(mask & ((1u << lane) - 1));
			uint64_t	at = bbase + incl - mine;

			/* the caller reserved room (collect_reserve); never write past it */
			if (idx >= co.cap || (text && at + mine > co.bytes))
			{
				atomicCAS(err, 0, (int) PG_GPU_INVALID_TASK);
				return;
			}
			if (!text)
			{
				co.vals[idx] = (int64_t) k.bits;
				if (with_aux)
					co.aux[idx] = (int64_t) kv[1].bits;
				for (int j = 0; j < npay; j++)
				{
					const pval &p = kv[1 + j];

					co.pay[idx * npay + j] = p.null ? 0
						: task.keys[1 + j].type == PG_GPU_BOOL ? (uint64_t) (p.bits != 0) : p.bits;
					co.pay_null[idx * npay + j] = p.null ? 1 : 0;
				}
				return;
			}

			const uint8_t *src = (const uint8_t *) (uintptr_t) k.bits;

			for (uint64_t b = 0; b < mine; b++)
				co.arena[at + b] = src[b];
			co.src[idx] = at;
			co.len[idx] = mine;
		});
	});
	if (nrows)
		atomicAdd(rows, nrows);
	if (saw_null)
		co.count[2] = 1;
}

/* Text keys gathered end to end: key i's bytes from src[i] to off[i]. */
__global__ void
collect_pack_kernel(const uint8_t *arena, const uint64_t *src, const uint64_t *off, uint64_t n,
					uint8_t *data)
{
	for (uint64_t i = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; i < n;
		 i += (uint64_t) gridDim.x * blockDim.x)
		for (uint64_t b = 0; b < off[i + 1] - off[i]; b++)
			data[off[i] + b] = arena[src[i] + b];
}

/* Collect: the key arrays at a given size, keeping the first keys / bytes. */
static pg_gpu_status
collect_alloc(gpu_agg *agg, uint64_t cap, uint64_t bytes, uint64_t keys, uint64_t used,
			  pg_gpu_error *err)
{
	collect_out &co = agg->co;
	bool		text = is_text_type(agg->task.keys[0].type);
	pg_gpu_status st;
	auto		move = [&](void **p, size_t size, size_t keep) -> pg_gpu_status {
		void	   *q = nullptr;
		pg_gpu_status s2;

		if ((s2 = device_alloc(size, &q, err)) != PG_GPU_OK)
			return s2;
		/* a device-to-device copy may still run when cudaMemcpy returns */
		if (keep > 0 &&
			(cudaMemcpy(q, *p, keep, cudaMemcpyDeviceToDevice) != cudaSuccess ||
			 cudaStreamSynchronize(agg->main_stream) != cudaSuccess))
		{
			device_free(q);
			return from_cuda(err, cudaGetLastError(), "cudaMemcpy keys");
		}
		device_free(*p);
		*p = q;
		return PG_GPU_OK;
	};

	keys = std::min(keys, co.cap);		/* never more than the old arrays hold */
	used = std::min(used, co.bytes);
	if (!text)
	{
		uint64_t	npay = (uint64_t) agg->task.collect_pay;

		/* an aux value (nkeys 2) or a payload beside each key, grown with the keys */
		if ((st = move((void **) &co.vals, cap * sizeof(int64_t), keys * sizeof(int64_t))) == PG_GPU_OK &&
			agg->task.nkeys == 2 && npay == 0)
			st = move((void **) &co.aux, cap * sizeof(int64_t), keys * sizeof(int64_t));
		if (st == PG_GPU_OK && npay > 0 &&
			(st = move((void **) &co.pay, cap * npay * sizeof(uint64_t),
					   keys * npay * sizeof(uint64_t))) == PG_GPU_OK)
			st = move((void **) &co.pay_null, cap * npay, keys * npay);
	}
	else if ((st = move((void **) &co.src, cap * sizeof(uint64_t), keys * sizeof(uint64_t))) == PG_GPU_OK &&
			 (st = move((void **) &co.len, (cap + 1) * sizeof(uint64_t), keys * sizeof(uint64_t))) == PG_GPU_OK)
		st = move((void **) &co.arena, bytes, used);
	if (st != PG_GPU_OK)
		return st;
	co.cap = cap;
	co.bytes = text ? bytes : 0;
	return PG_GPU_OK;
}

/*
 * Collect: room for the keys the planner expects and one chunk more (a chunk
 * adds at most its line pointers' keys, and bytes from its pages).
 */
static pg_gpu_status
collect_setup(gpu_agg *agg, pg_gpu_error *err)
{
	uint64_t	hint = agg->task.collect_hint > 0 ? (uint64_t) agg->task.collect_hint : 0;
	uint64_t	pages = agg->task.total_pages > 0 ? (uint64_t) agg->task.total_pages : 0;
	uint64_t	cap = hint + hint / 4 + 1024;
	uint64_t	bytes = (hint + hint / 4) * 40 + (uint64_t) agg->capacity * PG_GPU_BLCKSZ;
	pg_gpu_status st;

	/* a table of known size holds no more keys, nor bytes, than its pages */
	if (pages > 0)
	{
		cap = std::min(cap, pages * PG_GPU_MAX_TUPLES_PER_PAGE + 1024);
		bytes = std::min(bytes, pages * PG_GPU_BLCKSZ);
	}

	if ((st = device_alloc(3 * sizeof(unsigned long long), (void **) &agg->co.count, err)) != PG_GPU_OK)
		return st;
	PG_GPU_TRY(err, cudaMemset(agg->co.count, 0, 3 * sizeof(unsigned long long)));
	return collect_alloc(agg, cap, bytes, 0, 0, err);
}

/*
 * Before queueing a collect chunk of npages pages and up to `tuples` rows: make
 * sure the key arrays can take them all; only when the bound would pass them do
 * we wait for the GPU, read the real use, and enlarge them if needed.
 */
static pg_gpu_status
collect_reserve(gpu_agg *agg, uint64_t tuples, int npages, pg_gpu_error *err)
{
	collect_out &co = agg->co;
	uint64_t	bytes = co.bytes > 0 ? (uint64_t) npages * PG_GPU_BLCKSZ : 0;
	unsigned long long used[2];
	pg_gpu_status st;

	/* key sets index keys with 32 bits, and text offsets are scanned as int */
	if (agg->co_bound + tuples >= 0x7FFFFFFFULL)
		return set_error(err, PG_GPU_OUT_OF_MEMORY, "too many keys for one key set");
	if (agg->co_bound + tuples <= co.cap && agg->co_bbound + bytes <= co.bytes)
	{
		agg->co_bound += tuples;
		agg->co_bbound += bytes;
		return PG_GPU_OK;
	}
	if ((st = sync_slots(agg, err)) != PG_GPU_OK)
		return st;
	PG_GPU_TRY(err, cudaMemcpy(used, co.count, sizeof(used), cudaMemcpyDeviceToHost));
	agg->co_bound = used[0] + tuples;
	agg->co_bbound = used[1] + bytes;
	if (agg->co_bound <= co.cap && agg->co_bbound <= co.bytes)
		return PG_GPU_OK;
	return collect_alloc(agg, std::max(co.cap, 2 * agg->co_bound),
						 std::max(co.bytes, 2 * agg->co_bbound), used[0], used[1], err);
}

/* A finished collect task's keys as a key set (pg_gpu_agg_keyset). */
pg_gpu_keyset *
collect_keyset(gpu_agg *agg, int type, uint64_t *keys, int *has_null, pg_gpu_error *err)
{
	collect_out &co = agg->co;
	uint64_t	n = agg->co_keys;
	uint64_t	distinct = 0;
	engine_keyset *dev = nullptr;
	uint8_t    *data = nullptr;
	uint64_t   *off = nullptr;
	int64_t		pay_distinct[PG_GPU_MAX_KEYS];
	pg_gpu_status st;
	pg_gpu_keyset *ks;

	for (int j = 0; j < PG_GPU_MAX_KEYS; j++)
		pay_distinct[j] = -1;

	if (!agg->collecting || is_text_type(type) != is_text_type(agg->task.keys[0].type) ||
		(co.vals == nullptr && co.len == nullptr))
	{
		set_error(err, PG_GPU_INVALID_TASK, "not a collect task of this key type");
		return nullptr;
	}
	*keys = n;
	*has_null = agg->co_null;
	if (!is_text_type(type))
	{
		int64_t    *vals = co.vals;

		co.vals = nullptr;
		st = engine_keyset_adopt(PG_GPU_INT8, n, vals, nullptr, nullptr, &dev, &distinct, err);
		/* each key's least and greatest aux, beside it; or its row's payload */
		if (st == PG_GPU_OK && agg->task.nkeys == 2 && agg->task.collect_pay == 0 &&
			(st = engine_keyset_minmax(dev, co.aux, n, err)) != PG_GPU_OK)
		{
			engine_keyset_free(dev);
			dev = nullptr;
		}
		if (st == PG_GPU_OK && agg->task.collect_pay > 0 &&
			(st = engine_keyset_payload_rows(dev, agg->task.collect_pay, n, co.pay, co.pay_null,
											 n <= PG_GPU_PAY_DISTINCT_MAX ? pay_distinct : nullptr,
											 err)) != PG_GPU_OK)
		{
			engine_keyset_free(dev);
			dev = nullptr;
		}
		device_free(co.aux);
		device_free(co.pay);
		device_free(co.pay_null);
		co.aux = nullptr;
		co.pay = nullptr;
		co.pay_null = nullptr;
	}
	else
	{
		/* the keys end to end: offsets from the lengths, then the bytes */
		off = co.len;
		co.len = nullptr;
		if (cudaMemset(off + n, 0, sizeof(uint64_t)) != cudaSuccess)
			st = from_cuda(err, cudaGetLastError(), "cudaMemset");
		else
			st = scan_sizes(off, off, n, agg->main_stream, err);
		if (st == PG_GPU_OK &&
			(st = device_alloc(std::max<uint64_t>(agg->co_used, 1), (void **) &data, err)) == PG_GPU_OK &&
			n > 0)
		{
			constexpr int T = grid_policy::threads;
			uint64_t	b = (n + T - 1) / T;

			collect_pack_kernel<<<(int) std::min<uint64_t>(b, grid_policy::max_blocks), T, 0,
								  agg->main_stream>>>(co.arena, co.src, off, n, data);
			if ((st = cuda_status(err, cudaGetLastError(), "collect_pack_kernel")) == PG_GPU_OK)
				st = stream_wait(agg->main_stream, err);
		}
		device_free(co.arena);
		device_free(co.src);
		co.arena = nullptr;
		co.src = nullptr;
		if (st != PG_GPU_OK)
		{
			device_free(off);
			device_free(data);
			return nullptr;
		}
		st = engine_keyset_adopt(type, n, nullptr, data, off, &dev, &distinct, err);
	}
	if (st != PG_GPU_OK)
		return nullptr;
	if ((ks = keyset_from_engine(type, n, distinct, dev)) == nullptr)
	{
		engine_keyset_free(dev);
		set_error(err, PG_GPU_OUT_OF_MEMORY, "out of host memory");
	}
	else if (agg->task.collect_pay > 0)
		keyset_set_pay_distinct(ks, agg->task.collect_pay, pay_distinct);
	return ks;
}

static void
collect_pages_async(gpu_agg *agg, chunk_slot &s, const page_chunk &c, cudaStream_t stream)
{
	int			blocks = c.npages < agg->max_blocks ? c.npages : agg->max_blocks;

	collect_pages_kernel<<<blocks, page_policy::threads, 0, stream>>>(c, agg->task, agg->co,
																	  s.d_rows, s.d_err);
}

/* After the scan: how many keys, their bytes, whether a NULL was met. */
static pg_gpu_status
collect_finish(gpu_agg *agg, pg_gpu_agg_result *, pg_gpu_error *err)
{
	unsigned long long c[3];

	PG_GPU_TRY(err, cudaMemcpy(c, agg->co.count, sizeof(c), cudaMemcpyDeviceToHost));
	agg->co_keys = c[0];
	agg->co_used = c[1];
	agg->co_null = c[2] != 0;
	return PG_GPU_OK;
}

/* sized: room for one chunk more than the hint, from the chunk's final size */
const task_operator collect_operator = {nullptr, collect_setup, collect_reserve,
	collect_pages_async, collect_finish};

}							/* namespace cuda */
}							/* namespace pg_gpu */
