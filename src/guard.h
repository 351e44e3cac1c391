/*
 * guard.h — the boundary between C++ and PostgreSQL's longjmp-based errors.
 *
 * Every function PostgreSQL calls is a thin wrapper around an _impl function:
 * PG_GPU_GUARD runs the body, catches any C++ exception, leaves the catch block and
 * only then ereports, so no exception unwinds through PostgreSQL frames and no
 * ereport longjmps through a frame holding C++ objects with destructors.  The
 * _impl functions themselves are written C-style (no RAII objects), so an ereport
 * raised inside them is safe as well.
 */
#ifndef PG_GPU_GUARD_H
#define PG_GPU_GUARD_H

#include <exception>

#define PG_GPU_GUARD(body) \
	do { \
		char		pg_gpu_guard_msg_[256]; \
		bool		pg_gpu_guard_failed_ = false; \
		try { body; } \
		catch (const std::exception &e_) { \
			strlcpy(pg_gpu_guard_msg_, e_.what(), sizeof(pg_gpu_guard_msg_)); \
			pg_gpu_guard_failed_ = true; \
		} \
		catch (...) { \
			strlcpy(pg_gpu_guard_msg_, "unknown exception", sizeof(pg_gpu_guard_msg_)); \
			pg_gpu_guard_failed_ = true; \
		} \
		if (pg_gpu_guard_failed_) \
			ereport(ERROR, \
					(errcode(ERRCODE_INTERNAL_ERROR), \
					 errmsg("pg_gpu internal error: %s", pg_gpu_guard_msg_))); \
	} while (0)

/*
 * The SQL-callable fn (its V1 info record included), a guarded call of
 * fn_impl(fcinfo).  Every SQL-callable function of pg_gpu is written this way.
 */
#define PG_GPU_SQL_FN(fn) \
	extern "C" { PG_FUNCTION_INFO_V1(fn); } \
	extern "C" PGDLLEXPORT Datum \
	fn(PG_FUNCTION_ARGS) \
	{ \
		Datum		result = (Datum) 0; \
		PG_GPU_GUARD(result = fn##_impl(fcinfo)); \
		return result; \
	}

/*
 * A CustomPath's PlanCustomPath callback fn (declared static before), a guarded
 * call of fnImpl(root, rel, best_path, tlist, custom_plans).
 */
#define PG_GPU_PLAN_CUSTOM_PATH(fn) \
	static Plan * \
	fn(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path, List *tlist, \
	   List *clauses, List *custom_plans) \
	{ \
		Plan	   *plan = NULL; \
		PG_GPU_GUARD(plan = fn##Impl(root, rel, best_path, tlist, custom_plans)); \
		return plan; \
	}

#endif							/* PG_GPU_GUARD_H */
