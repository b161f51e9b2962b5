/* The HTML report's page and sections: the findings in the order text.c ranks
 * them, a chart per slow flow (charts.c), the figures read from the field table. */
#include "html.h"

#include <inttypes.h>
#include <string.h>

#include "advice.h"
#include "units.h"
#include "charts.h"
#include "svg.h"
#include "escape.h"
#include "field_label.h"
#include "field_values.h"
#include "text.h"

/* Light on screen and on paper; no font, image or anything else to fetch. */
static const char STYLE[] =
    "body{font:14px/1.45 system-ui,sans-serif;margin:1.5em auto;max-width:1100px;color:#1b1b1b;padding:0 1em}"
    "h1{font-size:1.5em}h2{font-size:1.25em;border-bottom:2px solid #ccc;padding-bottom:.2em;margin-top:2em;"
    "overflow-wrap:anywhere}h3{font-size:1.05em}"
    ".headline{font-size:1.1em}.headline b{font-weight:600}"
    ".error{color:#a40000}"
    "ol.findings>li{margin:1em 0 2em}.sentence{font-weight:600}"
    "dl.advice{display:grid;grid-template-columns:8em 1fr;gap:.2em .8em;margin:.4em 0}"
    "dl.advice dt{color:#555}dl.advice dd{margin:0}"
    "code{background:#f1f1f1;padding:0 .25em;border-radius:3px}"
    "figure.chart,figure.budget{margin:1em 0;padding:.6em;border:1px solid #ddd;border-radius:4px;"
    "break-inside:avoid}"
    "figcaption{font-size:.92em}figcaption ul{margin:.3em 0;padding-left:1.2em;columns:2}"
    ".field{color:#777;font-size:.85em}"
    "table{border-collapse:collapse;font-size:.92em}th,td{padding:.15em .6em;text-align:left;"
    "border-bottom:1px solid #e4e4e4}td.n{text-align:right;white-space:nowrap}"
    "svg.chart,svg.budget{max-width:100%;height:auto;font-size:11px}"
    "table.exchanges{margin-top:.5em;font-size:.85em}table.exchanges caption{text-align:left;color:#555}"
    "table.exchanges td{white-space:nowrap}"
    "svg .grid{stroke:#e6e6e6}svg .tick,svg .legend{fill:#444}svg .axis{fill:#222}"
    "svg .series{fill:none;stroke-width:1.6}svg .flight,svg line.flight{stroke:#1f5fbf}"
    "svg .low,svg line.low{stroke:#8fb3e8;stroke-width:1}svg .other,svg line.other{stroke:#2a8a2a;stroke-width:1;"
    "stroke-opacity:.6}"
    "svg .sizes,svg line.sizes{stroke:#6a3d9a}svg .window,svg line.window{stroke:#888;stroke-dasharray:5 3}"
    "svg .level{stroke-width:1.4;stroke-dasharray:7 4}svg .floor{stroke:#c00000}svg .plateau{stroke:#e07000}"
    "svg .reference{stroke:#2a8a2a}svg .ceiling{stroke:#c00000}svg .mss{stroke:#888}svg .cap{stroke:#e07000}"
    "svg .mark,svg .key{stroke-width:2}svg path.ce,svg line.ce{stroke:#f0a000}"
    "svg path.ece,svg line.ece{stroke:#8e44ad}svg path.cwr{fill:#1b1b1b}svg line.cwr{stroke:#1b1b1b}"
    "svg path.loss{stroke:#c00000;fill:none}svg line.loss{stroke:#c00000}"
    "svg .holds,svg line.holds,svg .exchanges,svg line.exchanges{stroke:#1f5fbf}svg path.dots{fill:#1f5fbf;"
    "stroke:none}svg .path{stroke:#2a8a2a}svg .late{stroke:#e07000}svg rect.span{fill:#fbe3c8}"
    "svg line.span{stroke:#fbe3c8;stroke-width:8}"
    "svg .silence{fill:#f4c7c3}svg .run{stroke:#1f5fbf;stroke-width:6}svg .wait{stroke:#c00000;stroke-width:6}"
    /* the time budget: Okabe and Ito's colours, told apart with colour-blindness, and
     * each part a step lighter or darker than the others, told apart in grey print;
     * a stall (nothing moving) near black, idle hatched grey */
    "svg .frame{fill:none;stroke:#999}svg .part{stroke:#fff;stroke-width:1}svg .on-bar{fill:#1b1b1b}"
    "svg .setup{fill:#009e73}svg .client_wait{fill:#f0e442}svg .server_wait{fill:#e69f00}"
    "svg .transfer{fill:#0072b2}svg .stall{fill:#333}svg rect.transfer+.on-bar,svg rect.stall+.on-bar{fill:#fff}"
    "svg .idle{fill:#f2f2f2}svg .think{fill:#e8eef8}svg .hatch{stroke:#999;stroke-width:1}"
    "@media print{body{max-width:none}}";

