/*
 * dict.h — named GPU dictionaries (issue 5): SQL functions, and the hooks that let
 * GpuAgg's and GpuSort's kernels probe them.
 */
#ifndef PG_GPU_DICT_H
#define PG_GPU_DICT_H

#include "pg_gpu_engine.h"

/*
 * Point ref at dictionary name for a task (emulated or not) and pin it until
 * PgGpuDictUnpin (or the end of the transaction); *keys and *distinct get its
 * sizes.  An unknown name raises the SQL functions' error; false with *reason
 * and msg when the GPU cannot hold it.
 */
bool		PgGpuDictPin(const char *name, bool emulate, pg_gpu_set_ref *ref, int64 *keys,
						 int64 *distinct, PgGpuFallback *reason, char *msg, size_t msglen);
void		PgGpuDictUnpin(const char *name);

/* At load: the transaction callback that releases pins. */
void		PgGpuDictInit(void);

#endif							/* PG_GPU_DICT_H */
