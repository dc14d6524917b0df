/*
 * The C libdbus client: the ceiling every other client is compared with. It does what a careful C programmer
 * would: one private connection, one blocking call at a time (dbus_connection_send_with_reply_and_block),
 * arguments read in place.
 *
 * Usage: client ADDRESS SECONDS WARMUP SIZE TESTS
 *   ADDRESS  the bus address          SECONDS  measured time per test    WARMUP  unmeasured time per test
 *   SIZE     bytes per Sink/Source    TESTS    comma-separated: ping,echo,sink,source
 * Prints one JSON object per test: {"test": ..., "calls": N, "seconds": T, "bytes": B, "cpu": C}, where T is
 * wall-clock time and C the CPU time (user + system) this client used during the measured calls.
 * Every reply is checked; a wrong or error reply ends the run with status 1.
 */
#include <dbus/dbus.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "bench.h"

static const char *echo_text = "hello, handoff";

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* CPU time (user + system) this process has used, in seconds. */
static double cpu_time(void) {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return (double)(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
        + (double)(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

static void fail(const char *test, const char *what) {
    fprintf(stderr, "c client: %s: %s\n", test, what);
    exit(1);
}

static DBusMessage *new_call(const char *member) {
    DBusMessage *call = dbus_message_new_method_call(BENCH_BUS_NAME, BENCH_OBJECT_PATH, BENCH_INTERFACE, member);
    if (call == NULL) fail(member, "out of memory");
    return call;
}

static DBusMessage *round_trip(DBusConnection *connection, DBusMessage *call, const char *test) {
    DBusError error = DBUS_ERROR_INIT;
    DBusMessage *reply = dbus_connection_send_with_reply_and_block(connection, call, DBUS_TIMEOUT_USE_DEFAULT, &error);
    dbus_message_unref(call);
    if (reply == NULL) fail(test, error.message);
    return reply;
}

/* One call of the given test; returns the payload bytes it moved. */
static long one_call(DBusConnection *connection, const char *test, const unsigned char *payload, int size) {
    DBusError error = DBUS_ERROR_INIT;
    if (strcmp(test, "ping") == 0) {
        dbus_message_unref(round_trip(connection, new_call("Ping"), test));
        return 0;
    }
    if (strcmp(test, "echo") == 0) {
        DBusMessage *call = new_call("Echo");
        dbus_message_append_args(call, DBUS_TYPE_STRING, &echo_text, DBUS_TYPE_INVALID);
        DBusMessage *reply = round_trip(connection, call, test);
        const char *text = NULL;
        if (!dbus_message_get_args(reply, &error, DBUS_TYPE_STRING, &text, DBUS_TYPE_INVALID)) fail(test, error.message);
        if (strcmp(text, echo_text) != 0) fail(test, "wrong text");
        dbus_message_unref(reply);
        return 0;
    }
    if (strcmp(test, "sink") == 0) {
        DBusMessage *call = new_call("Sink");
        dbus_message_append_args(call, DBUS_TYPE_ARRAY, DBUS_TYPE_BYTE, &payload, size, DBUS_TYPE_INVALID);
        DBusMessage *reply = round_trip(connection, call, test);
        dbus_uint32_t length = 0;
        if (!dbus_message_get_args(reply, &error, DBUS_TYPE_UINT32, &length, DBUS_TYPE_INVALID)) fail(test, error.message);
        if (length != (dbus_uint32_t)size) fail(test, "wrong length");
        dbus_message_unref(reply);
        return size;
    }
    if (strcmp(test, "source") == 0) {
        DBusMessage *call = new_call("Source");
        dbus_uint32_t wanted = (dbus_uint32_t)size;
        dbus_message_append_args(call, DBUS_TYPE_UINT32, &wanted, DBUS_TYPE_INVALID);
        DBusMessage *reply = round_trip(connection, call, test);
        const unsigned char *bytes = NULL;
        int length = 0;
        if (!dbus_message_get_args(reply, &error, DBUS_TYPE_ARRAY, DBUS_TYPE_BYTE, &bytes, &length, DBUS_TYPE_INVALID)) {
            fail(test, error.message);
        }
        if (length != size) fail(test, "wrong length");
        dbus_message_unref(reply);
        return size;
    }
    fail(test, "unknown test (ping, echo, sink, source)");
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 6) {
        fprintf(stderr, "usage: %s ADDRESS SECONDS WARMUP SIZE TESTS\n", argv[0]);
        return 2;
    }
    double seconds = atof(argv[2]);
    double warmup = atof(argv[3]);
    int size = atoi(argv[4]);
    if (seconds <= 0 || warmup < 0 || size <= 0) {
        fprintf(stderr, "client: SECONDS and SIZE must be positive, WARMUP not negative\n");
        return 2;
    }
    DBusError error = DBUS_ERROR_INIT;
    DBusConnection *connection = dbus_connection_open_private(argv[1], &error);
    if (connection == NULL || !dbus_bus_register(connection, &error)) {
        fprintf(stderr, "c client: cannot connect to %s: %s\n", argv[1], error.message);
        return 1;
    }
    unsigned char *payload = malloc((size_t)size);
    if (payload == NULL) fail("setup", "out of memory");
    for (int i = 0; i < size; i++) payload[i] = (unsigned char)(i * 7);

    char *tests = strdup(argv[5]);
    for (char *test = strtok(tests, ","); test != NULL; test = strtok(NULL, ",")) {
        double start = now();
        while (now() - start < warmup) one_call(connection, test, payload, size);
        long calls = 0, bytes = 0;
        start = now();
        double cpu_start = cpu_time();
        double elapsed = 0;
        do {
            bytes += one_call(connection, test, payload, size);
            calls++;
            elapsed = now() - start;
        } while (elapsed < seconds);
        double cpu = cpu_time() - cpu_start;
        printf("{\"test\": \"%s\", \"calls\": %ld, \"seconds\": %.6f, \"bytes\": %ld, \"cpu\": %.6f}\n", test, calls,
               elapsed, bytes, cpu);
        fflush(stdout);
    }
    free(tests);
    free(payload);
    dbus_connection_close(connection);
    dbus_connection_unref(connection);
    return 0;
}
