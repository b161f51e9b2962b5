/* What a TCP segment's IP header says about the segment, for every front end that
 * reads segments from bytes (the plugin's segment-tcpdiag.c, the command's
 * decode.c): one reading, so both feed the core the same records. */
#ifndef TCPDIAG_SEGMENT_H
#define TCPDIAG_SEGMENT_H

#include <stdint.h>
#include "record.h"

/* Sets rec's IP ECN codepoint, its IPv4-length-0 mark and its payload length.
 * ip: the IP header (20 bytes of IPv4 or 40 of IPv6, as rec->src.len says), NULL
 * when the segment is not in the IP header's buffer (after reassembly);
 * tcp_offset: from the IP header to the TCP header; tcp_header: the TCP header's
 * length; reported: the bytes the frame reports from the TCP header on.
 * The payload is what the frame reports after the header, the IP length when
 * shorter; the IP length when the frame is shorter than it (a tool rewrote the
 * record's original length down to the captured one: payload_from_ip). An IP
 * length of 0 is TSO as its sender captured it (IPv4) or a jumbogram (IPv6): the
 * frame gives the length. A header past both ends gives no payload. */
void td_segment_lengths(td_record *rec, const uint8_t *ip, int64_t tcp_offset, unsigned tcp_header,
                        int64_t reported);

#endif