static void text(GString *out, const char *s)
{
    td_html_escape(out, s);
}

/* ---- figures, from the field table ---- */

typedef struct figure_value {
    td_field_value v;
    char *str;                  /* the string value's own copy */
} figure_value;

typedef struct figures {
    GArray *values;             /* figure_value */
    const td_field_id *wanted;
    size_t nwanted;
} figures;

static bool wants(void *ctx, td_field_id id)
{
    const figures *f = ctx;

    for (size_t i = 0; i < f->nwanted; i++)
        if (f->wanted[i] == id)
            return true;
    return false;
}

static void keep(void *ctx, const td_field_value *value)
{
    figures *f = ctx;
    figure_value fv = { *value, value->str ? g_strdup(value->str) : NULL };

    if (!wants(ctx, value->id))
        return;
    fv.v.str = fv.str;
    g_array_append_val(f->values, fv);
}

static void figures_read(figures *f, const td_html_capture *c, const td_flow *flow, const td_field_id *wanted,
                         size_t nwanted)
{
    td_flow_view view = { c->engine, c->diagnoses, c->hosts, true, 0 };
    td_field_sink sink = { .value = keep, .wants = wants, .ctx = f };

    f->values = g_array_new(FALSE, FALSE, sizeof(figure_value));
    f->wanted = wanted;
    f->nwanted = nwanted;
    td_flow_fields(&view, flow, &sink);
}

static void figures_free(figures *f)
{
    for (guint i = 0; i < f->values->len; i++)
        g_free(g_array_index(f->values, figure_value, i).str);
    g_array_free(f->values, TRUE);
}

/* The value of field id (of direction dir for per-direction fields), NULL when the
 * flow does not carry it. */
static const td_field_value *figure(const figures *f, td_field_id id, const char *dir)
{
    for (guint i = 0; i < f->values->len; i++) {
        const td_field_value *v = &g_array_index(f->values, figure_value, i).v;
        if (v->id == id && (!v->dir || !dir || strcmp(v->dir, dir) == 0))
            return v;
    }
    return NULL;
}

/* The value as people read it: the field's label (field_label.h) where its row has
 * one, durations in s or ms, bytes and counts whole, and the figure's unit after a
 * number that carries none of its own. */
static void readable(GString *out, const td_field_value *v, const char *unit)
{
    char buf[64];

    if (td_field_label_text(v, buf, sizeof buf)) {
        g_string_append(out, buf);
        if (td_fields[v->id].label_style != TD_LABEL_RATIO)
            return;     /* durations and rates read in their own units */
    } else {
        switch (td_field_kind_of(td_fields[v->id].type)) {
        case TD_FIELD_STRING:
            text(out, v->str);
            return;
        case TD_FIELD_UINT:
            g_string_append_printf(out, "%" PRIu64, v->uint);
            break;
        case TD_FIELD_TIME:
            td_format_duration(v->ns, buf, sizeof buf);
            g_string_append(out, buf);
            return;
        case TD_FIELD_DOUBLE:
            g_string_append_printf(out, "%.1f", v->dbl);
            break;
        }
    }
    if (unit)
        g_string_append_printf(out, " %s", unit);
}

/* The exact value, as a data attribute a test (or a script of the reader's own)
 * compares with the field: integers whole, doubles to 17 digits, times in ns. */
