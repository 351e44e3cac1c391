/*
 * sort_merge.h — sorted runs and the k-way merge plan of an out-of-core GpuSort,
 * host side, shared by the engine and its host emulation.
 *
 * A sort whose input does not fit its device memory budget is cut into runs: each
 * run is sorted on the device and copied to host memory with its tuples, offsets,
 * references and sort words.  The runs are then merged in blocks: plan() picks,
 * for every run, how many of its next rows belong to the next block (every row of
 * the block precedes every row left), and the block's rows, concatenated in run
 * order, are sorted again with the same stable passes, which is their merge.  Rows
 * with equal words keep run order, so the merge is the order (key, run, position).
 * Text keys longer than their sort prefix are not merged (the engine gives such
 * sorts back to PostgreSQL): their words alone may not order them.
 */
#ifndef PG_GPU_SORT_MERGE_H
#define PG_GPU_SORT_MERGE_H

#include <memory>
#include <utility>
#include <vector>

#include "sort/sort.cuh"

namespace pg_gpu {
namespace cuda {

/*
 * A vector whose resize() leaves new elements uninitialised: a run's gigabytes are
 * written by copies from the device, so zeroing them first would only cost time.
 */
template <typename T>
struct uninit_alloc : std::allocator<T>
{
	template <typename U>
	struct rebind
	{
		using other = uninit_alloc<U>;
	};
	uninit_alloc() = default;
	template <typename U>
	uninit_alloc(const uninit_alloc<U> &) {}
	template <typename U, typename... A>
	void		construct(U *p, A &&...a)
	{
		if constexpr (sizeof...(A) == 0)
			::new ((void *) p) U;
		else
			::new ((void *) p) U(std::forward<A>(a)...);
	}
};

template <typename T>
using raw_vector = std::vector<T, uninit_alloc<T>>;

struct sort_run
{
	uint64_t	n = 0;
	raw_vector<char> tuples;	/* sorted, each MAXALIGNed */
	raw_vector<uint64_t> off;	/* n + 1, into tuples */
	raw_vector<uint64_t> ref;	/* n */
	raw_vector<uint64_t> words;	/* word w of row i at words[w * n + i] */
};

struct sort_merge
{
	std::vector<sort_run> runs;
	std::vector<uint64_t> cur;	/* next row of each run */
	sort_pass	passes[kMaxSortPasses];
	int			npasses = 0;

	uint64_t	word(int r, uint64_t i, int w) const
	{
		return runs[r].words[(size_t) w * runs[r].n + i];
	}

	/* Order of (run a, row i) and (run b, row j): the keys, then run, then row. */
	bool		less(int a, uint64_t i, int b, uint64_t j) const
	{
		for (int p = npasses - 1; p >= 0; p--)
		{
			uint64_t	x = pass_bits(word(a, i, passes[p].w), passes[p]);
			uint64_t	y = pass_bits(word(b, j, passes[p].w), passes[p]);

			if (x != y)
				return x < y;
		}
		return a != b ? a < b : i < j;
	}

	/*
	 * Ready the merge of every run, given what their rows showed, with at most
	 * max_runs runs.  *nsorted: the rows to hand out (LIMIT applied).  Otherwise
	 * the status why not, *why its message.
	 */
	pg_gpu_status start(const pg_gpu_agg_task &t, const sort_stats &seen, uint64_t max_runs,
						uint64_t *nsorted, const char **why)
	{
		if (seen.longs)
		{
			*why = "sort keys longer than the prefix the GPU sorts are not merged on the GPU";
			return PG_GPU_UNORDERED;
		}
		if (runs.size() > max_runs)
		{
			*why = "too many sorted runs to merge";
			return PG_GPU_OUT_OF_MEMORY;
		}
		cur.assign(runs.size(), 0);
		npasses = sort_passes(t, seen.nulls, seen.longs, seen.maxlen, passes);
		*nsorted = 0;
		for (const sort_run &r : runs)
			*nsorted += r.n;
		if (t.sort_limit > 0 && (uint64_t) t.sort_limit < *nsorted)
			*nsorted = (uint64_t) t.sort_limit;
		return PG_GPU_OK;
	}

	/*
	 * The next block: take[r] rows of run r from cur[r], at most row_cap rows and
	 * byte_cap bytes of tuples in all.  Returns the block's rows (0: merged).
	 */
	uint64_t	plan(uint64_t row_cap, uint64_t byte_cap, std::vector<uint64_t> &take)
	{
		int			k = (int) runs.size();
		int			active = 0;
		std::vector<uint64_t> step(k, 0);
		int			pr = -1;	/* pivot: the least candidate (run pr, row pi) */
		uint64_t	pi = 0;
		uint64_t	total = 0;

		take.assign(k, 0);
		for (int r = 0; r < k; r++)
			active += cur[r] < runs[r].n;
		if (active == 0)
			return 0;
		for (int r = 0; r < k; r++)
		{
			const sort_run &R = runs[r];
			uint64_t	rem = R.n - cur[r];
			uint64_t	s = row_cap / active;

			if (rem == 0)
				continue;
			s = s < 1 ? 1 : s > rem ? rem : s;
			while (s > 1 && R.off[cur[r] + s] - R.off[cur[r]] > byte_cap / active)
				s /= 2;
			step[r] = s;
			if (s < rem && (pr < 0 || less(r, cur[r] + s, pr, pi)))
			{
				pr = r;
				pi = cur[r] + s;
			}
		}
		for (int r = 0; r < k; r++)
		{
			if (pr < 0 || step[r] == 0)
				take[r] = step[r];	/* every run ends within its step */
			else
			{
				/* rows of run r before the pivot: at most step[r] of them */
				uint64_t	lo = cur[r],
							hi = cur[r] + step[r];

				while (lo < hi)
				{
					uint64_t	mid = lo + (hi - lo) / 2;

					if (less(r, mid, pr, pi))
						lo = mid + 1;
					else
						hi = mid;
				}
				take[r] = lo - cur[r];
			}
			total += take[r];
		}

		return total;
	}
};

}							/* namespace cuda */
}							/* namespace pg_gpu */

#endif							/* PG_GPU_SORT_MERGE_H */
