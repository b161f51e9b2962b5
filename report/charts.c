/* The report's chart model: the values to plot for a slow flow, chosen by its
 * cause, for a host stall's timeline, and a flow's time budget as a bar (svg.c
 * draws them). */
#include "charts.h"

#include "addr.h"
#include "units.h"
#include "ecn.h"
#include "field_values.h"
#include "median.h"

/* The timeline shows this many of a stalled host's flows; a note counts the rest. */
enum { TIMELINE_ROWS = 40 };
static const char FLOW_TIME[] = "time since the flow's first packet";
/* An offload-capped flow's chart shows this many of its sender's offloaded flows. */
enum { OFFLOADED_SHOWN = 2 };

static td_chart *chart_new(td_chart_kind kind, const char *y_title, const char *x_title)
{
    td_chart *c = g_new0(td_chart, 1);

    c->kind = kind;
    c->y_title = y_title;
    c->x_title = x_title;
    c->lines = g_array_new(FALSE, FALSE, sizeof(td_chart_line));
    c->levels = g_array_new(FALSE, FALSE, sizeof(td_chart_level));
    c->marks = g_array_new(FALSE, FALSE, sizeof(td_chart_mark));
    c->rows = g_array_new(FALSE, FALSE, sizeof(td_chart_row));
    c->silences = g_array_new(FALSE, FALSE, sizeof(td_chart_span));
    return c;
}

void td_chart_free(td_chart *c)
{
    if (!c)
        return;
    for (guint i = 0; i < c->lines->len; i++) {
        td_chart_line *l = &g_array_index(c->lines, td_chart_line, i);
        g_free(l->label);
        g_array_free(l->points, TRUE);
    }
    for (guint i = 0; i < c->levels->len; i++)
        g_free(g_array_index(c->levels, td_chart_level, i).label);
    for (guint i = 0; i < c->silences->len; i++)
        g_free(g_array_index(c->silences, td_chart_span, i).label);
    for (guint i = 0; i < c->rows->len; i++) {
        g_free(g_array_index(c->rows, td_chart_row, i).label);
        g_free(g_array_index(c->rows, td_chart_row, i).wait_label);
    }
    g_array_free(c->lines, TRUE);
    g_array_free(c->levels, TRUE);
    g_array_free(c->marks, TRUE);
    g_array_free(c->rows, TRUE);
    g_array_free(c->silences, TRUE);
    g_free(c->title);
    g_free(c);
}

static void retitle(td_chart *c, char *title)
{
    g_free(c->title);
    c->title = title;
}

static GArray *add_line(td_chart *c, const char *cls, char *label)
{
    td_chart_line line = { cls, label, g_array_new(FALSE, FALSE, sizeof(td_xy)), false };

    g_array_append_val(c->lines, line);
    return line.points;
}

static void add_level(td_chart *c, const char *cls, double y, char *label)
{
    td_chart_level level = { cls, label, y };

    g_array_append_val(c->levels, level);
}

static void add_xy(GArray *points, double x, double y)
{
    td_xy p = { x, y };

    g_array_append_val(points, p);
}

static double seconds_since(int64_t t_ns, int64_t zero_ns)
{
    return (double)(t_ns - zero_ns) / 1e9;
}

/* A series as at most TD_CHART_POINTS groups of neighbouring points, each keeping
 * its smallest and largest sample, its last window and its signals. */
static GArray *grouped(const td_series *s)
{
    uint32_t n = td_series_len(s), per = (n + TD_CHART_POINTS - 1) / TD_CHART_POINTS;
    GArray *groups = g_array_new(FALSE, FALSE, sizeof(td_series_point));

    for (uint32_t i = 0; i < n; i += per) {
        td_series_point g = td_series_at(s, i);
        for (uint32_t k = i + 1; k < n && k < i + per; k++) {
            td_series_point p = td_series_at(s, k);
            td_series_merge(&g, &p);
        }
        g_array_append_val(groups, g);
    }
    return groups;
}

