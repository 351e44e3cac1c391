/*
 * engine.cu — the GPU runtime of one backend process: lazy CUDA start-up, device
 * discovery, pooled device and pinned host memory, host memory registration.
 *
 * CUDA is started on first use in a backend, never in the postmaster (a CUDA context
 * does not survive fork).  Pools keep freed blocks keyed by size class: a query
 * allocates the same few buffers as the last one, and reusing them avoids
 * cudaMalloc/cudaHostAlloc on the query path.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "engine/engine_internal.cuh"

namespace pg_gpu {
namespace cuda {

/*
 * Start-up runs on a thread of its own (pg_gpu_engine_init_async), so that the
 * backend waiting for it still answers a cancel: creating the context takes
 * ~0.4 s or more.  g_init_state publishes g_init_status and g_init_message.
 */
enum
{
	kInitNone = 0, kInitRunning, kInitDone
};
static std::atomic<int> g_init_state{kInitNone};
static pg_gpu_status g_init_status = PG_GPU_OK;
static char g_init_message[256];
static uint64_t g_memory_limit = 0;
static uint64_t g_device_in_use = 0;	/* bytes handed out plus cached */

pg_gpu_status
from_cuda(pg_gpu_error *err, cudaError_t rc, const char *what)
{
	pg_gpu_status st = PG_GPU_CUDA_ERROR;

	if (rc == cudaErrorMemoryAllocation)
		st = PG_GPU_OUT_OF_MEMORY;
	else if (rc == cudaErrorNoDevice || rc == cudaErrorInsufficientDriver)
		st = PG_GPU_NO_DEVICE;
	(void) cudaGetLastError();	/* clear sticky-free errors */
	return set_error(err, st, "%s (%s)", cudaGetErrorString(rc), what);
}

/* Poll until query() stops answering cudaErrorNotReady (engine_internal.cuh). */
template <typename Q>
static pg_gpu_status
poll_wait(Q query, const char *what, pg_gpu_error *err)
{
	for (;;)
	{
		cudaError_t rc = query();

		if (rc != cudaErrorNotReady)
			return cuda_status(err, rc, what);
		if (cancel_requested())
			return cancelled(err);
		std::this_thread::sleep_for(std::chrono::microseconds(20));
	}
}

pg_gpu_status
stream_wait(cudaStream_t stream, pg_gpu_error *err)
{
	if (!cancel_callback_set())
		return cuda_status(err, cudaStreamSynchronize(stream), "cudaStreamSynchronize");
	return poll_wait([&] { return cudaStreamQuery(stream); }, "cudaStreamQuery", err);
}

pg_gpu_status
event_wait(cudaEvent_t event, pg_gpu_error *err)
{
	if (!cancel_callback_set())
		return cuda_status(err, cudaEventSynchronize(event), "cudaEventSynchronize");
	return poll_wait([&] { return cudaEventQuery(event); }, "cudaEventQuery", err);
}

/*
 * Threads that CUDA starts, and our own, must never run PostgreSQL's signal
 * handlers: a process-directed signal (query cancel, die) has to reach the
 * backend's main thread.  Threads inherit the creating thread's signal mask, so
 * everything that may create one runs with all signals blocked.
 */
class SignalsBlocked
{
  public:
	SignalsBlocked()
	{
		sigset_t	all;

		sigfillset(&all);
		pthread_sigmask(SIG_BLOCK, &all, &saved_);
	}
	~SignalsBlocked() { pthread_sigmask(SIG_SETMASK, &saved_, nullptr); }

  private:
	sigset_t	saved_;
};

/* ---- pools ------------------------------------------------------------- */

struct Pool
{
	std::multimap<size_t, void *> free_blocks;		/* size -> block */
	std::unordered_map<void *, size_t> sizes;
	/*
	 * A freed block's event, recorded on the freeing thread's default stream
	 * when it was freed: work queued there may still use it.  That thread's
	 * next steps order after that work by its stream; another thread's (the GPU
	 * service runs a task per thread) do not, so a block is reused only once
	 * its event has completed.
	 */
	std::unordered_map<void *, cudaEvent_t> pending;
};

