/*
 * trie.cuh — a succinct trie (LOUDS) of byte strings for exact-match lookups
 * (issue 5's dictionaries), searched one thread per query ("query parallel", seed
 * 003), shared by the kernels and the host.
 *
 * Nodes are numbered breadth first, the root 0, children in byte order.  The LOUDS
 * bits hold, node after node, a 1 per child and then a 0.  With z(v) the position
 * of the v-th 0 (counting from 0), node v's children begin at bit start(v) =
 * z(v - 1) + 1 (0 for the root), there are deg(v) = z(v) - start(v) of them, and
 * the first is node start(v) - v + 1 (the 1s before start(v), plus the root).  So
 * a step down needs one select0, answered from a sample of every 64th 0 and a
 * popcount over the words after it, and no rank directory.
 *
 * A subtree that holds a single key does not branch further: its top node is a
 * leaf, and the key's remaining bytes are the leaf's tail.  A node that ends a key
 * is terminal (bit in term; rank by term_rank, the terminals in the words before);
 * terminal t's tail is tail[toff[t] .. toff[t + 1]) (empty for a key that is a
 * proper prefix of others) and ord[t] is the key's index in the dictionary's
 * source (the least among equal keys).
 */
#ifndef PG_GPU_TRIE_CUH
#define PG_GPU_TRIE_CUH

#include <stdint.h>

#include "agg_state.cuh"

namespace pg_gpu {
namespace cuda {

struct trie_view
{
	const uint64_t *louds;		/* 2 * nnodes - 1 bits */
	const uint64_t *sel0;		/* sel0[k]: position of 0 number 64k */
	const uint8_t *labels;		/* labels[v]: the byte on the edge into v */
	const uint64_t *term;		/* bit v: node v ends a key */
	const uint32_t *term_rank;	/* per word of term: terminals before it */
	const uint64_t *toff;		/* per terminal, + 1: tail offsets */
	const uint8_t *tail;
	const uint32_t *ord;		/* per terminal: the key's index */
	uint64_t	nnodes;
};

PG_GPU_HD int
bits_popc(uint64_t x)
{
#ifdef __CUDA_ARCH__
	return __popcll(x);
#else
	return __builtin_popcountll(x);
#endif
}

/* The index of the lowest set bit of x (not 0). */
PG_GPU_HD int
bits_ctz(uint64_t x)
{
#ifdef __CUDA_ARCH__
	return __ffsll((long long) x) - 1;
#else
	return __builtin_ctzll(x);
#endif
}

/* The index of the set bit of x that has n set bits below it (n < popc(x)). */
PG_GPU_HD int
bits_nth(uint64_t x, int n)
{
	for (; n > 0; n--)
		x &= x - 1;
	return bits_ctz(x);
}

/* The position of 0 number k in the LOUDS bits. */
PG_GPU_HD uint64_t
trie_select0(const trie_view &t, uint64_t k)
{
	uint64_t	pos = t.sel0[k >> 6];
	uint64_t	w = pos >> 6;
	uint64_t	zeros = ~t.louds[w] & (~0ULL << (pos & 63));
	int			need = (int) (k & 63);

	for (;;)
	{
		int			c = bits_popc(zeros);

		if (need < c)
			return (w << 6) + bits_nth(zeros, need);
		need -= c;
		zeros = ~t.louds[++w];
	}
}

/* The position of the first 0 at or after bit pos. */
PG_GPU_HD uint64_t
trie_next0(const trie_view &t, uint64_t pos)
{
	uint64_t	w = pos >> 6;
	uint64_t	zeros = ~t.louds[w] & (~0ULL << (pos & 63));

	while (zeros == 0)
		zeros = ~t.louds[++w];
	return (w << 6) + bits_ctz(zeros);
}

PG_GPU_HD bool
trie_is_term(const trie_view &t, uint64_t v)
{
	return (t.term[v >> 6] >> (v & 63)) & 1;
}

PG_GPU_HD uint64_t
trie_term_rank(const trie_view &t, uint64_t v)
{
	uint64_t	below = (v & 63) ? t.term[v >> 6] & (~0ULL >> (64 - (v & 63))) : 0;

	return t.term_rank[v >> 6] + bits_popc(below);
}

/* The index of the key equal to p[0 .. n), or -1. */
PG_GPU_HD int64_t
trie_find(const trie_view &t, const uint8_t *p, uint32_t n)
{
	uint64_t	v = 0;
	uint32_t	d = 0;

	for (;;)
	{
		uint64_t	start = v == 0 ? 0 : trie_select0(t, v - 1) + 1;
		uint64_t	deg = trie_next0(t, start) - start;
		uint64_t	first = start - v + 1;

		if (trie_is_term(t, v))
		{
			uint64_t	r = trie_term_rank(t, v);

			if (deg == 0)
			{
				/* a leaf: the rest of the query must be its tail */
				uint64_t	lo = t.toff[r],
							len = t.toff[r + 1] - lo;

				if (len != n - d)
					return -1;
				for (uint64_t i = 0; i < len; i++)
					if (t.tail[lo + i] != p[d + i])
						return -1;
				return t.ord[r];
			}
			if (d == n)
				return t.ord[r];
		}
		if (d == n || deg == 0)
			return -1;

		/* the child labelled p[d]: children are in byte order */
		uint8_t		b = p[d];
		uint64_t	lo = first,
					hi = first + deg;

		while (hi - lo > 8)
		{
			uint64_t	mid = lo + (hi - lo) / 2;

			if (t.labels[mid] <= b)
				lo = mid;
			else
				hi = mid;
		}
		while (lo < hi && t.labels[lo] < b)
			lo++;
		if (lo == hi || t.labels[lo] != b)
			return -1;
		v = lo;
		d++;
	}
}

}							/* namespace cuda */
}							/* namespace pg_gpu */

#endif							/* PG_GPU_TRIE_CUH */
