/* missing-options: window scaling was left out of the handshake (or stripped before the
 * capture point, where the capture cannot tell), and the flight met the 64 KiB window
 * it sets (options.c): the macOS TCP_NOOPT case among them. */
#include "cause.h"

#include "units.h"

static bool holds(const td_judge *j)
{
    return td_cause_window_unscaled(j->x) && !td_cause_syn_stripped(&j->x->audit);
}

static uint32_t evidence_frame(const td_judge *j)
{
    td_handshake scratch;
    const td_handshake *hs = td_flow_hs(j->flow, &scratch);

    return hs->synack_frame ? hs->synack_frame : hs->last_syn_frame;
}

/* Who left window scaling out, as far as the capture can tell: its own SYN seen
 * near a side is that side's choice; seen elsewhere, an option missing (without the
 * NOPs a strip leaves, which make options-stripped) may have been removed on the
 * path before the capture point, and only a capture at that side tells which. */
static void evidence(const td_cause_view *v, char *buf, size_t size)
{
    td_options_audit audit;
    bool by_client;
    const char *side;
    char rate[32];

    td_options_audit_flow(v->flow, &audit);
    by_client = audit.left_out_by_client & TD_OPT_WSCALE;
    side = by_client ? "client" : "server";
    td_format_rate(audit.ceiling_throughput, rate, sizeof rate);
    if (td_flow_vantage(v->flow, td_engine_config(v->engine)) ==
        (by_client ? TD_VANTAGE_NEAR_CLIENT : TD_VANTAGE_NEAR_SERVER))
        g_snprintf(buf, size, "No window scaling (left out by the %s): the window stopped at 64 KiB, %s at the "
                   "handshake round trip", side, rate);
    else    /* the longer words take the ceiling rate's room (tcpdiag.opts.ceiling_throughput) */
        g_snprintf(buf, size, "No window scaling: left out by the %s or stripped on the path (a capture at the %s "
                   "tells which); the window stopped at 64 KiB", side, side);
}

/* The side that left window scaling out. */
static const td_addr *who(const td_cause_view *v, const char **role)
{
    td_options_audit audit;

    td_options_audit_flow(v->flow, &audit);
    return td_cause_endpoint(v, (audit.left_out_by_client & TD_OPT_WSCALE) ? v->flow->client
                                                                          : td_flow_server(v->flow), role);
}

/* A SYN with no options at all: TCP_NOOPT, which macOS sets for SO_KEEPALIVE given at
 * the wrong level. */
static bool noopt(const td_flow *flow)
{
    td_handshake scratch;
    const td_handshake *hs = td_flow_hs(flow, &scratch);

    for (int i = 0; i < 2; i++)
        if (hs->opts_seen[i] && hs->opts[i].complete && !hs->opts[i].present)
            return true;
    return false;
}

static td_advice advice(const td_cause_view *v)
{
    if (noopt(v->flow))
        return (td_advice) {
            "The SYN carried no TCP options (TCP_NOOPT): on macOS setsockopt(IPPROTO_TCP, SO_KEEPALIVE) "
            "sets TCP_NOOPT (0x08); set SO_KEEPALIVE at SOL_SOCKET",
            "After the fix the SYN carries MSS, window scale, SACK and timestamps, and the window grows "
            "past 64 KiB" };
    return (td_advice) {
        "Enable window scaling on the side that left it out (Linux net.ipv4.tcp_window_scaling=1), or stop "
        "the middlebox that strips it",
        "SYN and SYN-ACK then both carry a window scale, and the window grows past 64 KiB" };
}

const td_cause_ops td_cause_missing_options = {
    .id = TD_CAUSE_MISSING_OPTIONS,
    .name = "missing-options",
    .flags = TD_CAUSE_COST_SAID,
    .holds = holds,
    .cost = td_cost_against_scaled_flows,
    .evidence_frame = evidence_frame,
    .evidence = evidence,
    .who = who,
    .advice = advice,
    .chart = TD_CHART_CEILING,
    .figures = &td_options_figures,
};