static void exact(GString *out, const td_field_value *v)
{
    switch (td_field_kind_of(td_fields[v->id].type)) {
    case TD_FIELD_STRING: text(out, v->str); break;
    case TD_FIELD_UINT:   g_string_append_printf(out, "%" PRIu64, v->uint); break;
    case TD_FIELD_DOUBLE: g_string_append_printf(out, "%.17g", v->dbl); break;
    case TD_FIELD_TIME:   g_string_append_printf(out, "%" PRId64, v->ns); break;
    }
}

/* One figure: its label, the value in units, the field's name beside it. */
static void figure_item(GString *out, const figures *f, td_field_id id, const char *dir, const char *unit)
{
    const td_field_value *v = figure(f, id, dir);
    const char *label = td_fields[id].label, *unit_in_label = strstr(label, " (B/s)");

    if (!v)
        return;
    g_string_append(out, "<li>");
    /* the label's unit is the field's; the value reads in bit/s or s */
    if (unit_in_label && (td_fields[id].label_style == TD_LABEL_RATE || td_fields[id].label_style == TD_LABEL_SECONDS))
        g_string_append_len(out, label, unit_in_label - label);
    else
        text(out, label);
    g_string_append(out, ": <span class=\"figure\" data-field=\"");
    text(out, td_fields[id].name);
    if (v->dir) {
        g_string_append(out, "\" data-dir=\"");
        text(out, v->dir);
    }
    g_string_append(out, "\" data-value=\"");
    exact(out, v);
    g_string_append(out, "\">");
    readable(out, v, unit);
    g_string_append(out, "</span> <span class=\"field\">");
    text(out, td_fields[id].name);
    g_string_append(out, "</span></li>");
}

/* The figures a cause's chart is read with, after the diagnosis' own (the cause's
 * td_cause_ops.figures). */
static const td_cause_figure DIAG_FIGURES[] = {
    { TD_F_DIAG_LOST, NULL }, { TD_F_DIAG_SLOWDOWN, "x" }, { TD_F_DIAG_FRAME, NULL },
    { TD_F_FLIGHT_THROUGHPUT, NULL }, { TD_F_FLIGHT_MSS, "B" },
};

static void figure_list(GString *out, const td_html_capture *c, const td_flow *flow, const td_diagnosis *diag)
{
    const td_figure_set *set = td_cause_ops_of((td_cause)diag->cause)->figures;
    size_t ncause = set ? set->n : 0, nwanted = 0;
    const td_cause_figure *by_cause = set ? set->items : NULL;
    td_field_id wanted[G_N_ELEMENTS(DIAG_FIGURES) + 16];
    const char *dir = diag->sender >= 0 ? td_flow_fields_dir(flow, diag->sender) : NULL;
    figures f;

    for (size_t i = 0; i < G_N_ELEMENTS(DIAG_FIGURES); i++)
        wanted[nwanted++] = DIAG_FIGURES[i].id;
    for (size_t i = 0; i < ncause && nwanted < G_N_ELEMENTS(wanted); i++)
        wanted[nwanted++] = by_cause[i].id;
    figures_read(&f, c, flow, wanted, nwanted);
    g_string_append_printf(out, "<ul class=\"figures\" data-stream=\"%u\">", flow->stream);
    for (size_t i = 0; i < G_N_ELEMENTS(DIAG_FIGURES); i++)
        figure_item(out, &f, DIAG_FIGURES[i].id, dir, DIAG_FIGURES[i].unit);
    for (size_t i = 0; i < ncause; i++)
        figure_item(out, &f, by_cause[i].id, dir, by_cause[i].unit);
    g_string_append(out, "</ul>");
    figures_free(&f);
}

/* ---- a capture's section ---- */

static void endpoints(GString *out, const td_flow *flow)
{
    char buf[128];

    td_text_endpoints(flow, buf, sizeof buf);
    text(out, buf);
}

/* A cell of an exchange's row: the value as people read it, its exact value and
 * field as data attributes, as a figure carries them. */
static void exchange_cell(void *ctx, const td_field_value *v)
{
    GString *out = ctx;

    g_string_append(out, "<td data-field=\"");
    text(out, td_fields[v->id].name);
    g_string_append(out, "\" data-value=\"");
    exact(out, v);
    g_string_append(out, "\">");
    readable(out, v, NULL);
    g_string_append(out, "</td>");
}

