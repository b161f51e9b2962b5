/* Frame bytes to td_record, decided the way Wireshark's dissectors and the plugin's
 * tcpdiag_read_record (plugin/segment-tcpdiag.c) decide, so that the command and the
 * plugin feed the core the same records: where Wireshark numbers a stream, where
 * the plugin finds a segment in the bytes, and the lengths it reads. */
#include "decode.h"
#include "fragments.h"
#include "ip.h"
#include "segment.h"

#include <string.h>

enum {
    ETHERTYPE_IPV4 = 0x0800, ETHERTYPE_IPV6 = 0x86dd, ETHERTYPE_VLAN = 0x8100, ETHERTYPE_QINQ = 0x88a8,
    ETHERTYPE_QINQ_OLD = 0x9100, ETHERTYPE_MPLS = 0x8847, ETHERTYPE_MPLS_MULTICAST = 0x8848,
    ETHERTYPE_PPPOE_SESSION = 0x8864,
    /* GRE's protocol types beyond the ethertypes above */
    GRE_TRANSPARENT_ETHERNET = 0x6558, GRE_ERSPAN_I_II = 0x88be, GRE_ERSPAN_III = 0x22eb,
    PPP_IPV4 = 0x0021, PPP_IPV6 = 0x0057,
    IPPROTO_IPIP_N = 4, IPPROTO_UDP_N = 17, IPPROTO_IPV6_N = 41, IPPROTO_GRE_N = 47,
    UDP_PORT_VXLAN = 4789, UDP_PORT_GENEVE = 6081,
    ETHERNET_HEADER = 14, SLL_HEADER = 16, SLL2_HEADER = 20,
    UDP_HEADER = 8, VXLAN_HEADER = 8, GENEVE_HEADER = 8, PPPOE_HEADER = 6,
    ERSPAN_II_HEADER = 8, ERSPAN_III_HEADER = 12, ERSPAN_III_PLATFORM = 8,
    MPLS_MAX_LABELS = 16,
    /* The TCP bytes Wireshark needs before it numbers the stream: to the window up
     * to 4.4, to the flags from 4.6 (crafted cuts, test_decode.c) */
    TCP_STREAM_BYTES_4_0 = 16, TCP_STREAM_BYTES_4_6 = 14,
    ICMP_HEADER = 8,
    MAX_IP_NESTING = 4,     /* IP in IP, or an ICMP error's quote: deeper is hostile */
    /* IPv4's first byte with a header of 20 bytes; its fragment field's More
     * Fragments bit and offset (engine/ip.c reads them) */
    IPV4_NO_OPTIONS = 0x45, IPV4_PIECE_BITS = 0x3fff,
};

static uint16_t get16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* What one IP layer leaves to the next: where its payload starts, how long the
 * capture says it is, and what the header needs to be read again for the record. */
typedef struct ip_layer {
    uint32_t at;            /* offset of the IP header in the frame */
    uint32_t payload_at;    /* offset of the upper-layer header */
    uint32_t reported_end;  /* end of the datagram as Wireshark's tvb reports it */
    uint8_t  proto;
    bool     piece;         /* a piece of a fragmented datagram (engine/ip.c, td_ip_is_fragment) */
    bool     header_here;   /* the IP header is in these bytes (not after reassembly) */
    bool     dissected;     /* Wireshark hands the payload on (not an IPv6 length of 0 without jumbo) */
    /* a piece's place: its fragmentable bytes start at piece_at, offset bytes into
     * the datagram's payload (0: the first piece, which holds the upper-layer
     * header; 0 too when the datagram is whole); the protocol they carry; whether
     * pieces follow (false when whole) */
    uint32_t piece_at, piece_end, piece_offset, ident;
    uint8_t  piece_proto;
    bool     more_pieces;
} ip_layer;

typedef struct cursor {
    const td_frame *frame;
    td_wireshark version;
    td_fragments *fragments;    /* NULL: pieces are not put together */
    int depth;
    bool quoted;
    td_decoded info;
} cursor;

