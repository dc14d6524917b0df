"""dbus-fast client, asyncio. Two styles, chosen by the STYLE environment variable:

  message (default)  MessageBus.call(Message(...)): dbus-fast's documented low-level API and its fastest path;
  proxy              a ProxyInterface built from introspection XML, calling `await iface.call_ping()` etc.

The harness runs both and compares our layer against the faster one, so the reference is never a straw man.
"""

import asyncio
import os
import sys

from dbus_fast import Message, MessageType
from dbus_fast.aio import MessageBus

import common

INTROSPECTION = f"""<node>
  <interface name="{common.INTERFACE}">
    <method name="Ping"/>
    <method name="Echo"><arg type="s" direction="in"/><arg type="s" direction="out"/></method>
    <method name="Sink"><arg type="ay" direction="in"/><arg type="u" direction="out"/></method>
    <method name="Source"><arg type="u" direction="in"/><arg type="ay" direction="out"/></method>
  </interface>
</node>"""


def message_caller(bus, args):
    def call(member, signature="", body=()):
        return bus.call(Message(destination=common.BUS_NAME, path=common.OBJECT_PATH, interface=common.INTERFACE,
                                member=member, signature=signature, body=list(body)))

    def checked(test, reply):
        if reply.message_type != MessageType.METHOD_RETURN:
            common.fail(test, f"{reply.error_name}: {reply.body}")
        return reply.body

    async def one_call(test):
        if test == "ping":
            checked(test, await call("Ping"))
            return 0
        if test == "echo":
            if checked(test, await call("Echo", "s", [common.ECHO_TEXT]))[0] != common.ECHO_TEXT:
                common.fail(test, "wrong text")
            return 0
        if test == "sink":
            if checked(test, await call("Sink", "ay", [args.payload]))[0] != args.size:
                common.fail(test, "wrong length")
            return args.size
        if len(checked(test, await call("Source", "u", [args.size]))[0]) != args.size:
            common.fail(test, "wrong length")
        return args.size

    return one_call


def proxy_caller(bus, args):
    proxy = bus.get_proxy_object(common.BUS_NAME, common.OBJECT_PATH, INTROSPECTION)
    bench = proxy.get_interface(common.INTERFACE)

    async def one_call(test):
        if test == "ping":
            await bench.call_ping()
            return 0
        if test == "echo":
            if await bench.call_echo(common.ECHO_TEXT) != common.ECHO_TEXT:
                common.fail(test, "wrong text")
            return 0
        if test == "sink":
            if await bench.call_sink(args.payload) != args.size:
                common.fail(test, "wrong length")
            return args.size
        if len(await bench.call_source(args.size)) != args.size:
            common.fail(test, "wrong length")
        return args.size

    return one_call


async def main():
    args = common.Arguments(sys.argv)
    style = os.environ.get("STYLE", "message")
    bus = await MessageBus(bus_address=args.address).connect()
    if style == "message":
        one_call = message_caller(bus, args)
    elif style == "proxy":
        one_call = proxy_caller(bus, args)
    else:
        sys.exit(f"STYLE must be 'message' or 'proxy', not {style!r}")
    await common.run_async(args, one_call)
    bus.disconnect()


if __name__ == "__main__":
    asyncio.run(main())
