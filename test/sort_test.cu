/*
 * sort_test.cu — ORDER BY: the engine's sorted tuples against a stable sort of
 * the generated rows (ties in scan order, as PostgreSQL's sort of a scan leaves
 * them), for integer and text keys in both directions and NULL placements; with
 * LIMIT (on the GPU a small one goes through the top-N select); in one run and,
 * under a small memory budget, in several runs merged (out of core); and the
 * child-plan key sort (pg_gpu_keysort_*).  Keys the sort words cannot order —
 * text equal in its first 64 bytes and longer — must make the engine answer
 * PG_GPU_UNORDERED, including when the top-N select gives up because more than
 * half the rows tie at its threshold.
 */
#include <algorithm>

#include "test_util.h"

namespace
{

/* A sort key: a column of the test schema, its type, direction and NULL placement. */
struct SortKey
{
	int			col;
	int			type;
	bool		desc;
	bool		nulls_first;
};

/* Every column read (sorted by attidx); the keys' programs read theirs. */
pg_gpu_agg_task
make_sort_task(const std::vector<SortKey> &keys, int64_t limit, int64_t budget, int64_t pages)
{
	pg_gpu_agg_task t;
	int			types[] = {PG_GPU_INT4, PG_GPU_TEXT, PG_GPU_INT2, PG_GPU_FLOAT4,
		PG_GPU_INT8, PG_GPU_FLOAT8, PG_GPU_INT4};

	task_schema(t, types);
	for (const SortKey &k : keys)
	{
		int			i = t.nkeys++;

		t.keys[i].start = (uint16_t) t.nprog;
		t.keys[i].len = 1;
		t.keys[i].type = (uint8_t) k.type;
		t.key_desc[i] = k.desc ? 1 : 0;
		t.key_nulls_first[i] = k.nulls_first ? 1 : 0;
		emit_op(t, PG_GPU_OP_COL, k.type, k.col);
	}
	t.sort = 1;
	t.sort_limit = limit;
	t.sort_budget = budget;
	t.total_pages = pages;
	return t;
}

/* A table of the given rows, in order, all visible and all-visible pages. */
Table
table_from_rows(const std::vector<Row> &rows)
{
	Table		tb;
	PageBuilder pb;
	auto		flush = [&]() {
		tb.pages.push_back(pb.page);
		tb.nlp.push_back(pb.nlp);
		tb.vis.push_back({});
		pb = PageBuilder();
	};

	for (const Row &r : rows)
	{
		if (!pb.add(r))
		{
			flush();
			pb.add(r);
		}
		tb.rows.push_back(r);
	}
	if (pb.nlp)
		flush();
	return tb;
}

/* Row r's key k: <0, 0, >0 as PostgreSQL orders them (NULLs by placement). */
int
key_cmp(const Row &a, const Row &b, const SortKey &k)
{
	bool		an = a.null[k.col],
				bn = b.null[k.col];

	if (an || bn)
		return an == bn ? 0 : (an == k.nulls_first ? -1 : 1);

	int			c = 0;

	if (k.col == 1)
	{
		std::string x = row_text(a),
					y = row_text(b);
		int			m = memcmp(x.data(), y.data(), std::min(x.size(), y.size()));

		c = m != 0 ? m : (x.size() < y.size() ? -1 : x.size() > y.size() ? 1 : 0);
	}
	else
	{
		int64_t		x = k.col == 2 ? a.i2 : k.col == 4 ? a.i8 : k.col == 6 ? a.i4 : a.id,
					y = k.col == 2 ? b.i2 : k.col == 4 ? b.i8 : k.col == 6 ? b.i4 : b.id;

		c = x < y ? -1 : x > y ? 1 : 0;
	}
	return k.desc ? -c : c;
}

/* The visible rows' indexes in sorted order, ties in scan order. */
std::vector<size_t>
sort_reference(const Table &tb, const std::vector<SortKey> &keys)
{
	std::vector<size_t> idx;

	for (size_t i = 0; i < tb.rows.size(); i++)
		if (tb.rows[i].visible)
			idx.push_back(i);
	std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
		for (const SortKey &k : keys)
		{
			int			c = key_cmp(tb.rows[a], tb.rows[b], k);

			if (c != 0)
				return c < 0;
		}
		return false;
	});
	return idx;
}

