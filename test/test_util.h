/*
 * test_util.h — what the engine tests share: a tiny heap page writer that lays
 * out tuples as PostgreSQL does (page header, line pointers, tuple headers with
 * null bitmaps, attalign padding, short and long varlena and TOAST pointers,
 * dead line pointers, invisible tuples), random tables of a fixed 7-column
 * schema, the aggregation task over it and its CPU reference, and the loops that
 * stream a table through the engine's slot protocol.
 */
#ifndef PG_GPU_TEST_UTIL_H
#define PG_GPU_TEST_UTIL_H

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
#include "pg_gpu_engine.h"
#include "scan/page_walk.cuh"

using namespace pg_gpu::cuda;

extern int	passed;
extern int	failed;

#define CHECK(cond, ...) \
	do { \
		if (cond) passed++; \
		else { failed++; printf("FAIL %s:%d: ", __FILE__, __LINE__); printf(__VA_ARGS__); printf("\n"); } \
	} while (0)

/* The operators' tests (one file each); gpu: a device answered. */
void		agg_tests(std::mt19937_64 &rng, bool gpu);
void		group_tests(std::mt19937_64 &rng, bool gpu);
void		keyset_tests(std::mt19937_64 &rng, bool gpu);
void		sort_tests(std::mt19937_64 &rng, bool gpu);
void		expr_tests(std::mt19937_64 &rng, bool gpu);
void		decimal_tests(std::mt19937_64 &rng, bool gpu);
void		cc_tests(std::mt19937_64 &rng, bool gpu);
void		datetime_tests(std::mt19937_64 &rng);

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
inline std::string
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

inline Table
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

inline pg_gpu_agg_task
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

/* Every column of the schema read, as types[] says (the grouped and sort tasks). */
inline void
task_schema(pg_gpu_agg_task &t, const int *types)
{
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
}

/* Reference: accumulate the visible rows' values directly, in row order. */
inline void
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

inline bool
same_float(double a, double b, double rel)
{
	if (isnan(a) || isnan(b))
		return isnan(a) && isnan(b);
	if (isinf(a) || isinf(b))
		return a == b;
	return fabs(a - b) <= rel * fmax(1.0, fmax(fabs(a), fabs(b)));
}

inline void
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

/*
 * Fill a slot with the table's pages from *p on (as many as it takes): page p at
 * addr(p), copied into staging too when gather; returns the count, *nvis the
 * bitmaps used.
 */
template <typename Addr>
inline int
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
inline pg_gpu_agg *
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

/*
 * Stream every page of the table through a begun task and finish it, the caller
 * choosing each page's address (addr(p); 0: copied into the slot's staging
 * buffer, the task's gather must be 1); no CHECK, so threads may call it.  The
 * caller ends the task.
 */
template <typename Addr>
inline pg_gpu_status
stream_pages(pg_gpu_agg *agg, const Table &tb, bool gather, Addr addr, pg_gpu_agg_result *res,
			 pg_gpu_error *err)
{
	pg_gpu_status st = PG_GPU_OK;
	size_t		p = 0;
	int			slot = 0;

	while (p < tb.pages.size() && st == PG_GPU_OK)
	{
		pg_gpu_agg_slot s;
		int			n,
					nvis = 0;

		while (!pg_gpu_agg_slot_idle(agg, slot))
			;
		if ((st = pg_gpu_agg_slot_get(agg, slot, &s, err)) != PG_GPU_OK)
			break;
		n = fill_slot(tb, s, p, gather, addr, &nvis);
		st = pg_gpu_agg_submit(agg, slot, n, nvis, err);
		slot = (slot + 1) % PG_GPU_AGG_SLOTS;
	}
	while (!pg_gpu_agg_all_idle(agg))
		;
	if (st == PG_GPU_OK)
		st = pg_gpu_agg_finish(agg, res, err);
	return st;
}

/* One run of the task over the table (stream_pages), ended. */
template <typename Addr>
inline pg_gpu_status
run_pages(const Table &tb, const pg_gpu_agg_task &t, Addr addr, pg_gpu_agg_result *res,
		  pg_gpu_error *err)
{
	pg_gpu_agg *agg = pg_gpu_agg_begin(&t, err);

	if (!agg)
		return err->status;
	pg_gpu_status st = stream_pages(agg, tb, t.gather != 0, addr, res, err);

	pg_gpu_agg_end(agg);
	return st;
}


inline void
emit_op(pg_gpu_agg_task &t, int op, int type, int a = 0, uint32_t b = 0)
{
	t.prog[t.nprog].op = (uint8_t) op;
	t.prog[t.nprog].type = (uint8_t) type;
	t.prog[t.nprog].a = (uint16_t) a;
	t.prog[t.nprog].b = b;
	t.nprog++;
}


#endif							/* PG_GPU_TEST_UTIL_H */