static bool merged(const GArray *groups)
{
    for (guint i = 0; i < groups->len; i++)
        if (g_array_index(groups, td_series_point, i).lo != g_array_index(groups, td_series_point, i).hi)
            return true;
    return false;
}

/* The largest and, where points hold several samples, the smallest of each group. */
static void add_largest(td_chart *c, const GArray *groups, int64_t zero_ns, const char *cls, char *label)
{
    GArray *hi = add_line(c, cls, label);

    for (guint i = 0; i < groups->len; i++) {
        const td_series_point *p = &g_array_index(groups, td_series_point, i);
        add_xy(hi, seconds_since(p->t_ns, zero_ns), p->hi);
    }
}

static void add_ranges(td_chart *c, const GArray *groups, int64_t zero_ns, const char *cls, const char *what)
{
    add_largest(c, groups, zero_ns, cls, g_strdup(what));
    if (merged(groups)) {
        GArray *lo = add_line(c, "low", g_strdup_printf("%s (smallest of each group)", what));
        for (guint i = 0; i < groups->len; i++) {
            const td_series_point *p = &g_array_index(groups, td_series_point, i);
            add_xy(lo, seconds_since(p->t_ns, zero_ns), p->lo);
        }
    }
}

static void add_mark(td_chart *c, td_mark_kind kind, double x, double y, unsigned count)
{
    td_chart_mark m = { kind, x, y, count };

    if (count)
        g_array_append_val(c->marks, m);
}

static void add_signals(td_chart *c, const GArray *groups, int64_t zero_ns)
{
    for (guint i = 0; i < groups->len; i++) {
        const td_series_point *p = &g_array_index(groups, td_series_point, i);
        double x = seconds_since(p->t_ns, zero_ns);
        add_mark(c, TD_MARK_CE, x, p->hi, p->ce);
        add_mark(c, TD_MARK_ECE, x, p->hi, p->ece);
        add_mark(c, TD_MARK_CWR, x, p->hi, p->cwr);
        add_mark(c, TD_MARK_LOSS, x, p->hi, p->losses);
    }
}

/* The window offered beside the flight. One far above the flight (the illumos case:
 * 7 kB in flight under 1 MB) would flatten the flight to the axis: the chart's bytes
 * are then on a log scale, where both read. */
static void add_windows(td_chart *c, const GArray *groups, int64_t zero_ns)
{
    GArray *window = NULL;
    uint32_t flight = 0, largest = 0;

    for (guint i = 0; i < groups->len; i++) {
        const td_series_point *p = &g_array_index(groups, td_series_point, i);
        flight = MAX(flight, p->hi);
        largest = MAX(largest, p->window);
    }
    for (guint i = 0; i < groups->len; i++) {
        const td_series_point *p = &g_array_index(groups, td_series_point, i);
        if (!p->window)
            continue;
        if (!window)
            window = add_line(c, "window", g_strdup("receive window offered"));
        add_xy(window, seconds_since(p->t_ns, zero_ns), p->window);
    }
    if (largest > 4 * flight) {
        c->y_log = true;
        c->y_title = "bytes in flight (log scale)";
    }
}

static char *bytes_label(const char *what, double bytes, uint32_t mss)
{
    if (mss)
        return g_strdup_printf("%s %.0f B = %.1f MSS", what, bytes, bytes / mss);
    return g_strdup_printf("%s %.0f B", what, bytes);
}

/* The median round-trip flight of the same client's flows that did not negotiate
 * ECN, in the same direction (downloads against downloads), from their history (a
 * point that merges several round trips counts with its largest); < 0 when the
 * client has none recorded. */
