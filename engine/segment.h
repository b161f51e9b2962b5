/* The reader of a TCP segment from bytes, for every front end that finds segments
 * in bytes (the plugin's segment-tcpdiag.c, the command's decode.c): the fixed TCP
 * header, the segment's lengths and its option bytes, read one way so that both
 * feed the core the same records. Below the flow model: plain C on a td_record. */
#ifndef TCPDIAG_SEGMENT_H
#define TCPDIAG_SEGMENT_H

#include <stddef.h>
#include <stdint.h>
#include "record.h"

/* What a front end found in a frame. */
typedef enum td_frame_kind {
    TD_FRAME_SEGMENT,       /* a TCP segment: the record is filled */
    TD_FRAME_QUOTED,        /* an ICMP error quoting a TCP segment: the record has its addresses and ports */
    TD_FRAME_OTHER,         /* not a TCP segment this front end reads (ARP, UDP, a fragment that completes
                               no datagram, a quote of no TCP header, a link type or tunnel not decoded) */
    TD_FRAME_MALFORMED,     /* headers cut short or inconsistent (the command counts these apart) */
} td_frame_kind;

/* How much of a TCP header a reading needs, from the header's start. */
enum {
    TD_TCP_PORTS_END = 4,       /* a quote is read from its ports */
    TD_TCP_FLAGS_END = 14,      /* a segment from its flags and data offset */
    TD_TCP_WINDOW_END = 16,
    TD_TCP_MIN_HEADER = 20,     /* a data offset of 5 words */
    TD_TCP_MAX_HEADER = 60,     /* of 15: no reading looks further */
};

/* The source and destination ports of the TCP header at tcp (TD_TCP_PORTS_END
 * bytes captured). */
void td_segment_read_ports(const uint8_t *tcp, td_record *rec);

/* The fixed TCP header at tcp, of which `captured` bytes are in memory (at least
 * TD_TCP_FLAGS_END): ports, sequence and acknowledgement numbers, the flags with
 * AE, the window when it was captured. Returns the header length the data offset
 * declares (below TD_TCP_MIN_HEADER when malformed). */
unsigned td_segment_read_header(const uint8_t *tcp, size_t captured, td_record *rec);

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

/* The options of the TCP header at tcp, tcp_header long as its data offset says
 * (at least TD_TCP_MIN_HEADER), `captured` bytes of it in memory: those after the
 * fixed 20 bytes, as far as they were captured. */
void td_segment_read_options(const uint8_t *tcp, size_t captured, unsigned tcp_header, td_tcp_options *out);

/* Reads the option bytes of a TCP header (after the fixed 20 bytes): `captured`
 * of the `declared` ones (the data offset's) are in bytes. Every well-formed option
 * before a bad or cut one is kept; `unknown` marks what the rest may hold: only
 * the bad option's own kind when it overruns a fully captured header (nothing can
 * follow it), everything not read when the snaplen cut it or its length is below 2. */
void td_options_parse(const uint8_t *bytes, size_t captured, size_t declared, td_tcp_options *out);

#endif
