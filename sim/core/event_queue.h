/* The event engine's queue: pops events in (time, sequence) order, sequence = push order, so equal times
 * fire in the order they were scheduled. Where every event is pushed at most horizon_ns after the time
 * being processed (durations plus latencies bound it), a ring of 1 ns buckets (a calendar queue) holds
 * them: a bucket then holds one time only, and its FIFO list is push order, the heap's order exactly.
 * Elsewhere a binary heap. Where each event is a slot queued at most once (the engine's plain path), the
 * ring's list nodes are the slots themselves. Internal to sim/core; the struct is here so that push and pop
 * inline. */
#ifndef SIM_EVENT_QUEUE_H
#define SIM_EVENT_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A ring bucket: its FIFO list's first and last node (-1 when empty), side by side so that a push or a pop
 * touches one line of the ring, not two (at 2^14 buckets and more, the ring lies in L2). */
typedef struct {
    int32_t first, last;
} SimEventBucket;

typedef struct {
    int64_t time;
    uint32_t seq;   /* events pushed before it; < 2^32 since ops < 2^31 and each op pushes <= 2 */
    int32_t op;
} SimEvent;

/* Private fields: use the functions below. */
typedef struct {
    size_t len;                   /* events queued */
    /* heap (ring_mask == 0): a min-heap on (time, seq) */
    SimEvent *heap;
    size_t heap_cap;
    uint32_t seq;
    /* ring: bucket b holds the events of the one queued time t with t & ring_mask == b */
    int64_t ring_mask;
    int64_t cursor;               /* a lower bound of every queued time, and above the largest minus the ring */
    SimEventBucket *bucket;       /* per bucket: its FIFO list (node ids) */
    uint64_t *is_full;            /* bit b: bucket b holds events */
    int32_t *node_op, *node_next; /* the list nodes; free ones chained from free_node (slots: no node_op,
                                   * the nodes are the slots) */
    int32_t free_node, node_cap;
} SimEventQueue;

/* An empty queue for events pushed at most horizon_ns after the current time (the time of the last event
 * popped, or any earlier time pushed since); a horizon too large for a ring of at most 2^17 buckets (or
 * negative: unknown) takes the heap. in_flight: the expected events queued at once (a hint). */
void sim_event_queue_init(SimEventQueue *q, int64_t horizon_ns, int64_t in_flight);
/* The same for events that are slots below slots, each queued at most once at a time (the engine's plain
 * path: one per engine of each unit, which runs one op at a time): push them with push_slot; pop_at returns
 * them. */
void sim_event_queue_init_slots(SimEventQueue *q, int64_t horizon_ns, int32_t slots);
void sim_event_queue_clear(SimEventQueue *q);
/* Whether the ring was chosen (for tests). */
static inline bool sim_event_queue_is_ring(const SimEventQueue *q)
{
    return q->ring_mask != 0;
}

void sim_event_queue_grow(SimEventQueue *q);
int64_t sim_event_queue_ring_advance(SimEventQueue *q);
void sim_event_queue_heap_push(SimEventQueue *q, int64_t time, int32_t op);
SimEvent sim_event_queue_heap_pop(SimEventQueue *q);

static inline bool sim_event_queue_is_empty(const SimEventQueue *q)
{
    return q->len == 0;
}

/* Appends list node n to the bucket of time (ring), time no earlier than the cursor (the time being processed,
 * as in the engine's plain loop), which then stays. Every field is read before the first store: the stores
 * (int32) may alias them, and the compiler would load them again after each. */
static inline void sim_event_queue_link_at_cursor(SimEventQueue *q, int64_t time, int32_t n)
{
    int32_t *next = q->node_next;
    int64_t b = time & q->ring_mask;
    SimEventBucket *bucket = &q->bucket[b];
    int32_t tail = bucket->last;
    bool is_empty = bucket->first < 0;
    q->len++;
    next[n] = -1;
    bucket->last = n;
    if (is_empty) {
        bucket->first = n;
        q->is_full[b >> 6] |= UINT64_C(1) << (b & 63);
    } else {
        next[tail] = n;
    }
}

