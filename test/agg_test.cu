/*
 * agg_test.cu — plain aggregation: the host page walker and the engine (GPU, or
 * the emulation through a table cache) against states accumulated directly from
 * the generated values, across chunk and block boundaries; and the exact
 * arithmetic helpers (int128/uint192 to decimal, float8_combine rules, overflow
 * flags).
 */
#include "test_util.h"

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


void
agg_tests(std::mt19937_64 &rng, bool gpu)
{
	pg_gpu_agg_task t = make_task();

	test_decimal();
	test_float_rules();
	for (int n : {1, 37, 5000, 60000})
		for (int special = 0; special < 2; special++)
		{
			Table		tb = make_table(rng, n, special);

			test_host_walker(tb, t);
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
