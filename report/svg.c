/* A chart model (charts.h) drawn as an inline SVG element: axes, lines, levels,
 * marks, timeline rows and the legend, in a fixed geometry; and a time budget bar. */
#include "svg.h"

#include <math.h>
#include <string.h>

#include "escape.h"

/* The drawing's geometry, in SVG user units (CSS pixels at 100 %). */
enum { WIDTH = 760, HEIGHT = 300, LEFT = 70, RIGHT = 20, TOP = 20, BOTTOM = 40, ROW_HEIGHT = 18, LEGEND_ROW = 16 };
/* The radius of a line's dot on each of its points, when its points are events. */
enum { DOT = 2 };
/* About how wide a character of the charts' 11 px text is, in user units. */
enum { CHAR_WIDTH = 6 };
/* The budget bar's: the title above, the bar, a legend of three columns below, and
 * idle time's hatching (a line every HATCH user units). */
enum { BAR_LEFT = (WIDTH - TD_BUDGET_BAR_WIDTH) / 2, BAR_TOP = 22, BAR_HEIGHT = 26,
       BAR_LEGEND_TOP = BAR_TOP + BAR_HEIGHT + 8, BAR_COLUMNS = 3, SWATCH = 12, HATCH = 5 };

/* A step of 1, 2 or 5 times a power of ten that cuts span into about five. */
static double nice_step(double span)
{
    double raw = span / 5, power = pow(10, floor(log10(raw))), f = raw / power;

    return power * (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10);
}

typedef struct frame {
    double x0, x1, y1;      /* data ranges (y from 0, or from y0 on a log scale) */
    double w, h;            /* plot size */
    bool log;
    bool us;                /* y a duration in microseconds */
    double y0;
} frame;

static double px(const frame *fr, double x)
{
    return LEFT + (x - fr->x0) / (fr->x1 - fr->x0) * fr->w;
}

static double py(const frame *fr, double y)
{
    if (fr->log)
        return TOP + fr->h - (log10(MAX(y, fr->y0)) - log10(fr->y0)) / (log10(fr->y1) - log10(fr->y0)) * fr->h;
    return TOP + fr->h - y / fr->y1 * fr->h;
}

/* Seconds as people read a time axis: ms below two seconds. */
static void time_tick(GString *out, double seconds, double step)
{
    if (step < 0.5)
        g_string_append_printf(out, "%.0f ms", seconds * 1e3);
    else
        g_string_append_printf(out, "%g s", seconds);
}

/* A duration axis reads in ms, the unit of a round trip; seconds from ten of them. */
static void duration_tick(GString *out, double us, double top)
{
    if (top >= 1e7)
        g_string_append_printf(out, "%g s", us / 1e6);
    else
        g_string_append_printf(out, "%g ms", us / 1e3);
}

static void bytes_tick(GString *out, double bytes, double top)
{
    if (top >= 1e7)
        g_string_append_printf(out, "%g MB", bytes / 1e6);
    else if (top >= 1e4)
        g_string_append_printf(out, "%g kB", bytes / 1e3);
    else
        g_string_append_printf(out, "%g B", bytes);
}

static void x_axis(const frame *fr, const char *title, GString *out)
{
    double step = nice_step(fr->x1 - fr->x0);

    for (double x = ceil(fr->x0 / step) * step; x <= fr->x1 + step * 1e-9; x += step) {
        g_string_append_printf(out, "<line class=\"grid\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%.1f\"/>"
                               "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
                               px(fr, x), TOP, px(fr, x), TOP + fr->h, px(fr, x), TOP + fr->h + 15);
        time_tick(out, fabs(x) < step * 1e-9 ? 0 : x, step);
        g_string_append(out, "</text>");
    }
    g_string_append_printf(out, "<text class=\"axis\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
                           LEFT + fr->w / 2, TOP + fr->h + 32);
    td_html_escape(out, title);
    g_string_append(out, "</text>");
}

