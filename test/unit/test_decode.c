/* cmd/decode.c: link layers, IP and TCP to the record the plugin builds, and what
 * is counted and skipped. Expected values are the bytes each test writes. */
#include "frames.h"
#include "options.h"

static const uint8_t C4[4] = { 192, 0, 2, 1 }, S4[4] = { 198, 51, 100, 2 };
static const uint8_t C6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 }, S6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 };
/* MSS 1460, SACK permitted, timestamps 7/0, NOP, window scale 7 */
static const uint8_t SYN_OPTS[20] = { 2, 4, 0x05, 0xb4, 4, 2, 8, 10, 0, 0, 0, 7, 0, 0, 0, 0, 1, 3, 3, 7 };

static const tcp_spec SYN = { 40000, 443, 1000, 0, TD_TH_SYN | TD_TH_ECE | TD_TH_CWR, 64240, SYN_OPTS, 20, 0 };
static const tcp_spec DATA = { 443, 40000, 5000, 1001, TD_TH_ACK | TD_TH_PSH, 501, NULL, 0, 100 };

static void ipv4_tcp(frame_bytes *f, const tcp_spec *t, uint8_t ecn)
{
    put_ipv4(f, C4, S4, 6, ecn, (uint16_t)(20 + tcp_len(t)));
    put_tcp(f, t);
}

static td_decoded info;

static td_frame_kind decode(const frame_bytes *f, td_link link, td_record *rec)
{
    td_frame frame = frame_of(f, link);
    return td_decode(&frame, TD_WIRESHARK_4_0, NULL, rec, &info);
}

static void check_syn(const td_record *rec)
{
    g_assert_cmpuint(rec->src.len, ==, 4);
    g_assert_cmpmem(rec->src.bytes, 4, C4, 4);
    g_assert_cmpmem(rec->dst.bytes, 4, S4, 4);
    g_assert_cmpuint(rec->sport, ==, 40000);
    g_assert_cmpuint(rec->dport, ==, 443);
    g_assert_cmpuint(rec->seq, ==, 1000);
    g_assert_cmphex(rec->tcp_flags, ==, TD_TH_SYN | TD_TH_ECE | TD_TH_CWR);
    g_assert_true(rec->has_window);
    g_assert_cmpuint(rec->window, ==, 64240);
    g_assert_true(rec->has_ip_ecn);
    g_assert_cmpuint(rec->ip_ecn, ==, TD_ECT0);
    g_assert_cmpuint(rec->payload_len, ==, 0);
    g_assert_true(info.numbered && info.recorded && info.header_fits);
    g_assert_true(rec->options.complete);
    g_assert_cmphex(rec->options.present, ==, TD_OPT_MSS | TD_OPT_SACK_PERM | TD_OPT_TS | TD_OPT_WSCALE);
    g_assert_cmpuint(rec->options.mss, ==, 1460);
    g_assert_cmpuint(rec->options.wscale, ==, 7);
    g_assert_cmpuint(rec->options.tsval, ==, 7);
}

static void test_ethernet_vlan_qinq(void)
{
    static const uint16_t tags[][3] = { { 0 }, { 0x8100 }, { 0x88a8, 0x8100 } };
    for (unsigned t = 0; t < G_N_ELEMENTS(tags); t++) {
        frame_bytes f = { .len = 0 };
        td_record rec;
        static const uint8_t macs[12] = { 0 };
        put_bytes(&f, macs, 12);
        for (unsigned i = 0; i < 2 && tags[t][i]; i++) {
            put16(&f, tags[t][i]);
            put16(&f, 100 + i);     /* the tag's priority and VLAN id */
        }
        put16(&f, 0x0800);
        ipv4_tcp(&f, &SYN, TD_ECT0);
        g_assert_cmpint(decode(&f, TD_LINK_ETHERNET, &rec), ==, TD_FRAME_SEGMENT);
        check_syn(&rec);
    }
}

