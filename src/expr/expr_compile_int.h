/*
 * expr_compile_int.h — what the expression compiler's files share:
 * expr_compile.cpp (the core: emit, constants, comparisons, compile()'s
 * dispatch), expr_sets.cpp, expr_text.cpp and expr_control.cpp.  Include after
 * postgres.h and expr/expr_compile.h.  Other files use expr_compile.h's
 * PgGpuCompileNode and PgGpuEmit instead.
 */
#ifndef PG_GPU_EXPR_COMPILE_INT_H
#define PG_GPU_EXPR_COMPILE_INT_H

static inline bool
is_text(int t)
{
	return t == PG_GPU_TEXT || t == PG_GPU_BPCHAR;
}

/* Which dictionary function funcid is, if any. */
typedef enum PgGpuDictFn
{
	PG_GPU_DICT_FN_NONE = 0,
	PG_GPU_DICT_FN_CONTAINS,	/* pg_gpu_dict_contains(name, key) → boolean */
	PG_GPU_DICT_FN_LOOKUP		/* pg_gpu_dict_lookup(name, key) → bigint */
} PgGpuDictFn;

/* expr_compile.cpp */
bool		compile(PgGpuCompiler *c, Expr *e, int *type);
bool		emit(PgGpuCompiler *c, int op, int type, int a, uint32 b, int push);
bool		add_const(PgGpuCompiler *c, Datum d, bool isnull, int type, int *idx);
bool		add_bytes_const(PgGpuCompiler *c, const uint8 *b, int len, int *idx);
int			comparison_of(Oid opno, Oid lefttype, Oid righttype, Oid collid, int *cmptype);

/* expr_sets.cpp */
bool		compile_set_test(PgGpuCompiler *c, PgGpuSetTest *st, int *type);
bool		compile_payload(PgGpuCompiler *c, PgGpuPayloadVar *pv);
bool		compile_in(PgGpuCompiler *c, ScalarArrayOpExpr *sa, int *type);
PgGpuDictFn dict_function(Oid funcid);
bool		compile_dict(PgGpuCompiler *c, FuncExpr *f, PgGpuDictFn fn, int *type);
bool		compile_subplan(PgGpuCompiler *c, SubPlan *sp, int *type);

/* expr_text.cpp */
bool		compile_like(PgGpuCompiler *c, List *args, Oid collid, bool negate, int *type);
bool		compile_substr(PgGpuCompiler *c, FuncExpr *f, int *type);

/* expr_control.cpp */
int			PgGpuCaseValueType(Oid typid);	/* PgGpuValueType, numeric DECIMAL */
bool		compile_bool(PgGpuCompiler *c, BoolExpr *b, int *type);
bool		compile_case(PgGpuCompiler *c, CaseExpr *ce, int *type);
bool		compile_coalesce(PgGpuCompiler *c, CoalesceExpr *ce, int *type);
bool		compile_nullif(PgGpuCompiler *c, NullIfExpr *ni, int *type);

#endif							/* PG_GPU_EXPR_COMPILE_INT_H */
