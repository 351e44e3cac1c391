/*
 * group_test.cu — GROUP BY with filters: integer, float (NaN and -0 folding) and
 * NULL keys, few and many groups, tables that outgrow their first size, and a
 * filter that raises an error, against a CPU reference of the groups.
 */
#include <thread>

#include "test_util.h"


/*
 * Columns 0 id int4, 1 text (NULL-ness), 2 i2, 3 f4, 4 i8, 5 f8, 6 i4.  Inputs:
 * every numeric column plus count(text).  Filter: i4 > cut OR i2 IS NULL.
 * Keys: mode 0: id % K (int4); mode 1: f8 (NaN and -0 folding) and i2 % 3
 * (NULL keys).  mode 2 adds a filter that divides by zero.
 */
static pg_gpu_agg_task
make_group_task(int mode, int K, int64_t cut)
{
	pg_gpu_agg_task t;
	int			types[] = {PG_GPU_INT4, PG_GPU_ANY, PG_GPU_INT2, PG_GPU_FLOAT4,
		PG_GPU_INT8, PG_GPU_FLOAT8, PG_GPU_INT4};

	task_schema(t, types);
	for (int c = 1; c < kNatts; c++)
	{
		pg_gpu_expr &e = t.inputs[t.ninputs++];

		e.start = (uint16_t) t.nprog;
		e.len = 1;
		e.type = (uint8_t) types[c];
		e.needs = PG_GPU_NEED_MINMAX | PG_GPU_NEED_SUM | PG_GPU_NEED_AVG | PG_GPU_NEED_VAR;
		emit_op(t, PG_GPU_OP_COL, types[c], c);
	}
	/* filter */
	t.filter.start = (uint16_t) t.nprog;
	t.consts[0] = (uint64_t) cut;
	emit_op(t, PG_GPU_OP_OR_BEGIN, PG_GPU_BOOL);
	emit_op(t, PG_GPU_OP_COL, PG_GPU_INT4, 6);
	emit_op(t, PG_GPU_OP_CONST, PG_GPU_INT8, 0);
	emit_op(t, PG_GPU_OP_CMP, PG_GPU_INT8, PG_GPU_CMP_GT);
	emit_op(t, PG_GPU_OP_OR_STEP, PG_GPU_BOOL);
	emit_op(t, PG_GPU_OP_COL, PG_GPU_INT2, 2);
	emit_op(t, PG_GPU_OP_ISNULL, PG_GPU_BOOL);
	emit_op(t, PG_GPU_OP_OR_STEP, PG_GPU_BOOL);
	if (mode == 2)
	{
		/* ... AND i4 / 0 > 1: errors on the first row that gets there */
		t.consts[2] = 0;
		t.consts[3] = 1;
		emit_op(t, PG_GPU_OP_COL, PG_GPU_INT4, 6);
		emit_op(t, PG_GPU_OP_CONST, PG_GPU_INT4, 2);
		emit_op(t, PG_GPU_OP_DIV, PG_GPU_INT4);
		emit_op(t, PG_GPU_OP_CONST, PG_GPU_INT4, 3);
		emit_op(t, PG_GPU_OP_CMP, PG_GPU_INT8, PG_GPU_CMP_GT);
		emit_op(t, PG_GPU_OP_OR_STEP, PG_GPU_BOOL);	/* x OR y OR z: errors unless x/y true */
		t.prog[t.nprog - 1].a = (uint16_t) t.nprog;
	}
	t.prog[t.filter.start + 4].a = (uint16_t) t.nprog;
	t.prog[t.filter.start + 7].a = (uint16_t) t.nprog;
	t.filter.len = (uint16_t) (t.nprog - t.filter.start);
	t.filter.type = PG_GPU_BOOL;
	/* keys */
	t.consts[1] = (uint64_t) K;
	if (mode == 1)
	{
		t.nkeys = 2;
		t.keys[0] = {(uint16_t) t.nprog, 1, PG_GPU_FLOAT8, 0, 0};
		emit_op(t, PG_GPU_OP_COL, PG_GPU_FLOAT8, 5);
		t.consts[4] = 3;
		t.keys[1] = {(uint16_t) t.nprog, 3, PG_GPU_INT2, 0, 0};
		emit_op(t, PG_GPU_OP_COL, PG_GPU_INT2, 2);
		emit_op(t, PG_GPU_OP_CONST, PG_GPU_INT2, 4);
		emit_op(t, PG_GPU_OP_MOD, PG_GPU_INT2);
	}
	else
	{
		t.nkeys = 1;
		t.keys[0] = {(uint16_t) t.nprog, 3, PG_GPU_INT4, 0, 0};
		emit_op(t, PG_GPU_OP_COL, PG_GPU_INT4, 0);
		emit_op(t, PG_GPU_OP_CONST, PG_GPU_INT4, 1);
		emit_op(t, PG_GPU_OP_MOD, PG_GPU_INT4);
	}
	t.groups_hint = K;
	return t;
}

