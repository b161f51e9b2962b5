/* The parts of the plugin that packet-tcpdiag.c registers and calls on each packet:
 * one per area of the tree (flight, cc, offload, diag, host) and the reports. */
#ifndef TCPDIAG_GLUE_H
#define TCPDIAG_GLUE_H

#include <epan/packet.h>

#include "flow.h"
#include "hosts.h"
#include "preferences.h"

/* Every `-z tcpdiag,*` report: the flows, diagnosis and hosts texts and the per-flow
 * and per-host tables of Statistics > tcpdiag (stats-tcpdiag.c). */
void tcpdiag_register_stats(void);

/* tcpdiag's preferences, the engine's table registered in a loop (prefs-tcpdiag.c). */
void tcpdiag_prefs_register(int proto, const td_pref_homes *homes);

/* tcpdiag.flight: the round items and the experts (flight-tcpdiag.c); where the
 * sender_warn_mss preference keeps its threshold. */
unsigned *tcpdiag_flight_warn_mss(void);
void tcpdiag_flight_experts(proto_tree *tree, packet_info *pinfo, tvbuff_t *tvb, const td_flow *flow);
void tcpdiag_flight_round_items(proto_tree *tree, tvbuff_t *tvb, const td_flow *flow, int sender, uint32_t frame);

/* tcpdiag.cc: per-packet events and experts, by the collapse thresholds of cfg
 * (cc-tcpdiag.c). */
void tcpdiag_cc_configure(const td_flight_config *cfg);
void tcpdiag_cc_event_items(proto_tree *tree, tvbuff_t *tvb, const td_flow *flow, int sender, uint32_t frame);
void tcpdiag_cc_experts(proto_tree *tree, packet_info *pinfo, tvbuff_t *tvb, const td_flow *flow);

/* The ECN and TCP options expert items of a packet (setup-tcpdiag.c); sender is the
 * packet's endpoint in the flow, or -1 when the frame only quotes a segment. */
void tcpdiag_setup_experts(proto_tree *tree, packet_info *pinfo, tvbuff_t *tvb, const td_flow *flow, int sender,
                           bool complete);

/* tcpdiag.offload: the cap Note (offload-tcpdiag.c). */
void tcpdiag_offload_experts(proto_tree *tree, packet_info *pinfo, tvbuff_t *tvb, const td_flow *flow);

/* tcpdiag.diag and tcpdiag.host.stall: the answer experts, and the answer's items
 * that follow the Diagnosis subtree on the same packets (diag-tcpdiag.c). */
void tcpdiag_diag_register(void);
void tcpdiag_diag_items(proto_tree *tree, tvbuff_t *tvb, const td_flow *flow, uint32_t frame);
void tcpdiag_diag_experts(proto_tree *tree, packet_info *pinfo, tvbuff_t *tvb, const td_flow *flow);

/* tcpdiag.host and tcpdiag.sender: the per-host Notes (host-tcpdiag.c). */
void tcpdiag_host_experts(proto_tree *tree, packet_info *pinfo, tvbuff_t *tvb, const td_flow *flow);

#endif
