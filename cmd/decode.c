/* Frame bytes to td_record, decided the way Wireshark's dissectors and the plugin's
 * tcpdiag_read_record (plugin/segment-tcpdiag.c) decide, so that the command and the
 * plugin feed the core the same records: where Wireshark numbers a stream, where
 * the plugin finds a segment in the bytes, and the lengths it reads. */
#include "decode.h"
#include "options.h"
#include "segment.h"

#include <string.h>

enum {
    ETHERTYPE_IPV4 = 0x0800, ETHERTYPE_IPV6 = 0x86dd, ETHERTYPE_VLAN = 0x8100, ETHERTYPE_QINQ = 0x88a8,
    ETHERTYPE_QINQ_OLD = 0x9100,
    IPPROTO_HOPOPTS_N = 0, IPPROTO_ICMP_N = 1, IPPROTO_IPIP_N = 4, IPPROTO_TCP_N = 6, IPPROTO_IPV6_N = 41,
    IPPROTO_ROUTING_N = 43, IPPROTO_FRAGMENT_N = 44, IPPROTO_AH_N = 51, IPPROTO_ICMPV6_N = 58,
    IPPROTO_DSTOPTS_N = 60, IPPROTO_MOBILITY_N = 135,
    TCP_MIN_HEADER = 20,
    /* The TCP bytes Wireshark needs before it numbers the stream: to the window up
     * to 4.4, to the flags from 4.6 (crafted cuts, test_decode.c) */
    TCP_STREAM_BYTES_4_0 = 16, TCP_STREAM_BYTES_4_6 = 14,
    TCP_FLAGS_END = 14,     /* the plugin reads a segment whose flags were captured */
    TCP_PORTS_END = 4,      /* ...and a quote whose ports were */
    TCP_WINDOW_END = 16,
    ICMP_HEADER = 8,
    MAX_IP_NESTING = 4,     /* IP in IP, or an ICMP error's quote: deeper is hostile */
    MAX_IPV6_EXTENSIONS = 16,
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
    bool     fragment;      /* a piece of a fragmented datagram: Wireshark reassembles, this does not */
    bool     first_piece;   /* ...the one at offset 0, which holds the upper-layer header */
    bool     dissected;     /* Wireshark hands the payload on (not an IPv6 length of 0 without jumbo) */
} ip_layer;

typedef struct cursor {
    const td_frame *frame;
    td_wireshark version;
    int depth;
    bool quoted;
    td_decoded info;
} cursor;

static td_frame_kind decode_ip(cursor *c, uint32_t at, uint32_t end, bool quoted, td_record *rec);

/* Wireshark shrinks a datagram's buffer to the IP length, never grows it; a
 * length of 0 (TSO, as the sender captured it) leaves the frame's length. */
static uint32_t datagram_end(uint32_t at, uint32_t ip_len, uint32_t end)
{
    return ip_len && at + ip_len < end ? at + ip_len : end;
}

static td_frame_kind read_ipv4(const td_frame *f, uint32_t at, uint32_t end, ip_layer *ip, td_record *rec)
{
    const uint8_t *h = f->data + at;
    uint32_t ihl, total;

    if (f->caplen < at + 20 || (h[0] >> 4) != 4)
        return TD_FRAME_MALFORMED;
    ihl = (h[0] & 15) * 4u;
    total = get16(h + 2);
    if (ihl < 20 || f->caplen < at + ihl || (total && total < ihl))
        return TD_FRAME_MALFORMED;
    rec->src.len = rec->dst.len = 4;
    memcpy(rec->src.bytes, h + 12, 4);
    memcpy(rec->dst.bytes, h + 16, 4);
    ip->at = at;
    ip->payload_at = at + ihl;
    ip->reported_end = datagram_end(at, total, end);
    ip->proto = h[9];
    ip->dissected = true;
    ip->fragment = (get16(h + 6) & 0x3fff) != 0;       /* more fragments, or an offset */
    ip->first_piece = (get16(h + 6) & 0x1fff) == 0;
    return TD_FRAME_SEGMENT;
}

/* A jumbogram's end, from the Jumbo Payload option (type 0xc2) of the hop-by-hop
 * header at x_at, x_len long: false when there is none. */
static bool jumbo_end(const td_frame *f, uint32_t x_at, uint32_t x_len, uint32_t at, uint32_t end, uint32_t *jend)
{
    uint32_t o = x_at + 2, stop = x_at + x_len < f->caplen ? x_at + x_len : f->caplen;

    while (o + 2 <= stop) {
        const uint8_t *opt = f->data + o;
        if (opt[0] == 0) {          /* Pad1 */
            o++;
            continue;
        }
        if (opt[0] == 0xc2 && opt[1] == 4 && o + 6 <= stop) {
            uint32_t jumbo = get32(opt + 2);
            *jend = jumbo <= end - at - 40 ? at + 40 + jumbo : end;
            return true;
        }
        o += 2u + opt[1];
    }
    return false;
}

