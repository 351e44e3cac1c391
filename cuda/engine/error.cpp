/*
 * error.cpp — see error.h.
 */
#include <stdarg.h>
#include <stdio.h>

#include "engine/error.h"

namespace pg_gpu {
namespace cuda {

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
