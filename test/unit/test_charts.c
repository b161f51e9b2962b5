/* The HTML report's charts against the engine's per-round data, on simulated
 * downloads whose round trips are known by construction: the illumos plateau at
 * 5 x MSS under a 1 MB window, and a window collapsing to 2 segments under marks;
 * the history's bounds and decimation; the time budget bar of budgets built by
 * hand; the escaping of hostile text. */
#include <glib.h>
#include <string.h>
#include "charts.h"
#include "svg.h"
#include "download_sim.h"
#include "escape.h"

typedef struct charted {
    sim s;
    td_series_book *book;
    td_diagnoses *diagnoses;
} charted;

static void record(charted *c)
{
    c->book = td_series_book_new();
    td_engine_keep_history(c->s.engine, c->book);
}

static td_chart *chart_of(charted *c)
{
    td_chart_source src = { c->s.engine, NULL, c->book };
    const char *why = NULL;
    td_chart *chart;

    c->diagnoses = td_diagnose(c->s.engine, NULL);
    src.diagnoses = c->diagnoses;
    chart = td_chart_for_flow(&src, c->s.flow, &why);
    g_assert_null(why);
    g_assert_nonnull(chart);
    return chart;
}

/* The chart cause calls for, of the server's data, whatever the diagnosis says. */
static td_chart *chart_as(charted *c, td_cause cause)
{
    td_chart_source src = { c->s.engine, NULL, c->book };
    const char *why = NULL;
    td_chart *chart;

    if (!c->diagnoses)
        c->diagnoses = td_diagnose(c->s.engine, NULL);
    src.diagnoses = c->diagnoses;
    chart = td_chart_for_cause(&src, c->s.flow, td_flow_server(c->s.flow), cause, &why);
    g_assert_null(why);
    g_assert_nonnull(chart);
    return chart;
}

static void charted_free(charted *c)
{
    td_diagnoses_free(c->diagnoses);
    td_engine_free(c->s.engine);
    td_series_book_free(c->book);
}

static const td_chart_line *line_of(const td_chart *chart, const char *cls)
{
    for (guint i = 0; i < chart->lines->len; i++)
        if (strcmp(g_array_index(chart->lines, td_chart_line, i).cls, cls) == 0)
            return &g_array_index(chart->lines, td_chart_line, i);
    return NULL;
}

static const td_chart_level *level_of(const td_chart *chart, const char *cls)
{
    for (guint i = 0; i < chart->levels->len; i++)
        if (strcmp(g_array_index(chart->levels, td_chart_level, i).cls, cls) == 0)
            return &g_array_index(chart->levels, td_chart_level, i);
    return NULL;
}

static double y_at(const td_chart_line *line, guint i)
{
    return g_array_index(line->points, td_xy, i).y;
}

static unsigned marks_of(const td_chart *chart, td_mark_kind kind)
{
    unsigned n = 0;

    for (guint i = 0; i < chart->marks->len; i++)
        if (g_array_index(chart->marks, td_chart_mark, i).kind == kind)
            n += g_array_index(chart->marks, td_chart_mark, i).count;
    return n;
}

/* tcpdiag issue 6: slow start of 10, 20 and 40 segments, one retransmission, then
 * the sender holds 5 segments per round trip for 100 round trips under a 1 MB
 * window: 576 segments of 1448 bytes, the retransmission included. */
static void illumos(charted *c)
{
    sim_start(&c->s, false, 7, 1 << 20);
    record(c);
    sim_round(&c->s, 10, false);
    sim_round(&c->s, 20, false);
    sim_round(&c->s, 40, false);
    sim_round(&c->s, 5, true);
    for (int i = 0; i < 100; i++)
        sim_round(&c->s, 5, false);
    sim_finish(&c->s);
}