static td_frame_kind read_ipv6(const td_frame *f, uint32_t at, uint32_t end, ip_layer *ip, td_record *rec)
{
    const uint8_t *h = f->data + at;
    uint32_t next_at = at + 40;
    uint8_t next;

    if (f->caplen < at + 40 || (h[0] >> 4) != 6)
        return TD_FRAME_MALFORMED;
    rec->src.len = rec->dst.len = 16;
    memcpy(rec->src.bytes, h + 8, 16);
    memcpy(rec->dst.bytes, h + 24, 16);
    ip->at = at;
    /* A payload length of 0 means a jumbogram (RFC 2675), whose length is in a
     * hop-by-hop option; without one Wireshark hands nothing on, while the plugin
     * reads the segment to the frame's end. */
    ip->reported_end = get16(h + 4) ? datagram_end(at, get16(h + 4) + 40u, end) : end;
    ip->dissected = get16(h + 4) != 0;
    ip->fragment = false;
    ip->first_piece = true;
    next = h[6];
    for (int n = 0; n < MAX_IPV6_EXTENSIONS; n++) {
        const uint8_t *x = f->data + next_at;
        uint32_t len;
        switch (next) {
        case IPPROTO_HOPOPTS_N:
        case IPPROTO_ROUTING_N:
        case IPPROTO_DSTOPTS_N:
        case IPPROTO_MOBILITY_N:
        case IPPROTO_FRAGMENT_N:
        case IPPROTO_AH_N:
            if (f->caplen < next_at + 8)
                return TD_FRAME_MALFORMED;
            len = next == IPPROTO_FRAGMENT_N ? 8u : next == IPPROTO_AH_N ? (x[1] + 2u) * 4 : (x[1] + 1u) * 8;
            if (next == IPPROTO_FRAGMENT_N && (get16(x + 2) & 0xfff9) != 0) {
                ip->fragment = true;       /* an offset or more to come; an atomic fragment is whole */
                ip->first_piece = (get16(x + 2) & 0xfff8) == 0;
            }
            if (next == IPPROTO_HOPOPTS_N && !get16(h + 4))
                ip->dissected = jumbo_end(f, next_at, len, at, end, &ip->reported_end);
            next = x[0];
            next_at += len;
            continue;
        default:
            ip->payload_at = next_at;
            ip->proto = next;
            return next_at <= f->caplen ? TD_FRAME_SEGMENT : TD_FRAME_MALFORMED;
        }
    }
    return TD_FRAME_MALFORMED;
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
    if ((!c->quoted && (!ip->dissected || reported == 0)) || captured < (c->quoted ? TCP_PORTS_END : TCP_FLAGS_END))
        return TD_FRAME_MALFORMED;
    rec->sport = get16(h);
    rec->dport = get16(h + 2);
    if (c->quoted && captured < TCP_FLAGS_END)
        return TD_FRAME_SEGMENT;            /* a quote needs its ports only */
    rec->seq = get32(h + 4);
    rec->ack = get32(h + 8);
    rec->tcp_flags = get16(h + 12) & 0x0fff;
    rec->has_window = captured >= TCP_WINDOW_END;
    if (rec->has_window)
        rec->window = get16(h + 14);
    header = (h[12] >> 4) * 4u;
    c->info.header_fits = reported >= header;
    c->info.recorded = header >= TCP_MIN_HEADER;
    if (!c->info.recorded)
        return TD_FRAME_SEGMENT;
    td_segment_lengths(rec, f->data + ip->at, at - ip->at, header, (int64_t)f->wire_len - at);
    /* Options are read from the frame's bytes, trailer included, as the plugin does. */
    uint32_t options_captured = captured > TCP_MIN_HEADER ? captured - TCP_MIN_HEADER : 0;
    uint32_t options_wanted = header - TCP_MIN_HEADER;
    uint32_t len = options_wanted < options_captured ? options_wanted : options_captured;
    td_options_parse(len ? h + TCP_MIN_HEADER : NULL, options_captured, options_wanted, &rec->options);
    return TD_FRAME_SEGMENT;
}