static td_frame_kind decode_ip(cursor *c, uint32_t at, uint32_t end, bool quoted, td_record *rec);
static td_frame_kind decode_ethernet(cursor *c, uint32_t at, uint32_t end, td_record *rec);

/* Wireshark shrinks a datagram's buffer to the IP length, never grows it; a
 * length of 0 (TSO, as the sender captured it) leaves the frame's length. */
static uint32_t datagram_end(uint32_t at, uint32_t ip_len, uint32_t end)
{
    return ip_len && at + ip_len < end ? at + ip_len : end;
}

/* The IP header at at, read by engine/ip.c, as the layers after it need it. */
static td_frame_kind read_ip(const td_frame *f, uint32_t at, uint32_t end, ip_layer *ip, td_record *rec)
{
    td_ip read;

    if (td_ip_read(f->data + at, f->caplen - at, &read) != TD_IP_READ)
        return TD_FRAME_MALFORMED;
    td_ip_addresses(f->data + at, f->caplen - at, &rec->src, &rec->dst);
    ip->at = at;
    ip->payload_at = at + read.payload_at;
    ip->proto = read.proto;
    ip->header_here = true;
    if (read.version == 4 || read.length) {
        ip->reported_end = datagram_end(at, read.length, end);
        ip->dissected = true;
    } else {
        /* A jumbogram: without its Jumbo Payload option Wireshark hands nothing
         * on, while the plugin reads the segment to the frame's end. */
        ip->dissected = read.has_jumbo;
        ip->reported_end = read.has_jumbo && read.jumbo_length <= end - at - TD_IPV6_HEADER
                           ? at + TD_IPV6_HEADER + read.jumbo_length : end;
    }
    ip->piece_at = at + read.fragment_at;
    ip->piece_end = at + read.length;
    ip->piece_offset = read.fragment_offset;
    ip->piece_proto = read.fragment_proto;
    ip->ident = read.fragment_id;
    ip->more_pieces = read.more_fragments;
    ip->piece = td_ip_is_fragment(&read);
    return TD_FRAME_SEGMENT;
}

static td_frame_kind decode_tcp(cursor *c, const ip_layer *ip, td_record *rec)
{
    const td_frame *f = c->frame;
    uint32_t at = ip->payload_at;
    uint32_t reported = ip->reported_end > at ? ip->reported_end - at : 0;
    uint32_t captured = f->caplen > at ? f->caplen - at : 0;
    const uint8_t *h = f->data + at;
    uint32_t header;

    /* Wireshark numbers the stream once it has read that much of the header */
    c->info.numbered = ip->dissected &&
        (captured < reported ? captured : reported) >=
        (c->version >= TD_WIRESHARK_4_6 ? TCP_STREAM_BYTES_4_6 : TCP_STREAM_BYTES_4_0);
    /* Wireshark calls TCP only on a datagram with a payload (the plugin reads only
     * what TCP was called on); a quote is read from the bytes whatever its length */
    if ((!c->quoted && (!ip->dissected || reported == 0)) || captured < (c->quoted ? TD_TCP_PORTS_END : TD_TCP_FLAGS_END))
        return TD_FRAME_MALFORMED;
    if (c->quoted && captured < TD_TCP_FLAGS_END) {
        td_segment_read_ports(h, rec);
        return TD_FRAME_SEGMENT;            /* a quote needs its ports only */
    }
    header = td_segment_read_header(h, captured, rec);
    c->info.header_fits = reported >= header;
    c->info.recorded = header >= TD_TCP_MIN_HEADER;
    if (!c->info.recorded)
        return TD_FRAME_SEGMENT;
    td_segment_lengths(rec, ip->header_here ? f->data + ip->at : NULL, at - ip->at, header,
                       (int64_t)f->wire_len - at);
    /* Options are read from the frame's bytes, trailer included, as the plugin does. */
    td_segment_read_options(h, captured, header, &rec->options);
    return TD_FRAME_SEGMENT;
}

