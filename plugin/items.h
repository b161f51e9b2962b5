/* Generated tree items, shared by the glue files. Every tcpdiag item is derived,
 * so it covers no bytes and is marked generated. */
#ifndef TCPDIAG_ITEMS_H
#define TCPDIAG_ITEMS_H

#include <epan/proto.h>
#include <wsutil/nstime.h>

#include "advice.h"

static inline nstime_t ns_to_nstime(int64_t ns)
{
    nstime_t t;
    t.secs = (time_t)(ns / 1000000000);
    t.nsecs = (int)(ns % 1000000000);
    return t;
}

static inline void add_relative_time(proto_tree *tree, int hf, tvbuff_t *tvb, int64_t ns)
{
    nstime_t t = ns_to_nstime(ns);
    proto_item_set_generated(proto_tree_add_time(tree, hf, tvb, 0, 0, &t));
}

/* A duration labelled as people read it (1.42 s, 120 ms; below 10 ms, three
 * decimals of a millisecond, as handshake halves need); the field keeps the
 * nanoseconds for filters and -T fields. */
static inline void add_duration(proto_tree *tree, int hf, tvbuff_t *tvb, int64_t ns)
{
    nstime_t t = ns_to_nstime(ns);
    char text[32];

    if (ns > -10000000 && ns < 10000000)
        g_snprintf(text, sizeof text, "%.3f ms", (double)ns / 1e6);
    else
        td_format_duration(ns, text, sizeof text);
    proto_item_set_generated(proto_tree_add_time_format_value(tree, hf, tvb, 0, 0, &t, "%s", text));
}

static inline void add_string(proto_tree *tree, int hf, tvbuff_t *tvb, const char *value)
{
    proto_item_set_generated(proto_tree_add_string(tree, hf, tvb, 0, 0, value));
}

static inline void add_uint(proto_tree *tree, int hf, tvbuff_t *tvb, uint32_t value)
{
    proto_item_set_generated(proto_tree_add_uint(tree, hf, tvb, 0, 0, value));
}

/* A ratio or share as people read it (two decimals); the field keeps the exact value. */
static inline void add_ratio(proto_tree *tree, int hf, tvbuff_t *tvb, double value)
{
    proto_item_set_generated(proto_tree_add_double_format_value(tree, hf, tvb, 0, 0, value, "%.2f", value));
}

/* A rate field kept in bytes per second, labelled in the bit/s units people read
 * first, the field's own unit after. */
static inline void add_rate(proto_tree *tree, int hf, tvbuff_t *tvb, double bytes_per_s)
{
    char text[32];
    td_format_rate(bytes_per_s, text, sizeof text);
    proto_item_set_generated(proto_tree_add_double_format_value(tree, hf, tvb, 0, 0, bytes_per_s, "%s (%.0f B/s)",
                                                                text, bytes_per_s));
}

#endif
