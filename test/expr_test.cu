/*
 * expr_test.cu — the expression interpreter's text and lazy opcodes (expr.cuh):
 * like_match against a plain recursive matcher over UTF-8 characters on random
 * texts and patterns (on the CPU, and in a kernel when a GPU answers), and
 * programs for CASE (a division in the branch not taken), COALESCE, NULLIF,
 * substring and LIKE run through eval().
 */
#include "test_util.h"

#include "expr.cuh"

/* One character of UTF-8 text: its bytes. */
static std::vector<std::string>
chars_of(const std::string &s)
{
	std::vector<std::string> out;

	for (size_t i = 0; i < s.size();)
	{
		size_t		j = i + 1;

		while (j < s.size() && ((uint8_t) s[j] & 0xC0) == 0x80)
			j++;
		out.push_back(s.substr(i, j - i));
		i = j;
	}
	return out;
}

/* A pattern's items: 0 %, 1 _, 2 a literal character. */
struct Item
{
	int			kind;
	std::string ch;
};

/* The SQL pattern (default escape \, ending in a lone escape refused) as items. */
static bool
items_of(const std::string &pat, std::vector<Item> &out)
{
	std::vector<std::string> cs = chars_of(pat);

	for (size_t i = 0; i < cs.size(); i++)
	{
		if (cs[i] == "\\")
		{
			if (++i == cs.size())
				return false;
			out.push_back({2, cs[i]});
		}
		else if (cs[i] == "%")
			out.push_back({0, ""});
		else if (cs[i] == "_")
			out.push_back({1, ""});
		else
			out.push_back({2, cs[i]});
	}
	return true;
}

/* The definition: does text t[ti..] match items p[pi..]?  Exponential; inputs are tiny. */
static bool
ref_match(const std::vector<std::string> &t, size_t ti, const std::vector<Item> &p, size_t pi)
{
	if (pi == p.size())
		return ti == t.size();
	if (p[pi].kind == 0)
	{
		for (size_t k = ti; k <= t.size(); k++)
			if (ref_match(t, k, p, pi + 1))
				return true;
		return false;
	}
	if (ti == t.size())
		return false;
	if (p[pi].kind == 2 && p[pi].ch != t[ti])
		return false;
	return ref_match(t, ti + 1, p, pi + 1);
}

/* The compiler's encoding (expr_text.cpp's compile_like) of a pattern. */
static std::string
encode_like(const std::vector<Item> &items)
{
	std::string out;

	for (const Item &it : items)
	{
		if (it.kind == 0)
		{
			if (out.empty() || (uint8_t) out.back() != PG_GPU_LIKE_ANY)
				out.push_back((char) PG_GPU_LIKE_ANY);
		}
		else if (it.kind == 1)
			out.push_back((char) PG_GPU_LIKE_ONE);
		else
			out += it.ch;
	}
	return out;
}

static std::string
random_string(std::mt19937_64 &rng, const std::vector<std::string> &alphabet, int maxlen)
{
	std::string s;
	int			n = (int) (rng() % (maxlen + 1));

	for (int i = 0; i < n; i++)
		s += alphabet[rng() % alphabet.size()];
	return s;
}

#ifndef PG_GPU_NO_CUDA
__global__ void
like_kernel(const uint8_t *bytes, const uint32_t *off, int n, uint8_t *out)
{
	int			i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		out[i] = like_match(bytes + off[4 * i], off[4 * i + 1], bytes + off[4 * i + 2],
							off[4 * i + 3]);
}
#endif

