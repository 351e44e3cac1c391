/*
 * error.h — filling a pg_gpu_error, for host code of both builds (with and
 * without nvcc); engine_internal.cuh adds the CUDA side (from_cuda, PG_GPU_TRY).
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

}							/* namespace cuda */
}							/* namespace pg_gpu */

#endif							/* PG_GPU_ERROR_H */