static void test_cooked_raw_loopback(void)
{
    struct { td_link link; uint8_t header[20]; uint32_t len; } links[] = {
        { TD_LINK_SLL, { 0, 0, 0, 1, 0, 6, [14] = 0x08, [15] = 0x00 }, 16 },
        { TD_LINK_SLL2, { 0x08, 0x00 }, 20 },
        { TD_LINK_RAW, { 0 }, 0 },
        { TD_LINK_RAW4, { 0 }, 0 },
        { TD_LINK_NULL, { 2, 0, 0, 0 }, 4 },        /* AF_INET, little-endian host */
        { TD_LINK_NULL, { 0, 0, 0, 2 }, 4 },        /* AF_INET, big-endian host */
        { TD_LINK_LOOP, { 0, 0, 0, 2 }, 4 },
    };
    for (unsigned i = 0; i < G_N_ELEMENTS(links); i++) {
        frame_bytes f = { .len = 0 };
        td_record rec;
        put_bytes(&f, links[i].header, links[i].len);
        ipv4_tcp(&f, &SYN, TD_ECT0);
        g_assert_cmpint(decode(&f, links[i].link, &rec), ==, TD_FRAME_SEGMENT);
        check_syn(&rec);
    }
}

/* Ethernet pads a short frame: the IP length, not the frame, gives the payload. */
static void test_payload_from_ip_length(void)
{
    frame_bytes f = { .len = 0 };
    tcp_spec ack = { 40000, 443, 1001, 5001, TD_TH_ACK, 500, NULL, 0, 0 };
    td_record rec;

    put_ethernet(&f, 0x0800);
    ipv4_tcp(&f, &ack, 0);
    f.len += 6;                                 /* padding to 60 bytes */
    g_assert_cmpint(decode(&f, TD_LINK_ETHERNET, &rec), ==, TD_FRAME_SEGMENT);
    g_assert_cmpuint(rec.payload_len, ==, 0);
    g_assert_false(rec.payload_from_ip);

    f.len = 0;
    put_ethernet(&f, 0x0800);
    ipv4_tcp(&f, &DATA, TD_CE);
    g_assert_cmpint(decode(&f, TD_LINK_ETHERNET, &rec), ==, TD_FRAME_SEGMENT);
    g_assert_cmpuint(rec.payload_len, ==, 100);
    g_assert_cmpuint(rec.ip_ecn, ==, TD_CE);
}

/* A record cut by the snaplen keeps its original length: tcp.len is the IP's.
 * One whose original length a tool rewrote to the cut one gets its payload from
 * the IP length, as the plugin's payload_from_ip. */
