/*
 * primitives.cu — see primitives.cuh.
 */
#include "cub.cuh"

#include "engine/policy.cuh"
#include "engine/primitives.cuh"

namespace pg_gpu {
namespace cuda {

__global__ void
gather_words_kernel(const uint64_t *src, const uint32_t *idx, uint64_t *dst, uint64_t n)
{
	for (uint64_t i = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; i < n;
		 i += (uint64_t) gridDim.x * blockDim.x)
		dst[i] = src[idx[i]];
}

__global__ void
iota_kernel(uint32_t *idx, uint64_t n)
{
	for (uint64_t i = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; i < n;
		 i += (uint64_t) gridDim.x * blockDim.x)
		idx[i] = (uint32_t) i;
}

void
iota_async(uint32_t *idx, uint64_t n, int blocks, cudaStream_t stream)
{
	iota_kernel<<<blocks, grid_policy::threads, 0, stream>>>(idx, n);
}

void
gather_words_async(const uint64_t *src, const uint32_t *idx, uint64_t *dst, uint64_t n,
				   int blocks, cudaStream_t stream)
{
	gather_words_kernel<<<blocks, grid_policy::threads, 0, stream>>>(src, idx, dst, n);
}

pg_gpu_status
scan_sizes(uint64_t *size, uint64_t *off, uint64_t n, cudaStream_t stream, pg_gpu_error *err)
{
	size_t		bytes = 0;
	void	   *temp = nullptr;
	pg_gpu_status st;

	cub::DeviceScan::ExclusiveSum(nullptr, bytes, size, off, (int) (n + 1), stream);
	if ((st = device_alloc(bytes, &temp, err)) != PG_GPU_OK)
		return st;
	if (cub::DeviceScan::ExclusiveSum(temp, bytes, size, off, (int) (n + 1), stream) != cudaSuccess)
		st = from_cuda(err, cudaGetLastError(), "cub::DeviceScan");
	device_free(temp);
	return st;
}

}							/* namespace cuda */
}							/* namespace pg_gpu */
