/*
 * protocol.h — the GPU service's requests and answers, typed: one request and
 * one answer struct per operation, and the codecs of the records that cross
 * the channel's window, used by both sides (client.cpp writes requests and
 * reads answers and records; service_thread.cpp and service_keysets.cpp the
 * other way round).  The channel (channel.h) holds one SvcRequests and one
 * SvcAnswers: a request fills the member of its operation, the answer the
 * member of its operation; no member changes meaning with the operation.
 * Include after postgres.h and pg_gpu_engine.h.
 */
#ifndef PG_GPU_SERVICE_PROTOCOL_H
#define PG_GPU_SERVICE_PROTOCOL_H

#include "pg_gpu_engine.h"

#define SVC_WINDOW (512 * 1024)		/* bytes of records per request or answer */

typedef enum SvcOp
{
	SVC_NONE = 0,
	SVC_BEGIN,					/* begin the channel's task (ch->task) */
	SVC_FINISH,					/* all chunks done: the task's result */
	SVC_GROUPS,					/* a grouped task's groups, a window of them */
	SVC_SORT_NEXT,				/* a sort task's next rows, a window of them */
	SVC_END_TASK,				/* drop the task (the channel's key sets stay) */
	SVC_END,					/* drop the task and the key sets */
	SVC_KS_COLLECTED,			/* the finished collect task's keys become a
								 * key set of the channel */
	SVC_KS_APPEND,				/* bytes of one part of a key set being sent */
	SVC_KS_BUILD,				/* the parts sent become a key set */
	SVC_KS_FREE,				/* drop the channel's key sets */
	SVC_KS_CODES,				/* a text payload column's values, which code
								 * SVC_KS_PAYLOAD's words */
	SVC_KS_PAYLOAD,				/* the payload of the channel's last key set */
	SVC_KS_ROWS,				/* the finished rows task's groups (key,
								 * payload) become a key set with its payload,
								 * text coded densely */
	SVC_KS_TEXTS,				/* the values of a text payload column's codes */
	SVC_KS_ORDINALS,			/* the ordinals of the channel's last key set's
								 * own keys (int64 each), a window of them */
	SVC_KEYSORT_BEGIN,			/* a key sort (ch->task) of rows the backend
								 * encoded: their shape */
	SVC_KEYSORT_PUT,			/* a window of one word of the rows */
	SVC_KEYSORT_SORT,			/* sort them */
	SVC_KEYSORT_ORDER,			/* the order (uint32 row numbers), a window */
	SVC_KS_PROBE,				/* probe one of the channel's key sets with the
								 * keys sent (the parts) */
	SVC_KS_PROBE_OUT,			/* the probe's answers (int64 ordinals), a window */
	SVC_REDUCE,					/* a gpu_* aggregate's group: the exact state of
								 * the values sent (the vals part) */
	SVC_NOPS
} SvcOp;

/* SVC_KS_APPEND's parts */
typedef enum SvcPart
{
	SVC_PART_VALS = 0,			/* int64 keys, or payload words */
	SVC_PART_TEXT,				/* text bytes */
	SVC_PART_OFFSETS,			/* uint64 offsets into the text bytes */
	SVC_PART_NULLS,				/* payload NULL bytes; a probe's x NULL bytes */
	SVC_PART_X,					/* a probe's x values (int64), for inner.b <> x */
	SVC_NPARTS
} SvcPart;

/* ---- requests ----------------------------------------------------------- */

typedef struct SvcBeginReq
{
	int32		fault;			/* PgGpuServiceFault to inject */
	int32		timeout_ms;		/* pg_gpu.service_timeout */
} SvcBeginReq;					/* with ch->task and ch->cc_req */

typedef struct SvcFromReq
{
	int64		first;			/* SVC_GROUPS: first group */
} SvcFromReq;

typedef struct SvcKsTypeReq
{
	int32		type;			/* the set's key type (PG_GPU_INT8, _TEXT, _BPCHAR) */
} SvcKsTypeReq;					/* SVC_KS_COLLECTED, SVC_KS_ROWS */

typedef struct SvcAppendReq
{
	int32		part;			/* SvcPart */
	int64		bytes;			/* in the window */
} SvcAppendReq;

typedef struct SvcBuildReq
{
	int32		type;
	int32		emulate;
	int64		keys;			/* the parts hold so many keys */
} SvcBuildReq;

