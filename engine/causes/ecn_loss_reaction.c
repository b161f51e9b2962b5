/* ecn-loss-reaction: ECN was negotiated and the sender cut its flight on every echo as
 * on a loss (congestion.c), without collapsing: what a CUBIC server does where BBR
 * would not. */
#include "cause.h"

/* With ECN signals the reaction is judged on the ECN responses: loss-like means their
 * median cut like a loss. */
static bool holds(const td_judge *j)
{
    const td_cause_facts *x = j->x;
    const td_cc *cc;
    unsigned ecn;

    if (!td_cause_flight_known(j))
        return false;
    cc = &x->f->cc;
    ecn = td_cc_measured_responses(cc, true);
    return x->ecn && x->limit == TD_LIMIT_CWND && ecn >= TD_MIN_RESPONSES && ecn >= cc->losses &&
           cc->reaction == TD_REACTION_LOSS_LIKE;
}

static uint32_t evidence_frame(const td_judge *j)
{
    const td_cc *cc = &j->x->f->cc;

    for (unsigned i = 0; i < cc->nevents; i++)
        if (td_cc_is_ecn_response(&cc->events[i]))
            return cc->events[i].frame;
    return 0;
}

static void evidence(const td_cause_view *v, char *buf, size_t size)
{
    g_snprintf(buf, size, "ECN negotiated; %s cut its flight on every echo (loss-like, median %.2f)",
               td_cause_sender_role(v), v->f->cc.ecn_ratio);
}

static bool about_ecn(const td_cause_view *v G_GNUC_UNUSED)
{
    return true;
}

static td_advice advice(const td_cause_view *v G_GNUC_UNUSED)
{
    return td_ecn_advice;
}

/* The client's finding: its ECN lottery. */
const td_cause_ops td_cause_ecn_loss_reaction = {
    .id = TD_CAUSE_ECN_LOSS_REACTION,
    .name = "ecn-loss-reaction",
    .flags = TD_CAUSE_COST_SAID,
    .holds = holds,
    .cost = td_cost_against_ecn_peers,
    .evidence_frame = evidence_frame,
    .evidence = evidence,
    .who = td_cause_at_client,
    .about_ecn = about_ecn,
    .advice = advice,
    .chart = TD_CHART_CONGESTION_ECN,
    .figures = &td_cc_figures,
};
