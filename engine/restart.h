/* Slow-start restart after idle, per data direction: after the sender's application
 * paused longer than a retransmission timeout, the sender's flight starts again from
 * about its initial window although an earlier burst of the same flow had shown a far
 * larger flight through the path (Linux net.ipv4.tcp_slow_start_after_idle, RFC 5681
 * §4.1). It rides on flight.c's round trips through td_restart_ops (direction.h):
 * O(1) per round, no allocation.
 *
 * A burst is the rounds between two of the application's pauses (flight.c's idle
 * ends: d->round_pause_ns on the burst's first round). A burst restarted when its
 * pause was at least restart_idle_ms and its first round's flight at most
 * restart_share_pct of the largest round flight of the earlier bursts (what the path
 * was known to carry), without reaching the receiver's window (a window that small
 * held it, whatever the sender's congestion window). Its cost is its rounds beyond those the same bytes needed at
 * that known flight, at the burst's own mean round time: the time over a restart-free
 * transfer of the same bytes, never the pause (which stays the application's). What a
 * burst carried is the sum of its round flights (each round's flight is what the
 * sender sent in it, its window at the time). */
#ifndef TCPDIAG_RESTART_H
#define TCPDIAG_RESTART_H

#include <stdbool.h>
#include <stdint.h>
#include "direction.h"

typedef struct td_restart {
    /* the open burst */
    bool     in_burst;
    int64_t  pause_ns;          /* the application's pause before it */
    uint32_t first_flight, first_frame;
    bool     first_at_window;   /* its first round reached the receiver's window: the
                                   receiver held it, not a restart */
    uint32_t rounds;
    int64_t  ns;
    uint64_t bytes;             /* the sum of its round flights: what it carried */
    uint32_t known_before;      /* the largest round flight of the earlier bursts */
    uint32_t known;             /* ...including this one's rounds so far */
    /* the restarts found */
    uint32_t restarts;
    int64_t  cost_ns;           /* summed over them */
    uint32_t frame;             /* the first restart's first round */
    uint32_t restart_flight, restart_known;     /* its first flight, the flight known before */
} td_restart;

extern const td_dir_ops td_restart_ops;

#endif
