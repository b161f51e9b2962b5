/* A frame's TCP segment as a td_record, read from the frame's bytes.
 *
 * The postdissector asks Wireshark for no field at all. Any wanted field, even one,
 * makes tshark build a protocol tree for every packet and makes every item of that
 * field's protocol real instead of faked: the whole TCP subtree, about 5,000
 * instructions a packet, and a tree in runs that need none (-z reports). So the
 * segment is found in the bytes, where the addresses and ports Wireshark put in
 * packet_info say it is, and its stream number is the one Wireshark's TCP
 * dissector keeps in its conversation (tcp.stream itself), remembered per address
 * and port pair while Wireshark's conversation says it still holds. */

#include "ws_compat.h"

#include <string.h>

#include <epan/conversation.h>
#include <epan/packet.h>
#include <epan/dissectors/packet-tcp.h>

#include "segment-tcpdiag.h"
#include "addr.h"
#include "ip.h"
#include "segment.h"

enum { ICMP_ERROR_HEADER = 8 };
/* How far into a frame the IP header may start: link layers, VLAN tags and
 * tunnels (VXLAN, GRE, Geneve) stay well below. */
enum { SCAN_LIMIT = 512 };

/* Slots of the stream memo: a power of two; 4,096 slots take 224 KiB a file. */
enum { MEMO_SLOTS = 4096 };

static int proto_ip = -1;
static int proto_ipv6 = -1;
static int proto_tcp = -1;
static int proto_icmp = -1;
static int proto_icmpv6 = -1;

/* The conversation an address and port pair last had in this file, and its
 * stream. Looking the conversation up costs a third of the plugin's time a packet
 * (about 1,200 instructions: Wireshark builds a key and hashes it, twice for the
 * direction opposite the one that opened it). A remembered answer is used only
 * when Wireshark's TCP dissector is known to have used the same conversation for
 * this very frame, see stream_of_segment. */
typedef struct stream_memo {
    conversation_t *conv;       /* NULL: empty slot */
    uint32_t stream;
    uint16_t port[2];           /* as the frame that filled the slot had them */
    td_addr addr[2];
} stream_memo;

/* Lives as long as the file's conversations: made at the file's start, freed at
 * its end. */
static stream_memo *memo;

void tcpdiag_segment_init(void)
{
    proto_ip = proto_get_id_by_filter_name("ip");
    proto_ipv6 = proto_get_id_by_filter_name("ipv6");
    proto_tcp = proto_get_id_by_filter_name("tcp");
    proto_icmp = proto_get_id_by_filter_name("icmp");
    proto_icmpv6 = proto_get_id_by_filter_name("icmpv6");
    g_free(memo);
    memo = g_new0(stream_memo, MEMO_SLOTS);
}

void tcpdiag_segment_forget(void)
{
    g_free(memo);
    memo = NULL;
}

/* Where a segment's headers are: in tvb, its IP header at ip_at (-1 when it is
 * not in that buffer, as after IP reassembly) and its TCP header at tcp_at.
 * frame: tvb is the frame's own buffer, whose every captured byte the scan got as
 * bytes (len of them): the headers are read there, without asking tvb again
 * (three calls into Wireshark a packet). */
typedef struct located {
    tvbuff_t *tvb;
    int ip_at, tcp_at;
    const uint8_t *bytes;
    int len;
    bool frame;
} located;

static bool to_td_addr(const address *from, td_addr *to)
{
    if ((from->type != AT_IPv4 || from->len != 4) && (from->type != AT_IPv6 || from->len != 16))
        return false;
    to->len = (uint8_t)from->len;
    /* constant lengths: moves, not a call to memcpy with a variable one */
    if (from->len == 4)
        memcpy(to->bytes, from->data, 4);
    else
        memcpy(to->bytes, from->data, 16);
    return true;
}

static uint16_t get16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

/* The bytes of b from at on, of len: none past its end. */
static size_t bytes_from(int len, int at)
{
    return at < len ? (size_t)(len - at) : 0;
}

/* How many of tvb's bytes a scan reads. All of the frame's own (its buffer is the
 * capture's: no copy), so that an IPv6 extension chain is followed as far as
 * engine/ip.c follows it for the command; of a reassembled buffer, which may be
 * made of pieces that reading would copy, the first bytes: its TCP header, or a
 * tunnel's inner IP header and a short chain. */
static int scan_length(tvbuff_t *tvb, bool frame_buffer)
{
    int captured = (int)tvb_captured_length(tvb);

    return frame_buffer ? captured : MIN(captured, SCAN_LIMIT + TD_IPV6_HEADER + 64);
}

