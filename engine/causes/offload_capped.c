/* offload-capped: the sender's segments were capped on this flow while its other flows
 * used segmentation offload and went markedly faster (offload.c): the macOS 26 TSO
 * case. */
#include "cause.h"

/* A capped flow counts as offload-capped only this much slower than the offloaded
 * flows of its sender: a cap that costs nothing is not a cause. */
#define OFFLOAD_MIN_SLOWDOWN 1.5

/* Capped with nothing in the flow to explain it, while the sender's offloaded flows
 * went markedly faster. */
static bool holds(const td_judge *j)
{
    const td_cause_facts *x = j->x;
    uint32_t n;
    double offloaded;

    if (!td_cause_flight_known(j))
        return false;
    offloaded = td_group_median(x->by_sender, TD_SET_SENDER_OFFLOADED, &n);
    return x->capped && x->f->seg.result.cap_cause == TD_CAP_CAUSE_NONE && n && x->rate > 0 &&
           offloaded >= OFFLOAD_MIN_SLOWDOWN * x->rate;
}

static void cost(const td_judge *j, td_diagnosis *d)
{
    td_cost_against_group(d, j, j->x->by_sender, TD_SET_SENDER_OFFLOADED, TD_REF_SENDER_FLOWS);
}

static uint32_t evidence_frame(const td_judge *j)
{
    const td_offload_result *r = &j->x->f->seg.result;

    return r->cap_start_frame ? r->cap_start_frame : td_flow_sent(j->flow, j->x->sender)->first_data_frame;
}

static void evidence(const td_cause_view *v, char *buf, size_t size)
{
    const td_flight *f = v->f;

    g_snprintf(buf, size, "Segments capped at %u B on this flow while %u flows of its sender used offload",
               f->seg.result.cap ? f->seg.result.cap : f->mss, v->diag->peers);
}

static td_advice advice(const td_cause_view *v G_GNUC_UNUSED)
{
    return (td_advice) {
        "Test with segmentation offload off on the sender (macOS sysctl net.inet.tcp.tso=0, Linux ethtool "
        "-K IFACE tso off gso off)",
        "If the capped flows then run like the others, offload is at fault: report it to the OS or NIC "
        "vendor" };
}

static const td_cause_figure FIGURES[] = {
    { TD_F_OFFLOAD_MSS, "B" }, { TD_F_OFFLOAD_CAP, "B" }, { TD_F_OFFLOAD_CAP_MSS, "MSS" }, { TD_F_OFFLOAD_MAX, "B" },
    { TD_F_OFFLOAD_MEDIAN, "B" }, { TD_F_SENDER_OFFLOADED_FLOWS, NULL }, { TD_F_SENDER_OFFLOADED_MEDIAN_THROUGHPUT, NULL },
};
static const td_figure_set figures = TD_FIGURE_SET(FIGURES);

const td_cause_ops td_cause_offload_capped = {
    .id = TD_CAUSE_OFFLOAD_CAPPED,
    .name = "offload-capped",
    .flags = TD_CAUSE_COST_SAID,
    .holds = holds,
    .cost = cost,
    .evidence_frame = evidence_frame,
    .evidence = evidence,
    .advice = advice,
    .chart = TD_CHART_SIZES,
    .figures = &figures,
};
