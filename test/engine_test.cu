/*
 * engine_test.cu — engine unit tests, no database.
 *
 * Builds heap pages the way PostgreSQL lays them out (page header, line pointers,
 * tuple headers with null bitmaps, attalign padding, short and long varlena and
 * TOAST pointers before the numeric columns, dead line pointers, invisible tuples)
 * from fresh random values every run, and checks:
 *   1. the host-side page walker (the code the kernel inlines) against states
 *      accumulated directly from the generated values;
 *   2. the GPU engine, in gather mode, against the same reference, across chunk
 *      and block boundaries (skipped with a message when there is no GPU);
 *   3. the exact-arithmetic helpers: int128/uint192 to decimal, float8_combine
 *      rules, overflow flags.
 * Ends with "N passed, M failed".
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "agg_state.cuh"
#include "group/group.cuh"
#include "heap_deform.cuh"
#include "scan/page_walk.cuh"
#include "pg_gpu_engine.h"

using namespace pg_gpu::cuda;

static int passed = 0;
static int failed = 0;

#define CHECK(cond, ...) \
	do { \
		if (cond) passed++; \
		else { failed++; printf("FAIL %s:%d: ", __FILE__, __LINE__); printf(__VA_ARGS__); printf("\n"); } \
	} while (0)

/* ---- a tiny heap page writer ------------------------------------------- */

/* schema: 0 int4 id, 1 text, 2 int2, 3 float4, 4 int8, 5 float8, 6 int4 */
static const int kNatts = 7;
static const int16_t kAttlen[kNatts] = {4, -1, 2, 4, 8, 8, 4};
static const uint8_t kAttalign[kNatts] = {4, 4, 2, 4, 8, 8, 4};

struct Row
{
	bool		null[kNatts];
	int32_t		id;
	int			textlen;		/* >= 0: inline; -1: TOAST pointer */
	int16_t		i2;
	float		f4;
	int64_t		i8;
	double		f8;
	int32_t		i4;
	bool		visible;
	bool		dead;			/* LP_DEAD line pointer */
};

/*
 * An in-line text value's bytes: letters that depend on the row and the
 * position, so keys of one length differ (a few repeat: ids 26 apart).
 */
static std::string
row_text(const Row &r)
{
	std::string t(r.textlen, 'a');

	for (int j = 0; j < r.textlen; j++)
		t[j] = (char) ('a' + (r.id % 26 + j) % 26);
	return t;
}

struct PageBuilder
{
	std::vector<uint8_t> page;
	int			nlp = 0;
	uint32_t	upper = PG_GPU_BLCKSZ;

	PageBuilder() : page(PG_GPU_BLCKSZ, 0) {}

	static uint32_t align(uint32_t o, uint32_t a) { return (o + a - 1) & ~(a - 1); }

