/*
 * cub.cuh — the CUB headers the engine uses, included without <iostream>.
 *
 * CUB's device algorithms include <iostream> for an operator<< nobody here uses.
 * With GCC 13's headers that adds a reference to std::ios_base_library_init
 * (GLIBCXX_3.4.32), which the libstdc++ of a Debian 12 PostgreSQL build lacks, and
 * pg_gpu.so would not load there.  <ostream> is all CUB needs from it.
 */
#ifndef PG_GPU_CUB_CUH
#define PG_GPU_CUB_CUH

#include <ostream>
#ifndef _GLIBCXX_IOSTREAM
#define _GLIBCXX_IOSTREAM 1
#endif
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>

#endif							/* PG_GPU_CUB_CUH */
