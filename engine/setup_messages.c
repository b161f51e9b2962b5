/* The wording of the set-up expert items: ECN and TCP options (see setup_messages.h). */
#include "setup_messages.h"

#include "units.h"

td_expert_id td_message_ecn_outcome(const td_flow *flow, GString *out)
{
    const char *name = td_ecn_outcome_name((td_ecn_outcome)flow->ecn_outcome);
    const char *why = flow->ecn_reason ? flow->ecn_reason : "";

    /* Appended, not printed: one of these is on every flow's SYN, a SYN flood's every
     * packet, where a printf per packet showed in the profile. */
    switch (flow->ecn_outcome) {
    case TD_ECN_CLASSIC:
    case TD_ECN_ACCECN:
    case TD_ECN_ACCECN_CLASSIC:
        g_string_append(g_string_append(out, "ECN negotiated: "), name);
        return TD_E_ECN_NEGOTIATED;
    case TD_ECN_NOT_REQUESTED:
    case TD_ECN_DECLINED:
        g_string_append(g_string_append(out, "ECN not negotiated: "), name);
        return TD_E_ECN_NOT_NEGOTIATED;
    case TD_ECN_REFLECTED:
    case TD_ECN_INVALID:
        g_string_append_printf(out, "ECN setup %s: %s", name, why);
        return TD_E_ECN_BROKEN_SETUP;
    case TD_ECN_FALLBACK:
        g_string_append(out, why);
        return TD_E_ECN_SYN_FALLBACK;
    case TD_ECN_UNKNOWN:
        g_string_append_printf(out, "ECN outcome unknown: %s", why);
        return TD_E_ECN_UNDETERMINED;
    case TD_ECN_PENDING:
        break;
    }
    return TD_EXPERT_COUNT;
}

void td_message_ect_on_syn(bool synack, td_ip_ecn codepoint, GString *out)
{
    g_string_append_printf(out, "%s sent with IP ECN codepoint %s", synack ? "SYN-ACK" : "SYN",
                           td_ip_ecn_name(codepoint));
}

void td_message_ecn_data_unmarked(const char *dir, GString *out)
{
    g_string_append_printf(out, "ECN negotiated but no %s data segment is ECT-marked at this vantage point "
                           "(bleached on the path, or the sender chose not to)", dir);
}

void td_message_ecn_data_unnegotiated(const char *dir, td_ecn_outcome outcome, GString *out)
{
    g_string_append_printf(out, "%s data sent ECT/CE although ECN was not negotiated (%s)", dir,
                           td_ecn_outcome_name(outcome));
}

void td_message_opts_noopt(bool synack, GString *out)
{
    g_string_append_printf(out, "%s without any TCP option (no MSS, window scale, SACK or timestamps): the "
                           "TCP_NOOPT signature, often an application's setsockopt bug", synack ? "SYN-ACK" : "SYN");
}

void td_message_opts_ts_vanished(GString *out)
{
    g_string_append(out, "Timestamps were negotiated but this segment carries none: stripped on the path?");
}

td_expert_id td_message_opts_missing(const td_options_audit *audit, GString *out)
{
    char missing[64], ceiling[32];

    td_options_missing_list(audit->missing, missing, sizeof missing);
    if (audit->at_ceiling != TD_YES) {
        g_string_append_printf(out, "Flow without %s", missing);
        return TD_E_OPTS_MISSING_INFO;
    }
    td_format_rate(audit->ceiling_throughput, ceiling, sizeof ceiling);
    g_string_append_printf(out, "Flow without %s: no window scaling caps the window at 65535 bytes, %s at the "
                           "handshake RTT, and the transfer ran at that ceiling", missing, ceiling);
    return TD_E_OPTS_LIMITING;
}
