/*
 * Host stand-ins for the current-process hooks fs/ and ipc/ use
 * (proc/current.h): the test says which descriptor table is "current"
 * and whether a signal is pending, and sees the signals sent.
 */
#include "fake_current.h"
#include "proc/current.h"

struct files *fake_files;
struct fs_struct *fake_fs;
bool fake_signal_pending;
int fake_signals_sent[FAKE_NSIG];
uint64_t fake_sigmask;
bool fake_sigmask_set;
int fake_sigmask_ends;

struct files *current_files(void)
{
	return fake_files;
}

struct fs_struct *current_fs(void)
{
	return fake_fs;
}

void current_sigmask_begin(u64 mask)
{
	fake_sigmask = mask;
	fake_sigmask_set = true;
}

void current_sigmask_end(bool interrupted)
{
	fake_sigmask_set = false;
	fake_sigmask_ends++;
}

bool current_signal_pending(void)
{
	return fake_signal_pending;
}

void current_send_signal(int sig)
{
	if (sig > 0 && sig < FAKE_NSIG)
		fake_signals_sent[sig]++;
}

void fake_current_reset(void)
{
	fake_files = NULL;
	fake_fs = NULL;
	fake_signal_pending = false;
	fake_sigmask = 0;
	fake_sigmask_set = false;
	fake_sigmask_ends = 0;
	for (int i = 0; i < FAKE_NSIG; i++)
		fake_signals_sent[i] = 0;
}