static void
note_pending(Pool &pool, void *ptr)
{
	cudaEvent_t ev;

	if (cudaEventCreateWithFlags(&ev, cudaEventDisableTiming) != cudaSuccess)
	{
		(void) cudaGetLastError();
		(void) cudaStreamSynchronize(thread_stream);
		(void) cudaGetLastError();
		return;
	}
	if (cudaEventRecord(ev, thread_stream) != cudaSuccess)
	{
		(void) cudaGetLastError();
		cudaEventDestroy(ev);
		(void) cudaStreamSynchronize(thread_stream);
		(void) cudaGetLastError();
		return;
	}
	pool.pending[ptr] = ev;
}

/* Whether the block's last use on its thread's stream is over (its event dropped). */
static bool
block_ready(Pool &pool, void *ptr)
{
	auto		it = pool.pending.find(ptr);

	if (it == pool.pending.end())
		return true;
	cudaError_t rc = cudaEventQuery(it->second);

	if (rc == cudaErrorNotReady)
		return false;
	(void) cudaGetLastError();
	cudaEventDestroy(it->second);
	pool.pending.erase(it);
	return true;
}

static Pool g_device_pool;
static Pool g_pinned_pool;

/*
 * The pools and the byte count are shared by every thread that runs tasks: the
 * GPU service (src/service/) runs one task per thread.  Recursive, since a
 * locked call may trim the pool.
 */
static std::recursive_mutex g_pool_mutex;

static size_t
size_class(size_t bytes)
{
	return pow2_at_least(bytes, 4096);
}

static bool
take_cached(Pool &pool, size_t cls, void **ptr)
{
	auto		range = pool.free_blocks.equal_range(cls);

	for (auto it = range.first; it != range.second; ++it)
		if (block_ready(pool, it->second))
		{
			*ptr = it->second;
			pool.free_blocks.erase(it);
			return true;
		}
	return false;
}

/* Drop every cached (unused) device block, e.g. before a large allocation. */
static void
trim_device_pool()
{
	std::lock_guard<std::recursive_mutex> pool_lock(g_pool_mutex);

	for (auto &kv : g_device_pool.free_blocks)
	{
		auto		ev = g_device_pool.pending.find(kv.second);

		if (ev != g_device_pool.pending.end())
		{
			cudaEventDestroy(ev->second);
			g_device_pool.pending.erase(ev);
		}
		g_device_in_use -= kv.first;
		g_device_pool.sizes.erase(kv.second);
		cudaFree(kv.second);	/* waits for the device's work */
	}
	g_device_pool.free_blocks.clear();
}

uint64_t
device_memory_limit()
{
	return g_memory_limit;
}

/* Bytes a task may plan to use: the limit, or 90% of what is free or cached. */
uint64_t
device_budget()
{
	std::lock_guard<std::recursive_mutex> pool_lock(g_pool_mutex);

	size_t		free_b = 0,
				total_b = 0;
	uint64_t	cached = 0;

	if (g_memory_limit)
		return g_memory_limit;
	for (auto &kv : g_device_pool.free_blocks)
		cached += kv.first;
	if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess)
	{
		(void) cudaGetLastError();
		return cached;
	}
	return (uint64_t) ((free_b + cached) * 0.9);
}

pg_gpu_status
device_alloc(size_t bytes, void **ptr, pg_gpu_error *err)
{
	std::lock_guard<std::recursive_mutex> pool_lock(g_pool_mutex);

	size_t		cls = size_class(bytes);

	if (take_cached(g_device_pool, cls, ptr))
		return PG_GPU_OK;
	if (g_memory_limit && g_device_in_use + cls > g_memory_limit)
	{
		trim_device_pool();
		if (g_device_in_use + cls > g_memory_limit)
			return set_error(err, PG_GPU_OUT_OF_MEMORY,
							 "GPU memory limit of %llu bytes reached (need %llu more)",
							 (unsigned long long) g_memory_limit,
							 (unsigned long long) cls);
	}
	cudaError_t rc = cudaMalloc(ptr, cls);

	if (rc == cudaErrorMemoryAllocation)
	{
		(void) cudaGetLastError();
		trim_device_pool();
		rc = cudaMalloc(ptr, cls);
	}
	if (rc != cudaSuccess)
		return from_cuda(err, rc, "cudaMalloc");
	g_device_pool.sizes[*ptr] = cls;
	g_device_in_use += cls;
	return PG_GPU_OK;
}

