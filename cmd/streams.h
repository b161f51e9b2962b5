/* Stream numbers as Wireshark's tcp.stream gives them, so that the command's flows
 * are the plugin's and the GUI's: one stream per conversation (the two endpoints,
 * in either direction), numbered from 0 in order of first appearance, and a new
 * one when a SYN reuses the ports of a conversation it cannot belong to. */
#ifndef TCPDIAG_CMD_STREAMS_H
#define TCPDIAG_CMD_STREAMS_H

#include <stdbool.h>
#include "record.h"
#include "wireshark.h"

/* Wireshark changed when a SYN starts a new stream:
 *   4.0: a SYN whose sequence number differs from the first its sender used in the
 *        conversation (a sender first seen mid-flow counts from its seq - 1);
 *   4.4, 4.6: that, or a SYN once either side sent a FIN or RST; and the same for a
 *        SYN-ACK. Either way only once the sender's count has a start. */
typedef struct td_streams td_streams;

td_streams *td_streams_new(td_wireshark version);
void td_streams_free(td_streams *streams);

/* The stream of a segment, in capture order. analysed: Wireshark analysed the
 * segment's sequence numbers, which sets where each direction's count starts: not
 * for a quote in an ICMP error, nor for a header longer than its datagram
 * (td_decoded.header_fits). */
uint32_t td_streams_number(td_streams *streams, const td_record *rec, bool analysed);

/* The stream of the conversation the segment's endpoints have now, without
 * touching it: false when they have none. (The plugin reads segments Wireshark's
 * TCP dissector did not number, a header cut short, into the stream Wireshark's
 * conversation table gives their endpoints.) */
bool td_streams_find(td_streams *streams, const td_record *rec, uint32_t *stream);

/* The conversation of stream `stream` (its endpoints those of rec, either way round)
 * is over: its entry goes, and its memory serves the next conversation. A later
 * segment between the same endpoints starts a new stream. */
void td_streams_forget(td_streams *streams, const td_record *rec, uint32_t stream);

/* Conversations seen: the table holds one entry each, never one per packet. */
uint32_t td_streams_count(const td_streams *streams);

#endif
