/*
 * decimal_test.cu — numeric's decoder and exact arithmetic (cuda/decimal.cuh).
 *
 * A test-side encoder writes PostgreSQL's numeric on-disk bytes (numeric.c's
 * layouts, docs/SEMANTICS.md 21: a short 2-byte header when the dscale is at
 * most 63 and the weight in -64 .. 63, else the long sign/dscale and weight
 * words; base-10000 digits aligned on the decimal point, most significant
 * first, zero digits stripped at both ends, zero with none) for random values
 * of random display scales and both signs, and for the same values in the long
 * layout (which older servers wrote for every value and which stays readable).
 * The encoder is checked first against bytes PostgreSQL 15 itself wrote.
 * dec_decode must give back v * 10^S and the dscale, or refuse exactly when the
 * value cannot be kept: NaN and the infinities, a dscale above S, a magnitude
 * of 2^PG_GPU_DEC_BITS or more at S.  dec_mul and dec_rescale are checked
 * against products computed in 256 bits (four 64-bit limbs), which never
 * overflow for the operands used.
 */
#include "test_util.h"

#include "decimal.cuh"

/* ---- a 256-bit unsigned reference ---------------------------------------- */

struct U256
{
	uint64_t	w[4];			/* least significant first */
};

static U256
u256_of(uint128 v)
{
	U256		r = {{(uint64_t) v, (uint64_t) (v >> 64), 0, 0}};

	return r;
}

static U256
u256_mul(const U256 &a, const U256 &b)
{
	U256		r = {{0, 0, 0, 0}};

	for (int i = 0; i < 4; i++)
	{
		uint64_t	carry = 0;

		for (int j = 0; i + j < 4; j++)
		{
			uint128		t = (uint128) a.w[i] * b.w[j] + r.w[i + j] + carry;

			r.w[i + j] = (uint64_t) t;
			carry = (uint64_t) (t >> 64);
		}
	}
	return r;
}

/* below 2^PG_GPU_DEC_BITS (90 = 64 + 26) */
static bool
u256_in_bound(const U256 &a)
{
	return a.w[3] == 0 && a.w[2] == 0 && (a.w[1] >> (PG_GPU_DEC_BITS - 64)) == 0;
}

static uint128
u256_low(const U256 &a)
{
	return ((uint128) a.w[1] << 64) | a.w[0];
}

static uint128
pow10_128(int k)
{
	uint128		p = 1;

	for (int i = 0; i < k; i++)
		p *= 10;
	return p;
}

static std::string
i128_str(int128 v)
{
	char		buf[48];
	int			n = 0;
	uint128		m = v < 0 ? (uint128) 0 - (uint128) v : (uint128) v;

	do
	{
		buf[n++] = (char) ('0' + (int) (m % 10));
		m /= 10;
	} while (m != 0);
	std::string s(v < 0 ? "-" : "");

	while (n > 0)
		s += buf[--n];
	return s;
}

/* ---- numeric.c's on-disk layout, written by the test --------------------- */

/*
 * The bytes after the varlena header of the numeric (neg ? -1 : 1) * u / 10^ds
 * (u < 10^34, so u * 10^3 still fits); long_form: the long layout even where
 * the short one fits.
 */
static std::vector<uint8_t>
encode_numeric(bool neg, uint128 u, int ds, bool long_form)
{
	int			fracgroups = (ds + 3) / 4;
	uint128		aligned = u * pow10_128(4 * fracgroups - ds);
	std::vector<uint16_t> groups;	/* least significant first */
	std::vector<uint8_t> out;
	int			weight;
	size_t		first = 0;

	while (aligned != 0)
	{
		groups.push_back((uint16_t) (aligned % 10000));
		aligned /= 10000;
	}
	weight = (int) groups.size() - fracgroups - 1;
	while (first < groups.size() && groups[first] == 0)
		first++;				/* trailing zero digits stripped */
	if (first == groups.size())
	{
		groups.clear();
		first = 0;
		weight = 0;
		neg = false;
	}

	auto		put16 = [&out] (uint16_t x) {
		out.push_back((uint8_t) (x & 0xFF));
		out.push_back((uint8_t) (x >> 8));
	};

	if (!long_form && ds <= 63 && weight >= -64 && weight <= 63)
		put16((uint16_t) (0x8000 | (neg ? 0x2000 : 0) | (ds << 7) |
						  (weight < 0 ? 0x0040 : 0) | (weight & 0x003F)));
	else
	{
		put16((uint16_t) ((neg ? 0x4000 : 0) | ds));
		put16((uint16_t) (int16_t) weight);
	}
	for (size_t i = groups.size(); i > first; i--)
		put16(groups[i - 1]);
	return out;
}

