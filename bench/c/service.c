/*
 * The benchmark service: one object on a private bus, written against plain libdbus so that it is never the
 * bottleneck for any client.
 *
 *   org.handoff.Bench at /org/handoff/Bench, interface org.handoff.Bench:
 *     Ping()          -> ()       an empty round trip
 *     Echo(s)         -> s        returns its argument
 *     Sink(ay)        -> u        returns the number of bytes received (read in place, no copy)
 *     Source(u)       -> ay       returns that many bytes (at most 64 MiB)
 *   plus org.freedesktop.DBus.Introspectable.Introspect, so proxies and `gdbus introspect` work.
 *
 * Usage: service ADDRESS
 * Prints "ready" on stdout once the bus name is owned, then serves until killed.
 */
#include <dbus/dbus.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define SOURCE_LIMIT (64u * 1024u * 1024u)

static const char *introspection_xml =
    "<!DOCTYPE node PUBLIC \"-//freedesktop//DTD D-BUS Object Introspection 1.0//EN\"\n"
    " \"http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd\">\n"
    "<node>\n"
    "  <interface name=\"org.freedesktop.DBus.Introspectable\">\n"
    "    <method name=\"Introspect\"><arg name=\"xml\" type=\"s\" direction=\"out\"/></method>\n"
    "  </interface>\n"
    "  <interface name=\"" BENCH_INTERFACE "\">\n"
    "    <method name=\"Ping\"/>\n"
    "    <method name=\"Echo\"><arg name=\"text\" type=\"s\" direction=\"in\"/>"
    "<arg name=\"text\" type=\"s\" direction=\"out\"/></method>\n"
    "    <method name=\"Sink\"><arg name=\"data\" type=\"ay\" direction=\"in\"/>"
    "<arg name=\"length\" type=\"u\" direction=\"out\"/></method>\n"
    "    <method name=\"Source\"><arg name=\"length\" type=\"u\" direction=\"in\"/>"
    "<arg name=\"data\" type=\"ay\" direction=\"out\"/></method>\n"
    "  </interface>\n"
    "</node>\n";

static unsigned char *source_buffer;
static dbus_uint32_t source_capacity;

static DBusMessage *error_reply(DBusMessage *call, const char *name, const char *text) {
    return dbus_message_new_error(call, name, text);
}

static DBusMessage *handle_echo(DBusMessage *call) {
    const char *text = NULL;
    DBusError error = DBUS_ERROR_INIT;
    if (!dbus_message_get_args(call, &error, DBUS_TYPE_STRING, &text, DBUS_TYPE_INVALID)) {
        DBusMessage *reply = error_reply(call, DBUS_ERROR_INVALID_ARGS, error.message);
        dbus_error_free(&error);
        return reply;
    }
    DBusMessage *reply = dbus_message_new_method_return(call);
    if (reply != NULL) dbus_message_append_args(reply, DBUS_TYPE_STRING, &text, DBUS_TYPE_INVALID);
    return reply;
}

static DBusMessage *handle_sink(DBusMessage *call) {
    const unsigned char *bytes = NULL;
    int length = 0;
    DBusError error = DBUS_ERROR_INIT;
    if (!dbus_message_get_args(call, &error, DBUS_TYPE_ARRAY, DBUS_TYPE_BYTE, &bytes, &length,
                               DBUS_TYPE_INVALID)) {
        DBusMessage *reply = error_reply(call, DBUS_ERROR_INVALID_ARGS, error.message);
        dbus_error_free(&error);
        return reply;
    }
    dbus_uint32_t count = (dbus_uint32_t)length;
    DBusMessage *reply = dbus_message_new_method_return(call);
    if (reply != NULL) dbus_message_append_args(reply, DBUS_TYPE_UINT32, &count, DBUS_TYPE_INVALID);
    return reply;
}

