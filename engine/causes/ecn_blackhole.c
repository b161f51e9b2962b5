/* ecn-blackhole: the ECN-setup SYN was dropped on the path and the client retried
 * without ECN (RFC 3168 section 6.1.1.1), losing a SYN timeout. */
#include "cause.h"

#include "units.h"

static bool holds(const td_judge *j)
{
    return j->flow->ecn_outcome == TD_ECN_FALLBACK;
}

static void cost(const td_judge *j, td_diagnosis *d)
{
    td_cost_against_own_time(d, j, td_flow_syn_retry_ns(j->flow), TD_REF_OWN_RATE);
}

static uint32_t evidence_frame(const td_judge *j)
{
    td_handshake scratch;

    return td_flow_hs(j->flow, &scratch)->fallback_frame;
}

static void evidence(const td_cause_view *v, char *buf, size_t size)
{
    char wait[64];

    td_format_duration(td_flow_syn_retry_ns(v->flow), wait, sizeof wait);
    g_snprintf(buf, size, "The ECN-setup SYN went unanswered and was retried without ECN after %s: "
               "ECN SYNs are dropped on the path", wait);
}

static td_advice advice(const td_cause_view *v G_GNUC_UNUSED)
{
    return (td_advice) {
        "A middlebox drops ECN-setup SYNs: fix or bypass it; until then each connection loses a SYN "
        "timeout (1 s or more)",
        "Connect with ECN off (Linux net.ipv4.tcp_ecn=0, macOS net.inet.tcp.ecn_initiate_out=0): the first "
        "SYN is then answered" };
}

/* Its cost is in its evidence (the retry's wait). */
const td_cause_ops td_cause_ecn_blackhole = {
    .id = TD_CAUSE_ECN_BLACKHOLE,
    .name = "ecn-blackhole",
    .holds = holds,
    .cost = cost,
    .evidence_frame = evidence_frame,
    .evidence = evidence,
    .who = td_cause_at_client,
    .advice = advice,
    .chart = TD_CHART_NONE_HANDSHAKE,
};
