/*
 * keyset_test.cu — key sets (built from host keys, and collected from a scan's
 * passing rows) and dictionaries: sizes, multiplicities, every key found and
 * absent ones not, on the GPU and emulated.
 */
#include "test_util.h"

/* ---- key sets (keyset.cuh, pg_gpu_keyset_*) ------------------------------ */

/* n keys of a type with duplicates, and the reference: each key's least index */
static void
test_keyset(std::mt19937_64 &rng, int type, uint64_t n, bool emulate)
{
	std::vector<int64_t> vals;
	std::string data;
	std::vector<uint64_t> off(1, 0);
	std::vector<std::string> norm;
	std::map<std::string, int64_t> first;
	const char	alpha[] = "ab ";
	auto		make = [&](uint64_t i, bool miss, std::vector<int64_t> &v, std::string &d,
						   std::vector<uint64_t> &o) -> std::string {
		if (type == PG_GPU_INT8)
		{
			int64_t		x = (int64_t) (rng() % (n / 2 + 3)) - (int64_t) (n / 4) + (miss ? (int64_t) n : 0);

			if (i % 997 == 5)
				x = (i & 1) ? INT64_MIN : INT64_MAX;
			v.push_back(x);
			return std::to_string(x);
		}
		size_t		len = (i % 50 == 7) ? 40 + rng() % 90 : rng() % 6;
		std::string k;

		for (size_t c = 0; c < len; c++)
			k += miss && c == 0 ? 'z' : alpha[rng() % 3];
		d += k;
		o.push_back(d.size());
		while (type == PG_GPU_BPCHAR && !k.empty() && k.back() == ' ')
			k.pop_back();
		return k;
	};

	for (uint64_t i = 0; i < n; i++)
	{
		norm.push_back(make(i, false, vals, data, off));
		first.emplace(norm.back(), (int64_t) i);
	}

	pg_gpu_error err;
	pg_gpu_keyset *ks = pg_gpu_keyset_build(type, n, vals.data(), data.data(), off.data(),
											emulate, &err);

	CHECK(ks != nullptr, "keyset build (type %d, n %llu, emulate %d): %s", type,
		  (unsigned long long) n, emulate, err.message);
	if (!ks)
		return;
	CHECK(pg_gpu_keyset_size(ks) == first.size(), "keyset size %llu vs %zu (type %d, emulate %d)",
		  (unsigned long long) pg_gpu_keyset_size(ks), first.size(), type, emulate);

	/* the largest multiplicity, which bounds an inner join's repeated rows */
	{
		std::map<std::string, uint64_t> count;
		uint64_t	want = 0;
		pg_gpu_set_ref ref = {};

		for (const std::string &k : norm)
			want = std::max(want, ++count[k]);
		pg_gpu_keyset_ref(ks, &ref);
		CHECK(ref.max_mult == want, "keyset max_mult %llu vs %llu (type %d, n %llu, emulate %d)",
			  (unsigned long long) ref.max_mult, (unsigned long long) want, type,
			  (unsigned long long) n, emulate);
	}

	/* the build keys themselves, then probes half of which miss */
	std::vector<int64_t> out(n + 1);
	int			bad = 0;

	CHECK(pg_gpu_keyset_probe(ks, n, vals.data(), data.data(), off.data(), out.data(), &err) ==
		  PG_GPU_OK, "keyset probe: %s", err.message);
	for (uint64_t i = 0; i < n; i++)
		bad += out[i] != first[norm[i]];
	CHECK(bad == 0, "keyset: %d of %llu build keys found at the wrong ordinal (type %d, emulate %d)",
		  bad, (unsigned long long) n, type, emulate);

	/* the same ordinals from the set's own keys, not sent again */
	out.assign(n + 1, -2);
	CHECK(pg_gpu_keyset_ordinals(ks, out.data(), &err) == PG_GPU_OK, "keyset ordinals: %s",
		  err.message);
	bad = 0;
	for (uint64_t i = 0; i < n; i++)
		bad += out[i] != first[norm[i]];
	CHECK(bad == 0, "keyset: %d of %llu own ordinals wrong (type %d, emulate %d)", bad,
		  (unsigned long long) n, type, emulate);

	uint64_t	m = n + 17;
	std::vector<int64_t> pv;
	std::string pd;
	std::vector<uint64_t> po(1, 0);
	std::vector<std::string> pn;

	for (uint64_t j = 0; j < m; j++)
		pn.push_back(make(j, j % 2 == 1, pv, pd, po));
	out.assign(m, 0);
	CHECK(pg_gpu_keyset_probe(ks, m, pv.data(), pd.data(), po.data(), out.data(), &err) ==
		  PG_GPU_OK, "keyset probe: %s", err.message);
	bad = 0;
	for (uint64_t j = 0; j < m; j++)
	{
		auto		it = first.find(pn[j]);

		bad += out[j] != (it == first.end() ? -1 : it->second);
	}
	CHECK(bad == 0, "keyset: %d of %llu probes wrong (type %d, emulate %d)", bad,
		  (unsigned long long) m, type, emulate);
	pg_gpu_keyset_free(ks);
}