static void
like_tests(std::mt19937_64 &rng, bool gpu)
{
	const std::vector<std::string> text_abc = {"a", "b", "c", "ä", "日", "%", "_", " ", "\\"};
	const std::vector<std::string> pat_abc = {"a", "b", "ä", "日", "%", "%", "_", "_", "\\a",
		"\\%", "\\_", "\\\\", "\\ä", " "};
	std::vector<std::string> texts,
				pats;
	std::vector<uint8_t> want;
	int			bad = 0;

	/* TPC-H's and the classic cases first */
	const char *fixed[][3] = {
		{"forest green metallic", "%green%", "1"}, {"PROMO BRUSHED TIN", "PROMO%", "1"},
		{"STANDARD POLISHED BRASS", "%BRASS", "1"}, {"BRASS", "%BRASS", "1"},
		{"xBRAS", "%BRASS", "0"}, {"special packages requests", "%special%requests%", "1"},
		{"requests special", "%special%requests%", "0"}, {"MED BAG", "MED BAG", "1"},
		{"MED BAGS", "MED BAG", "0"}, {"", "", "1"}, {"", "%", "1"}, {"a", "", "0"},
		{"", "_", "0"}, {"ä", "_", "1"}, {"日本", "__", "1"}, {"日本", "_", "0"},
		{"a%b", "a\\%b", "1"}, {"axb", "a\\%b", "0"}, {"a_b", "a\\_b", "1"},
		{"axb", "a\\_b", "0"}, {"a\\b", "a\\\\b", "1"}, {"aab", "%ab", "1"},
		{"abab", "%ab%ab", "1"}, {"aba", "%ab%ab", "0"}, {"abcabd", "%ab_", "1"},
		{"abcab", "%ab_", "0"}, {"xäy", "x_y", "1"}, {"xäy", "%ä%", "1"},
		{"Customer xx Complaints yy", "%Customer%Complaints%", "1"},
	};

	for (auto &f : fixed)
	{
		std::vector<Item> items;

		items_of(f[1], items);
		std::string p = encode_like(items);
		bool		got = like_match((const uint8_t *) f[0], (uint32_t) strlen(f[0]),
									 (const uint8_t *) p.data(), (uint32_t) p.size());

		CHECK(got == (f[2][0] == '1') && ref_match(chars_of(f[0]), 0, items, 0) == got,
			  "'%s' LIKE '%s': %d", f[0], f[1], got);
	}
	for (int k = 0; k < 20000; k++)
	{
		std::string t = random_string(rng, text_abc, 8);
		std::string pat = random_string(rng, pat_abc, 6);
		std::vector<Item> items;

		if (!items_of(pat, items))
			continue;
		/* patterns made of the text's own characters match more often */
		if (k % 3 == 0 && !t.empty())
		{
			std::vector<std::string> cs = chars_of(t);
			size_t		a = rng() % cs.size();

			items.clear();
			for (size_t j = a; j < cs.size() && j < a + 3; j++)
				items.push_back({2, cs[j]});
			items.insert(items.begin() + rng() % (items.size() + 1),
						 {(int) (rng() % 2), ""});
		}
		std::string p = encode_like(items);
		bool		want1 = ref_match(chars_of(t), 0, items, 0);
		bool		got = like_match((const uint8_t *) t.data(), (uint32_t) t.size(),
									 (const uint8_t *) p.data(), (uint32_t) p.size());

		if (got != want1 && bad++ < 5)
			printf("like: text '%s' pattern '%s': %d, reference %d\n", t.c_str(), pat.c_str(),
				   got, want1);
		texts.push_back(t);
		pats.push_back(p);
		want.push_back(want1);
	}
	CHECK(bad == 0, "like_match: %d of %zu random cases differ from the reference", bad,
		  want.size());

#ifndef PG_GPU_NO_CUDA
	if (gpu)
	{
		std::vector<uint8_t> bytes;
		std::vector<uint32_t> off;
		int			n = (int) texts.size();

		for (int i = 0; i < n; i++)
		{
			off.push_back((uint32_t) bytes.size());
			off.push_back((uint32_t) texts[i].size());
			bytes.insert(bytes.end(), texts[i].begin(), texts[i].end());
			off.push_back((uint32_t) bytes.size());
			off.push_back((uint32_t) pats[i].size());
			bytes.insert(bytes.end(), pats[i].begin(), pats[i].end());
		}
		uint8_t    *d_bytes,
				   *d_out;
		uint32_t   *d_off;
		std::vector<uint8_t> got(n);

		cudaMalloc(&d_bytes, bytes.size() + 1);
		cudaMalloc(&d_off, off.size() * 4);
		cudaMalloc(&d_out, n);
		cudaMemcpy(d_bytes, bytes.data(), bytes.size(), cudaMemcpyHostToDevice);
		cudaMemcpy(d_off, off.data(), off.size() * 4, cudaMemcpyHostToDevice);
		like_kernel<<<(n + 255) / 256, 256>>>(d_bytes, d_off, n, d_out);
		cudaMemcpy(got.data(), d_out, n, cudaMemcpyDeviceToHost);
		cudaFree(d_bytes);
		cudaFree(d_off);
		cudaFree(d_out);
		CHECK(got == want, "like_match in a kernel differs from the reference");
	}
#else
	(void) gpu;
#endif
}

/* ---- programs through eval() ------------------------------------------- */

