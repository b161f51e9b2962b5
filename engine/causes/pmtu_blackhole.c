/* pmtu-blackhole: full-size segments died at a smaller-MTU hop whose ICMP was filtered,
 * and the sender waited until it sent smaller ones (pmtu.c). */
#include "cause.h"

#include "units.h"

static bool holds(const td_judge *j)
{
    return j->x->sender >= 0 && td_cause_dominates(j, td_flow_blackhole_ns(j->flow, j->x->sender));
}

static void cost(const td_judge *j, td_diagnosis *d)
{
    td_cost_against_own_time(d, j, td_flow_blackhole_ns(j->flow, j->x->sender), TD_REF_NONE);
}

static uint32_t evidence_frame(const td_judge *j)
{
    return td_flow_pmtu_blackhole(j->flow, j->x->sender)->frame;
}

/* Near the sender the full-size segments are seen resent unanswered; past the hop only
 * their absence (the hole the smaller segments began beyond) and the wait. */
static void evidence(const td_cause_view *v, char *buf, size_t size)
{
    int sender = v->diag->sender;
    const td_pmtu_run *run = td_flow_pmtu_blackhole(v->flow, sender);
    const td_pmtu_side *side = &v->flow->more->pmtu.side[sender];
    char wait[32];

    td_format_duration(td_flow_blackhole_ns(v->flow, sender), wait, sizeof wait);
    if (run->full_retransmissions >= 2)
        g_snprintf(buf, size, "%u B segments resent %u times unanswered, then cut to %u B they got through after "
                   "%s (largest sent since %u B): a smaller-MTU hop, its ICMP filtered",
                   side->allowed, run->full_retransmissions, run->size, wait, side->largest_after);
    else
        g_snprintf(buf, size, "Nothing for %s, then %u B segments where the handshake allowed %u (largest since %u "
                   "B); full-size ones never came: a smaller-MTU hop, its ICMP filtered",
                   wait, run->size, side->allowed, side->largest_after);
}

static td_advice advice(const td_cause_view *v G_GNUC_UNUSED)
{
    return (td_advice) {
        "Let ICMP fragmentation-needed (IPv4 type 3 code 4) and packet-too-big (ICMPv6 type 2) through on the "
        "path, or clamp the MSS at the tunnel or smaller-MTU hop (iptables TCPMSS --clamp-mss-to-pmtu)",
        "ping -M do -s 1472 (IPv4) toward the receiver dies silently past the hop; the sender's nstat "
        "TcpExtTCPMTUPFail and TCPMTUPSuccess count its MTU probing" };
}

/* The hole is on the client's path. */
const td_cause_ops td_cause_pmtu_blackhole = {
    .id = TD_CAUSE_PMTU_BLACKHOLE,
    .name = "pmtu-blackhole",
    .flags = TD_CAUSE_COST_SAID,
    .holds = holds,
    .cost = cost,
    .evidence_frame = evidence_frame,
    .evidence = evidence,
    .who = td_cause_at_client,
    .advice = advice,
    .chart = TD_CHART_BLACKHOLE,
    .figures = &td_budget_figures,
};