/*
 * Sort the table with the engine; returns the finish status, and on success
 * *order the rows handed out (indexes into tb.rows) and *res.
 */
pg_gpu_status
run_sort(const Table &tb, const pg_gpu_agg_task &t, int chunk, std::vector<size_t> *order,
		 pg_gpu_agg_result *res, const char *what)
{
	/* (page, line pointer) -> row; pages hold consecutive rows */
	std::vector<size_t> first(tb.pages.size() + 1, 0);
	pg_gpu_status st;
	pg_gpu_error err;

	for (size_t p = 0; p < tb.pages.size(); p++)
		first[p + 1] = first[p] + tb.nlp[p];

	pg_gpu_agg *agg = run_engine(tb, t, chunk, res, &st);

	if (!agg)
		return st;
	order->clear();
	for (bool more = st == PG_GPU_OK; more;)
	{
		pg_gpu_sort_batch b;

		st = pg_gpu_sort_next(agg, &b, &err);
		CHECK(st == PG_GPU_OK, "%s: sort_next: %s", what, err.message);
		more = st == PG_GPU_OK && b.nrows > 0;
		for (int64_t i = 0; more && i < b.nrows; i++)
		{
			uint64_t	page = b.ref[i] >> 32;
			uint32_t	lp = (uint32_t) (b.ref[i] >> 16) & 0xFFFF;
			uint32_t	len = (uint32_t) (b.ref[i] & 0xFFFF);
			bool		ok = page < tb.pages.size() && lp >= 1 && lp <= (uint32_t) tb.nlp[page];

			CHECK(ok, "%s: bad reference %llx", what, (unsigned long long) b.ref[i]);
			if (!ok)
				continue;

			/* the tuple's bytes, as they are on its page */
			const uint8_t *pg = tb.pages[page].data();
			uint32_t	w;

			memcpy(&w, pg + PG_GPU_PAGE_HEADER_SIZE + 4 * (lp - 1), 4);
			CHECK(PG_GPU_LP_LEN(w) == len &&
				  memcmp(b.data + (b.off[i] - b.off[0]), pg + PG_GPU_LP_OFF(w), len) == 0,
				  "%s: tuple %lld's bytes", what, (long long) i);
			order->push_back(first[page] + lp - 1);
		}
	}
	pg_gpu_agg_end(agg);
	return st;
}

void
test_sort(const Table &tb, const std::vector<SortKey> &keys, int64_t limit, int64_t budget,
		  bool emulate, int chunk)
{
	pg_gpu_agg_task t = make_sort_task(keys, limit, budget, (int64_t) tb.pages.size());
	std::vector<size_t> want = sort_reference(tb, keys),
				got;
	pg_gpu_agg_result res;
	char		what[128];

	t.emulate = emulate ? 1 : 0;
	snprintf(what, sizeof(what), "%s sort of %zu rows, %zu keys, limit %lld, budget %lld, chunk %d",
			 emulate ? "emulated" : "gpu", tb.rows.size(), keys.size(), (long long) limit,
			 (long long) budget, chunk);

	pg_gpu_status st = run_sort(tb, t, chunk, &got, &res, what);

	CHECK(st == PG_GPU_OK, "%s: status %d", what, (int) st);
	if (st != PG_GPU_OK)
		return;
	int64_t		nvisible = (int64_t) want.size();

	if (limit > 0 && (size_t) limit < want.size())
		want.resize((size_t) limit);
	CHECK(res.nrows == nvisible, "%s: rows %lld vs %lld", what, (long long) res.nrows,
		  (long long) nvisible);
	/*
	 * Rows with equal keys may come in any order (the GPU appends each block's rows
	 * where an atomic add puts them): the keys must follow the reference's row by
	 * row, and without a LIMIT the rows must be the same set.
	 */
	bool		same = got.size() == want.size();

	for (size_t i = 0; same && i < got.size(); i++)
		for (const SortKey &k : keys)
			same = same && key_cmp(tb.rows[got[i]], tb.rows[want[i]], k) == 0;
	CHECK(same, "%s: order differs (%zu rows vs %zu)", what, got.size(), want.size());
	if (same && (limit <= 0 || (size_t) limit >= (size_t) nvisible))
	{
		std::vector<size_t> a = got,
					b = want;

		std::sort(a.begin(), a.end());
		std::sort(b.begin(), b.end());
		CHECK(a == b, "%s: not the same rows", what);
	}
	if (budget > 0 && tb.pages.size() > 256)
		CHECK(res.sort_runs >= 2, "%s: %d runs, several expected", what, (int) res.sort_runs);
	/* a small LIMIT over integer keys: the GPU selects before it sorts */
	if (!emulate && budget == 0 && limit > 0 && keys[0].type != PG_GPU_TEXT &&
		limit <= nvisible / 8)
		CHECK(res.sort_topn > 0, "%s: no top-N select", what);
}