/* ---- dictionaries (trie.cuh, pg_gpu_dict_*) -------------------------------- */

/*
 * n keys over a small alphabet (shared prefixes, keys that are prefixes of others,
 * the empty key, duplicates, long keys, bytes over 127), both kinds: every key
 * found at its least index, on the host and (gpu) in one bulk probe on the GPU;
 * probes that miss answer -1.
 */
static void
test_dict(std::mt19937_64 &rng, int kind, uint64_t n, bool gpu)
{
	std::string data;
	std::vector<uint64_t> off(1, 0);
	std::vector<std::string> keys;
	std::map<std::string, int64_t> first;
	auto		make = [&](uint64_t i) {
		size_t		len = (i % 97 == 3) ? 300 + rng() % 900 : rng() % 7;
		std::string k;

		for (size_t c = 0; c < len; c++)
			k += "ab\xc3\xa9z"[rng() % 5];
		return k;
	};

	for (uint64_t i = 0; i < n; i++)
	{
		keys.push_back(make(i));
		first.emplace(keys.back(), (int64_t) i);
		data += keys.back();
		off.push_back(data.size());
	}

	pg_gpu_error err;
	pg_gpu_dict *d = pg_gpu_dict_build(kind, n, data.data(), off.data(), gpu, &err);

	CHECK(d != nullptr, "dict build (kind %d, n %llu, gpu %d): %s", kind, (unsigned long long) n,
		  gpu, err.message);
	if (!d)
		return;

	pg_gpu_dict_info info;

	pg_gpu_dict_get_info(d, &info);
	CHECK(info.distinct == first.size(), "dict distinct %llu vs %zu (kind %d)",
		  (unsigned long long) info.distinct, first.size(), kind);

	/* probes: the keys, then as many others, about half of them absent */
	std::vector<std::string> probes(keys);
	std::string pd;
	std::vector<uint64_t> po(1, 0);

	for (uint64_t j = 0; j < n + 50; j++)
	{
		std::string p = make(j);

		if (j % 3 == 0)
			p += "b";
		else if (j % 3 == 1 && !p.empty())
			p.pop_back();
		probes.push_back(p);
	}
	for (const std::string &p : probes)
	{
		pd += p;
		po.push_back(pd.size());
	}

	int			bad = 0;

	for (size_t j = 0; j < probes.size(); j++)
	{
		auto		it = first.find(probes[j]);

		bad += pg_gpu_dict_find(d, probes[j].data(), (uint32_t) probes[j].size()) !=
			(it == first.end() ? -1 : it->second);
	}
	CHECK(bad == 0, "dict (kind %d, n %llu): %d of %zu host lookups wrong", kind,
		  (unsigned long long) n, bad, probes.size());
	if (gpu)
	{
		std::vector<int64_t> out(probes.size());
		double		ms;

		CHECK(pg_gpu_dict_probe(d, probes.size(), pd.data(), po.data(), out.data(), &ms, &err) ==
			  PG_GPU_OK, "dict probe: %s", err.message);
		bad = 0;
		for (size_t j = 0; j < probes.size(); j++)
		{
			auto		it = first.find(probes[j]);

			bad += out[j] != (it == first.end() ? -1 : it->second);
		}
		CHECK(bad == 0, "dict (kind %d, n %llu): %d of %zu GPU lookups wrong", kind,
			  (unsigned long long) n, bad, probes.size());
	}
	pg_gpu_dict_free(d);
}

