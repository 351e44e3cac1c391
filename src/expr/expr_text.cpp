/*
 * expr_text.cpp — the text side of the expression compiler (expr_compile.cpp):
 * which collations let the kernels compare text as bytes, LIKE and NOT LIKE
 * with a constant pattern, substring/substr/left with constant bounds, and
 * whether a text expression stays within one column value.
 *
 * The kernels compare bytes (expr_value.cuh's text_cmp) and count UTF-8
 * characters (expr.cuh's like_match, text_substr), so what is compiled here
 * is what gives PostgreSQL's answer under those rules: equality under a
 * deterministic collation, order only where the collation is byte order,
 * LIKE and substring only in a UTF-8 database.  Anything else stays with
 * PostgreSQL.
 */
extern "C" {
#include "postgres.h"

#include <locale.h>

#include "catalog/pg_collation.h"
#include "catalog/pg_database.h"
#include "catalog/pg_type.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "pg_gpu.h"
#include "expr/expr_compile.h"

/*
 * From utils/pg_locale.h, which cannot be included where PostgreSQL was built with
 * ICU but its headers are not installed.
 */
extern bool lc_collate_is_c(Oid collation);
}

#include "expr/expr_compile_int.h"

static bool
is_c_utf8(const char *name)
{
	return name && (pg_strcasecmp(name, "C.UTF-8") == 0 || pg_strcasecmp(name, "C.UTF8") == 0);
}

bool
PgGpuCollationIsBytewise(Oid collid)
{
	HeapTuple	tup;
	bool		bytewise = false;

	if (!OidIsValid(collid))
		return false;
	if (lc_collate_is_c(collid))
		return true;
	if (collid == DEFAULT_COLLATION_OID)
	{
		/* a libc default collation: the database's LC_COLLATE */
		tup = SearchSysCache1(DATABASEOID, ObjectIdGetDatum(MyDatabaseId));
		if (!HeapTupleIsValid(tup))
			return false;
		bytewise = ((Form_pg_database) GETSTRUCT(tup))->datlocprovider == COLLPROVIDER_LIBC;
		ReleaseSysCache(tup);
		return bytewise && GetDatabaseEncoding() == PG_UTF8 &&
			is_c_utf8(setlocale(LC_COLLATE, NULL));
	}
	tup = SearchSysCache1(COLLOID, ObjectIdGetDatum(collid));
	if (!HeapTupleIsValid(tup))
		return false;
	if (((Form_pg_collation) GETSTRUCT(tup))->collprovider == COLLPROVIDER_LIBC &&
		GetDatabaseEncoding() == PG_UTF8)
	{
		bool		isnull;
		Datum		d = SysCacheGetAttr(COLLOID, tup, Anum_pg_collation_collcollate, &isnull);

		bytewise = !isnull && is_c_utf8(TextDatumGetCString(d));
	}
	ReleaseSysCache(tup);
	return bytewise;
}

bool
PgGpuCollationIsDeterministic(Oid collid)
{
	return OidIsValid(collid) && get_collation_isdeterministic(collid);
}

/*
 * x LIKE / NOT LIKE a constant pattern (textlike, bpcharlike and their negations;
 * bpcharlike is textlike on the blank-padded value).  Refused: a pattern that is
 * not a constant, a database encoding other than UTF-8 (like.c's other matchers
 * count characters differently, and the pattern's markers below could be
 * characters), a nondeterministic collation (PostgreSQL raises its error), and a
 * pattern ending in a lone escape, which PostgreSQL rejects with an error when
 * its matcher reaches it.  ESCAPE 'x' arrives folded by like_escape() into a
 * pattern with the default escape.  The pattern is rewritten for like_match
 * (expr.cuh): escapes resolved, % and _ as PG_GPU_LIKE_ANY / _ONE, bytes valid
 * UTF-8 never holds.  like_pattern: the rewritten pattern into buf (*m bytes),
 * or false where refused.
 */
static bool
like_pattern(List *args, Oid collid, uint8 *buf, int *m)
{
	Node	   *pat;
	text	   *p;
	const uint8 *b;
	int			n;

	*m = 0;
	if (list_length(args) != 2 || GetDatabaseEncoding() != PG_UTF8 ||
		!PgGpuCollationIsDeterministic(collid))
		return false;
	pat = (Node *) lsecond(args);
	while (IsA(pat, RelabelType))
		pat = (Node *) ((RelabelType *) pat)->arg;
	if (!IsA(pat, Const) || ((Const *) pat)->constisnull ||
		PgGpuValueType(((Const *) pat)->consttype) != PG_GPU_TEXT)
		return false;
	p = DatumGetTextPP(((Const *) pat)->constvalue);
	b = (const uint8 *) VARDATA_ANY(p);
	n = VARSIZE_ANY_EXHDR(p);
	for (int i = 0; i < n; i++)
	{
		uint8		ch = b[i];

		if (*m >= PG_GPU_MAX_STRPOOL)
			return false;
		if (ch == '\\')
		{
			if (++i == n)
				return false;	/* "must not end with escape character" */
			buf[(*m)++] = b[i];
		}
		else if (ch == '%')
		{
			/* %% is %: one place to backtrack to */
			if (*m == 0 || buf[*m - 1] != PG_GPU_LIKE_ANY)
				buf[(*m)++] = PG_GPU_LIKE_ANY;
		}
		else if (ch == '_')
			buf[(*m)++] = PG_GPU_LIKE_ONE;
		else
			buf[(*m)++] = ch;
	}
	return true;
}

