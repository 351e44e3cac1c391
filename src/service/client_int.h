/*
 * client_int.h — what the backend's two halves of the GPU service's client
 * share: client.cpp (a channel as an engine handle, its claim and release) and
 * client_sets.cpp (key sets held on a channel, key sorts, batched probes,
 * gpu_* reductions).  Include after postgres.h and service/channel.h.
 */
#ifndef PG_GPU_SERVICE_CLIENT_INT_H
#define PG_GPU_SERVICE_CLIENT_INT_H

typedef struct SvcText
{
	struct SvcText *next;
	size_t		used;
	size_t		size;
	char		data[FLEXIBLE_ARRAY_MEMBER];
} SvcText;

typedef struct SvcClient
{
	SvcShared  *svc;			/* the GPU service worker of the channel */
	SvcChannel *ch;
	uint32		gen;
	uint32		seq;			/* requests sent on the channel */
	uint64		handed;			/* chunks handed over on it */
	bool		pending;		/* a request's answer not taken yet */
	bool		dead;			/* the service stopped under the task */
	pg_gpu_agg_task task;
	int64		win_g0;			/* groups [win_g0, win_g0 + win_n) are in win */
	int32		win_n;
	char	   *win;			/* a copy of the last window answered */
	size_t	   *win_off;		/* where each record (a sort row: its tuple) is */
	uint64	   *win_ref;		/* SVC_SORT_NEXT: each row's reference */
	char	  **win_text[PG_GPU_MAX_KEYS];	/* SVC_GROUPS: each group's text
											 * keys, kept (svc_keep_text) */
	SvcText    *texts;			/* text keys handed out: kept until the end */
	bool		held;			/* the channel outlives its tasks (key sets) */
	struct SvcClient *next;		/* this backend's open handles */
} SvcClient;

/* Wait for the pending answer; false when the service stopped first. */
bool		svc_wait_answer(SvcClient *c, bool interruptible);

/* One request and its answer (ch->status, ch->err). */
pg_gpu_status svc_request(SvcClient *c, SvcOp op, bool interruptible, pg_gpu_error *err);

/* Take a pending answer, drop the task and the channel's sets, free the channel. */
void		svc_free_client(SvcClient *c);

#endif							/* PG_GPU_SERVICE_CLIENT_INT_H */
