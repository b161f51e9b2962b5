/* The parts of the plugin that packet-tcpdiag.c registers and calls on each packet:
 * one per area of the tree (flight, cc, offload, diag, host) and the reports. */
#ifndef TCPDIAG_GLUE_H
#define TCPDIAG_GLUE_H

#include <epan/packet.h>
#include <epan/prefs.h>

#include "flow.h"
#include "hosts.h"

/* `-z tcpdiag,flows` and `-z tcpdiag,diagnosis` (stats-tcpdiag.c). */
void tcpdiag_register_stats(void);
/* Statistics > tcpdiag: the per-flow and per-host tables (table-tcpdiag.c). */
void tcpdiag_register_tables(void);

/* tcpdiag.flight: experts and preferences (flight-tcpdiag.c). */
void tcpdiag_flight_register(module_t *module, td_flight_config *cfg);
void tcpdiag_flight_experts(proto_tree *tree, packet_info *pinfo, tvbuff_t *tvb, const td_flow *flow);
void tcpdiag_flight_round_items(proto_tree *tree, tvbuff_t *tvb, const td_flow *flow, int sender, uint32_t frame);

/* tcpdiag.cc: per-packet events, experts and preferences (cc-tcpdiag.c). */
void tcpdiag_cc_register(module_t *module, td_flight_config *cfg);
void tcpdiag_cc_event_items(proto_tree *tree, tvbuff_t *tvb, const td_flow *flow, int sender, uint32_t frame);
void tcpdiag_cc_experts(proto_tree *tree, packet_info *pinfo, tvbuff_t *tvb, const td_flow *flow);

/* The ECN and TCP options expert items of a packet (setup-tcpdiag.c); sender is the
 * packet's endpoint in the flow, or -1 when the frame only quotes a segment. */
void tcpdiag_setup_experts(proto_tree *tree, packet_info *pinfo, tvbuff_t *tvb, const td_flow *flow, int sender,
                           bool complete);

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
