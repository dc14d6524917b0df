#ifndef CSODIUM_SHIM_H
#define CSODIUM_SHIM_H
// libsodium, exposed to Swift through a SwiftPM system-library target.
// Found with pkg-config `libsodium` (Debian: libsodium-dev).
#include <sodium.h>
#endif
