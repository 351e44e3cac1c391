/*
 * engine_test.cu — the engine's unit tests, no database: each operator's file
 * (agg_test.cu, group_test.cu, sort_test.cu, keyset_test.cu, expr_test.cu, decimal_test.cu,
 * cc_test.cu) builds heap pages the
 * way PostgreSQL lays them out (test_util.h), from fresh random values every run,
 * and checks the engine against a CPU reference.  Without a GPU (or built with
 * PG_GPU_NO_CUDA) the emulation and the references run and the kernel cases are
 * skipped, with a message.  Ends with "N passed, M failed".
 */
#include "test_util.h"

int			passed = 0;
int			failed = 0;

int
main()
{
	std::random_device rd;
	uint64_t	seed = ((uint64_t) rd() << 32) ^ rd();
	std::mt19937_64 rng(seed);
	pg_gpu_error err;

	printf("engine_test seed %llu\n", (unsigned long long) seed);

	bool		gpu = pg_gpu_engine_init(&err) == PG_GPU_OK;

	if (!gpu)
		printf("GPU engine tests skipped: %s\n", err.message);
	agg_tests(rng, gpu);
	group_tests(rng, gpu);
	sort_tests(rng, gpu);
	keyset_tests(rng, gpu);
	expr_tests(rng, gpu);
	decimal_tests(rng, gpu);
	cc_tests(rng, gpu);
	datetime_tests(rng);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
