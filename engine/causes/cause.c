/* What the causes share (cause.h): the facts of a flow and its reference groups, the
 * measures several rules read, the ways a cost is measured, and the helpers of their
 * words. */
#include "cause.h"

#include <string.h>

#include "units.h"

/* ---------------------------------------------------------------- facts */

int64_t td_cause_active_ns(const td_flow *flow)
{
    return td_time_budget_active(td_flow_time_budget(flow));
}

void td_cause_gather(const td_flow *flow, td_cause_facts *x)
{
    int64_t ns = td_cause_active_ns(flow);

    memset(x, 0, sizeof *x);
    x->sender = td_flow_busiest_sender(flow);
    x->f = x->sender < 0 ? NULL : td_flow_flight(flow, x->sender);
    td_options_audit_flow(flow, &x->audit);
    x->ecn = td_ecn_negotiated(flow->ecn_outcome);
    x->wscale = x->audit.used[TD_USED_WSCALE] == TD_YES;
    if (!x->f)
        return;
    x->rate = ns > 0 ? (double)td_flow_sent(flow, x->sender)->payload_bytes * 1e9 / (double)ns : 0;
    x->limit = td_flight_limit(x->f, &x->limit_why);
    x->lossy = x->f->cc.losses >= TD_MIN_RECOVERIES;
    x->offloaded = x->f->seg.result.verdict == TD_OFFLOAD_OFFLOADED;
    x->capped = x->f->seg.result.verdict == TD_OFFLOAD_CAPPED || x->f->seg.result.verdict == TD_OFFLOAD_MSS_CAPPED;
}

void td_cause_find_groups(td_groups *groups, const td_flow *flow, td_cause_facts *x)
{
    if (!x->f || x->rate <= 0)
        return;
    if (td_flow_roles_known(flow)) {
        x->client = td_groups_client(groups, flow);
        x->to_server = td_groups_pair(groups, flow);
    }
    x->by_sender = td_groups_sender(groups, flow, x->sender);
}

static void file_in_sets(const td_cause_facts *x)
{
    if (x->client) {
        if (!x->ecn)
            td_group_add(x->to_server, TD_SET_CLIENT_WITHOUT_ECN, x->rate);
        if (x->wscale)
            td_group_add(x->client, TD_SET_CLIENT_WITH_WSCALE, x->rate);
    }
    if (!x->by_sender)
        return;
    if (!x->lossy)
        td_group_add(x->by_sender, TD_SET_SENDER_FEW_LOSSES, x->rate);
    if (x->offloaded)
        td_group_add(x->by_sender, TD_SET_SENDER_OFFLOADED, x->rate);
    if (x->limit != TD_LIMIT_RWND)
        td_group_add(x->by_sender, TD_SET_SENDER_NOT_RWND, x->rate);
}

/* What the pair's queueing-delay flows are measured against: the pair's empty path
 * (the smallest handshake round trip of its flows: one made before a queue built), and
 * the flows that kept sending unasked, which fill queues. */
static void file_in_pair(const td_flow *flow, const td_cause_facts *x)
{
    int64_t rtt = td_flow_handshake_rtt_ns(flow);
    td_group *g = x->to_server;

    if (!g)
        return;
    if (rtt > 0 && (!g->path_rtt_ns || rtt < g->path_rtt_ns))
        g->path_rtt_ns = rtt;
    if (!td_cause_sends_unasked(flow, x))
        return;
    if (!g->fillers)
        g->fillers = g_array_new(FALSE, FALSE, sizeof(td_queue_filler));
    g_array_append_val(g->fillers, ((td_queue_filler){ flow->stream, flow->first_ns, flow->last_ns }));
}

void td_cause_file(const td_flow *flow, const td_cause_facts *x)
{
    file_in_sets(x);
    file_in_pair(flow, x);
}

/* ---------------------------------------------------------------- measures */

/* A transfer of more data round trips than slow start's few per exchange was bound by
 * something else than its exchanges (its window, its rate), which the flight analysis
 * judges. */
enum { ROUNDS_PER_EXCHANGE = 4 };
/* Exchanges that make a flow of exchanges (a request/response conversation). */
enum { MIN_EXCHANGES = 4 };

