/*
 * block_array.h — a growing array of the CPU twin (agg_host.cpp), kept in
 * fixed blocks.
 */
#ifndef PG_GPU_BLOCK_ARRAY_H
#define PG_GPU_BLOCK_ARRAY_H

#include <stdint.h>

#include <memory>
#include <vector>

/*
 * A growing array kept in fixed blocks: appending never moves what is there.  A
 * run's pages and words in std::vectors were copied whole at each doubling,
 * hundreds of megabytes at once, with no pause to answer a cancel.
 */
template <typename T>
struct block_array
{
	static constexpr int kShift = 20;	/* elements per block: 1 << kShift */
	static constexpr uint64_t kMask = (1ULL << kShift) - 1;
	std::vector<std::unique_ptr<T[]>> blocks;
	uint64_t	n = 0;

	void		push(const T *v, uint64_t k)
	{
		for (uint64_t i = 0; i < k; i++, n++)
		{
			if ((n >> kShift) == blocks.size())
				blocks.emplace_back(new T[1ULL << kShift]);	/* not zeroed */
			blocks[n >> kShift][n & kMask] = v[i];
		}
	}
	/* k elements at the end, contiguous (k divides the block) */
	T		   *append(uint64_t k)
	{
		if ((n >> kShift) == blocks.size())
			blocks.emplace_back(new T[1ULL << kShift]);
		T		   *p = &blocks[n >> kShift][n & kMask];

		n += k;
		return p;
	}
	T		   &operator[](uint64_t i) { return blocks[i >> kShift][i & kMask]; }
	const T    &operator[](uint64_t i) const { return blocks[i >> kShift][i & kMask]; }
	uint64_t	size() const { return n; }
	uint64_t	bytes() const { return blocks.size() * (sizeof(T) << kShift); }
	void		clear()
	{
		blocks.clear();
		n = 0;
	}
};

#endif							/* PG_GPU_BLOCK_ARRAY_H */