static void y_axis(const frame *fr, const char *title, GString *out)
{
    double step = nice_step(fr->y1);

    for (double y = fr->log ? fr->y0 : 0; y <= fr->y1 * (1 + 1e-9); y = fr->log ? y * 10 : y + step) {
        g_string_append_printf(out, "<line class=\"grid\" x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                               "<text class=\"tick\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">",
                               LEFT, py(fr, y), LEFT + fr->w, py(fr, y), LEFT - 5, py(fr, y) + 4);
        if (fr->us)
            duration_tick(out, y, fr->y1);
        else
            bytes_tick(out, y, fr->log ? y * 10 : fr->y1);
        g_string_append(out, "</text>");
    }
    g_string_append_printf(out, "<text class=\"axis\" transform=\"translate(14 %.1f) rotate(-90)\" "
                           "text-anchor=\"middle\">", TOP + fr->h / 2);
    td_html_escape(out, title);
    g_string_append(out, "</text>");
}

static void data_frame(const td_chart *c, frame *fr)
{
    fr->x0 = 0;
    fr->x1 = 0;
    fr->y1 = 0;
    for (guint i = 0; i < c->lines->len; i++) {
        const GArray *points = g_array_index(c->lines, td_chart_line, i).points;
        for (guint k = 0; k < points->len; k++) {
            fr->x1 = MAX(fr->x1, g_array_index(points, td_xy, k).x);
            fr->y1 = MAX(fr->y1, g_array_index(points, td_xy, k).y);
        }
    }
    for (guint i = 0; i < c->levels->len; i++)
        fr->y1 = MAX(fr->y1, g_array_index(c->levels, td_chart_level, i).y);
    fr->x1 = fr->x1 > 0 ? fr->x1 * 1.02 : 1;
    fr->y1 = fr->y1 > 0 ? fr->y1 * 1.1 : 1;
    fr->log = c->y_log;
    fr->us = c->y_us;
    if (fr->log) {
        /* from the power of ten below the smallest value to the one above the largest */
        double smallest = fr->y1;
        for (guint i = 0; i < c->lines->len; i++) {
            const GArray *points = g_array_index(c->lines, td_chart_line, i).points;
            for (guint k = 0; k < points->len; k++)
                if (g_array_index(points, td_xy, k).y > 0)
                    smallest = MIN(smallest, g_array_index(points, td_xy, k).y);
        }
        fr->y0 = MAX(100, pow(10, floor(log10(smallest))));
        fr->y1 = pow(10, ceil(log10(fr->y1 / 1.1)));
    }
    fr->w = WIDTH - LEFT - RIGHT;
    fr->h = HEIGHT - TOP - BOTTOM;
}

static const char *const mark_class[TD_MARK_KINDS] = { "ce", "ece", "cwr", "loss" };
static const char *const mark_name[TD_MARK_KINDS] = { "CE marks", "ECN echo", "CWR", "loss recovery" };

/* One path per kind of mark, so that a chart of a thousand signals stays a few
 * kilobytes: CE a tick along the top (where the path marked), an ECN echo a tick
 * below it, a CWR a triangle on the flight (the sender's answer), a loss a cross. */
static void draw_marks(const td_chart *c, const frame *fr, td_mark_kind kind, GString *out)
{
    unsigned total = 0;

    g_string_append_printf(out, "<path class=\"mark %s\" d=\"", mark_class[kind]);
    for (guint i = 0; i < c->marks->len; i++) {
        const td_chart_mark *m = &g_array_index(c->marks, td_chart_mark, i);
        double x = px(fr, m->x), y = py(fr, m->y);
        if (m->kind != kind)
            continue;
        total += m->count;
        switch (kind) {
        case TD_MARK_CE:   g_string_append_printf(out, "M%.1f %dv8", x, TOP); break;
        case TD_MARK_ECE:  g_string_append_printf(out, "M%.1f %dv8", x, TOP + 10); break;
        case TD_MARK_CWR:  g_string_append_printf(out, "M%.1f %.1fl-4 -7h8z", x, y - 2); break;
        case TD_MARK_LOSS: g_string_append_printf(out, "M%.1f %.1fl8 8m0 -8l-8 8", x - 4, y - 12); break;
        case TD_MARK_KINDS: break;
        }
    }
    g_string_append_printf(out, "\"><title>%s: %u</title></path>", mark_name[kind], total);
}

/* The legend under the plot: two columns when every label fits in half the width
 * (about six user units a character). */
static unsigned legend_columns(const td_chart *c)
{
    size_t longest = 0;

    for (guint i = 0; i < c->lines->len; i++)
        longest = MAX(longest, strlen(g_array_index(c->lines, td_chart_line, i).label));
    for (guint i = 0; i < c->levels->len; i++)
        longest = MAX(longest, strlen(g_array_index(c->levels, td_chart_level, i).label));
    for (guint i = 0; i < c->silences->len; i++)
        longest = MAX(longest, strlen(g_array_index(c->silences, td_chart_span, i).label));
    return (longest + 4) * CHAR_WIDTH < (WIDTH - LEFT - RIGHT) / 2 ? 2 : 1;
}