/* The TCP header that follows the IP header at ip_at, -1 when none does in these
 * bytes (another protocol, a later fragment: engine/ip.c reads the IP layer).
 * *piece: the IP header is a datagram's first fragment, more to come (its TCP
 * header is the datagram's, its lengths are not). */
static int tcp_after(const uint8_t *b, int len, int ip_at, bool *piece)
{
    td_ip ip;

    *piece = false;
    if (td_ip_read(b + ip_at, bytes_from(len, ip_at), &ip) != TD_IP_READ || ip.proto != TD_IPPROTO_TCP ||
        ip.fragment_offset != 0)
        return -1;
    *piece = ip.more_fragments;
    return ip_at + (int)ip.payload_at;
}

/* The first place from at to last (inclusive) whose byte opens with the version
 * nibble of first (0x40, 0x60), -1 when none does. Eight bytes at a time: a
 * byte-wise loop over a link header's bytes cost about 150 instructions a packet.
 * Each byte of y is 0 where the nibble matches; the lowest bit of the zero-byte
 * test marks the first such byte (a borrow only marks bytes above it). */
static int next_version_byte(const uint8_t *b, int at, int last, int first)
{
    const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;

    for (; at + 7 <= last; at += 8) {
        uint64_t w;
        memcpy(&w, b + at, 8);
        uint64_t y = (GUINT64_FROM_LE(w) & 0xf0f0f0f0f0f0f0f0u) ^ ((uint64_t)first * ones);
        uint64_t zero = (y - ones) & ~y & highs;
        if (zero)
            return at + __builtin_ctzll(zero) / 8;
    }
    for (; at <= last; at++)
        if ((b[at] & 0xf0) == first)
            return at;
    return -1;
}

/* Moves *ip_at to the next IP header in b, from *ip_at on and within SCAN_LIMIT,
 * that carries rec's addresses; false when there is none. */
static bool header_with_addresses(const uint8_t *b, int len, const td_record *rec, int *ip_at)
{
    int first = rec->src.len == 4 ? 0x40 : 0x60, last = MIN(SCAN_LIMIT, len - TD_IPV4_MIN_HEADER);

    for (int at = *ip_at; (at = next_version_byte(b, at, last, first)) >= 0; at++) {
        if (td_ip_carries(b + at, bytes_from(len, at), &rec->src, &rec->dst)) {
            *ip_at = at;
            return true;
        }
    }
    return false;
}

static bool ports_at(const uint8_t *b, int len, int tcp_at, uint16_t sport, uint16_t dport)
{
    return tcp_at >= 0 && tcp_at + 4 <= len && get16(b + tcp_at) == sport && get16(b + tcp_at + 2) == dport;
}

/* The IP header with rec's addresses followed by a TCP header with rec's ports in
 * tvb's first bytes; *piece as tcp_after says. */
static bool scan(tvbuff_t *tvb, bool frame_buffer, const td_record *rec, located *at, bool *piece)
{
    int len = scan_length(tvb, frame_buffer);
    const uint8_t *b = len ? tvb_get_ptr(tvb, 0, len) : NULL;

    for (int ip_at = 0; b && header_with_addresses(b, len, rec, &ip_at); ip_at++) {
        int tcp_at = tcp_after(b, len, ip_at, piece);
        if (ports_at(b, len, tcp_at, rec->sport, rec->dport)) {
            *at = (located){ tvb, ip_at, tcp_at, b, len, frame_buffer };
            return true;
        }
    }
    return false;
}

/* What an IPv6 datagram reassembled at this frame opens with: the Fragment
 * header's next header in the frame's IPv6 header with rec's addresses, which may
 * be more extension headers before TCP. TCP otherwise: IPv4 hands the reassembled
 * payload on as it is. */
static uint8_t reassembled_opens_with(tvbuff_t *frame, const td_record *rec)
{
    int len = rec->src.len == 16 ? scan_length(frame, true) : 0;
    const uint8_t *b = len ? tvb_get_ptr(frame, 0, len) : NULL;
    td_ip ip;

    for (int ip_at = 0; b && header_with_addresses(b, len, rec, &ip_at); ip_at++) {
        if (td_ip_read(b + ip_at, bytes_from(len, ip_at), &ip) == TD_IP_READ && td_ip_is_fragment(&ip))
            return ip.fragment_proto;
    }
    return TD_IPPROTO_TCP;
}

/* Where the TCP header with rec's ports is in a reassembled buffer that opens
 * with the protocol opens_with: at its start, or past the extension headers it
 * opens with (engine/ip.c); -1 when it is not there. */