/* ---- collect tasks: the keys of passing rows, as a key set -------------- */

/*
 * Collect the text column (col 1) or i4 (col 6) of the visible rows whose i2 is
 * not NULL, with a hint of one key (the GPU's arrays must grow), and compare
 * the set with the rows: key count, distinct keys, the NULL flag, every key
 * found and absent ones not.
 */
static void
test_collect(const Table &tb, int col, bool emulate, int chunk)
{
	bool		text = col == 1;
	pg_gpu_agg_task t = make_task();
	int			kcol = text ? 0 : 1;	/* cols sorted by attribute */
	int			icol = text ? 1 : 0;
	char		what[96];

	snprintf(what, sizeof(what), "%s collect %s chunk %d", emulate ? "emulated" : "gpu",
			 text ? "text" : "int4", chunk);
	t.ninputs = 0;
	t.nprog = 0;
	t.ncols = 2;
	t.cols[kcol].attidx = (int16_t) col;
	t.cols[kcol].type = text ? PG_GPU_TEXT : PG_GPU_INT4;
	t.cols[icol].attidx = 2;
	t.cols[icol].type = PG_GPU_INT2;
	t.filter.start = 0;
	emit_op(t, PG_GPU_OP_COL, PG_GPU_INT2, icol);
	emit_op(t, PG_GPU_OP_ISNOTNULL, PG_GPU_BOOL);
	t.filter.len = 2;
	t.filter.type = PG_GPU_BOOL;
	t.keys[0].start = 2;
	emit_op(t, PG_GPU_OP_COL, t.cols[kcol].type, kcol);
	t.keys[0].len = 1;
	t.keys[0].type = t.cols[kcol].type;
	t.nkeys = 1;
	t.collect = 1;
	t.collect_hint = 1;
	t.emulate = emulate ? 1 : 0;

	/* the rows' keys */
	std::vector<std::string> want;
	bool		want_null = false,
				toasted = false;
	int64_t		want_rows = 0;

	for (const Row &r : tb.rows)
	{
		/* a compressed value in a column read stops the task, filter or not */
		if (!r.visible)
			continue;
		if (text && !r.null[1] && r.textlen < 0)
			toasted = true;
		if (r.null[2])
			continue;
		want_rows++;
		if (r.null[col])
			want_null = true;
		else if (!text)
			want.push_back(std::to_string(r.i4));
		else if (r.textlen >= 0)
			want.push_back(row_text(r));
	}

	pg_gpu_agg_result res;
	pg_gpu_status st;
	pg_gpu_agg *agg = run_engine(tb, t, chunk, &res, &st);

	if (!agg)
		return;
	if (toasted)
	{
		CHECK(st == PG_GPU_TOASTED, "%s: status %d, TOASTED expected", what, (int) st);
		pg_gpu_agg_end(agg);
		return;
	}
	CHECK(st == PG_GPU_OK, "%s: finish status %d", what, (int) st);

	uint64_t	nkeys = 0;
	int			has_null = 0;
	pg_gpu_error err;
	pg_gpu_keyset *ks = pg_gpu_agg_keyset(agg, text ? PG_GPU_TEXT : PG_GPU_INT8, &nkeys, &has_null,
										  &err);

	pg_gpu_agg_end(agg);		/* the set outlives the task */
	CHECK(ks != nullptr, "%s: keyset: %s", what, err.message);
	if (!ks)
		return;
	std::set<std::string> distinct(want.begin(), want.end());

	CHECK(nkeys == want.size(), "%s: %llu keys vs %zu", what, (unsigned long long) nkeys, want.size());
	CHECK(pg_gpu_keyset_size(ks) == distinct.size(), "%s: %llu distinct vs %zu", what,
		  (unsigned long long) pg_gpu_keyset_size(ks), distinct.size());
	CHECK(has_null == (want_null ? 1 : 0), "%s: has_null %d", what, has_null);
	CHECK(res.nrows == want_rows, "%s: rows %lld vs %lld", what, (long long) res.nrows,
		  (long long) want_rows);

	/* every distinct key, then ones that are not there */
	std::vector<std::string> probes(distinct.begin(), distinct.end());
	size_t		present = probes.size();

	probes.push_back(text ? std::string(45, 'z') : std::to_string((int64_t) 1 << 40));
	probes.push_back(text ? std::string(3, 'c') : std::to_string(-((int64_t) 1 << 40)));
	std::vector<int64_t> vals;
	std::vector<char> data;
	std::vector<uint64_t> off = {0};

	for (const std::string &k : probes)
	{
		vals.push_back(text ? 0 : std::stoll(k));
		data.insert(data.end(), k.begin(), k.end());
		off.push_back(data.size());
	}
	std::vector<int64_t> out(probes.size());

	CHECK(pg_gpu_keyset_probe(ks, probes.size(), vals.data(), data.data(), off.data(), out.data(),
							  &err) == PG_GPU_OK, "%s: probe: %s", what, err.message);
	int			bad = 0;

	for (size_t j = 0; j < probes.size(); j++)
		bad += (out[j] >= 0) != (j < present);
	CHECK(bad == 0, "%s: %d of %zu probes wrong", what, bad, probes.size());
	pg_gpu_keyset_free(ks);
}

