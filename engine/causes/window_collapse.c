/* window-collapse: the sender cut its window on signal after signal until the flight
 * sat at a few segments for many round trips (congestion.c): the ECN + CUBIC case,
 * where every CE echo is answered like a loss, or losses alone. */
#include "cause.h"

static bool holds(const td_judge *j)
{
    return td_cause_flight_known(j) && td_cc_collapsed(&j->x->f->cc, &j->cfg->flight);
}

static uint32_t evidence_frame(const td_judge *j)
{
    return j->x->f->cc.collapse_start_frame;
}

static void evidence(const td_cause_view *v, char *buf, size_t size)
{
    const td_flight *f = v->f;

    if (td_cause_ecn_driven(v))
        g_snprintf(buf, size, "ECN negotiated; %s cut its window on every echo until the flight sat at %.0f "
                   "segments for %u round trips", td_cause_sender_role(v),
                   (double)f->cc.collapse_floor / MAX(f->mss, 1), f->cc.collapse_rounds);
    else
        g_snprintf(buf, size, "Losses kept cutting the window until the flight sat at %.0f segments for %u "
                   "round trips", (double)f->cc.collapse_floor / MAX(f->mss, 1), f->cc.collapse_rounds);
}

/* A collapse on ECN echoes is the client's finding (its ECN lottery); on losses, the
 * sender's. */
static const td_addr *who(const td_cause_view *v, const char **role)
{
    return td_cause_endpoint(v, td_cause_ecn_driven(v) ? v->flow->client : v->diag->sender, role);
}

static td_advice advice(const td_cause_view *v)
{
    return td_cause_ecn_driven(v) ? td_ecn_advice : td_loss_advice;
}

const td_cause_ops td_cause_window_collapse = {
    .id = TD_CAUSE_WINDOW_COLLAPSE,
    .name = "window-collapse",
    .flags = TD_CAUSE_COST_SAID,
    .holds = holds,
    .cost = td_cost_against_ecn_peers,
    .evidence_frame = evidence_frame,
    .evidence = evidence,
    .who = who,
    .about_ecn = td_cause_ecn_driven,
    .advice = advice,
    .chart = TD_CHART_CONGESTION_ECN,
    .figures = &td_cc_figures,
};