void
device_free(void *ptr)
{
	std::lock_guard<std::recursive_mutex> pool_lock(g_pool_mutex);

	if (!ptr)
		return;
	auto		it = g_device_pool.sizes.find(ptr);

	if (it == g_device_pool.sizes.end())
		return;
	g_device_pool.free_blocks.emplace(it->second, ptr);
	note_pending(g_device_pool, ptr);
	if (g_memory_limit && g_device_in_use > g_memory_limit)
		trim_device_pool();
}

pg_gpu_status
pinned_alloc(size_t bytes, void **ptr, pg_gpu_error *err)
{
	std::lock_guard<std::recursive_mutex> pool_lock(g_pool_mutex);

	size_t		cls = size_class(bytes);

	if (take_cached(g_pinned_pool, cls, ptr))
		return PG_GPU_OK;
	PG_GPU_TRY(err, cudaHostAlloc(ptr, cls, cudaHostAllocDefault));
	g_pinned_pool.sizes[*ptr] = cls;
	return PG_GPU_OK;
}

void
pinned_free(void *ptr)
{
	std::lock_guard<std::recursive_mutex> pool_lock(g_pool_mutex);

	if (!ptr)
		return;
	auto		it = g_pinned_pool.sizes.find(ptr);

	if (it != g_pinned_pool.sizes.end())
	{
		g_pinned_pool.free_blocks.emplace(it->second, ptr);
		note_pending(g_pinned_pool, ptr);
	}
}

}							/* namespace cuda */
}							/* namespace pg_gpu */

using namespace pg_gpu::cuda;

extern "C" int
pg_gpu_engine_compiled(void)
{
	return 1;
}

/*
 * Why no device is usable, in the user's terms: no driver at all, a driver older
 * than the CUDA runtime this build carries (both versions said), or no GPU
 * (hidden by CUDA_VISIBLE_DEVICES, or none there).  rc: cudaGetDeviceCount's.
 */
static void
no_device_error(pg_gpu_error *e, cudaError_t rc)
{
	int			drv = 0,
				rt = 0;
	const char *visible = getenv("CUDA_VISIBLE_DEVICES");

	cudaDriverGetVersion(&drv);
	cudaRuntimeGetVersion(&rt);
	(void) cudaGetLastError();
	if (drv == 0)
		set_error(e, PG_GPU_NO_DEVICE, "no NVIDIA driver found (libcuda could not be loaded)");
	else if (rc == cudaErrorInsufficientDriver || drv < rt)
		set_error(e, PG_GPU_NO_DEVICE,
				  "the NVIDIA driver is too old for this build: it supports CUDA %d.%d, "
				  "pg_gpu was built with CUDA %d.%d", drv / 1000, drv % 1000 / 10,
				  rt / 1000, rt % 1000 / 10);
	else if (rc == cudaSuccess || rc == cudaErrorNoDevice)
	{
		if (visible != NULL)
			set_error(e, PG_GPU_NO_DEVICE, "no GPU visible (CUDA_VISIBLE_DEVICES=\"%.64s\")",
					  visible);
		else
			set_error(e, PG_GPU_NO_DEVICE, "no NVIDIA GPU found");
	}
	else
		from_cuda(e, rc, "cudaGetDeviceCount");
}