static void legend_entry(GString *out, unsigned *n, unsigned columns, const char *cls, const char *label)
{
    int x = LEFT + (int)(*n % columns) * (WIDTH - LEFT - RIGHT) / 2, y = HEIGHT + 4 + (int)(*n / columns) * LEGEND_ROW;

    g_string_append_printf(out, "<line class=\"%s\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>"
                           "<text class=\"legend\" x=\"%d\" y=\"%d\">", cls, x, y, x + 18, y, x + 22, y + 4);
    td_html_escape(out, label);
    g_string_append(out, "</text>");
    (*n)++;
}

static unsigned mark_kinds(const td_chart *c, bool seen[TD_MARK_KINDS])
{
    unsigned n = 0;

    for (guint i = 0; i < c->marks->len; i++) {
        td_mark_kind k = g_array_index(c->marks, td_chart_mark, i).kind;
        n += !seen[k];
        seen[k] = true;
    }
    return n;
}

static unsigned legend_rows(const td_chart *c)
{
    bool seen[TD_MARK_KINDS] = { false };

    unsigned columns = legend_columns(c);

    return (c->lines->len + c->levels->len + c->silences->len + mark_kinds(c, seen) + columns - 1) / columns;
}

/* A dot on each point of a line whose points are events, one path for them all. */
static void draw_dots(const td_chart_line *l, const frame *fr, GString *out)
{
    g_string_append_printf(out, "<path class=\"dots %s\" d=\"", l->cls);
    for (guint k = 0; k < l->points->len; k++) {
        const td_xy *p = &g_array_index(l->points, td_xy, k);
        g_string_append_printf(out, "M%.1f %.1fm%d 0a%d %d 0 1 0 %d 0a%d %d 0 1 0 %d 0", px(fr, p->x), py(fr, p->y),
                               -DOT, DOT, DOT, 2 * DOT, DOT, DOT, -2 * DOT);
    }
    g_string_append(out, "\"/>");
}

/* Other flows' lives behind the plot (the flows that filled a queue), each within it. */
static void draw_spans(const td_chart *c, const frame *fr, GString *out)
{
    for (guint i = 0; i < c->silences->len; i++) {
        const td_chart_span *s = &g_array_index(c->silences, td_chart_span, i);
        double x0 = px(fr, MAX(s->x0, fr->x0)), x1 = px(fr, MIN(s->x1, fr->x1));
        if (x1 <= x0)
            continue;
        g_string_append_printf(out, "<rect class=\"span\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%.1f\"><title>",
                               x0, TOP, x1 - x0, fr->h);
        td_html_escape(out, s->label);
        g_string_append(out, "</title></rect>");
    }
}

static void draw_xy(const td_chart *c, GString *out)
{
    frame fr;
    bool seen[TD_MARK_KINDS] = { false };
    unsigned legend = 0, columns = legend_columns(c);

    data_frame(c, &fr);
    draw_spans(c, &fr, out);
    x_axis(&fr, c->x_title, out);
    y_axis(&fr, c->y_title, out);
    for (guint i = 0; i < c->levels->len; i++) {
        const td_chart_level *l = &g_array_index(c->levels, td_chart_level, i);
        g_string_append_printf(out, "<line class=\"level %s\" x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\">"
                               "<title>", l->cls, LEFT, py(&fr, l->y), LEFT + fr.w, py(&fr, l->y));
        td_html_escape(out, l->label);
        g_string_append(out, "</title></line>");
    }
    for (guint i = 0; i < c->lines->len; i++) {
        const td_chart_line *l = &g_array_index(c->lines, td_chart_line, i);
        g_string_append_printf(out, "<polyline class=\"series %s\" points=\"", l->cls);
        for (guint k = 0; k < l->points->len; k++) {
            const td_xy *p = &g_array_index(l->points, td_xy, k);
            g_string_append_printf(out, "%s%.1f,%.1f", k ? " " : "", px(&fr, p->x), py(&fr, p->y));
        }
        g_string_append(out, "\"><title>");
        td_html_escape(out, l->label);
        g_string_append(out, "</title></polyline>");
        /* a polyline of one point draws nothing: a lone point shows as a dot */
        if (l->dots || l->points->len == 1)
            draw_dots(l, &fr, out);
    }
    mark_kinds(c, seen);
    for (int k = 0; k < TD_MARK_KINDS; k++)
        if (seen[k])
            draw_marks(c, &fr, (td_mark_kind)k, out);
    for (guint i = 0; i < c->lines->len; i++)
        legend_entry(out, &legend, columns, g_array_index(c->lines, td_chart_line, i).cls,
                     g_array_index(c->lines, td_chart_line, i).label);
    for (guint i = 0; i < c->levels->len; i++) {
        const td_chart_level *l = &g_array_index(c->levels, td_chart_level, i);
        char *cls = g_strdup_printf("level %s", l->cls);
        legend_entry(out, &legend, columns, cls, l->label);
        g_free(cls);
    }
    for (guint i = 0; i < c->silences->len; i++)
        legend_entry(out, &legend, columns, "span", g_array_index(c->silences, td_chart_span, i).label);
    for (int k = 0; k < TD_MARK_KINDS; k++)
        if (seen[k]) {
            char *cls = g_strdup_printf("key %s", mark_class[k]);
            legend_entry(out, &legend, columns, cls, mark_name[k]);
            g_free(cls);
        }
}