/* Appends list node n to the bucket of time (ring), at any time no earlier than the current one. */
static inline void sim_event_queue_link(SimEventQueue *q, int64_t time, int32_t n)
{
    if (q->len == 0 || time < q->cursor)
        q->cursor = time;
    sim_event_queue_link_at_cursor(q, time, n);
}

/* Schedules op at time: no earlier than the current time, at most the horizon after it. O(1) (ring),
 * O(log len) (heap). Not on a queue of slots. */
static inline void sim_event_queue_push(SimEventQueue *q, int64_t time, int32_t op)
{
    if (!q->ring_mask) {
        sim_event_queue_heap_push(q, time, op);
        return;
    }
    if (q->free_node < 0)
        sim_event_queue_grow(q);
    int32_t n = q->free_node;
    q->free_node = q->node_next[n];
    q->node_op[n] = op;
    sim_event_queue_link(q, time, n);
}

/* On a queue of slots (sim_event_queue_init_slots): schedules slot, not queued now, at time (as push).
 * The ring's list node is the slot itself: no node to take from a pool and give back. */
static inline void sim_event_queue_push_slot(SimEventQueue *q, int64_t time, int32_t slot)
{
    if (!q->ring_mask)
        sim_event_queue_heap_push(q, time, slot);
    else
        sim_event_queue_link(q, time, slot);
}

/* The earliest queued time; the queue must not be empty. O(1) while that time's bucket holds events,
 * else a scan of the ring's occupancy bits up to the next full bucket. */
static inline int64_t sim_event_queue_min_time(SimEventQueue *q)
{
    if (!q->ring_mask)
        return q->heap[0].time;
    if (q->bucket[q->cursor & q->ring_mask].first >= 0)
        return q->cursor;
    return sim_event_queue_ring_advance(q);
}

/* Whether an event at now, the earliest queued time (min_time's last answer), is still queued. O(1). */
static inline bool sim_event_queue_has_at(const SimEventQueue *q, int64_t now)
{
    if (!q->ring_mask)
        return q->len > 0 && q->heap[0].time == now;
    return q->bucket[now & q->ring_mask].first >= 0; /* the bucket holds time now only (event_queue.c) */
}

/* The event pop_at(q, now) would return next (an op, or a slot), or -1 when none of time now is queued.
 * O(1). */
static inline int32_t sim_event_queue_peek_at(const SimEventQueue *q, int64_t now)
{
    if (!q->ring_mask)
        return q->len > 0 && q->heap[0].time == now ? q->heap[0].op : -1;
    int32_t n = q->bucket[now & q->ring_mask].first;
    return n < 0 || !q->node_op ? n : q->node_op[n];
}

/* Removes the first list node of the bucket of now (ring, not empty) and returns it. */
static inline int32_t sim_event_queue_unlink(SimEventQueue *q, int64_t now)
{
    int32_t *next = q->node_next;
    int64_t b = now & q->ring_mask;
    int32_t n = q->bucket[b].first, after = next[n];
    q->len--;
    q->bucket[b].first = after;
    if (after < 0)
        q->is_full[b >> 6] &= ~(UINT64_C(1) << (b & 63));
    return n;
}

/* Removes the first event of time now, the earliest queued time (has_at(q, now) holds), and returns its op
 * (a queue of slots: its slot). */
static inline int32_t sim_event_queue_pop_at(SimEventQueue *q, int64_t now)
{
    if (!q->ring_mask)
        return sim_event_queue_heap_pop(q).op;
    int32_t n = sim_event_queue_unlink(q, now);
    if (!q->node_op)
        return n;
    int32_t op = q->node_op[n];
    q->node_next[n] = q->free_node, q->free_node = n;
    return op;
}

/* Removes the first event in (time, seq) order and returns its op; *time gets its time. */
static inline int32_t sim_event_queue_pop(SimEventQueue *q, int64_t *time)
{
    if (!q->ring_mask) {
        SimEvent ev = sim_event_queue_heap_pop(q);
        *time = ev.time;
        return ev.op;
    }
    *time = sim_event_queue_min_time(q);
    return sim_event_queue_pop_at(q, *time);
}

#endif