static void test_cut_records(void)
{
    frame_bytes f = { .len = 0 };
    td_record rec;
    td_frame frame;
    td_decoded fits;

    put_ethernet(&f, 0x0800);
    ipv4_tcp(&f, &DATA, 0);
    frame = frame_of(&f, TD_LINK_ETHERNET);
    frame.caplen = 14 + 20 + 20;                /* the headers only */
    g_assert_cmpint(td_decode(&frame, TD_WIRESHARK_4_0, NULL, &rec, &fits), ==, TD_FRAME_SEGMENT);
    g_assert_cmpuint(rec.payload_len, ==, 100);
    g_assert_false(rec.payload_from_ip);

    frame.wire_len = frame.caplen;
    g_assert_cmpint(td_decode(&frame, TD_WIRESHARK_4_0, NULL, &rec, &fits), ==, TD_FRAME_SEGMENT);
    g_assert_cmpuint(rec.payload_len, ==, 100);
    g_assert_true(rec.payload_from_ip);

    /* 16 bytes of TCP: the window is there, the options are not (unknown) */
    f.len = 0;
    put_ethernet(&f, 0x0800);
    ipv4_tcp(&f, &SYN, 0);
    frame = frame_of(&f, TD_LINK_ETHERNET);
    frame.caplen = 14 + 20 + 16;
    g_assert_cmpint(td_decode(&frame, TD_WIRESHARK_4_0, NULL, &rec, &fits), ==, TD_FRAME_SEGMENT);
    g_assert_true(rec.has_window);
    g_assert_cmpuint(rec.window, ==, 64240);
    g_assert_false(rec.options.complete);
    g_assert_cmphex(rec.options.unknown, ==, TD_OPT_ALL);
    g_assert_cmphex(rec.options.present, ==, 0);

    g_assert_true(fits.numbered);

    /* 14 or 15 bytes: up to 4.4 Wireshark stops before numbering the stream; 4.6
     * numbers it from the flags on. The plugin reads it either way, without a window. */
    frame.caplen = 14 + 20 + 15;
    g_assert_cmpint(td_decode(&frame, TD_WIRESHARK_4_0, NULL, &rec, &fits), ==, TD_FRAME_SEGMENT);
    g_assert_false(fits.numbered);
    g_assert_cmpint(td_decode(&frame, TD_WIRESHARK_4_4, NULL, &rec, &fits), ==, TD_FRAME_SEGMENT);
    g_assert_false(fits.numbered);
    frame.caplen = 14 + 20 + 14;
    g_assert_cmpint(td_decode(&frame, TD_WIRESHARK_4_6, NULL, &rec, &fits), ==, TD_FRAME_SEGMENT);
    g_assert_true(fits.numbered && fits.recorded);
    g_assert_false(rec.has_window);
    g_assert_cmphex(rec.tcp_flags, ==, TD_TH_SYN | TD_TH_ECE | TD_TH_CWR);
    frame.caplen = 14 + 20 + 13;
    g_assert_cmpint(td_decode(&frame, TD_WIRESHARK_4_6, NULL, &rec, &fits), ==, TD_FRAME_MALFORMED);
    /* more captured than sent is bogus: Wireshark reads the captured bytes, and so does this */
    frame.caplen = frame.wire_len + 1;
    g_assert_cmpint(td_decode(&frame, TD_WIRESHARK_4_0, NULL, &rec, &fits), ==, TD_FRAME_SEGMENT);
    g_assert_true(fits.numbered && fits.recorded);
    g_assert_cmphex(rec.tcp_flags, ==, TD_TH_SYN | TD_TH_ECE | TD_TH_CWR);
}

/* The IP bytes ip (the ethertype given) behind Ethernet, Linux cooked (SLL) and cooked
 * v2 (SLL2), which plain_ip_tcp may read on a path of their own, against the same
 * bytes behind an 802.1Q tag, which take the general one: at every cut of the
 * captured bytes, three wire lengths (the whole, the cut, less than the cut) and two
 * Wireshark versions, both must give the same verdict and the same record, byte for
 * byte. Returns the comparisons made; what names the case in a failure. */
static unsigned compare_with_tagged(const frame_bytes *ip, uint16_t ethertype, const char *what)
{
    static const td_wireshark versions[] = { TD_WIRESHARK_4_0, TD_WIRESHARK_4_6 };
    static const uint8_t sll[14] = { 0, 0, 0, 1, 0, 6, 2, 0, 0, 0, 0, 1 };
    static const uint8_t sll2[18] = { 0, 0, 0, 0, 0, 2, 0, 1, 0, 0, 6, 2, 0, 0, 0, 0, 1 };
    static const td_link links[3] = { TD_LINK_ETHERNET, TD_LINK_SLL, TD_LINK_SLL2 };
    unsigned compared = 0;

    for (uint32_t cut = 0; cut <= ip->len; cut++)
    for (int wire_case = 0; wire_case < 3; wire_case++)
    for (unsigned v = 0; v < G_N_ELEMENTS(versions); v++) {
        frame_bytes tagged = { .len = 0 }, own[3] = { { .len = 0 }, { .len = 0 }, { .len = 0 } };
        td_record rec_tagged;
        td_decoded info_tagged;
        uint32_t ip_wire = wire_case == 0 ? ip->len : wire_case == 1 ? cut : cut / 2;

        put_ethernet(&tagged, 0x8100);
        tagged.len -= 2;
        put16(&tagged, 0x8100);
        put16(&tagged, 100);
        put16(&tagged, ethertype);
        put_bytes(&tagged, ip->b, ip->len);
        td_frame t = frame_of(&tagged, TD_LINK_ETHERNET);
        t.caplen = 18 + cut;
        t.wire_len = 18 + ip_wire;
        td_frame_kind kind_tagged = td_decode(&t, versions[v], NULL, &rec_tagged, &info_tagged);
        put_ethernet(&own[0], ethertype);
        put_bytes(&own[1], sll, sizeof sll);
        put16(&own[1], ethertype);
        put16(&own[2], ethertype);
        put_bytes(&own[2], sll2, sizeof sll2);
        for (unsigned l = 0; l < G_N_ELEMENTS(links); l++) {
            td_record rec_own;
            td_decoded info_own;
            uint32_t link_len = own[l].len;
            put_bytes(&own[l], ip->b, ip->len);
            td_frame a = frame_of(&own[l], links[l]);
            a.caplen = link_len + cut;
            a.wire_len = link_len + ip_wire;
            td_frame_kind kind_own = td_decode(&a, versions[v], NULL, &rec_own, &info_own);
            if (kind_own != kind_tagged || memcmp(&rec_own, &rec_tagged, sizeof rec_own) ||
                memcmp(&info_own, &info_tagged, sizeof info_own))
                g_error("link %d, %s, cut at %u of %u IP bytes, wire %u: %d against %d (tagged)", links[l], what,
                        cut, ip->len, ip_wire, kind_own, kind_tagged);
            compared++;
        }
    }
    return compared;
}