	std::vector<uint8_t> tuple(const Row &r)
	{
		bool		hasnull = false;

		for (int j = 0; j < kNatts; j++)
			hasnull |= r.null[j];
		uint32_t	hoff = align(PG_GPU_T_BITS_OFF + (hasnull ? (kNatts + 7) / 8 : 0), 8);
		std::vector<uint8_t> t(hoff, 0);
		uint16_t	infomask2 = kNatts;
		uint16_t	infomask = (hasnull ? PG_GPU_HEAP_HASNULL : 0) |
			(!r.null[1] ? PG_GPU_HEAP_HASVARWIDTH : 0);

		memcpy(&t[PG_GPU_T_INFOMASK2_OFF], &infomask2, 2);
		memcpy(&t[PG_GPU_T_INFOMASK_OFF], &infomask, 2);
		t[PG_GPU_T_HOFF_OFF] = (uint8_t) hoff;
		if (hasnull)
			for (int j = 0; j < kNatts; j++)
				if (!r.null[j])
					t[PG_GPU_T_BITS_OFF + j / 8] |= (uint8_t) (1 << (j % 8));

		std::vector<uint8_t> d;
		auto		put = [&](const void *p, int len, int al) {
			while (d.size() % al)
				d.push_back(0);
			const uint8_t *b = (const uint8_t *) p;

			d.insert(d.end(), b, b + len);
		};

		if (!r.null[0])
			put(&r.id, 4, 4);
		if (!r.null[1])
		{
			if (r.textlen < 0)
			{
				/* TOAST pointer: 1-byte header 0x01, tag, varatt_external */
				uint8_t		p[2 + PG_GPU_VARATT_EXTERNAL_SIZE] = {0x01, PG_GPU_VARTAG_ONDISK};

				put(p, sizeof(p), 1);
			}
			else if (r.textlen + 1 <= 127)
			{
				std::string txt = row_text(r);
				std::vector<uint8_t> v(1, (uint8_t) (((1 + r.textlen) << 1) | 1));

				v.insert(v.end(), txt.begin(), txt.end());
				put(v.data(), (int) v.size(), 1);
			}
			else
			{
				std::string txt = row_text(r);
				std::vector<uint8_t> v(4, 0);
				uint32_t	h = (uint32_t) (4 + r.textlen) << 2;

				memcpy(v.data(), &h, 4);
				v.insert(v.end(), txt.begin(), txt.end());
				put(v.data(), (int) v.size(), 4);
			}
		}
		if (!r.null[2])
			put(&r.i2, 2, 2);
		if (!r.null[3])
			put(&r.f4, 4, 4);
		if (!r.null[4])
			put(&r.i8, 8, 8);
		if (!r.null[5])
			put(&r.f8, 8, 8);
		if (!r.null[6])
			put(&r.i4, 4, 4);
		/* data starts at hoff, which is 8-aligned, so alignment carries over */
		t.insert(t.end(), d.begin(), d.end());
		return t;
	}

	/* false if the page is full */
	bool add(const Row &r)
	{
		std::vector<uint8_t> t = tuple(r);
		uint32_t	need = align((uint32_t) t.size(), 8);
		uint32_t	lower = PG_GPU_PAGE_HEADER_SIZE + 4 * (nlp + 1);

		if (nlp >= PG_GPU_MAX_TUPLES_PER_PAGE || upper < need || upper - need < lower)
			return false;
		upper -= need;
		memcpy(&page[upper], t.data(), t.size());
		uint32_t	flags = r.dead ? 3u : (uint32_t) PG_GPU_LP_NORMAL;
		uint32_t	w = (upper & 0x7FFF) | (flags << 15) | ((uint32_t) t.size() << 17);

		if (r.dead)
			w = (flags << 15);	/* LP_DEAD without storage */
		memcpy(&page[PG_GPU_PAGE_HEADER_SIZE + 4 * nlp], &w, 4);
		nlp++;
		uint16_t	lo = (uint16_t) lower;

		memcpy(&page[PG_GPU_PD_LOWER_OFF], &lo, 2);
		return true;
	}
};

struct Table
{
	std::vector<std::vector<uint8_t>> pages;
	std::vector<int> nlp;
	std::vector<std::vector<uint32_t>> vis;	/* empty: all visible */
	std::vector<Row> rows;
};

static Table
make_table(std::mt19937_64 &rng, int nrows, bool special, bool toast = true)
{
	Table		tb;
	PageBuilder pb;
	std::vector<Row> page_rows;
	std::uniform_int_distribution<int> pct(0, 99);
	auto		flush = [&]() {
		tb.pages.push_back(pb.page);
		tb.nlp.push_back(pb.nlp);
		bool		allvis = true;

		for (const Row &r : page_rows)
			allvis &= r.visible;
		std::vector<uint32_t> bits;

		if (!allvis || pct(rng) < 30)
		{
			bits.assign(PG_GPU_VIS_WORDS, 0);
			for (size_t i = 0; i < page_rows.size(); i++)
				if (page_rows[i].visible)
					bits[i / 32] |= 1u << (i % 32);
		}
		tb.vis.push_back(bits);
		pb = PageBuilder();
		page_rows.clear();
	};

	for (int i = 0; i < nrows; i++)
	{
		Row			r;

		for (int j = 0; j < kNatts; j++)
			r.null[j] = pct(rng) < 10;
		r.id = i;
		int			tl = pct(rng);

		r.textlen = (tl < 5 && toast) ? -1 : (tl < 15 ? 200 + tl : tl % 40);
		r.i2 = (int16_t) (rng() & 0xFFFF);
		r.i4 = (int32_t) (rng() & 0xFFFFFFFF);
		r.i8 = (int64_t) rng();
		r.f4 = (float) ((int) (rng() % 2001) - 1000) / 8.0f;
		r.f8 = (double) ((int64_t) (rng() % 2000001) - 1000000) / 16.0;
		if (special && pct(rng) < 3)
		{
			double		sp[] = {NAN, INFINITY, -INFINITY, -0.0, 0.0};

			r.f8 = sp[rng() % 5];
			r.f4 = (float) sp[rng() % 5];
		}
		r.visible = pct(rng) >= 8;
		r.dead = pct(rng) < 3;
		if (r.dead)
			r.visible = false;
		if (!pb.add(r))
		{
			flush();
			pb.add(r);
		}
		page_rows.push_back(r);
		tb.rows.push_back(r);
	}
	if (pb.nlp)
		flush();
	return tb;
}

