/* The TCP handshake of one flow as the capture saw it: which SYN, SYN-ACK and ACK
 * count, their options and ECN codepoints, and the halves of the round trip. */
#include "handshake.h"

#include <string.h>

#include "ecn.h"

void td_handshake_init(td_handshake *hs)
{
    memset(hs, 0, sizeof *hs);
    hs->syn_ip_ecn = hs->synack_ip_ecn = -1;
}

/* A SYN from endpoint `sender`; false when it is a stale copy of an answered one
 * (the handshake is left alone). */
static bool syn(td_handshake *hs, const td_record *rec, int sender)
{
    if (hs->ack_frame && rec->seq == hs->syn_isn)
        return false;           /* a stale copy of an answered SYN */
    if (!hs->first_syn_frame || rec->seq != hs->syn_isn) {
        /* first SYN, or a new attempt with a new ISN: start over */
        td_handshake_init(hs);
        hs->first_syn_frame = rec->frame;
        hs->first_syn_ns = rec->time_ns;
        hs->first_syn_flags = rec->tcp_flags;
        hs->syn_isn = rec->seq;
    } else {
        if (td_ecn_syn_requests(hs->first_syn_flags) &&
            !td_ecn_syn_requests(rec->tcp_flags) && !hs->fallback_frame)
            hs->fallback_frame = rec->frame;
        /* A retried SYN: the client had no SYN-ACK when it sent it (RFC 3168
         * §6.1.1.1), so the one that counts comes after it. One seen before may
         * still reach the client, crossing the retry: synacks keeps it for the
         * client's ACK to name. */
        hs->synack_frame = hs->ack_frame = 0;
        hs->synack_ip_ecn = -1;
    }
    hs->last_syn_frame = rec->frame;
    hs->last_syn_ns = rec->time_ns;
    hs->last_syn_ts = rec->options.ts_valid;
    hs->last_syn_tsval = rec->options.tsval;
    hs->last_syn_flags = rec->tcp_flags;
    hs->syn_ip_ecn = td_record_ip_ecn(rec);
    hs->opts[sender] = td_syn_options_of(&rec->options);
    hs->opts_seen[sender] = true;
    return true;
}

/* After a retry, a SYN-ACK echoing an earlier SYN's timestamp may have been on its
 * way before the retry reached the server; a server also echoes the first SYN's
 * timestamp when it answers a retry (RFC 7323: a retransmitted SYN does not
 * update TS.Recent), so only a second SYN-ACK after it tells: that one answers
 * the retry. */
static bool may_have_crossed(const td_handshake *hs, const td_record *rec)
{
    return hs->last_syn_frame != hs->first_syn_frame && hs->last_syn_ts && rec->options.ts_valid &&
           rec->options.tsecr != hs->last_syn_tsval;
}

/* The client's ACK echoes the timestamp of the first SYN-ACK it got; copies sent
 * within the server's same clock tick carry the same one, so the first copy
 * stands for them all. */
static void remember_synack(td_handshake *hs, const td_record *rec)
{
    const td_synack_sent *latest = &hs->synacks[TD_SYNACKS_KEPT - 1];

    if (latest->ts && rec->options.ts_valid && latest->tsval == rec->options.tsval)
        return;
    memmove(hs->synacks, hs->synacks + 1, sizeof hs->synacks - sizeof hs->synacks[0]);
    hs->synacks[TD_SYNACKS_KEPT - 1] = (td_synack_sent){ rec->time_ns, rec->options.tsval, rec->options.ts_valid };
}

static void synack(td_handshake *hs, const td_record *rec, int sender)
{
    remember_synack(hs, rec);
    if (hs->synack_frame && !hs->synack_crossed)
        return;
    hs->synack_crossed = !hs->synack_frame && may_have_crossed(hs, rec);
    hs->synack_frame = rec->frame;
    hs->synack_ns = rec->time_ns;
    hs->synack_flags = rec->tcp_flags;
    hs->synack_ip_ecn = td_record_ip_ecn(rec);
    hs->opts[sender] = td_syn_options_of(&rec->options);
    hs->opts_seen[sender] = true;
}

/* The client's first ACK after the SYN-ACK answers the SYN-ACK whose timestamp
 * it echoes (one that crossed a retry, when it does); without timestamps, the
 * SYN-ACK of the handshake. */
static void ack(td_handshake *hs, const td_record *rec)
{
    hs->ack_frame = rec->frame;
    hs->ack_ns = rec->time_ns;
    hs->acked_synack_ns = hs->synack_ns;
    for (int i = 0; i < TD_SYNACKS_KEPT && rec->options.ts_valid; i++)
        if (hs->synacks[i].ts && hs->synacks[i].tsval == rec->options.tsecr)
            hs->acked_synack_ns = hs->synacks[i].ns;
}

void td_handshake_record(td_handshake *hs, const td_record *rec, int sender, int8_t *client)
{
    switch (rec->tcp_flags & (TD_TH_SYN | TD_TH_ACK)) {
    case TD_TH_SYN:
        if (syn(hs, rec, sender) && *client < 0)
            *client = (int8_t)sender;
        break;
    case TD_TH_SYN | TD_TH_ACK:
        synack(hs, rec, sender);
        if (*client < 0)
            *client = (int8_t)(1 - sender);
        break;
    case TD_TH_ACK:
        if (sender == *client && hs->synack_frame && !hs->ack_frame)
            ack(hs, rec);
        break;
    }
}

void td_handshake_announced(const td_handshake *hs, int endpoint, bool later_ts, unsigned *announced,
                            unsigned *known)
{
    const td_syn_options *opts = &hs->opts[endpoint];

    *announced = hs->opts_seen[endpoint] ? opts->present : 0;
    *known = hs->opts_seen[endpoint] ? TD_OPT_ALL & ~opts->unknown : 0;
    if (later_ts) {
        *announced |= TD_OPT_TS;
        *known |= TD_OPT_TS;
    }
}

td_tristate td_handshake_option_used(const td_handshake *hs, bool later_ts, unsigned option)
{
    unsigned announced[2], known[2];

    for (int i = 0; i < 2; i++) {
        td_handshake_announced(hs, i, later_ts, &announced[i], &known[i]);
        if (known[i] & ~announced[i] & option)
            return TD_NO;
    }
    return announced[0] & announced[1] & option ? TD_YES : TD_UNKNOWN;
}