/*
 * Text keys equal in their first 64 bytes and longer (row_text depends on id % 26
 * and the length), after a few NULLs placed last, under LIMIT 3: the top-N
 * select finds more than half the rows tied at its threshold, sorts them all,
 * and the neighbours the words cannot order must still be found.
 */
void
test_unordered(bool emulate, bool limit)
{
	std::vector<Row> rows;

	for (int i = 0; i < 400; i++)
	{
		Row			r = {};

		r.id = 26 * i;
		r.textlen = 70 + i % 30;
		r.null[1] = i % 97 == 5;
		r.i2 = (int16_t) i;
		r.visible = true;
		rows.push_back(r);
	}

	Table		tb = table_from_rows(rows);
	std::vector<SortKey> keys = {{1, PG_GPU_TEXT, false, false}};
	pg_gpu_agg_task t = make_sort_task(keys, limit ? 3 : 0, 0, (int64_t) tb.pages.size());
	std::vector<size_t> got;
	pg_gpu_agg_result res;
	char		what[96];

	t.emulate = emulate ? 1 : 0;
	snprintf(what, sizeof(what), "%s sort of long equal-prefix text%s",
			 emulate ? "emulated" : "gpu", limit ? " under LIMIT 3" : "");

	pg_gpu_status st = run_sort(tb, t, 4096, &got, &res, what);

	CHECK(st == PG_GPU_UNORDERED, "%s: status %d, UNORDERED expected", what, (int) st);
}

/* Short text keys (at most 50 bytes: the words order them all), some NULL. */
Table
short_text_table(std::mt19937_64 &rng, int n)
{
	std::vector<Row> rows;

	for (int i = 0; i < n; i++)
	{
		Row			r = {};

		r.id = (int32_t) (rng() % 100000);
		r.textlen = (int) (rng() % 51);
		r.null[1] = rng() % 20 == 0;
		r.i2 = (int16_t) (rng() % 7);
		r.i8 = (int64_t) rng();
		r.visible = true;
		rows.push_back(r);
	}
	return table_from_rows(rows);
}

