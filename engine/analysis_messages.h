/* The words of the expert Notes on what a flow's analyses and the per-host rules
 * found: a plateau the sender holds, a receive window that limits the transfer, a
 * congestion response, a window collapse, an offload cap, ECN flows slower than a
 * client's others, offload unused on a flow of a sender that offloads. The plugin
 * adds each Note with "%s" of what is written here, on the packet it chooses. */
#ifndef TCPDIAG_ANALYSIS_MESSAGES_H
#define TCPDIAG_ANALYSIS_MESSAGES_H

#include <glib.h>

#include "flight.h"
#include "hosts.h"

/* TD_E_FLIGHT_SENDER_LIMITED: f's sender holds its flight at plateau p. */
void td_message_sender_limited(const td_flight *f, const td_plateau *p, GString *out);
/* TD_E_FLIGHT_RWND_LIMITED: f's flight reached the offered window. */
void td_message_rwnd_limited(const td_flight *f, GString *out);
/* TD_E_CC_REDUCTION: the congestion response e, which cut the flight. */
void td_message_cc_reduction(const td_cc_event *e, GString *out);
/* TD_E_CC_WINDOW_COLLAPSE: f's window collapse. */
void td_message_window_collapse(const td_flight *f, GString *out);
/* TD_E_OFFLOAD_CAPPED: the cap on f's super-packets (f->seg.result). */
void td_message_offload_capped(const td_flight *f, GString *out);
/* TD_E_HOST_ECN_SLOWER: the client's ECN flows against its others. */
void td_message_ecn_slower(const td_client_summary *client, GString *out);
/* A client's ECN lottery: "K of N connections asked for ECN, M negotiated it" (the
 * client's subtree and its Statistics row). */
void td_message_ecn_lottery(const td_client_summary *client, GString *out);
/* TD_E_SENDER_OFFLOAD_UNUSED: a flow of sender s without offload. */
void td_message_offload_unused(const td_sender_summary *s, GString *out);

#endif
