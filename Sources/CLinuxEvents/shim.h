#ifndef CLINUXEVENTS_SHIM_H
#define CLINUXEVENTS_SHIM_H
// Linux's eventfd and timerfd, which Swift's Glibc module does not export: the daemon's executor (HandoffShared's
// LoopExecutor) sleeps in poll(2) on an eventfd (woken by other threads' jobs) and a timerfd on CLOCK_BOOTTIME (its
// earliest timer, so a ContinuousClock deadline is met on time across a suspend). Declarations only; nothing to
// link.
#include <sys/eventfd.h>
#include <sys/timerfd.h>

#endif