typedef struct SvcCodesReq
{
	int32		col;			/* payload column */
	int32		type;			/* its values' type */
	int32		emulate;
	int64		values;			/* in the text and offset parts */
} SvcCodesReq;

typedef struct SvcPayloadReq
{
	int32		ncols;
	int64		keys;			/* the vals and NULL parts: ncols * keys each */
} SvcPayloadReq;

typedef struct SvcTextsReq
{
	int32		col;			/* payload column */
	int64		first;			/* first code */
} SvcTextsReq;

typedef struct SvcOrdinalsReq
{
	int64		first;			/* the first key's index */
} SvcOrdinalsReq;

typedef struct SvcKeysortPutReq
{
	int32		word;
	int64		first;			/* the first row's */
	int64		n;				/* words in the window */
} SvcKeysortPutReq;

typedef struct SvcProbeReq
{
	int32		set;			/* the channel's key set, by the order made */
	int32		ne;				/* 1: pg_gpu_keyset_probe_ne with the x parts */
	int64		keys;			/* in the vals, or the text and offset parts */
} SvcProbeReq;

typedef struct SvcReduceReq
{
	int32		coltype;		/* pg_gpu_coltype of the values */
	int32		emulate;
	int64		n;				/* values in the vals part */
} SvcReduceReq;

typedef struct SvcRequests
{
	SvcBeginReq begin;
	SvcFromReq	groups;
	SvcKsTypeReq collected;
	SvcAppendReq append;
	SvcBuildReq build;
	SvcCodesReq codes;
	SvcPayloadReq payload;
	SvcKsTypeReq rows;
	SvcTextsReq texts;
	SvcOrdinalsReq ordinals;
	pg_gpu_keysort_shape keysort;	/* SVC_KEYSORT_BEGIN */
	SvcKeysortPutReq put;
	SvcFromReq	order;			/* SVC_KEYSORT_ORDER: first position */
	SvcProbeReq probe;
	SvcFromReq	probe_out;		/* SVC_KS_PROBE_OUT: first answer */
	SvcReduceReq reduce;
} SvcRequests;

/* ---- answers ------------------------------------------------------------ */

typedef struct SvcBeginAns
{
	int32		capacity;		/* pages per chunk slot */
} SvcBeginAns;					/* with ch->cc_entry, ch->cc_gen */

typedef struct SvcWindowAns
{
	int32		n;				/* records in the window */
} SvcWindowAns;					/* SVC_GROUPS, SVC_KS_TEXTS, SVC_SORT_NEXT,
								 * SVC_KS_ORDINALS, SVC_KEYSORT_ORDER,
								 * SVC_KS_PROBE_OUT */

/* SVC_KS_COLLECTED, SVC_KS_BUILD, SVC_KS_PAYLOAD, SVC_KS_ROWS: the set made */
typedef struct SvcKeysetAns
{
	pg_gpu_set_ref ref;
	uint64		keys;			/* non-NULL keys */
	uint64		distinct;
	int32		has_null;
	int64		pay_distinct[PG_GPU_MAX_PAYLOAD];	/* each payload column's
													 * distinct words (-1:
													 * not known) */
	int64		dup_rows;		/* SVC_KS_ROWS: a group of so many equal rows
								 * (no set was made) */
} SvcKeysetAns;

typedef struct SvcKeysortAns
{
	uint64		n;				/* positions in the order (sort_limit's) */
	double		gpu_ms;
	uint64		bytes_h2d;
} SvcKeysortAns;				/* SVC_KEYSORT_SORT */

typedef struct SvcReduceAns
{
	pg_gpu_col_state state;
	double		gpu_ms;
} SvcReduceAns;

typedef struct SvcAnswers
{
	SvcBeginAns begin;
	pg_gpu_agg_result finish;
	SvcWindowAns window;
	SvcKeysetAns keyset;
	SvcKeysortAns keysort;
	SvcReduceAns reduce;
} SvcAnswers;

/* ---- records in the window --------------------------------------------- */

/*
 * SVC_GROUPS: a group is keys[nkeys], nullmask, rows, states[ninputs], then,
 * for each text key that is not NULL, its varlena (4-byte header), each padded
 * to 8 bytes.
 */
static inline size_t
svc_group_fixed(const pg_gpu_agg_task *t)
{
	return sizeof(uint64) * t->nkeys + sizeof(uint64) + sizeof(int64) +
		sizeof(pg_gpu_col_state) * t->ninputs;
}