/* pg_gpu_keysort_*: int8 keys with NULLs and ties, and long equal-prefix text. */
void
test_keysort(std::mt19937_64 &rng, bool emulate)
{
	const char *what = emulate ? "emulated keysort" : "gpu keysort";
	pg_gpu_agg_task t = make_sort_task({{4, PG_GPU_INT8, true, false}, {2, PG_GPU_INT2, false, true}},
									   0, 0, 0);
	pg_gpu_error err;

	t.emulate = emulate ? 1 : 0;

	pg_gpu_keysort *ks = pg_gpu_keysort_begin(&t, &err);

	CHECK(ks != nullptr, "%s: begin: %s", what, err.message);
	if (!ks)
		return;

	std::vector<Row> rows(20000);

	for (size_t i = 0; i < rows.size(); i++)
	{
		Row		   &r = rows[i];

		r = Row();
		r.id = (int32_t) i;
		r.i8 = (int64_t) (rng() % 500) - 250;
		r.i2 = (int16_t) (rng() % 5);
		r.null[4] = rng() % 10 == 0;
		r.null[2] = rng() % 10 == 0;
		r.visible = true;

		uint64_t	vals[2] = {(uint64_t) r.i8, (uint64_t) (int64_t) r.i2};
		uint32_t	lens[2] = {0, 0};
		uint32_t	nulls = (r.null[4] ? 1u : 0) | (r.null[2] ? 2u : 0);

		CHECK(pg_gpu_keysort_add(ks, vals, lens, nulls, &err) == PG_GPU_OK, "%s: add: %s", what,
			  err.message);
	}

	Table		tb;
	const uint32_t *order = nullptr;
	uint64_t	n = 0,
				h2d = 0;
	double		ms = 0;

	tb.rows = rows;

	std::vector<size_t> want = sort_reference(tb, {{4, PG_GPU_INT8, true, false},
												   {2, PG_GPU_INT2, false, true}});
	pg_gpu_status st = pg_gpu_keysort_sort(ks, &order, &n, &ms, &h2d, &err);

	CHECK(st == PG_GPU_OK, "%s: sort: %s", what, err.message);
	if (st == PG_GPU_OK)
		CHECK(n == want.size() && std::equal(want.begin(), want.end(), order),
			  "%s: order differs", what);
	pg_gpu_keysort_end(ks);

	/* text equal in its first 64 bytes and longer: not ordered by the words */
	t = make_sort_task({{1, PG_GPU_TEXT, false, false}}, 2, 0, 0);
	t.emulate = emulate ? 1 : 0;
	ks = pg_gpu_keysort_begin(&t, &err);
	CHECK(ks != nullptr, "%s: begin (text): %s", what, err.message);
	if (!ks)
		return;

	std::string base(64, 'q');
	std::vector<std::string> texts;

	for (int i = 0; i < 50; i++)
		texts.push_back(base + std::string(1 + i % 7, (char) ('a' + i % 5)));
	for (const std::string &s : texts)
	{
		uint64_t	v = (uint64_t) (uintptr_t) s.data();
		uint32_t	len = (uint32_t) s.size();

		pg_gpu_keysort_add(ks, &v, &len, 0, &err);
	}
	st = pg_gpu_keysort_sort(ks, &order, &n, &ms, &h2d, &err);
	CHECK(st == PG_GPU_UNORDERED, "%s: long text: status %d, UNORDERED expected", what, (int) st);
	pg_gpu_keysort_end(ks);
}

}							/* namespace */

void
sort_tests(std::mt19937_64 &rng, bool gpu)
{
	std::vector<std::vector<SortKey>> int_keys = {
		{{6, PG_GPU_INT4, false, false}},
		{{2, PG_GPU_INT2, true, true}, {4, PG_GPU_INT8, false, false}},
		{{2, PG_GPU_INT2, false, false}},	/* many ties: scan order */
	};

	for (int emulate = 1; emulate >= (gpu ? 0 : 1); emulate--)
	{
		for (int n : {1, 37, 5000, 60000})
		{
			Table		tb = make_table(rng, n, false, false);

			for (const auto &keys : int_keys)
			{
				test_sort(tb, keys, 0, 0, emulate != 0, 4096);
				test_sort(tb, keys, 0, 0, emulate != 0, 7);
				test_sort(tb, keys, 5, 0, emulate != 0, 4096);	/* top-N */
				test_sort(tb, keys, n / 2 + 1, 0, emulate != 0, 4096);
			}
			if (n >= 5000)
			{
				/* out of core: runs of a few hundred kB, merged */
				test_sort(tb, int_keys[1], 0, 3 << 20, emulate != 0, 8);
				test_sort(tb, int_keys[0], 100, 3 << 20, emulate != 0, 8);
			}
		}

		Table		tt = short_text_table(rng, 30000);

		for (bool desc : {false, true})
			for (bool nf : {false, true})
			{
				std::vector<SortKey> keys = {{1, PG_GPU_TEXT, desc, nf}, {2, PG_GPU_INT2, false, false}};

				test_sort(tt, keys, 0, 0, emulate != 0, 4096);
				test_sort(tt, keys, 10, 0, emulate != 0, 4096);
				test_sort(tt, keys, 0, 3 << 20, emulate != 0, 8);
			}
		test_unordered(emulate != 0, true);
		test_unordered(emulate != 0, false);
		test_keysort(rng, emulate != 0);
	}
}
