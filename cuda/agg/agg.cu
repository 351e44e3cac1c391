/*
 * agg.cu — plain aggregation (no GROUP BY): heap pages in, exact per-column
 * states out.
 *
 * Each block takes one page at a time (scan/page_walk.cuh); each thread deforms
 * line pointers tid, tid + T, ... and folds values into its private states
 * (agg_state.cuh).  At the end the block's states merge up a shared-memory tree
 * (block_merge.cuh) into a per-slot partial; the ring (engine/task.cu) merges the
 * partials of all slots on the host in a fixed order.
 */
#include "agg/block_merge.cuh"
#include "engine/task.cuh"

namespace pg_gpu {
namespace cuda {

__global__ void
init_partials_kernel(pg_gpu_col_state *partials, int n, unsigned long long *rows,
					 int *err)
{
	int			i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		state_init(partials[i], 0);
	if (i == 0)
	{
		*rows = 0;
		*err = 0;
	}
}

template <typename Src>
__global__ void __launch_bounds__(page_policy::threads)
agg_rows_kernel(const Src chunk, const __grid_constant__ pg_gpu_agg_task task,
				pg_gpu_col_state *partials, unsigned long long *rows, int *err)
{
	constexpr int T = page_policy::threads;
	__shared__ uint4 page[PG_GPU_BLCKSZ / 16];
	__shared__ pg_gpu_col_state red[T];
	pg_gpu_col_state st[PG_GPU_MAX_AGG_COLS];
	unsigned long long nrows = 0;
	const int	tid = threadIdx.x;

	for (int c = 0; c < task.ninputs; c++)
		state_init(st[c], task.inputs[c].type);

	walk_rows<T, 1>(chunk, page, err, [&](const auto &row) {
		int			r = accum_row(row, task, st);

		if (r < 0)
		{
			atomicCAS(err, 0, tup_status(r));
			return;
		}
		nrows += r;
	});

	if (nrows)
		atomicAdd(rows, nrows);

	/* merge thread states column by column */
	for (int c = 0; c < task.ninputs; c++)
	{
		int			t = task.inputs[c].type;

		block_merge_states<T>(red, st[c], t, tid);
		if (tid == 0)
			state_merge(partials[blockIdx.x * task.ninputs + c], red[0], t);
		__syncthreads();
	}
}

/* A slot's partials (n states) and counters zeroed, on its stream. */
void
agg_partials_init_async(chunk_slot &s, int n, cudaStream_t stream)
{
	constexpr int T = grid_policy::threads;

	init_partials_kernel<<<(n + T - 1) / T + 1, T, 0, stream>>>(s.d_partials, n, s.d_rows,
																 s.d_err);
}

static void
agg_pages_async(gpu_agg *agg, chunk_slot &s, const page_chunk &c, cudaStream_t stream)
{
	int			blocks = c.npages < agg->max_blocks ? c.npages : agg->max_blocks;

	agg_rows_kernel<<<blocks, page_policy::threads, 0, stream>>>(c, agg->task, s.d_partials,
																 s.d_rows, s.d_err);
}

static void
agg_ranges_async(gpu_agg *agg, chunk_slot &s, const cc_chunk &c, uint64_t rows,
				 cudaStream_t stream)
{
	uint64_t	want = (rows + page_policy::threads - 1) / page_policy::threads;
	int			blocks = want < (uint64_t) agg->max_blocks ? (int) want : agg->max_blocks;

	agg_rows_kernel<<<blocks, page_policy::threads, 0, stream>>>(c, agg->task, s.d_partials,
																 s.d_rows, s.d_err);
}

/* Plain: the ring merges the partials itself (task.cu's finish). */
const task_operator agg_operator = {nullptr, nullptr, nullptr, agg_pages_async, nullptr,
									agg_ranges_async};

}							/* namespace cuda */
}							/* namespace pg_gpu */
