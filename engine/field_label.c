/* The one label rule of field values (see field_label.h). */
#include "field_label.h"

#include <math.h>
#include <glib.h>

#include "advice.h"

/* Below 10 ms a duration keeps three decimals of a millisecond: a LAN's round trip or
 * a handshake half is a fraction of one, and "0 ms" would read as none at all. */
static void duration_text(int64_t ns, char *text, size_t size)
{
    if (ns > -10000000 && ns < 10000000)
        g_snprintf(text, size, "%.3f ms", (double)ns / 1e6);
    else
        td_format_duration(ns, text, size);
}

bool td_field_label_text(const td_field_value *v, char *text, size_t size)
{
    switch (td_fields[v->id].label_style) {
    case TD_LABEL_RATIO:
        g_snprintf(text, size, "%.2f", v->dbl);
        return true;
    case TD_LABEL_RATE:
        td_format_rate(v->dbl, text, size);
        return true;
    case TD_LABEL_SECONDS:   /* rounded: a double of seconds a hair under a whole ns reads as that ns */
        duration_text((int64_t)llround(v->dbl * 1e9), text, size);
        return true;
    case TD_LABEL_DURATION:
        duration_text(v->ns, text, size);
        return true;
    case TD_LABEL_PLAIN:
        break;
    }
    return false;
}
