/* TCP handshake options: what each side announced, what the flow ended up
 * with, and what the missing ones cost (RFC 7323, RFC 2018, RFC 9293). */
#ifndef TCPDIAG_OPTIONS_H
#define TCPDIAG_OPTIONS_H

#include <stddef.h>
#include "flow.h"

/* The three options that work only when both sides announce them. */
enum { TD_OPT_NEGOTIATED = TD_OPT_WSCALE | TD_OPT_SACK_PERM | TD_OPT_TS };

enum { TD_NO_WSCALE_WINDOW = 65535 };

typedef struct td_options_audit {
    bool        client_seen, server_seen;   /* SYN / SYN-ACK: MSS and the three negotiated known */
    td_tristate used[3];                    /* wscale, sack, ts */
    unsigned    missing;                    /* TD_OPT_NEGOTIATED bits the flow surely lacks */
    bool        settled;                    /* every used[] is known: `missing` is the whole list */
    unsigned    left_out_by_client;         /* MSS and negotiated bits not announced */
    unsigned    left_out_by_server;
    uint32_t    window_ceiling;             /* 0 when window scaling is in use or unknown */
    double      ceiling_throughput;         /* B/s; 0 when not measurable */
    td_tristate at_ceiling;
    uint16_t    default_mss[2];             /* by role (client, server); 0 when MSS was sent */
    bool        ts_stripped[2];             /* by role of the sender */
    bool        overwritten[2];             /* by role: its SYN reached the capture point with NOPs
                                               where options had been (td_options_overwritten) */
} td_options_audit;

enum { TD_USED_WSCALE = 0, TD_USED_SACK = 1, TD_USED_TS = 2 };

/* NOPs only pad options to 32-bit words, so a stack writes at most three in a row;
 * a longer run is option bytes a middlebox overwrote on the way (iptables
 * TCPOPTSTRIP, a firewall's TCP normalisation), which is a fact of the format, not a
 * threshold to tune. */
enum { TD_NOP_PADDING_MAX = 3 };

/* A SYN or SYN-ACK whose options were overwritten with NOPs on the path: a run of
 * NOPs longer than padding, where a negotiated option is missing. */
bool td_options_overwritten(const td_syn_options *opts);

/* The share of the ceiling a transfer must reach to count as running at it. */
#define TD_AT_CEILING_SHARE 0.8

void td_options_audit_flow(const td_flow *flow, td_options_audit *audit);

/* "mss,wscale,sack_perm,ts,tfo,mptcp,accecn" subset, or "none". */
void td_options_list(unsigned present, char *buf, size_t size);
/* The negotiated subset as "mss,wscale,sack,ts" names, or "none". */
void td_options_missing_list(unsigned bits, char *buf, size_t size);

const char *td_tristate_name(td_tristate value);
/* A SYN's or SYN-ACK's options as the fields show them: *announced gets the
 * well-formed ones ("none" only when nothing was left unread), *unreadable what the
 * cut or malformed bytes may hold; either is left empty when there is nothing to say. */
void td_syn_options_describe(const td_syn_options *opts, char *announced, char *unreadable, size_t size);

/* Which directions lost their negotiated timestamps: "c2s", "s2c", "both", or NULL. */
const char *td_options_ts_stripped_name(const td_options_audit *audit);

#endif
