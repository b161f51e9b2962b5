/* path-loss: repeated loss recoveries, each cutting the flight (congestion.c). */
#include "cause.h"

/* The cuts must be the losses' doing (cc.reaction): BBR's loss recovery shrinks the
 * flight for a round trip and restores it. */
static bool holds(const td_judge *j)
{
    const td_cc *cc;

    if (!td_cause_flight_known(j))
        return false;
    cc = &j->x->f->cc;
    return j->x->limit == TD_LIMIT_CWND && j->x->lossy && cc->reaction == TD_REACTION_LOSS_LIKE &&
           td_cc_cuts_like_loss(cc->loss_ratio);
}

/* Against the sender's flows with fewer losses, else against its window. */
static void cost(const td_judge *j, td_diagnosis *d)
{
    if (!td_cost_against_group(d, j, j->x->by_sender, TD_SET_SENDER_FEW_LOSSES, TD_REF_SENDER_FLOWS))
        td_cost_against_window(d, j);
}

static uint32_t evidence_frame(const td_judge *j)
{
    return j->x->f->first_retransmission_frame;
}

static void evidence(const td_cause_view *v, char *buf, size_t size)
{
    g_snprintf(buf, size, "%u loss recoveries, each cutting the flight (median %.2f)", v->f->cc.losses,
               v->f->cc.loss_ratio);
}

static td_advice advice(const td_cause_view *v G_GNUC_UNUSED)
{
    return td_loss_advice;
}

static const td_cause_figure FIGURES[] = {
    { TD_F_CC_LOSSES, NULL }, { TD_F_FLIGHT_RETRANSMISSIONS, NULL }, { TD_F_CC_LOSS_RATIO, NULL },
};
static const td_figure_set figures = TD_FIGURE_SET(FIGURES);

const td_cause_ops td_cause_path_loss = {
    .id = TD_CAUSE_PATH_LOSS,
    .name = "path-loss",
    .flags = TD_CAUSE_COST_SAID,
    .holds = holds,
    .cost = cost,
    .evidence_frame = evidence_frame,
    .evidence = evidence,
    .advice = advice,
    .chart = TD_CHART_CONGESTION_LOSS,
    .figures = &figures,
};
