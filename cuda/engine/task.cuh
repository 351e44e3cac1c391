/*
 * task.cuh — one GpuAgg/GpuSort/collect task on the GPU: its state, shared by the
 * task ring (engine/task.cu) and the operators' files.
 *
 * The caller streams a table through a ring of PG_GPU_AGG_SLOTS chunk slots.  Each
 * chunk is a list of page references (plus visibility bitmaps for pages that are
 * not all-visible).  In registered mode a reference is the device address of a
 * page in PostgreSQL's shared buffer pool, registered once with cudaHostRegister,
 * and the kernel reads it in place over PCIe; in gather mode the caller has copied
 * the pages into the slot's pinned staging buffer and we copy that to the device
 * first.  Each slot has its own non-blocking stream, so while the GPU works on
 * chunk k the CPU is already pinning the pages of chunk k+1.
 *
 * A task is one of four kinds, fixed at begin: plain aggregation (agg/), GROUP BY
 * (group/), ORDER BY (sort/) or collecting keys for a key set (keyset/collect.cu).
 * task.cu owns the ring and hands each chunk to its operator through the
 * operator's table (task_operator, chosen at begin): a reserve step on the host
 * (grow a table, close a sort run) and a launch on the slot's stream.
 * Steps that wait for the GPU (reserve, finish) run on main_stream, the thread's
 * default stream, whose implicit ordering they rely on (engine_internal.cuh).
 */
#ifndef PG_GPU_TASK_CUH
#define PG_GPU_TASK_CUH

#include <utility>
#include <vector>

#include "engine/agg_api.h"
#include "engine/engine_internal.cuh"
#include "engine/policy.cuh"
#include "group/group.cuh"
#include "scan/page_walk.cuh"
#include "sort/sort.cuh"
#include "sort/sort_merge.h"

namespace pg_gpu {
namespace cuda {

/* One slot of the ring: its stream, the chunk's buffers, its counters. */
struct chunk_slot
{
	cudaStream_t stream = nullptr;
	cudaEvent_t done = nullptr;
	bool		busy = false;
	pg_gpu_page_ref *h_refs = nullptr;
	uint32_t   *h_vis = nullptr;
	char	   *h_staging = nullptr;
	pg_gpu_page_ref *d_refs = nullptr;
	uint32_t   *d_vis = nullptr;
	char	   *d_pages = nullptr;
	pg_gpu_col_state *d_partials = nullptr;		/* max_blocks * ncols */
	/* task.cc: the chunk's cache part (pg_gpu_agg_slot.cc) and its copies */
	pg_gpu_cc_chunk cc = {};
	pg_gpu_cc_range *h_ranges = nullptr;	/* pinned, PG_GPU_CC_MAX_RANGES + 1 */
	uint64_t   *h_fill_row = nullptr;	/* pinned, capacity */
	pg_gpu_cc_range *d_ranges = nullptr;
	uint64_t   *h_first = nullptr;	/* pinned: cc_chunk.first, then copied */
	uint64_t   *d_first = nullptr;
	uint64_t   *d_fill_row = nullptr;
	unsigned long long *d_rows = nullptr;
	int		   *d_err = nullptr;
};


/*
 * Where a collect task's keys go: integers to vals; text bytes to the arena,
 * with each key's arena offset (src) and length (len); a task with an aux
 * value (nkeys 2) its value to aux, beside its key; a task with a payload
 * (collect_pay) its words to pay and pay_null, beside its key.  count: [0] keys, [1]
 * arena bytes handed out, [2] 1 once a NULL key was met.
 */
struct collect_out
{
	int64_t    *vals;
	int64_t    *aux;
	uint64_t   *pay;			/* collect_pay words a key, row after row */
	uint8_t    *pay_null;		/* ... and a byte each, 1: NULL */
	uint64_t   *src;
	uint64_t   *len;
	uint8_t    *arena;
	uint64_t	cap;			/* keys */
	uint64_t	bytes;			/* arena */
	unsigned long long *count;
};

/* Where the sort kernels put rows: per sort word arrays, row references. */
struct sort_arrays
{
	uint64_t   *w[kMaxSortWords];
	uint64_t   *ref;
	sort_stats *stats;
	uint64_t	cap;
};

/* One block of the string arena: blocks never move, entries point into them. */
struct arena_block
{
	uint8_t    *d = nullptr;	/* device */
	uint64_t	used = 0;		/* bytes handed out (final once the block is left) */
	uint8_t    *h = nullptr;	/* pinned host copy, after finish */
};

struct task_operator;

struct gpu_agg : pg_gpu_agg
{
	const task_operator *op = nullptr;	/* the task's kind, fixed at begin */
	/*
	 * The synchronous steps' stream: the thread's default stream, and only
	 * that.  Those steps mix launches on it with blocking
	 * cudaMemset/cudaMemcpy and device_free, and rely on its ordering with
	 * them (engine_internal.cuh); a stream of their own would need explicit
	 * synchronisation at each such step.
	 */
	static constexpr cudaStream_t main_stream = thread_stream;
	pg_gpu_agg_task task;
	int			capacity = 0;
	int			max_blocks = 0;
	chunk_slot	slots[PG_GPU_AGG_SLOTS];
	bool		started = false;
	cudaEvent_t first_start = nullptr;
	cudaEvent_t last_done = nullptr;
	cudaEvent_t reserved = nullptr;	/* main_stream after a chunk's reserve step */
	uint64_t	bytes = 0;
	int64_t		chunks = 0;
	int64_t		pages = 0;

