/*
 * keyset.cuh — a hash set of keys for exact-match lookups (issue 5's build side),
 * shared by the kernels and the host emulation.
 *
 * Keys are int64 values or byte strings (text, varchar; bpchar without its
 * trailing blanks, docs/SEMANTICS.md 16) held in an arena.  The table is open addressing
 * with linear probing, capacity a power of two at least twice the keys.  A slot
 * is 0 (empty) or the key's hash (high 32 bits) and its index + 1 (low 32 bits):
 * a probe rejects most other keys on the hash alone, and equal keys land in one
 * slot holding the least index among them (atomicMin on the GPU), so a key's
 * ordinal does not depend on the order threads ran.
 */
#ifndef PG_GPU_KEYSET_CUH
#define PG_GPU_KEYSET_CUH

#include "expr.cuh"

namespace pg_gpu {
namespace cuda {

/* A key set's keys: int64 values, or text at data + off[i] .. off[i + 1]. */
struct keyset_keys
{
	int			type;			/* PG_GPU_INT8 (any integer), PG_GPU_TEXT, PG_GPU_BPCHAR */
	const int64_t *vals;
	const uint8_t *data;
	const uint64_t *off;
};

PG_GPU_HD uint32_t
keyset_len(const keyset_keys &k, uint64_t i)
{
	return text_len(k.data + k.off[i], (uint32_t) (k.off[i + 1] - k.off[i]), k.type);
}

PG_GPU_HD uint64_t
keyset_hash(const keyset_keys &k, uint64_t i)
{
	return k.type == PG_GPU_INT8 ? mix64((uint64_t) k.vals[i])
		: text_hash(k.data + k.off[i], keyset_len(k, i));
}

/* Key i of a against key j of b (same type). */
PG_GPU_HD bool
keyset_equal(const keyset_keys &a, uint64_t i, const keyset_keys &b, uint64_t j)
{
	if (a.type == PG_GPU_INT8)
		return a.vals[i] == b.vals[j];

	pval		x,
				y;

	x.bits = (uint64_t) (uintptr_t) (a.data + a.off[i]);
	x.len = (uint32_t) (a.off[i + 1] - a.off[i]);
	y.bits = (uint64_t) (uintptr_t) (b.data + b.off[j]);
	y.len = (uint32_t) (b.off[j + 1] - b.off[j]);
	x.null = y.null = false;
	return text_cmp(x, y, a.type) == 0;
}

PG_GPU_HD uint64_t
keyset_slot(uint64_t h, uint64_t idx)
{
	return (h >> 32) << 32 | (idx + 1);
}

/*
 * The index of the least key of the set equal to key j of q, or -1.  tab has
 * mask + 1 slots; keys are the set's.
 */
PG_GPU_HD int64_t
keyset_find(const uint64_t *tab, uint64_t mask, const keyset_keys &keys, const keyset_keys &q,
			uint64_t j)
{
	return set_probe(tab, mask, keyset_hash(q, j), [&](uint64_t i) {
		return keyset_equal(keys, i, q, j);
	});
}

/* Slots for n keys: a power of two, at least 2n (and 16). */
inline uint64_t
keyset_capacity(uint64_t n)
{
	uint64_t	c = 16;

	while (c < 2 * n)
		c *= 2;
	return c;
}

}							/* namespace cuda */
}							/* namespace pg_gpu */

#endif							/* PG_GPU_KEYSET_CUH */