static pg_gpu_agg_task
make_task()
{
	pg_gpu_agg_task t;

	memset(&t, 0, sizeof(t));
	t.natts = kNatts;
	for (int j = 0; j < kNatts; j++)
	{
		t.attlen[j] = kAttlen[j];
		t.attalign[j] = kAttalign[j];
	}
	int			attidx[] = {1, 2, 3, 4, 5, 6};
	int			types[] = {PG_GPU_ANY, PG_GPU_INT2, PG_GPU_FLOAT4, PG_GPU_INT8, PG_GPU_FLOAT8, PG_GPU_INT4};

	t.ncols = 6;
	t.ninputs = 6;
	t.nprog = 6;
	for (int c = 0; c < 6; c++)
	{
		t.cols[c].attidx = (int16_t) attidx[c];
		t.cols[c].type = (uint8_t) types[c];
		t.prog[c].op = PG_GPU_OP_COL;
		t.prog[c].type = (uint8_t) types[c];
		t.prog[c].a = (uint16_t) c;
		t.inputs[c].start = (uint16_t) c;
		t.inputs[c].len = 1;
		t.inputs[c].type = (uint8_t) types[c];
		t.inputs[c].needs = PG_GPU_NEED_MINMAX | PG_GPU_NEED_SUM | PG_GPU_NEED_AVG | PG_GPU_NEED_VAR;
	}
	return t;
}

/* Reference: accumulate the visible rows' values directly, in row order. */
static void
reference(const Table &tb, const pg_gpu_agg_task &t, pg_gpu_col_state *st, int64_t *rows)
{
	*rows = 0;
	for (int c = 0; c < t.ninputs; c++)
		state_init(st[c], t.inputs[c].type);
	for (const Row &r : tb.rows)
	{
		if (!r.visible)
			continue;
		(*rows)++;
		if (!r.null[1])
			st[0].n++;
		if (!r.null[2])
			accum_int(st[1], r.i2);
		if (!r.null[3])
			accum_float(st[2], r.f4, PG_GPU_FLOAT4);
		if (!r.null[4])
			accum_int(st[3], r.i8);
		if (!r.null[5])
			accum_float(st[4], r.f8, PG_GPU_FLOAT8);
		if (!r.null[6])
			accum_int(st[5], r.i4);
	}
}

static bool
same_float(double a, double b, double rel)
{
	if (isnan(a) || isnan(b))
		return isnan(a) && isnan(b);
	if (isinf(a) || isinf(b))
		return a == b;
	return fabs(a - b) <= rel * fmax(1.0, fmax(fabs(a), fabs(b)));
}