static void exchange_heading(void *ctx, const td_field_value *v)
{
    GString *out = ctx;

    g_string_append(out, "<th>");
    text(out, td_fields[v->id].label);
    g_string_append(out, "</th>");
}

/* The flow's slowest exchanges (series.h keeps them: the most active time first), a
 * row each with the field table's columns (tcpdiag.exchange.*); nothing for a flow
 * of one exchange, whose time is the bar's. */
static void slowest_exchanges(GString *out, const td_html_capture *c, const td_flow *flow)
{
    const td_dir_series *ds = td_series_of(c->series, td_flow_time_budget(flow));
    td_field_sink heading = { .value = exchange_heading, .ctx = out };
    td_field_sink cells = { .value = exchange_cell, .ctx = out };

    if (!ds || ds->slowest_n < 2)
        return;
    g_string_append_printf(out, "<table class=\"exchanges\" data-stream=\"%u\"><caption>Its slowest exchanges of "
                           "%" PRIu32 " (<code>tcpdiag.exchange.*</code>): in Wireshark, Go to Packet (Ctrl+G) its "
                           "first frame</caption><tr>", flow->stream, ds->exchanges_ended);
    td_exchange_fields(&ds->slowest[0], &heading);
    g_string_append(out, "</tr>");
    for (uint32_t i = 0; i < ds->slowest_n; i++) {
        g_string_append(out, "<tr>");
        td_exchange_fields(&ds->slowest[i], &cells);
        g_string_append(out, "</tr>");
    }
    g_string_append(out, "</table>");
}

/* Where the flow's time went: its time budget as a bar (charts.c, svg.c), with the
 * exact durations as data attributes, as the figures carry theirs; its slowest
 * exchanges under it. */
static void budget_figure(GString *out, const td_html_capture *c, const td_flow *flow)
{
    td_budget_bar *bar = td_budget_bar_of(td_flow_time_budget(flow));

    g_string_append_printf(out, "<figure class=\"budget\" data-stream=\"%u\" data-duration-ns=\"%" PRId64 "\" "
                           "data-active-ns=\"%" PRId64 "\">", flow->stream, bar->duration_ns, bar->active_ns);
    td_budget_bar_svg(bar, out);
    g_string_append_printf(out, "<figcaption><b>Stream %u</b> ", flow->stream);
    endpoints(out, flow);
    g_string_append(out, ": its time budget (<code>tcpdiag.time.*</code>; a part's hover text says what it "
                         "counts).</figcaption>");
    slowest_exchanges(out, c, flow);
    g_string_append(out, "</figure>");
    td_budget_bar_free(bar);
}

static void flow_chart(GString *out, const td_html_capture *c, const td_flow *flow)
{
    const td_diagnosis *diag = td_diagnosis_of(c->diagnoses, flow);
    td_chart_source src = { c->engine, c->diagnoses, c->series };
    const char *why = NULL;
    td_chart *chart = td_chart_for_flow(&src, flow, &why);

    g_string_append_printf(out, "<figure class=\"chart\" data-cause=\"%s\" data-stream=\"%u\">",
                           td_cause_name((td_cause)diag->cause), flow->stream);
    if (chart)
        td_chart_svg(chart, out);
    g_string_append_printf(out, "<figcaption><b>Stream %u</b> ", flow->stream);
    endpoints(out, flow);
    if (chart) {
        g_string_append(out, ": ");
        text(out, chart->title);
    } else if (why) {
        g_string_append(out, ": ");
        text(out, why);
    }
    g_string_append_printf(out, ". In Wireshark: <code>tcp.stream == %u</code>", flow->stream);
    if (diag->evidence_frame)
        g_string_append_printf(out, ", evidence at frame %u", diag->evidence_frame);
    g_string_append(out, ".");
    figure_list(out, c, flow, diag);
    g_string_append(out, "</figcaption></figure>");
    td_chart_free(chart);
    budget_figure(out, c, flow);
}

