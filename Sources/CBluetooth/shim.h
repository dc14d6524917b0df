#ifndef CBLUETOOTH_SHIM_H
#define CBLUETOOTH_SHIM_H
// libbluetooth's socket headers (pkg-config `bluez`, Debian: libbluetooth-dev), exposed to Swift through a SwiftPM
// system-library target, plus what Swift cannot import from them: the byte-order macros (htobs/btohs), BDADDR_ANY
// (a compound literal) and the construction of a `sockaddr_l2`, whose `bdaddr_t` is a packed struct.
//
// Integer constants (AF_BLUETOOTH, BTPROTO_L2CAP, SOL_BLUETOOTH, BT_SECURITY, BT_SECURITY_LOW, BT_SNDMTU,
// BT_RCVMTU, BDADDR_LE_PUBLIC, BDADDR_LE_RANDOM) import as they are.
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <bluetooth/bluetooth.h>
#include <bluetooth/l2cap.h>

/// POLLRDHUP (Linux, 0x2000): the peer shut its side down. <poll.h> defines it only under _GNU_SOURCE, which a
/// Swift module cannot set.
#define CBT_POLLRDHUP 0x2000

/// A `sockaddr_l2` for an LE address: `bytes` in the order they are written ("AA:..:FF" gives AA first; the
/// kernel's bdaddr_t stores them reversed), `type` BDADDR_LE_PUBLIC or BDADDR_LE_RANDOM, `psm` in host order
/// (0 on bind: the kernel chooses a dynamic LE PSM, 0x80-0xFF).
static inline struct sockaddr_l2 cbt_sockaddr_l2(const uint8_t bytes[6], uint8_t type, uint16_t psm) {
    struct sockaddr_l2 address;
    memset(&address, 0, sizeof(address));
    address.l2_family = AF_BLUETOOTH;
    address.l2_psm = htobs(psm);
    for (int i = 0; i < 6; i++) address.l2_bdaddr.b[i] = bytes[5 - i];
    address.l2_bdaddr_type = type;
    return address;
}

/// The PSM of a `sockaddr_l2` (from getsockname/getpeername), in host order.
static inline uint16_t cbt_sockaddr_l2_psm(const struct sockaddr_l2 *address) { return btohs(address->l2_psm); }

/// The address of a `sockaddr_l2` in written order (see cbt_sockaddr_l2).
static inline void cbt_sockaddr_l2_bytes(const struct sockaddr_l2 *address, uint8_t bytes[6]) {
    for (int i = 0; i < 6; i++) bytes[i] = address->l2_bdaddr.b[5 - i];
}

/// The address type of a `sockaddr_l2`: BDADDR_BREDR, BDADDR_LE_PUBLIC or BDADDR_LE_RANDOM.
static inline uint8_t cbt_sockaddr_l2_type(const struct sockaddr_l2 *address) { return address->l2_bdaddr_type; }

/// `struct bt_security` with the given level (BT_SECURITY_LOW: no pairing or encryption asked for).
static inline struct bt_security cbt_security(uint8_t level) {
    struct bt_security security;
    memset(&security, 0, sizeof(security));
    security.level = level;
    return security;
}
#endif