static void
compare_states(const char *what, const pg_gpu_agg_task &t, const pg_gpu_col_state *got,
			   const pg_gpu_col_state *want, int64_t got_rows, int64_t want_rows)
{
	CHECK(got_rows == want_rows, "%s: rows %lld vs %lld", what, (long long) got_rows,
		  (long long) want_rows);
	for (int c = 0; c < t.ninputs; c++)
	{
		const pg_gpu_col_state &g = got[c],
					&w = want[c];
		int			ty = t.inputs[c].type;

		CHECK(g.n == w.n, "%s col %d: n %lld vs %lld", what, c, (long long) g.n, (long long) w.n);
		if (ty == PG_GPU_ANY || w.n == 0)
			continue;
		if (is_float_type(ty))
		{
			CHECK(same_float(g.fmin, w.fmin, 0) && same_float(g.fmax, w.fmax, 0),
				  "%s col %d: min/max %g %g vs %g %g", what, c, g.fmin, g.fmax, w.fmin, w.fmax);
			CHECK(g.yc_n == w.yc_n, "%s col %d: yc_n", what, c);
			CHECK(same_float(g.yc_sx, w.yc_sx, 1e-12), "%s col %d: Sx %.17g vs %.17g", what, c,
				  g.yc_sx, w.yc_sx);
			CHECK(same_float(g.yc_sxx, w.yc_sxx, 1e-9), "%s col %d: Sxx %.17g vs %.17g", what, c,
				  g.yc_sxx, w.yc_sxx);
			CHECK(same_float(g.fsum, w.fsum, ty == PG_GPU_FLOAT4 ? 1e-4 : 1e-12),
				  "%s col %d: fsum %g vs %g", what, c, g.fsum, w.fsum);
		}
		else
		{
			CHECK(g.imin == w.imin && g.imax == w.imax, "%s col %d: min/max", what, c);
			CHECK(g.sum_lo == w.sum_lo && g.sum_hi == w.sum_hi, "%s col %d: sum", what, c);
			CHECK(g.sq_lo == w.sq_lo && g.sq_mid == w.sq_mid && g.sq_hi == w.sq_hi,
				  "%s col %d: sum of squares", what, c);
		}
	}
}

static void
test_host_walker(const Table &tb, const pg_gpu_agg_task &t)
{
	pg_gpu_col_state got[PG_GPU_MAX_AGG_COLS],
				want[PG_GPU_MAX_AGG_COLS];
	int64_t		want_rows,
				got_rows = 0;

	reference(tb, t, want, &want_rows);
	for (int c = 0; c < t.ninputs; c++)
		state_init(got[c], t.inputs[c].type);
	bool		ok = true;

	for (size_t p = 0; p < tb.pages.size(); p++)
	{
		pg_gpu_col_state part[PG_GPU_MAX_AGG_COLS];

		for (int c = 0; c < t.ninputs; c++)
			state_init(part[c], t.inputs[c].type);
		int64_t		r = accum_page_serial(tb.pages[p].data(), tb.nlp[p],
										  tb.vis[p].empty() ? nullptr : tb.vis[p].data(), t, part);

		ok &= (r >= 0);
		got_rows += r;
		for (int c = 0; c < t.ninputs; c++)
			state_merge(got[c], part[c], t.inputs[c].type);
	}
	CHECK(ok, "host walker rejected a valid page");
	compare_states("host walker", t, got, want, got_rows, want_rows);
}

/*
 * Fill a slot with the table's pages from *p on (as many as it takes): page p at
 * addr(p), copied into staging too when gather; returns the count, *nvis the
 * bitmaps used.
 */
template <typename Addr>
static int
fill_slot(const Table &tb, pg_gpu_agg_slot &s, size_t &p, bool gather, Addr addr, int *nvis)
{
	int			n = 0;

	for (; p < tb.pages.size() && n < s.capacity; p++, n++)
	{
		s.refs[n].addr = addr(p);
		if (gather)
			memcpy(s.staging + (size_t) n * PG_GPU_BLCKSZ, tb.pages[p].data(), PG_GPU_BLCKSZ);
		s.refs[n].nlp = (uint16_t) tb.nlp[p];
		s.refs[n].vis_idx = -1;
		if (!tb.vis[p].empty())
		{
			memcpy(s.vis + (size_t) *nvis * PG_GPU_VIS_WORDS, tb.vis[p].data(), 4 * PG_GPU_VIS_WORDS);
			s.refs[n].vis_idx = (*nvis)++;
		}
	}
	return n;
}

/*
 * Stream the table through the engine (gather mode) in chunks of chunk_pages;
 * returns the finished handle (caller ends it) or null with *st set.
 */