/* IPv4 headers plain and not (options, a bad header length, version 6's nibble),
 * total lengths (0: TSO; short, long, malformed), fragment fields, protocols, ECN
 * bits and TCP headers, each as compare_with_tagged compares them. */
static void test_plain_ipv4_as_tagged(void)
{
    static const uint8_t first_bytes[] = { 0x45, 0x46, 0x44, 0x65 };
    static const uint16_t fragments[] = { 0x4000, 0x0000, 0x2000, 0x0001, 0x8000, 0x6000 };
    static const uint8_t protos[] = { 6, 17 };
    static const tcp_spec bad_offset = { 443, 40000, 5000, 1001, TD_TH_ACK, 501, NULL, 0, 4 };
    const tcp_spec *segments[] = { &SYN, &DATA, &bad_offset };
    unsigned compared = 0;

    for (unsigned b = 0; b < G_N_ELEMENTS(first_bytes); b++)
    for (unsigned fr = 0; fr < G_N_ELEMENTS(fragments); fr++)
    for (unsigned pr = 0; pr < G_N_ELEMENTS(protos); pr++)
    for (unsigned sg = 0; sg < G_N_ELEMENTS(segments); sg++)
    for (int length_case = 0; length_case < 6; length_case++) {
        frame_bytes ip = { .len = 0 };
        uint32_t header = (first_bytes[b] & 15) * 4u < 20 ? 20 : (first_bytes[b] & 15) * 4u;
        uint32_t whole = header + tcp_len(segments[sg]);
        static const int32_t adjust[] = { 0, 0, -10, 100, 0, 0 };
        uint16_t total = length_case == 1 ? 0 : length_case == 4 ? 19 : length_case == 5 ? 20
                         : (uint16_t)(whole + adjust[length_case]);
        char *what;

        put8(&ip, first_bytes[b]);
        put8(&ip, (uint8_t)(b + sg));       /* ECN bits 0-3 */
        put16(&ip, total);
        put16(&ip, 0x1234);
        put16(&ip, fragments[fr]);
        put8(&ip, 64);
        put8(&ip, protos[pr]);
        put16(&ip, 0);
        put_bytes(&ip, C4, 4);
        put_bytes(&ip, S4, 4);
        while (ip.len < header)
            put8(&ip, 1);                   /* NOP options */
        put_tcp(&ip, segments[sg]);
        what = g_strdup_printf("first byte %#x, fragment field %#x, protocol %u, segment %u, total length %u",
                               first_bytes[b], fragments[fr], protos[pr], sg, total);
        compared += compare_with_tagged(&ip, 0x0800, what);
        g_free(what);
    }
    g_assert_cmpuint(compared, >, 1000000);
}