static bool icmp_error(uint8_t proto, uint8_t type)
{
    if (proto == TD_IPPROTO_ICMP)    /* unreachable, source quench, redirect, time exceeded, parameter problem */
        return type == 3 || type == 4 || type == 5 || type == 11 || type == 12;
    return type >= 1 && type <= 4;  /* ICMPv6: unreachable, too big, time exceeded, parameter problem */
}

/* An ICMP error carries the start of the datagram it reports: a TCP one in it is
 * a quote, its stream the quoted segment's. */
static td_frame_kind decode_icmp(cursor *c, const ip_layer *ip, td_record *rec)
{
    const td_frame *f = c->frame;
    td_frame_kind kind;

    if (f->caplen < ip->payload_at + ICMP_HEADER)
        return TD_FRAME_MALFORMED;
    if (!icmp_error(ip->proto, f->data[ip->payload_at]))
        return TD_FRAME_OTHER;
    c->quoted = true;
    kind = decode_ip(c, ip->payload_at + ICMP_HEADER, f->caplen, true, rec);
    if (kind != TD_FRAME_SEGMENT)
        return kind;
    /* the quoted datagram was sent by the host the error goes back to */
    return memcmp(rec->src.bytes, f->data + ip->at + (rec->src.len == 4 ? 16 : 24), rec->src.len) == 0
           ? TD_FRAME_QUOTED : TD_FRAME_OTHER;
}

/* An MPLS label stack: labels to the one with the bottom-of-stack bit, then IPv4
 * or IPv6, told apart by the version nibble as Wireshark does (a pseudowire's
 * control word or Ethernet, nibble 0, is not decoded). */
static td_frame_kind decode_mpls(cursor *c, uint32_t at, uint32_t end, td_record *rec)
{
    const td_frame *f = c->frame;

    for (int n = 0; n < MPLS_MAX_LABELS; n++, at += 4) {
        if (f->caplen < at + 4)
            return TD_FRAME_MALFORMED;
        if (f->data[at + 2] & 1) {      /* bottom of stack */
            at += 4;
            if (f->caplen <= at)
                return TD_FRAME_MALFORMED;
            return (f->data[at] >> 4) == 4 || (f->data[at] >> 4) == 6 ? decode_ip(c, at, end, false, rec)
                                                                      : TD_FRAME_OTHER;
        }
    }
    return TD_FRAME_MALFORMED;
}

/* PPP's protocol field, at at: IPv4 or IPv6. */
static td_frame_kind decode_ppp_protocol(cursor *c, uint32_t at, uint32_t end, td_record *rec)
{
    const td_frame *f = c->frame;
    uint16_t protocol;

    if (f->caplen < at + 2)
        return TD_FRAME_MALFORMED;
    protocol = get16(f->data + at);
    return protocol == PPP_IPV4 || protocol == PPP_IPV6 ? decode_ip(c, at + 2, end, false, rec) : TD_FRAME_OTHER;
}

/* A PPPoE session packet: version/type, code, session id, length, then PPP. */
static td_frame_kind decode_pppoe(cursor *c, uint32_t at, uint32_t end, td_record *rec)
{
    if (c->frame->caplen < at + PPPOE_HEADER)
        return TD_FRAME_MALFORMED;
    return decode_ppp_protocol(c, at + PPPOE_HEADER, end, rec);
}

/* What an ethertype carries, at offset at. */
static td_frame_kind decode_ethertype(cursor *c, uint16_t type, uint32_t at, uint32_t end, td_record *rec)
{
    switch (type) {
    case ETHERTYPE_IPV4:
    case ETHERTYPE_IPV6:
        return decode_ip(c, at, end, false, rec);
    case ETHERTYPE_MPLS:
    case ETHERTYPE_MPLS_MULTICAST:
        return decode_mpls(c, at, end, rec);
    case ETHERTYPE_PPPOE_SESSION:
        return decode_pppoe(c, at, end, rec);
    default:
        return TD_FRAME_OTHER;
    }
}