/*
 * Bytes PostgreSQL 15 wrote (heap_page_items of a numeric column, after the
 * 1-byte varlena header), as hex: the encoder must write the same, and
 * dec_decode read them back.
 */
struct KnownNumeric
{
	bool		neg;
	const char *u;				/* the value * 10^ds, in decimal */
	int			ds;
	const char *hex;
};

static const KnownNumeric known_numerics[] = {
	{false, "0", 0, "0080"},
	{false, "0", 2, "0081"},
	{false, "100", 2, "00810100"},	/* 1.00 */
	{true, "5", 1, "ffa08813"},	/* -0.5: weight -1 */
	{false, "123456789123", 3, "828101002909851ace04"},
	{false, "1000000000000000000000000000000", 0, "07806400"},	/* 1e30 */
	{true, "1", 20, "7baa0100"},	/* -1e-20 */
	{false, "1", 4, "7f820100"},
	{false, "9999999999999999", 8, "01840f270f270f270f27"},
	{true, "12345678900", 6, "01a301002909851a"},	/* -12345.678900 */
	{false, "12345678901234567890123455", 1, "868001002909851a7b00d711c52229098813"},
};

static uint128
u128_of(const char *s)
{
	uint128		v = 0;

	for (; *s; s++)
		v = v * 10 + (uint128) (*s - '0');
	return v;
}

static void
known_tests()
{
	for (const KnownNumeric &k : known_numerics)
	{
		std::vector<uint8_t> b = encode_numeric(k.neg, u128_of(k.u), k.ds, false);
		std::string hex;
		char		h[3];
		int128		v = 0;
		uint32_t	ds = 0;
		int128		want = (k.neg ? -1 : 1) * (int128) u128_of(k.u) * (int128) pow10_128(24 - k.ds);

		for (uint8_t x : b)
		{
			snprintf(h, sizeof(h), "%02x", x);
			hex += h;
		}
		CHECK(hex == k.hex, "%s%s / 10^%d: the test writes %s, PostgreSQL wrote %s",
			  k.neg ? "-" : "", k.u, k.ds, hex.c_str(), k.hex);
		/* at S 24 where 2^90 allows, else at the value's own dscale, else refused */
		if (dec_ok(want))
			CHECK(dec_decode(b.data(), (uint32_t) b.size(), 24, &v, &ds) && v == want &&
				  ds == (uint32_t) k.ds, "PostgreSQL's %s at S 24: %s", k.hex, i128_str(v).c_str());
		else if (dec_ok((int128) u128_of(k.u)))
			CHECK(dec_decode(b.data(), (uint32_t) b.size(), k.ds, &v, &ds) &&
				  v == (k.neg ? -1 : 1) * (int128) u128_of(k.u) && ds == (uint32_t) k.ds,
				  "PostgreSQL's %s at S %d: %s", k.hex, k.ds, i128_str(v).c_str());
		else
			CHECK(!dec_decode(b.data(), (uint32_t) b.size(), k.ds, &v, &ds),
				  "PostgreSQL's %s (2^90 or more) kept", k.hex);
	}

	/* long headers PostgreSQL wrote: 1.5 of dscale 70, -1e-300 (weight -75, dscale 300) */
	static const uint8_t dscale70[] = {0x46, 0x00, 0x00, 0x00, 0x01, 0x00, 0x88, 0x13};
	static const uint8_t tiny[] = {0x2c, 0x41, 0xb5, 0xff, 0x01, 0x00};
	int128		v;
	uint32_t	ds;

	CHECK(!dec_decode(dscale70, sizeof(dscale70), PG_GPU_DEC_MAX_SCALE, &v, &ds),
		  "1.5 of dscale 70 kept");
	CHECK(!dec_decode(tiny, sizeof(tiny), PG_GPU_DEC_MAX_SCALE, &v, &ds), "-1e-300 kept");
}

/* A random magnitude: random bit lengths up to 112, with powers of ten and zeros. */
static uint128
random_magnitude(std::mt19937_64 &rng)
{
	int			kind = (int) (rng() % 10);

	if (kind == 0)
		return 0;
	if (kind == 1)
		return pow10_128((int) (rng() % 34));
	int			bits = (int) (rng() % 113);
	uint128		v = ((uint128) rng() << 64) | rng();

	return bits == 128 ? v : v & (((uint128) 1 << bits) - 1);
}