static double client_reference(const td_chart_source *src, const td_flow *flow, int sender)
{
    GArray *flights;
    bool from_client = sender == flow->client;
    double median;

    if (flow->client < 0)
        return -1;
    flights = g_array_new(FALSE, FALSE, sizeof(double));
    for (guint i = 0; i < td_engine_flow_count(src->engine); i++) {
        const td_flow *other = td_engine_flow_at(src->engine, i);
        const td_dir_series *ds;
        if (other == flow || other->client < 0 || td_ecn_negotiated((td_ecn_outcome)other->ecn_outcome) ||
            !td_addr_equal(&other->addr[other->client], &flow->addr[flow->client]))
            continue;
        ds = td_series_of(src->series, td_flow_flight(other, from_client ? other->client : 1 - other->client));
        for (uint32_t k = 0; ds && k < td_series_len(&ds->rounds); k++) {
            double hi = td_series_at(&ds->rounds, k).hi;
            g_array_append_val(flights, hi);
        }
    }
    median = td_median((double *)(void *)flights->data, flights->len);
    g_array_free(flights, TRUE);
    return median;
}

/* The flow's own level before the sender's first answer to a signal: the largest
 * round-trip flight before it; < 0 when it answered none. */
static double own_level_before_cut(const td_series *rounds)
{
    double level = -1;

    for (uint32_t i = 0; i < td_series_len(rounds); i++) {
        td_series_point p = td_series_at(rounds, i);
        if (p.cwr || p.losses)
            return level;
        level = MAX(level, (double)p.hi);
    }
    return -1;
}

/* ECN reaction, window collapse, path loss: the flight per round trip and the
 * signals, with the level it is measured against. */
static void congestion_chart(td_chart *c, const td_chart_source *src, const td_flow *flow, int sender,
                             const GArray *groups, bool ecn)
{
    const td_flight *f = td_flow_flight(flow, sender);

    add_ranges(c, groups, flow->first_ns, "flight", "flight per round trip");
    add_signals(c, groups, flow->first_ns);
    if (f->collapsed)
        add_level(c, "floor", f->cc.collapse_floor, bytes_label("collapse floor", f->cc.collapse_floor, f->mss));
    if (ecn) {
        double reference = client_reference(src, flow, sender);
        if (reference > 0)
            add_level(c, "reference", reference,
                      bytes_label("median flight of the client's flows without ECN", reference, f->mss));
        else if ((reference = own_level_before_cut(&td_series_of(src->series, f)->rounds)) > 0)
            add_level(c, "reference", reference, bytes_label("its own level before the first cut", reference, f->mss));
    }
}

/* Sender-limited, receive window: the flight against the window, and the plateau. */
static void plateau_chart(td_chart *c, const td_flow *flow, const td_flight *f, const GArray *groups)
{
    const td_plateau *plateau = td_flight_plateau(f);

    add_ranges(c, groups, flow->first_ns, "flight", "flight per round trip");
    add_windows(c, groups, flow->first_ns);
    add_signals(c, groups, flow->first_ns);
    if (plateau) {
        char rate[32];
        td_format_rate(td_plateau_ceiling(plateau), rate, sizeof rate);
        add_level(c, "plateau", plateau->high, bytes_label("plateau", plateau->high, f->mss));
        retitle(c, g_strdup_printf("%s: a plateau of %u round trips, a ceiling of %s", c->title, plateau->rounds, rate));
    }
}

/* Missing options: the window used against the 64 KiB an unscaled window allows. */
static void ceiling_chart(td_chart *c, const td_flow *flow, const GArray *groups)
{
    add_ranges(c, groups, flow->first_ns, "flight", "flight per round trip");
    add_windows(c, groups, flow->first_ns);
    add_level(c, "ceiling", 65535, g_strdup("64 KiB: the largest window without scaling"));
}

/* Offload-capped: the segment sizes against the MSS and the cap, beside the sizes of
 * the first OFFLOADED_SHOWN of the same sender's offloaded flows (each from its own
 * first packet) and the largest segment any of them sent. */
