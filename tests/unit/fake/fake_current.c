/*
 * Host stand-ins for the current-process hooks fs/ and ipc/ use
 * (proc/current.h): the test says which descriptor table is "current"
 * and whether a signal is pending, and sees the signals sent.
 */
#include "fake_current.h"
#include "proc/current.h"

struct files *fake_files;
bool fake_signal_pending;
int fake_signals_sent[FAKE_NSIG];

struct files *current_files(void)
{
	return fake_files;
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
	fake_signal_pending = false;
	for (int i = 0; i < FAKE_NSIG; i++)
		fake_signals_sent[i] = 0;
}