/* dec_decode against v * 10^(S - ds) computed in 256 bits */
static void
check_decode(bool neg, uint128 u, int ds, int S, bool long_form, int *accepted)
{
	std::vector<uint8_t> b = encode_numeric(neg, u, ds, long_form);
	int128		v = 12345;
	uint32_t	got_ds = 9999;
	bool		ok = dec_decode(b.data(), (uint32_t) b.size(), S, &v, &got_ds);
	bool		want_ok = ds <= S;
	int128		want = 0;

	if (want_ok)
	{
		U256		p = u256_mul(u256_of(u), u256_of(pow10_128(S - ds)));

		want_ok = u256_in_bound(p);
		if (want_ok)
			want = (neg ? -1 : 1) * (int128) u256_low(p);
	}
	CHECK(ok == want_ok && (!ok || (v == want && got_ds == (uint32_t) ds)),
		  "dec_decode(%s%s / 10^%d, S %d, %s header): %s %s dscale %u, want %s %s",
		  neg ? "-" : "", i128_str((int128) u).c_str(), ds, S, long_form ? "long" : "short",
		  ok ? "ok" : "refused", i128_str(v).c_str(), got_ds,
		  want_ok ? "ok" : "refused", i128_str(want).c_str());
	if (ok)
		(*accepted)++;
}

static void
decode_tests(std::mt19937_64 &rng)
{
	int			accepted = 0;
	int			n = 0;

	for (int i = 0; i < 40000; i++)
	{
		bool		neg = rng() % 2;
		uint128		u = random_magnitude(rng);
		int			ds = (int) (rng() % 5 == 0 ? rng() % 80 : rng() % 25);
		int			S = (int) (rng() % (PG_GPU_DEC_MAX_SCALE + 1));

		if (rng() % 3 == 0 && ds > S)
			ds = S - (int) (rng() % (S + 1));	/* mostly accepted ones too */
		check_decode(neg, u, ds, S, false, &accepted);
		check_decode(neg, u, ds, S, true, &accepted);
		n += 2;
	}
	/* zeros of several scales, -0 included */
	for (int ds = 0; ds <= 30; ds++)
		for (int S = 0; S <= PG_GPU_DEC_MAX_SCALE; S += 4)
		{
			check_decode(true, 0, ds, S, false, &accepted);
			check_decode(false, 0, ds, S, true, &accepted);
			n += 2;
		}
	/* the bound at S: 2^90 - 1 kept, 2^90 refused, with dscale S and below */
	for (int S = 0; S <= PG_GPU_DEC_MAX_SCALE; S++)
		for (int sign = 0; sign < 2; sign++)
		{
			uint128		lim = (uint128) 1 << PG_GPU_DEC_BITS;

			check_decode(sign, lim - 1, S, S, false, &accepted);
			check_decode(sign, lim, S, S, false, &accepted);
			check_decode(sign, lim + 1, S, S, true, &accepted);
			n += 3;
			for (int ds = 0; ds < S; ds++)
			{
				uint128		p = pow10_128(S - ds);

				/* the largest multiple of 10^(S - ds) below 2^90, and the next one */
				check_decode(sign, (lim - 1) / p, ds, S, false, &accepted);
				check_decode(sign, (lim - 1) / p + 1, ds, S, false, &accepted);
				n += 2;
			}
		}

	/* NaN, +Infinity, -Infinity: a 2-byte header of sign 0xC000, refused at every S */
	static const uint16_t specials[] = {0xC000, 0xD000, 0xF000};

	for (uint16_t h : specials)
		for (int S = 0; S <= PG_GPU_DEC_MAX_SCALE; S++)
		{
			uint8_t		b[2] = {(uint8_t) (h & 0xFF), (uint8_t) (h >> 8)};
			int128		v = 0;
			uint32_t	ds = 0;

			CHECK(!dec_decode(b, 2, S, &v, &ds), "dec_decode of special 0x%04X at S %d: accepted",
				  h, S);
		}
	/* a dscale above S: refused even for an integral value or zero */
	{
		std::vector<uint8_t> one = encode_numeric(false, 100, 2, false);	/* 1.00 */
		int128		v = 0;
		uint32_t	ds = 0;

		CHECK(!dec_decode(one.data(), (uint32_t) one.size(), 1, &v, &ds),
			  "1.00 (dscale 2) accepted at S 1");
		CHECK(dec_decode(one.data(), (uint32_t) one.size(), 2, &v, &ds) && v == 100 && ds == 2,
			  "1.00 at S 2: %s dscale %u", i128_str(v).c_str(), ds);
	}
	printf("  decimal: %d encodings decoded, %d kept\n", n, accepted);
	CHECK(accepted > n / 4 && accepted < n - n / 10, "decimal: %d of %d kept: too few refusals or acceptances",
		  accepted, n);
}