static pg_gpu_agg *
run_engine(const Table &tb, pg_gpu_agg_task t, int chunk_pages, pg_gpu_agg_result *res,
		   pg_gpu_status *st)
{
	pg_gpu_error err;

	t.gather = 1;
	t.chunk_pages = chunk_pages;
	pg_gpu_agg *agg = pg_gpu_agg_begin(&t, &err);

	*st = err.status;
	CHECK(agg != nullptr, "begin: %s", err.message);
	if (!agg)
		return nullptr;
	size_t		p = 0;
	int			slot = 0;

	while (p < tb.pages.size())
	{
		pg_gpu_agg_slot s;

		while (!pg_gpu_agg_slot_idle(agg, slot))
			;
		CHECK(pg_gpu_agg_slot_get(agg, slot, &s, &err) == PG_GPU_OK, "slot_get %s", err.message);
		int			nvis = 0;
		int			n = fill_slot(tb, s, p, true, [](size_t) { return (uint64_t) 0; }, &nvis);

		/* the emulation reports a compressed value at once; callers check *st */
		if ((*st = pg_gpu_agg_submit(agg, slot, n, nvis, &err)) != PG_GPU_OK)
			return agg;
		slot = (slot + 1) % PG_GPU_AGG_SLOTS;
	}
	while (!pg_gpu_agg_all_idle(agg))
		;
	*st = pg_gpu_agg_finish(agg, res, &err);
	return agg;
}

static void
test_gpu(const Table &tb, pg_gpu_agg_task t, int chunk_pages)
{
	pg_gpu_status st;
	pg_gpu_agg_result res;
	pg_gpu_agg *agg = run_engine(tb, t, chunk_pages, &res, &st);

	if (!agg)
		return;
	CHECK(st == PG_GPU_OK, "finish status %d", (int) st);
	pg_gpu_agg_end(agg);

	pg_gpu_col_state want[PG_GPU_MAX_AGG_COLS];
	int64_t		want_rows;
	char		what[64];

	reference(tb, t, want, &want_rows);
	snprintf(what, sizeof(what), "gpu (chunk %d)", chunk_pages);
	compare_states(what, t, res.cols, want, res.nrows, want_rows);
	CHECK(res.pages == (int64_t) tb.pages.size(), "pages %lld", (long long) res.pages);
}

/*
 * One run of the task over the table, the caller choosing each page's address
 * (addr(p); 0: copied into the slot's staging buffer, t.gather must be 1).
 */
template <typename Addr>
static pg_gpu_status
run_pages(const Table &tb, const pg_gpu_agg_task &t, Addr addr, pg_gpu_agg_result *res,
		  pg_gpu_error *err)
{
	pg_gpu_agg *agg = pg_gpu_agg_begin(&t, err);
	pg_gpu_status st = PG_GPU_OK;
	size_t		p = 0;
	int			slot = 0;

	if (!agg)
		return err->status;
	while (p < tb.pages.size() && st == PG_GPU_OK)
	{
		pg_gpu_agg_slot s;
		int			n,
					nvis = 0;

		while (!pg_gpu_agg_slot_idle(agg, slot))
			;
		if ((st = pg_gpu_agg_slot_get(agg, slot, &s, err)) != PG_GPU_OK)
			break;
		n = fill_slot(tb, s, p, t.gather != 0, addr, &nvis);
		st = pg_gpu_agg_submit(agg, slot, n, nvis, err);
		slot = (slot + 1) % PG_GPU_AGG_SLOTS;
	}
	while (!pg_gpu_agg_all_idle(agg))
		;
	if (st == PG_GPU_OK)
		st = pg_gpu_agg_finish(agg, res, err);
	pg_gpu_agg_end(agg);
	return st;
}

/*
 * The table cache: a run that fills an arena with the pages it is given (copied
 * into staging, or read in place: host memory the GPU maps), then a run that
 * reads the arena (pages_resident), each against the reference.
 */
