/* The floor `make bench` measures the engine against: a plain array binary heap, push + pop on (time, seq)
 * with a fixed number of events in flight (132 by default, one per SM), nothing else. Indices are unsigned
 * (size_t), as a plain heap's are: signed ones cost a rounding fix on every (i - 1) / 2, which made an
 * earlier floor 1.15-1.3x slower per event and flattered the ratio.
 * Prints the ns per event (one pop and one push) over the given number of events, the median of 5 runs.
 * CPU time of the process (CLOCK_PROCESS_CPUTIME_ID), as bench/cpu_time.c measures the simulator.
 * Usage: floor_heap EVENTS [IN_FLIGHT]. Plain C11 + POSIX clock_gettime; not part of libdashsim. */
#define _POSIX_C_SOURCE 199309L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef struct {
    int64_t time;
    uint32_t seq;
    int32_t op;
} Event;

static inline int event_less(const Event *a, const Event *b)
{
    return a->time != b->time ? a->time < b->time : a->seq < b->seq;
}

static void push(Event *h, int64_t *len, Event ev)
{
    size_t i = (size_t)(*len)++;
    while (i > 0 && event_less(&ev, &h[(i - 1) / 2])) {
        h[i] = h[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h[i] = ev;
}

static Event pop(Event *h, int64_t *len)
{
    Event top = h[0], last = h[--*len];
    size_t i = 0;
    for (size_t c; (c = 2 * i + 1) < (size_t)*len; i = c) {
        if (c + 1 < (size_t)*len && event_less(&h[c + 1], &h[c]))
            c++;
        if (!event_less(&h[c], &last))
            break;
        h[i] = h[c];
    }
    if (*len > 0)
        h[i] = last;
    return top;
}

/* Each popped event schedules one more at a pseudo-random later time (durations 500 or 1000 ns, as the
 * engine's compute/reduce ops), until events have been popped. Returns a checksum so nothing is elided. */
static int64_t run(int64_t events, int in_flight, Event *h)
{
    int64_t len = 0, sum = 0;
    uint32_t seq = 0, rng = 12345;
    for (int i = 0; i < in_flight; i++)
        push(h, &len, (Event){ 0, seq++, i });
    for (int64_t k = 0; k < events; k++) {
        Event ev = pop(h, &len);
        sum += ev.time ^ ev.op;
        rng = rng * 1664525u + 1013904223u;
        push(h, &len, (Event){ ev.time + ((rng >> 16) & 1 ? 1000 : 500), seq++, ev.op });
    }
    return sum;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: floor_heap EVENTS [IN_FLIGHT]\n");
        return 2;
    }
    int64_t events = atoll(argv[1]);
    int in_flight = argc > 2 ? atoi(argv[2]) : 132;
    Event *h = malloc(sizeof *h * (size_t)(in_flight + 1));
    enum { RUNS = 5 };
    double ns[RUNS];
    int64_t check = 0;
    for (int r = 0; r < RUNS; r++) {
        struct timespec a, b;
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
        check += run(events, in_flight, h);
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
        ns[r] = ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / (double)events;
        for (int i = r; i > 0 && ns[i] < ns[i - 1]; i--) { /* insertion sort */
            double t = ns[i];
            ns[i] = ns[i - 1], ns[i - 1] = t;
        }
    }
    printf("%.2f %lld\n", ns[RUNS / 2], (long long)(check & 0xff));
    free(h);
    return 0;
}
