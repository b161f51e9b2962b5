/* The analyses that ride on a data direction's round-trip bookkeeping
 * (congestion.c, offload.c), as one ops table each, after the kernel's
 * tcp_congestion_ops. flight.c walks td_dir_analyses at each hook instead of
 * calling them by name: rounds close and ACKs reach the sender deep inside its
 * own bookkeeping, so it is the one place that knows when a hook is due.
 *
 * The dependency is one-way: an analysis reads the flight (flight.h) and writes
 * only its own state in it; flight.c calls this interface, not the analyses (it
 * holds their state types, and takes its MSS from the pure td_offload_full_segment). */
#ifndef TCPDIAG_DIRECTION_H
#define TCPDIAG_DIRECTION_H

#include <stdbool.h>
#include <stdint.h>
#include "record.h"

struct td_flight;
struct td_flight_config;
struct td_ack_sample;

/* begin and release are required, the other hooks may be NULL. */
typedef struct td_dir_ops {
    /* true: begun and fed only on directions whose flight is measured (congestion needs
     * the rounds); false: on every data direction. release runs on every one. */
    bool measured_only;
    /* The direction's first data segment: f->ctx, or f->unknown_reason, is set. */
    void (*begin)(struct td_flight *f);
    void (*release)(struct td_flight *f);
    /* Every data segment, before flight updates its sequence space (sizes, not rounds). */
    void (*on_segment)(struct td_flight *f, const td_record *rec);
    /* A data segment once flight has counted it; retransmission as flight judged it. */
    void (*on_data)(struct td_flight *f, const td_record *rec, bool retransmission);
    /* The receiver's ACK in capture order: what the capture point sees, when it sees it. */
    void (*on_ack_seen)(struct td_flight *f, const td_record *rec);
    /* The same ACK (or the slot it shares) once it has reached the sender, at at_ns:
     * what the sender can react to. It acknowledged `acked` new bytes. */
    void (*on_ack_delivered)(struct td_flight *f, const struct td_ack_sample *s, uint32_t acked, int64_t at_ns);
    /* Round trip `index` closed with this flight and duration (before f->rounds counts it). */
    void (*on_round)(struct td_flight *f, uint32_t index, uint32_t flight, int64_t ns,
                     const struct td_flight_config *cfg);
    /* A flow without its handshake showed which ECN feedback it uses: f->ctx.feedback. */
    void (*on_feedback)(struct td_flight *f);
    /* End of capture, after flight has closed its books; later analyses may read earlier ones. */
    void (*finish)(struct td_flight *f, const struct td_flight_config *cfg);
} td_dir_ops;

/* NULL-terminated, in call order: congestion before offload (offload's verdict reads
 * the congestion collapse). */
extern const td_dir_ops *const td_dir_analyses[];

#endif
