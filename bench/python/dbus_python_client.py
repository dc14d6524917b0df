"""dbus-python (Debian python3-dbus) client: blocking calls through a dbus.Interface, as its docs show.

byte_arrays=True makes `ay` replies arrive as one bytes object instead of a list of dbus.Byte, which is what
anyone moving binary data with dbus-python does.
"""

import sys

import dbus

import common


def main():
    args = common.Arguments(sys.argv)
    bus = dbus.bus.BusConnection(args.address)
    proxy = bus.get_object(common.BUS_NAME, common.OBJECT_PATH, introspect=False)
    bench = dbus.Interface(proxy, common.INTERFACE)
    payload = dbus.ByteArray(args.payload)

    def one_call(test):
        if test == "ping":
            bench.Ping()
            return 0
        if test == "echo":
            if bench.Echo(common.ECHO_TEXT) != common.ECHO_TEXT:
                common.fail(test, "wrong text")
            return 0
        if test == "sink":
            if bench.Sink(payload, signature="ay") != args.size:
                common.fail(test, "wrong length")
            return args.size
        data = bench.Source(dbus.UInt32(args.size), byte_arrays=True)
        if len(data) != args.size:
            common.fail(test, "wrong length")
        return args.size

    common.run(args, one_call)
    bus.close()


if __name__ == "__main__":
    main()