/* The illumos download as the flight against the window, with the plateau. */
static void test_illumos_plateau(void)
{
    charted c = { 0 };
    illumos(&c);

    td_chart *chart = chart_of(&c);
    const td_chart_line *flight = line_of(chart, "flight"), *window = line_of(chart, "window");
    g_assert_nonnull(flight);
    g_assert_nonnull(window);
    /* one point per round trip (no merging below TD_CHART_POINTS), the last 100 at 5 MSS */
    g_assert_cmpuint(flight->points->len, >=, 100);
    g_assert_cmpuint(flight->points->len, <=, 105);
    for (guint i = flight->points->len - 100; i < flight->points->len; i++)
        g_assert_cmpfloat(y_at(flight, i), ==, 5.0 * MSS);
    g_assert_cmpfloat(y_at(flight, 0), ==, 10.0 * MSS);
    g_assert_cmpfloat(y_at(flight, 1), ==, 20.0 * MSS);
    g_assert_cmpfloat(y_at(flight, 2), ==, 40.0 * MSS);
    g_assert_null(line_of(chart, "low"));
    g_assert_nonnull(level_of(chart, "plateau"));
    g_assert_cmpfloat(level_of(chart, "plateau")->y, ==, 5.0 * MSS);
    /* the window offered, all along, far above: bytes on a log scale */
    for (guint i = 0; i < window->points->len; i++)
        g_assert_cmpfloat(y_at(window, i), ==, 1 << 20);
    g_assert_true(chart->y_log);
    g_assert_cmpuint(marks_of(chart, TD_MARK_LOSS), ==, 1);
    g_assert_cmpuint(marks_of(chart, TD_MARK_CWR), ==, 0);
    /* time goes forward, from the flow's first packet */
    for (guint i = 1; i < flight->points->len; i++)
        g_assert_cmpfloat(g_array_index(flight->points, td_xy, i).x, >, g_array_index(flight->points, td_xy, i - 1).x);

    GString *svg = g_string_new("");
    td_chart_svg(chart, svg);
    g_assert_true(g_str_has_prefix(svg->str, "<svg "));
    g_assert_nonnull(strstr(svg->str, "<polyline class=\"series flight\""));
    g_assert_null(strstr(svg->str, "http"));
    g_string_free(svg, TRUE);
    td_chart_free(chart);
    charted_free(&c);
}

/* test_congestion's collapse: classic ECN, a CE mark in every round trip and a cut
 * for each, 40 28 20 14 10 7 5 4 3 segments, then 2 segments for 20 round trips. */
static void test_collapse_floor(void)
{
    static const unsigned spiral[] = { 40, 28, 20, 14, 10, 7, 5, 4, 3 };
    charted c = { 0 };
    sim_start_ts(&c.s, false, 7, 1 << 22, true);
    record(&c);
    sim_handshake(&c.s, SIM_CLASSIC);
    sim_round(&c.s, 10, false);
    sim_round(&c.s, 20, false);
    for (unsigned i = 0; i < G_N_ELEMENTS(spiral); i++)
        sim_round_marked(&c.s, spiral[i], false, 1);
    for (int i = 0; i < 20; i++)
        sim_round_marked(&c.s, 2, false, 1);
    sim_finish(&c.s);

    td_chart *chart = chart_of(&c);
    const td_chart_line *flight = line_of(chart, "flight");
    g_assert_nonnull(flight);
    /* the rounds as sent: slow start, the spiral, the floor, each level in order (a cut
       shows one round trip late: the round that carries it still has the old flight's
       segments outstanding); nothing below 2 segments */
    static const unsigned levels[] = { 10, 20, 40, 28, 20, 14, 10, 7, 5, 4, 3, 2 };
    guint level = 0;
    for (guint i = 0; i < flight->points->len; i++) {
        if (level + 1 < G_N_ELEMENTS(levels) && y_at(flight, i) == (double)levels[level + 1] * MSS)
            level++;
        g_assert_cmpfloat(y_at(flight, i), ==, (double)levels[level] * MSS);
    }
    g_assert_cmpuint(level, ==, G_N_ELEMENTS(levels) - 1);
    for (guint i = flight->points->len - 19; i < flight->points->len; i++)
        g_assert_cmpfloat(y_at(flight, i), ==, 2.0 * MSS);
    g_assert_nonnull(level_of(chart, "floor"));
    g_assert_cmpfloat(level_of(chart, "floor")->y, ==, 2.0 * MSS);
    /* no other flow of the client: the reference is the flow's own level before its
       first cut, the 40 segments of the first marked round */
    g_assert_nonnull(level_of(chart, "reference"));
    g_assert_cmpfloat(level_of(chart, "reference")->y, ==, 40.0 * MSS);
    /* a mark in each of 29 round trips, each answered by a CWR; the marks add up to the
       congestion analysis' counts (the capture is the sender's: it sees no CE) */
    const td_cc *cc = &server_flight(&c.s)->cc;
    g_assert_cmpuint(marks_of(chart, TD_MARK_CWR), >=, 20);
    g_assert_cmpuint(marks_of(chart, TD_MARK_CWR), ==, cc->cwr);
    g_assert_cmpuint(marks_of(chart, TD_MARK_ECE), ==, cc->ece_episodes);
    g_assert_cmpuint(marks_of(chart, TD_MARK_CE), ==, 0);
    g_assert_cmpuint(marks_of(chart, TD_MARK_LOSS), ==, 0);
    g_assert_false(chart->y_log);
    td_chart_free(chart);
    charted_free(&c);
}