/*
 * A collect task with an aux value (key i2, aux i4): the set keeps each key's
 * least and greatest non-NULL i4 (rows of a NULL i4 left out), which
 * pg_gpu_keyset_probe_ne and PG_GPU_OP_SET_NE read: a probe of key k and x
 * matches when some i4 of k differs from x.  Checked against the rows: the
 * probes with each key's least, greatest and another x, a NULL x and absent
 * keys, then a task over the same rows counting those whose i4 differs from
 * another of their key's.
 */
static void
test_collect_aux(const Table &tb, bool emulate, int chunk)
{
	pg_gpu_agg_task t = make_task();
	char		what[96];

	snprintf(what, sizeof(what), "%s collect with aux chunk %d", emulate ? "emulated" : "gpu", chunk);
	t.ninputs = 0;
	t.nprog = 0;
	t.ncols = 2;
	t.cols[0].attidx = 2;
	t.cols[0].type = PG_GPU_INT2;
	t.cols[1].attidx = 6;
	t.cols[1].type = PG_GPU_INT4;
	t.keys[0].start = 0;
	emit_op(t, PG_GPU_OP_COL, PG_GPU_INT2, 0);
	t.keys[0].len = 1;
	t.keys[0].type = PG_GPU_INT2;
	t.keys[1].start = 1;
	emit_op(t, PG_GPU_OP_COL, PG_GPU_INT4, 1);
	t.keys[1].len = 1;
	t.keys[1].type = PG_GPU_INT4;
	t.nkeys = 2;
	t.collect = 1;
	t.collect_hint = 1;
	t.emulate = emulate ? 1 : 0;

	/* each key's least and greatest i4, and the rows of both */
	std::map<int64_t, std::pair<int64_t, int64_t>> range;
	uint64_t	want_keys = 0;
	bool		want_null = false;

	for (const Row &r : tb.rows)
	{
		if (!r.visible)
			continue;
		if (r.null[2])
		{
			want_null = true;
			continue;
		}
		if (r.null[6])
			continue;
		want_keys++;
		auto		it = range.find(r.i2);

		if (it == range.end())
			range[r.i2] = {r.i4, r.i4};
		else
		{
			it->second.first = std::min<int64_t>(it->second.first, r.i4);
			it->second.second = std::max<int64_t>(it->second.second, r.i4);
		}
	}

	pg_gpu_agg_result res;
	pg_gpu_status st;
	pg_gpu_agg *agg = run_engine(tb, t, chunk, &res, &st);

	if (!agg)
		return;
	CHECK(st == PG_GPU_OK, "%s: finish status %d", what, (int) st);

	uint64_t	nkeys = 0;
	int			has_null = 0;
	pg_gpu_error err;
	pg_gpu_keyset *ks = pg_gpu_agg_keyset(agg, PG_GPU_INT8, &nkeys, &has_null, &err);

	pg_gpu_agg_end(agg);
	CHECK(ks != nullptr, "%s: keyset: %s", what, err.message);
	if (!ks)
		return;
	CHECK(nkeys == want_keys, "%s: %llu keys vs %llu", what, (unsigned long long) nkeys,
		  (unsigned long long) want_keys);
	CHECK(pg_gpu_keyset_size(ks) == range.size(), "%s: %llu distinct vs %zu", what,
		  (unsigned long long) pg_gpu_keyset_size(ks), range.size());
	CHECK(has_null == (want_null ? 1 : 0), "%s: has_null %d", what, has_null);

	/* probes: each key with its least, its greatest and another x, a NULL x; absent keys */
	std::vector<int64_t> keys,
				xs;
	std::vector<uint8_t> xnull;
	std::vector<bool> want;

	for (const auto &kv : range)
	{
		int64_t		lo = kv.second.first,
					hi = kv.second.second;

		for (int64_t x : {lo, hi, lo - 1})
		{
			keys.push_back(kv.first);
			xs.push_back(x);
			xnull.push_back(0);
			want.push_back(lo != x || hi != x);
		}
		keys.push_back(kv.first);
		xs.push_back(lo);
		xnull.push_back(1);
		want.push_back(false);
	}
	for (int64_t k : {40000, -40000})
	{
		keys.push_back(k);
		xs.push_back(1);
		xnull.push_back(0);
		want.push_back(false);
	}

	std::vector<int64_t> out(keys.size()),
				ord(keys.size());

	CHECK(pg_gpu_keyset_probe_ne(ks, keys.size(), keys.data(), xs.data(), xnull.data(), out.data(),
								 &err) == PG_GPU_OK, "%s: probe_ne: %s", what, err.message);
	CHECK(pg_gpu_keyset_probe(ks, keys.size(), keys.data(), nullptr, nullptr, ord.data(), &err) ==
		  PG_GPU_OK, "%s: probe: %s", what, err.message);

	int			bad = 0;

	for (size_t j = 0; j < keys.size(); j++)
		bad += want[j] ? out[j] != ord[j] || out[j] < 0 : out[j] != -1;
	CHECK(bad == 0, "%s: %d of %zu probes with <> wrong", what, bad, keys.size());

	/* a task over the rows: i4 differs from another i4 of its i2 (PG_GPU_OP_SET_NE) */
	pg_gpu_agg_task c = t;
	int64_t		want_rows = 0;

	c.collect = 0;
	c.nkeys = 0;
	c.nprog = 0;
	c.filter.start = 0;
	emit_op(c, PG_GPU_OP_COL, PG_GPU_INT2, 0);
	emit_op(c, PG_GPU_OP_COL, PG_GPU_INT4, 1);
	emit_op(c, PG_GPU_OP_SET_NE, PG_GPU_INT8, 0);
	c.filter.len = 3;
	c.filter.type = PG_GPU_BOOL;
	c.nsets = 1;
	c.sets[0].nonempty = 1;
	pg_gpu_keyset_ref(ks, &c.sets[0]);
	for (const Row &r : tb.rows)
		if (r.visible && !r.null[2] && !r.null[6] &&
			(range[r.i2].first != r.i4 || range[r.i2].second != r.i4))
			want_rows++;
	agg = run_engine(tb, c, chunk, &res, &st);
	if (agg)
	{
		CHECK(st == PG_GPU_OK, "%s: count status %d", what, (int) st);
		CHECK(st != PG_GPU_OK || res.nrows == want_rows, "%s: SET_NE passed %lld rows vs %lld",
			  what, (long long) res.nrows, (long long) want_rows);
		pg_gpu_agg_end(agg);
	}
	pg_gpu_keyset_free(ks);
}