static gint by_lost(gconstpointer a, gconstpointer b, gpointer d)
{
    int64_t x = td_diagnosis_of(d, *(const td_flow *const *)a)->lost_ns;
    int64_t y = td_diagnosis_of(d, *(const td_flow *const *)b)->lost_ns;

    return x == y ? 0 : x < y ? 1 : -1;
}

/* A host stall's chart: the timeline of the host's flows, with the figures of the
 * flow that lost most. */
static void stall_timeline(GString *out, const td_html_capture *c, const td_finding *f)
{
    td_chart_source src = { c->engine, c->diagnoses, c->series };
    td_chart *chart = td_chart_for_stall(&src, f);

    g_string_append(out, "<figure class=\"chart\" data-cause=\"host-stall\">");
    td_chart_svg(chart, out);
    g_string_append(out, "<figcaption>");
    text(out, chart->title);
    g_string_append_printf(out, ". Red: each flow's wait, which includes its retransmission backoff after the "
                                "host came back. The figures of stream %u, which lost most:", f->worst->stream);
    figure_list(out, c, f->worst, td_diagnosis_of(c->diagnoses, f->worst));
    g_string_append(out, "</figcaption></figure>");
    td_chart_free(chart);
}

/* The finding's charts, the flows that lost most first, each with its time budget: a
 * host stall's flows share one timeline, and each has its bar under it. */
static void finding_charts(GString *out, const td_html_capture *c, const td_finding *f, unsigned *charts_left)
{
    GPtrArray *flows;
    guint n = f->flows->len, drawn = 0;
    bool stall = f->cause == TD_CAUSE_HOST_STALL;

    if (!*charts_left) {
        g_string_append_printf(out, "<p>No chart: the report draws %d a capture, for the findings that lost most.</p>",
                               TD_HTML_CHARTS_PER_CAPTURE);
        return;
    }
    flows = g_ptr_array_new();
    for (guint i = 0; i < n; i++)
        g_ptr_array_add(flows, g_ptr_array_index(f->flows, i));
    g_ptr_array_sort_with_data(flows, by_lost, (gpointer)c->diagnoses);
    if (stall) {
        stall_timeline(out, c, f);
        (*charts_left)--;
        for (; drawn < n && drawn < TD_HTML_CHARTS_PER_FINDING; drawn++)
            budget_figure(out, c, g_ptr_array_index(flows, drawn));
    } else {
        for (; drawn < n && drawn < TD_HTML_CHARTS_PER_FINDING && *charts_left; drawn++, (*charts_left)--)
            flow_chart(out, c, g_ptr_array_index(flows, drawn));
    }
    if (n > drawn) {
        g_string_append_printf(out, "<p>%u more flows of this finding, without a %s:", n - drawn,
                               stall ? "time budget bar" : "chart");
        for (guint i = drawn; i < n; i++)
            g_string_append_printf(out, " %u", ((const td_flow *)g_ptr_array_index(flows, i))->stream);
        g_string_append(out, " (tcp.stream).</p>");
    }
    g_ptr_array_free(flows, TRUE);
}

static void finding_item(GString *out, const td_html_capture *c, const td_finding *f, GPtrArray *rows,
                         unsigned rank, unsigned *charts_left)
{
    const td_diagnosis *worst = td_diagnosis_of(c->diagnoses, f->worst);
    GString *sentence = g_string_new("");
    char lost[64];
    guint n = f->flows->len;

    td_text_finding_sentence(c->diagnoses, c->hosts, f, sentence);
    g_string_append_printf(out, "<li class=\"finding\" id=\"capture-%u-finding-%u\" data-cause=\"%s\">"
                           "<p class=\"sentence\">", c->index, rank, td_cause_name(f->cause));
    text(out, sentence->str);
    g_string_append_printf(out, "</p><dl class=\"advice\"><dt>Cause</dt><dd>%s; %u flow%s", td_cause_name(f->cause), n,
                           n == 1 ? "" : "s");
    td_finding_lost_words(f, lost, sizeof lost);
    if (*lost)
        g_string_append_printf(out, ", %s", lost);
    g_string_append(out, "</dd><dt>Evidence</dt><dd><code>tcp.stream == ");
    g_string_append_printf(out, "%u</code>", f->worst->stream);
    if (worst->evidence_frame)
        g_string_append_printf(out, ", frame %u", worst->evidence_frame);
    g_string_append(out, "</dd><dt>Fix</dt><dd>");
    text(out, td_advice_fix(c->diagnoses, f->worst));
    g_string_append(out, "</dd><dt>Confirm</dt><dd>");
    text(out, td_advice_confirm(c->diagnoses, f->worst));
    g_string_append(out, "</dd></dl>");
    finding_charts(out, c, f, charts_left);
    g_string_append(out, "</li>");
    if (rows) {
        td_html_finding_row *row = g_new0(td_html_finding_row, 1);
        row->capture = g_strdup(c->name);
        row->index = c->index;
        row->cause = f->cause;
        row->sentence = g_string_free(g_steal_pointer(&sentence), FALSE);
        row->flows = n;
        row->lost_ns = f->lost_ns;
        g_ptr_array_add(rows, row);
    }
    if (sentence)
        g_string_free(sentence, TRUE);
}

