/* options-stripped: a middlebox overwrote the SYN's options with NOPs, window scaling
 * among them, and the window stopped at 64 KiB (options.c). */
#include "cause.h"

static bool holds(const td_judge *j)
{
    return td_cause_window_unscaled(j->x) && td_cause_syn_stripped(&j->x->audit);
}

/* The client's SYN when it came stripped, else the server's SYN-ACK. */
static bool client_syn_stripped(const td_options_audit *audit)
{
    return (audit->left_out_by_client & TD_OPT_WSCALE) && audit->overwritten[0];
}

static uint32_t evidence_frame(const td_judge *j)
{
    td_handshake scratch;
    const td_handshake *hs = td_flow_hs(j->flow, &scratch);

    return client_syn_stripped(&j->x->audit) ? hs->last_syn_frame : hs->synack_frame;
}

/* Whose SYN, how many NOPs, which options it lacks. */
static void evidence(const td_cause_view *v, char *buf, size_t size)
{
    td_options_audit audit;
    td_handshake scratch;
    const td_handshake *hs = td_flow_hs(v->flow, &scratch);
    bool client;
    const td_syn_options *opts;
    char missing[64];

    td_options_audit_flow(v->flow, &audit);
    client = client_syn_stripped(&audit);
    opts = &hs->opts[client ? v->flow->client : td_flow_server(v->flow)];
    td_options_missing_list(TD_OPT_NEGOTIATED & ~opts->present, missing, sizeof missing);
    g_snprintf(buf, size, "The %s's %s came with %u NOPs where options were (%s missing): stripped on the path; "
               "the window stopped at 64 KiB", client ? "client" : "server", client ? "SYN" : "SYN-ACK",
               opts->nop_run, missing);
}

static td_advice advice(const td_cause_view *v G_GNUC_UNUSED)
{
    return (td_advice) {
        "A middlebox on the path overwrites the SYN's options with NOPs (a firewall's TCP normalisation, "
        "iptables TCPOPTSTRIP): find it (capture on both sides of it) and let window scaling, SACK and "
        "timestamps through",
        "A capture at the sender of that SYN shows the options this one lacks; once let through, the SYN "
        "arrives with its window scale and the window grows past 64 KiB" };
}

/* The middlebox is on the client's path. */
const td_cause_ops td_cause_options_stripped = {
    .id = TD_CAUSE_OPTIONS_STRIPPED,
    .name = "options-stripped",
    .flags = TD_CAUSE_COST_SAID,
    .holds = holds,
    .cost = td_cost_against_scaled_flows,
    .evidence_frame = evidence_frame,
    .evidence = evidence,
    .who = td_cause_at_client,
    .advice = advice,
    .chart = TD_CHART_CEILING,
    .figures = &td_options_figures,
};