static void sizes_chart(td_chart *c, const td_chart_source *src, const td_flow *flow, int sender,
                        const td_dir_series *ds)
{
    const td_flight *f = td_flow_flight(flow, sender);
    GArray *groups = grouped(&ds->sizes);
    uint32_t others = 0, shown = 0;

    add_ranges(c, groups, flow->first_ns, "sizes", "segment size");
    g_array_free(groups, TRUE);
    if (f->mss)
        add_level(c, "mss", f->mss, bytes_label("MSS", f->mss, 0));
    if (f->seg.result.cap)
        add_level(c, "cap", f->seg.result.cap, bytes_label("cap", f->seg.result.cap, f->mss));
    for (guint i = 0; i < td_engine_flow_count(src->engine); i++) {
        const td_flow *other = td_engine_flow_at(src->engine, i);
        for (int e = 0; e < 2 && other != flow; e++) {
            const td_flight *of = td_flow_flight(other, e);
            const td_dir_series *ods = td_series_of(src->series, of);
            if (!of || of->seg.result.verdict != TD_OFFLOAD_OFFLOADED || !td_addr_equal(&other->addr[e], &flow->addr[sender]))
                continue;
            others = MAX(others, of->seg.max_payload);
            if (ods && shown++ < OFFLOADED_SHOWN) {
                GArray *other_groups = grouped(&ods->sizes);
                add_largest(c, other_groups, other->first_ns, "other",
                            g_strdup_printf("largest segments of stream %u (offloaded)", other->stream));
                g_array_free(other_groups, TRUE);
            }
        }
    }
    if (others)
        add_level(c, "reference", others, bytes_label("largest segment of the sender's offloaded flows", others, 0));
}

/* A path MTU black hole: the segment sizes against the size the handshake allowed,
 * which the sender's segments never reach again once cut smaller. */
static void blackhole_chart(td_chart *c, const td_flow *flow, int sender, const td_dir_series *ds)
{
    const td_pmtu_side *side = &flow->more->pmtu.side[sender];
    GArray *groups = grouped(&ds->sizes);

    add_ranges(c, groups, flow->first_ns, "sizes", "segment size");
    g_array_free(groups, TRUE);
    add_level(c, "allowed", side->allowed, bytes_label("allowed by the handshake", side->allowed, 0));
}

/* A duration's level label: "what 20.8 ms". */
static char *duration_label(const char *what, int64_t ns)
{
    char took[32];

    td_format_duration(ns, took, sizeof took);
    return g_strdup_printf("%s %s", what, took);
}

/* A series of events' durations (µs: a hold, an exchange), a dot on each, from the
 * flow's first packet. */
static td_chart *events_chart(const td_series *s, const td_flow *flow, const char *y_title, const char *title,
                              const char *cls, const char *what)
{
    td_chart *c = chart_new(TD_CHART_XY, y_title, FLOW_TIME);
    GArray *groups = grouped(s);

    c->y_us = true;
    c->title = g_strdup(title);
    add_ranges(c, groups, flow->first_ns, cls, what);
    g_array_free(groups, TRUE);
    for (guint i = 0; i < c->lines->len; i++)
        g_array_index(c->lines, td_chart_line, i).dots = true;
    return c;
}

/* What the events are measured against: the path's round trip, and the duration
 * from which the cause's rule counts one as more than the path. */
static void add_round_trips(td_chart *c, int64_t path_ns, const char *path_what, int64_t late_ns,
                            const char *late_what)
{
    add_level(c, "path", path_ns / 1e3, duration_label(path_what, path_ns));
    add_level(c, "late", late_ns / 1e3, duration_label(late_what, late_ns));
}

/* Nagle meeting delayed ACKs: each small segment's hold (nagle.h: from the data
 * before it to its release) against the path's round trip, and the round trip plus
 * the delay from which an ACK counts as delayed (the rule's). */
