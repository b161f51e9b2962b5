/* Generated tree items, shared by the glue files. Every tcpdiag item is derived,
 * so it covers no bytes and is marked generated. */
#ifndef TCPDIAG_ITEMS_H
#define TCPDIAG_ITEMS_H

#include <epan/proto.h>
#include <wsutil/nstime.h>

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

static inline void add_double(proto_tree *tree, int hf, tvbuff_t *tvb, double value)
{
    proto_item_set_generated(proto_tree_add_double(tree, hf, tvb, 0, 0, value));
}

#endif