static int tcp_in_reassembled(tvbuff_t *tvb, uint8_t opens_with, const td_record *rec)
{
    int len = opens_with == TD_IPPROTO_TCP ? MIN((int)tvb_captured_length(tvb), 4) : scan_length(tvb, false);
    const uint8_t *b = len ? tvb_get_ptr(tvb, 0, len) : NULL;
    td_ip chain;

    if (!b || td_ip_read_chain(b, (size_t)len, opens_with, &chain) != TD_IP_READ ||
        chain.proto != TD_IPPROTO_TCP || td_ip_is_fragment(&chain))
        return -1;
    return ports_at(b, len, (int)chain.payload_at, rec->sport, rec->dport) ? (int)chain.payload_at : -1;
}

/* The segment Wireshark's TCP dissector read. In the frame's own bytes, the IP
 * header with rec's addresses followed by a TCP header with rec's ports: a tunnel's
 * outer header has other addresses or another protocol, so the innermost match is
 * the one Wireshark dissected. After IP reassembly the segment is in a reassembled
 * buffer: the TCP header opens it (past the IPv6 extension headers its
 * fragmentable part opens with), or, when the datagram was a tunnel's, follows
 * the inner IP header in it. A first fragment in the frame is the segment only
 * when nothing was reassembled (IPv4 hands on a first fragment cut by the snaplen). */
static bool locate(packet_info *pinfo, tvbuff_t *frame, const td_record *rec, located *at)
{
    located first_piece;
    bool piece, have_piece = false;
    int opens_with = -1;        /* what a reassembled datagram opens with, read once needed */

    if (scan(frame, true, rec, at, &piece)) {
        if (!piece)
            return true;
        first_piece = *at;
        have_piece = true;
    }
    for (GSList *src = pinfo->data_src; src; src = src->next) {
        tvbuff_t *tvb = get_data_source_tvb(src->data);
        if (tvb == frame)
            continue;
        if (opens_with < 0)
            opens_with = reassembled_opens_with(frame, rec);
        int tcp_at = tcp_in_reassembled(tvb, (uint8_t)opens_with, rec);
        if (tcp_at >= 0) {
            *at = (located){ tvb, -1, tcp_at, NULL, 0, false };
            return true;
        }
        if (scan(tvb, false, rec, at, &piece) && !piece)
            return true;
    }
    if (have_piece)
        *at = first_piece;
    return have_piece;
}

/* tcp.stream: the number Wireshark's TCP dissector gave this segment's
 * conversation (in effect at this frame: a reused port pair has a new one). */
static conversation_t *conversation_of(const packet_info *pinfo, const td_addr *a, uint16_t a_port,
                                       const td_addr *b, uint16_t b_port, uint32_t *stream)
{
    address addr_a, addr_b;
    conversation_t *conv;
    const struct tcp_analysis *tcpd;

    set_address(&addr_a, a->len == 4 ? AT_IPv4 : AT_IPv6, a->len, a->bytes);
    set_address(&addr_b, b->len == 4 ? AT_IPv4 : AT_IPv6, b->len, b->bytes);
    conv = find_conversation(pinfo->num, &addr_a, &addr_b, CONVERSATION_TCP, a_port, b_port, 0);
    tcpd = conv ? conversation_get_proto_data(conv, proto_tcp) : NULL;
    if (!tcpd)
        return NULL;
    *stream = tcpd->stream;
    return conv;
}

static bool stream_of(const packet_info *pinfo, const td_addr *a, uint16_t a_port, const td_addr *b,
                      uint16_t b_port, uint32_t *stream)
{
    return conversation_of(pinfo, a, a_port, b, b_port, stream) != NULL;
}

/* Either direction of a pair lands in the same slot. */
static stream_memo *memo_slot(const td_record *rec)
{
    const td_addr *s = &rec->src, *d = &rec->dst;
    uint32_t h = (uint32_t)(rec->sport ^ rec->dport) * 0x9e3779b1u;

    for (unsigned i = 0; i < s->len; i += 4) {
        uint32_t sw, dw;
        memcpy(&sw, s->bytes + i, 4);
        memcpy(&dw, d->bytes + i, 4);
        h = (h ^ sw ^ dw) * 0x9e3779b1u;
    }
    return &memo[(h ^ h >> 16) & (MEMO_SLOTS - 1)];
}

static bool memo_holds(const stream_memo *m, const td_record *rec)
{
    if (m->port[0] == rec->sport && m->port[1] == rec->dport)
        return td_addr_same(&m->addr[0], &rec->src) && td_addr_same(&m->addr[1], &rec->dst);
    return m->port[0] == rec->dport && m->port[1] == rec->sport && td_addr_same(&m->addr[0], &rec->dst) &&
           td_addr_same(&m->addr[1], &rec->src);
}

