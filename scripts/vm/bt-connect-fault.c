/* bt-connect-fault.so: makes connect() on Bluetooth sockets fail for one process, as a kernel or a peer would
 * (issue 9: the fallbacks and retries of scripts/vm/scenarios.list's radio-fallback-no-coc and
 * radio-l2cap-refused-once). Test tool only; nothing ships with it.
 *
 * LD_PRELOAD=/run/handoff-vm/bt-connect-fault.so PROGRAM: connect() on an AF_BLUETOOTH socket fails with the errno
 * that BT_CONNECT_FAULT names; every other connect() (the D-Bus sockets) goes to libc unchanged.
 *   BT_CONNECT_FAULT=EOPNOTSUPP (the default): a kernel that has Bluetooth sockets but cannot open an LE
 *     credit-based channel.
 *   BT_CONNECT_FAULT=ECONNREFUSED: the peer's kernel refused the channel (Linux 6.1 does so with "Source CID
 *     already allocated" after both sides opened EATT at once).
 *   BT_CONNECT_FAULT_COUNT=N: only the first N such connects fail (default: every one).
 * Listening is left alone, so the source device of the same scenario process still publishes its PSM: only the
 * receiver's side is affected, which is the case to prove.
 *
 * Build: cc -pipe -shared -fPIC -O2 -o /run/handoff-vm/bt-connect-fault.so scripts/vm/bt-connect-fault.c -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#ifndef AF_BLUETOOTH
#define AF_BLUETOOTH 31
#endif

static int fault_errno(void)
{
    const char *name = getenv("BT_CONNECT_FAULT");
    if (name != NULL && strcmp(name, "ECONNREFUSED") == 0)
        return ECONNREFUSED;
    return EOPNOTSUPP;
}

/* Whether this connect is one of the first BT_CONNECT_FAULT_COUNT (all of them when it is unset). */
static int should_fail(void)
{
    static long failed;
    const char *count = getenv("BT_CONNECT_FAULT_COUNT");
    if (count == NULL || *count == '\0')
        return 1;
    return __atomic_fetch_add(&failed, 1, __ATOMIC_SEQ_CST) < strtol(count, NULL, 10);
}

int connect(int fd, const struct sockaddr *address, socklen_t length)
{
    static int (*real_connect)(int, const struct sockaddr *, socklen_t);
    if (address != NULL && length >= sizeof(sa_family_t) && address->sa_family == AF_BLUETOOTH && should_fail()) {
        errno = fault_errno();
        return -1;
    }
    if (real_connect == NULL)
        real_connect = (int (*)(int, const struct sockaddr *, socklen_t))dlsym(RTLD_NEXT, "connect");
    if (real_connect == NULL) {
        errno = ENOSYS;
        return -1;
    }
    return real_connect(fd, address, length);
}