static td_chart *holds_chart(const td_chart_source *src, const td_flow *flow, const char *title, const char **why)
{
    const td_nagle *n = td_flow_nagle(flow);
    int held = n ? td_nagle_held_sender(n) : -1;
    const td_dir_series *ds = held >= 0 ? td_series_of(src->series, &n->side[held]) : NULL;
    int64_t rtt = td_flow_handshake_rtt_ns(flow);
    int64_t late = (int64_t)td_engine_config(src->engine)->nagle.min_ack_delay_ms * 1000000;
    td_chart *c;

    if (!ds || !td_series_len(&ds->holds)) {
        *why = "no chart: no segment of this flow was held (or its history was not kept)";
        return NULL;
    }
    c = events_chart(&ds->holds, flow, "time held", title, "holds", "each small segment's hold");
    if (rtt > 0)
        add_round_trips(c, rtt, "the path's round trip (handshake)", rtt + late,
                        "round trip + the delay from which an ACK counts as delayed:");
    return c;
}

/* The flows that filled the queue, shaded over the time this flow lived. */
static void add_fillers(td_chart *c, const td_chart_source *src, const td_flow *flow, const td_diagnosis *diag)
{
    for (uint32_t i = 0; i < MIN(diag->queue_fillers, (uint32_t)TD_QUEUE_FILLERS_MAX); i++)
        for (guint k = 0; k < td_engine_flow_count(src->engine); k++) {
            const td_flow *other = td_engine_flow_at(src->engine, k);
            td_chart_span span;
            if (other->stream != diag->queue_filler_streams[i])
                continue;
            span.x0 = MAX(0.0, seconds_since(other->first_ns, flow->first_ns));
            span.x1 = seconds_since(MIN(other->last_ns, flow->last_ns), flow->first_ns);
            span.label = g_strdup_printf("stream %u sending unasked (it filled the queue)", other->stream);
            g_array_append_val(c->silences, span);
        }
}

/* A queue's delay: each exchange's network time (the budget's transfer time from
 * one request to the next: a round trip, queued) against the empty path's round trip
 * and the multiple of it from which a round trip was queued (the rule's), with the
 * flows that filled the queue behind. */
static td_chart *exchanges_chart(const td_chart_source *src, const td_flow *flow, const char *title,
                                 const char **why)
{
    const td_diagnosis *diag = td_diagnosis_of(src->diagnoses, flow);
    const td_dir_series *ds = td_series_of(src->series, td_flow_time_budget(flow));
    unsigned ratio = td_engine_config(src->engine)->budget.queue_rtt_ratio;
    td_chart *c;

    if (!ds || !td_series_len(&ds->exchanges)) {
        *why = "no chart: no exchange of this flow was recorded";
        return NULL;
    }
    c = events_chart(&ds->exchanges, flow, "network time per exchange", title, "exchanges",
                     "each exchange's network time (its round trip)");
    if (diag->path_rtt_ns > 0) {
        char *queued = g_strdup_printf("queued from %u times the empty path's round trip:", ratio);
        add_round_trips(c, diag->path_rtt_ns, "the empty path's round trip (smallest handshake between these hosts)",
                        ratio * diag->path_rtt_ns, queued);
        g_free(queued);
    }
    add_fillers(c, src, flow, diag);
    return c;
}

/* Each chart model's title, unless its cause gives its own (td_cause_ops.chart_title). */
static const char *const MODEL_TITLES[] = {
    [TD_CHART_FLIGHT] = "Flight per round trip",
    [TD_CHART_CONGESTION_ECN] = "Flight per round trip, with CE marks, ECN echoes, CWRs and losses",
    [TD_CHART_CONGESTION_LOSS] = "Flight per round trip and losses",
    [TD_CHART_PLATEAU] = "Flight per round trip against the receive window",
    [TD_CHART_CEILING] = "Window used against the 64 KiB ceiling; window scaling lets it grow past, as far as the "
                         "receiver's buffer allows (the ceiling throughput is what 64 KiB carry per handshake round "
                         "trip)",
    [TD_CHART_RESTART] = "Flight per round trip: after each pause it starts again from about the initial window, "
                         "below the flight the earlier bursts got through",
    [TD_CHART_SIZES] = "Segment size over time",
    [TD_CHART_BLACKHOLE] = "Segment size over time against the size the handshake allowed: the full-size segments "
                           "died, the smaller ones got through",
    [TD_CHART_HOLDS] = "Each small segment's hold, from the data before it to its release after the peer's ACK, "
                       "against the path's round trip: the delayed ACK's interval on top of it, exchange after "
                       "exchange",
    [TD_CHART_EXCHANGES] = "Each exchange's round trip (the network's time in it) against the empty path's: the rest "
                           "waited in the queue the other flows kept full (shaded while they sent)",
};

