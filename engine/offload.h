/* Segmentation offload per data direction: the segment-size profile and what
 * it says about TSO/GSO at the sender, GRO/LRO at the receiver, and caps.
 * It rides on flight.c's data and round trips through td_offload_ops (direction.h);
 * the functions on td_offload are its profile alone, for the table and the tests. */
#ifndef TCPDIAG_OFFLOAD_H
#define TCPDIAG_OFFLOAD_H

#include <stdbool.h>
#include <stdint.h>
#include "direction.h"
#include "record.h"

typedef enum td_offload_verdict {
    TD_OFFLOAD_UNKNOWN = 0,
    TD_OFFLOAD_OFFLOADED,
    TD_OFFLOAD_COALESCED,
    TD_OFFLOAD_MSS_CAPPED,
    TD_OFFLOAD_CAPPED,
} td_offload_verdict;

typedef enum td_cap_cause {
    TD_CAP_CAUSE_NONE = 0,
    TD_CAP_CAUSE_WINDOW_COLLAPSE,   /* repeated cwnd reductions hold the flight down */
    TD_CAP_CAUSE_FLIGHT_PLATEAU,    /* every burst is the whole flight the sender allows */
} td_cap_cause;

/* Segment sizes in units of the announced MSS: bin k holds payloads of
 * (k-1, k] MSS; the last bin everything above. */
enum { TD_SIZE_BINS = 48, TD_CAP_STACK = TD_SIZE_BINS };

/* A run of super-packets no larger than `bin`, started by one of that size
 * (a monotonic stack: each entry's bin is below the one under it). */
typedef struct td_cap_run {
    uint32_t first_frame, count, at_bin, max_bytes;
    uint8_t  bin;
} td_cap_run;

typedef struct td_offload_result {
    td_offload_verdict verdict;
    const char *reason;             /* for unknown; static text */
    uint32_t median, p95;           /* payload, to the MSS */
    double   super_share;           /* % of payload bytes in segments above the MSS */
    uint32_t cap, cap_start_frame;  /* for capped */
    td_cap_cause cap_cause;
} td_offload_result;

typedef struct td_offload {
    uint32_t unit;                  /* the announced MSS the bins are counted in */
    uint32_t segments, super_packets, ip_len_zero, max_payload;
    uint32_t largest_plain, largest_plain_count;    /* the largest segment up to the MSS, how many */
    uint64_t bytes, super_bytes;
    uint32_t size_bins[TD_SIZE_BINS + 1];
    uint32_t busy_rounds;           /* round trips with at least 4 MSS in flight */
    td_cap_run *runs;               /* TD_CAP_STACK of them, from the first super-packet */
    uint8_t  nruns;
    td_offload_result result;       /* settled by td_offload_judge (td_offload_ops.finish) */
} td_offload;


void td_offload_begin(td_offload *o, uint32_t announced_mss);
void td_offload_free(td_offload *o);
void td_offload_data(td_offload *o, const td_record *rec);
/* The size of a full segment this data segment shows, 0 when none: its own
 * length up to the announced MSS (the MSS is at least that), or for a
 * super-packet of n = ceil(len / MSS) segments, the announced MSS less the
 * timestamp option it carries (RFC 9293 §3.7.1: options come out of the MSS)
 * when it is exactly n of those. A sender capturing its own GSO packets, or a
 * receiver its GRO packets, may show no single full-sized segment at all.
 * flight.c learns its MSS from it: a pure function of the announced MSS, it reads
 * no flight. */
uint32_t td_offload_full_segment(const td_offload *o, const td_record *rec);
/* The full segment a handshake implies: the announced MSS, less the timestamp
 * option when both sides use timestamps; 0 when none was announced. */
uint32_t td_offload_handshake_mss(uint32_t announced_mss, bool timestamps);
/* Where d->mss comes from: "handshake" when it is the full segment the handshake
 * implies, "inferred" when the packets showed another (no handshake, or a segment
 * above it). */
const char *td_offload_mss_source(const td_dir *d);
void td_offload_round(td_offload *o, uint32_t flight, uint32_t mss);
/* Settles o->result once the capture has been read (d's end-of-capture members set),
 * and d->mss to what the packets show (see settle_mss). */
void td_offload_judge(td_dir *d, td_offload *o);

extern const td_dir_ops td_offload_ops;

const char *td_offload_verdict_name(td_offload_verdict verdict);
const char *td_cap_cause_name(td_cap_cause cause);

#endif
