/*
 * policy.cuh — every kernel's launch shape, in one place (CUB's policy types).
 *
 * Every launch takes its block size from here, so a block size is changed here
 * or nowhere.  The page kernels (and the reduction) also name it in
 * __launch_bounds__, and tile an 8 kB page over page_policy::threads threads
 * with 16-byte loads; the grid-stride kernels leave their registers to the
 * compiler, as they always have.
 */
#ifndef PG_GPU_POLICY_CUH
#define PG_GPU_POLICY_CUH

#ifdef PG_VERSION_NUM
#error "cuda/ headers must not be compiled together with PostgreSQL headers"
#endif

#include <stddef.h>
#include <stdint.h>

#include "pg_gpu_layout.h"

namespace pg_gpu {
namespace cuda {

/* Kernels that walk heap pages: one page per block (agg, collect, sort, cache fill). */
struct page_policy
{
	static constexpr int threads = 128;
	static constexpr int blocks_per_sm = 8;	/* grid: SMs x this, at most one per page */
};

static_assert(PG_GPU_BLCKSZ % (16 * page_policy::threads) == 0, "page load must tile the block");

/* GROUP BY: page_policy::threads-thread groups, one page each, and a shared table. */
struct group_policy
{
	static constexpr int threads = 512;
	static constexpr int pages = threads / page_policy::threads;	/* pages per block step */
	/*
	 * Dynamic shared memory for a block's pages and table, at most; also the
	 * kernels' limit (cudaFuncSetAttribute), one value for every task, since the
	 * limit is the function's for the whole process (group.cu, group_smem_limit).
	 */
	static constexpr size_t smem_budget = 200 * 1024;
	static constexpr int64_t smem_groups_max = 4096;	/* above this, no per-block tables */
	static constexpr size_t smem_str_bytes = 48 * 1024;	/* text keys of a per-block table */
};

/* Grid-stride kernels over arrays (rehash, compaction, sort helpers, top-N select). */
struct grid_policy
{
	static constexpr int threads = 256;
	static constexpr int max_blocks = 65535;	/* where the grid follows the element count */
};

/* Top-N: select first when LIMIT m <= n / topn_fraction; 8-bit radix digits. */
struct select_policy
{
	static constexpr int threads = grid_policy::threads;
	static constexpr int digit_bits = 8;
	static constexpr int buckets = 1 << digit_bits;
	static constexpr uint64_t topn_fraction = 8;
};

/* gpu_* aggregates' final reduction */
struct reduce_policy
{
	static constexpr int threads = 256;
	static constexpr int blocks_per_sm = 8;
};

}							/* namespace cuda */
}							/* namespace pg_gpu */

#endif							/* PG_GPU_POLICY_CUH */
