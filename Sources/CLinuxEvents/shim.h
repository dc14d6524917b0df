#ifndef CLINUXEVENTS_SHIM_H
#define CLINUXEVENTS_SHIM_H
// Linux's eventfd and timerfd (and sync_file_range, below), which Swift's Glibc module does not export: the daemon's executor (HandoffShared's
// LoopExecutor) sleeps in poll(2) on an eventfd (woken by other threads' jobs) and a timerfd on CLOCK_BOOTTIME (its
// earliest timer, so a ContinuousClock deadline is met on time across a suspend). Declarations only; nothing to
// link.
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <sys/types.h>

// sync_file_range(2), which <fcntl.h> declares only under _GNU_SOURCE (as glibc declares it): the inbox starts the
// write-out of each chunk of an arriving item as it is stored, so the flush that makes the item arrive has little
// left to wait for (HandoffKit's ShareFiles).
extern int sync_file_range(int __fd, __off64_t __offset, __off64_t __count, unsigned int __flags);
#define CLINUX_SYNC_FILE_RANGE_WRITE 2

#endif
