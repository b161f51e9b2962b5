/* The reader of the IP layer from bytes: IPv4's header and options, IPv6's header
 * and extension chain, the fragment facts, each decided once for both front ends.
 *
 * The rules, and why (the plugin must find the segment Wireshark's TCP dissector
 * read, and the command must read what tshark reads, so where an RFC leaves room
 * the choice is what Wireshark decides, seen in tshark 4.0):
 *
 * - IPv4 (RFC 791): the version nibble is 4; the header is IHL words long, at
 *   least 5 (options follow the fixed 20 bytes) and wholly captured; a total
 *   length below the header is malformed (Wireshark: "bogus IP length", nothing
 *   handed on), one of 0 is TSO as its sender captured it (the frame gives the
 *   length). The fragment field: the offset in its low 13 bits, in 8-byte units;
 *   More Fragments is 0x2000; Don't Fragment and the reserved bit say nothing
 *   about where the bytes belong.
 *
 * - IPv6 (RFC 8200): the version nibble is 6 and the 40 bytes are captured. The
 *   walk steps over the extension headers that carry a next header and a length
 *   and after which the datagram goes on, in any order and any number:
 *     Hop-by-Hop (0), Routing (43), Destination Options (60): (length + 1) * 8
 *       bytes (§4.3, 4.4, 4.6);
 *     Fragment (44): 8 bytes (§4.5);
 *     Authentication (51): (length + 2) * 4 bytes (RFC 4302 §2.2);
 *     Shim6 (140): (length + 1) * 8 bytes (RFC 5533 §5; Wireshark hands its
 *       next header on).
 *   Every other value ends the walk and is the upper-layer protocol, among them
 *   the extension headers nothing readable follows: ESP (50: the rest is
 *   encrypted), No Next Header (59), Mobility (135), HIP (139) and the
 *   experimental 253 and 254. The Mobility header's Payload Proto "SHOULD" be
 *   59 (RFC 6275 §6.1.1; a payload after it is a future extension, Appendix B.1)
 *   and Wireshark's Mobile IPv6 dissector hands nothing on, even when it names
 *   TCP: a TCP header after a Mobility header is not a segment.
 *
 * - A header the walk steps over must be wholly captured, else the chain is
 *   truncated: Wireshark stops at a header cut short, and reads nothing after it.
 *
 * - No count of extension headers: each takes 8 bytes at least, so the captured
 *   bytes bound the walk. RFC 8200 sets no limit, and Wireshark's only one is its
 *   layer depth (gui.max_tree_depth, 500 layers in 4.0: TCP still read after 495
 *   Destination Options headers in an Ethernet frame); a count of 8 or 16 would
 *   drop segments tshark reads.
 *
 * - IPv6 fragments (RFC 8200 §4.5): the Fragment header's 16 bits at +2 hold the
 *   offset in 8-byte units in the top 13 (so masked with 0xfff8 they are the
 *   offset in bytes), 2 reserved bits, and M, the lowest. The first piece (offset
 *   0) holds the rest of the chain and the upper-layer header (RFC 7112), so the
 *   walk goes on through it; a later piece's bytes are from the middle of the
 *   fragmentable part, so the walk ends at the Fragment header, with its next
 *   header as the protocol. Reassembled, the fragmentable part may open with
 *   more extension headers (a Destination Options header after the Fragment
 *   header): Wireshark walks them to TCP, and so does td_ip_read_chain. An
 *   atomic fragment (offset 0, no M) is a whole datagram (RFC 6946 §4). A chain
 *   holds one Fragment header (§4.1); where it holds more, the first that makes
 *   a piece says which (reassembly takes the datagram there, and reads the rest
 *   after).
 *
 * - A jumbogram (RFC 2675): IPv6's payload length is 0 and the Hop-by-Hop header,
 *   which only follows the IPv6 header (RFC 8200 §4.3), holds a Jumbo Payload
 *   option (type 0xC2, 4 bytes of length). */
#include "ip.h"

#include <string.h>

enum {
    EXT_HOP_BY_HOP = 0, EXT_ROUTING = 43, EXT_FRAGMENT = 44, EXT_AUTHENTICATION = 51,
    EXT_DESTINATION = 60, EXT_SHIM6 = 140,
};
enum { FRAGMENT_HEADER = 8, EXT_MIN_HEADER = 8 };
enum { OPT_PAD1 = 0, OPT_JUMBO = 0xc2, JUMBO_LENGTH = 4 };
enum { IPV4_MORE_FRAGMENTS = 0x2000, IPV4_OFFSET_UNITS = 0x1fff, IPV6_OFFSET_BYTES = 0xfff8, IPV6_MORE = 1 };

static uint16_t get16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

bool td_ip_is_fragment(const td_ip *ip)
{
    return ip->more_fragments || ip->fragment_offset != 0;
}

bool td_ip_addresses(const uint8_t *bytes, size_t captured, td_addr *src, td_addr *dst)
{
    unsigned version = captured ? bytes[0] >> 4 : 0;
    size_t len = version == 4 ? 4 : 16;

    if ((version != 4 && version != 6) || captured < (version == 4 ? TD_IPV4_MIN_HEADER : TD_IPV6_HEADER))
        return false;
    src->len = dst->len = (uint8_t)len;
    /* copies of a constant size, which the compiler makes moves: a call to memcpy
     * with the length as a variable cost 30 instructions a packet */
    if (version == 4) {
        memcpy(src->bytes, bytes + TD_IPV4_SRC_AT, 4);
        memcpy(dst->bytes, bytes + TD_IPV4_SRC_AT + 4, 4);
    } else {
        memcpy(src->bytes, bytes + TD_IPV6_SRC_AT, 16);
        memcpy(dst->bytes, bytes + TD_IPV6_SRC_AT + 16, 16);
    }
    return true;
}