/* No window scaling in the handshake, a 64 KiB window: slow start of 10, 20 and 40
 * segments, then 45 segments (65,160 bytes) per round trip, all the window holds. The
 * chart is the flight against the 64 KiB ceiling. */
static void test_missing_options_ceiling(void)
{
    charted c = { 0 };
    sim_start(&c.s, false, -1, 65535);
    record(&c);
    sim_round(&c.s, 10, false);
    sim_round(&c.s, 20, false);
    sim_round(&c.s, 40, false);
    for (int i = 0; i < 30; i++)
        sim_round(&c.s, 45, false);
    sim_finish(&c.s);

    td_chart *chart = chart_as(&c, TD_CAUSE_MISSING_OPTIONS);
    const td_chart_line *flight = line_of(chart, "flight"), *window = line_of(chart, "window");
    g_assert_nonnull(level_of(chart, "ceiling"));
    g_assert_cmpfloat(level_of(chart, "ceiling")->y, ==, 65535);
    g_assert_cmpfloat(y_at(flight, 0), ==, 10.0 * MSS);
    g_assert_cmpfloat(y_at(flight, 1), ==, 20.0 * MSS);
    g_assert_cmpfloat(y_at(flight, 2), ==, 40.0 * MSS);
    g_assert_cmpuint(flight->points->len, >=, 30);
    for (guint i = flight->points->len - 29; i < flight->points->len; i++)
        g_assert_cmpfloat(y_at(flight, i), ==, 45.0 * MSS);
    g_assert_nonnull(window);
    for (guint i = 0; i < window->points->len; i++)
        g_assert_cmpfloat(y_at(window, i), ==, 65535);
    g_assert_false(chart->y_log);
    td_chart_free(chart);
    charted_free(&c);
}

/* The illumos download as segment sizes: every one of its 576 segments carries 1448
 * bytes (the sim sends nothing else), so the line and the MSS coincide; no other flow
 * of the sender offloads. */
static void test_offload_sizes(void)
{
    charted c = { 0 };
    illumos(&c);

    td_chart *chart = chart_as(&c, TD_CAUSE_OFFLOAD_CAPPED);
    const td_chart_line *sizes = line_of(chart, "sizes");
    const td_dir_series *ds = td_series_of(c.book, server_flight(&c.s));
    uint32_t samples = 0;
    g_assert_nonnull(sizes);
    g_assert_cmpuint(sizes->points->len, >, 0);
    g_assert_cmpuint(sizes->points->len, <=, TD_CHART_POINTS);
    for (guint i = 0; i < sizes->points->len; i++)
        g_assert_cmpfloat(y_at(sizes, i), ==, MSS);
    for (uint32_t i = 0; i < td_series_len(&ds->sizes); i++)
        samples += td_series_at(&ds->sizes, i).samples;
    g_assert_cmpuint(samples, ==, 10 + 20 + 40 + (1 + 5) + 100 * 5);
    g_assert_null(line_of(chart, "low"));
    g_assert_cmpfloat(level_of(chart, "mss")->y, ==, MSS);
    g_assert_null(level_of(chart, "reference"));
    td_chart_free(chart);
    charted_free(&c);
}

/* Three losses, each repaired by one retransmission a dozen round trips apart: the
 * path-loss chart marks each recovery where it starts. */
