/*
 * service_int.h — what the GPU service's three files share: service.cpp (its
 * shared memory and the main thread), service_thread.cpp (a task channel's
 * thread) and service_keysets.cpp (the key-set requests a channel serves).
 * Include after postgres.h, pg_gpu.h and service/channel.h.  Not for the
 * backends' side (client.cpp).
 */
#ifndef PG_GPU_SERVICE_INT_H
#define PG_GPU_SERVICE_INT_H

#include <atomic>
#include <vector>

/* the service is stopping: the threads end their loops */
extern std::atomic<bool> svc_stop;
/* channel threads still running */
extern std::atomic<int> svc_threads_live;
/* a thread could not clean up after an error (svc_fail_step): restart */
extern std::atomic<bool> svc_thread_failed;
/* this process's generation: requests for another are refused */
extern uint32 svc_generation;

/*
 * A fault the service restarts for: no new task may begin, and the watchdog
 * makes the process exit (service.cpp).
 */
void		svc_give_up(void);

/* Microseconds on the monotonic clock. */
uint64		svc_now_us(void);

/* What a channel's thread holds: the task's engine and the channel's key sets. */
typedef struct SvcWork
{
	pg_gpu_agg *agg;
	pg_gpu_agg_result res;		/* the task's, once finished */
	pg_gpu_sort_batch sorted;	/* a sort task's batch being sent */
	int64		sorted_pos;		/* its next row */
	bool		sorted_done;	/* the engine has no more */
	pg_gpu_keysort *keysort;	/* SVC_KEYSORT_*: the channel's key sort */
	const uint32_t *order;		/* its order, once sorted */
	uint64		norder;
	CcTaskState *cc;			/* the task's columnar cache entry, if any */
	bool		cc_publish;		/* the task finished: its fills are kept */
	int			fault;			/* PgGpuServiceFault the task asked for */
	uint64		since[PG_GPU_AGG_SLOTS];	/* µs: when each running chunk started */
	int			nks;
	pg_gpu_keyset *ks[SVC_MAX_KEYSETS];
	pg_gpu_set_ref ref[SVC_MAX_KEYSETS];
	uint64		nkeys[SVC_MAX_KEYSETS];	/* keys given to each set */
	std::vector<int64_t> ordinals;	/* SVC_KS_ORDINALS: the last set's */
	std::vector<int64_t> probed;	/* SVC_KS_PROBE's answers */
	std::vector<char> part[SVC_NPARTS];	/* SVC_KS_APPEND: the parts (SvcPart) */
	/* SVC_KS_CODES: each text payload column's code for each value's position */
	std::vector<int64_t> codes[PG_GPU_MAX_PAYLOAD];
	/* SVC_KS_ROWS: each text payload column's values, and where code c's is */
	std::vector<char> tdata[PG_GPU_MAX_PAYLOAD];
	std::vector<uint64> toff[PG_GPU_MAX_PAYLOAD];
	std::vector<uint64> tfirst[PG_GPU_MAX_PAYLOAD];
} SvcWork;

/*
 * service_thread.cpp: a non-emulated step's GPU: the service's, bound to this
 * thread; false with the channel's status set when there is none.
 */
bool		svc_bind_gpu(SvcChannel *ch, bool emulate);

/* service_thread.cpp: the body of channel i's thread, until the service stops. */
void		svc_serve(int i);

/* service_keysets.cpp: the SVC_KS_* requests, and the check SVC_BEGIN makes. */
bool		svc_same_set(const pg_gpu_set_ref *a, const pg_gpu_set_ref *b);
void		svc_op_keyset(SvcChannel *ch, SvcWork *w, uint32 op);
void		svc_op_append(SvcChannel *ch, SvcWork *w);
void		svc_op_codes(SvcChannel *ch, SvcWork *w);
void		svc_op_payload(SvcChannel *ch, SvcWork *w);
void		svc_op_ks_rows(SvcChannel *ch, SvcWork *w);
void		svc_op_ks_texts(SvcChannel *ch, SvcWork *w);
void		svc_op_ks_ordinals(SvcChannel *ch, SvcWork *w);
void		svc_op_ks_probe(SvcChannel *ch, SvcWork *w);
void		svc_op_reduce(SvcChannel *ch, SvcWork *w);
void		svc_op_ks_probe_out(SvcChannel *ch, SvcWork *w);

#endif							/* PG_GPU_SERVICE_INT_H */