	/* GROUP BY */
	bool		grouped = false;
	group_layout layout;
	uint64_t   *d_tab = nullptr;
	uint64_t	cap = 0;		/* entries, a power of two */
	uint64_t   *d_inserted = nullptr;	/* [0] groups in the global table,
										 * [1] bytes handed out of the arena block */
	uint64_t	bound = 0;		/* upper bound of groups once queued work is done */
	int			ntext = 0;		/* text keys */
	arena_block blocks[64];
	int			nblocks = 0;
	uint64_t	arena_cap = 0;	/* current block (blocks[nblocks - 1]) */
	uint64_t	arena_bound = 0;	/* upper bound of its bytes once queued work is done */
	int			smem_cap = 0;
	int			smem_str = 0;	/* bytes of text keys per shared-memory table */
	size_t		dyn_smem = 0;
	int			group_blocks = 0;
	int			grows = 0;
	uint64_t   *h_groups = nullptr;	/* after finish: ngroups dense entries */
	int64_t		ngroups = 0;

	/* ORDER BY */
	bool		sorting = false;
	bool		plain = false;	/* neither grouped nor sorting: per-block partials */
	sort_shape	shape = {};
	sort_arrays sa = {};		/* the current run's rows */
	int			nwords = 0;		/* sort words a row */
	uint64_t	sort_bound = 0;	/* rows once queued work is done, at most */
	uint64_t	sort_rep = 1;	/* times a passing row may be handed out */
	uint4	   *d_store = nullptr;	/* the current run's pages */
	int64_t		store_pages = 0;
	int64_t		run_page0 = 0;	/* global ordinal of the run's first page */
	sort_stats	seen = {};		/* every run's, merged */
	sort_merge	merge;			/* runs closed (sorted, copied to the host) */
	std::vector<std::pair<void *, uint64_t>> run_registered;	/* run buffers registered
															 * with CUDA, and their bytes */
	uint64_t	topn_rows = 0;	/* rows kept by top-N selections */
	uint64_t	run_registered_bytes = 0;
	/* after finish: a single run stays on the device, sorted */
	uint64_t   *d_sref = nullptr;	/* sorted references */
	uint64_t   *d_soff = nullptr;	/* their tuples' offsets (nsorted + 1) */
	std::vector<uint64_t> h_samp;	/* d_soff at every samp_step-th row */
	uint64_t	samp_step = 0;
	uint64_t	nsorted = 0;	/* rows to hand out */
	uint64_t	next_row = 0;	/* first row not yet in a batch */
	/* output batches, two so that one fills while the executor reads the other */
	struct out_buf
	{
		char	   *d = nullptr;
		char	   *h = nullptr;	/* pinned */
		uint64_t   *h_off = nullptr;	/* pinned: batch_rows + 1 */
		uint64_t   *h_ref = nullptr;
		int64_t		nrows = 0;
		cudaEvent_t ready = nullptr;
	}			out[2];
	int			out_cur = -1;	/* the batch the executor has; -1: none yet */
	cudaStream_t out_stream = nullptr;
	/* a merge block on the device */
	uint64_t   *blk_w[kMaxSortWords] = {};
	uint64_t   *blk_ref = nullptr;
	uint64_t   *blk_src = nullptr;	/* row's bytes in blk_tup */
	char	   *blk_tup = nullptr;
	uint64_t   *blk_oref = nullptr;	/* sorted: references */
	uint64_t   *blk_osrc = nullptr;	/* sorted: bytes */
	uint64_t   *blk_size = nullptr;
	uint64_t   *blk_off = nullptr;
	int		   *d_flag = nullptr;	/* unresolved neighbours */