static bool icmp_error(uint8_t proto, uint8_t type)
{
    if (proto == IPPROTO_ICMP_N)    /* unreachable, source quench, redirect, time exceeded, parameter problem */
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

static td_frame_kind decode_ip(cursor *c, uint32_t at, uint32_t end, bool quoted, td_record *rec)
{
    const td_frame *f = c->frame;
    ip_layer ip;
    td_frame_kind kind;

    if (++c->depth > MAX_IP_NESTING || f->caplen <= at)
        return TD_FRAME_MALFORMED;
    kind = (f->data[at] >> 4) == 4 ? read_ipv4(f, at, end, &ip, rec)
         : (f->data[at] >> 4) == 6 ? read_ipv6(f, at, end, &ip, rec) : TD_FRAME_MALFORMED;
    if (kind != TD_FRAME_SEGMENT)
        return kind;
    /* Wireshark reassembles fragments (this does not); a quote's own first piece
     * still carries the quoted header */
    if (ip.fragment && !(quoted && ip.first_piece))
        return TD_FRAME_OTHER;
    switch (ip.proto) {
    case IPPROTO_TCP_N:
        return decode_tcp(c, &ip, rec);
    case IPPROTO_IPIP_N:
    case IPPROTO_IPV6_N:
        return decode_ip(c, ip.payload_at, ip.reported_end, quoted, rec);
    case IPPROTO_ICMP_N:
    case IPPROTO_ICMPV6_N:
        /* an error about an error is not sent (RFC 1122 §3.2.2), so not read */
        return quoted ? TD_FRAME_OTHER : decode_icmp(c, &ip, rec);
    default:
        return TD_FRAME_OTHER;
    }
}

static bool ip_ethertype(uint16_t type)
{
    return type == ETHERTYPE_IPV4 || type == ETHERTYPE_IPV6;
}

/* The offset of the IP header after the link header, or -1 when the frame carries
 * no IP (*kind says whether it is simply not IP or cut short). */
static int64_t link_payload(const td_frame *f, td_frame_kind *kind)
{
    const uint8_t *d = f->data;
    uint32_t at, family;
    uint16_t type;

    *kind = TD_FRAME_MALFORMED;
    switch (f->link) {
    case TD_LINK_ETHERNET:
        at = 12;
        do {
            if (f->caplen < at + 2)
                return -1;
            type = get16(d + at);
            at += 2;
            if (type == ETHERTYPE_VLAN || type == ETHERTYPE_QINQ || type == ETHERTYPE_QINQ_OLD)
                at += 2;    /* the tag's control information; its type follows */
            else
                break;
        } while (at < 64);
        *kind = TD_FRAME_OTHER;
        return ip_ethertype(type) ? (int64_t)at : -1;
    case TD_LINK_SLL:
        if (f->caplen < 16)
            return -1;
        *kind = TD_FRAME_OTHER;
        return ip_ethertype(get16(d + 14)) ? 16 : -1;
    case TD_LINK_SLL2:
        if (f->caplen < 20)
            return -1;
        *kind = TD_FRAME_OTHER;
        return ip_ethertype(get16(d)) ? 20 : -1;
    case TD_LINK_RAW:
    case TD_LINK_RAW4:
    case TD_LINK_RAW6:
        return 0;
    case TD_LINK_NULL:
    case TD_LINK_LOOP:
        if (f->caplen < 4)
            return -1;
        /* NULL's family is in the capturing host's byte order: either one */
        family = f->link == TD_LINK_LOOP || get32(d) <= 0xffff ? get32(d)
                 : (uint32_t)(d[0] | d[1] << 8 | d[2] << 16 | (uint32_t)d[3] << 24);
        *kind = TD_FRAME_OTHER;
        /* AF_INET everywhere; AF_INET6 on Linux, the BSDs and Darwin */
        return family == 2 || family == 10 || family == 24 || family == 28 || family == 30 ? 4 : -1;
    case TD_LINK_UNSUPPORTED:
        break;
    }
    *kind = TD_FRAME_OTHER;
    return -1;
}

td_frame_kind td_decode(const td_frame *frame, td_wireshark version, td_record *rec, td_decoded *info)
{
    cursor c = { frame, version, 0, false, { false, false, false } };
    td_frame_kind kind;
    int64_t at;

    memset(rec, 0, sizeof *rec);
    rec->frame = frame->number;
    rec->time_ns = frame->time_ns;
    *info = c.info;
    if (frame->caplen > frame->wire_len)
        return TD_FRAME_MALFORMED;
    at = link_payload(frame, &kind);
    if (at < 0)
        return kind;
    kind = decode_ip(&c, (uint32_t)at, frame->wire_len, false, rec);
    *info = c.info;
    return kind;
}
