/* Names shared by the benchmark service and the C client. Every client uses these same names. */
#ifndef HANDOFF_BENCH_H
#define HANDOFF_BENCH_H

#define BENCH_BUS_NAME "org.handoff.Bench"
#define BENCH_OBJECT_PATH "/org/handoff/Bench"
#define BENCH_INTERFACE "org.handoff.Bench"

#endif