/* IPv6 headers plain and not (version 4's nibble behind IPv6's ethertype), the next
 * header (TCP, UDP, a Hop-by-Hop header and a fragment header before TCP), payload
 * lengths (the whole, 0: a jumbogram without its option, short, long), traffic
 * classes (ECN bits) and TCP headers, each as compare_with_tagged compares them. */
static void test_plain_ipv6_as_tagged(void)
{
    static const uint8_t versions[] = { 6, 4 };
    static const uint8_t nexts[] = { 6, 17, 0, 44 };
    static const tcp_spec bad_offset = { 443, 40000, 5000, 1001, TD_TH_ACK, 501, NULL, 0, 4 };
    const tcp_spec *segments[] = { &SYN, &DATA, &bad_offset };
    unsigned compared = 0;

    for (unsigned vn = 0; vn < G_N_ELEMENTS(versions); vn++)
    for (unsigned nx = 0; nx < G_N_ELEMENTS(nexts); nx++)
    for (unsigned sg = 0; sg < G_N_ELEMENTS(segments); sg++)
    for (int length_case = 0; length_case < 4; length_case++) {
        frame_bytes ip = { .len = 0 };
        uint32_t extension = nexts[nx] == 0 || nexts[nx] == 44 ? 8 : 0;
        uint32_t payload = extension + tcp_len(segments[sg]);
        static const int32_t adjust[] = { 0, 0, -10, 100 };
        uint16_t plen = length_case == 1 ? 0 : (uint16_t)(payload + adjust[length_case]);
        char *what;

        put8(&ip, (uint8_t)(versions[vn] << 4 | (sg & 0x0f)));
        put8(&ip, (uint8_t)((vn + sg + nx) << 4));     /* the traffic class's low bits: ECN 0-3 */
        put16(&ip, 0x1234);                             /* flow label */
        put16(&ip, plen);
        put8(&ip, nexts[nx]);
        put8(&ip, 64);
        put_bytes(&ip, C6, 16);
        put_bytes(&ip, S6, 16);
        if (nexts[nx] == 0) {                           /* Hop-by-Hop: TCP next, a PadN option */
            static const uint8_t hop[8] = { 6, 0, 1, 4, 0, 0, 0, 0 };
            put_bytes(&ip, hop, sizeof hop);
        } else if (nexts[nx] == 44) {                   /* a first fragment, more to come */
            static const uint8_t frag[8] = { 6, 0, 0, 1, 0, 0, 0x12, 0x34 };
            put_bytes(&ip, frag, sizeof frag);
        }
        put_tcp(&ip, segments[sg]);
        what = g_strdup_printf("version %u, next header %u, segment %u, payload length %u", versions[vn], nexts[nx],
                               sg, plen);
        compared += compare_with_tagged(&ip, 0x86dd, what);
        g_free(what);
    }
    g_assert_cmpuint(compared, >, 150000);
}

/* IPv4 total length 0: TSO as the sender captured it; the frame gives the length. */
static void test_tso_length_zero(void)
{
    frame_bytes f = { .len = 0 };
    td_record rec;

    put_ethernet(&f, 0x0800);
    put_ipv4(&f, S4, C4, 6, TD_ECT0, 0);
    put_tcp(&f, &DATA);
    g_assert_cmpint(decode(&f, TD_LINK_ETHERNET, &rec), ==, TD_FRAME_SEGMENT);
    g_assert_true(rec.ip_len_zero);
    g_assert_cmpuint(rec.payload_len, ==, 100);
}