static void test_path_loss_marks(void)
{
    charted c = { 0 };
    sim_start(&c.s, false, 7, 1 << 22);
    record(&c);
    sim_round(&c.s, 10, false);
    sim_round(&c.s, 20, false);
    for (int loss = 0; loss < 3; loss++) {
        sim_round(&c.s, 20, true);
        for (int i = 0; i < 12; i++)
            sim_round(&c.s, 21 + i, false);
    }
    sim_finish(&c.s);

    td_chart *chart = chart_as(&c, TD_CAUSE_PATH_LOSS);
    g_assert_cmpuint(server_flight(&c.s)->cc.losses, ==, 3);
    g_assert_cmpuint(marks_of(chart, TD_MARK_LOSS), ==, 3);
    g_assert_cmpuint(marks_of(chart, TD_MARK_CWR), ==, 0);
    g_assert_null(level_of(chart, "reference"));        /* no ECN: nothing to compare with */
    td_chart_free(chart);
    charted_free(&c);
}

/* Without a book the engine keeps no history, and a chart says why it has none. */
static void test_no_history_when_off(void)
{
    sim s;
    sim_start(&s, false, 7, 1 << 20);
    for (int i = 0; i < 20; i++)
        sim_round(&s, 5, false);
    sim_finish(&s);
    g_assert_null(td_series_of(NULL, server_flight(&s)));

    td_diagnoses *d = td_diagnose(s.engine, NULL);
    td_chart_source src = { s.engine, d, NULL };
    const char *why = NULL;
    g_assert_null(td_chart_for_flow(&src, s.flow, &why));
    g_assert_nonnull(why);
    td_diagnoses_free(d);
    td_engine_free(s.engine);
}

/* A series longer than TD_SERIES_POINTS halves: it covers every sample, each point's
 * smallest and largest are those of its samples, and the chart merges again to
 * TD_CHART_POINTS without losing either. */
static void test_series_decimation(void)
{
    td_series_book *book = td_series_book_new();
    int direction;          /* a key, as a td_flight is */
    enum { ROUNDS = 5000 };

    for (uint32_t i = 0; i < ROUNDS; i++) {
        /* a sawtooth from 10 to 59 segments, and one round at 1 segment; a CWR each */
        td_round_sample sample = { .flight = i == 3333 ? MSS : (10 + i % 50) * MSS, .cwr = i + 1 };
        td_series_round(book, &direction, (int64_t)i * 20 * MS, &sample);
    }
    const td_dir_series *ds = td_series_of(book, &direction);
    g_assert_nonnull(ds);
    uint32_t n = td_series_len(&ds->rounds), samples = 0, lo = UINT32_MAX, hi = 0, cwr = 0;
    g_assert_cmpuint(n, <=, TD_SERIES_POINTS + 1);
    g_assert_cmpuint(n, >, TD_SERIES_POINTS / 2);
    for (uint32_t i = 0; i < n; i++) {
        td_series_point p = td_series_at(&ds->rounds, i);
        samples += p.samples;
        cwr += p.cwr;
        lo = MIN(lo, p.lo);
        hi = MAX(hi, p.hi);
        if (i)
            g_assert_cmpint(p.t_ns, >, td_series_at(&ds->rounds, i - 1).t_ns);
    }
    g_assert_cmpuint(samples, ==, ROUNDS);
    g_assert_cmpuint(cwr, ==, ROUNDS);
    g_assert_cmpuint(lo, ==, MSS);
    g_assert_cmpuint(hi, ==, 59 * MSS);
    g_assert_cmpint(td_series_at(&ds->rounds, n - 1).t_ns, ==, (int64_t)(ROUNDS - 1) * 20 * MS);
    td_series_book_free(book);
}

/* Text from outside cannot open an element or an attribute. */
/* How often `what` occurs in text. */
static unsigned count_of(const char *text, const char *what)
{
    unsigned n = 0;

    for (const char *at = strstr(text, what); at; at = strstr(at + 1, what))
        n++;
    return n;
}

/* A chart model built by hand, as the SVG writer's tests hand it one: empty. */
static td_chart *hand_chart(td_chart_kind kind, const char *title)
{
    td_chart *c = g_new0(td_chart, 1);

    c->kind = kind;
    c->title = g_strdup(title);
    c->x_title = "time";
    c->lines = g_array_new(FALSE, FALSE, sizeof(td_chart_line));
    c->levels = g_array_new(FALSE, FALSE, sizeof(td_chart_level));
    c->marks = g_array_new(FALSE, FALSE, sizeof(td_chart_mark));
    c->rows = g_array_new(FALSE, FALSE, sizeof(td_chart_row));
    c->silences = g_array_new(FALSE, FALSE, sizeof(td_chart_span));
    return c;
}