static const char *chart_title(const td_cause_ops *ops)
{
    return ops->chart_title ? ops->chart_title : MODEL_TITLES[ops->chart];
}

td_chart *td_chart_for_flow(const td_chart_source *src, const td_flow *flow, const char **why)
{
    const td_diagnosis *diag = td_diagnosis_of(src->diagnoses, flow);

    return td_chart_for_cause(src, flow, diag->sender, (td_cause)diag->cause, why);
}

/* Segment sizes over time: an offload cap, or a path MTU black hole. */
static td_chart *sizes_over_time(const td_chart_source *src, const td_flow *flow, int sender,
                                 const td_dir_series *ds, const td_cause_ops *ops, const char **why)
{
    td_chart *c;

    if (!td_series_len(&ds->sizes)) {
        *why = "no chart: no segment of this flow was recorded";
        return NULL;
    }
    c = chart_new(TD_CHART_XY, "segment size", FLOW_TIME);
    c->title = g_strdup(chart_title(ops));
    if (ops->chart == TD_CHART_BLACKHOLE)
        blackhole_chart(c, flow, sender, ds);
    else
        sizes_chart(c, src, flow, sender, ds);
    return c;
}

/* The flight per round trip, with what the model draws beside it. */
static td_chart *flight_per_round(const td_chart_source *src, const td_flow *flow, int sender,
                                  const td_flight *f, const td_dir_series *ds, const td_cause_ops *ops,
                                  const char **why)
{
    td_chart *c;
    GArray *groups;

    if (!td_series_len(&ds->rounds)) {
        *why = "no chart: no round trip could be measured on this flow";
        return NULL;
    }
    c = chart_new(TD_CHART_XY, "bytes in flight", FLOW_TIME);
    c->title = g_strdup(chart_title(ops));
    groups = grouped(&ds->rounds);
    switch (ops->chart) {
    case TD_CHART_CONGESTION_ECN:
    case TD_CHART_CONGESTION_LOSS:
        congestion_chart(c, src, flow, sender, groups, ops->chart == TD_CHART_CONGESTION_ECN);
        break;
    case TD_CHART_PLATEAU:
        plateau_chart(c, flow, f, groups);
        break;
    case TD_CHART_CEILING:
        ceiling_chart(c, flow, groups);
        break;
    case TD_CHART_RESTART:
        add_ranges(c, groups, flow->first_ns, "flight", "flight per round trip");
        add_level(c, "known", f->restart.restart_known,
                  bytes_label("the flight an earlier burst got through", f->restart.restart_known, f->mss));
        break;
    default:
        add_ranges(c, groups, flow->first_ns, "flight", "flight per round trip");
        add_signals(c, groups, flow->first_ns);
        break;
    }
    g_array_free(groups, TRUE);
    return c;
}

td_chart *td_chart_for_cause(const td_chart_source *src, const td_flow *flow, int sender, td_cause cause,
                             const char **why)
{
    const td_cause_ops *ops = td_cause_ops_of(cause);
    const td_flight *f = sender >= 0 ? td_flow_flight(flow, sender) : NULL;
    const td_dir_series *ds = td_series_of(src->series, f);

    *why = NULL;
    switch (ops->chart) {
    case TD_CHART_NONE_HANDSHAKE:
        *why = "no chart: the evidence is the handshake (the SYNs with ECN setup dropped, the retry without)";
        return NULL;
    case TD_CHART_NONE_BUDGET:
        *why = "no chart: the evidence is where the time went (the time budget below)";
        return NULL;
    case TD_CHART_HOLDS:
        return holds_chart(src, flow, chart_title(ops), why);
    case TD_CHART_EXCHANGES:
        return exchanges_chart(src, flow, chart_title(ops), why);
    default:
        break;
    }
    if (!ds) {
        *why = f ? "no chart: this flow's history was not kept (the report's memory budget was spent)"
                 : "no chart: the flow carried no data";
        return NULL;
    }
    if (ops->chart == TD_CHART_SIZES || ops->chart == TD_CHART_BLACKHOLE)
        return sizes_over_time(src, flow, sender, ds, ops, why);
    return flight_per_round(src, flow, sender, f, ds, ops, why);
}

