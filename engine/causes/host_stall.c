/* host-stall: the flow's host sent nothing on any flow while this flow waited on it
 * (stall.c), as an OS X server did when its mbufs ran out. */
#include "cause.h"

#include "addr.h"
#include "units.h"

static const td_stall_hit *hit_of(const td_engine *engine, const td_flow *flow)
{
    return td_stalls_hit(td_engine_stalls(engine), flow->index);
}

static bool holds(const td_judge *j)
{
    return hit_of(j->engine, j->flow) != NULL;
}

/* The wait inside the host's silence, against the flow's own pace outside it. */
static void cost(const td_judge *j, td_diagnosis *d)
{
    const td_stall_hit *hit = hit_of(j->engine, j->flow);

    td_cost_against_own_time(d, j, hit->wait_end_ns - hit->wait_start_ns, TD_REF_OWN_RATE);
}

static uint32_t evidence_frame(const td_judge *j)
{
    return hit_of(j->engine, j->flow)->resume_frame;
}

static void evidence(const td_cause_view *v, char *buf, size_t size)
{
    const td_stall_hit *hit = hit_of(v->engine, v->flow);
    const td_stall *stall = td_stalls_at(td_engine_stalls(v->engine), hit->stall);
    char host[64], silent[64], waited[64];

    td_addr_format(&stall->host, host, sizeof host);
    td_format_duration(stall->end_ns - stall->start_ns, silent, sizeof silent);
    td_format_duration(hit->wait_end_ns - hit->wait_start_ns, waited, sizeof waited);
    g_snprintf(buf, size, "Host %s sent nothing on any flow for %s (%u of %u flows waiting); this flow waited %s",
               host, silent, stall->flows_hit, td_diagnoses_stall_active(v->diagnoses, hit->stall), waited);
}

/* The stalled host, whichever end of this flow it is. */
static const td_addr *who(const td_cause_view *v, const char **role)
{
    *role = "host";
    return &td_stalls_at(td_engine_stalls(v->engine), hit_of(v->engine, v->flow)->stall)->host;
}

static td_advice advice(const td_cause_view *v G_GNUC_UNUSED)
{
    return (td_advice) {
        "Find what stopped the host's network stack: buffer exhaustion (macOS/BSD netstat -m, raise "
        "kern.ipc.nmbclusters; Linux nstat, dmesg), a firewall or a driver reset",
        "Capture on the host itself: silent there too means the host stopped sending; watch netstat -m "
        "(mbuf clusters near 100%) during a stall" };
}

static const td_cause_figure FIGURES[] = {
    { TD_F_STALL_HOST, NULL }, { TD_F_STALL_DURATION, NULL }, { TD_F_STALL_WAITED, NULL },
    { TD_F_STALL_FLOWS_HIT, NULL }, { TD_F_STALL_FRAME, NULL },
};
static const td_figure_set figures = TD_FIGURE_SET(FIGURES);

/* Its cost is in its evidence (the wait), so the summary adds none. */
const td_cause_ops td_cause_host_stall = {
    .id = TD_CAUSE_HOST_STALL,
    .name = "host-stall",
    .holds = holds,
    .cost = cost,
    .evidence_frame = evidence_frame,
    .evidence = evidence,
    .who = who,
    .advice = advice,
    .chart = TD_CHART_FLIGHT,
    .figures = &figures,
};