/* A flow's exchanges: a request opens one, the next request or the flow's first
 * FIN ends it with the transfer time charged meanwhile; a FIN with none open, or of
 * a flow that made no request, records nothing (and keeps no history for it). */
static void test_series_exchanges(void)
{
    td_series_book *book = td_series_book_new();
    int flow, silent;       /* keys, as a flow's td_time_budget is */

    td_series_closing(book, &silent, 10 * MS, 5 * MS);
    g_assert_null(td_series_of(book, &silent));
    td_series_request(book, &flow, 100 * MS, 30 * MS);
    td_series_request(book, &flow, 300 * MS, 230 * MS);
    td_series_closing(book, &flow, 600 * MS, 480 * MS);
    td_series_closing(book, &flow, 700 * MS, 580 * MS);
    const td_dir_series *ds = td_series_of(book, &flow);
    g_assert_cmpuint(td_series_len(&ds->exchanges), ==, 2);
    g_assert_cmpuint(td_series_at(&ds->exchanges, 0).hi, ==, 200000);      /* µs */
    g_assert_cmpint(td_series_at(&ds->exchanges, 0).t_ns, ==, 300 * MS);
    g_assert_cmpuint(td_series_at(&ds->exchanges, 1).hi, ==, 250000);
    g_assert_cmpint(td_series_at(&ds->exchanges, 1).t_ns, ==, 600 * MS);
    td_series_hold(book, &flow, 650 * MS, 63 * MS);
    g_assert_cmpuint(td_series_len(&ds->holds), ==, 1);
    g_assert_cmpuint(td_series_at(&ds->holds, 0).lo, ==, 63000);
    td_series_book_free(book);
}

/* A chart of durations: ticks in ms, a dot on each point of an events' line, another
 * flow's life shaded behind with its (escaped) label in the legend. */
static void test_svg_durations(void)
{
    td_chart *c = hand_chart(TD_CHART_XY, "holds");
    td_chart_line held = { "holds", g_strdup("holds"), g_array_new(FALSE, FALSE, sizeof(td_xy)), true };
    td_chart_span other = { 0.5, 9, g_strdup("stream <0>") };
    td_xy points[] = { { 1, 63000 }, { 2, 64000 }, { 3, 62000 } };
    GString *svg = g_string_new("");

    c->y_title = "time held";
    c->y_us = true;
    g_array_append_vals(held.points, points, G_N_ELEMENTS(points));
    g_array_append_val(c->lines, held);
    g_array_append_val(c->silences, other);
    td_chart_svg(c, svg);
    g_assert_nonnull(strstr(svg->str, ">60 ms</text>"));
    g_assert_null(strstr(svg->str, " kB</text>"));
    g_assert_cmpuint(count_of(svg->str, "<path class=\"dots holds\""), ==, 1);
    g_assert_cmpuint(count_of(svg->str, "a2 2 0 1 0 4 0"), ==, 3);
    g_assert_cmpuint(count_of(svg->str, "<rect class=\"span\""), ==, 1);
    g_assert_cmpuint(count_of(svg->str, "stream &lt;0&gt;"), ==, 2);      /* its hover text and the legend */
    g_assert_null(strstr(svg->str, "<0>"));
    g_string_free(svg, TRUE);
    td_chart_free(c);
}

/* The SVG writer maps a model it is handed, whoever built it: a timeline of two
 * flows, one of which waited through the host's silence, every text escaped. */