/* What a tunnel's protocol type carries: an ethertype's payload, or a whole
 * Ethernet frame (transparent Ethernet bridging). Only a tunnel, which rides on
 * IP, carries Ethernet: nesting stays bounded by the IP nesting limit. */
static td_frame_kind decode_tunnelled(cursor *c, uint16_t type, uint32_t at, uint32_t end, td_record *rec)
{
    return type == GRE_TRANSPARENT_ETHERNET ? decode_ethernet(c, at, end, rec)
                                            : decode_ethertype(c, type, at, end, rec);
}

/* GRE (RFC 2784, 2890): flags and version, protocol type, then the checksum, key
 * and sequence number its flags announce. ERSPAN rides on GRE: type I (no
 * sequence number) carries the mirrored Ethernet frame bare, type II after an
 * 8-byte header, type III after 12 bytes and an optional 8-byte platform one. */
static td_frame_kind decode_gre(cursor *c, const ip_layer *ip, td_record *rec)
{
    const td_frame *f = c->frame;
    uint32_t at = ip->payload_at, end = ip->reported_end;
    uint16_t flags, type;

    if (f->caplen < at + 4)
        return TD_FRAME_MALFORMED;
    flags = get16(f->data + at);
    type = get16(f->data + at + 2);
    if ((flags & 7) != 0)               /* version 1 is PPTP's enhanced GRE: not decoded */
        return TD_FRAME_OTHER;
    at += 4 + ((flags & 0x8000) ? 4 : 0) + ((flags & 0x2000) ? 4 : 0) + ((flags & 0x1000) ? 4 : 0);
    switch (type) {
    case GRE_ERSPAN_I_II:
        if (flags & 0x1000)
            at += ERSPAN_II_HEADER;
        return decode_ethernet(c, at, end, rec);
    case GRE_ERSPAN_III:
        if (f->caplen < at + ERSPAN_III_HEADER)
            return TD_FRAME_MALFORMED;
        at += ERSPAN_III_HEADER + ((f->data[at + ERSPAN_III_HEADER - 1] & 1) ? ERSPAN_III_PLATFORM : 0);
        return decode_ethernet(c, at, end, rec);
    default:
        return decode_tunnelled(c, type, at, end, rec);
    }
}

/* Geneve (RFC 8926): version and options length (in 4-byte words), flags, the
 * protocol type of what follows, VNI; then the options. */
static td_frame_kind decode_geneve(cursor *c, uint32_t at, uint32_t end, td_record *rec)
{
    const td_frame *f = c->frame;

    if (f->caplen < at + GENEVE_HEADER)
        return TD_FRAME_MALFORMED;
    if (f->data[at] >> 6)               /* only version 0 exists */
        return TD_FRAME_OTHER;
    return decode_tunnelled(c, get16(f->data + at + 2), at + GENEVE_HEADER + (f->data[at] & 0x3f) * 4u, end,
                            rec);
}

/* UDP tunnels on their registered ports: VXLAN (8-byte header, then Ethernet)
 * and Geneve. Wireshark tries the lower port's dissector first, then the higher;
 * this looks for a tunnel port in that order (a tunnel's other port is a flow hash,
 * almost always an ephemeral one with no dissector of its own). */
static td_frame_kind decode_udp(cursor *c, const ip_layer *ip, td_record *rec)
{
    const td_frame *f = c->frame;
    uint32_t at = ip->payload_at;
    uint16_t sport, dport, ports[2];

    if (f->caplen < at + UDP_HEADER)
        return TD_FRAME_MALFORMED;
    sport = get16(f->data + at);
    dport = get16(f->data + at + 2);
    ports[0] = sport < dport ? sport : dport;
    ports[1] = sport < dport ? dport : sport;
    for (int i = 0; i < 2; i++) {
        if (ports[i] == UDP_PORT_VXLAN)
            return decode_ethernet(c, at + UDP_HEADER + VXLAN_HEADER, ip->reported_end, rec);
        if (ports[i] == UDP_PORT_GENEVE)
            return decode_geneve(c, at + UDP_HEADER, ip->reported_end, rec);
    }
    return TD_FRAME_OTHER;
}