static void draw_timeline(const td_chart *c, GString *out)
{
    /* room on the right for each flow's wait */
    frame fr = { .x1 = 0, .y1 = 1, .w = WIDTH - LEFT - 100, .h = (double)c->rows->len * ROW_HEIGHT };

    for (guint i = 0; i < c->rows->len; i++)
        fr.x1 = MAX(fr.x1, g_array_index(c->rows, td_chart_row, i).x1);
    fr.x1 = fr.x1 > 0 ? fr.x1 * 1.02 : 1;
    x_axis(&fr, c->x_title, out);
    for (guint i = 0; i < c->silences->len; i++) {
        const td_chart_span *s = &g_array_index(c->silences, td_chart_span, i);
        g_string_append_printf(out, "<rect class=\"silence\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%.1f\">"
                               "<title>the host sent nothing</title></rect>", px(&fr, s->x0), TOP,
                               px(&fr, s->x1) - px(&fr, s->x0), fr.h);
    }
    for (guint i = 0; i < c->rows->len; i++) {
        const td_chart_row *r = &g_array_index(c->rows, td_chart_row, i);
        double y = TOP + i * ROW_HEIGHT + ROW_HEIGHT / 2.0;
        g_string_append_printf(out, "<text class=\"tick\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">", LEFT - 5, y + 4);
        td_html_escape(out, r->label);
        g_string_append_printf(out, "</text><line class=\"run\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>",
                               px(&fr, r->x0), y, px(&fr, r->x1), y);
        if (r->wait1 >= r->wait0) {
            g_string_append_printf(out, "<line class=\"wait\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"><title>",
                                   px(&fr, r->wait0), y, px(&fr, r->wait1), y);
            td_html_escape(out, r->wait_label);
            g_string_append_printf(out, "</title></line><text class=\"legend\" x=\"%.1f\" y=\"%.1f\">",
                                   px(&fr, r->x1) + 4, y + 4);
            td_html_escape(out, r->wait_label);
            g_string_append(out, "</text>");
        }
    }
}

/* The <svg> element's opening, with its title (what a reader's screen reader says). */
static void svg_open(GString *out, const char *cls, double height, const char *title)
{
    g_string_append_printf(out, "<svg class=\"%s\" viewBox=\"0 0 %d %.0f\" width=\"%d\" height=\"%.0f\" "
                           "role=\"img\"><title>", cls, WIDTH, height, WIDTH, height);
    td_html_escape(out, title);
    g_string_append(out, "</title>");
}

void td_chart_svg(const td_chart *c, GString *out)
{
    double height = c->kind == TD_CHART_TIMELINE ? TOP + (double)c->rows->len * ROW_HEIGHT + BOTTOM
                                                 : HEIGHT + (double)legend_rows(c) * LEGEND_ROW;

    svg_open(out, "chart", height, c->title);
    if (c->kind == TD_CHART_TIMELINE)
        draw_timeline(c, out);
    else
        draw_xy(c, out);
    g_string_append(out, "</svg>");
}

static void text_at(GString *out, const char *cls, double x, double y, const char *anchor, const char *s)
{
    g_string_append_printf(out, "<text class=\"%s\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">", cls, x, y, anchor);
    td_html_escape(out, s);
    g_string_append(out, "</text>");
}

/* Diagonal lines across a rectangle, cut at its sides: each runs from (t, y + h) up
 * to (t + h, y), the part of it inside [x, x + w]. */
static void hatch(GString *out, double x, double y, double w, double h)
{
    g_string_append(out, "<path class=\"hatch\" d=\"");
    for (double t = x - h + HATCH / 2.0; t < x + w; t += HATCH) {
        double s0 = MAX(0, x - t), s1 = MIN(h, x + w - t);
        if (s1 > s0)
            g_string_append_printf(out, "M%.1f %.1fL%.1f %.1f", t + s0, y + h - s0, t + s1, y + h - s1);
    }
    g_string_append(out, "\"/>");
}

/* A stretch of the bar, or a part's key in the legend: its part's colour (the CSS of
 * html.c, by td_time_part_name), idle and think time hatched so that they read as nobody's
 * wait, in print and without colour too. */
static void part_rect(GString *out, td_time_part part, double x, double y, double w, double h)
{
    g_string_append_printf(out, "<rect class=\"part %s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>",
                           td_time_part_name(part), x, y, w, h);
    if (part == TD_TIME_IDLE || part == TD_TIME_THINK)
        hatch(out, x, y, w, h);
}

/* What fits on a segment, a character's margin each side: its label, else its
 * words alone, else nothing (the legend names every part). */
static const char *fitting(const td_budget_segment *seg, double width)
{
    if ((double)(strlen(seg->label) + 2) * CHAR_WIDTH <= width)
        return seg->label;
    if ((double)(strlen(seg->words) + 2) * CHAR_WIDTH <= width)
        return seg->words;
    return NULL;
}

/* Legend columns, at most BAR_COLUMNS, as many as the longest key leaves room for: a
 * key that says its part is never counted as lost is longer than a third of the bar. */
static guint legend_columns_of(const td_budget_bar *bar)
{
    size_t longest = 0;
    guint columns = BAR_COLUMNS;

    for (guint i = 0; i < bar->segments->len; i++)
        longest = MAX(longest, strlen(g_array_index(bar->segments, td_budget_segment, i).key));
    while (columns > 1 && (double)(longest * CHAR_WIDTH + SWATCH + 8) > (double)TD_BUDGET_BAR_WIDTH / columns)
        columns--;
    return columns;
}

void td_budget_bar_svg(const td_budget_bar *bar, GString *out)
{
    guint n = bar->segments->len, columns = legend_columns_of(bar), rows = (n + columns - 1) / columns;
    double column = (double)TD_BUDGET_BAR_WIDTH / columns;

    svg_open(out, "budget", BAR_LEGEND_TOP + (double)rows * LEGEND_ROW + 4, bar->title);
    text_at(out, "axis", BAR_LEFT, BAR_TOP - 8, "start", bar->title);
    g_string_append_printf(out, "<rect class=\"frame\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>",
                           BAR_LEFT, BAR_TOP, TD_BUDGET_BAR_WIDTH, BAR_HEIGHT);
    for (guint i = 0; i < n; i++) {
        const td_budget_segment *seg = &g_array_index(bar->segments, td_budget_segment, i);
        const char *on_bar;
        double x = BAR_LEFT + seg->x, lx = BAR_LEFT + (i % columns) * column;
        double ly = BAR_LEGEND_TOP + (double)(i / columns) * LEGEND_ROW;
        g_string_append_printf(out, "<g class=\"segment\" data-part=\"%s\" data-ns=\"%" G_GINT64_FORMAT "\"><title>",
                               td_time_part_name(seg->part), seg->ns);
        td_html_escape(out, seg->hover);
        g_string_append(out, "</title>");
        part_rect(out, seg->part, x, BAR_TOP, seg->width, BAR_HEIGHT);
        if ((on_bar = fitting(seg, seg->width)))
            text_at(out, "on-bar", x + seg->width / 2, BAR_TOP + BAR_HEIGHT / 2.0 + 4, "middle", on_bar);
        g_string_append(out, "</g>");
        part_rect(out, seg->part, lx, ly, SWATCH, SWATCH - 2);
        text_at(out, "legend", lx + SWATCH + 4, ly + 9, "start", seg->key);
    }
    g_string_append(out, "</svg>");
}
