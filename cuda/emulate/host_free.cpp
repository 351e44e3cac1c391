/*
 * host_free.cpp — host_run_detached (emulate.h): the emulation's big buffers
 * given back on a thread of their own, so that a task's end (a cancelled
 * query's above all) does not wait for the kernel to unmap them.
 */
#include <pthread.h>
#include <signal.h>

#include <system_error>
#include <thread>

#include "emulate/emulate.h"

void
host_run_detached(void (*fn) (void *), void *arg)
{
	sigset_t	all,
				old;

	/* the backend's signals must reach its own thread, never this one */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	try
	{
		std::thread(fn, arg).detach();
	}
	catch (const std::system_error &)
	{
		fn(arg);
	}
	pthread_sigmask(SIG_SETMASK, &old, nullptr);
}