/* rec's stream, its addresses, ports and flags read. The remembered conversation
 * is the one Wireshark's TCP dissector used for this frame when it is the same
 * pair's, this is not a SYN and its last frame is this one:
 * - only a SYN or a SYN-ACK makes a new conversation on a pair that has one
 *   (port reuse); on any other segment the dissector finds the newest conversation
 *   of the pair, and on the first pass it moves that one's last frame to this
 *   frame (read in 4.0's packet-tcp.c; on 4.0, 4.4 and 4.6 a build that looked
 *   every remembered answer up again agreed on every frame of the test suite);
 * - a conversation made since the slot was filled (by a SYN this memo did not see,
 *   or by another dissector) is the newest, so the remembered one's last frame
 *   stays behind this frame and the lookup runs.
 * Read on the first pass only, when frames come in order. */
static bool stream_of_segment(const packet_info *pinfo, td_record *rec)
{
    stream_memo *m = memo_slot(rec);
    conversation_t *conv;

    if (!(rec->tcp_flags & TD_TH_SYN) && m->conv && m->conv->last_frame == pinfo->num && memo_holds(m, rec)) {
        rec->stream = m->stream;
        return true;
    }
    conv = conversation_of(pinfo, &rec->src, rec->sport, &rec->dst, rec->dport, &rec->stream);
    if (!conv)
        return false;
    *m = (stream_memo){ conv, rec->stream, { rec->sport, rec->dport }, { rec->src, rec->dst } };
    return true;
}

/* The IP header's ECN codepoint and the payload length (engine/segment.c). */
static void read_lengths(const located *at, unsigned tcp_header, td_record *rec)
{
    int ip_header = rec->src.len == 4 ? TD_IPV4_MIN_HEADER : TD_IPV6_HEADER;
    const uint8_t *ip = at->ip_at < 0 ? NULL
                        : at->frame ? at->bytes + at->ip_at : tvb_get_ptr(at->tvb, at->ip_at, ip_header);

    td_segment_lengths(rec, ip, at->tcp_at - at->ip_at, tcp_header, tvb_reported_length_remaining(at->tvb, at->tcp_at));
}

/* A TCP header quoted in an ICMP error: the error's own IP header comes first
 * (its protocol ICMP), then 8 bytes of ICMP header, then the quoted IP header,
 * sent by the host the error goes back to, and at least the quoted TCP ports. */
static bool read_quoted(packet_info *pinfo, tvbuff_t *frame, td_record *rec)
{
    int len = scan_length(frame, true);
    const uint8_t *b = len ? tvb_get_ptr(frame, 0, len) : NULL;

    for (int at = 0; b && at <= SCAN_LIMIT && at + TD_IPV4_MIN_HEADER <= len; at++) {
        td_addr error_src, error_dst;
        td_ip error;
        if (td_ip_read(b + at, bytes_from(len, at), &error) != TD_IP_READ || error.fragment_offset != 0 ||
            error.proto != (error.version == 4 ? TD_IPPROTO_ICMP : TD_IPPROTO_ICMPV6))
            continue;
        int quoted = at + (int)error.payload_at + ICMP_ERROR_HEADER;
        td_ip_addresses(b + at, bytes_from(len, at), &error_src, &error_dst);
        if (!td_ip_addresses(b + quoted, bytes_from(len, quoted), &rec->src, &rec->dst) ||
            !td_addr_equal(&rec->src, &error_dst))
            continue;
        bool piece;
        int tcp_at = tcp_after(b, len, quoted, &piece);
        if (tcp_at < 0 || tcp_at + 4 > len)
            return false;
        td_segment_read_ports(b + tcp_at, rec);
        return stream_of(pinfo, &rec->src, rec->sport, &rec->dst, rec->dport, &rec->stream);
    }
    return false;
}

/* Where the frame's segment is, from its protocol layers (one walk):
 * - LAYERS_TCP_CARRIES_PACKET: an IP layer after a TCP layer: a TCP payload was
 *   dissected as a packet of its own (OpenFlow's packet-in carries an Ethernet
 *   frame), and packet_info now holds the inner packet's addresses, protocol and
 *   ports;
 * - LAYERS_ICMP_ERROR: a TCP header quoted in an ICMP error;
 * - LAYERS_PLAIN: the segment packet_info names. */
typedef enum { LAYERS_PLAIN, LAYERS_TCP_CARRIES_PACKET, LAYERS_ICMP_ERROR } layers_kind;