bool td_cause_exchange_flow(const td_flow *flow, const td_cause_facts *x)
{
    uint32_t exchanges = td_time_budget_exchanges(td_flow_time_budget(flow));

    /* at least MIN_EXCHANGES of them, each in a few round trips */
    return x->f && exchanges >= MIN_EXCHANGES && x->f->rounds <= (uint64_t)ROUNDS_PER_EXCHANGE * exchanges;
}

bool td_cause_sends_unasked(const td_flow *flow, const td_cause_facts *x)
{
    uint32_t exchanges = td_time_budget_exchanges(td_flow_time_budget(flow));

    /* many more round trips than its exchanges: the kind that fills a bottleneck's queue */
    return x->f && x->f->rounds > (uint64_t)ROUNDS_PER_EXCHANGE * MAX(exchanges, 1u);
}

/* The time the flow was active less the applications' waits: what a slow-start
 * restart is judged and costed against, since the pauses that caused it stay the
 * applications' (client-delay's or server-delay's). */
int64_t td_cause_transfer_ns(const td_flow *flow)
{
    const td_time_budget *b = td_flow_time_budget(flow);

    return td_cause_active_ns(flow) - td_time_budget_part(b, TD_TIME_CLIENT_WAIT) -
           td_time_budget_part(b, TD_TIME_SERVER_WAIT);
}

bool td_cause_takes_share(const td_config *cfg, int64_t part_ns, int64_t whole_ns)
{
    /* in double: a hostile capture's clock can span centuries, whose ns times 100
       would overflow */
    return whole_ns > 0 && part_ns >= (int64_t)cfg->budget.min_cost_ms * 1000000 &&
           (double)part_ns * 100.0 >= (double)whole_ns * cfg->budget.min_share_pct;
}

bool td_cause_dominates(const td_judge *j, int64_t part_ns)
{
    return td_cause_takes_share(j->cfg, part_ns, td_cause_active_ns(j->flow));
}

bool td_cause_flight_known(const td_judge *j)
{
    return j->x->f && !j->x->f->unknown_reason;
}

/* A flight standing in a queue at the bottleneck it filled itself: the bottleneck was
 * busy all along. */
bool td_cause_queue_standing(const td_config *cfg, const td_flow *flow, const td_flight *f)
{
    int64_t handshake = td_flow_handshake_rtt_ns(flow);

    return handshake > 0 && f->rounds &&
           (int64_t)(f->round_ns_total / f->rounds) >= (int64_t)cfg->budget.queue_rtt_ratio * handshake;
}

/* The window held the flight flat: a window that autotuning kept growing, which
 * the flight met now and then on its way up, held nothing. A transfer too short for a
 * plateau is held when its flight filled the largest window ever offered: a window
 * that never outgrew the flight (a fixed SO_RCVBUF), where autotuning offers ahead.
 * A window-held flight standing in a queue (td_cause_queue_standing) held nothing
 * either: the path ran at its bottleneck's rate, and a larger window would only
 * lengthen the queue (issue 30: 18 KB/s whether the flight sat at the 82 KB window or
 * at 35 KB). */
bool td_cause_window_held(const td_judge *j)
{
    const td_flight *f = j->x->f;
    const td_plateau *p = td_flight_plateau(f);

    if (j->x->limit != TD_LIMIT_RWND || td_cause_queue_standing(j->cfg, j->flow, f))
        return false;
    if (p && p->limit == TD_LIMIT_RWND)
        return true;
    return f->rounds < j->cfg->flight.plateau_min_rounds && f->max_window && f->max_flight >= f->max_window;
}

/* A SYN seen whole that merely lacks window scaling (or a SYN-ACK that answered without
 * it) cannot tell the side's choice from a strip before the capture point: that stays
 * missing-options. */
bool td_cause_syn_stripped(const td_options_audit *audit)
{
    return ((audit->left_out_by_client & TD_OPT_WSCALE) && audit->overwritten[0]) ||
           ((audit->left_out_by_server & TD_OPT_WSCALE) && audit->overwritten[1]);
}

bool td_cause_window_unscaled(const td_cause_facts *x)
{
    return x->audit.at_ceiling == TD_YES && (x->audit.missing & TD_OPT_WSCALE);
}

/* ---------------------------------------------------------------- costs */

