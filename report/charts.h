/* The HTML report's chart model: for a slow flow, the picture its cause calls for,
 * built from what the engine measured (the round trips and segment sizes
 * engine/series.c kept, the analyses' results) as plotted values; svg.h draws it.
 * The model is what the unit tests hold to the engine; the SVG only maps it. */
#ifndef TCPDIAG_REPORT_CHARTS_H
#define TCPDIAG_REPORT_CHARTS_H

#include <glib.h>
#include "diagnosis.h"
#include "text.h"
#include "series.h"
#include "time_budget.h"

/* A chart draws at most this many points per line: about one per two pixels of its
 * plot. Longer series merge neighbours, keeping each group's smallest and largest
 * value (a floor or a plateau stays exact). */
enum { TD_CHART_POINTS = 300 };

/* x in seconds from the chart's zero (the flow's first packet, or the capture's for
 * a timeline), y in bytes (or microseconds: td_chart.y_us). */
typedef struct td_xy {
    double x, y;
} td_xy;

typedef struct td_chart_line {
    const char *cls;            /* CSS class: how it is drawn */
    char *label;
    GArray *points;             /* td_xy in time order */
    bool dots;                  /* each point is an event of its own (a hold, an exchange): a dot on it too */
} td_chart_line;

/* A level across the whole chart (a floor, a plateau, a ceiling, a reference). */
typedef struct td_chart_level {
    const char *cls;
    char *label;
    double y;
} td_chart_level;

typedef enum td_mark_kind {
    TD_MARK_CE,                 /* CE marks on the data of that round trip */
    TD_MARK_ECE,                /* an ECE episode began */
    TD_MARK_CWR,                /* the sender's CWR */
    TD_MARK_LOSS,               /* a loss recovery began */
    TD_MARK_KINDS
} td_mark_kind;

typedef struct td_chart_mark {
    td_mark_kind kind;
    double x, y;                /* at the round trip's flight */
    unsigned count;
} td_chart_mark;

/* A timeline row: one flow of a host, when it ran and when it waited on the host. */
typedef struct td_chart_row {
    char *label;
    double x0, x1;              /* the flow's first and last packet */
    double wait0, wait1;        /* its wait in the stall; wait1 < wait0 when none */
    char *wait_label;
} td_chart_row;

/* A stretch of time: a host's silence (timeline), or another flow's life behind an
 * xy chart (the flows that filled a queue), then with its label. */
typedef struct td_chart_span {
    double x0, x1;
    char *label;                /* NULL on a timeline */
} td_chart_span;

typedef enum td_chart_kind {
    TD_CHART_XY,                /* lines and levels over time, bytes up */
    TD_CHART_TIMELINE,          /* one row per flow, the host's silence shaded */
} td_chart_kind;

typedef struct td_chart {
    td_chart_kind kind;
    char *title;
    const char *y_title;        /* what the y axis measures (bytes) */
    const char *x_title;        /* where its time starts */
    GArray *lines;              /* td_chart_line */
    GArray *levels;             /* td_chart_level */
    GArray *marks;              /* td_chart_mark */
    GArray *rows;               /* td_chart_row (timeline) */
    GArray *silences;           /* td_chart_span: the host's silences (timeline), other flows (xy), shaded */
    bool y_log;                 /* bytes on a log scale (a window far above the flight) */
    bool y_us;                  /* y is a duration in microseconds (its ticks read in ms), not bytes */
} td_chart;

/* What a chart of one flow reads. */
typedef struct td_chart_source {
    const td_engine *engine;
    const td_diagnoses *diagnoses;
    const td_series_book *series;
} td_chart_source;

/* The chart a slow flow's cause calls for (docs/report.md), NULL when it has none
 * (an ECN blackhole's evidence is its SYNs) or nothing was recorded; *why then says
 * which (static text). */
td_chart *td_chart_for_flow(const td_chart_source *src, const td_flow *flow, const char **why);
/* The chart a cause calls for, of the data endpoint `sender` sent, whatever the flow's
 * diagnosis: td_chart_for_flow with the diagnosed cause and sender. */
td_chart *td_chart_for_cause(const td_chart_source *src, const td_flow *flow, int sender, td_cause cause,
                             const char **why);
/* The timeline of a host-stall finding: the host's flows, its silence, each wait. */
td_chart *td_chart_for_stall(const td_chart_source *src, const td_finding *finding);
void td_chart_free(td_chart *chart);

/* A flow's time budget as one horizontal bar: a segment per part that took any time,
 * in td_time_part order (setup, client wait, server wait, transfer, stall, idle), each
 * as wide as its share of the duration. The parts are totals, not a timeline: a
 * flow's transfer spans sit together in one segment. */
enum { TD_BUDGET_BAR_WIDTH = 740 };      /* the bar's width, in the writer's units */

typedef struct td_budget_segment {
    td_time_part part;
    int64_t ns;
    double share;               /* of the duration, 0 to 1 */
    double x, width;            /* along the bar, 0 to TD_BUDGET_BAR_WIDTH: they tile it */
    const char *words;          /* "Server wait": its field's label (field_table.c) */
    char *label;                /* on the bar where it fits: "Server wait 3.00 s", else the words */
    char *key;                  /* in the legend: "Server wait 3.00 s (93%)" */
    char *hover;                /* its <title>: duration, share, then what the part counts */
} td_budget_segment;

typedef struct td_budget_bar {
    GArray *segments;           /* td_budget_segment; none for a flow of no duration */
    int64_t duration_ns, active_ns;
    char *title;                /* "Where the time went: duration 3.21 s, active 3.21 s..." */
} td_budget_bar;

td_budget_bar *td_budget_bar_of(const td_time_budget *budget);
void td_budget_bar_free(td_budget_bar *bar);

#endif