struct RefGroup
{
	int64_t		rows = 0;
	pg_gpu_col_state st[PG_GPU_MAX_AGG_COLS];
};

static std::map<std::vector<uint64_t>, RefGroup>
group_reference(const Table &tb, const pg_gpu_agg_task &t, int mode, int K, int64_t cut)
{
	std::map<std::vector<uint64_t>, RefGroup> m;

	for (const Row &r : tb.rows)
	{
		if (!r.visible)
			continue;
		bool		pass = (!r.null[6] && (int64_t) r.i4 > cut) || r.null[2];

		if (!pass)
			continue;
		std::vector<uint64_t> key;

		if (mode == 1)
		{
			pval		a = {0, r.null[5]},
						b = {0, r.null[2]};

			memcpy(&a.bits, &r.f8, 8);
			if (!r.null[2])
				b.bits = (uint64_t) (int64_t) (r.i2 % 3);
			key = {(a.null ? 1u : 0u) | (b.null ? 2u : 0u), key_word(a, PG_GPU_FLOAT8),
				key_word(b, PG_GPU_INT2)};
		}
		else
			key = {r.null[0] ? 1u : 0u, r.null[0] ? 0 : (uint64_t) (int64_t) (r.id % K)};
		RefGroup   &g = m[key];

		if (g.rows == 0)
			for (int i = 0; i < t.ninputs; i++)
				state_init(g.st[i], t.inputs[i].type);
		g.rows++;
		if (!r.null[1])
			g.st[0].n++;
		if (!r.null[2])
			accum_int(g.st[1], r.i2);
		if (!r.null[3])
			accum_float(g.st[2], r.f4, PG_GPU_FLOAT4);
		if (!r.null[4])
			accum_int(g.st[3], r.i8);
		if (!r.null[5])
			accum_float(g.st[4], r.f8, PG_GPU_FLOAT8);
		if (!r.null[6])
			accum_int(g.st[5], r.i4);
	}
	return m;
}

static void
test_grouped(const Table &tb, int mode, int K, int64_t hint, bool emulate, int chunk)
{
	int64_t		cut = (int64_t) 1 << 30;
	pg_gpu_agg_task t = make_group_task(mode, K, cut);
	pg_gpu_agg_result res;
	pg_gpu_status st;
	char		what[96];

	t.groups_hint = hint;
	t.emulate = emulate ? 1 : 0;
	snprintf(what, sizeof(what), "%s grouped mode %d K %d hint %lld chunk %d",
			 emulate ? "emulated" : "gpu", mode, K, (long long) hint, chunk);
	pg_gpu_agg *agg = run_engine(tb, t, chunk, &res, &st);

	if (!agg)
		return;
	if (mode == 2)
	{
		bool		reaches = false;	/* a visible row evaluates the division */

		for (const Row &r : tb.rows)
			reaches |= r.visible && !r.null[6] && !((int64_t) r.i4 > cut || r.null[2]);
		CHECK(st == (reaches ? PG_GPU_EXPR_ERROR : PG_GPU_OK), "%s: status %d, error expected: %d",
			  what, (int) st, (int) reaches);
		pg_gpu_agg_end(agg);
		return;
	}
	CHECK(st == PG_GPU_OK, "%s: finish status %d", what, (int) st);
	auto		ref = group_reference(tb, t, mode, K, cut);

	CHECK(res.ngroups == (int64_t) ref.size(), "%s: %lld groups vs %zu", what,
		  (long long) res.ngroups, ref.size());
	int64_t		total = 0;

	for (int64_t g = 0; g < res.ngroups; g++)
	{
		uint64_t	keys[PG_GPU_MAX_KEYS];
		uint32_t	nulls;
		int64_t		rows;
		pg_gpu_col_state cs[PG_GPU_MAX_AGG_COLS];

		pg_gpu_agg_group(agg, g, keys, &nulls, &rows, cs);
		std::vector<uint64_t> key = {nulls};

		for (int k = 0; k < t.nkeys; k++)
			key.push_back((nulls >> k) & 1 ? 0 : keys[k]);
		auto		it = ref.find(key);

		CHECK(it != ref.end(), "%s: unexpected group", what);
		if (it == ref.end())
			continue;
		total += rows;
		CHECK(rows == it->second.rows, "%s: group rows %lld vs %lld", what, (long long) rows,
			  (long long) it->second.rows);
		compare_states(what, t, cs, it->second.st, rows, it->second.rows);
	}
	CHECK(total == res.nrows, "%s: rows %lld vs %lld", what, (long long) total, (long long) res.nrows);
	pg_gpu_agg_end(agg);
}


/*
 * One grouped task keyed on the text column, run to its end without CHECK (it may
 * run on several threads at once): each group's text and row count, or an error.
 */
