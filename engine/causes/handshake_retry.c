/* handshake-retry: SYNs or SYN-ACKs sent again before the connection was set up, and
 * the retries are where the flow's time went. */
#include "cause.h"

#include "units.h"

/* The handshake's own round trip is no retry's cost: a SYN never answered cost all
 * of its setup. */
static int64_t retry_ns(const td_flow *flow)
{
    return MAX(0, td_time_budget_part(td_flow_time_budget(flow), TD_TIME_SETUP) - td_flow_handshake_rtt_ns(flow));
}

static bool holds(const td_judge *j)
{
    const td_time_budget *b = td_flow_time_budget(j->flow);

    return (td_time_budget_syn_retransmissions(b) || td_time_budget_synack_retransmissions(b)) &&
           td_cause_dominates(j, retry_ns(j->flow));
}

static void cost(const td_judge *j, td_diagnosis *d)
{
    td_cost_against_own_time(d, j, retry_ns(j->flow), TD_REF_NONE);
}

static uint32_t evidence_frame(const td_judge *j)
{
    return td_flow_time_budget(j->flow)->handshake_retry_frame;
}

/* Which side retried the handshake, and what that points to from where the capture
 * was taken: SYNs seen arriving unanswered at the server were dropped by the server
 * host itself. */
static void evidence(const td_cause_view *v, char *buf, size_t size)
{
    const td_time_budget *b = td_flow_time_budget(v->flow);
    uint32_t syns = td_time_budget_syn_retransmissions(b) + 1, synacks = td_time_budget_synack_retransmissions(b) + 1;
    td_handshake scratch;
    char setup[32];

    td_format_duration(td_time_budget_part(b, TD_TIME_SETUP), setup, sizeof setup);
    if (synacks > 1)
        g_snprintf(buf, size, "The server sent its SYN-ACK %u times (the client its SYN %u) over %s: SYN-ACKs or "
                   "the client's ACKs were lost on the path", synacks, syns, setup);
    else if (!td_flow_hs(v->flow, &scratch)->synack_frame)
        g_snprintf(buf, size, "The client sent its SYN %u times over %s, never answered in the capture: the "
                   "server down or overloaded, a firewall, or a lost path", syns, setup);
    else if (td_flow_vantage(v->flow, td_engine_config(v->engine)) == TD_VANTAGE_NEAR_SERVER)
        g_snprintf(buf, size, "The client sent its SYN %u times (setup %s); they reached the server unanswered: "
                   "its listen queue was full, or a host firewall dropped them", syns, setup);
    else
        g_snprintf(buf, size, "The client sent its SYN %u times before one was answered (setup %s): a full listen "
                   "queue at the server, a firewall, or loss on the path", syns, setup);
}

/* A SYN never answered reached no listening host that would answer it: a closed port
 * answers with a RST, so silence is a host down or unreachable, or a firewall that
 * drops; a listen queue that overflowed answers once it has room, so it comes last. */
static td_advice advice(const td_cause_view *v)
{
    td_handshake scratch;

    if (!td_flow_hs(v->flow, &scratch)->synack_frame)
        return (td_advice) {
            "Find why no SYN was answered: the server host down or unreachable, or a firewall dropping the SYNs "
            "(on the path or the server's own); a listen queue full for the whole capture comes last",
            "From the client's network, another connection to the port is refused (RST), times out (dropped), or "
            "is answered; on the server, ss -ltn shows whether it listens and nstat -az TcpExtListenDrops "
            "whether its queue dropped them" };
    return (td_advice) {
        "A full listen queue: raise the server's backlog (listen(), net.core.somaxconn, "
        "net.ipv4.tcp_max_syn_backlog) and accept faster; otherwise find where SYNs or SYN-ACKs die",
        "On the server, nstat -az TcpExtListenOverflows TcpExtListenDrops grows with each retried SYN; "
        "if not, capture at the server to see whether the SYNs arrive" };
}

const td_cause_ops td_cause_handshake_retry = {
    .id = TD_CAUSE_HANDSHAKE_RETRY,
    .name = "handshake-retry",
    .flags = TD_CAUSE_FROM_BUDGET | TD_CAUSE_COST_SAID,
    .holds = holds,
    .cost = cost,
    .evidence_frame = evidence_frame,
    .evidence = evidence,
    .who = td_cause_at_server,
    .advice = advice,
    .chart = TD_CHART_NONE_BUDGET,
    .figures = &td_budget_figures,
};