bool
compile_like(PgGpuCompiler *c, List *args, Oid collid, bool negate, int *type)
{
	int			m,
				idx,
				t;
	uint8		buf[PG_GPU_MAX_STRPOOL];

	if (!like_pattern(args, collid, buf, &m) ||
		!compile(c, (Expr *) linitial(args), &t) || !is_text(t) ||
		!add_bytes_const(c, buf, m, &idx))
		return false;
	*type = PG_GPU_BOOL;
	return emit(c, PG_GPU_OP_LIKE, t, idx, negate ? 1 : 0, 0);
}

/*
 * Whether LIKE with these arguments raises nothing whatever the text: the
 * pattern compile_like takes (constant, not ending in a lone escape, under a
 * deterministic collation: PostgreSQL's only errors are about those).
 */
bool
PgGpuLikeFunction(Oid fn, bool *negated)
{
	*negated = fn == F_TEXTNLIKE || fn == F_BPCHARNLIKE || fn == F_NOTLIKE_TEXT_TEXT;
	return *negated || fn == F_TEXTLIKE || fn == F_BPCHARLIKE || fn == F_LIKE_TEXT_TEXT;
}

bool
PgGpuLikeCannotRaise(List *args, Oid collid)
{
	int			m;
	uint8		buf[PG_GPU_MAX_STRPOOL];

	return like_pattern(args, collid, buf, &m);
}

/* A non-NULL int4 constant's value. */
static bool
int4_const(Node *n, int32 *v)
{
	if (!IsA(n, Const) || ((Const *) n)->constisnull || ((Const *) n)->consttype != INT4OID)
		return false;
	*v = DatumGetInt32(((Const *) n)->constvalue);
	return true;
}

/*
 * substring(x from s for l), substr(x, s[, l]) and left(x, l >= 0) with constant
 * s and l, as text_substring computes them in a UTF-8 database: characters
 * max(s, 1) .. s + l - 1; a negative length raises (refused here), an end past
 * int4 means to the end of the string.
 */
bool
compile_substr(PgGpuCompiler *c, FuncExpr *f, int *type)
{
	int64		skip = 0,
				count = PG_GPU_SUBSTR_ALL;
	int32		start = 1,
				len = 0;
	int			nargs = list_length(f->args);
	int			t,
				idx;

	if (GetDatabaseEncoding() != PG_UTF8 || nargs < 2 || nargs > 3)
		return false;
	if (f->funcid == F_LEFT)
	{
		if (nargs != 2 || !int4_const((Node *) lsecond(f->args), &len) || len < 0)
			return false;
		count = len;
	}
	else
	{
		if (!int4_const((Node *) lsecond(f->args), &start))
			return false;
		skip = Max(start, 1) - 1;
		if (nargs == 3)
		{
			int64		end;

			if (!int4_const((Node *) lthird(f->args), &len) || len < 0)
				return false;
			end = (int64) start + len;
			if (end < 1)
				count = 0;
			else if (end <= PG_INT32_MAX)
				count = end - (skip + 1);
		}
	}
	if (!compile(c, (Expr *) linitial(f->args), &t) || t != PG_GPU_TEXT ||
		!add_const(c, Int64GetDatum((int64) (((uint64) skip << 32) | (uint64) count)), false,
				   PG_GPU_INT8, &idx))
		return false;
	*type = PG_GPU_TEXT;
	return emit(c, PG_GPU_OP_SUBSTR, PG_GPU_TEXT, idx, 0, 0);
}

bool
PgGpuIsColumnText(Expr *expr, Index relid)
{
	for (;;)
	{
		if (IsA(expr, RelabelType))
			expr = ((RelabelType *) expr)->arg;
		else if (IsA(expr, FuncExpr) && ((FuncExpr *) expr)->args != NIL &&
				 (((FuncExpr *) expr)->funcid == F_TEXT_BPCHAR ||
				  ((FuncExpr *) expr)->funcid == F_SUBSTR_TEXT_INT4_INT4 ||
				  ((FuncExpr *) expr)->funcid == F_SUBSTR_TEXT_INT4 ||
				  ((FuncExpr *) expr)->funcid == F_SUBSTRING_TEXT_INT4_INT4 ||
				  ((FuncExpr *) expr)->funcid == F_SUBSTRING_TEXT_INT4 ||
				  ((FuncExpr *) expr)->funcid == F_LEFT))
			expr = (Expr *) linitial(((FuncExpr *) expr)->args);
		else
			break;
	}
	return IsA(expr, Var) && ((Var *) expr)->varno == (int) relid &&
		((Var *) expr)->varlevelsup == 0 && ((Var *) expr)->varattno > 0;
}