/* Extension headers are walked to TCP, and the codepoint is the IPv6 header's. */
static void test_ipv6_extensions(void)
{
    frame_bytes f = { .len = 0 };
    td_record rec;

    put_ethernet(&f, 0x86dd);
    put_ipv6(&f, C6, S6, 6, TD_ECT1, (uint16_t)tcp_len(&SYN));
    put_tcp(&f, &SYN);
    g_assert_cmpint(decode(&f, TD_LINK_ETHERNET, &rec), ==, TD_FRAME_SEGMENT);
    g_assert_cmpuint(rec.src.len, ==, 16);
    g_assert_cmpmem(rec.dst.bytes, 16, S6, 16);
    g_assert_true(rec.has_ip_ecn);
    g_assert_cmpuint(rec.ip_ecn, ==, TD_ECT1);

    f.len = 0;
    put_ethernet(&f, 0x86dd);
    put_ipv6(&f, C6, S6, 0, TD_ECT1, (uint16_t)(8 + 16 + tcp_len(&DATA)));
    put8(&f, 60); put8(&f, 0); put16(&f, 0x0104); put32(&f, 0);              /* hop-by-hop, PadN */
    put8(&f, 6); put8(&f, 1); put16(&f, 0x010c); put32(&f, 0); put32(&f, 0); put32(&f, 0);  /* destination */
    put_tcp(&f, &DATA);
    g_assert_cmpint(decode(&f, TD_LINK_ETHERNET, &rec), ==, TD_FRAME_SEGMENT);
    g_assert_cmpuint(rec.sport, ==, 443);
    g_assert_cmpuint(rec.payload_len, ==, 100);
    g_assert_true(rec.has_ip_ecn);
    g_assert_cmpuint(rec.ip_ecn, ==, TD_ECT1);

    /* a payload length of 0 without a jumbo option: Wireshark hands TCP nothing */
    f.len = 0;
    put_ethernet(&f, 0x86dd);
    put_ipv6(&f, C6, S6, 6, 0, 0);
    put_tcp(&f, &DATA);
    g_assert_cmpint(decode(&f, TD_LINK_ETHERNET, &rec), ==, TD_FRAME_MALFORMED);

    /* 16 destination headers (8 bytes each, PadN) before TCP: read, as tshark reads it */
    f.len = 0;
    put_ethernet(&f, 0x86dd);
    put_ipv6(&f, C6, S6, 60, 0, (uint16_t)(16 * 8 + tcp_len(&DATA)));
    for (int i = 0; i < 16; i++) {
        put8(&f, i == 15 ? 6 : 60); put8(&f, 0); put16(&f, 0x0104); put32(&f, 0);
    }
    put_tcp(&f, &DATA);
    g_assert_cmpint(decode(&f, TD_LINK_ETHERNET, &rec), ==, TD_FRAME_SEGMENT);
    g_assert_cmpuint(rec.payload_len, ==, 100);
}

/* A Mobility header (RFC 6275 §6.1.1: payload proto, length, MH type, reserved,
 * checksum, message) whose Payload Proto names TCP: Wireshark hands nothing on
 * after it, so the TCP header behind it is no segment. */
static void test_ipv6_mobility(void)
{
    frame_bytes f = { .len = 0 };
    td_record rec;

    put_ethernet(&f, 0x86dd);
    put_ipv6(&f, C6, S6, 135, 0, (uint16_t)(8 + tcp_len(&DATA)));
    put8(&f, 6); put8(&f, 0); put8(&f, 0); put8(&f, 0); put32(&f, 0);     /* Binding Refresh Request */
    put_tcp(&f, &DATA);
    g_assert_cmpint(decode(&f, TD_LINK_ETHERNET, &rec), ==, TD_FRAME_OTHER);
}

