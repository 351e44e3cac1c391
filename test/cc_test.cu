/*
 * cc_test.cu — the column cache's text cells (cuda/expr.cuh cc_store_text,
 * load_cached; pg_gpu_engine.h pg_gpu_cc_seg_layout), host-checkable.
 *
 * Random char(n)/varchar(n) values in each varlena form a page may hold (a
 * short 1-byte header, a 4-byte header, compressed in line, a TOAST pointer)
 * are stored into cells of 4, 8, 16 and 32 bytes.  A value whose bytes and a
 * 1-byte header fit the cell must come back from load_cached with the same
 * bytes and length as load_col reads from the page, the cell holding exactly
 * the short varlena PostgreSQL writes and zeros after it; any other value must
 * read as toasted (the query's work goes back to PostgreSQL).  A segment's
 * layout gives a text column its cell width.
 */
#include "test_util.h"

/* v's bytes as a page may hold them: form 0 short, 1 4-byte, 2 compressed, 3 TOAST pointer. */
static std::vector<uint8_t>
varlena_of(const std::string &v, int form)
{
	std::vector<uint8_t> b;

	if (form == 0)
	{
		b.push_back((uint8_t) (((v.size() + 1) << 1) | 1));
		b.insert(b.end(), v.begin(), v.end());
	}
	else if (form == 1 || form == 2)
	{
		uint32_t	w = (uint32_t) (v.size() + 4) << 2 | (form == 2 ? 2 : 0);

		b.resize(4);
		memcpy(b.data(), &w, 4);
		if (form == 2)
		{
			b.resize(8);			/* the raw size word of a compressed datum */
			memset(b.data() + 4, 0, 4);
		}
		b.insert(b.end(), v.begin(), v.end());
	}
	else
	{
		b = {0x01, 18};				/* VARTAG_ONDISK, then a 16-byte pointer */
		b.resize(18, 0);
	}
	return b;
}

void
cc_tests(std::mt19937_64 &rng, bool gpu)
{
	(void) gpu;
	static const char kChars[] = "ABCxyz 019-";
	int			kept = 0,
				bad = 0;

	for (int iter = 0; iter < 4000; iter++)
	{
		int			width = 4 << (rng() % 4);
		int			form = (int) (rng() % 8);
		size_t		n = rng() % 40;
		std::string v;

		form = form < 5 ? 0 : form - 4;	/* mostly short headers, as pages hold */
		for (size_t i = 0; i < n; i++)
			v.push_back(rng() % 5 == 0 ? (char) 0xC3 : kChars[rng() % (sizeof(kChars) - 1)]);
		if (form == 0 && n > 126)
			continue;

		std::vector<uint8_t> src = varlena_of(v, form);
		std::vector<uint8_t> cell(width + 8, 0xAA);	/* a guard after the cell */

		cc_store_text(cell.data(), src.data(), width);
		for (int i = width; i < width + 8; i++)
			CHECK(cell[i] == 0xAA, "cc_store_text wrote past a %d-byte cell", width);

		pval		c = load_cached(cell.data(), PG_GPU_TEXT, 0);
		bool		fits = (form == 0 || form == 1) && n + 1 <= (size_t) width;

		if (!fits)
		{
			bad++;
			CHECK(cell[0] == PG_GPU_CC_TEXT_BAD && c.len == kToasted,
				  "form %d, %zu bytes in a %d-byte cell: not marked bad", form, n, width);
			continue;
		}
		kept++;

		pval		p = load_col(src.data(), PG_GPU_BPCHAR);

		CHECK(c.len == n && p.len == n &&
			  memcmp((const void *) (uintptr_t) c.bits, v.data(), n) == 0,
			  "form %d, %zu bytes in a %d-byte cell read back as %u bytes", form, n, width, c.len);
		CHECK(cell[0] == (uint8_t) (((n + 1) << 1) | 1),
			  "cell header %02x for %zu bytes", cell[0], n);
		for (int i = (int) n + 1; i < width; i++)
			CHECK(cell[i] == 0, "byte %d of a cell after %zu bytes is %02x", i, n, cell[i]);
		CHECK(!load_cached(cell.data(), PG_GPU_ANY, 0).null && load_cached(nullptr, PG_GPU_TEXT, 0).null,
			  "a text cell's NULL-ness");
	}
	CHECK(kept > 100 && bad > 100, "text cells: %d kept, %d bad", kept, bad);

	/* a segment's layout: a text column's values take its cells' bytes */
	pg_gpu_cc_layout l;
	pg_gpu_cc_seg hdr;

	memset(&l, 0, sizeof(l));
	l.natts = 3;
	l.attlen[0] = 4;
	l.attlen[1] = -1;
	l.attlen[2] = -1;
	l.ncols = 3;
	l.cols[0] = {0, PG_GPU_INT4, 0};
	l.cols[1] = {1, PG_GPU_TEXT, 16};
	l.cols[2] = {2, PG_GPU_TEXT, 4};
	l.nullable[1] = 1;
	uint64_t	bytes = pg_gpu_cc_seg_layout(&l, 1000, 1 << 20, &hdr);

	CHECK(hdr.width[0] == 4 && hdr.width[1] == 16 && hdr.width[2] == 4,
		  "cell widths %d %d %d", hdr.width[0], hdr.width[1], hdr.width[2]);
	CHECK(hdr.vals[2] - hdr.vals[1] >= 16 * 1000 + 1000 && hdr.nulls[1] != 0 && hdr.nulls[2] == 0 &&
		  bytes >= hdr.vals[2] - (1 << 20) + 4 * 1000,
		  "a text column's place in its segment");
}