static layers_kind classify_layers(const packet_info *pinfo)
{
    bool after_tcp = false, icmp = false;

    for (wmem_list_frame_t *layer = wmem_list_head(pinfo->layers); layer; layer = wmem_list_frame_next(layer)) {
        int proto = GPOINTER_TO_INT(wmem_list_frame_data(layer));
        if (after_tcp && (proto == proto_ip || proto == proto_ipv6))
            return LAYERS_TCP_CARRIES_PACKET;
        after_tcp = after_tcp || proto == proto_tcp;
        icmp = icmp || proto == proto_icmp || proto == proto_icmpv6;
    }
    return icmp ? LAYERS_ICMP_ERROR : LAYERS_PLAIN;
}

/* The frame's own segment when a TCP payload held another packet: the first IP
 * header followed by a TCP header whose addresses and ports are a conversation
 * of the TCP dissector at this frame (so that link-layer bytes that happen to
 * look like a header do not count). The inner packet is data this segment
 * carried, not a segment on this wire. */
static bool locate_outermost(packet_info *pinfo, tvbuff_t *frame, td_record *rec, located *at)
{
    int len = scan_length(frame, true);
    const uint8_t *b = len ? tvb_get_ptr(frame, 0, len) : NULL;

    for (int ip_at = 0; b && ip_at <= SCAN_LIMIT && ip_at + TD_IPV4_MIN_HEADER <= len; ip_at++) {
        if (!td_ip_addresses(b + ip_at, bytes_from(len, ip_at), &rec->src, &rec->dst))
            continue;
        bool piece;
        int tcp_at = tcp_after(b, len, ip_at, &piece);
        if (tcp_at < 0 || tcp_at + 4 > len)
            continue;
        td_segment_read_ports(b + tcp_at, rec);
        if (stream_of(pinfo, &rec->src, rec->sport, &rec->dst, rec->dport, &rec->stream)) {
            *at = (located){ frame, ip_at, tcp_at, b, len, true };
            return true;
        }
    }
    return false;
}

/* The segment packet_info names: the innermost IP and TCP layers (a tunnel's
 * outer header has other addresses or another protocol). */
static bool locate_innermost(packet_info *pinfo, tvbuff_t *frame, td_record *rec, located *at)
{
    if (!to_td_addr(&pinfo->net_src, &rec->src) || !to_td_addr(&pinfo->net_dst, &rec->dst))
        return false;
    rec->sport = (uint16_t)pinfo->srcport;
    rec->dport = (uint16_t)pinfo->destport;
    return locate(pinfo, frame, rec, at);
}

td_frame_kind tcpdiag_read_record(packet_info *pinfo, tvbuff_t *frame, td_record *rec)
{
    located at;
    bool innermost = false;

    memset(rec, 0, sizeof *rec);
    rec->frame = pinfo->num;
    rec->time_ns = (int64_t)pinfo->abs_ts.secs * 1000000000 + pinfo->abs_ts.nsecs;
    layers_kind layers = classify_layers(pinfo);
    if (layers == LAYERS_TCP_CARRIES_PACKET) {
        if (!locate_outermost(pinfo, frame, rec, &at))
            return TD_FRAME_OTHER;
    } else if (layers == LAYERS_ICMP_ERROR) {
        return read_quoted(pinfo, frame, rec) ? TD_FRAME_QUOTED : TD_FRAME_OTHER;
    } else if (pinfo->ptype != PT_TCP || !(innermost = locate_innermost(pinfo, frame, rec, &at))) {
        return TD_FRAME_OTHER;
    }
    /* the header as far as it was captured, up to the longest one: all the reader reads */
    int captured = MIN(at.frame ? at.len - at.tcp_at : tvb_captured_length_remaining(at.tvb, at.tcp_at),
                       TD_TCP_MAX_HEADER);
    if (captured < TD_TCP_FLAGS_END)
        return TD_FRAME_OTHER;
    const uint8_t *tcp = at.frame ? at.bytes + at.tcp_at : tvb_get_ptr(at.tvb, at.tcp_at, captured);
    unsigned tcp_header = td_segment_read_header(tcp, (size_t)captured, rec);
    if (tcp_header < TD_TCP_MIN_HEADER)
        return TD_FRAME_OTHER;          /* a data offset below 5 words: malformed */
    if (innermost && !stream_of_segment(pinfo, rec))
        return TD_FRAME_OTHER;
    read_lengths(&at, tcp_header, rec);
    td_segment_read_options(tcp, (size_t)captured, tcp_header, &rec->options);
    return TD_FRAME_SEGMENT;
}
