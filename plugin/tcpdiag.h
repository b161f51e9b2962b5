/* Shared between the glue files: the protocol and the engine of the open file. */
#ifndef TCPDIAG_GLUE_H
#define TCPDIAG_GLUE_H

#include <epan/packet.h>
#include <epan/prefs.h>

#include "diagnosis.h"
#include "flow.h"
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

/* tcpdiag.flight: fields, experts and preferences (flight-tcpdiag.c). */
void tcpdiag_flight_register(int proto, module_t *module, td_flight_config *cfg);
void tcpdiag_flight_items(proto_tree *tree, tvbuff_t *tvb, const td_flow *flow);
void tcpdiag_flight_experts(proto_tree *tree, packet_info *pinfo, tvbuff_t *tvb, const td_flow *flow);

/* tcpdiag.cc: fields, experts and preferences (cc-tcpdiag.c). */
void tcpdiag_cc_register(int proto, module_t *module, td_flight_config *cfg);
void tcpdiag_cc_items(proto_tree *tree, tvbuff_t *tvb, const td_flow *flow, uint32_t frame);
void tcpdiag_cc_experts(proto_tree *tree, packet_info *pinfo, tvbuff_t *tvb, const td_flow *flow);

/* tcpdiag.offload: fields and experts (offload-tcpdiag.c). */
void tcpdiag_offload_register(int proto);
void tcpdiag_offload_items(proto_tree *tree, tvbuff_t *tvb, const td_flow *flow);
void tcpdiag_offload_experts(proto_tree *tree, packet_info *pinfo, tvbuff_t *tvb, const td_flow *flow);

/* tcpdiag.diag and tcpdiag.host.stall: fields, experts and preferences (diag-tcpdiag.c). */
void tcpdiag_diag_register(int proto, module_t *module, td_stall_config *stall);
void tcpdiag_diag_items(proto_tree *tree, tvbuff_t *tvb, const td_flow *flow);
void tcpdiag_diag_experts(proto_tree *tree, packet_info *pinfo, tvbuff_t *tvb, const td_flow *flow);

/* tcpdiag.host and tcpdiag.sender: per-host rules, their preference and
 * `-z tcpdiag,hosts` (host-tcpdiag.c). */
void tcpdiag_host_register(int proto, module_t *module, td_hosts_config *cfg);
void tcpdiag_host_items(proto_tree *tree, tvbuff_t *tvb, const td_flow *flow, uint32_t frame);
void tcpdiag_host_experts(proto_tree *tree, packet_info *pinfo, tvbuff_t *tvb, const td_flow *flow);

#endif
