/*
 * dict_bench — the dictionary benchmark of issue 5 (GPU host): 10 M query strings
 * looked up against 1 M and 20 M keys, hash table vs LOUDS trie, through the
 * engine's own API (pg_gpu_dict_*), no database.
 *
 * Keys and queries are 32 hex digits of a 128-bit mix of an integer, like md5
 * text: key j is hex(2j), query i is hex(i), so query i hits when i is even and
 * i / 2 < keys (half the queries hit for 20 M keys, a twentieth for 1 M).
 * Reported per structure: memory per key (host and GPU), host build time, copy to
 * the GPU, and lookups per second on the GPU (kernel time, queries already in
 * device memory; median of reps) and on one CPU core.
 *
 *   bench/dict_bench [--queries 10000000] [--keys 1000000,20000000] [--reps 5]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "pg_gpu_engine.h"

static uint64_t
mix(uint64_t x)
{
	x += 0x9E3779B97F4A7C15ULL;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
	return x ^ (x >> 31);
}

/* n strings of 32 hex digits: string k is hex(f(k)) */
static void
make_strings(uint64_t n, uint64_t mul, std::string &data, std::vector<uint64_t> &off)
{
	static const char hex[] = "0123456789abcdef";

	data.resize(n * 32);
	off.resize(n + 1);
	for (uint64_t k = 0; k < n; k++)
	{
		uint64_t	h[2] = {mix(k * mul), mix(k * mul ^ 0x5555555555555555ULL)};

		for (int i = 0; i < 32; i++)
			data[k * 32 + i] = hex[(h[i / 16] >> (4 * (i % 16))) & 15];
		off[k] = k * 32;
	}
	off[n] = n * 32;
}

static double
now_ms()
{
	return std::chrono::duration<double, std::milli>(
		std::chrono::steady_clock::now().time_since_epoch()).count();
}

int
main(int argc, char **argv)
{
	uint64_t	nq = 10000000;
	std::vector<uint64_t> nkeys = {1000000, 20000000};
	int			reps = 5;

	for (int i = 1; i + 1 < argc; i += 2)
	{
		if (!strcmp(argv[i], "--queries"))
			nq = strtoull(argv[i + 1], nullptr, 10);
		else if (!strcmp(argv[i], "--reps"))
			reps = std::max(1, atoi(argv[i + 1]));
		else if (!strcmp(argv[i], "--keys"))
		{
			nkeys.clear();
			for (char *p = strtok(argv[i + 1], ","); p; p = strtok(nullptr, ","))
				nkeys.push_back(strtoull(p, nullptr, 10));
		}
	}

	pg_gpu_error err;
	pg_gpu_device_info dev;

	if (pg_gpu_engine_init(&err) != PG_GPU_OK || pg_gpu_engine_devices(&dev, 1, &err) < 1)
	{
		fprintf(stderr, "dict_bench: no GPU: %s\n", err.message);
		return 1;
	}

	std::string qdata;
	std::vector<uint64_t> qoff;

	make_strings(nq, 1, qdata, qoff);
	printf("### Dictionary lookups: %llu queries (32-byte hex strings) on %s\n\n",
		   (unsigned long long) nq, dev.name);
	printf("| keys | kind | distinct | trie nodes | host B/key | GPU B/key | host build ms | "
		   "copy to GPU ms | GPU lookup ms (median of %d) | GPU lookups/s | hits | "
		   "CPU lookups/s (1 core) |\n", reps);
	printf("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
	for (uint64_t n : nkeys)
	{
		std::string kdata;
		std::vector<uint64_t> koff;

		make_strings(n, 2, kdata, koff);
		for (int kind : {PG_GPU_DICT_HASH, PG_GPU_DICT_TRIE})
		{
			pg_gpu_dict *d = pg_gpu_dict_build(kind, n, kdata.data(), koff.data(), 1, &err);
			pg_gpu_dict_info info;
			std::vector<int64_t> out(nq);
			std::vector<double> ms;
			uint64_t	hits = 0,
						wrong = 0;

			if (!d)
			{
				fprintf(stderr, "dict_bench: build (%llu keys, kind %d): %s\n",
						(unsigned long long) n, kind, err.message);
				return 1;
			}
			pg_gpu_dict_get_info(d, &info);
			for (int r = 0; r < reps; r++)
			{
				double		k;

				if (pg_gpu_dict_probe(d, nq, qdata.data(), qoff.data(), out.data(), &k, &err) !=
					PG_GPU_OK)
				{
					fprintf(stderr, "dict_bench: probe: %s\n", err.message);
					return 1;
				}
				ms.push_back(k);
			}
			std::sort(ms.begin(), ms.end());
			/* query i hits key i / 2 when i is even */
			for (uint64_t i = 0; i < nq; i++)
			{
				int64_t		want = (i % 2 == 0 && i / 2 < n) ? (int64_t) (i / 2) : -1;

				hits += out[i] >= 0;
				wrong += out[i] != want;
			}

			/* one CPU core: the host copy, a million queries */
			uint64_t	mq = std::min<uint64_t>(nq, 1000000),
						chk = 0;
			double		t0 = now_ms();

			for (uint64_t i = 0; i < mq; i++)
				chk += pg_gpu_dict_find(d, qdata.data() + qoff[i], 32) >= 0;
			double		cpu_ms = now_ms() - t0;

			printf("| %llu | %s | %llu | %llu | %.1f | %.1f | %.0f | %.0f | %.2f | %.2e | %llu%s | %.2e |\n",
				   (unsigned long long) n, kind == PG_GPU_DICT_HASH ? "hash" : "trie",
				   (unsigned long long) info.distinct, (unsigned long long) info.nodes,
				   (double) info.host_bytes / n, (double) info.device_bytes / n, info.build_ms,
				   info.upload_ms, ms[ms.size() / 2], nq / (ms[ms.size() / 2] / 1000.0),
				   (unsigned long long) hits, wrong ? " WRONG" : "", mq / (cpu_ms / 1000.0));
			fflush(stdout);
			if (wrong || chk == (uint64_t) -1)
			{
				fprintf(stderr, "dict_bench: %llu wrong answers\n", (unsigned long long) wrong);
				return 1;
			}
			pg_gpu_dict_free(d);
		}
	}
	return 0;
}