static void test_svg_timeline(void)
{
    td_chart *c = hand_chart(TD_CHART_TIMELINE, "stall of <host>");
    td_chart_row waited = { g_strdup("a & b"), 0, 10, 2, 7, g_strdup("waited 5 s") };
    td_chart_row idle = { g_strdup("c"), 1, 4, 1, 0, NULL };
    td_chart_span silence = { 2, 6, NULL };
    GString *svg = g_string_new("");

    g_array_append_val(c->rows, waited);
    g_array_append_val(c->rows, idle);
    g_array_append_val(c->silences, silence);
    td_chart_svg(c, svg);
    g_assert_true(g_str_has_prefix(svg->str, "<svg class=\"chart\""));
    g_assert_true(g_str_has_suffix(svg->str, "</svg>"));
    g_assert_nonnull(strstr(svg->str, "<title>stall of &lt;host&gt;</title>"));
    g_assert_nonnull(strstr(svg->str, ">a &amp; b</text>"));
    g_assert_cmpuint(count_of(svg->str, "<rect class=\"silence\""), ==, 1);
    g_assert_cmpuint(count_of(svg->str, "<line class=\"run\""), ==, 2);
    g_assert_cmpuint(count_of(svg->str, "<line class=\"wait\""), ==, 1);   /* the idle flow has none */
    g_string_free(svg, TRUE);
    td_chart_free(c);
}

static const td_budget_segment *segment_of(const td_budget_bar *bar, guint i)
{
    return &g_array_index(bar->segments, td_budget_segment, i);
}

/* A flow of 6.001 s: a 0.5 s handshake, the server thinking 3 s, 1.5 s of transfer,
 * a 1 ms stall and 1 s idle before its FIN; no client wait. */
static void test_budget_bar_shares(void)
{
    static const int64_t ms = 1000000;
    static const td_time_part parts[] = { TD_TIME_SETUP, TD_TIME_SERVER_WAIT, TD_TIME_TRANSFER, TD_TIME_STALL,
                                          TD_TIME_IDLE };
    static const int64_t took[] = { 500 * ms, 3000 * ms, 1500 * ms, 1 * ms, 1000 * ms };
    td_time_budget b = { 0 };
    td_budget_bar *bar;
    double x = 0;

    for (guint i = 0; i < G_N_ELEMENTS(parts); i++)
        b.part_ns[parts[i]] = took[i];
    bar = td_budget_bar_of(&b);
    g_assert_cmpint(bar->duration_ns, ==, 6001 * ms);
    g_assert_cmpint(bar->active_ns, ==, 5001 * ms);
    g_assert_nonnull(strstr(bar->title, "duration 6.00 s, active 5.00 s"));
    /* a segment per part that took time, in the budget's order: no client wait */
    g_assert_cmpuint(bar->segments->len, ==, G_N_ELEMENTS(parts));
    for (guint i = 0; i < bar->segments->len; i++) {
        const td_budget_segment *seg = segment_of(bar, i);
        g_assert_cmpint(seg->part, ==, parts[i]);
        g_assert_cmpint(seg->ns, ==, took[i]);
        g_assert_cmpfloat_with_epsilon(seg->share, took[i] / (6001.0 * ms), 1e-12);
        /* proportional, each starting where the one before ended */
        g_assert_cmpfloat_with_epsilon(seg->width, TD_BUDGET_BAR_WIDTH * took[i] / (6001.0 * ms), 1e-9);
        g_assert_cmpfloat_with_epsilon(seg->x, x, 1e-9);
        x += seg->width;
    }
    g_assert_cmpfloat_with_epsilon(x, TD_BUDGET_BAR_WIDTH, 1e-9);
    g_assert_cmpfloat_with_epsilon(segment_of(bar, 1)->width, 2 * segment_of(bar, 2)->width, 1e-9);
    /* the field table's words, the project's durations */
    g_assert_cmpstr(segment_of(bar, 1)->label, ==, "Server wait 3.00 s");
    g_assert_cmpstr(segment_of(bar, 1)->key, ==, "Server wait 3.00 s (50%)");
    g_assert_cmpstr(segment_of(bar, 3)->label, ==, "Stall 1.000 ms");
    g_assert_cmpstr(segment_of(bar, 3)->key, ==, "Stall 1.000 ms (<1%)");
    g_assert_cmpstr(segment_of(bar, 4)->key, ==, "Idle 1.00 s (17%), never counted as lost");
    g_assert_true(g_str_has_prefix(segment_of(bar, 1)->hover, "Server wait: 3.00 s, 50% of the duration. The server"));
    td_budget_bar_free(bar);
}