/* Healthy flows, and those with no diagnosis, in one compact table each. */
static void flow_table(GString *out, const td_html_capture *c, bool healthy)
{
    static const td_field_id wanted[] = { TD_F_FLOW_DURATION, TD_F_FLOW_PACKETS, TD_F_DIAG_REASON };
    guint shown = 0;

    for (guint i = 0; i < td_engine_flow_count(c->engine); i++) {
        const td_flow *flow = td_engine_flow_at(c->engine, i);
        td_cause cause = (td_cause)td_diagnosis_of(c->diagnoses, flow)->cause;
        const td_field_value *v;
        figures f;
        if (healthy ? cause != TD_CAUSE_NONE : cause != TD_CAUSE_UNKNOWN)
            continue;
        if (!shown++)
            g_string_append_printf(out, "<h3>%s</h3><table class=\"%s\"><thead><tr><th>Stream</th><th>Flow</th>"
                                   "<th>Duration</th><th>Packets</th>%s</tr></thead><tbody>",
                                   healthy ? "Healthy flows" : "Flows without a diagnosis",
                                   healthy ? "healthy" : "undiagnosed", healthy ? "" : "<th>Why</th>");
        figures_read(&f, c, flow, wanted, G_N_ELEMENTS(wanted));
        g_string_append_printf(out, "<tr><td class=\"n\">%u</td><td>", flow->stream);
        endpoints(out, flow);
        g_string_append(out, "</td><td class=\"n\">");
        if ((v = figure(&f, TD_F_FLOW_DURATION, NULL)))
            readable(out, v, NULL);
        g_string_append(out, "</td><td class=\"n\">");
        if ((v = figure(&f, TD_F_FLOW_PACKETS, NULL)))
            readable(out, v, NULL);
        g_string_append(out, "</td>");
        if (!healthy) {
            g_string_append(out, "<td>");
            if ((v = figure(&f, TD_F_DIAG_REASON, NULL)))
                readable(out, v, NULL);
            g_string_append(out, "</td>");
        }
        g_string_append(out, "</tr>");
        figures_free(&f);
    }
    if (shown)
        g_string_append(out, "</tbody></table>");
}

