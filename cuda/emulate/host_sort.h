/*
 * host_sort.h — the GPU's sort passes on the CPU (the emulation's runs and merge
 * blocks, and the emulated key sort): the same passes over the same words, each a
 * stable sort, so ties keep their order as on the GPU.
 *
 * Each pass is a least-significant-digit radix sort of its bits, as CUB's is on
 * the GPU: stable, so the result is exactly a stable sort's.  It works in slices
 * of rows and asks the caller's cancel callback between them (engine/error.h): a
 * cancel ends even a sort of millions of rows within milliseconds, where one
 * std::stable_sort ran for seconds without a pause.
 */
#ifndef PG_GPU_HOST_SORT_H
#define PG_GPU_HOST_SORT_H

#include <algorithm>
#include <memory>
#include <vector>

#include "engine/error.h"
#include "sort/sort.cuh"

namespace pg_gpu {
namespace cuda {

constexpr int kHostDigitBits = 11;
constexpr int kHostDigits = 1 << kHostDigitBits;

/*
 * The radix passes' buffers, the caller's: kept for its next sort, and given
 * back when the caller ends (not while a cancelled sort returns).  Not zeroed.
 */
struct host_sort_scratch
{
	std::unique_ptr<uint64_t[]> key,
				key2;
	std::unique_ptr<uint32_t[]> idx2;
	uint64_t	cap = 0;

	void		reserve(uint64_t n)
	{
		if (n <= cap)
			return;
		key.reset();
		key2.reset();
		idx2.reset();
		key.reset(new uint64_t[n]);
		key2.reset(new uint64_t[n]);
		idx2.reset(new uint32_t[n]);
		cap = n;
	}
	uint64_t	bytes() const { return cap * (2 * sizeof(uint64_t) + sizeof(uint32_t)); }
};

/*
 * The GPU's passes, with stable sorts: word(i, w) is row i's word w.  idx gets
 * the rows in order; false when the caller asked to stop (idx then undefined).
 */
template <typename W>
inline bool
host_sort_perm(uint64_t n, const sort_pass *ps, int np, W word, std::vector<uint32_t> &idx,
			   host_sort_scratch &sc)
{
	idx.resize(n);
	if (!cancellable_for(n, [&](uint64_t i) { idx[i] = (uint32_t) i; }))
		return false;
	if (n < 2 || np == 0)
		return true;
	sc.reserve(n);

	uint64_t   *key = sc.key.get(),
			   *key2 = sc.key2.get();
	uint32_t   *cur = idx.data(),
			   *nxt = sc.idx2.get();
	for (int p = 0; p < np; p++)
	{
		const sort_pass &pass = ps[p];
		int			bits = pass.end - pass.begin;
		int			ndig = (bits + kHostDigitBits - 1) / kHostDigitBits;
		std::vector<uint64_t> count((size_t) ndig * kHostDigits, 0);

		/* the pass's bits in the current order, and every digit's histogram */
		if (!cancellable_for(n, [&](uint64_t i) {
			uint64_t	k = pass_bits(word(cur[i], pass.w), pass);

			key[i] = k;
			for (int d = 0; d < ndig; d++)
				count[(size_t) d * kHostDigits + ((k >> (d * kHostDigitBits)) & (kHostDigits - 1))]++;
		}))
			return false;
		for (int d = 0; d < ndig; d++)
		{
			uint64_t   *c = &count[(size_t) d * kHostDigits];
			uint64_t	sum = 0;
			int			shift = d * kHostDigitBits;
			bool		one = false;

			/* a digit every row shares orders nothing */
			for (int b = 0; b < kHostDigits && !one; b++)
				one = c[b] == n;
			if (one)
				continue;
			for (int b = 0; b < kHostDigits; b++)
			{
				uint64_t	k = c[b];

				c[b] = sum;
				sum += k;
			}
			if (!cancellable_for(n, [&](uint64_t i) {
				uint64_t	at = c[(key[i] >> shift) & (kHostDigits - 1)]++;

				key2[at] = key[i];
				nxt[at] = cur[i];
			}))
				return false;
			std::swap(key, key2);
			std::swap(cur, nxt);
		}
	}
	/* the order ends in the scratch's buffer after an odd number of digits */
	if (cur != idx.data() &&
		!cancellable_for(n, [&](uint64_t i) { idx[i] = cur[i]; }))
		return false;
	return true;
}

/*
 * Whether two neighbours in idx cannot be ordered by their words
 * (sort_unresolved): 1 when some cannot, 0 when all can, -1 when the caller
 * asked to stop.
 */
template <typename W>
inline int
host_unordered(const pg_gpu_agg_task &t, const std::vector<uint32_t> &idx, W word)
{
	bool		found = false;

	if (idx.size() < 2)
		return 0;
	if (!cancellable_for(idx.size() - 1, [&](uint64_t j) {
		size_t		i = j + 1;

		if (!found && sort_unresolved(t, [&](int w) { return word(idx[i - 1], w); },
									  [&](int w) { return word(idx[i], w); }))
			found = true;
	}))
		return -1;
	return found ? 1 : 0;
}

}							/* namespace cuda */
}							/* namespace pg_gpu */

#endif							/* PG_GPU_HOST_SORT_H */
