/* Generated tree items, shared by the glue files. Every tcpdiag item is derived,
 * so it covers no bytes and is marked generated. */
#ifndef TCPDIAG_ITEMS_H
#define TCPDIAG_ITEMS_H

#include <epan/proto.h>
#include <wsutil/nstime.h>

#include "core/advice.h"

static inline void add_relative_time(proto_tree *tree, int hf, tvbuff_t *tvb, int64_t ns)
{
    nstime_t t;
    t.secs = (time_t)(ns / 1000000000);
    t.nsecs = (int)(ns % 1000000000);
    proto_item_set_generated(proto_tree_add_time(tree, hf, tvb, 0, 0, &t));
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

/* A rate field kept in bytes per second, labelled in bit/s units people read. */
static inline void add_rate(proto_tree *tree, int hf, tvbuff_t *tvb, double bytes_per_s)
{
    char text[32];
    td_format_rate(bytes_per_s, text, sizeof text);
    proto_item_set_generated(proto_tree_add_double_format_value(tree, hf, tvb, 0, 0, bytes_per_s, "%.0f B/s (%s)",
                                                                bytes_per_s, text));
}

#endif
