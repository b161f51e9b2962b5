/* Shared between the glue files: the protocol and the engine of the open file. */
#ifndef TCPDIAG_GLUE_H
#define TCPDIAG_GLUE_H

#include <epan/expert.h>
#include <epan/packet.h>
#include <epan/prefs.h>

#include "diagnosis.h"
#include "fields.h"
#include "flow.h"
#include "flowfields.h"
#include "hosts.h"

/* The engine of the capture being dissected; NULL between files. */
td_engine *tcpdiag_engine(void);
/* The diagnosis of the open file once it has been read completely: finishes the
 * engine on first use; NULL between files. */
const td_diagnoses *tcpdiag_diagnoses(void);
/* The per-host rules of the open file, built with the diagnosis; NULL between files. */
const td_hosts *tcpdiag_hosts(void);

void tcpdiag_register_stats(void);
/* Statistics > tcpdiag: the per-flow and per-host tables (table-tcpdiag.c). */
void tcpdiag_register_tables(void);

/* The GUI's file state (gui-tcpdiag.c): true once the file has been read whole
 * (always in tshark, where a frame seen again is the second pass). */
bool tcpdiag_file_read(void);
/* Re-applies, once the read is over, a display filter that ran before it. */
void tcpdiag_gui_register(void);

/* A frame's TCP segment from its bytes (segment-tcpdiag.c). */
typedef enum tcpdiag_frame_kind {
    TD_FRAME_OTHER,             /* no complete TCP/IP headers: not analysed */
    TD_FRAME_SEGMENT,
    TD_FRAME_QUOTED_SEGMENT,    /* a TCP header inside an ICMP error: only its stream is read */
} tcpdiag_frame_kind;
/* Looks up the protocols it needs; at every file's start. */
void tcpdiag_segment_init(void);
tcpdiag_frame_kind tcpdiag_read_record(packet_info *pinfo, tvbuff_t *frame, td_record *rec);

/* The field table's registrations and the tcpdiag tree (fields-tcpdiag.c). */
void tcpdiag_fields_register(int proto);
int tcpdiag_hf(td_field_id id);
expert_field *tcpdiag_expert(td_expert_id id);
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
/* Drops what tcpdiag_flow_tree kept of the file's flows; at every file's end. */
void tcpdiag_fields_forget(void);

/* tcpdiag.flight: experts and preferences (flight-tcpdiag.c). */
void tcpdiag_flight_register(module_t *module, td_flight_config *cfg);
void tcpdiag_flight_experts(proto_tree *tree, packet_info *pinfo, tvbuff_t *tvb, const td_flow *flow);
void tcpdiag_flight_round_items(proto_tree *tree, tvbuff_t *tvb, const td_flow *flow, int sender, uint32_t frame);

/* tcpdiag.cc: per-packet events, experts and preferences (cc-tcpdiag.c). */
void tcpdiag_cc_register(module_t *module, td_flight_config *cfg);
void tcpdiag_cc_event_items(proto_tree *tree, tvbuff_t *tvb, const td_flow *flow, int sender, uint32_t frame);
void tcpdiag_cc_experts(proto_tree *tree, packet_info *pinfo, tvbuff_t *tvb, const td_flow *flow);

/* tcpdiag.offload: the cap Note (offload-tcpdiag.c). */
void tcpdiag_offload_experts(proto_tree *tree, packet_info *pinfo, tvbuff_t *tvb, const td_flow *flow);

/* tcpdiag.diag and tcpdiag.host.stall: the answer experts and the stall preferences
 * (diag-tcpdiag.c). */
void tcpdiag_diag_register(module_t *module, td_stall_config *stall);
void tcpdiag_diag_experts(proto_tree *tree, packet_info *pinfo, tvbuff_t *tvb, const td_flow *flow);

/* tcpdiag.host and tcpdiag.sender: the per-host Notes, their preference and
 * `-z tcpdiag,hosts` (host-tcpdiag.c). */
void tcpdiag_host_register(module_t *module, td_hosts_config *cfg);
void tcpdiag_host_experts(proto_tree *tree, packet_info *pinfo, tvbuff_t *tvb, const td_flow *flow);

#endif
