/* slow-start-restart: after an application pause the flight started again far below
 * what earlier bursts got through (restart.c), costing rounds the same bytes did not
 * need. */
#include "cause.h"

/* Restarts whose cost (restart.h) is where the transfer's time went: a large share of
 * the transfer time (the pauses that caused them stay the applications'), and long in
 * itself. */
static bool holds(const td_judge *j)
{
    return td_cause_flight_known(j) && j->x->f->restart.restarts &&
           td_cause_takes_share(j->cfg, j->x->f->restart.cost_ns, td_cause_transfer_ns(j->flow));
}

static void cost(const td_judge *j, td_diagnosis *d)
{
    td_cost_against_own_time(d, j, j->x->f->restart.cost_ns, TD_REF_NONE);
    /* the restarts slowed the transfer, not the pauses */
    td_cost_slowdown_within(d, td_cause_transfer_ns(j->flow));
}

static uint32_t evidence_frame(const td_judge *j)
{
    return j->x->f->restart.frame;
}

static void evidence(const td_cause_view *v, char *buf, size_t size)
{
    const td_flight *f = v->f;

    g_snprintf(buf, size, "After %u pause%s %s's flight restarted at %.0f segments where %.0f had got through "
               "before: slow start after idle, rounds the same bytes did not need", f->restart.restarts,
               f->restart.restarts == 1 ? "" : "s", td_cause_sender_role(v),
               (double)f->restart.restart_flight / MAX(f->mss, 1),
               (double)f->restart.restart_known / MAX(f->mss, 1));
}

static td_advice advice(const td_cause_view *v G_GNUC_UNUSED)
{
    return (td_advice) {
        "On the sender, net.ipv4.tcp_slow_start_after_idle=0 (Linux) keeps the window across idle; or keep "
        "the connection busy between requests",
        "With it off, the first round after a pause carries the flight of the burst before (ss -ti on the "
        "sender: cwnd stays across idle)" };
}

const td_cause_ops td_cause_slow_start_restart = {
    .id = TD_CAUSE_SLOW_START_RESTART,
    .name = "slow-start-restart",
    .flags = TD_CAUSE_COST_SAID,
    .holds = holds,
    .cost = cost,
    .evidence_frame = evidence_frame,
    .evidence = evidence,
    .advice = advice,
    .chart = TD_CHART_RESTART,
};