/* Whether a flow has the host as an endpoint and was open during one of its silences. */
static bool open_during(const td_flow *flow, const td_addr *host, const GPtrArray *silences)
{
    if (!td_addr_equal(&flow->addr[0], host) && !td_addr_equal(&flow->addr[1], host))
        return false;
    for (guint i = 0; i < silences->len; i++) {
        const td_stall *stall = g_ptr_array_index(silences, i);
        if (flow->first_ns < stall->end_ns && flow->last_ns > stall->start_ns)
            return true;
    }
    return false;
}

static void add_row(td_chart *c, const td_flow *flow, const td_stall_hit *hit, int64_t zero)
{
    td_chart_row row = { g_strdup_printf("stream %u", flow->stream), seconds_since(flow->first_ns, zero),
                         seconds_since(flow->last_ns, zero), 0, -1, NULL };

    if (hit) {
        char waited[32];
        row.wait0 = seconds_since(hit->wait_start_ns, zero);
        row.wait1 = seconds_since(hit->wait_end_ns, zero);
        td_format_duration(hit->wait_end_ns - hit->wait_start_ns, waited, sizeof waited);
        row.wait_label = g_strdup_printf("waited %s", waited);
    }
    g_array_append_val(c->rows, row);
}

td_chart *td_chart_for_stall(const td_chart_source *src, const td_finding *finding)
{
    const td_stalls *stalls = td_engine_stalls(src->engine);
    td_chart *c = chart_new(TD_CHART_TIMELINE, NULL, "time since the first of these flows began");
    GPtrArray *silences = g_ptr_array_new(), *flows = g_ptr_array_new();
    int64_t zero = INT64_MAX;
    char address[64], silent[32];

    /* the silences the finding's flows waited in, each once */
    for (guint i = 0; i < finding->flows->len; i++) {
        const td_flow *flow = g_ptr_array_index(finding->flows, i);
        const td_stall_hit *hit = td_stalls_hit(stalls, flow->index);
        if (hit && !g_ptr_array_find(silences, td_stalls_at(stalls, hit->stall), NULL))
            g_ptr_array_add(silences, (gpointer)td_stalls_at(stalls, hit->stall));
        g_ptr_array_add(flows, (gpointer)flow);
    }
    /* then the host's other flows open meanwhile, which did not wait on it */
    for (guint i = 0; i < td_engine_flow_count(src->engine); i++) {
        const td_flow *flow = td_engine_flow_at(src->engine, i);
        if (!g_ptr_array_find(finding->flows, flow, NULL) && open_during(flow, finding->who, silences))
            g_ptr_array_add(flows, (gpointer)flow);
    }
    for (guint i = 0; i < flows->len && i < TIMELINE_ROWS; i++)
        zero = MIN(zero, ((const td_flow *)g_ptr_array_index(flows, i))->first_ns);
    for (guint i = 0; i < flows->len && i < TIMELINE_ROWS; i++) {
        const td_flow *flow = g_ptr_array_index(flows, i);
        add_row(c, flow, i < finding->flows->len ? td_stalls_hit(stalls, flow->index) : NULL, zero);
    }
    for (guint i = 0; i < silences->len; i++) {
        const td_stall *stall = g_ptr_array_index(silences, i);
        td_chart_span span = { seconds_since(stall->start_ns, zero), seconds_since(stall->end_ns, zero), NULL };
        g_array_append_val(c->silences, span);
    }
    td_addr_format(finding->who, address, sizeof address);
    if (silences->len == 1) {
        const td_stall *stall = g_ptr_array_index(silences, 0);
        td_format_duration(stall->end_ns - stall->start_ns, silent, sizeof silent);
        c->title = g_strdup_printf("Flows of host %s: it sent nothing on any flow for %s (shaded)", address, silent);
    } else {
        c->title = g_strdup_printf("Flows of host %s: %u silences on every flow (shaded)", address, silences->len);
    }
    if (flows->len > TIMELINE_ROWS)
        retitle(c, g_strdup_printf("%s; the first %d of %u flows (%u of the finding)", c->title, TIMELINE_ROWS,
                                   flows->len, finding->flows->len));
    g_ptr_array_free(silences, TRUE);
    g_ptr_array_free(flows, TRUE);
    return c;
}