/* a signed operand below 2^90 with random bit length */
static int128
random_operand(std::mt19937_64 &rng)
{
	int			bits = (int) (rng() % (PG_GPU_DEC_BITS + 1));
	uint128		v = ((uint128) rng() << 64) | rng();

	v &= ((uint128) 1 << bits) - 1;
	return rng() % 2 ? -(int128) v : (int128) v;
}

static void
arithmetic_tests(std::mt19937_64 &rng)
{
	int			mul_ok = 0;
	int			rescale_ok = 0;

	for (int i = 0; i < 200000; i++)
	{
		int128		a = random_operand(rng);
		int128		b = rng() % 4 == 0 ? (int128) (int64_t) (rng() % 2000) - 1000 : random_operand(rng);
		int128		r = 777;
		bool		ok = dec_mul(a, b, &r);
		U256		p = u256_mul(u256_of(dec_abs(a)), u256_of(dec_abs(b)));
		bool		want_ok = u256_in_bound(p);
		int128		want = ((a < 0) != (b < 0)) ? -(int128) u256_low(p) : (int128) u256_low(p);

		CHECK(ok == want_ok && (!ok || r == want), "dec_mul(%s, %s): %s %s, want %s %s",
			  i128_str(a).c_str(), i128_str(b).c_str(), ok ? "ok" : "refused",
			  i128_str(r).c_str(), want_ok ? "ok" : "refused", i128_str(want).c_str());
		mul_ok += ok;

		int			k = (int) (rng() % 39);

		r = 777;
		ok = dec_rescale(a, k, &r);
		p = u256_mul(u256_of(dec_abs(a)), u256_of(pow10_128(k)));
		want_ok = u256_in_bound(p);
		want = a < 0 ? -(int128) u256_low(p) : (int128) u256_low(p);
		CHECK(ok == want_ok && (!ok || r == want), "dec_rescale(%s, %d): %s %s, want %s %s",
			  i128_str(a).c_str(), k, ok ? "ok" : "refused", i128_str(r).c_str(),
			  want_ok ? "ok" : "refused", i128_str(want).c_str());
		rescale_ok += ok;
	}
	/* the edges: (2^45)^2 = 2^90 refused, (2^45 - 1)(2^45 + 1) = 2^90 - 1 kept */
	{
		int128		r;
		int128		h = (int128) 1 << 45;

		CHECK(!dec_mul(h, -h, &r), "dec_mul(2^45, -2^45) kept");
		CHECK(dec_mul(h - 1, h + 1, &r) && r == ((int128) 1 << 90) - 1,
			  "dec_mul(2^45 - 1, 2^45 + 1): %s", i128_str(r).c_str());
		CHECK(dec_mul(((int128) 1 << 90) - 1, -1, &r) && r == 1 - ((int128) 1 << 90),
			  "dec_mul(2^90 - 1, -1)");
		CHECK(!dec_mul((int128) 1 << 64, (int128) 1 << 26, &r), "dec_mul(2^64, 2^26) kept");
		CHECK(dec_mul(0, ((int128) 1 << 90) - 1, &r) && r == 0, "dec_mul(0, 2^90 - 1)");
		CHECK(dec_rescale(0, 38, &r) && r == 0, "dec_rescale(0, 38)");
		CHECK(!dec_ok((int128) 1 << 90) && !dec_ok(-((int128) 1 << 90)) &&
			  dec_ok(((int128) 1 << 90) - 1) && dec_ok(1 - ((int128) 1 << 90)), "dec_ok's bound");
	}
	printf("  decimal: dec_mul kept %d, dec_rescale kept %d of 200000\n", mul_ok, rescale_ok);
}

void
decimal_tests(std::mt19937_64 &rng, bool gpu)
{
	(void) gpu;					/* the routines are host-and-device; the CPU runs them here */
	known_tests();
	decode_tests(rng);
	arithmetic_tests(rng);
}
