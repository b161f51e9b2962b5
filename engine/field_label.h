/* The label of a field's value: the text a person reads beside the field's name,
 * by the row's label_style (field_table.h), for every front end that shows values
 * to people (the plugin's tree, the HTML report). The field itself keeps the exact
 * value; only its reading is decided here, once. */
#ifndef TCPDIAG_FIELD_LABEL_H
#define TCPDIAG_FIELD_LABEL_H

#include <stdbool.h>
#include <stddef.h>
#include "field_values.h"

/* Writes the label of v into text (size bytes) and returns true when its row's
 * label_style reads otherwise than the value's type prints (TD_LABEL_RATIO, _RATE,
 * _SECONDS, _DURATION); returns false, text untouched, for TD_LABEL_PLAIN.
 * Durations read as td_format_duration writes them (1.42 s, 120 ms, 0.421 ms),
 * rounded to the nearest nanosecond first when they are a double of seconds; rates in the bit/s
 * units people read first; ratios with two decimals. */
bool td_field_label_text(const td_field_value *v, char *text, size_t size);

#endif
