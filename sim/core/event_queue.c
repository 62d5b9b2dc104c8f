/* The event queue's ring (calendar queue) and heap; see event_queue.h for the order both keep.
 * Ring invariant: every queued time t lies in [cursor, cursor + ring size), so t & ring_mask names one
 * time: pushes come no earlier than the engine's current time, which is never past the cursor, and at
 * most the horizon after it, and the ring is larger than the horizon. */
#include "event_queue.h"

#include <glib.h>
#include <string.h>

enum { RING_MIN = 64, RING_MAX = 1 << 17 };

/* A ring for the horizon, its buckets empty, or false (a heap then) where the horizon is too long. */
static bool init_ring(SimEventQueue *q, int64_t horizon_ns, int64_t in_flight)
{
    *q = (SimEventQueue){ .free_node = -1 };
    if (horizon_ns < 0 || horizon_ns + 2 > RING_MAX) {
        q->heap_cap = (size_t)MAX(in_flight, 16);
        q->heap = g_new(SimEvent, q->heap_cap);
        return false;
    }
    int64_t size = RING_MIN;
    while (size < horizon_ns + 2)
        size *= 2;
    q->ring_mask = size - 1;
    q->bucket = g_new(SimEventBucket, size);
    memset(q->bucket, 0xff, sizeof *q->bucket * (size_t)size); /* every list empty (-1) */
    q->is_full = g_new0(uint64_t, size / 64);
    return true;
}

void sim_event_queue_init(SimEventQueue *q, int64_t horizon_ns, int64_t in_flight)
{
    if (!init_ring(q, horizon_ns, in_flight))
        return;
    q->node_cap = (int32_t)MIN(MAX(in_flight, 16), INT32_MAX / 2);
    q->node_op = g_new(int32_t, q->node_cap);
    q->node_next = g_new(int32_t, q->node_cap);
    for (int32_t n = q->node_cap - 1; n >= 0; n--)
        q->node_next[n] = q->free_node, q->free_node = n;
}

void sim_event_queue_init_slots(SimEventQueue *q, int64_t horizon_ns, int32_t slots)
{
    if (!init_ring(q, horizon_ns, slots))
        return;
    q->node_cap = MAX(slots, 1);
    q->node_next = g_new(int32_t, q->node_cap);
}

void sim_event_queue_clear(SimEventQueue *q)
{
    g_free(q->heap);
    g_free(q->bucket), g_free(q->is_full);
    g_free(q->node_op), g_free(q->node_next);
    *q = (SimEventQueue){ 0 };
}

/* Doubles the ring's node pool; the new nodes join the free list. */
void sim_event_queue_grow(SimEventQueue *q)
{
    int32_t old = q->node_cap;
    g_assert(old <= INT32_MAX / 2);
    q->node_cap = 2 * old;
    q->node_op = g_renew(int32_t, q->node_op, q->node_cap);
    q->node_next = g_renew(int32_t, q->node_next, q->node_cap);
    for (int32_t n = q->node_cap - 1; n >= old; n--)
        q->node_next[n] = q->free_node, q->free_node = n;
}

/* The cursor's bucket is empty and the queue is not: moves the cursor to the next full bucket, one
 * 64-bucket word of occupancy bits at a time (wrapping around the ring), and returns its time. */
int64_t sim_event_queue_ring_advance(SimEventQueue *q)
{
    g_assert(q->len > 0);
    int64_t words = (q->ring_mask + 1) / 64, b = q->cursor & q->ring_mask, w = b >> 6;
    uint64_t bits = q->is_full[w] & (~UINT64_C(0) << (b & 63));
    while (!bits) {
        w = w + 1 == words ? 0 : w + 1;
        bits = q->is_full[w];
    }
    q->cursor += ((w << 6) + __builtin_ctzll(bits) - b) & q->ring_mask;
    return q->cursor;
}

static inline bool event_less(const SimEvent *a, const SimEvent *b)
{
    return a->time != b->time ? a->time < b->time : a->seq < b->seq;
}

void sim_event_queue_heap_push(SimEventQueue *q, int64_t time, int32_t op)
{
    if (q->len == q->heap_cap)
        q->heap = g_renew(SimEvent, q->heap, q->heap_cap *= 2);
    SimEvent ev = { time, q->seq++, op };
    size_t i = q->len++;
    while (i > 0 && event_less(&ev, &q->heap[(i - 1) / 2])) {
        q->heap[i] = q->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    q->heap[i] = ev;
}

SimEvent sim_event_queue_heap_pop(SimEventQueue *q)
{
    SimEvent top = q->heap[0], last = q->heap[--q->len];
    size_t i = 0;
    for (size_t c; (c = 2 * i + 1) < q->len; i = c) {
        if (c + 1 < q->len && event_less(&q->heap[c + 1], &q->heap[c]))
            c++;
        if (!event_less(&q->heap[c], &last))
            break;
        q->heap[i] = q->heap[c];
    }
    if (q->len > 0)
        q->heap[i] = last;
    return top;
}