static void
test_table_cache(const Table &tb, pg_gpu_agg_task t, bool emulate, int chunk_pages, bool inplace)
{
	pg_gpu_error err;
	pg_gpu_status st;
	pg_gpu_agg_result res;
	pg_gpu_col_state want[PG_GPU_MAX_AGG_COLS];
	int64_t		want_rows;
	uint64_t	arena = 0;
	size_t		npages = tb.pages.size();
	char	   *host = nullptr;		/* in place: the pages where the engine reads them */
	uint64_t	base = 0;
	char		what[96];

	reference(tb, t, want, &want_rows);
	t.emulate = emulate ? 1 : 0;
	t.chunk_pages = chunk_pages;
	if (inplace)
	{
#ifndef PG_GPU_NO_CUDA
		if (!emulate)
		{
			void	   *dev = nullptr;

			CHECK(cudaHostAlloc((void **) &host, npages * PG_GPU_BLCKSZ, cudaHostAllocMapped) == cudaSuccess &&
				  cudaHostGetDevicePointer(&dev, host, 0) == cudaSuccess, "mapped host pages");
			base = (uint64_t) (uintptr_t) dev;
		}
		else
#endif
		{
			host = (char *) malloc(npages * PG_GPU_BLCKSZ);
			base = (uint64_t) (uintptr_t) host;
		}
		for (size_t p = 0; p < npages; p++)
			memcpy(host + p * PG_GPU_BLCKSZ, tb.pages[p].data(), PG_GPU_BLCKSZ);
	}
	CHECK(pg_gpu_cache_alloc(npages * PG_GPU_BLCKSZ, t.emulate, &arena, &err) == PG_GPU_OK,
		  "cache alloc: %s", err.message);
	if (arena)
	{
		t.cache_fill = arena;
		t.cache_pages = (int64_t) npages;
		t.gather = inplace ? 0 : 1;
		st = run_pages(tb, t, [&](size_t p) { return inplace ? base + p * PG_GPU_BLCKSZ : 0; }, &res, &err);
		snprintf(what, sizeof(what), "cache fill (%s, %s, chunk %d)", emulate ? "emulated" : "gpu",
				 inplace ? "in place" : "staging", chunk_pages);
		CHECK(st == PG_GPU_OK, "%s: status %d (%s)", what, (int) st, err.message);
		if (st == PG_GPU_OK)
			compare_states(what, t, res.cols, want, res.nrows, want_rows);

		/* the copies, read where they are */
		t.cache_fill = 0;
		t.cache_pages = 0;
		t.pages_resident = 1;
		t.gather = 0;
		st = run_pages(tb, t, [&](size_t p) { return arena + p * PG_GPU_BLCKSZ; }, &res, &err);
		snprintf(what, sizeof(what), "cache read (%s, %s, chunk %d)", emulate ? "emulated" : "gpu",
				 inplace ? "in place" : "staging", chunk_pages);
		CHECK(st == PG_GPU_OK, "%s: status %d (%s)", what, (int) st, err.message);
		if (st == PG_GPU_OK)
		{
			compare_states(what, t, res.cols, want, res.nrows, want_rows);
			/* only the page references crossed to the GPU */
			CHECK(res.bytes_h2d < (uint64_t) npages * PG_GPU_BLCKSZ, "%s moved %llu bytes", what,
				  (unsigned long long) res.bytes_h2d);
		}
		pg_gpu_cache_free(arena, t.emulate);
	}
#ifndef PG_GPU_NO_CUDA
	if (inplace && !emulate)
		cudaFreeHost(host);
	else
#endif
		free(host);
}

/* ---- GROUP BY and filters ----------------------------------------------- */

static void
emit_op(pg_gpu_agg_task &t, int op, int type, int a = 0, uint32_t b = 0)
{
	t.prog[t.nprog].op = (uint8_t) op;
	t.prog[t.nprog].type = (uint8_t) type;
	t.prog[t.nprog].a = (uint16_t) a;
	t.prog[t.nprog].b = b;
	t.nprog++;
}

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

	memset(&t, 0, sizeof(t));
	t.natts = kNatts;
	for (int j = 0; j < kNatts; j++)
	{
		t.attlen[j] = kAttlen[j];
		t.attalign[j] = kAttalign[j];
		t.cols[j].attidx = (int16_t) j;
		t.cols[j].type = (uint8_t) types[j];
	}
	t.ncols = kNatts;
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