static void test_not_tcp(void)
{
    frame_bytes f = { .len = 0 };
    td_record rec;

    put_ethernet(&f, 0x0806);                   /* ARP */
    put32(&f, 0);
    g_assert_cmpint(decode(&f, TD_LINK_ETHERNET, &rec), ==, TD_FRAME_OTHER);

    f.len = 0;
    put_ethernet(&f, 0x0800);
    put_ipv4(&f, C4, S4, 17, 0, 28);            /* UDP */
    put32(&f, 0); put32(&f, 0);
    g_assert_cmpint(decode(&f, TD_LINK_ETHERNET, &rec), ==, TD_FRAME_OTHER);

    f.len = 0;
    put_ethernet(&f, 0x0800);
    ipv4_tcp(&f, &DATA, 0);
    f.b[14 + 6] |= 0x20;                        /* more fragments: Wireshark reassembles, this skips */
    g_assert_cmpint(decode(&f, TD_LINK_ETHERNET, &rec), ==, TD_FRAME_OTHER);

    f.len = 0;
    put_ethernet(&f, 0x0800);
    put8(&f, 0x44);                             /* IHL 4: shorter than a header */
    f.len += 19;
    g_assert_cmpint(decode(&f, TD_LINK_ETHERNET, &rec), ==, TD_FRAME_MALFORMED);

    /* a data offset below 5 words: Wireshark numbers the stream, the plugin reads nothing */
    f.len = 0;
    put_ethernet(&f, 0x0800);
    ipv4_tcp(&f, &DATA, 0);
    f.b[14 + 20 + 12] = 0x40;
    g_assert_cmpint(decode(&f, TD_LINK_ETHERNET, &rec), ==, TD_FRAME_SEGMENT);
    g_assert_true(info.numbered);
    g_assert_false(info.recorded);

    f.len = 0;
    put_bytes(&f, "\0\0", 2);
    g_assert_cmpint(decode(&f, TD_LINK_ETHERNET, &rec), ==, TD_FRAME_MALFORMED);
    g_assert_cmpint(decode(&f, TD_LINK_UNSUPPORTED, &rec), ==, TD_FRAME_OTHER);
}

/* An ICMP error quoting a segment: the quoted segment's endpoints, as a quote. */
static void test_icmp_quote(void)
{
    frame_bytes f = { .len = 0 };
    tcp_spec quoted = SYN;
    td_record rec;
    static const uint8_t router[4] = { 203, 0, 113, 1 };

    quoted.opts_len = 0;
    put_ethernet(&f, 0x0800);
    put_ipv4(&f, router, C4, 1, 0, 20 + 8 + 20 + 20);
    put8(&f, 3); put8(&f, 1); put16(&f, 0); put32(&f, 0);      /* host unreachable */
    put_ipv4(&f, C4, S4, 6, 0, 40);
    put_tcp(&f, &quoted);
    g_assert_cmpint(decode(&f, TD_LINK_ETHERNET, &rec), ==, TD_FRAME_QUOTED);
    g_assert_cmpmem(rec.src.bytes, 4, C4, 4);
    g_assert_cmpuint(rec.dport, ==, 443);
    g_assert_true(info.numbered);

    /* 8 bytes of the quoted header: too few for Wireshark to number it, enough for
     * the plugin to find its conversation */
    f.len -= 12;
    g_assert_cmpint(decode(&f, TD_LINK_ETHERNET, &rec), ==, TD_FRAME_QUOTED);
    g_assert_false(info.numbered);
    f.len += 12;

    /* a quote of a datagram the error's destination did not send */
    f.b[14 + 20 + 8 + 12] ^= 1;
    g_assert_cmpint(decode(&f, TD_LINK_ETHERNET, &rec), ==, TD_FRAME_OTHER);
    f.b[14 + 20 + 8 + 12] ^= 1;

    f.b[14 + 20] = 8;                           /* an echo request carries no quote */
    g_assert_cmpint(decode(&f, TD_LINK_ETHERNET, &rec), ==, TD_FRAME_OTHER);
}

/* GRE's optional fields, ERSPAN III's platform subheader, and what is not decoded:
 * the corners the re-wrapped captures (test_encapsulations.py) do not reach. */