void td_cost_against_rate(td_diagnosis *d, const td_judge *j, double reference)
{
    double bytes = (double)td_flow_sent(j->flow, j->x->sender)->payload_bytes;
    int64_t ns = td_cause_active_ns(j->flow);

    if (reference <= 0 || j->x->rate <= 0)
        return;
    d->slowdown = reference / j->x->rate;
    d->lost_ns = (int64_t)MAX(0.0, (double)ns - bytes * 1e9 / reference);
}

/* left as it is when the loss is not within it */
void td_cost_slowdown_within(td_diagnosis *d, int64_t ns)
{
    if (ns > d->lost_ns && d->lost_ns >= 0)
        d->slowdown = (double)ns / (double)(ns - d->lost_ns);
}

/* The reference is the caller's to name. */
void td_cost_against_own_time(td_diagnosis *d, const td_judge *j, int64_t lost, td_reference reference)
{
    d->reference = reference;
    d->lost_ns = lost;
    td_cost_slowdown_within(d, td_cause_active_ns(j->flow));
}

/* A group that was no faster than the flow shows no cost: the caller may try
 * another reference, and the flow keeps its cause on the evidence alone. */
bool td_cost_against_group(td_diagnosis *d, const td_judge *j, const td_group *g, td_group_set set,
                           td_reference reference)
{
    uint32_t peers;
    double median = td_group_median(g, set, &peers);

    if (!peers || median <= j->x->rate)
        return false;
    d->peers = peers;
    d->reference = reference;
    td_cost_against_rate(d, j, median);
    return true;
}

void td_cost_against_window(td_diagnosis *d, const td_judge *j)
{
    const td_flight *f = j->x->f;
    double rtt_s = f->rounds ? (double)f->round_ns_total / f->rounds / 1e9 : 0;
    double throughput = td_flight_throughput(f);

    if (rtt_s <= 0 || !f->max_window || throughput <= 0)
        return;
    d->reference = TD_REF_WINDOW_CEILING;
    d->slowdown = f->max_window / rtt_s / throughput;
    d->lost_ns = (int64_t)MAX(0.0, (double)td_flight_measured_ns(f) - (double)f->new_bytes * 1e9 * rtt_s / f->max_window);
}

void td_cost_against_ecn_peers(const td_judge *j, td_diagnosis *d)
{
    if (j->x->ecn && td_cost_against_group(d, j, j->x->to_server, TD_SET_CLIENT_WITHOUT_ECN, TD_REF_CLIENT_FLOWS))
        return;
    td_cost_against_window(d, j);
}

void td_cost_silence(const td_judge *j, td_diagnosis *d)
{
    td_cost_against_own_time(d, j, td_time_budget_silence_ns(td_flow_time_budget(j->flow)), TD_REF_NONE);
}

void td_cost_against_scaled_flows(const td_judge *j, td_diagnosis *d)
{
    td_cost_against_group(d, j, j->x->client, TD_SET_CLIENT_WITH_WSCALE, TD_REF_CLIENT_FLOWS);
}

uint32_t td_cause_longest_stall_frame(const td_judge *j)
{
    return td_flow_time_budget(j->flow)->longest_frame[TD_SPAN_STALL];
}

/* ---------------------------------------------------------------- words */

void td_cause_view_of(const td_diagnoses *d, const td_flow *flow, td_cause_view *v)
{
    v->engine = td_diagnoses_engine(d);
    v->diagnoses = d;
    v->flow = flow;
    v->diag = td_diagnosis_of(d, flow);
    v->f = v->diag->sender < 0 ? NULL : td_flow_flight(flow, v->diag->sender);
}

const td_advice td_ecn_advice = {
    "BBR on the sender (Linux net.ipv4.tcp_congestion_control=bbr), which does not cut on every echo; or stop "
    "the CE marking on the path",
    "ECN off at the client for one run (macOS sysctl net.inet.tcp.ecn_initiate_out=0, Linux "
    "net.ipv4.tcp_ecn=0): the flow should then run like the client's other flows" };

const td_advice td_loss_advice = {
    "Locate the loss: a congested bottleneck queue or a lossy link; an AQM with ECN at the bottleneck, or BBR "
    "on the sender, lowers its cost",
    "Capture at both ends: segments sent but never received show where the loss is" };

const char *td_cause_sender_role(const td_cause_view *v)
{
    if (!td_flow_roles_known(v->flow) || v->diag->sender < 0)
        return "the sender";
    return v->diag->sender == v->flow->client ? "the client" : "the server";
}

