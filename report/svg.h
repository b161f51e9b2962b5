/* The SVG writer of the HTML report's charts and time budget bars: a model
 * (charts.h) as inline SVG. It maps the model's values to the drawing and decides
 * nothing about what a chart shows. */
#ifndef TCPDIAG_REPORT_SVG_H
#define TCPDIAG_REPORT_SVG_H

#include <glib.h>
#include "charts.h"

/* The chart as an inline <svg> element (no script, no external reference). */
void td_chart_svg(const td_chart *chart, GString *out);
/* A flow's time budget bar as an inline <svg> element: the segments, labelled where
 * the label fits, each with its hover text, the total above, a legend below. */
void td_budget_bar_svg(const td_budget_bar *bar, GString *out);

#endif
