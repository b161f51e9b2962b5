/* Raw frame bytes to the td_record the plugin builds from a dissected frame
 * (plugin/packet-tcpdiag.c, read_record), without Wireshark: the link layers met
 * in practice, the tunnels customer captures hold (GRE with ERSPAN, VXLAN, Geneve,
 * MPLS, PPPoE), IPv4, IPv6 with extension headers and fragments, TCP with options, and ICMP
 * errors quoting a TCP segment. No wiretap here, so unit tests and the fuzzer use
 * it alone. */
#ifndef TCPDIAG_CMD_DECODE_H
#define TCPDIAG_CMD_DECODE_H

#include <stdint.h>
#include "fragments.h"
#include "record.h"
#include "segment.h"
#include "wireshark.h"

/* Link layers the decoder reads (reader.c maps wiretap's encapsulations to them). */
typedef enum td_link {
    TD_LINK_UNSUPPORTED = 0,
    TD_LINK_ETHERNET,       /* with any number of 802.1Q / 802.1ad tags */
    TD_LINK_SLL,            /* Linux cooked v1 */
    TD_LINK_SLL2,           /* Linux cooked v2 */
    TD_LINK_RAW,            /* IPv4 or IPv6, told apart by the version nibble */
    TD_LINK_RAW4,
    TD_LINK_RAW6,
    TD_LINK_NULL,           /* BSD loopback: address family in host byte order */
    TD_LINK_LOOP,           /* OpenBSD loopback: address family in network byte order */
    TD_LINK_PPP,            /* PPP, with or without HDLC-like address and control bytes */
} td_link;

enum { TD_LINK_LAST = TD_LINK_PPP };

/* One frame as the capture file holds it. wire_len is the original length (what
 * Wireshark calls the reported length), normally at least caplen; a record that
 * claims less is read with its captured length, as Wireshark reads it. */
typedef struct td_frame {
    td_link link;
    const uint8_t *data;
    uint32_t caplen, wire_len;
    uint32_t number;        /* 1-based, as frame.number */
    int64_t time_ns;
} td_frame;

/* What the stream numbering and the engine need to know besides the record. */
typedef struct td_decoded {
    /* Wireshark's TCP dissector numbered a stream for the segment (it gives up
     * earlier on a header cut short). A segment it did not number is still read by
     * the plugin when a conversation with its endpoints exists: the plugin takes
     * the stream from Wireshark's conversation table, not from the TCP dissector. */
    bool numbered;
    /* The TCP header's length fits in what the IP length leaves it: Wireshark gives
     * tcp.len and analyses the segment's sequence numbers only then. */
    bool header_fits;
    /* The plugin reads a record from it (not from a data offset below 5 words,
     * which Wireshark still numbers). */
    bool recorded;
} td_decoded;

/* Fills rec, all but the stream (streams.c numbers it). A quote gets the quoted
 * segment's addresses, ports, flags and sequence numbers. IP fragments are put
 * together in fragments (one table per capture), and the datagram they make is
 * read at the frame that completes it; with NULL, pieces are not put together. */
td_frame_kind td_decode(const td_frame *frame, td_wireshark version, td_fragments *fragments, td_record *rec,
                        td_decoded *info);

#endif
