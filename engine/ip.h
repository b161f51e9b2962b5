/* The IP layer read from bytes, for every front end that finds segments in bytes
 * (the plugin's segment-tcpdiag.c, the command's decode.c): an IPv4 header, or an
 * IPv6 header and its extension chain, to the upper-layer header, with one set of
 * rules for extension headers, fragments and what a header cut short is, so that
 * both front ends find the same segments where Wireshark's dissectors find them.
 * Below the flow model: plain C on bytes. */
#ifndef TCPDIAG_IP_H
#define TCPDIAG_IP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "record.h"

/* Protocol numbers both front ends ask about (IANA's "Assigned Internet Protocol
 * Numbers"). */
enum { TD_IPPROTO_ICMP = 1, TD_IPPROTO_TCP = 6, TD_IPPROTO_ICMPV6 = 58 };

/* The fixed headers: IPv4 without options, IPv6 without extension headers; where
 * their source address starts (the destination follows it). */
enum { TD_IPV4_MIN_HEADER = 20, TD_IPV6_HEADER = 40, TD_IPV4_SRC_AT = 12, TD_IPV6_SRC_AT = 8 };

typedef enum td_ip_verdict {
    TD_IP_READ,         /* *ip is filled */
    TD_IP_TRUNCATED,    /* the bytes end inside a header the walk has to step over */
    TD_IP_MALFORMED,    /* not an IPv4 or IPv6 header, or one that contradicts itself */
} td_ip_verdict;

/* One IP header as read; offsets count from the IP header's first byte. */
typedef struct td_ip {
    uint8_t version;            /* 4 or 6 */
    /* What payload_at holds: the upper-layer protocol (after any IPv6 extension
     * headers); in a fragment that is not the first, the protocol of the
     * fragmentable part, whose bytes here are from its middle. */
    uint8_t proto;
    uint32_t payload_at;
    /* The datagram's length as its header declares it (IPv4's total length, 40 +
     * IPv6's payload length); 0 when it declares none: IPv4 0 is TSO as its
     * sender captured it, IPv6 0 a jumbogram (RFC 2675). */
    uint32_t length;
    /* IPv6 with a payload length of 0 and a Jumbo Payload option in its
     * Hop-by-Hop header: that option's payload length. */
    bool has_jumbo;
    uint32_t jumbo_length;
    /* A piece of a fragmented datagram: where its fragmentable bytes start (after
     * IPv4's header, after IPv6's Fragment header), the protocol the datagram's
     * fragmentable part starts with, the piece's place in it in bytes, whether
     * pieces follow, and the identification that joins them (IPv4's 16 bits,
     * IPv6's 32). A whole datagram has offset 0 and no more. */
    uint32_t fragment_at;
    uint8_t fragment_proto;
    uint32_t fragment_offset;
    bool more_fragments;
    uint32_t fragment_id;
} td_ip;

/* Reads the IP header at bytes, `captured` of them in memory, and its IPv6
 * extension chain. */
td_ip_verdict td_ip_read(const uint8_t *bytes, size_t captured, td_ip *ip);

/* Walks the extension headers that open a reassembled IPv6 datagram's
 * fragmentable part, the first of type next (the Fragment header's next header),
 * `captured` bytes of it in memory, to the upper layer: proto and payload_at as
 * td_ip_read gives them, from bytes. */
td_ip_verdict td_ip_read_chain(const uint8_t *bytes, size_t captured, uint8_t next, td_ip *ip);

/* A piece of a fragmented datagram (an offset, or more to come); an atomic
 * fragment (RFC 6946: neither) is whole. */
bool td_ip_is_fragment(const td_ip *ip);

/* The source and destination addresses of the IP header at bytes, by its
 * version; false when it is neither IPv4 nor IPv6 or its fixed part was not
 * captured. */
bool td_ip_addresses(const uint8_t *bytes, size_t captured, td_addr *src, td_addr *dst);

/* Whether the bytes hold an IP header of src's version from src to dst, its fixed
 * part captured. Inline: a scan asks it at every place a header may start. */
static inline bool td_ip_carries(const uint8_t *bytes, size_t captured, const td_addr *src, const td_addr *dst)
{
    /* each version's lengths spelled as constants, so that the compares are inlined */
    if (src->len == 4)
        return dst->len == 4 && captured >= TD_IPV4_MIN_HEADER && (bytes[0] >> 4) == 4 &&
               memcmp(bytes + TD_IPV4_SRC_AT, src->bytes, 4) == 0 && memcmp(bytes + TD_IPV4_SRC_AT + 4, dst->bytes, 4) == 0;
    return dst->len == 16 && captured >= TD_IPV6_HEADER && (bytes[0] >> 4) == 6 &&
           memcmp(bytes + TD_IPV6_SRC_AT, src->bytes, 16) == 0 && memcmp(bytes + TD_IPV6_SRC_AT + 16, dst->bytes, 16) == 0;
}

#endif
