/*
 * group_atomics.cuh — the atomics a group entry's words take (group.cuh), on
 * the GPU (DevAtomics) and in the CPU twin (HostAtomics), and the multi-word
 * sums built on them.
 */
#ifndef PG_GPU_GROUP_ATOMICS_CUH
#define PG_GPU_GROUP_ATOMICS_CUH

#include "expr.cuh"

namespace pg_gpu {
namespace cuda {

#if defined(__CUDACC__)
struct DevAtomics
{
	static __device__ __forceinline__ uint64_t load(const uint64_t *p)
	{
		return *(const volatile uint64_t *) p;
	}
	static __device__ __forceinline__ void store(uint64_t *p, uint64_t v)
	{
		*(volatile uint64_t *) p = v;
	}
	static __device__ __forceinline__ void fence()
	{
		__threadfence();
	}
	static __device__ __forceinline__ uint64_t cas(uint64_t *p, uint64_t c, uint64_t v)
	{
		return atomicCAS((unsigned long long *) p, c, v);
	}
	static __device__ __forceinline__ uint64_t add(uint64_t *p, uint64_t v)
	{
		return atomicAdd((unsigned long long *) p, v);
	}
	static __device__ __forceinline__ void addf(uint64_t *p, double v)
	{
		atomicAdd((double *) p, v);
	}
	static __device__ __forceinline__ void addf32(uint64_t *p, float v)
	{
		atomicAdd((float *) p, v);
	}
	static __device__ __forceinline__ void min_i(uint64_t *p, int64_t v)
	{
		atomicMin((long long *) p, (long long) v);
	}
	static __device__ __forceinline__ void max_i(uint64_t *p, int64_t v)
	{
		atomicMax((long long *) p, (long long) v);
	}
	static __device__ __forceinline__ void min_u(uint64_t *p, uint64_t v)
	{
		atomicMin((unsigned long long *) p, v);
	}
	static __device__ __forceinline__ void max_u(uint64_t *p, uint64_t v)
	{
		atomicMax((unsigned long long *) p, v);
	}
	static __device__ __forceinline__ void or_(uint64_t *p, uint64_t v)
	{
		atomicOr((unsigned long long *) p, v);
	}
	/* bytes another thread published: past the SM's (incoherent) L1 */
	static __device__ __forceinline__ uint8_t byte(const uint8_t *p)
	{
		return *(const volatile uint8_t *) p;
	}
};
#endif

/* Single-threaded host emulation. */
struct HostAtomics
{
	static inline uint64_t load(const uint64_t *p) { return *p; }
	static inline void store(uint64_t *p, uint64_t v) { *p = v; }
	static inline void fence() {}
	static inline uint64_t cas(uint64_t *p, uint64_t c, uint64_t v)
	{
		uint64_t	o = *p;

		if (o == c)
			*p = v;
		return o;
	}
	static inline uint64_t add(uint64_t *p, uint64_t v)
	{
		uint64_t	o = *p;

		*p = o + v;
		return o;
	}
	static inline void addf(uint64_t *p, double v) { *p = f_bits(as_f(*p) + v); }
	static inline void addf32(uint64_t *p, float v)
	{
		float		f;

		memcpy(&f, p, 4);
		f += v;
		memcpy(p, &f, 4);
	}
	static inline void min_i(uint64_t *p, int64_t v) { if (v < (int64_t) *p) *p = (uint64_t) v; }
	static inline void max_i(uint64_t *p, int64_t v) { if (v > (int64_t) *p) *p = (uint64_t) v; }
	static inline void min_u(uint64_t *p, uint64_t v) { if (v < *p) *p = v; }
	static inline void max_u(uint64_t *p, uint64_t v) { if (v > *p) *p = v; }
	static inline void or_(uint64_t *p, uint64_t v) { *p |= v; }
	static inline uint8_t byte(const uint8_t *p) { return *p; }
};

#if defined(__CUDACC__)
#define PG_GPU_TD __host__ __device__ __forceinline__
#define PG_GPU_EXEC_CHECK_DISABLE _Pragma("nv_exec_check_disable")
#else
#define PG_GPU_TD inline
#define PG_GPU_EXEC_CHECK_DISABLE
#endif

/* 128-bit signed add (lo, hi) into two words; carries from the returned old value */
PG_GPU_EXEC_CHECK_DISABLE
template <class A>
PG_GPU_TD void
atomic_add_i128(uint64_t *w, uint64_t lo, uint64_t hi)
{
	uint64_t	old = A::add(&w[0], lo);

	if (old + lo < old)
		hi++;
	if (hi)
		A::add(&w[1], hi);
}

/* 192-bit unsigned add into three words */
PG_GPU_EXEC_CHECK_DISABLE
template <class A>
PG_GPU_TD void
atomic_add_u192(uint64_t *w, uint64_t s0, uint64_t s1, uint64_t s2)
{
	uint64_t	old = A::add(&w[0], s0);

	if (old + s0 < old)
	{
		s1++;
		if (s1 == 0)
			s2++;
	}
	if (s1)
	{
		uint64_t	o1 = A::add(&w[1], s1);

		if (o1 + s1 < o1)
			s2++;
	}
	if (s2)
		A::add(&w[2], s2);
}

}							/* namespace cuda */
}							/* namespace pg_gpu */

#endif							/* PG_GPU_GROUP_ATOMICS_CUH */