static td_ip_verdict read_ipv4(const uint8_t *h, size_t captured, td_ip *ip)
{
    uint32_t header = (h[0] & 15) * 4u, fragment;

    if (captured < TD_IPV4_MIN_HEADER)
        return TD_IP_TRUNCATED;
    ip->length = get16(h + 2);
    fragment = get16(h + 6);
    if (header < TD_IPV4_MIN_HEADER || (ip->length && ip->length < header))
        return TD_IP_MALFORMED;
    if (captured < header)
        return TD_IP_TRUNCATED;
    ip->proto = ip->fragment_proto = h[9];
    ip->payload_at = ip->fragment_at = header;
    ip->fragment_offset = (fragment & IPV4_OFFSET_UNITS) * 8;
    ip->more_fragments = (fragment & IPV4_MORE_FRAGMENTS) != 0;
    ip->fragment_id = get16(h + 4);
    return TD_IP_READ;
}

/* The Jumbo Payload option among the options of the Hop-by-Hop header at x,
 * len bytes long (all captured). */
static void read_jumbo(const uint8_t *x, uint32_t len, td_ip *ip)
{
    for (uint32_t at = 2; at + 2 <= len;) {
        if (x[at] == OPT_PAD1) {
            at++;
            continue;
        }
        if (x[at] == OPT_JUMBO && x[at + 1] == JUMBO_LENGTH && at + 2 + JUMBO_LENGTH <= len) {
            ip->has_jumbo = true;
            ip->jumbo_length = get32(x + at + 2);
            return;
        }
        at += 2u + x[at + 1];
    }
}

/* The extension headers the walk steps over. */
static bool is_extension(uint8_t next)
{
    return next == EXT_HOP_BY_HOP || next == EXT_ROUTING || next == EXT_DESTINATION || next == EXT_SHIM6 ||
           next == EXT_FRAGMENT || next == EXT_AUTHENTICATION;
}

/* The length of the extension header x of type next (is_extension), its first
 * EXT_MIN_HEADER bytes captured. */
static uint32_t extension_length(uint8_t next, const uint8_t *x)
{
    if (next == EXT_FRAGMENT)
        return FRAGMENT_HEADER;
    if (next == EXT_AUTHENTICATION)
        return (x[1] + 2u) * 4;
    return (x[1] + 1u) * 8;
}

/* The extension headers from h + at on, the first of type next, to the upper
 * layer; the Jumbo Payload option is looked for when the first is the Hop-by-Hop
 * header of an IPv6 header with a payload length of 0. */
static td_ip_verdict walk_chain(const uint8_t *h, size_t captured, uint32_t at, uint8_t next, bool jumbo_possible,
                                td_ip *ip)
{
    for (uint32_t first = at; is_extension(next);) {
        const uint8_t *x = h + at;
        if (captured < at + EXT_MIN_HEADER)
            return TD_IP_TRUNCATED;
        uint32_t len = extension_length(next, x);
        if (captured < at + len)
            return TD_IP_TRUNCATED;
        if (next == EXT_HOP_BY_HOP && at == first && jumbo_possible)
            read_jumbo(x, len, ip);
        if (next == EXT_FRAGMENT && !td_ip_is_fragment(ip)) {
            ip->fragment_at = at + FRAGMENT_HEADER;
            ip->fragment_proto = x[0];
            ip->fragment_offset = get16(x + 2) & IPV6_OFFSET_BYTES;
            ip->more_fragments = (get16(x + 2) & IPV6_MORE) != 0;
            ip->fragment_id = get32(x + 4);
            if (ip->fragment_offset) {      /* the rest of its bytes are payload, not headers */
                ip->payload_at = ip->fragment_at;
                ip->proto = ip->fragment_proto;
                return TD_IP_READ;
            }
        }
        next = x[0];
        at += len;
    }
    ip->payload_at = at;
    ip->proto = next;
    return TD_IP_READ;
}

static td_ip_verdict read_ipv6(const uint8_t *h, size_t captured, td_ip *ip)
{
    if (captured < TD_IPV6_HEADER)
        return TD_IP_TRUNCATED;
    ip->length = get16(h + 4) ? get16(h + 4) + TD_IPV6_HEADER : 0;
    return walk_chain(h, captured, TD_IPV6_HEADER, h[6], ip->length == 0, ip);
}

td_ip_verdict td_ip_read_chain(const uint8_t *bytes, size_t captured, uint8_t next, td_ip *ip)
{
    memset(ip, 0, sizeof *ip);
    ip->version = 6;
    return walk_chain(bytes, captured, 0, next, false, ip);
}

td_ip_verdict td_ip_read(const uint8_t *bytes, size_t captured, td_ip *ip)
{
    memset(ip, 0, sizeof *ip);
    if (!captured)
        return TD_IP_TRUNCATED;
    ip->version = bytes[0] >> 4;
    if (ip->version == 4)
        return read_ipv4(bytes, captured, ip);
    if (ip->version == 6)
        return read_ipv6(bytes, captured, ip);
    return TD_IP_MALFORMED;
}