static std::string
text_groups(const Table &tb, int chunk, bool emulate, std::map<std::string, int64_t> *out)
{
	pg_gpu_agg_task t;
	int			types[] = {PG_GPU_INT4, PG_GPU_TEXT, PG_GPU_INT2, PG_GPU_FLOAT4,
		PG_GPU_INT8, PG_GPU_FLOAT8, PG_GPU_INT4};
	pg_gpu_error err;
	pg_gpu_agg_result res;

	task_schema(t, types);
	pg_gpu_expr &e = t.inputs[t.ninputs++];

	e.start = (uint16_t) t.nprog;
	e.len = 1;
	e.type = PG_GPU_INT4;
	e.needs = PG_GPU_NEED_SUM;
	emit_op(t, PG_GPU_OP_COL, PG_GPU_INT4, 6);
	t.nkeys = 1;
	t.keys[0] = {(uint16_t) t.nprog, 1, PG_GPU_TEXT, 0, 0};
	emit_op(t, PG_GPU_OP_COL, PG_GPU_TEXT, 1);
	t.groups_hint = 64;			/* the table grows too */
	t.emulate = emulate ? 1 : 0;
	t.gather = 1;
	t.chunk_pages = chunk;

	pg_gpu_agg *agg = pg_gpu_agg_begin(&t, &err);

	if (!agg)
		return std::string("begin: ") + err.message;
	if (stream_pages(agg, tb, true, [](size_t) { return (uint64_t) 0; }, &res, &err) != PG_GPU_OK)
	{
		pg_gpu_agg_end(agg);
		return std::string("run: ") + err.message;
	}
	for (int64_t g = 0; g < res.ngroups; g++)
	{
		uint64_t	keys[PG_GPU_MAX_KEYS];
		uint32_t	nulls;
		int64_t		rows;
		pg_gpu_col_state cs[PG_GPU_MAX_AGG_COLS];
		std::string k = "NULL";

		pg_gpu_agg_group(agg, g, keys, &nulls, &rows, cs);
		if (!(nulls & 1))
		{
			const uint8_t *v = (const uint8_t *) (uintptr_t) keys[0];
			uint32_t	h;

			memcpy(&h, v, 4);
			k = "'" + std::string((const char *) v + 4, (h >> 2) - 4) + "'";
		}
		(*out)[k] += rows;
	}
	pg_gpu_agg_end(agg);
	return "";
}

/*
 * Text keys of several tasks at once on the GPU (the GPU service runs a task per
 * thread): each thread's groups must be the reference's.  The tasks keep the GPU
 * busy, so that work a chunk's reserve step queues on the thread's default stream
 * (the text arena's counter reset) runs late unless the chunk waits for it: the
 * race that gave Citus wrong star-join groups on the H200 (2026-11-29).
 */
static void
test_text_concurrent(std::mt19937_64 &rng, bool emulate)
{
	Table		tb = make_table(rng, emulate ? 20000 : 150000, false, false);
	std::map<std::string, int64_t> ref;
	const int	nthreads = emulate ? 4 : 8;
	const char *how = emulate ? "emulated" : "gpu";

	for (const Row &r : tb.rows)
		if (r.visible)
			ref[r.null[1] ? "NULL" : "'" + row_text(r) + "'"]++;
	for (int round = 0; round < (emulate ? 1 : 3); round++)
	{
		std::vector<std::map<std::string, int64_t>> got(nthreads);
		std::vector<std::string> errs(nthreads);
		std::vector<std::thread> ts;

		for (int i = 0; i < nthreads; i++)
			ts.emplace_back([&, i]() { errs[i] = text_groups(tb, 8 + 8 * (i % 4), emulate, &got[i]); });
		for (std::thread &th : ts)
			th.join();
		for (int i = 0; i < nthreads; i++)
		{
			CHECK(errs[i].empty(), "%s text keys, %d threads, round %d, thread %d: %s", how,
				  nthreads, round, i, errs[i].c_str());
			if (errs[i].empty())
				CHECK(got[i] == ref,
					  "%s text keys, %d threads, round %d, thread %d: %zu groups, %zu expected%s",
					  how, nthreads, round, i, got[i].size(), ref.size(),
					  got[i].size() == ref.size() ? " (rows moved between groups)" : "");
		}
	}
}

void
group_tests(std::mt19937_64 &rng, bool gpu)
{
	test_text_concurrent(rng, true);
	if (gpu)
		test_text_concurrent(rng, false);
	for (int n : {1, 37, 5000, 60000})
		for (int special = 0; special < 2; special++)
		{
			Table		tb = make_table(rng, n, special);

			for (int emulate = 1; emulate >= (gpu ? 0 : 1); emulate--)
			{
				test_grouped(tb, 0, 1, 1, emulate, 4096);
				test_grouped(tb, 0, 7, 7, emulate, 7);
				test_grouped(tb, 0, 1000, 1000, emulate, 4096);
				test_grouped(tb, 0, 100000, 100000, emulate, 4096);
				test_grouped(tb, 0, 100000, 1, emulate, 3);	/* outgrows its table */
				test_grouped(tb, 1, 0, 50, emulate, 4096);
				test_grouped(tb, 1, 0, 100000, emulate, 5);
				test_grouped(tb, 2, 10, 10, emulate, 4096);
			}
		}
}