/*
 * A collect task with a payload (collect_pay 3): the unique id its key, i2, i8
 * and "i4 IS NOT NULL" (a bool) carried, NULLs among them.  Checked against
 * the rows: keys, distinct keys, the NULL flag, each column's distinct words
 * (at least the distinct non-NULL values, at most one more), and each key's
 * payload read back by a task grouped by (id, SET_VAL of each column).
 */
static void
test_collect_pay(const Table &tb, bool emulate, int chunk)
{
	pg_gpu_agg_task t = make_task();
	char		what[96];
	const int	types[4] = {PG_GPU_INT4, PG_GPU_INT2, PG_GPU_INT8, PG_GPU_INT4};

	snprintf(what, sizeof(what), "%s collect with payload chunk %d", emulate ? "emulated" : "gpu",
			 chunk);
	t.ninputs = 0;
	t.nprog = 0;
	t.ncols = 4;
	for (int c = 0; c < 4; c++)
	{
		t.cols[c].attidx = (int16_t) (c == 0 ? 0 : c == 1 ? 2 : c == 2 ? 4 : 6);
		t.cols[c].type = types[c];
	}
	for (int k = 0; k < 4; k++)
	{
		t.keys[k].start = t.nprog;
		emit_op(t, PG_GPU_OP_COL, types[k], k);
		t.keys[k].len = 1;
		t.keys[k].type = types[k];
	}
	emit_op(t, PG_GPU_OP_ISNOTNULL, PG_GPU_BOOL);
	t.keys[3].len = 2;
	t.keys[3].type = PG_GPU_BOOL;
	t.nkeys = 4;
	t.collect = 1;
	t.collect_pay = 3;
	t.collect_hint = 1;
	t.emulate = emulate ? 1 : 0;

	std::map<int64_t, const Row *> want;
	std::set<int64_t> d2, d8, db;
	bool		want_null = false,
				n2 = false,
				n8 = false;

	for (const Row &r : tb.rows)
	{
		if (!r.visible)
			continue;
		if (r.null[0])
		{
			want_null = true;
			continue;
		}
		want[r.id] = &r;
		if (r.null[2])
			n2 = true;
		else
			d2.insert(r.i2);
		if (r.null[4])
			n8 = true;
		else
			d8.insert(r.i8);
		db.insert(r.null[6] ? 0 : 1);
	}

	pg_gpu_agg_result res;
	pg_gpu_status st;
	pg_gpu_agg *agg = run_engine(tb, t, chunk, &res, &st);

	if (!agg)
		return;
	CHECK(st == PG_GPU_OK, "%s: finish status %d", what, (int) st);

	uint64_t	nkeys = 0;
	int			has_null = 0;
	pg_gpu_error err;
	pg_gpu_keyset *ks = pg_gpu_agg_keyset(agg, PG_GPU_INT8, &nkeys, &has_null, &err);

	pg_gpu_agg_end(agg);
	CHECK(ks != nullptr, "%s: keyset: %s", what, err.message);
	if (!ks)
		return;
	CHECK(nkeys == want.size() && pg_gpu_keyset_size(ks) == want.size(),
		  "%s: %llu keys, %llu distinct vs %zu", what, (unsigned long long) nkeys,
		  (unsigned long long) pg_gpu_keyset_size(ks), want.size());
	CHECK(has_null == (want_null ? 1 : 0), "%s: has_null %d", what, has_null);

	/* distinct words: the values, and a NULL's 0 where it is not one of them */
	const std::set<int64_t> *ds[3] = {&d2, &d8, &db};
	const bool	ns[3] = {n2, n8, false};

	for (int j = 0; j < 3; j++)
	{
		int64_t		d = pg_gpu_keyset_pay_distinct(ks, j);
		int64_t		lo = (int64_t) ds[j]->size();
		int64_t		hi = lo + ((ns[j] && ds[j]->count(0) == 0) ? 1 : 0);

		CHECK(d == hi || (want.empty() && d == 0), "%s: column %d: %lld distinct words vs %lld",
			  what, j, (long long) d, (long long) hi);
	}

	/* the payload read back: a group per id, its words from the set */
	pg_gpu_agg_task c = t;

	c.collect = 0;
	c.collect_pay = 0;
	c.nprog = 0;
	c.keys[0].start = 0;
	emit_op(c, PG_GPU_OP_COL, PG_GPU_INT4, 0);
	c.keys[0].len = 1;
	for (int j = 0; j < 3; j++)
	{
		c.keys[1 + j].start = c.nprog;
		emit_op(c, PG_GPU_OP_COL, PG_GPU_INT4, 0);
		emit_op(c, PG_GPU_OP_SET_VAL, PG_GPU_INT8, 0, (uint32_t) j);
		c.keys[1 + j].len = 2;
	}
	c.keys[1].type = PG_GPU_INT2;
	c.keys[2].type = PG_GPU_INT8;
	c.keys[3].type = PG_GPU_BOOL;
	c.nsets = 1;
	c.sets[0].nonempty = 1;
	pg_gpu_keyset_ref(ks, &c.sets[0]);
	c.groups_hint = (int64_t) want.size() + 1;
	agg = run_engine(tb, c, chunk, &res, &st);
	if (agg)
	{
		int			bad = 0;
		int64_t		seen = 0;

		CHECK(st == PG_GPU_OK, "%s: read-back status %d", what, (int) st);
		for (int64_t g = 0; st == PG_GPU_OK && g < res.ngroups; g++)
		{
			uint64_t	k[PG_GPU_MAX_KEYS];
			uint32_t	nm = 0;
			int64_t		rows = 0;
			pg_gpu_col_state states[PG_GPU_MAX_AGG_COLS];

			pg_gpu_agg_group(agg, g, k, &nm, &rows, states);
			if (nm & 1)
			{
				/* rows whose id is NULL: no key, every word NULL */
				bad += (nm & 14) != 14;
				continue;
			}
			auto		it = want.find((int64_t) k[0]);

			if (it == want.end())
			{
				bad++;
				continue;
			}
			const Row  &r = *it->second;

			seen++;
			bad += ((nm >> 1) & 1) != (r.null[2] ? 1u : 0u) ||
				(!r.null[2] && (int64_t) k[1] != (int64_t) r.i2);
			bad += ((nm >> 2) & 1) != (r.null[4] ? 1u : 0u) ||
				(!r.null[4] && (int64_t) k[2] != r.i8);
			bad += ((nm >> 3) & 1) != 0 || k[3] != (r.null[6] ? 0u : 1u);
		}
		CHECK(bad == 0 && seen == (int64_t) want.size(), "%s: %d payloads wrong, %lld of %zu keys",
			  what, bad, (long long) seen, want.size());
		pg_gpu_agg_end(agg);
	}
	pg_gpu_keyset_free(ks);
}

