/*
 * cc_fill.cu — heap pages deformed into a segment of the GPU service's
 * columnar cache (pg_gpu_cc_seg, pg_gpu_engine.h).
 *
 * One block takes one page at a time into shared memory, as the aggregation
 * kernels do; its threads take the line pointers.  Line pointer i of page p
 * becomes row fill_row[p] + i: the caller reserved a row for every line
 * pointer, so rows need no count first.  A row is marked valid only for a
 * normal line pointer the page's bitmap (if any) lets through: the tuples the
 * page held when the backend inspected it under its lock.  The chunk's task
 * then reads the new segment's rows (a range) instead of the pages, so a page
 * crosses PCIe once whether it is cached or not.
 */
#include "engine/task.cuh"

namespace pg_gpu {
namespace cuda {

/* Copy one fixed-width value (aligned as its type in the tuple) into a column. */
__device__ __forceinline__ void
cc_store(uint8_t *dst, const uint8_t *src, int width)
{
	switch (width)
	{
		case 8:
			*(uint64_t *) dst = *(const uint64_t *) src;
			break;
		case 4:
			*(uint32_t *) dst = *(const uint32_t *) src;
			break;
		case 2:
			*(uint16_t *) dst = *(const uint16_t *) src;
			break;
		default:
			*dst = *src;
			break;
	}
}

__global__ void __launch_bounds__(page_policy::threads)
cc_fill_kernel(const page_chunk chunk, const uint64_t *fill_row,
			   const __grid_constant__ pg_gpu_cc_layout layout, const pg_gpu_cc_seg hdr,
			   uint64_t seg, int *err)
{
	constexpr int T = page_policy::threads;
	__shared__ uint4 page[PG_GPU_BLCKSZ / 16];
	uint8_t    *valid = (uint8_t *) (uintptr_t) hdr.valid;

	if (blockIdx.x == 0 && threadIdx.x == 0)
		*(pg_gpu_cc_seg *) (uintptr_t) seg = hdr;
	for_each_page<T>(chunk, page, no_store(), [&](int p, const pg_gpu_page_ref &ref,
											  const uint8_t *pg, const uint32_t *pvis, int lt) {
		uint64_t	base = fill_row[p];

		for (int i = lt; i < ref.nlp; i += T)
		{
			const uint8_t *tup = nullptr;
			uint32_t	len = 0;
			int			v = page_tuple(pg, pvis, i, &tup, &len);
			uint64_t	r = base + i;

			valid[r] = 0;
			if (v == 0)
				continue;
			if (v < 0 ||
				!deform_tuple(tup, len, layout, [&](int c, const uint8_t *src) {
					if (hdr.nulls[c])
						((uint8_t *) (uintptr_t) hdr.nulls[c])[r] = src == nullptr;
					if (src && layout.cols[c].type == PG_GPU_DECIMAL)
						cc_store_decimal((uint64_t *) (uintptr_t) hdr.vals[c] + 2 * r, src,
										 layout.cols[c].scale);
					else if (src && layout.cols[c].type == PG_GPU_TEXT)
						cc_store_text((uint8_t *) (uintptr_t) hdr.vals[c] + r * (uint64_t) hdr.width[c],
									  src, hdr.width[c]);
					else if (src)
						cc_store((uint8_t *) (uintptr_t) hdr.vals[c] + r * (uint64_t) hdr.width[c],
								 src, hdr.width[c]);
					else if (!hdr.nulls[c])
						atomicCAS(err, 0, (int) PG_GPU_BAD_PAGE);	/* NULL in a NOT NULL column */
				}))
			{
				atomicCAS(err, 0, (int) PG_GPU_BAD_PAGE);
				continue;
			}
			valid[r] = 1;
		}
	});
}

void
cc_fill_async(gpu_agg *agg, chunk_slot &s, const page_chunk &c, const pg_gpu_cc_chunk &cc,
			  cudaStream_t stream)
{
	int			blocks = c.npages < agg->max_blocks ? c.npages : agg->max_blocks;
	pg_gpu_cc_seg hdr;

	pg_gpu_cc_seg_layout(cc.fill_layout, cc.fill_rows, cc.fill_seg, &hdr);
	cc_fill_kernel<<<blocks, page_policy::threads, 0, stream>>>(
		c, s.d_fill_row, *cc.fill_layout, hdr, cc.fill_seg, s.d_err);
}

}							/* namespace cuda */
}							/* namespace pg_gpu */
