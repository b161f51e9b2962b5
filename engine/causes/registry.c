/* The causes in order of precedence, each registered once: a cause higher up explains
 * the symptoms of those below (a host stall's silence before a timeout, a collapse's
 * plateau before a sender limit). To add a cause: a file in this folder with its
 * td_cause_ops, a number in td_cause (diagnoses.h) at its place in the precedence, and
 * a row here (docs/architecture.md, "Adding a cause"). */
#include "registry.h"


extern const td_cause_ops td_cause_host_stall, td_cause_ecn_blackhole, td_cause_handshake_retry,
    td_cause_dead_peer, td_cause_pmtu_blackhole, td_cause_window_collapse, td_cause_options_stripped,
    td_cause_missing_options, td_cause_zero_window, td_cause_queueing_delay, td_cause_nagle_delayed_ack,
    td_cause_receive_window, td_cause_sender_limited, td_cause_offload_capped, td_cause_ecn_loss_reaction,
    td_cause_path_loss, td_cause_slow_start_restart, td_cause_retransmission_timeout, td_cause_server_delay,
    td_cause_client_delay, td_cause_round_trip_bound, td_cause_app_limited;

/* ---- the verdicts that are no cause ---- */

static void healthy_words(const td_cause_view *v, char *buf, size_t size)
{
    const char *reason = v->diag->reason;

    g_snprintf(buf, size, "Healthy: nothing held this transfer back%s%s", reason ? " (" : "", reason ? reason : "");
    if (reason)
        g_strlcat(buf, ")", size);
}

static void unknown_words(const td_cause_view *v, char *buf, size_t size)
{
    g_snprintf(buf, size, "No diagnosis: %s", v->diag->reason ? v->diag->reason : "the capture does not show enough");
}

static td_advice no_advice(const td_cause_view *v G_GNUC_UNUSED)
{
    return (td_advice) { NULL, NULL };
}

static const td_cause_ops healthy = {
    .id = TD_CAUSE_NONE, .name = "none", .evidence = healthy_words, .advice = no_advice,
};
static const td_cause_ops unknown = {
    .id = TD_CAUSE_UNKNOWN, .name = "unknown", .evidence = unknown_words, .advice = no_advice,
};

static const td_cause_ops *const causes[TD_CAUSE_COUNT] = {
    [TD_CAUSE_NONE]                   = &healthy,
    [TD_CAUSE_HOST_STALL]             = &td_cause_host_stall,
    [TD_CAUSE_ECN_BLACKHOLE]          = &td_cause_ecn_blackhole,
    [TD_CAUSE_HANDSHAKE_RETRY]        = &td_cause_handshake_retry,
    [TD_CAUSE_DEAD_PEER]              = &td_cause_dead_peer,
    [TD_CAUSE_PMTU_BLACKHOLE]         = &td_cause_pmtu_blackhole,
    [TD_CAUSE_WINDOW_COLLAPSE]        = &td_cause_window_collapse,
    [TD_CAUSE_OPTIONS_STRIPPED]       = &td_cause_options_stripped,
    [TD_CAUSE_MISSING_OPTIONS]        = &td_cause_missing_options,
    [TD_CAUSE_ZERO_WINDOW]            = &td_cause_zero_window,
    [TD_CAUSE_QUEUEING_DELAY]         = &td_cause_queueing_delay,
    [TD_CAUSE_NAGLE_DELAYED_ACK]      = &td_cause_nagle_delayed_ack,
    [TD_CAUSE_RECEIVE_WINDOW]         = &td_cause_receive_window,
    [TD_CAUSE_SENDER_LIMITED]         = &td_cause_sender_limited,
    [TD_CAUSE_OFFLOAD_CAPPED]         = &td_cause_offload_capped,
    [TD_CAUSE_ECN_LOSS_REACTION]      = &td_cause_ecn_loss_reaction,
    [TD_CAUSE_PATH_LOSS]              = &td_cause_path_loss,
    [TD_CAUSE_SLOW_START_RESTART]     = &td_cause_slow_start_restart,
    [TD_CAUSE_RETRANSMISSION_TIMEOUT] = &td_cause_retransmission_timeout,
    [TD_CAUSE_SERVER_DELAY]           = &td_cause_server_delay,
    [TD_CAUSE_CLIENT_DELAY]           = &td_cause_client_delay,
    [TD_CAUSE_ROUND_TRIP_BOUND]       = &td_cause_round_trip_bound,
    [TD_CAUSE_APP_LIMITED]            = &td_cause_app_limited,
    [TD_CAUSE_UNKNOWN]                = &unknown,
};

const td_cause_ops *td_cause_ops_of(td_cause cause)
{
    return (unsigned)cause < TD_CAUSE_COUNT ? causes[cause] : &unknown;
}

const char *td_cause_name(td_cause cause)
{
    return td_cause_ops_of(cause)->name;
}

bool td_cause_read_from_budget(td_cause cause)
{
    return td_cause_ops_of(cause)->flags & TD_CAUSE_FROM_BUDGET;
}

void td_causes_list(unsigned causes_held, char *buf, size_t size)
{
    size_t used = 0;

    if (!size)
        return;
    buf[0] = '\0';
    for (int c = TD_CAUSE_HOST_STALL; c < TD_CAUSE_UNKNOWN; c++)
        if (causes_held & (1u << c))
            used += (size_t)g_snprintf(buf + MIN(used, size - 1), size - MIN(used, size - 1), "%s%s",
                                       used ? "," : "", td_cause_name((td_cause)c));
    if (!used)
        g_strlcpy(buf, "none", size);
}
