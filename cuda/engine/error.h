/*
 * error.h — filling a pg_gpu_error, and asking the caller's cancel callback
 * (pg_gpu_engine_set_cancel), for host code of both builds (with and without
 * nvcc); engine_internal.cuh adds the CUDA side (from_cuda, PG_GPU_TRY,
 * stream_wait).
 */
#ifndef PG_GPU_ERROR_H
#define PG_GPU_ERROR_H

#ifdef PG_VERSION_NUM
#error "cuda/ headers must not be compiled together with PostgreSQL headers"
#endif

#include "pg_gpu_engine.h"

namespace pg_gpu {
namespace cuda {

/* err (when not null) gets st and the formatted message; returns st. */
pg_gpu_status set_error(pg_gpu_error *err, pg_gpu_status st, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Whether this thread's caller asked to stop (pg_gpu_engine_set_cancel); cheap:
 * ask it between slices of work.
 */
bool		cancel_requested();

/* Whether this thread has a cancel callback at all. */
bool		cancel_callback_set();

/* err gets PG_GPU_CANCELLED; returns it. */
pg_gpu_status cancelled(pg_gpu_error *err);

/*
 * f(i) for i in [0, n), asking cancel_requested every `slice` calls; false when
 * the caller asked to stop (the rest not done).
 */
template <typename F>
inline bool
cancellable_for(uint64_t n, F f, uint64_t slice = 1u << 16)
{
	for (uint64_t i0 = 0; i0 < n; i0 += slice)
	{
		uint64_t	i1 = n - i0 < slice ? n : i0 + slice;

		if (cancel_requested())
			return false;
		for (uint64_t i = i0; i < i1; i++)
			f(i);
	}
	return true;
}

}							/* namespace cuda */
}							/* namespace pg_gpu */

#endif							/* PG_GPU_ERROR_H */
