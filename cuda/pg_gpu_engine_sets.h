/*
 * pg_gpu_engine_sets.h — the engine's C API for key sets (exact-match lookups)
 * and dictionaries (named key sets kept for repeated lookups): part of
 * pg_gpu_engine.h, which includes it; the same rules hold (plain C, opaque
 * handles, statuses, no exceptions across it).
 */
#ifndef PG_GPU_ENGINE_SETS_H
#define PG_GPU_ENGINE_SETS_H

#include "pg_gpu_engine.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * ---- Key sets: exact-match lookups (the build side of issue 5) -------------
 *
 * A hash set of n keys of one type: PG_GPU_INT8 (vals; any integer type widened)
 * or PG_GPU_TEXT / PG_GPU_BPCHAR (key i's bytes at data + off[i] .. off[i + 1];
 * bpchar compared without trailing blanks).  The keys are copied, to the GPU
 * unless emulate.  Equal keys are one entry; a key's ordinal is the least index
 * among its equals.
 */
typedef struct pg_gpu_keyset pg_gpu_keyset;

pg_gpu_keyset *pg_gpu_keyset_build(int type, uint64_t n, const int64_t *vals, const char *data,
								   const uint64_t *off, int emulate, pg_gpu_error *err);

/* For each of m probe keys (same layout and type): out[i] = the ordinal, or -1. */
pg_gpu_status pg_gpu_keyset_probe(pg_gpu_keyset *ks, uint64_t m, const int64_t *vals,
								  const char *data, const uint64_t *off, int64_t *out,
								  pg_gpu_error *err);

/*
 * The ordinal of each of the set's own n keys, in the order they were given to
 * it: what a probe with them would answer, without sending them again.
 */
pg_gpu_status pg_gpu_keyset_ordinals(pg_gpu_keyset *ks, int64_t *out, pg_gpu_error *err);

/* Distinct keys in the set. */
uint64_t	pg_gpu_keyset_size(const pg_gpu_keyset *ks);

/*
 * A semi- or anti-join's probe with a condition inner.b <> x (a set whose
 * payload columns 0 and 1 hold each key's least and greatest b, as a collect
 * task with an aux value leaves them): for each of m probe keys and its x
 * (xnull[j] 1: NULL), out[j] = the key's ordinal when some b of the key
 * differs from x, else -1 (no such key, a NULL x, or every b equal to x).
 */
pg_gpu_status pg_gpu_keyset_probe_ne(pg_gpu_keyset *ks, uint64_t m, const int64_t *vals,
									 const int64_t *x, const uint8_t *xnull, int64_t *out,
									 pg_gpu_error *err);

#define PG_GPU_MAX_PAYLOAD 8		/* payload columns of one key set */

/*
 * Attach a payload to the set of n keys (a star join's dimension columns):
 * ncols columns of n words (vals[c * n + i] for key i, in the order the keys
 * were given; nulls likewise, 1: NULL), copied where the set lives; SET_VAL
 * reads them.  Call before pg_gpu_keyset_ref.
 */
pg_gpu_status pg_gpu_keyset_payload(pg_gpu_keyset *ks, int ncols, const uint64_t *vals,
									const uint8_t *nulls, pg_gpu_error *err);

/*
 * A payload column's distinct words, NULLs not counted apart from a value
 * whose word is 0 (so at least the distinct non-NULL values, at most one
 * more); -1 when not known.  Known for a set made by a collect task with a
 * payload (collect_pay) of at most PG_GPU_PAY_DISTINCT_MAX keys.
 */
#define PG_GPU_PAY_DISTINCT_MAX (4 * 1024 * 1024)
int64_t		pg_gpu_keyset_pay_distinct(const pg_gpu_keyset *ks, int col);

/*
 * The set as a task's kernels probe it (has_null and nonempty are the caller's:
 * NULLs never enter a set).  Valid until pg_gpu_keyset_free.
 */
void		pg_gpu_keyset_ref(const pg_gpu_keyset *ks, pg_gpu_set_ref *out);
void		pg_gpu_keyset_free(pg_gpu_keyset *ks);

/*
 * ---- Dictionaries: named key sets kept for repeated lookups (issue 5) -------
 *
 * n text keys (key i at data + off[i] .. off[i + 1]) as a hash table (keyset.cuh)
 * or a LOUDS trie (trie.cuh).  The structure is built on the host, which keeps it
 * for lookups on the CPU; with device set it is copied to the GPU too (else on
 * the first pg_gpu_dict_ref that needs it).  A key's index is its position in the
 * source, the least among equal keys.
 */
#define PG_GPU_DICT_HASH 0
#define PG_GPU_DICT_TRIE 1

typedef struct pg_gpu_dict pg_gpu_dict;

typedef struct pg_gpu_dict_info
{
	int			kind;
	uint64_t	keys;			/* keys given */
	uint64_t	distinct;
	uint64_t	nodes;			/* trie nodes (0 for a hash table) */
	uint64_t	host_bytes;		/* the structure on the host, keys included */
	uint64_t	device_bytes;	/* ... on the GPU (0 when not there) */
	double		build_ms;		/* host build */
	double		upload_ms;		/* copy to the GPU */
} pg_gpu_dict_info;

pg_gpu_dict *pg_gpu_dict_build(int kind, uint64_t n, const char *data, const uint64_t *off,
							   int device, pg_gpu_error *err);

/* The index of the key equal to p[0 .. len), or -1 (on the host). */
int64_t		pg_gpu_dict_find(const pg_gpu_dict *d, const char *p, uint32_t len);

/*
 * m probe keys at once on the GPU: out[j] = the index or -1; *kernel_ms: the
 * lookups alone, the copies not counted.
 */
pg_gpu_status pg_gpu_dict_probe(pg_gpu_dict *d, uint64_t m, const char *data,
								const uint64_t *off, int64_t *out, double *kernel_ms,
								pg_gpu_error *err);

void		pg_gpu_dict_get_info(const pg_gpu_dict *d, pg_gpu_dict_info *out);

/*
 * The dictionary as a task's kernels probe it (the host copy when emulate; else
 * the GPU's, copied there now if need be).
 */
pg_gpu_status pg_gpu_dict_ref(pg_gpu_dict *d, int emulate, pg_gpu_set_ref *out,
							  pg_gpu_error *err);
void		pg_gpu_dict_free(pg_gpu_dict *d);

#ifdef __cplusplus
}
#endif

#endif							/* PG_GPU_ENGINE_SETS_H */