struct Prog
{
	pg_gpu_agg_task t;
	pg_gpu_expr e;
	int			nconst = 0;
	int			nstr = 0;

	Prog()
	{
		memset(&t, 0, sizeof(t));
		memset(&e, 0, sizeof(e));
	}
	int			iconst(int64_t v)
	{
		t.consts[nconst] = (uint64_t) v;
		return nconst++;
	}
	int			nullconst()
	{
		t.const_null |= 1ULL << nconst;
		return nconst++;
	}
	int			sconst(const std::string &s)
	{
		memcpy(t.strpool + nstr, s.data(), s.size());
		t.consts[nconst] = ((uint64_t) nstr << 32) | s.size();
		nstr += (int) s.size();
		return nconst++;
	}
	int			op(int o, int type, int a = 0, uint32_t b = 0)
	{
		emit_op(t, o, type, a, b);
		return t.nprog - 1;
	}
	void		patch(int at)
	{
		t.prog[at].a = (uint16_t) t.nprog;
	}
	bool		run(const pval *cols, pval *out)
	{
		e.start = 0;
		e.len = (uint16_t) t.nprog;
		return eval(t, e, cols, out);
	}
};

static pval
ival(int64_t v, bool null = false)
{
	pval		x;

	x.bits = (uint64_t) v;
	x.null = null;
	x.len = 0;
	return x;
}

static pval
tval(const std::string &s)
{
	pval		x;

	x.bits = (uint64_t) (uintptr_t) s.data();
	x.null = false;
	x.len = (uint32_t) s.size();
	return x;
}