/* What an IP payload carries, by protocol. */
static td_frame_kind decode_ip_payload(cursor *c, const ip_layer *ip, bool quoted, td_record *rec)
{
    switch (ip->proto) {
    case TD_IPPROTO_TCP:
        return decode_tcp(c, ip, rec);
    case IPPROTO_IPIP_N:
    case IPPROTO_IPV6_N:
        return decode_ip(c, ip->payload_at, ip->reported_end, quoted, rec);
    case TD_IPPROTO_ICMP:
    case TD_IPPROTO_ICMPV6:
        /* an error about an error is not sent (RFC 1122 §3.2.2), so not read; one
         * whose header comes from reassembled bytes is not read either */
        return quoted || !ip->header_here ? TD_FRAME_OTHER : decode_icmp(c, ip, rec);
    case IPPROTO_GRE_N:
        return quoted ? TD_FRAME_OTHER : decode_gre(c, ip, rec);
    case IPPROTO_UDP_N:
        return quoted ? TD_FRAME_OTHER : decode_udp(c, ip, rec);
    default:
        return TD_FRAME_OTHER;
    }
}

/* A piece of a fragmented datagram, as Wireshark's IP dissectors take it. A piece
 * whose bytes were all captured goes to reassembly, and the datagram is read at
 * the piece that completes it, from the reassembled bytes (no IP header there, so
 * no ECN codepoint, as in the plugin). IPv4 hands a first piece cut by the snaplen
 * on as it is, with the upper-layer header it holds; IPv6 does not. */
static td_frame_kind decode_piece(cursor *c, ip_layer *ip, td_record *rec)
{
    const td_frame *f = c->frame;
    td_fragment_key key = { .src = rec->src, .dst = rec->dst, .ident = ip->ident, .proto = ip->piece_proto };
    uint32_t whole_len;
    const uint8_t *whole;

    if (ip->piece_end > f->caplen || ip->piece_end < ip->piece_at) {
        if (rec->src.len == 4 && ip->piece_offset == 0)
            return decode_ip_payload(c, ip, false, rec);
        return TD_FRAME_OTHER;
    }
    if (!c->fragments)
        return TD_FRAME_OTHER;
    whole = td_fragments_add(c->fragments, &key,
                             &(td_fragment){ ip->piece_offset, ip->more_pieces, f->data + ip->piece_at,
                                             ip->piece_end - ip->piece_at },
                             &whole_len);
    if (!whole)
        return TD_FRAME_OTHER;
    /* the datagram's payload as a frame of its own, read from its start, past the
     * extension headers an IPv6 one's may open with (engine/ip.c) */
    td_frame datagram = { f->link, whole, whole_len, whole_len, f->number, f->time_ns };
    ip_layer reassembled = { .payload_at = 0, .reported_end = whole_len, .proto = ip->piece_proto,
                             .dissected = true };
    if (rec->src.len == 16) {
        td_ip chain;
        if (td_ip_read_chain(whole, whole_len, ip->piece_proto, &chain) != TD_IP_READ)
            return TD_FRAME_MALFORMED;
        if (td_ip_is_fragment(&chain))
            return TD_FRAME_OTHER;      /* a piece of a datagram it carries: not put together */
        reassembled.payload_at = chain.payload_at;
        reassembled.proto = chain.proto;
    }
    cursor inner = *c;
    inner.frame = &datagram;
    td_frame_kind kind = decode_ip_payload(&inner, &reassembled, false, rec);
    c->info = inner.info;
    return kind;
}

