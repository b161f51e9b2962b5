/* A direction's flight context read from the flow's handshake, or from its data's
 * timestamps and flags when the handshake was not captured. */
#include "flight_context.h"

#include <glib.h>
#include <string.h>

/* The receiver's window shift: its announced one when both sides announced
 * window scaling, 0 when either did not, -1 when that cannot be read. */
static int receiver_wscale(const td_handshake *hs, int receiver, bool later_ts)
{
    uint8_t shift = hs->opts[receiver].wscale;

    switch (td_handshake_option_used(hs, later_ts, TD_OPT_WSCALE)) {
    case TD_YES:     return shift > 14 ? 14 : shift;     /* RFC 7323 §2.3 */
    case TD_NO:      return 0;
    case TD_UNKNOWN: break;
    }
    return -1;
}

enum { TURNAROUND_ALLOWANCE_NS = 1000000 };

/* How far this capture is from the direction's sender: the handshake half that
 * spans capture point ↔ sender is the time an ACK seen here takes to matter. */
static const char *from_handshake(const td_handshake *hs, int client, int sender, bool later_ts,
                                  td_vantage vantage, td_ecn_outcome ecn, td_flight_context *ctx)
{
    int64_t to_server = 0, to_client = 0;
    bool halves = td_handshake_halves(hs, &to_server, &to_client);
    bool from_server = sender != client;
    td_vantage near_sender = from_server ? TD_VANTAGE_NEAR_SERVER : TD_VANTAGE_NEAR_CLIENT;
    td_vantage near_receiver = from_server ? TD_VANTAGE_NEAR_CLIENT : TD_VANTAGE_NEAR_SERVER;

    if (client < 0)
        return "handshake not captured: who sends and how far the sender is are unknown";
    memset(ctx, 0, sizeof *ctx);
    if (halves && vantage != near_sender) {
        /* The half also holds the peer's SYN-ACK turnaround, which an ACK-clocked
         * sender does not spend: allow for up to 1 ms of it. */
        int64_t half = from_server ? to_server : to_client;
        ctx->ack_lag_ns = half - MIN(half / 16, TURNAROUND_ALLOWANCE_NS);
    } else if (vantage != near_sender) {
        return "handshake incomplete: how long ACKs take to reach the sender is unknown";
    }
    ctx->seen_from = vantage == near_sender     ? TD_SEEN_SENDER
                     : vantage == near_receiver ? TD_SEEN_RECEIVER
                     : vantage == TD_VANTAGE_MIDDLE ? TD_SEEN_MIDDLE : TD_SEEN_UNKNOWN;
    ctx->rcv_wscale = receiver_wscale(hs, 1 - sender, later_ts);
    ctx->timestamps = hs->opts_seen[0] && hs->opts_seen[1] && (hs->opts[0].present & hs->opts[1].present & TD_OPT_TS);
    ctx->peer_mss = td_handshake_mss(hs, 1 - sender);
    ctx->feedback = ecn == TD_ECN_ACCECN ? TD_FEEDBACK_ACCECN
                    : td_ecn_negotiated(ecn) ? TD_FEEDBACK_CLASSIC : TD_FEEDBACK_NONE;
    return NULL;
}

/* Without a handshake, data that carries timestamps still says which ACK it
 * answers (RFC 7323): flight and congestion signals can be measured from there,
 * with the window scale and the vantage point unknown. */
static const char *from_timestamps(const td_record *rec, const char *why, td_flight_context *ctx)
{
    if (!rec->options.ts_valid)
        return why;
    memset(ctx, 0, sizeof *ctx);
    ctx->seen_from = TD_SEEN_UNKNOWN;
    ctx->timestamps = true;
    ctx->rcv_wscale = -1;
    ctx->no_handshake = true;
    return NULL;
}

const char *td_flight_context_of(const td_handshake *hs, int client, int sender, bool later_ts,
                                 td_vantage vantage, td_ecn_outcome ecn, const td_record *first_data,
                                 td_flight_context *ctx)
{
    const char *why = from_handshake(hs, client, sender, later_ts, vantage, ecn, ctx);

    if (why && !hs->synack_frame)
        why = from_timestamps(first_data, why, ctx);
    return why;
}

/* AE only exists in AccECN; ECT data, ECE on ACKs or CWR on data mean classic ECN. */
td_ecn_feedback td_flight_feedback_shown(const td_record *rec)
{
    if (rec->tcp_flags & TD_TH_AE)
        return TD_FEEDBACK_ACCECN;
    if ((rec->tcp_flags & (TD_TH_ECE | TD_TH_CWR)) || (rec->payload_len && rec->has_ip_ecn && rec->ip_ecn))
        return TD_FEEDBACK_CLASSIC;
    return TD_FEEDBACK_NONE;
}