	/* collect: keys of passing rows (collect_out's arrays), grown as needed */
	bool		collecting = false;
	collect_out co = {};
	uint64_t	co_bound = 0;	/* keys once queued work is done, at most */
	uint64_t	co_bbound = 0;	/* arena bytes, likewise */
	uint64_t	co_keys = 0;	/* after finish: keys, and their bytes */
	uint64_t	co_used = 0;
	int			co_null = 0;
};


/* ---- the operators' halves, called by the ring (task.cu) ------------------ */

/*
 * One table per kind of task, each in its operator's file: setup before the
 * chunk size is fixed, setup once it is, the host's reserve step before each
 * chunk (tuples: its line pointers, a bound of its rows; 0 for a plain task),
 * the chunk's kernel on the slot's stream, and the result collected after the
 * scan.  Null: nothing to do.
 */
struct task_operator
{
	pg_gpu_status (*setup) (gpu_agg *agg, int sms, pg_gpu_error *err);
	pg_gpu_status (*setup_sized) (gpu_agg *agg, pg_gpu_error *err);
	pg_gpu_status (*reserve) (gpu_agg *agg, uint64_t tuples, int npages, pg_gpu_error *err);
	void		(*launch) (gpu_agg *agg, chunk_slot &s, const page_chunk &c, cudaStream_t stream);
	pg_gpu_status (*finish) (gpu_agg *agg, pg_gpu_agg_result *res, pg_gpu_error *err);
	/* cached rows (task.cc: plain and grouped tasks), rows of them at most */
	void		(*launch_ranges) (gpu_agg *agg, chunk_slot &s, const cc_chunk &c, uint64_t rows,
								  cudaStream_t stream);
};

extern const task_operator agg_operator;	/* agg/agg.cu */
extern const task_operator group_operator;	/* group/group.cu */
extern const task_operator sort_operator;	/* sort/sort_scan.cu */
extern const task_operator collect_operator;	/* keyset/collect.cu */

/* Wait for every queued chunk. */
pg_gpu_status sync_slots(gpu_agg *agg, pg_gpu_error *err);

/* agg/agg.cu: a slot's per-block partials (plain tasks) and counters zeroed */
void		agg_partials_init_async(chunk_slot &s, int n, cudaStream_t stream);

/* scan/cache_fill.cu: a table cache being filled takes the chunk's pages */
void		cache_fill_async(gpu_agg *agg, chunk_slot &s, int npages, const char *staging,
							 cudaStream_t stream);

/* scan/page_stage.cu: a registered chunk's first npages pages copied to s.d_pages */
void		page_stage_async(gpu_agg *agg, chunk_slot &s, int npages, cudaStream_t stream);

/* scan/cc_fill.cu: the chunk's pages c deformed into the segment cc.fill_seg */
void		cc_fill_async(gpu_agg *agg, chunk_slot &s, const page_chunk &c,
						  const pg_gpu_cc_chunk &cc, cudaStream_t stream);

/* group/group.cu: group g of a finished task (pg_gpu_agg_group) */
void		group_decode_keys(gpu_agg *agg, int64_t g, uint64_t *keys, uint32_t *nullmask,
							  int64_t *rows, pg_gpu_col_state *states);

/* keyset/collect.cu: a finished collect task's keys as a key set (pg_gpu_agg_keyset) */
pg_gpu_keyset *collect_keyset(gpu_agg *agg, int type, uint64_t *keys, int *has_null,
							  pg_gpu_error *err);

/* sort/sort_runs.cu */
pg_gpu_status sort_run_close(gpu_agg *agg, bool last, pg_gpu_error *err);
pg_gpu_status sort_finish(gpu_agg *agg, pg_gpu_agg_result *res, pg_gpu_error *err);
pg_gpu_status sort_next_batch(gpu_agg *agg, pg_gpu_sort_batch *out, pg_gpu_error *err);
void		unregister_since(gpu_agg *agg, size_t nreg);

}							/* namespace cuda */
}							/* namespace pg_gpu */

#endif							/* PG_GPU_TASK_CUH */