static td_frame_kind decode_ip(cursor *c, uint32_t at, uint32_t end, bool quoted, td_record *rec)
{
    const td_frame *f = c->frame;
    ip_layer ip;
    td_frame_kind kind;

    if (++c->depth > MAX_IP_NESTING || f->caplen <= at)
        return TD_FRAME_MALFORMED;
    kind = read_ip(f, at, end, &ip, rec);
    if (kind != TD_FRAME_SEGMENT)
        return kind;
    /* a quote's own first piece still carries the quoted header */
    if (ip.piece && !quoted)
        return decode_piece(c, &ip, rec);
    if (ip.piece_offset)
        return TD_FRAME_OTHER;
    return decode_ip_payload(c, &ip, quoted, rec);
}

/* An Ethernet frame from its destination address: any number of 802.1Q / 802.1ad
 * tags, then its ethertype. */
static td_frame_kind decode_ethernet(cursor *c, uint32_t at, uint32_t end, td_record *rec)
{
    const td_frame *f = c->frame;
    uint32_t type_at = at + 12;
    uint16_t type;

    for (;;) {
        if (f->caplen < type_at + 2)
            return TD_FRAME_MALFORMED;
        type = get16(f->data + type_at);
        if (type != ETHERTYPE_VLAN && type != ETHERTYPE_QINQ && type != ETHERTYPE_QINQ_OLD)
            break;
        type_at += 4;           /* the tag's control information; its type follows */
        if (type_at >= at + 64)
            return TD_FRAME_OTHER;
    }
    return decode_ethertype(c, type, type_at + 2, end, rec);
}

/* The IP header's length when the frame holds, behind a link header whose ethertype
 * is at type_at, IPv4 with a 20-byte header, whole (not a piece of a fragmented
 * datagram), or IPv6 with no extension header, either carrying TCP at once; 0 for
 * any other frame. Ethernet without a tag and Linux's cooked captures (any
 * interface) hold little else. Such a frame's record is read straight from
 * decode_tcp, with the IP layer decode_ip would have made of it (the walk the other
 * frames take reads the same), at a third of the instructions (issue 38: the read
 * floor). */
static uint32_t plain_ip_tcp(const td_frame *f, uint32_t type_at, uint32_t at)
{
    const uint8_t *ip = f->data + at;
    uint16_t length;

    if (f->caplen < at + TD_IPV4_MIN_HEADER)
        return 0;
    switch (get16(f->data + type_at)) {
    case ETHERTYPE_IPV4:
        if (ip[0] != IPV4_NO_OPTIONS || ip[9] != TD_IPPROTO_TCP || (get16(ip + 6) & IPV4_PIECE_BITS))
            return 0;
        length = get16(ip + 2);
        /* a shorter one is malformed: read_ip says so */
        return !length || length >= TD_IPV4_MIN_HEADER ? TD_IPV4_MIN_HEADER : 0;
    case ETHERTYPE_IPV6:
        /* A payload length of 0 leaves TCP no bytes: malformed, as the walk finds a
         * jumbogram without its Hop-by-Hop option. */
        return f->caplen >= at + TD_IPV6_HEADER && (ip[0] >> 4) == 6 && ip[6] == TD_IPPROTO_TCP ? TD_IPV6_HEADER : 0;
    default:
        return 0;
    }
}

static td_frame_kind decode_plain_ip_tcp(cursor *c, uint32_t at, uint32_t header, uint32_t end, td_record *rec)
{
    const td_frame *f = c->frame;
    const uint8_t *h = f->data + at;
    uint32_t length = header == TD_IPV4_MIN_HEADER ? get16(h + 2) : get16(h + 4) + (uint32_t)TD_IPV6_HEADER;
    ip_layer ip = { .at = at, .payload_at = at + header, .reported_end = datagram_end(at, length, end),
                    .proto = TD_IPPROTO_TCP, .header_here = true, .dissected = true };

    c->depth++;
    td_ip_addresses(h, f->caplen - at, &rec->src, &rec->dst);
    return decode_tcp(c, &ip, rec);
}