/* The start-up itself: the device count, device 0, its primary context. */
static void
init_device(void)
{
	int			n = 0;
	cudaError_t rc = cudaGetDeviceCount(&n);
	pg_gpu_error e;

	if (rc != cudaSuccess || n == 0)
	{
		no_device_error(&e, rc);
		g_init_status = PG_GPU_NO_DEVICE;
		memcpy(g_init_message, e.message, sizeof(g_init_message));
		return;
	}
	rc = cudaSetDevice(0);
	if (rc == cudaSuccess)
		rc = cudaFree(0);		/* create the primary context now */
	if (rc != cudaSuccess)
	{
		from_cuda(&e, rc, "cudaSetDevice");
		g_init_status = PG_GPU_NO_DEVICE;
		memcpy(g_init_message, e.message, sizeof(g_init_message));
		return;
	}
	g_init_status = PG_GPU_OK;
}

extern "C" int
pg_gpu_engine_init_async(void)
{
	int			expected = kInitNone;

	if (g_init_state.compare_exchange_strong(expected, kInitRunning))
	{
		try
		{
			SignalsBlocked blocked;	/* the thread, and CUDA's helpers, inherit this mask */

			std::thread([]() {
				init_device();
				g_init_state.store(kInitDone, std::memory_order_release);
			}).detach();
		}
		catch (...)
		{
			/* no thread: start here, without answering a cancel meanwhile */
			SignalsBlocked blocked;

			init_device();
			g_init_state.store(kInitDone, std::memory_order_release);
		}
	}
	if (g_init_state.load(std::memory_order_acquire) != kInitDone)
		return 0;
	return g_init_status == PG_GPU_OK ? 1 : -1;
}

extern "C" pg_gpu_status
pg_gpu_engine_init(pg_gpu_error *err)
{
	static thread_local bool bound = false;

	while (pg_gpu_engine_init_async() == 0)
		std::this_thread::sleep_for(std::chrono::microseconds(200));
	if (g_init_status != PG_GPU_OK)
		return set_error(err, g_init_status, "%s", g_init_message);
	/* this thread uses device 0's primary context, made current by another */
	if (!bound)
	{
		cudaError_t rc = cudaSetDevice(0);

		if (rc != cudaSuccess)
			return from_cuda(err, rc, "cudaSetDevice");
		bound = true;
	}
	return PG_GPU_OK;
}

extern "C" int
pg_gpu_engine_initialized(void)
{
	return g_init_state.load(std::memory_order_acquire) == kInitDone &&
		g_init_status == PG_GPU_OK;
}

extern "C" void
pg_gpu_engine_set_memory_limit(uint64_t bytes)
{
	std::lock_guard<std::recursive_mutex> pool_lock(g_pool_mutex);

	g_memory_limit = bytes;
	/* cached blocks count against the cap too: drop them if it was lowered */
	if (g_memory_limit && g_device_in_use > g_memory_limit)
		trim_device_pool();
}

/*
 * Whether this process's CUDA context still works: after a sticky error (an
 * illegal address, a failed launch) every call returns it, and only a new
 * process has a context again.  A stream query answers without waiting.
 */
extern "C" int
pg_gpu_engine_healthy(void)
{
	if (g_init_state.load(std::memory_order_acquire) != kInitDone || g_init_status != PG_GPU_OK)
		return 1;
	cudaError_t rc = cudaStreamQuery(thread_stream);

	if (rc == cudaSuccess || rc == cudaErrorNotReady)
		return 1;
	return 0;
}

extern "C" uint64_t
pg_gpu_engine_memory(uint64_t *cached)
{
	std::lock_guard<std::recursive_mutex> pool_lock(g_pool_mutex);
	uint64_t	free_b = 0;

	for (auto &kv : g_device_pool.free_blocks)
		free_b += kv.first;
	*cached = free_b;
	return g_device_in_use - free_b;
}

/*
 * A table cache's arena: plain cudaMalloc, outside the pools (it lives across
 * queries and has its own budget); the pools' spare blocks give way to it.
 */