/* A flow of one packet has no duration: an empty bar, nothing divided by 0. */
static void test_budget_bar_empty(void)
{
    td_time_budget b = { 0 };
    td_budget_bar *bar = td_budget_bar_of(&b);
    GString *svg = g_string_new("");

    g_assert_cmpint(bar->duration_ns, ==, 0);
    g_assert_cmpuint(bar->segments->len, ==, 0);
    g_assert_nonnull(strstr(bar->title, "duration 0.000 ms, active 0.000 ms"));
    td_budget_bar_svg(bar, svg);
    g_assert_true(g_str_has_prefix(svg->str, "<svg class=\"budget\""));
    g_assert_null(strstr(svg->str, "nan"));
    g_assert_null(strstr(svg->str, "inf"));
    g_assert_cmpuint(count_of(svg->str, "<g class=\"segment\""), ==, 0);
    g_string_free(svg, TRUE);
    td_budget_bar_free(bar);
}

/* The bar as SVG: a group per segment carrying its part and exact ns, its hover text;
 * a label where it fits (the 1 ms stall is a fraction of a unit wide); idle hatched. */
static void test_budget_bar_svg(void)
{
    td_time_budget b = { 0 };
    td_budget_bar *bar;
    GString *svg = g_string_new("");

    b.part_ns[TD_TIME_TRANSFER] = 4000000000;
    b.part_ns[TD_TIME_STALL] = 1000000;
    b.part_ns[TD_TIME_IDLE] = 2000000000;
    bar = td_budget_bar_of(&b);
    td_budget_bar_svg(bar, svg);
    g_assert_true(g_str_has_suffix(svg->str, "</svg>"));
    g_assert_cmpuint(count_of(svg->str, "<g class=\"segment\""), ==, 3);
    g_assert_nonnull(strstr(svg->str, "<g class=\"segment\" data-part=\"transfer\" data-ns=\"4000000000\"><title>"
                                      "Transfer: 4.00 s, 67% of the duration."));
    g_assert_nonnull(strstr(svg->str, "data-part=\"stall\" data-ns=\"1000000\""));
    g_assert_nonnull(strstr(svg->str, "data-part=\"idle\" data-ns=\"2000000000\""));
    g_assert_nonnull(strstr(svg->str, ">Transfer 4.00 s</text>"));
    g_assert_nonnull(strstr(svg->str, ">Idle 2.00 s</text>"));
    g_assert_cmpuint(count_of(svg->str, "class=\"on-bar\""), ==, 2);      /* none on the stall */
    g_assert_cmpuint(count_of(svg->str, "<path class=\"hatch\""), ==, 2);  /* the idle segment and its key */
    g_assert_cmpuint(count_of(svg->str, "class=\"legend\""), ==, 3);
    g_string_free(svg, TRUE);
    td_budget_bar_free(bar);
}

static void test_escape(void)
{
    GString *out = g_string_new("");

    td_html_escape(out, "<img src=x onerror=alert(1)>.pcap \"q\" 'a' & \x01 \xff");
    g_assert_cmpstr(out->str, ==, "&lt;img src=x onerror=alert(1)&gt;.pcap &quot;q&quot; &#39;a&#39; &amp; "
                                  "\xef\xbf\xbd \xef\xbf\xbd");
    g_string_free(out, TRUE);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/report/illumos-plateau", test_illumos_plateau);
    g_test_add_func("/report/collapse-floor", test_collapse_floor);
    g_test_add_func("/report/missing-options-ceiling", test_missing_options_ceiling);
    g_test_add_func("/report/offload-sizes", test_offload_sizes);
    g_test_add_func("/report/path-loss-marks", test_path_loss_marks);
    g_test_add_func("/report/no-history-when-off", test_no_history_when_off);
    g_test_add_func("/report/series-decimation", test_series_decimation);
    g_test_add_func("/report/svg-timeline", test_svg_timeline);
    g_test_add_func("/report/series-exchanges", test_series_exchanges);
    g_test_add_func("/report/svg-durations", test_svg_durations);
    g_test_add_func("/report/budget-bar-shares", test_budget_bar_shares);
    g_test_add_func("/report/budget-bar-empty", test_budget_bar_empty);
    g_test_add_func("/report/budget-bar-svg", test_budget_bar_svg);
    g_test_add_func("/report/escape", test_escape);
    return g_test_run();
}