static void
program_tests()
{
	/* CASE WHEN c0 <> 0 THEN 100 / c0 ELSE -1 END: no error where c0 = 0 */
	{
		Prog		p;
		int			zero = p.iconst(0),
					hundred = p.iconst(100),
					minus1 = p.iconst(-1);

		p.op(PG_GPU_OP_COL, PG_GPU_INT4, 0);
		p.op(PG_GPU_OP_CONST, PG_GPU_INT4, zero);
		p.op(PG_GPU_OP_CMP, PG_GPU_INT8, PG_GPU_CMP_NE);
		int			skip = p.op(PG_GPU_OP_JUMP_UNLESS, PG_GPU_BOOL);

		p.op(PG_GPU_OP_CONST, PG_GPU_INT4, hundred);
		p.op(PG_GPU_OP_COL, PG_GPU_INT4, 0);
		p.op(PG_GPU_OP_DIV, PG_GPU_INT4);
		int			end = p.op(PG_GPU_OP_JUMP, PG_GPU_INT4);

		p.patch(skip);
		p.op(PG_GPU_OP_CONST, PG_GPU_INT4, minus1);
		p.patch(end);

		pval		c[1],
					out;

		c[0] = ival(0);
		CHECK(p.run(c, &out) && !out.null && (int64_t) out.bits == -1, "CASE, c0 = 0");
		c[0] = ival(5);
		CHECK(p.run(c, &out) && !out.null && (int64_t) out.bits == 20, "CASE, c0 = 5");
		c[0] = ival(0, true);
		CHECK(p.run(c, &out) && !out.null && (int64_t) out.bits == -1, "CASE, c0 NULL");
	}
	/* simple CASE c0 WHEN 1 THEN 10 WHEN 2 THEN 20 END (no ELSE: NULL) */
	{
		Prog		p;
		int			k1 = p.iconst(1),
					k2 = p.iconst(2),
					k10 = p.iconst(10),
					k20 = p.iconst(20),
					kn = p.nullconst();

		p.op(PG_GPU_OP_COL, PG_GPU_INT4, 0);
		p.op(PG_GPU_OP_PICK, PG_GPU_INT4, 0);
		p.op(PG_GPU_OP_CONST, PG_GPU_INT4, k1);
		p.op(PG_GPU_OP_CMP, PG_GPU_INT8, PG_GPU_CMP_EQ);
		int			s1 = p.op(PG_GPU_OP_JUMP_UNLESS, PG_GPU_BOOL);

		p.op(PG_GPU_OP_CONST, PG_GPU_INT4, k10);
		int			e1 = p.op(PG_GPU_OP_JUMP, PG_GPU_INT4);

		p.patch(s1);
		p.op(PG_GPU_OP_PICK, PG_GPU_INT4, 0);
		p.op(PG_GPU_OP_CONST, PG_GPU_INT4, k2);
		p.op(PG_GPU_OP_CMP, PG_GPU_INT8, PG_GPU_CMP_EQ);
		int			s2 = p.op(PG_GPU_OP_JUMP_UNLESS, PG_GPU_BOOL);

		p.op(PG_GPU_OP_CONST, PG_GPU_INT4, k20);
		int			e2 = p.op(PG_GPU_OP_JUMP, PG_GPU_INT4);

		p.patch(s2);
		p.op(PG_GPU_OP_CONST, PG_GPU_INT4, kn);
		p.patch(e1);
		p.patch(e2);
		p.op(PG_GPU_OP_NIP, PG_GPU_INT4);

		pval		c[1],
					out;
		const int64_t in[] = {1, 2, 3};
		const int64_t expect[] = {10, 20, 0};

		for (int i = 0; i < 3; i++)
		{
			c[0] = ival(in[i]);
			CHECK(p.run(c, &out) && out.null == (i == 2) && (i == 2 || (int64_t) out.bits == expect[i]),
				  "simple CASE, c0 = %d", (int) in[i]);
		}
	}
	/* COALESCE(c0, c1, 7) and NULLIF(c0, 3) */
	{
		Prog		p;
		int			k7 = p.iconst(7);

		p.op(PG_GPU_OP_COL, PG_GPU_INT4, 0);
		int			j1 = p.op(PG_GPU_OP_JUMP_NOTNULL, PG_GPU_INT4);

		p.op(PG_GPU_OP_COL, PG_GPU_INT4, 1);
		int			j2 = p.op(PG_GPU_OP_JUMP_NOTNULL, PG_GPU_INT4);

		p.op(PG_GPU_OP_CONST, PG_GPU_INT4, k7);
		p.patch(j1);
		p.patch(j2);

		pval		c[2],
					out;

		c[0] = ival(1, true);
		c[1] = ival(2);
		CHECK(p.run(c, &out) && !out.null && out.bits == 2, "COALESCE second");
		c[1] = ival(2, true);
		CHECK(p.run(c, &out) && !out.null && out.bits == 7, "COALESCE last");
		c[0] = ival(1);
		CHECK(p.run(c, &out) && !out.null && out.bits == 1, "COALESCE first");

		Prog		q;
		int			k3 = q.iconst(3);

		q.op(PG_GPU_OP_COL, PG_GPU_INT4, 0);
		q.op(PG_GPU_OP_PICK, PG_GPU_INT4, 0);
		q.op(PG_GPU_OP_CONST, PG_GPU_INT4, k3);
		q.op(PG_GPU_OP_CMP, PG_GPU_INT8, PG_GPU_CMP_EQ);
		q.op(PG_GPU_OP_NULLIF, PG_GPU_INT4);
		c[0] = ival(3);
		CHECK(q.run(c, &out) && out.null, "NULLIF(3, 3)");
		c[0] = ival(4);
		CHECK(q.run(c, &out) && !out.null && out.bits == 4, "NULLIF(4, 3)");
	}
	/* substring(rtrim(c0) from 2 for 2) LIKE '_日' */
	{
		Prog		p;
		int			sub = p.iconst((1LL << 32) | 2);
		std::string pat = std::string(1, (char) PG_GPU_LIKE_ONE) + "日";
		int			kp = p.sconst(pat);

		p.op(PG_GPU_OP_COL, PG_GPU_BPCHAR, 0);
		p.op(PG_GPU_OP_RTRIM, PG_GPU_TEXT);
		p.op(PG_GPU_OP_SUBSTR, PG_GPU_TEXT, sub);

		std::string s = "aä日b  ";
		pval		c[1],
					out;

		c[0] = tval(s);
		CHECK(p.run(c, &out) && !out.null && out.len == 5 &&
			  memcmp((const void *) (uintptr_t) out.bits, "ä日", 5) == 0, "substring");
		p.op(PG_GPU_OP_LIKE, PG_GPU_TEXT, kp, 0);
		CHECK(p.run(c, &out) && !out.null && out.bits == 1, "substring LIKE");
		p.t.prog[p.t.nprog - 1].b = 1;
		CHECK(p.run(c, &out) && !out.null && out.bits == 0, "substring NOT LIKE");

		std::string shortv = "a";

		c[0] = tval(shortv);
		p.t.nprog -= 1;
		CHECK(p.run(c, &out) && !out.null && out.len == 0, "substring past the end");
	}
}

void
expr_tests(std::mt19937_64 &rng, bool gpu)
{
	like_tests(rng, gpu);
	program_tests();
}
