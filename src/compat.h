/*
 * compat.h — every PostgreSQL-version condition lives here.
 *
 * pg_gpu targets PostgreSQL 15.  The aggregate state formats it produces
 * (numericvar_serialize layouts, see agg_catalog.cpp and docs/pg15_aggregate_states.md) are those of 15.x.
 */
#ifndef PG_GPU_COMPAT_H
#define PG_GPU_COMPAT_H

#if PG_VERSION_NUM < 150000 || PG_VERSION_NUM >= 160000
#error "pg_gpu supports PostgreSQL 15 only"
#endif

#endif							/* PG_GPU_COMPAT_H */
