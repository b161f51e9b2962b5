/* The HTML report (tcpdiag --report): one self-contained page, inline CSS and SVG and
 * nothing else, with the answer first (per capture its flows, slow flows, time lost
 * and findings ranked by it; for several captures the ranking across them before the
 * sections), then a chart of why for each slow flow and the healthy flows in a table.
 * Every figure is read through the field table (engine/field_table.h) and carries its
 * field's name, so it equals what the plugin and the NDJSON say. */
#ifndef TCPDIAG_REPORT_HTML_H
#define TCPDIAG_REPORT_HTML_H

#include <glib.h>
#include "diagnosis.h"
#include "hosts.h"
#include "series.h"

/* Charts per finding, for the flows that lost most (the finding lists the others),
 * and per capture, for the findings that lost most: a chart is at most about 25 kB
 * (TD_CHART_POINTS points, one path per kind of mark), so however many flows are
 * slow, a capture's section stays near a megabyte and a half. */
enum { TD_HTML_CHARTS_PER_FINDING = 12, TD_HTML_CHARTS_PER_CAPTURE = 60 };

/* One analysed capture, as the report's section reads it. */
typedef struct td_html_capture {
    const char *name;               /* the file (or the first file of a merge), as given */
    unsigned index;                 /* its place among the captures: the section's anchor */
    const td_engine *engine;        /* NULL: nothing could be read */
    const td_diagnoses *diagnoses;
    const td_hosts *hosts;
    const td_series_book *series;   /* the history the charts draw; NULL: none kept */
    const char *error;              /* why (part of) the file could not be read, or NULL */
} td_html_capture;

/* A finding as the ranking across captures lists it, kept once the capture's engine
 * is freed (td_html_finding_row_free). */
typedef struct td_html_finding_row {
    char *capture;
    unsigned index;
    td_cause cause;
    char *sentence;
    guint flows;
    int64_t lost_ns;
} td_html_finding_row;

/* Appends the section of one capture; adds its findings to rows (may be NULL). */
void td_html_section(const td_html_capture *capture, GString *out, GPtrArray *rows);
void td_html_finding_row_free(gpointer row);

/* The page: its head and style, the ranking of rows across captures when there are
 * several captures, then the sections in order. */
void td_html_page(GString *out, const char *title, GPtrArray *rows, guint captures, const GString *const *sections);

#endif