static void
test_decimal()
{
	char		buf[80];

	pg_gpu_int128_to_dec(0, 0, buf);
	CHECK(strcmp(buf, "0") == 0, "0 -> %s", buf);
	pg_gpu_int128_to_dec((uint64_t) -1, (uint64_t) -1, buf);
	CHECK(strcmp(buf, "-1") == 0, "-1 -> %s", buf);
	/* 2^64 */
	pg_gpu_int128_to_dec(0, 1, buf);
	CHECK(strcmp(buf, "18446744073709551616") == 0, "2^64 -> %s", buf);
	/* -(2^127) */
	pg_gpu_int128_to_dec(0, 0x8000000000000000ull, buf);
	CHECK(strcmp(buf, "-170141183460469231731687303715884105728") == 0, "-2^127 -> %s", buf);
	/* 2^128 */
	pg_gpu_uint192_to_dec(0, 0, 1, buf);
	CHECK(strcmp(buf, "340282366920938463463374607431768211456") == 0, "2^128 -> %s", buf);
	pg_gpu_uint192_to_dec(1000000000ull, 0, 0, buf);
	CHECK(strcmp(buf, "1000000000") == 0, "1e9 -> %s", buf);

	/* squares of int8 extremes accumulate exactly past 2^128 */
	pg_gpu_col_state s;

	state_init(s, PG_GPU_INT8);
	for (int i = 0; i < 4; i++)
		accum_int(s, INT64_MIN);
	pg_gpu_uint192_to_dec(s.sq_lo, s.sq_mid, s.sq_hi, buf);
	CHECK(strcmp(buf, "340282366920938463463374607431768211456") == 0, "4*(2^63)^2 -> %s", buf);
	pg_gpu_int128_to_dec(s.sum_lo, s.sum_hi, buf);
	CHECK(strcmp(buf, "-36893488147419103232") == 0, "4*-2^63 -> %s", buf);
}

static void
test_float_rules()
{
	pg_gpu_col_state a,
				b;

	/* one infinite input: var_pop must come out NaN, as float8_accum makes Sxx NaN */
	state_init(a, PG_GPU_FLOAT8);
	accum_float(a, INFINITY, PG_GPU_FLOAT8);
	CHECK(isnan(a.yc_sxx) && a.flags == 0, "inf first: sxx %g flags %u", a.yc_sxx, a.flags);

	/* finite inputs overflowing the sum: flagged for sum() and for avg() */
	state_init(a, PG_GPU_FLOAT8);
	accum_float(a, 1e308, PG_GPU_FLOAT8);
	accum_float(a, 1e308, PG_GPU_FLOAT8);
	CHECK((a.flags & PG_GPU_COLF_SUM_OVERFLOW) && (a.flags & PG_GPU_COLF_FSUM_OVERFLOW),
		  "1e308+1e308 flags %u", a.flags);

	/* sum(-0) is -0 (first value kept), avg's Sx is 0 + -0 = +0 */
	state_init(a, PG_GPU_FLOAT8);
	accum_float(a, -0.0, PG_GPU_FLOAT8);
	accum_float(a, -0.0, PG_GPU_FLOAT8);
	CHECK(signbit(a.fsum) && !signbit(a.yc_sx), "-0 sums: fsum %g sx %g", a.fsum, a.yc_sx);

	/* finite inputs overflowing Sxx but not Sx */
	state_init(a, PG_GPU_FLOAT8);
	accum_float(a, 1e200, PG_GPU_FLOAT8);
	accum_float(a, -1e200, PG_GPU_FLOAT8);
	CHECK(a.flags == PG_GPU_COLF_SXX_OVERFLOW, "sxx overflow flags %u", a.flags);
	CHECK(a.fsum == 0.0, "sum of +-1e200 is %g", a.fsum);

	/* combine across states: same overflow rule */
	state_init(a, PG_GPU_FLOAT8);
	state_init(b, PG_GPU_FLOAT8);
	accum_float(a, 1e308, PG_GPU_FLOAT8);
	accum_float(b, 1e308, PG_GPU_FLOAT8);
	state_merge(a, b, PG_GPU_FLOAT8);
	CHECK(a.flags & PG_GPU_COLF_SUM_OVERFLOW, "combine overflow flags %u", a.flags);

	/* NaN is the largest float: max NaN, min ignores it */
	state_init(a, PG_GPU_FLOAT8);
	accum_float(a, 1.0, PG_GPU_FLOAT8);
	accum_float(a, NAN, PG_GPU_FLOAT8);
	accum_float(a, -INFINITY, PG_GPU_FLOAT8);
	CHECK(isnan(a.fmax) && a.fmin == -INFINITY, "nan order max %g min %g", a.fmax, a.fmin);

	/* float4 sum overflow */
	state_init(a, PG_GPU_FLOAT4);
	accum_float(a, 3e38f, PG_GPU_FLOAT4);
	accum_float(a, 3e38f, PG_GPU_FLOAT4);
	CHECK(a.flags & PG_GPU_COLF_FSUM_OVERFLOW, "float4 overflow flags %u", a.flags);

	/* Youngs-Cramer tree merge agrees with the sequential update near 1e8 */
	std::mt19937_64 rng(std::random_device{}());
	pg_gpu_col_state seq,
				tree[8];

	state_init(seq, PG_GPU_FLOAT8);
	for (auto &t : tree)
		state_init(t, PG_GPU_FLOAT8);
	for (int i = 0; i < 10000; i++)
	{
		double		x = 1e8 + (double) (rng() % 1000) / 10.0;

		accum_float(seq, x, PG_GPU_FLOAT8);
		accum_float(tree[i % 8], x, PG_GPU_FLOAT8);
	}
	for (int s = 4; s > 0; s >>= 1)
		for (int i = 0; i < s; i++)
			state_merge(tree[i], tree[i + s], PG_GPU_FLOAT8);
	CHECK(same_float(seq.yc_sxx, tree[0].yc_sxx, 1e-9), "YC tree %.17g vs seq %.17g",
		  tree[0].yc_sxx, seq.yc_sxx);
}

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

