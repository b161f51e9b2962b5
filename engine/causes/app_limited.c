/* app-limited: the sending application had nothing to send most of the time (flight.c):
 * the network was not the limit. */
#include "cause.h"

#include "units.h"

static bool holds(const td_judge *j)
{
    return td_cause_flight_known(j) && j->x->limit == TD_LIMIT_APP;
}

static uint32_t evidence_frame(const td_judge *j)
{
    const td_flight *f = j->x->f;

    return f->longest_pause_end_frame ? f->longest_pause_end_frame
                                      : td_flow_sent(j->flow, j->x->sender)->first_data_frame;
}

static void evidence(const td_cause_view *v, char *buf, size_t size)
{
    const td_flight *f = v->f;
    char pause[64];

    td_format_duration(f->longest_pause_ns, pause, sizeof pause);
    g_snprintf(buf, size, "The sending application had nothing to send %.0f%% of the time (longest pause %s, "
               "ended at frame %u): the network was not the limit", td_flight_share(f, TD_LIMIT_APP), pause,
               f->longest_pause_end_frame);
}

static td_advice advice(const td_cause_view *v G_GNUC_UNUSED)
{
    return (td_advice) {
        "Look at the sending application (disk, database, producer, its own pacing), not the network: the "
        "connection waited on it",
        "On Linux, ss -ti on the sender shows app_limited and an empty send queue during the gaps" };
}

static const td_cause_figure FIGURES[] = {
    { TD_F_FLIGHT_APP_SHARE, "%" },
};
static const td_figure_set figures = TD_FIGURE_SET(FIGURES);

/* The application's own silences are no time the network lost: its pauses are named
 * (the summary), not counted as a cost. */
const td_cause_ops td_cause_app_limited = {
    .id = TD_CAUSE_APP_LIMITED,
    .name = "app-limited",
    .flags = TD_CAUSE_BY_APPLICATION,
    .holds = holds,
    .evidence_frame = evidence_frame,
    .evidence = evidence,
    .advice = advice,
    .chart = TD_CHART_FLIGHT,
    .chart_title = "Flight per round trip: the gaps are the application's",
    .figures = &figures,
};