extern "C" pg_gpu_status
pg_gpu_cache_alloc(uint64_t bytes, int emulate, uint64_t *addr, pg_gpu_error *err)
{
	void	   *p = nullptr;
	pg_gpu_status st;

	*addr = 0;
	if (emulate)
	{
		p = aligned_alloc(PG_GPU_BLCKSZ, (bytes + PG_GPU_BLCKSZ - 1) / PG_GPU_BLCKSZ * PG_GPU_BLCKSZ);
		if (p == nullptr)
			return set_error(err, PG_GPU_OUT_OF_MEMORY, "no host memory for a table cache");
		*addr = (uint64_t) (uintptr_t) p;
		return PG_GPU_OK;
	}
	if ((st = pg_gpu_engine_init(err)) != PG_GPU_OK)
		return st;
	cudaError_t rc = cudaMalloc(&p, bytes);

	if (rc == cudaErrorMemoryAllocation)
	{
		(void) cudaGetLastError();
		trim_device_pool();
		rc = cudaMalloc(&p, bytes);
	}
	if (rc != cudaSuccess)
		return from_cuda(err, rc, "cudaMalloc (table cache)");
	*addr = (uint64_t) (uintptr_t) p;
	return PG_GPU_OK;
}

extern "C" void
pg_gpu_cache_free(uint64_t addr, int emulate)
{
	if (addr == 0)
		return;
	if (emulate)
		free((void *) (uintptr_t) addr);
	else
		cudaFree((void *) (uintptr_t) addr);
}

extern "C" int
pg_gpu_engine_devices(pg_gpu_device_info *out, int max, pg_gpu_error *err)
{
	if (pg_gpu_engine_init(err) != PG_GPU_OK)
		return -1;

	int			n = 0;

	if (cudaGetDeviceCount(&n) != cudaSuccess)
		return -1;
	for (int i = 0; i < n && i < max; i++)
	{
		cudaDeviceProp p;
		size_t		fr = 0,
					tot = 0;

		if (cudaGetDeviceProperties(&p, i) != cudaSuccess)
		{
			from_cuda(err, cudaGetLastError(), "cudaGetDeviceProperties");
			return -1;
		}
		memset(&out[i], 0, sizeof(out[i]));
		out[i].ordinal = i;
		snprintf(out[i].name, sizeof(out[i].name), "%.127s", p.name);
		out[i].cc_major = p.major;
		out[i].cc_minor = p.minor;
		out[i].multiprocessors = p.multiProcessorCount;
		out[i].total_memory = p.totalGlobalMem;
		out[i].can_map_host_memory = p.canMapHostMemory;
		if (i == 0 && cudaMemGetInfo(&fr, &tot) == cudaSuccess)
			out[i].free_memory = fr;
	}
	return n;
}

extern "C" int
pg_gpu_engine_free_memory(uint64_t *free_bytes)
{
	size_t		fr = 0,
				tot = 0;

	if (g_init_state.load(std::memory_order_acquire) != kInitDone || g_init_status != PG_GPU_OK)
		return 0;
	if (cudaMemGetInfo(&fr, &tot) != cudaSuccess)
	{
		(void) cudaGetLastError();
		return 0;
	}
	*free_bytes = fr;
	return 1;
}

/*
 * Background registration: pinning gigabytes takes seconds on some hosts (about
 * 0.7 s/GB was measured in a VM), so a thread does it while queries copy pages
 * through staging buffers.  The thread calls CUDA only, never PostgreSQL.
 */
static std::atomic<int> g_reg_state{0};		/* 0 none, 1 running, 2 done, -1 failed */
static uint64_t g_reg_dev = 0;
static pg_gpu_error g_reg_err;

extern "C" int
pg_gpu_engine_register_host_async(void *base, uint64_t len)
{
	int			expected = 0;
	pg_gpu_error err;

	if (!g_reg_state.compare_exchange_strong(expected, 1))
		return g_reg_state.load();
	if (pg_gpu_engine_init(&err) != PG_GPU_OK)
	{
		g_reg_err = err;
		g_reg_state = -1;
		return -1;
	}
	try
	{
		SignalsBlocked blocked;	/* the thread inherits this mask */

		std::thread([base, len]() {
			cudaSetDevice(0);
			uint64_t	dev = 0;
			pg_gpu_error e;

			if (pg_gpu_engine_register_host(base, len, &dev, &e) == PG_GPU_OK)
			{
				g_reg_dev = dev;
				g_reg_state = 2;
			}
			else
			{
				g_reg_err = e;
				g_reg_state = -1;
			}
		}).detach();
	}
	catch (...)
	{
		set_error(&g_reg_err, PG_GPU_CUDA_ERROR, "cannot start the registration thread");
		g_reg_state = -1;
	}
	return g_reg_state.load();
}

