/*
 * group.cu — GROUP BY on the GPU: heap pages in, one hash-table entry per group
 * out (group.cuh holds the table's layout and its insert and merge rules, shared
 * with the CPU twin).
 *
 * Each block takes group_policy::pages pages a step.  A row's key goes to the
 * block's shared-memory table while that has room, else straight to the global
 * table; the block merges its shared table into the global one when it is done.
 * Before each chunk the ring asks group_reserve for room: a bound counts every
 * queued row as a possible new group, and only when the bound would pass half the
 * table does the host wait, read the real count and, if needed, rehash into a
 * larger table.  Text keys are copied into arena blocks that never move.  At the
 * end the entries are compacted and copied to the host (group_collect).
 */
#include "engine/task.cuh"

namespace pg_gpu {
namespace cuda {

/*
 * Each block takes group_policy::pages pages at a time, one per page_policy::threads
 * threads (scan/page_walk.cuh).  A row's
 * key goes to the block's shared-memory table while that has room (at most half
 * full), else straight to the global table; the block merges its shared table into
 * the global one when it is done.
 */
template <typename Src>
__global__ void __launch_bounds__(group_policy::threads)
group_rows_kernel(const Src chunk, const __grid_constant__ pg_gpu_agg_task task,
				   uint64_t *tab, uint64_t mask, uint64_t *inserted, str_arena ar,
				   int smem_cap, int smem_str, unsigned long long *rows, int *err)
{
	constexpr int T = page_policy::threads;
	extern __shared__ uint4 dyn[];
	__shared__ group_layout L;
	__shared__ uint64_t sfill;
	__shared__ uint64_t sstr_fill;
	uint4	   *pages = dyn;
	uint64_t   *stab = (uint64_t *) (dyn + group_policy::pages * (PG_GPU_BLCKSZ / 16));
	str_arena	sar;
	const int	tid = threadIdx.x;
	unsigned long long nrows = 0;

	if (tid == 0)
	{
		make_group_layout(task, L);
		sfill = 0;
		sstr_fill = 0;
	}
	__syncthreads();
	sar.base = (uint8_t *) (stab + (size_t) smem_cap * L.words);
	sar.fill = &sstr_fill;
	sar.cap = (uint64_t) smem_str;
	for (int i = tid; i < smem_cap * L.words; i += group_policy::threads)
		stab[i] = 0;
	__syncthreads();

	walk_rows<T, group_policy::pages>(chunk, pages, err, [&](const auto &row) {
		pval		in[PG_GPU_MAX_AGG_COLS];
		pval		keys[PG_GPU_MAX_KEYS];
		group_key	gk;
		int			r = eval_row(row, task, in, keys);

		if (r < 0)
		{
			atomicCAS(err, 0, tup_status(r));
			return;
		}
		if (r == TUP_SKIP)
			return;
		row_key(task, keys, gk);
		uint64_t	h = key_hash(gk.w, task.nkeys);
		int64_t		ix = -1;
		uint64_t   *e = nullptr;

		if (smem_cap > 0)
		{
			ix = group_find<DevAtomics>(stab, (uint64_t) smem_cap - 1, task, L, gk, h,
										&sfill, (uint64_t) smem_cap / 2, nullptr, &sar);
			if (ix >= 0)
				e = stab + ix * L.words;
			else
				ix = -1;	/* full, or no room for the key's text: global */
		}
		if (ix < 0)
		{
			ix = group_find<DevAtomics>(tab, mask, task, L, gk, h, nullptr, 0, inserted,
										&ar);
			if (ix < 0)
			{
				atomicCAS(err, 0, (int) PG_GPU_INVALID_TASK);
				return;
			}
			e = tab + ix * L.words;
		}
		group_accum<DevAtomics>(e, task, L, in);
		nrows++;
	});

	/*
	 * Every thread's rows are in the shared table before it is merged (the
	 * page walk syncs after each step; the cached rows' walk does not).
	 */
	__syncthreads();
	/* merge the block's shared table into the global one */
	for (int i = tid; i < smem_cap; i += group_policy::threads)
	{
		const uint64_t *s = stab + (size_t) i * L.words;
		group_key	gk;

		if (!entry_ready(s[kWStatus]))
			continue;
		entry_key(s, task, L, gk);
		int64_t		ix = group_find<DevAtomics>(tab, mask, task, L, gk,
												key_hash(gk.w, task.nkeys), nullptr, 0,
												inserted, &ar);

		if (ix < 0)
		{
			atomicCAS(err, 0, (int) PG_GPU_INVALID_TASK);
			continue;
		}
		group_merge<DevAtomics>(tab + ix * L.words, s, task, L);
	}
	if (nrows)
		atomicAdd(rows, nrows);
}

/* Move every entry of a table into a larger, empty one (keys are unique). */
__global__ void
group_rehash_kernel(const uint64_t *old, uint64_t old_cap, uint64_t *tab, uint64_t mask,
					int words, int nkeys)
{
	for (uint64_t i = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; i < old_cap;
		 i += (uint64_t) gridDim.x * blockDim.x)
	{
		const uint64_t *s = old + i * words;
		uint64_t	kw[PG_GPU_MAX_KEYS + 1];

		if (!entry_ready(s[kWStatus]))
			continue;
		kw[0] = s[kWNulls];
		for (int k = 0; k < nkeys; k++)
			kw[1 + k] = s[kWKeys + k];
		uint64_t	h = key_hash(kw, nkeys);

		for (uint64_t j = h & mask;; j = (j + 1) & mask)
			if (atomicCAS((unsigned long long *) &tab[j * words], 0ULL,
						  (unsigned long long) s[kWStatus]) == 0)
			{
				for (int w = 1; w < words; w++)
					tab[j * words + w] = s[w];
				break;
			}
	}
}

/*
 * Seeded groups: each key of the set (its slots) a group, inserted with no rows
 * where no row made it.
 */
__global__ void
group_seed_kernel(const uint64_t *slots, uint64_t nslots, const int64_t *vals, uint64_t *tab,
				  uint64_t mask, const __grid_constant__ pg_gpu_agg_task task, const group_layout L,
				  uint64_t *inserted, int *err)
{
	for (uint64_t i = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; i < nslots;
		 i += (uint64_t) gridDim.x * blockDim.x)
	{
		group_key	gk;

		if (!seed_key(slots[i], vals, gk))
			continue;
		if (group_find<DevAtomics>(tab, mask, task, L, gk, key_hash(gk.w, 1), nullptr, 0,
								   inserted, nullptr) < 0)
			atomicCAS(err, 0, (int) PG_GPU_INVALID_TASK);
	}
}

/* Copy the occupied entries that pass HAVING's pre-filter into a dense array. */
__global__ void
group_compact_kernel(const uint64_t *tab, uint64_t cap, int words, uint64_t *out,
					 unsigned long long *pos, const __grid_constant__ pg_gpu_agg_task task,
					 const group_layout L)
{
	for (uint64_t i = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; i < cap;
		 i += (uint64_t) gridDim.x * blockDim.x)
	{
		const uint64_t *s = tab + i * words;

		if (!entry_ready(s[kWStatus]) ||
			(task.nhaving > 0 && !group_having_pass(s, task, L)))
			continue;
		unsigned long long at = atomicAdd(pos, 1ULL);

		for (int w = 0; w < words; w++)
			out[at * words + w] = s[w];
	}
}

/*
 * The dynamic shared memory the grouping kernels may take on this device: the
 * policy's budget, or less where the device's per-block opt-in limit, less the
 * kernels' static shared memory, is lower (about 163 KB on an A100, 99 KB on
 * sm_86/89).  The same value for every task on the device: the limit set with
 * cudaFuncSetAttribute is the function's, for the whole process: tasks that set
 * their own sizes side by side (the GPU service runs several at once) lowered it
 * under each other's launches.
 */
static pg_gpu_status
group_smem_limit(size_t *limit, pg_gpu_error *err)
{
	int			dev = 0;
	int			optin = 0;
	cudaFuncAttributes fp, fc;

	PG_GPU_TRY(err, cudaGetDevice(&dev));
	PG_GPU_TRY(err, cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
	PG_GPU_TRY(err, cudaFuncGetAttributes(&fp, group_rows_kernel<page_chunk>));
	PG_GPU_TRY(err, cudaFuncGetAttributes(&fc, group_rows_kernel<cc_chunk>));
	size_t		stat = fp.sharedSizeBytes > fc.sharedSizeBytes ? fp.sharedSizeBytes : fc.sharedSizeBytes;
	size_t		room = (size_t) optin > stat ? (size_t) optin - stat : 0;

	*limit = room < group_policy::smem_budget ? room : group_policy::smem_budget;
	return PG_GPU_OK;
}

static pg_gpu_status
group_setup(gpu_agg *agg, int sms, pg_gpu_error *err)
{
	const pg_gpu_agg_task &t = agg->task;
	int64_t		hint = t.groups_hint > 0 ? t.groups_hint : 1;

	if (t.groups_max > 0 && hint > t.groups_max)
		hint = t.groups_max;
	size_t		entry = sizeof(uint64_t) * agg->layout.words;
	size_t		pages = (size_t) group_policy::pages * PG_GPU_BLCKSZ;
	int			per_sm = 0;
	size_t		limit = 0;
	pg_gpu_status st;

	if ((st = group_smem_limit(&limit, err)) != PG_GPU_OK)
		return st;
	agg->ntext = text_keys(t);
	agg->smem_cap = 0;
	agg->smem_str = 0;
	if (hint <= group_policy::smem_groups_max)
	{
		uint64_t	c = pow2_at_least(2 * (uint64_t) hint);
		size_t		str = agg->ntext > 0 ? group_policy::smem_str_bytes : 0;

		if (c < 64)
			c = 64;
		while (c > 64 && pages + c * entry + str > limit)
			c >>= 1;
		if (pages + c * entry + str <= limit)
		{
			agg->smem_cap = (int) c;
			agg->smem_str = (int) str;
		}
	}
	agg->dyn_smem = pages + (size_t) agg->smem_cap * entry + agg->smem_str;
	static_assert((size_t) group_policy::pages * PG_GPU_BLCKSZ <= group_policy::smem_budget,
				  "a block's pages fit the shared memory limit");
	if (agg->dyn_smem > limit)
		return set_error(err, PG_GPU_CUDA_ERROR, "the device's shared memory per block (%zu bytes "
						 "for the grouping kernel) holds less than a block's pages", limit);
	PG_GPU_TRY(err, cudaFuncSetAttribute(group_rows_kernel<page_chunk>,
										 cudaFuncAttributeMaxDynamicSharedMemorySize, (int) limit));
	PG_GPU_TRY(err, cudaFuncSetAttribute(group_rows_kernel<cc_chunk>,
										 cudaFuncAttributeMaxDynamicSharedMemorySize, (int) limit));
	PG_GPU_TRY(err, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, group_rows_kernel<page_chunk>,
																   group_policy::threads, agg->dyn_smem));
	agg->group_blocks = sms * (per_sm > 0 ? per_sm : 1);

	agg->cap = pow2_at_least(2 * (uint64_t) hint + (uint64_t) hint / 2);
	if (agg->cap < 4096)
		agg->cap = 4096;
	if ((st = device_alloc(agg->cap * entry, (void **) &agg->d_tab, err)) != PG_GPU_OK ||
		(st = device_alloc(2 * sizeof(uint64_t), (void **) &agg->d_inserted, err)) != PG_GPU_OK)
		return st;
	PG_GPU_TRY(err, cudaMemset(agg->d_tab, 0, agg->cap * entry));
	PG_GPU_TRY(err, cudaMemset(agg->d_inserted, 0, 2 * sizeof(uint64_t)));
	return PG_GPU_OK;
}

/*
 * Text keys: make sure the arena block can take the chunk's new groups.  A row's
 * text key reaches the global table at most once (directly, or through a
 * shared-memory entry it created), its bytes lie in one of the chunk's pages, and a
 * copy adds at most 11 bytes of header and padding; a cached row's lie in a
 * column cache cell, less than PG_GPU_CC_TEXT_MAX bytes.  When the bound
 * would pass the block, the real use is read back and, if needed, a new block is
 * started; entries keep pointing into the old ones.
 */
static pg_gpu_status
arena_reserve(gpu_agg *agg, uint64_t tuples, int npages, pg_gpu_error *err)
{
	uint64_t	need = (uint64_t) agg->ntext *
		((uint64_t) npages * PG_GPU_BLCKSZ +
		 tuples * arena_bytes(agg->task.cc ? PG_GPU_CC_TEXT_MAX - 1 : 7));
	uint64_t	used = 0;
	pg_gpu_status st;

	if (agg->ntext == 0)
		return PG_GPU_OK;
	if (agg->nblocks > 0 && agg->arena_bound + need <= agg->arena_cap)
	{
		agg->arena_bound += need;
		return PG_GPU_OK;
	}
	if (agg->nblocks > 0)
	{
		if ((st = sync_slots(agg, err)) != PG_GPU_OK)
			return st;
		PG_GPU_TRY(err, cudaMemcpy(&used, agg->d_inserted + 1, sizeof(used),
								   cudaMemcpyDeviceToHost));
		if (used + need <= agg->arena_cap)
		{
			agg->arena_bound = used + need;
			return PG_GPU_OK;
		}
		agg->blocks[agg->nblocks - 1].used = used;
	}
	if (agg->nblocks == (int) (sizeof(agg->blocks) / sizeof(agg->blocks[0])))
		return set_error(err, PG_GPU_OUT_OF_MEMORY, "too many string arena blocks");

	uint64_t	cap = need * 4 > (64ULL << 20) ? need * 4 : (64ULL << 20);
	arena_block &b = agg->blocks[agg->nblocks];

	if ((st = device_alloc(cap, (void **) &b.d, err)) != PG_GPU_OK)
		return st;
	agg->nblocks++;
	PG_GPU_TRY(err, cudaMemset(agg->d_inserted + 1, 0, sizeof(uint64_t)));
	agg->arena_cap = cap;
	agg->arena_bound = need;
	return PG_GPU_OK;
}

/*
 * Before queueing a chunk of up to `tuples` rows: make sure the global table can
 * take that many new groups at a load of at most one half.  The bound counts every
 * queued row as a possible new group; only when it would pass the limit do we wait
 * for the GPU, read the real group count, and enlarge the table if needed.
 */
static pg_gpu_status
table_reserve(gpu_agg *agg, uint64_t tuples, pg_gpu_error *err)
{
	/* a proven bound on the groups (the task's groups_max) caps the bound */
	const uint64_t most = agg->task.groups_max > 0 ? (uint64_t) agg->task.groups_max : UINT64_MAX;
	uint64_t	next;
	pg_gpu_status st;

	if (tuples > most)
		tuples = most;
	next = agg->bound + tuples < most ? agg->bound + tuples : most;
	if (next <= agg->cap / 2)
	{
		agg->bound = next;
		return PG_GPU_OK;
	}
	if ((st = sync_slots(agg, err)) != PG_GPU_OK)
		return st;
	uint64_t	groups = 0;

	PG_GPU_TRY(err, cudaMemcpy(&groups, agg->d_inserted, sizeof(groups), cudaMemcpyDeviceToHost));
	agg->bound = groups + tuples < most ? groups + tuples : most;
	if (agg->bound <= agg->cap / 2)
		return PG_GPU_OK;

	size_t		entry = sizeof(uint64_t) * agg->layout.words;
	uint64_t	cap = pow2_at_least(4 * agg->bound);
	uint64_t   *tab = nullptr;

	if ((st = device_alloc(cap * entry, (void **) &tab, err)) != PG_GPU_OK)
		return st;
	PG_GPU_TRY(err, cudaMemset(tab, 0, cap * entry));
	group_rehash_kernel<<<agg->max_blocks, grid_policy::threads, 0, agg->main_stream>>>(
		agg->d_tab, agg->cap, tab, cap - 1, agg->layout.words, agg->task.nkeys);
	PG_GPU_TRY(err, cudaGetLastError());
	/* the slots are idle (above): the rehash on the main stream is the last reader */
	PG_GPU_TRY(err, cudaStreamSynchronize(agg->main_stream));
	device_free(agg->d_tab);
	agg->d_tab = tab;
	agg->cap = cap;
	agg->grows++;
	return PG_GPU_OK;
}

/* Before queueing a chunk: room in the table and, for text keys, in the arena. */
static pg_gpu_status
group_reserve(gpu_agg *agg, uint64_t tuples, int npages, pg_gpu_error *err)
{
	pg_gpu_status st;

	if ((st = table_reserve(agg, tuples, err)) != PG_GPU_OK)
		return st;
	return arena_reserve(agg, tuples, npages, err);
}

static void
group_pages_async(gpu_agg *agg, chunk_slot &s, const page_chunk &c, cudaStream_t stream)
{
	int			steps = (c.npages + group_policy::pages - 1) / group_policy::pages;
	int			blocks = steps < agg->group_blocks ? steps : agg->group_blocks;
	str_arena	ar = {nullptr, agg->d_inserted + 1, 0};

	if (agg->nblocks > 0)
	{
		ar.base = agg->blocks[agg->nblocks - 1].d;
		ar.cap = agg->arena_cap;
	}
	group_rows_kernel<<<blocks, group_policy::threads, agg->dyn_smem, stream>>>(
		c, agg->task, agg->d_tab, agg->cap - 1, agg->d_inserted, ar, agg->smem_cap,
		agg->smem_str, s.d_rows, s.d_err);
}

static void
group_ranges_async(gpu_agg *agg, chunk_slot &s, const cc_chunk &c, uint64_t rows,
				   cudaStream_t stream)
{
	uint64_t	want = (rows + group_policy::threads - 1) / group_policy::threads;
	int			blocks = want < (uint64_t) agg->group_blocks ? (int) want : agg->group_blocks;
	str_arena	ar = {nullptr, agg->d_inserted + 1, 0};

	if (agg->nblocks > 0)
	{
		ar.base = agg->blocks[agg->nblocks - 1].d;
		ar.cap = agg->arena_cap;
	}
	group_rows_kernel<<<blocks, group_policy::threads, agg->dyn_smem, stream>>>(
		c, agg->task, agg->d_tab, agg->cap - 1, agg->d_inserted, ar, agg->smem_cap,
		agg->smem_str, s.d_rows, s.d_err);
}

/* The task's seeded groups: every key of its seed set, after the rows' groups. */
static pg_gpu_status
group_seed(gpu_agg *agg, pg_gpu_error *err)
{
	const pg_gpu_set_ref &s = agg->task.sets[agg->task.seed_set - 1];
	int		   *d_err = nullptr;
	int			kerr = 0;
	pg_gpu_status st;

	if ((st = table_reserve(agg, (uint64_t) agg->task.seed_n, err)) != PG_GPU_OK ||
		(st = device_alloc(sizeof(int), (void **) &d_err, err)) != PG_GPU_OK)
		return st;
	cudaError_t rc = cudaMemset(d_err, 0, sizeof(int));

	if (rc == cudaSuccess)
	{
		group_seed_kernel<<<agg->max_blocks, grid_policy::threads, 0, agg->main_stream>>>(
			(const uint64_t *) (uintptr_t) s.tab, s.mask + 1, (const int64_t *) (uintptr_t) s.vals,
			agg->d_tab, agg->cap - 1, agg->task, agg->layout, agg->d_inserted, d_err);
		if ((rc = cudaGetLastError()) == cudaSuccess)
			rc = cudaMemcpy(&kerr, d_err, sizeof(int), cudaMemcpyDeviceToHost);
	}
	device_free(d_err);
	if (rc != cudaSuccess)
		return from_cuda(err, rc, "group_seed_kernel");
	if (kerr != 0)
		return set_error(err, PG_GPU_INVALID_TASK, "the GPU hash table overflowed");
	return PG_GPU_OK;
}

/* Grouped: copy the table's groups, densely, to host memory. */
static pg_gpu_status
group_collect(gpu_agg *agg, pg_gpu_agg_result *res, pg_gpu_error *err)
{
	size_t		entry = sizeof(uint64_t) * agg->layout.words;
	uint64_t	groups = 0;
	uint64_t   *d_out = nullptr;
	unsigned long long *d_pos = nullptr;
	pg_gpu_status st;

	if (agg->task.seed_set > 0 && (st = group_seed(agg, err)) != PG_GPU_OK)
		return st;
	PG_GPU_TRY(err, cudaMemcpy(&groups, agg->d_inserted, sizeof(groups), cudaMemcpyDeviceToHost));
	agg->ngroups = (int64_t) groups;
	res->ngroups = agg->ngroups;
	res->grows = agg->grows;
	if (groups == 0)
		return PG_GPU_OK;
	if ((st = device_alloc(groups * entry, (void **) &d_out, err)) != PG_GPU_OK)
		return st;
	if ((st = device_alloc(sizeof(unsigned long long), (void **) &d_pos, err)) != PG_GPU_OK ||
		(st = pinned_alloc(groups * entry, (void **) &agg->h_groups, err)) != PG_GPU_OK)
	{
		device_free(d_out);
		device_free(d_pos);
		return st;
	}
	cudaMemset(d_pos, 0, sizeof(unsigned long long));
	group_compact_kernel<<<agg->max_blocks, grid_policy::threads, 0, agg->main_stream>>>(
		agg->d_tab, agg->cap, agg->layout.words, d_out, d_pos, agg->task, agg->layout);
	if (agg->task.nhaving > 0)
	{
		unsigned long long kept = 0;
		cudaError_t krc = cudaGetLastError();

		if (krc == cudaSuccess)
			krc = cudaMemcpy(&kept, d_pos, sizeof(kept), cudaMemcpyDeviceToHost);

		if (krc != cudaSuccess)
		{
			device_free(d_out);
			device_free(d_pos);
			return from_cuda(err, krc, "cudaMemcpy kept groups");
		}
		res->groups_dropped = (int64_t) (groups - kept);
		groups = kept;
		agg->ngroups = res->ngroups = (int64_t) groups;
	}
	cudaError_t rc = groups == 0 ? cudaSuccess :
		cudaMemcpy(agg->h_groups, d_out, groups * entry, cudaMemcpyDeviceToHost);

	device_free(d_out);
	device_free(d_pos);
	if (rc != cudaSuccess)
		return from_cuda(err, rc, "cudaMemcpy groups");
	res->group_flags = groups_flags(agg->h_groups, (int64_t) groups, agg->task, agg->layout);

	/* text keys: the arena's bytes, for pg_gpu_agg_group to hand out */
	if (agg->nblocks > 0)
		PG_GPU_TRY(err, cudaMemcpy(&agg->blocks[agg->nblocks - 1].used, agg->d_inserted + 1,
								   sizeof(uint64_t), cudaMemcpyDeviceToHost));
	for (int i = 0; i < agg->nblocks; i++)
	{
		arena_block &b = agg->blocks[i];

		if (b.used == 0)
			continue;
		if ((st = pinned_alloc(b.used, (void **) &b.h, err)) != PG_GPU_OK)
			return st;
		PG_GPU_TRY(err, cudaMemcpy(b.h, b.d, b.used, cudaMemcpyDeviceToHost));
	}
	return PG_GPU_OK;
}

/* Group g of a finished task (pg_gpu_agg_group). */
void
group_decode_keys(gpu_agg *agg, int64_t g, uint64_t *keys, uint32_t *nullmask,
				  int64_t *rows, pg_gpu_col_state *states)
{
	group_decode(agg->h_groups + (size_t) g * agg->layout.words, agg->task, agg->layout,
				 keys, nullmask, rows, states);
	/* text keys: device arena address to the host copy */
	for (int k = 0; agg->ntext > 0 && k < agg->task.nkeys; k++)
	{
		if (!is_text_type(agg->task.keys[k].type) || ((*nullmask >> k) & 1))
			continue;
		for (int i = 0; i < agg->nblocks; i++)
		{
			const arena_block &b = agg->blocks[i];
			uint64_t	d = (uint64_t) (uintptr_t) b.d;

			if (keys[k] >= d && keys[k] < d + b.used)
			{
				keys[k] = (uint64_t) (uintptr_t) (b.h + (keys[k] - d));
				break;
			}
		}
	}
}

const task_operator group_operator = {group_setup, nullptr, group_reserve, group_pages_async,
	group_collect, group_ranges_async};

}							/* namespace cuda */
}							/* namespace pg_gpu */