/* A part's share as the legend reads it: whole percents, never 0% or 100% for a part
 * that is neither all nor nothing. */
static void share_text(double share, char *buf, size_t size)
{
    if (share < 0.01)
        g_snprintf(buf, size, "<1%%");
    else if (share > 0.99 && share < 1)
        g_snprintf(buf, size, ">99%%");
    else
        g_snprintf(buf, size, "%.0f%%", share * 100);
}

/* The part's words are its field's label and description (field_table.c), so that
 * the bar names a part as the tree, the records and docs/fields.md do. */
static void describe_segment(td_budget_segment *seg)
{
    const td_field_def *field = &td_fields[td_time_part_field(seg->part)];
    bool idle = seg->part == TD_TIME_IDLE || seg->part == TD_TIME_THINK;
    char took[32], share[16];

    td_format_duration(seg->ns, took, sizeof took);
    share_text(seg->share, share, sizeof share);
    seg->words = field->label;
    seg->label = g_strdup_printf("%s %s", seg->words, took);
    seg->key = g_strdup_printf("%s (%s)%s", seg->label, share, idle ? ", never counted as lost" : "");
    seg->hover = g_strdup_printf("%s: %s, %s of the duration. %s%s", seg->words, took, share, field->description,
                                 idle ? ". It is never counted as lost" : "");
}

td_budget_bar *td_budget_bar_of(const td_time_budget *budget)
{
    td_budget_bar *bar = g_new0(td_budget_bar, 1);
    int64_t before = 0;
    char duration[32], active[32];

    bar->segments = g_array_new(FALSE, FALSE, sizeof(td_budget_segment));
    bar->duration_ns = td_time_budget_duration(budget);
    bar->active_ns = td_time_budget_active(budget);
    td_format_duration(bar->duration_ns, duration, sizeof duration);
    td_format_duration(bar->active_ns, active, sizeof active);
    bar->title = g_strdup_printf("Where the time went: duration %s, active %s (the parts in total, not in time "
                                 "order)", duration, active);
    for (int p = 0; p < TD_TIME_PARTS && bar->duration_ns > 0; p++) {
        td_budget_segment seg = { .part = (td_time_part)p, .ns = td_time_budget_part(budget, (td_time_part)p) };
        if (seg.ns <= 0)
            continue;
        /* each edge from the time before it, so that the segments tile the bar exactly */
        seg.share = (double)seg.ns / (double)bar->duration_ns;
        seg.x = TD_BUDGET_BAR_WIDTH * ((double)before / (double)bar->duration_ns);
        before += seg.ns;
        seg.width = TD_BUDGET_BAR_WIDTH * ((double)before / (double)bar->duration_ns) - seg.x;
        describe_segment(&seg);
        g_array_append_val(bar->segments, seg);
    }
    return bar;
}

void td_budget_bar_free(td_budget_bar *bar)
{
    if (!bar)
        return;
    for (guint i = 0; i < bar->segments->len; i++) {
        td_budget_segment *seg = &g_array_index(bar->segments, td_budget_segment, i);
        g_free(seg->label);
        g_free(seg->key);
        g_free(seg->hover);
    }
    g_array_free(bar->segments, TRUE);
    g_free(bar->title);
    g_free(bar);
}
