/* The one label rule of field values (see field_label.h). */
#include "field_label.h"

#include <math.h>
#include <glib.h>

#include "units.h"

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
        td_format_duration((int64_t)llround(v->dbl * 1e9), text, size);
        return true;
    case TD_LABEL_DURATION:
        td_format_duration(v->ns, text, size);
        return true;
    case TD_LABEL_PLAIN:
        break;
    }
    return false;
}
