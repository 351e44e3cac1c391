/*
 * host_sort.h — the GPU's sort passes on the CPU (the emulation's runs and merge
 * blocks, and the emulated key sort): the same passes over the same words, each a
 * stable sort, so ties keep their order as on the GPU.
 */
#ifndef PG_GPU_HOST_SORT_H
#define PG_GPU_HOST_SORT_H

#include <algorithm>
#include <vector>

#include "sort/sort.cuh"

namespace pg_gpu {
namespace cuda {

/* The GPU's passes, with stable sorts: word(i, w) is row i's word w. */
template <typename W>
inline std::vector<uint32_t>
host_sort_perm(uint64_t n, const sort_pass *ps, int np, W word)
{
	std::vector<uint32_t> idx(n);

	for (uint64_t i = 0; i < n; i++)
		idx[i] = (uint32_t) i;
	for (int p = 0; p < np; p++)
		std::stable_sort(idx.begin(), idx.end(), [&](uint32_t a, uint32_t b) {
			return pass_bits(word(a, ps[p].w), ps[p]) < pass_bits(word(b, ps[p].w), ps[p]);
		});
	return idx;
}

/* Whether two neighbours in idx cannot be ordered by their words (sort_unresolved). */
template <typename W>
inline bool
host_unordered(const pg_gpu_agg_task &t, const std::vector<uint32_t> &idx, W word)
{
	for (size_t i = 1; i < idx.size(); i++)
		if (sort_unresolved(t, [&](int w) { return word(idx[i - 1], w); },
							[&](int w) { return word(idx[i], w); }))
			return true;
	return false;
}

}							/* namespace cuda */
}							/* namespace pg_gpu */

#endif							/* PG_GPU_HOST_SORT_H */
