/* The plugin's side of the field table (tree-tcpdiag.c): the hf, subtree and
 * expert registrations built from engine/field_table.c, and the items of the tcpdiag
 * tree, each labelled by its field's row. */
#ifndef TCPDIAG_TREE_GLUE_H
#define TCPDIAG_TREE_GLUE_H

#include <epan/expert.h>
#include <epan/packet.h>

#include "field_table.h"
#include "field_values.h"

void tcpdiag_fields_register(int proto);
int tcpdiag_hf(td_field_id id);
expert_field *tcpdiag_expert(td_expert_id id);
/* The one buffer the engine writes an expert item's words into, empty: allocated once
 * for the plugin, since an allocation per packet showed in the profile (dissection
 * runs on one thread). */
GString *tcpdiag_message(void);
/* Adds the expert item id with the engine's words in message (the *_messages.c of
 * engine/), then empties message for the next item. */
void tcpdiag_add_message(proto_tree *tree, packet_info *pinfo, tvbuff_t *tvb, td_expert_id id, GString *message);
/* One item, labelled by its field's row of the table. */
void tcpdiag_add_value(proto_tree *tree, tvbuff_t *tvb, const td_field_value *value);
void tcpdiag_add_string(proto_tree *tree, tvbuff_t *tvb, td_field_id id, const char *value);
void tcpdiag_add_uint(proto_tree *tree, tvbuff_t *tvb, td_field_id id, uint32_t value);
void tcpdiag_add_double(proto_tree *tree, tvbuff_t *tvb, td_field_id id, double value);
void tcpdiag_add_time(proto_tree *tree, tvbuff_t *tvb, td_field_id id, int64_t ns);
/* Called as each subtree of the tree is complete, for the per-packet items that
 * follow it in the tcpdiag tree (top): the packet's direction after the flow's,
 * a congestion event after its direction's subtree. */
typedef void (*tcpdiag_group_done)(void *ctx, proto_tree *top, td_field_group group, int sender);
/* The flow's fields in view as the tcpdiag tree's subtrees, under tree. */
void tcpdiag_flow_tree(proto_tree *tree, tvbuff_t *tvb, const td_flow_view *view, const td_flow *flow,
                       tcpdiag_group_done done, void *done_ctx);
/* One exchange's fields (tcpdiag.exchange.*) in its subtree, under tree (not NULL). */
void tcpdiag_exchange_tree(proto_tree *tree, tvbuff_t *tvb, const td_exchange *ex);
/* Drops what tcpdiag_flow_tree kept of the file's flows; at every file's end. */
void tcpdiag_fields_forget(void);

#endif
