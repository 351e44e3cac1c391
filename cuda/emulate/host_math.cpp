/*
 * host_math.cpp — host-side entry points to the exact state arithmetic.
 *
 * Compiled by the host compiler whether or not CUDA is available, so src/ and the
 * unit tests use the very functions the kernels inline (agg_state.cuh).
 */
#include <string.h>

#include "agg_state.cuh"

using namespace pg_gpu::cuda;

extern "C" void
pg_gpu_reduce_host(const void *values, int64_t n, int coltype, pg_gpu_col_state *out)
{
	state_init(*out, coltype);
	for (int64_t i = 0; i < n; i++)
		accum_value_at(*out, values, i, coltype);
}

extern "C" void
pg_gpu_col_state_merge(pg_gpu_col_state *a, const pg_gpu_col_state *b, int coltype)
{
	if (a->n == 0 && b->n > 0)
	{
		/* a holds no value: its min/max words mean nothing */
		uint32_t	flags = a->flags;

		*a = *b;
		a->flags |= flags;
		return;
	}
	state_merge(*a, *b, coltype);
}

/* Decimal digits of an unsigned 192-bit number, by repeated division by 10^9. */
static void
u192_to_dec(uint64_t w[3], char *buf)
{
	char		tmp[80];
	int			n = 0;

	for (;;)
	{
		/* divide w (base 2^64, most significant first) by 1e9 */
		uint128		rem = 0;

		for (int i = 2; i >= 0; i--)
		{
			uint128		cur = (rem << 64) | w[i];

			w[i] = (uint64_t) (cur / 1000000000u);
			rem = cur % 1000000000u;
		}
		uint32_t	chunk = (uint32_t) rem;
		bool		zero = (w[0] | w[1] | w[2]) == 0;

		for (int d = 0; d < 9 && (chunk != 0 || !zero); d++)
		{
			tmp[n++] = (char) ('0' + chunk % 10);
			chunk /= 10;
		}
		if (zero)
			break;
	}
	if (n == 0)
		tmp[n++] = '0';
	for (int i = 0; i < n; i++)
		buf[i] = tmp[n - 1 - i];
	buf[n] = '\0';
}

extern "C" void
pg_gpu_int128_to_dec(uint64_t lo, uint64_t hi, char *buf)
{
	int128		v = load_i128(lo, hi);
	uint128		mag = v < 0 ? (uint128) 0 - (uint128) v : (uint128) v;
	uint64_t	w[3] = {(uint64_t) mag, (uint64_t) (mag >> 64), 0};

	if (v < 0)
		*buf++ = '-';
	u192_to_dec(w, buf);
}

extern "C" void
pg_gpu_uint192_to_dec(uint64_t lo, uint64_t mid, uint64_t hi, char *buf)
{
	uint64_t	w[3] = {lo, mid, hi};

	u192_to_dec(w, buf);
}