static DBusMessage *handle_source(DBusMessage *call) {
    dbus_uint32_t length = 0;
    DBusError error = DBUS_ERROR_INIT;
    if (!dbus_message_get_args(call, &error, DBUS_TYPE_UINT32, &length, DBUS_TYPE_INVALID)) {
        DBusMessage *reply = error_reply(call, DBUS_ERROR_INVALID_ARGS, error.message);
        dbus_error_free(&error);
        return reply;
    }
    if (length > SOURCE_LIMIT) return error_reply(call, DBUS_ERROR_INVALID_ARGS, "Source: at most 64 MiB");
    if (length > source_capacity) {
        unsigned char *grown = realloc(source_buffer, length);
        if (grown == NULL) return error_reply(call, DBUS_ERROR_NO_MEMORY, "Source: out of memory");
        for (dbus_uint32_t i = source_capacity; i < length; i++) grown[i] = (unsigned char)(i * 31u);
        source_buffer = grown;
        source_capacity = length;
    }
    DBusMessage *reply = dbus_message_new_method_return(call);
    const unsigned char *bytes = source_buffer;
    int count = (int)length;
    if (reply != NULL) {
        dbus_message_append_args(reply, DBUS_TYPE_ARRAY, DBUS_TYPE_BYTE, &bytes, count, DBUS_TYPE_INVALID);
    }
    return reply;
}

static DBusMessage *handle_introspect(DBusMessage *call) {
    DBusMessage *reply = dbus_message_new_method_return(call);
    if (reply != NULL) dbus_message_append_args(reply, DBUS_TYPE_STRING, &introspection_xml, DBUS_TYPE_INVALID);
    return reply;
}

static DBusHandlerResult handle_message(DBusConnection *connection, DBusMessage *call, void *data) {
    (void)data;
    if (dbus_message_get_type(call) != DBUS_MESSAGE_TYPE_METHOD_CALL) return DBUS_HANDLER_RESULT_NOT_YET_HANDLED;
    const char *interface = dbus_message_get_interface(call);
    const char *member = dbus_message_get_member(call);
    DBusMessage *reply = NULL;
    int ours = interface == NULL || strcmp(interface, BENCH_INTERFACE) == 0;

    if (ours && strcmp(member, "Ping") == 0) {
        reply = dbus_message_new_method_return(call);
    } else if (ours && strcmp(member, "Echo") == 0) {
        reply = handle_echo(call);
    } else if (ours && strcmp(member, "Sink") == 0) {
        reply = handle_sink(call);
    } else if (ours && strcmp(member, "Source") == 0) {
        reply = handle_source(call);
    } else if (dbus_message_is_method_call(call, DBUS_INTERFACE_INTROSPECTABLE, "Introspect")) {
        reply = handle_introspect(call);
    } else {
        reply = error_reply(call, DBUS_ERROR_UNKNOWN_METHOD, "no such method on the benchmark object");
    }
    if (reply == NULL) return DBUS_HANDLER_RESULT_NEED_MEMORY;
    if (!dbus_message_get_no_reply(call)) dbus_connection_send(connection, reply, NULL);
    dbus_message_unref(reply);
    return DBUS_HANDLER_RESULT_HANDLED;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s ADDRESS\n", argv[0]);
        return 2;
    }
    DBusError error = DBUS_ERROR_INIT;
    DBusConnection *connection = dbus_connection_open_private(argv[1], &error);
    if (connection == NULL || !dbus_bus_register(connection, &error)) {
        fprintf(stderr, "service: cannot connect to %s: %s\n", argv[1], error.message);
        return 1;
    }
    int owned = dbus_bus_request_name(connection, BENCH_BUS_NAME, DBUS_NAME_FLAG_DO_NOT_QUEUE, &error);
    if (owned != DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER) {
        fprintf(stderr, "service: cannot own %s: %s\n", BENCH_BUS_NAME, error.message ? error.message : "taken");
        return 1;
    }
    static const DBusObjectPathVTable vtable = {.message_function = handle_message};
    if (!dbus_connection_register_object_path(connection, BENCH_OBJECT_PATH, &vtable, NULL)) {
        fprintf(stderr, "service: cannot register %s\n", BENCH_OBJECT_PATH);
        return 1;
    }
    /* Let a bus connection grow as large as one message needs; the defaults are far above 1 MiB anyway. */
    dbus_connection_set_max_received_size(connection, 256L * 1024 * 1024);
    printf("ready\n");
    fflush(stdout);
    while (dbus_connection_read_write_dispatch(connection, -1)) {
    }
    fprintf(stderr, "service: bus connection closed\n");
    return 0;
}