static inline bool
svc_text_type(int type)
{
	return type == PG_GPU_TEXT || type == PG_GPU_BPCHAR;
}

/* A group's record size (text keys: host addresses of their varlenas). */
static inline size_t
svc_group_size(const pg_gpu_agg_task *t, const uint64 *keys, uint32 nullmask)
{
	size_t		size = svc_group_fixed(t);

	for (int k = 0; k < t->nkeys; k++)
		if (svc_text_type(t->keys[k].type) && !(nullmask & (1u << k)))
			size += TYPEALIGN(8, VARSIZE((const char *) (uintptr_t) keys[k]));
	return size;
}

/* Write a group at p (svc_group_size bytes). */
static inline void
svc_group_put(char *p, const pg_gpu_agg_task *t, const uint64 *keys, uint32 nullmask,
			  int64 rows, const pg_gpu_col_state *states)
{
	uint64		nm = nullmask;

	memcpy(p, keys, sizeof(uint64) * t->nkeys);
	p += sizeof(uint64) * t->nkeys;
	memcpy(p, &nm, sizeof(uint64));
	p += sizeof(uint64);
	memcpy(p, &rows, sizeof(int64));
	p += sizeof(int64);
	memcpy(p, states, sizeof(pg_gpu_col_state) * t->ninputs);
	p += sizeof(pg_gpu_col_state) * t->ninputs;
	for (int k = 0; k < t->nkeys; k++)
		if (svc_text_type(t->keys[k].type) && !(nullmask & (1u << k)))
		{
			const char *v = (const char *) (uintptr_t) keys[k];

			memcpy(p, v, VARSIZE(v));
			p += TYPEALIGN(8, VARSIZE(v));
		}
}

/*
 * Read the group at p: text keys become the addresses of their varlenas in
 * the record itself.  Returns the record's size.
 */
static inline size_t
svc_group_get(const char *p, const pg_gpu_agg_task *t, uint64 *keys, uint32 *nullmask,
			  int64 *rows, pg_gpu_col_state *states)
{
	const char *start = p;
	uint64		nm;

	memcpy(keys, p, sizeof(uint64) * t->nkeys);
	p += sizeof(uint64) * t->nkeys;
	memcpy(&nm, p, sizeof(uint64));
	*nullmask = (uint32) nm;
	p += sizeof(uint64);
	memcpy(rows, p, sizeof(int64));
	p += sizeof(int64);
	if (states)
		memcpy(states, p, sizeof(pg_gpu_col_state) * t->ninputs);
	p += sizeof(pg_gpu_col_state) * t->ninputs;
	for (int k = 0; k < t->nkeys; k++)
		if (svc_text_type(t->keys[k].type) && !(nm & (1u << k)))
		{
			keys[k] = (uint64) (uintptr_t) p;
			p += TYPEALIGN(8, VARSIZE(p));
		}
	return (size_t) (p - start);
}

/* SVC_KS_TEXTS: a value is its length (uint32) and its bytes. */
static inline size_t
svc_text_size(uint32 len)
{
	return sizeof(uint32) + len;
}

static inline void
svc_text_put(char *p, const char *v, uint32 len)
{
	memcpy(p, &len, sizeof(uint32));
	memcpy(p + sizeof(uint32), v, len);
}

static inline size_t
svc_text_get(const char *p, const char **v, uint32 *len)
{
	memcpy(len, p, sizeof(uint32));
	*v = p + sizeof(uint32);
	return svc_text_size(*len);
}

/*
 * SVC_SORT_NEXT: a row is its reference (pg_gpu_sort_batch.ref: page ordinal
 * << 32 | line pointer << 16 | length), then its tuple's bytes, padded to 8.
 */
static inline size_t
svc_tuple_size(uint64 ref)
{
	return sizeof(uint64) + TYPEALIGN(8, ref & 0xFFFF);
}

static inline void
svc_tuple_put(char *p, uint64 ref, const char *tuple)
{
	memcpy(p, &ref, sizeof(uint64));
	memcpy(p + sizeof(uint64), tuple, ref & 0xFFFF);
}

/* The row at p: *ref, and the offset of its tuple from p. */
static inline size_t
svc_tuple_get(const char *p, uint64 *ref, size_t *tuple_at)
{
	memcpy(ref, p, sizeof(uint64));
	*tuple_at = sizeof(uint64);
	return svc_tuple_size(*ref);
}

#endif							/* PG_GPU_SERVICE_PROTOCOL_H */
