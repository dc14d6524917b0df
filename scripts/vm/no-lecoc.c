/* no-lecoc.so: makes one process see a kernel without LE connection-oriented channels (issue 9, the "no LE CoC"
 * fallback of scripts/vm/scenarios.list's radio-fallback-no-coc).
 *
 * LD_PRELOAD=/run/handoff-vm/no-lecoc.so PROGRAM: every connect() on an AF_BLUETOOTH socket fails with EOPNOTSUPP,
 * as it does on a kernel that has Bluetooth sockets but cannot open an LE credit-based channel; every other
 * connect() (the D-Bus sockets) goes to libc unchanged. Listening is left alone, so the source device of the
 * same scenario process still publishes its PSM: only the receiver's side lacks LE CoC, which is the case to
 * prove (its radio must fall back to GATT and say "no-le-coc"). Test tool only; nothing ships with it.
 *
 * Build: cc -pipe -shared -fPIC -O2 -o /run/handoff-vm/no-lecoc.so scripts/vm/no-lecoc.c -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <sys/socket.h>

#ifndef AF_BLUETOOTH
#define AF_BLUETOOTH 31
#endif

int connect(int fd, const struct sockaddr *address, socklen_t length)
{
    static int (*real_connect)(int, const struct sockaddr *, socklen_t);
    if (address != NULL && length >= sizeof(sa_family_t) && address->sa_family == AF_BLUETOOTH) {
        errno = EOPNOTSUPP;
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