static void test_tunnel_corners(void)
{
    static const uint8_t outer_a[4] = { 203, 0, 113, 1 }, outer_b[4] = { 203, 0, 113, 2 };
    frame_bytes f = { .len = 0 };
    td_record rec;

    /* GRE with checksum, key and sequence number (12 bytes after its 4) */
    put_ethernet(&f, 0x0800);
    put_ipv4(&f, outer_a, outer_b, 47, 0, (uint16_t)(20 + 16 + 20 + tcp_len(&SYN)));
    put16(&f, 0x8000 | 0x2000 | 0x1000);
    put16(&f, 0x0800);
    put32(&f, 0); put32(&f, 77); put32(&f, 5);
    ipv4_tcp(&f, &SYN, 2);
    g_assert_cmpint(decode(&f, TD_LINK_ETHERNET, &rec), ==, TD_FRAME_SEGMENT);
    check_syn(&rec);

    /* version 1 (PPTP's enhanced GRE) is not read */
    f.b[14 + 20 + 1] |= 1;
    g_assert_cmpint(decode(&f, TD_LINK_ETHERNET, &rec), ==, TD_FRAME_OTHER);

    /* ERSPAN III with the O flag: 12 bytes of header and 8 of platform subheader */
    f.len = 0;
    put_ethernet(&f, 0x0800);
    put_ipv4(&f, outer_a, outer_b, 47, 0, (uint16_t)(20 + 8 + 20 + 14 + 20 + tcp_len(&SYN)));
    put16(&f, 0x1000);
    put16(&f, 0x22eb);
    put32(&f, 9);
    put32(&f, 0x20000007); put32(&f, 0); put32(&f, 0x00000001);
    put32(&f, 0xffffffff); put32(&f, 0xffffffff);
    put_ethernet(&f, 0x0800);
    ipv4_tcp(&f, &SYN, 2);
    g_assert_cmpint(decode(&f, TD_LINK_ETHERNET, &rec), ==, TD_FRAME_SEGMENT);
    check_syn(&rec);

    /* an MPLS stack with no bottom within 16 labels is hostile */
    f.len = 0;
    put_ethernet(&f, 0x8847);
    for (int i = 0; i < 17; i++)
        put32(&f, (uint32_t)(100 + i) << 12);
    g_assert_cmpint(decode(&f, TD_LINK_ETHERNET, &rec), ==, TD_FRAME_MALFORMED);

    /* MPLS carrying a pseudowire (control word, nibble 0) is not read */
    f.len = 0;
    put_ethernet(&f, 0x8847);
    put32(&f, 100 << 12 | 0x100);
    put32(&f, 0);
    g_assert_cmpint(decode(&f, TD_LINK_ETHERNET, &rec), ==, TD_FRAME_OTHER);

    /* Geneve of a version that does not exist */
    f.len = 0;
    put_ethernet(&f, 0x0800);
    put_ipv4(&f, outer_a, outer_b, 17, 0, 20 + 8 + 8 + 14);
    put16(&f, 50000); put16(&f, 6081); put16(&f, 8 + 8 + 14); put16(&f, 0);
    put16(&f, 0x4000); put16(&f, 0x6558); put32(&f, 0);
    g_assert_cmpint(decode(&f, TD_LINK_ETHERNET, &rec), ==, TD_FRAME_OTHER);

    /* PPP without the HDLC-like address and control bytes */
    f.len = 0;
    put16(&f, 0x0021);
    ipv4_tcp(&f, &SYN, 2);
    g_assert_cmpint(decode(&f, TD_LINK_PPP, &rec), ==, TD_FRAME_SEGMENT);
    check_syn(&rec);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/decode/ethernet_vlan_qinq", test_ethernet_vlan_qinq);
    g_test_add_func("/decode/tunnel_corners", test_tunnel_corners);
    g_test_add_func("/decode/cooked_raw_loopback", test_cooked_raw_loopback);
    g_test_add_func("/decode/payload_from_ip_length", test_payload_from_ip_length);
    g_test_add_func("/decode/cut_records", test_cut_records);
    g_test_add_func("/decode/plain_ipv4_as_tagged", test_plain_ipv4_as_tagged);
    g_test_add_func("/decode/plain_ipv6_as_tagged", test_plain_ipv6_as_tagged);
    g_test_add_func("/decode/tso_length_zero", test_tso_length_zero);
    g_test_add_func("/decode/ipv6_extensions", test_ipv6_extensions);
    g_test_add_func("/decode/ipv6_mobility", test_ipv6_mobility);
    g_test_add_func("/decode/not_tcp", test_not_tcp);
    g_test_add_func("/decode/icmp_quote", test_icmp_quote);
    return g_test_run();
}
