/*
 * error.cpp — see error.h.
 */
#include <stdarg.h>
#include <stdio.h>

#include "engine/error.h"

/* each thread's caller's (a backend sets it on its main thread) */
static thread_local pg_gpu_cancel_fn t_cancel = nullptr;

extern "C" void
pg_gpu_engine_set_cancel(pg_gpu_cancel_fn fn)
{
	t_cancel = fn;
}

namespace pg_gpu {
namespace cuda {

bool
cancel_requested()
{
	pg_gpu_cancel_fn fn = t_cancel;

	return fn != nullptr && fn() != 0;
}

bool
cancel_callback_set()
{
	return t_cancel != nullptr;
}

pg_gpu_status
cancelled(pg_gpu_error *err)
{
	return set_error(err, PG_GPU_CANCELLED, "cancelled by the caller");
}

pg_gpu_status
set_error(pg_gpu_error *err, pg_gpu_status st, const char *fmt, ...)
{
	if (err)
	{
		va_list		ap;

		err->status = st;
		va_start(ap, fmt);
		vsnprintf(err->message, sizeof(err->message), fmt, ap);
		va_end(ap);
	}
	return st;
}

}							/* namespace cuda */
}							/* namespace pg_gpu */