int
main()
{
	std::random_device rd;
	uint64_t	seed = ((uint64_t) rd() << 32) ^ rd();
	std::mt19937_64 rng(seed);

	printf("engine_test seed %llu\n", (unsigned long long) seed);
	test_decimal();
	test_float_rules();

	pg_gpu_agg_task t = make_task();
	int			sizes[] = {1, 37, 5000, 60000};
	pg_gpu_error err;
	bool		gpu = pg_gpu_engine_init(&err) == PG_GPU_OK;

	if (!gpu)
		printf("GPU engine tests skipped: %s\n", err.message);

	for (int n : sizes)
	{
		for (int special = 0; special < 2; special++)
		{
			Table		tb = make_table(rng, n, special);

			test_host_walker(tb, t);
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
			for (int emulate = 1; emulate >= (gpu ? 0 : 1); emulate--)
				for (int chunk : {4096, 7})
					for (bool inplace : {false, true})
						test_table_cache(tb, t, emulate != 0, chunk, inplace);
			if (gpu)
			{
				test_gpu(tb, t, 4096);
				test_gpu(tb, t, 1);
				test_gpu(tb, t, 7);
			}
		}
	}
	for (int n : sizes)
		for (int toast = 0; toast < 2; toast++)
		{
			Table		tb = make_table(rng, n, false, toast != 0);

			for (int emulate = 1; emulate >= (gpu ? 0 : 1); emulate--)
				for (int col : {1, 6})
					for (int chunk : {4096, 3, 1})
						test_collect(tb, col, emulate != 0, chunk);
		}
	for (int emulate = 1; emulate >= (gpu ? 0 : 1); emulate--)
		for (int type : {(int) PG_GPU_INT8, (int) PG_GPU_TEXT, (int) PG_GPU_BPCHAR})
			for (uint64_t n : {0ULL, 1ULL, 1000ULL, 200000ULL})
				test_keyset(rng, type, n, emulate != 0);
	for (int kind : {PG_GPU_DICT_HASH, PG_GPU_DICT_TRIE})
		for (uint64_t n : {0ULL, 1ULL, 2ULL, 5ULL, 1000ULL, 100000ULL})
			test_dict(rng, kind, n, gpu);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
