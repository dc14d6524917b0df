#ifndef CDBUS_SHIM_H
#define CDBUS_SHIM_H
// The libdbus-1 headers, exposed to Swift through a SwiftPM system-library target.
// Found with pkg-config `dbus-1` (Debian: libdbus-1-dev).
#include <dbus/dbus.h>
#endif
