/* The TCP handshake of one flow: the SYNs, SYN-ACKs and the client's ACK as the
 * capture saw them, their options, and the two halves of the handshake's round trip.
 * It knows records and nothing of flows: flow.c keeps it and hands it the records
 * that can still change it (the first of flow.c's analyses). */
#ifndef TCPDIAG_HANDSHAKE_H
#define TCPDIAG_HANDSHAKE_H

#include <stdbool.h>
#include <stdint.h>
#include "record.h"

typedef enum td_tristate { TD_UNKNOWN = 0, TD_NO, TD_YES } td_tristate;

/* The options of a SYN or SYN-ACK as the analyses use them (the timestamps'
 * values are not kept: only data segments' timestamps are read). */
typedef struct td_syn_options {
    bool     complete;      /* every option byte was captured and well formed */
    uint8_t  present;       /* TD_OPT_* */
    uint8_t  unknown;       /* TD_OPT_* the unreadable bytes may hold */
    uint8_t  wscale;
    uint8_t  nop_run;       /* the longest run of NOPs (td_options_overwritten) */
    uint16_t mss;
} td_syn_options;

static inline td_syn_options td_syn_options_of(const td_tcp_options *o)
{
    td_syn_options s = { o->complete, o->present, o->unknown, o->wscale, o->nop_run, o->mss };
    return s;
}

/* SYN-ACKs with distinct timestamps a handshake keeps: the first, a timer's
 * retransmission, and the answer to a retried SYN. */
enum { TD_SYNACKS_KEPT = 3 };

/* A SYN-ACK as the client's ACK may name it: by the timestamp it carried. */
typedef struct td_synack_sent {
    int64_t  ns;
    uint32_t tsval;
    bool     ts;
} td_synack_sent;

/* The handshake's round trip is measured in two halves: SYN → the SYN-ACK that
 * answers it (synack_*), and a SYN-ACK → the client's ACK that answers it
 * (acked_synack_ns → ack_ns). After a SYN retry the two need not be the same
 * SYN-ACK: one already on its way crosses the retry, and the client answers it. */
typedef struct td_handshake {
    uint32_t first_syn_frame, last_syn_frame, synack_frame, ack_frame;
    int64_t  first_syn_ns, last_syn_ns, synack_ns, ack_ns;
    int64_t  acked_synack_ns;             /* the SYN-ACK the client's ACK answers */
    uint16_t first_syn_flags, last_syn_flags, synack_flags;
    uint32_t syn_isn;
    uint32_t last_syn_tsval;              /* when last_syn_ts */
    bool     last_syn_ts;
    bool     synack_crossed;              /* the SYN-ACK followed a retry but echoes an earlier
                                             SYN: it may have crossed the retry */
    int8_t   syn_ip_ecn, synack_ip_ecn;   /* td_ip_ecn, -1 when not known */
    td_syn_options opts[2];               /* of the SYN / SYN-ACK, per endpoint */
    bool     opts_seen[2];
    uint32_t fallback_frame;              /* retried SYN without ECN flags */
    td_synack_sent synacks[TD_SYNACKS_KEPT];  /* the last SYN-ACKs of this ISN by timestamp,
                                                 latest last */
} td_handshake;

/* A handshake with nothing seen yet. */
void td_handshake_init(td_handshake *hs);
/* The IP header's ECN codepoint of a record, -1 when not known. */
static inline int8_t td_record_ip_ecn(const td_record *rec)
{
    return rec->has_ip_ecn ? (int8_t)(rec->ip_ecn & 3) : -1;
}
/* A record of the flow from endpoint `sender`: a SYN, a SYN-ACK or the client's
 * first ACK after the SYN-ACK updates the handshake, and the first SYN or SYN-ACK
 * that counts settles the roles: *client, the client's endpoint index, is set
 * when it is still -1. Other records leave both alone. */
void td_handshake_record(td_handshake *hs, const td_record *rec, int sender, int8_t *client);
/* The halves at the capture point, in ns; false when not measurable. */
static inline bool td_handshake_halves(const td_handshake *hs, int64_t *syn_to_synack, int64_t *synack_to_ack)
{
    if (!hs->last_syn_frame || !hs->synack_frame || !hs->ack_frame)
        return false;
    if (hs->synack_ns < hs->last_syn_ns || hs->ack_ns < hs->acked_synack_ns)
        return false;           /* timestamps out of order: nothing to infer */
    *syn_to_synack = hs->synack_ns - hs->last_syn_ns;
    *synack_to_ack = hs->ack_ns - hs->acked_synack_ns;
    return true;
}
/* The capture point's round trip to an endpoint: the handshake half on its side (the
 * SYN-ACK's to the server, the ACK's to the client); -1 when not measurable. */
static inline int64_t td_handshake_round_trip_to(const td_handshake *hs, int endpoint, int client)
{
    int64_t to_server, to_client;

    if (!td_handshake_halves(hs, &to_server, &to_client))
        return -1;
    return endpoint == client ? to_client : to_server;
}
/* The MSS endpoint announced in its SYN or SYN-ACK; 0 when none was (or its options
 * were not seen). */
static inline uint32_t td_handshake_mss(const td_handshake *hs, int endpoint)
{
    return hs->opts_seen[endpoint] && (hs->opts[endpoint].present & TD_OPT_MSS) ? hs->opts[endpoint].mss : 0;
}
/* What endpoint announced in its SYN or SYN-ACK (TD_OPT_* bits), and which options'
 * presence is known at all. later_ts: a segment after the handshake carried
 * timestamps, which proves both sides announced them (RFC 7323 §3.2). */
void td_handshake_announced(const td_handshake *hs, int endpoint, bool later_ts, unsigned *announced,
                            unsigned *known);
/* Whether an option that works only when both sides announce it (TD_OPT_WSCALE,
 * _SACK_PERM or _TS) is in use: yes when both SYNs announced it, no when either is
 * known to have left it out (even if the other's options were cut), unknown
 * otherwise; later_ts proves timestamps (RFC 7323 §3.2: sent only once negotiated). */
td_tristate td_handshake_option_used(const td_handshake *hs, bool later_ts, unsigned option);

#endif