extern "C" int
pg_gpu_engine_registration(uint64_t *device_base, pg_gpu_error *err)
{
	int			st = g_reg_state.load();

	if (st == 2)
		*device_base = g_reg_dev;
	else if (st == -1 && err)
		*err = g_reg_err;
	return st;
}

/*
 * Register [base, base + len) in slices of kRegisterSlice.  cudaHostRegister
 * holds the driver while it pins pages (about 0.1-0.2 s per GB on the H200
 * host), and every other CUDA call of the process waits for it: registered in
 * one call, an 8 GB pool held up a backend's running query, and its cancel,
 * for a second (measured: GpuSort and join cancels ended 0.6-1.1 s after their
 * timeouts once per session).  Slices, with a pause between them, bound that
 * wait to one slice's pinning: 256 MB slices back to back left it at 0.2-0.9 s,
 * with 2 ms pauses at 130-170 ms; hence 64 MB (10-45 ms) and 1 ms pauses.
 * Kernels read the pool as one range, so the slices' device addresses must be
 * contiguous (they are where the GPU uses host addresses for registered
 * memory); otherwise the slices go and the range is registered in one call.
 */
static const uint64_t kRegisterSlice = 64ull << 20;

static void
unregister_slices(char *base, uint64_t done)
{
	for (uint64_t off = 0; off < done; off += kRegisterSlice)
		cudaHostUnregister(base + off);
	(void) cudaGetLastError();
}

extern "C" pg_gpu_status
pg_gpu_engine_register_host(void *base, uint64_t len, uint64_t *device_base,
							pg_gpu_error *err)
{
	pg_gpu_status st = pg_gpu_engine_init(err);
	const unsigned flags = cudaHostRegisterMapped | cudaHostRegisterPortable;
	char	   *p = (char *) base;
	uint64_t	done = 0;
	uint64_t	dev0 = 0;
	bool		contiguous = true;
	cudaError_t rc = cudaSuccess;
	void	   *dptr = nullptr;

	if (st != PG_GPU_OK)
		return st;
	while (done < len)
	{
		uint64_t	n = len - done < kRegisterSlice ? len - done : kRegisterSlice;

		rc = cudaHostRegister(p + done, n, flags);
		if (rc != cudaSuccess)
			break;
		rc = cudaHostGetDevicePointer(&dptr, p + done, 0);
		if (rc != cudaSuccess)
		{
			cudaHostUnregister(p + done);
			break;
		}
		if (done == 0)
			dev0 = (uint64_t) (uintptr_t) dptr;
		else if ((uint64_t) (uintptr_t) dptr != dev0 + done)
		{
			cudaHostUnregister(p + done);
			contiguous = false;
			break;
		}
		done += n;
		/*
		 * A pause between slices: a thread of the process waiting for the
		 * driver (a query's copy or sync, its cancel's clean-up) gets it
		 * before the next slice.
		 */
		if (done < len)
			std::this_thread::sleep_for(std::chrono::milliseconds(1));
	}
	if (done == len)
	{
		*device_base = dev0;
		return PG_GPU_OK;
	}
	unregister_slices(p, done);
	if (contiguous)
		return from_cuda(err, rc, "cudaHostRegister");
	/* one range, one call */
	PG_GPU_TRY(err, cudaHostRegister(base, len, flags));
	rc = cudaHostGetDevicePointer(&dptr, base, 0);
	if (rc != cudaSuccess)
	{
		cudaHostUnregister(base);
		return from_cuda(err, rc, "cudaHostGetDevicePointer");
	}
	*device_base = (uint64_t) (uintptr_t) dptr;
	return PG_GPU_OK;
}