/* NULL's address family is in the capturing host's byte order: either one. AF_INET
 * everywhere; AF_INET6 on Linux, the BSDs and Darwin. */
static bool loopback_ip(const td_frame *f)
{
    const uint8_t *d = f->data;
    uint32_t family = f->link == TD_LINK_LOOP || get32(d) <= 0xffff
                      ? get32(d) : (uint32_t)(d[0] | d[1] << 8 | d[2] << 16 | (uint32_t)d[3] << 24);
    return family == 2 || family == 10 || family == 24 || family == 28 || family == 30;
}

/* Where the links plain_ip_tcp reads put their ethertype and their payload; false
 * for the others. */
static bool ethertype_link(td_link link, uint32_t *type_at, uint32_t *at)
{
    switch (link) {
    case TD_LINK_ETHERNET:
        *type_at = ETHERNET_HEADER - 2;
        *at = ETHERNET_HEADER;
        return true;
    case TD_LINK_SLL:
        *type_at = SLL_HEADER - 2;
        *at = SLL_HEADER;
        return true;
    case TD_LINK_SLL2:
        *type_at = 0;
        *at = SLL2_HEADER;
        return true;
    default:
        return false;
    }
}

static td_frame_kind decode_link(cursor *c, td_record *rec)
{
    const td_frame *f = c->frame;
    uint32_t end = f->wire_len, type_at, at, header;

    if (ethertype_link(f->link, &type_at, &at) && (header = plain_ip_tcp(f, type_at, at)))
        return decode_plain_ip_tcp(c, at, header, end, rec);

    switch (f->link) {
    case TD_LINK_ETHERNET:
        return decode_ethernet(c, 0, end, rec);
    case TD_LINK_SLL:
        if (f->caplen < SLL_HEADER)
            return TD_FRAME_MALFORMED;
        return decode_ethertype(c, get16(f->data + SLL_HEADER - 2), SLL_HEADER, end, rec);
    case TD_LINK_SLL2:
        if (f->caplen < SLL2_HEADER)
            return TD_FRAME_MALFORMED;
        return decode_ethertype(c, get16(f->data), SLL2_HEADER, end, rec);
    case TD_LINK_RAW:
    case TD_LINK_RAW4:
    case TD_LINK_RAW6:
        return decode_ip(c, 0, end, false, rec);
    case TD_LINK_NULL:
    case TD_LINK_LOOP:
        if (f->caplen < 4)
            return TD_FRAME_MALFORMED;
        return loopback_ip(f) ? decode_ip(c, 4, end, false, rec) : TD_FRAME_OTHER;
    case TD_LINK_PPP:
        /* HDLC-like framing's address and control bytes, when present (RFC 1662) */
        if (f->caplen >= 2 && f->data[0] == 0xff && f->data[1] == 0x03)
            return decode_ppp_protocol(c, 2, end, rec);
        return decode_ppp_protocol(c, 0, end, rec);
    case TD_LINK_UNSUPPORTED:
        break;
    }
    return TD_FRAME_OTHER;
}

td_frame_kind td_decode(const td_frame *frame, td_wireshark version, td_fragments *fragments, td_record *rec,
                        td_decoded *info)
{
    /* A captured length above the original one is bogus; Wireshark takes the
     * captured length for both (and says so in an expert item), so this does too. */
    td_frame whole = *frame;
    cursor c = { &whole, version, fragments, 0, false, { false, false, false } };
    td_frame_kind kind;

    memset(rec, 0, sizeof *rec);
    rec->frame = frame->number;
    rec->time_ns = frame->time_ns;
    *info = c.info;
    if (whole.wire_len < whole.caplen)
        whole.wire_len = whole.caplen;
    kind = decode_link(&c, rec);
    *info = c.info;
    if (fragments)
        td_fragments_frame_done(fragments);
    return kind;
}