bool td_cause_ecn_driven(const td_cause_view *v)
{
    return v->f && td_cc_ecn_driven(&v->f->cc);
}

const td_addr *td_cause_endpoint(const td_cause_view *v, int endpoint, const char **role)
{
    if (endpoint < 0)
        endpoint = 0;
    if (!td_flow_roles_known(v->flow))
        *role = "host";
    else
        *role = endpoint == v->flow->client ? "client" : "server";
    return &v->flow->addr[endpoint];
}

const td_addr *td_cause_at_server(const td_cause_view *v, const char **role)
{
    return td_cause_endpoint(v, td_flow_roles_known(v->flow) ? td_flow_server(v->flow) : v->diag->sender, role);
}

const td_addr *td_cause_at_client(const td_cause_view *v, const char **role)
{
    return td_cause_endpoint(v, v->flow->client, role);
}

const td_addr *td_cause_at_receiver(const td_cause_view *v, const char **role)
{
    return td_cause_endpoint(v, v->diag->sender < 0 ? -1 : 1 - v->diag->sender, role);
}

void td_cause_side_words(const td_cause_view *v, int endpoint, char *buf, size_t size, const char **roles_note)
{
    if (td_flow_roles_known(v->flow)) {
        g_strlcpy(buf, endpoint == v->flow->client ? "the client" : "the server", size);
        *roles_note = "";
        return;
    }
    td_flow_endpoint_format(v->flow, endpoint < 0 ? 0 : endpoint, buf, size);
    *roles_note = "; roles guessed: no handshake";
}

void td_cause_span_words(const td_time_budget *b, int64_t part_ns, td_time_span span, char *part, char *longest,
                         size_t size)
{
    char d[32];

    td_format_duration(part_ns, part, size);
    td_format_duration(b->longest_ns[span], d, sizeof d);
    g_snprintf(longest, size, "longest %s, ended at frame %u", d, b->longest_frame[span]);
}

/* ---------------------------------------------------------------- figures */

static const td_cause_figure BUDGET_FIGURES[] = {
    { TD_F_TIME_ACTIVE, NULL }, { TD_F_TIME_SETUP, NULL }, { TD_F_TIME_CLIENT_DELAY, NULL },
    { TD_F_TIME_SERVER_DELAY, NULL }, { TD_F_TIME_STALL, NULL }, { TD_F_TIME_SYN_RETRANSMISSIONS, NULL },
    { TD_F_TIME_THINK, NULL },
};
const td_figure_set td_budget_figures = TD_FIGURE_SET(BUDGET_FIGURES);

static const td_cause_figure CC_FIGURES[] = {
    { TD_F_CC_CE, NULL }, { TD_F_CC_ECE_EPISODES, NULL }, { TD_F_CC_CWR, NULL }, { TD_F_CC_LOSSES, NULL },
    { TD_F_CC_REACTION, NULL }, { TD_F_CC_COLLAPSE_FLOOR, "B" }, { TD_F_CC_COLLAPSE_FLOOR_MSS, "MSS" },
    { TD_F_CC_COLLAPSE_ROUNDS, NULL },
};
const td_figure_set td_cc_figures = TD_FIGURE_SET(CC_FIGURES);

static const td_cause_figure PLATEAU_FIGURES[] = {
    { TD_F_FLIGHT_PLATEAU, "B" }, { TD_F_FLIGHT_PLATEAU_MSS, "MSS" }, { TD_F_FLIGHT_PLATEAU_ROUNDS, NULL },
    { TD_F_FLIGHT_PLATEAU_START, NULL }, { TD_F_FLIGHT_RWND, "B" }, { TD_F_FLIGHT_HEADROOM, "B" },
    { TD_F_FLIGHT_CEILING, NULL },
};
const td_figure_set td_plateau_figures = TD_FIGURE_SET(PLATEAU_FIGURES);

static const td_cause_figure OPTIONS_FIGURES[] = {
    { TD_F_OPTS_MISSING, NULL }, { TD_F_OPTS_WINDOW_CEILING, "B" }, { TD_F_FLOW_IRTT, NULL },
    { TD_F_OPTS_CEILING_THROUGHPUT, NULL }, { TD_F_FLIGHT_MAX, "B" },
};
const td_figure_set td_options_figures = TD_FIGURE_SET(OPTIONS_FIGURES);
