/*
 * hci-bridge: the guest's end of the shared emulated LE radio (scripts/vm2/radio.py) over a virtio-serial port.
 *
 *   hci-bridge PORT        e.g. /dev/virtio-ports/org.handoff.hci
 *
 * Opens /dev/vhci, which makes a primary HCI controller in this kernel, and copies H4 packets both ways between it
 * and PORT: each packet the kernel's controller sends (one per read of /dev/vhci) goes to PORT as it is; the byte
 * stream from PORT is cut into packets (command, ACL, SCO, event, ISO, by their headers) and each is written to
 * /dev/vhci in one write, which is what the vhci driver takes. The controller lives as long as this process: it
 * ends (and the controller goes away, as an unplugged dongle does) when PORT reports the radio gone, on a packet
 * type it does not know, or on SIGTERM.
 *
 * Why not btattach on an emulated 16550 (ttyS1): there every HCI byte is a port I/O access of the guest's 8250
 * driver, which under TCG costs about 6x the radio's rate (Docs/bluez.md, "The emulated radio"). A virtio-serial
 * port moves a buffer per interrupt.
 *
 * Built statically on the host by scripts/vm2/build-image.sh and installed in the image as
 * /usr/local/sbin/handoff-hci-bridge; handoff-hci.service runs it. Not part of handoff.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { VENDOR = 0xff, BUFFER = 1 << 16 };

static void die(const char *what) {
    fprintf(stderr, "hci-bridge: %s: %s\n", what, errno ? strerror(errno) : "failed");
    exit(1);
}

static void write_all(int fd, const uint8_t *bytes, size_t count, const char *what) {
    while (count > 0) {
        ssize_t n = write(fd, bytes, count);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) die(what);
        bytes += n;
        count -= (size_t)n;
    }
}

/* The length of the H4 packet at the start of `bytes` (its type byte included), 0 while its header is incomplete,
 * -1 for a type this bridge does not know. */
static long packet_length(const uint8_t *bytes, size_t count) {
    if (count < 1) return 0;
    switch (bytes[0]) {
    case 0x01: return count < 4 ? 0 : 4 + (long)bytes[3];                                       /* command */
    case 0x02: return count < 5 ? 0 : 5 + (long)(bytes[3] | bytes[4] << 8);                      /* ACL */
    case 0x03: return count < 4 ? 0 : 4 + (long)bytes[3];                                       /* SCO */
    case 0x04: return count < 3 ? 0 : 3 + (long)bytes[2];                                       /* event */
    case 0x05: return count < 5 ? 0 : 5 + (long)((bytes[3] | bytes[4] << 8) & 0x3fff);           /* ISO */
    default: return -1;
    }
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: hci-bridge PORT\n");
        return 2;
    }
    int port = open(argv[1], O_RDWR | O_CLOEXEC);
    if (port < 0) die(argv[1]);
    int vhci = open("/dev/vhci", O_RDWR | O_CLOEXEC);
    if (vhci < 0) die("/dev/vhci");

    /* Ask for a primary controller now (the driver would make one after a second anyway), and take the driver's
     * answer, which names the new controller's index, off the stream: it is not for the radio. */
    const uint8_t create[2] = {VENDOR, 0x00};
    write_all(vhci, create, sizeof create, "creating the controller");
    static uint8_t from_vhci[BUFFER], from_port[BUFFER];
    ssize_t n;
    do n = read(vhci, from_vhci, sizeof from_vhci); while (n < 0 && errno == EINTR);
    if (n != 4 || from_vhci[0] != VENDOR) die("the controller's index from /dev/vhci");
    fprintf(stderr, "hci-bridge: hci%u on %s\n", from_vhci[2] | from_vhci[3] << 8, argv[1]);

    size_t held = 0;   /* bytes from the port not yet written as a whole packet */
    struct pollfd fds[2] = {{.fd = vhci, .events = POLLIN}, {.fd = port, .events = POLLIN}};
    for (;;) {
        if (poll(fds, 2, -1) < 0) {
            if (errno == EINTR) continue;
            die("poll");
        }
        if (fds[0].revents & (POLLERR | POLLHUP | POLLNVAL)) die("/dev/vhci went away");
        if (fds[1].revents & (POLLERR | POLLNVAL)) die("the port failed");
        if (fds[0].revents & POLLIN) {
            n = read(vhci, from_vhci, sizeof from_vhci);
            if (n < 0 && errno != EINTR && errno != EAGAIN) die("reading /dev/vhci");
            if (n > 0 && from_vhci[0] != VENDOR) write_all(port, from_vhci, (size_t)n, "writing to the port");
        }
        if (fds[1].revents & (POLLIN | POLLHUP)) {
            n = read(port, from_port + held, sizeof from_port - held);
            if (n < 0 && errno != EINTR && errno != EAGAIN) die("reading the port");
            if (n == 0) {
                errno = 0;
                die("the radio closed the port");
            }
            if (n > 0) held += (size_t)n;
            size_t at = 0;
            for (;;) {
                long length = packet_length(from_port + at, held - at);
                if (length < 0) {
                    errno = 0;
                    fprintf(stderr, "hci-bridge: packet type 0x%02x from the radio\n", from_port[at]);
                    die("an unknown packet type");
                }
                if (length == 0 || (size_t)length > held - at) break;
                write_all(vhci, from_port + at, (size_t)length, "writing to /dev/vhci");
                at += (size_t)length;
            }
            memmove(from_port, from_port + at, held - at);
            held -= at;
        }
    }
}