void td_html_section(const td_html_capture *c, GString *out, GPtrArray *rows)
{
    GString *headline = g_string_new("");
    GPtrArray *findings;
    int64_t lost = 0;
    char buf[32];
    unsigned charts_left = TD_HTML_CHARTS_PER_CAPTURE;

    g_string_append_printf(out, "<section class=\"capture\" id=\"capture-%u\"><h2>", c->index);
    text(out, c->name);
    g_string_append(out, "</h2>");
    if (c->error) {
        g_string_append(out, "<p class=\"error\">");
        text(out, c->error);
        g_string_append(out, "</p>");
    }
    if (!c->engine || !c->diagnoses) {
        g_string_append(out, "</section>");
        g_string_free(headline, TRUE);
        return;
    }
    findings = td_findings(c->diagnoses);
    for (guint i = 0; i < findings->len; i++) {
        const td_finding *f = g_ptr_array_index(findings, i);
        if (td_cause_is_finding(f->cause) && f->lost_ns > 0)
            lost += f->lost_ns;
    }
    td_text_headline(c->diagnoses, headline);
    g_string_append(out, "<p class=\"headline\"><b>");
    text(out, headline->str);
    g_string_append(out, "</b>");
    if (lost > 0) {
        td_format_duration(lost, buf, sizeof buf);
        g_string_append_printf(out, "; <b>%s lost</b> against what the capture shows was possible", buf);
    }
    g_string_append(out, ".</p>");
    if (findings->len) {
        g_string_append(out, "<ol class=\"findings\">");
        for (guint i = 0; i < findings->len; i++)
            finding_item(out, c, g_ptr_array_index(findings, i), rows, i + 1, &charts_left);
        g_string_append(out, "</ol>");
    } else {
        g_string_append(out, "<p>No slow flow: every flow with a diagnosis is healthy.</p>");
    }
    flow_table(out, c, true);
    flow_table(out, c, false);
    g_string_append(out, "</section>");
    g_ptr_array_free(findings, TRUE);
    g_string_free(headline, TRUE);
}

void td_html_finding_row_free(gpointer data)
{
    td_html_finding_row *row = data;

    g_free(row->capture);
    g_free(row->sentence);
    g_free(row);
}

static gint rows_by_lost(gconstpointer a, gconstpointer b)
{
    const td_html_finding_row *x = *(td_html_finding_row *const *)a, *y = *(td_html_finding_row *const *)b;

    if (x->lost_ns != y->lost_ns)
        return x->lost_ns < y->lost_ns ? 1 : -1;
    return x->index == y->index ? 0 : x->index < y->index ? -1 : 1;
}

static void ranking(GString *out, GPtrArray *rows)
{
    char lost[32];

    g_ptr_array_sort(rows, rows_by_lost);
    g_string_append(out, "<section class=\"ranking\"><h2>Findings across the captures, by time lost</h2>");
    if (!rows->len) {
        g_string_append(out, "<p>No slow flow in any capture.</p></section>");
        return;
    }
    g_string_append(out, "<table><thead><tr><th>#</th><th>Capture</th><th>Cause</th><th>Flows</th>"
                          "<th>Time lost</th><th>Finding</th></tr></thead><tbody>");
    for (guint i = 0; i < rows->len; i++) {
        const td_html_finding_row *row = g_ptr_array_index(rows, i);
        g_string_append_printf(out, "<tr class=\"ranked\" data-cause=\"%s\" data-lost-ns=\"%" PRId64 "\">"
                               "<td class=\"n\">%u</td><td><a href=\"#capture-%u\">", td_cause_name(row->cause),
                               MAX(row->lost_ns, 0), i + 1, row->index);
        text(out, row->capture);
        g_string_append_printf(out, "</a></td><td>%s</td><td class=\"n\">%u</td><td class=\"n\">",
                               td_cause_name(row->cause), row->flows);
        if (row->lost_ns > 0) {
            td_format_duration(row->lost_ns, lost, sizeof lost);
            g_string_append(out, lost);
        }
        g_string_append(out, "</td><td>");
        text(out, row->sentence);
        g_string_append(out, "</td></tr>");
    }
    g_string_append(out, "</tbody></table></section>");
}

void td_html_page(GString *out, const char *title, GPtrArray *rows, guint captures, const GString *const *sections)
{
    g_string_append(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>tcpdiag: ");
    text(out, title);
    g_string_append_printf(out, "</title><style>%s</style></head><body><h1>Why these TCP transfers are slow</h1>"
                           "<p>tcpdiag's diagnosis of %u capture%s. Each finding names the flows to open in "
                           "Wireshark (<code>tcp.stream == N</code>) and the frame where its evidence starts; "
                           "each figure gives the tcpdiag field it comes from.</p>",
                           STYLE, captures, captures == 1 ? "" : "s");
    if (captures > 1 && rows)
        ranking(out, rows);
    for (guint i = 0; i < captures; i++)
        g_string_append_len(out, sections[i]->str, sections[i]->len);
    g_string_append(out, "</body></html>\n");
}