void
keyset_tests(std::mt19937_64 &rng, bool gpu)
{
	for (int n : {1, 37, 5000, 60000})
		for (int toast = 0; toast < 2; toast++)
		{
			Table		tb = make_table(rng, n, false, toast != 0);

			for (int emulate = 1; emulate >= (gpu ? 0 : 1); emulate--)
				for (int col : {1, 6})
					for (int chunk : {4096, 3, 1})
						test_collect(tb, col, emulate != 0, chunk);
			for (int emulate = 1; emulate >= (gpu ? 0 : 1); emulate--)
				for (int chunk : {4096, 3})
				{
					test_collect_aux(tb, emulate != 0, chunk);
					test_collect_pay(tb, emulate != 0, chunk);
				}
		}
	for (int emulate = 1; emulate >= (gpu ? 0 : 1); emulate--)
		for (int type : {(int) PG_GPU_INT8, (int) PG_GPU_TEXT, (int) PG_GPU_BPCHAR})
			for (uint64_t n : {0ULL, 1ULL, 1000ULL, 200000ULL})
				test_keyset(rng, type, n, emulate != 0);
	for (int kind : {PG_GPU_DICT_HASH, PG_GPU_DICT_TRIE})
		for (uint64_t n : {0ULL, 1ULL, 2ULL, 5ULL, 1000ULL, 100000ULL})
			test_dict(rng, kind, n, gpu);
}
