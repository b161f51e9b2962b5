/* The reader of a TCP segment from bytes (engine/segment.c): hand-built headers,
 * cut at every place a front end meets, the lengths the IP header and the frame
 * give, and the option bytes (RFC 9293 §3.2 option format). */
#include <glib.h>
#include <string.h>
/* by its path: this folder's segment.h is the tests' record helper */
#include "../../engine/segment.h"

/* 20-byte TCP header: ports 40000 -> 443, seq 0x01020304, ack 0x0a0b0c0d, data
 * offset `words`, flags (AE in the data offset byte's low bit), window 0x1234. */
static void tcp_header(uint8_t *h, unsigned words, uint16_t flags)
{
    static const uint8_t fixed[20] = { 0x9c, 0x40, 0x01, 0xbb, 1, 2, 3, 4, 10, 11, 12, 13, 0, 0, 0x12, 0x34 };

    memcpy(h, fixed, sizeof fixed);
    h[12] = (uint8_t)(words << 4 | (flags >> 8 & 1));
    h[13] = (uint8_t)flags;
}

static void test_header_whole(void)
{
    uint8_t h[20];
    td_record rec = { 0 };

    tcp_header(h, 5, TD_TH_SYN | TD_TH_ECE | TD_TH_CWR | TD_TH_AE);
    g_assert_cmpuint(td_segment_read_header(h, sizeof h, &rec), ==, 20);
    g_assert_cmpuint(rec.sport, ==, 40000);
    g_assert_cmpuint(rec.dport, ==, 443);
    g_assert_cmphex(rec.seq, ==, 0x01020304);
    g_assert_cmphex(rec.ack, ==, 0x0a0b0c0d);
    g_assert_cmphex(rec.tcp_flags, ==, TD_TH_SYN | TD_TH_ECE | TD_TH_CWR | TD_TH_AE);
    g_assert_true(rec.has_window);
    g_assert_cmphex(rec.window, ==, 0x1234);
}

/* The flags are the 12 bits after the data offset, the reserved ones beside AE
 * kept as the wire has them; a data offset below 5 words is returned as it is,
 * for the front end to refuse. */
static void test_header_reserved_bits_and_short_offset(void)
{
    uint8_t h[20];
    td_record rec = { 0 };

    tcp_header(h, 4, TD_TH_ACK);
    h[12] |= 0x0e;
    g_assert_cmpuint(td_segment_read_header(h, sizeof h, &rec), ==, 16);
    g_assert_cmphex(rec.tcp_flags, ==, 0xe00 | TD_TH_ACK);
    tcp_header(h, 0, TD_TH_ACK);
    g_assert_cmpuint(td_segment_read_header(h, sizeof h, &rec), ==, 0);
}

/* The snaplen cut the header after the flags: no window; at the window's end: a window. */
static void test_header_cut(void)
{
    uint8_t h[20];
    td_record rec = { 0 };

    tcp_header(h, 5, TD_TH_ACK);
    g_assert_cmpuint(td_segment_read_header(h, TD_TCP_FLAGS_END, &rec), ==, 20);
    g_assert_false(rec.has_window);
    g_assert_cmpuint(rec.window, ==, 0);
    g_assert_cmphex(rec.tcp_flags, ==, TD_TH_ACK);
    g_assert_cmpuint(td_segment_read_header(h, TD_TCP_WINDOW_END, &rec), ==, 20);
    g_assert_true(rec.has_window);
}

/* A quote is read from its ports alone. */
static void test_ports(void)
{
    static const uint8_t ports[4] = { 0x01, 0xbb, 0x9c, 0x40 };
    td_record rec = { 0 };

    td_segment_read_ports(ports, &rec);
    g_assert_cmpuint(rec.sport, ==, 443);
    g_assert_cmpuint(rec.dport, ==, 40000);
    g_assert_cmpuint(rec.seq, ==, 0);
}

/* IPv4 header: ECN codepoint and total length. */
static void ipv4(uint8_t *ip, uint8_t ecn, uint16_t total)
{
    memset(ip, 0, 20);
    ip[0] = 0x45;
    ip[1] = ecn;
    ip[2] = (uint8_t)(total >> 8);
    ip[3] = (uint8_t)total;
}

static td_record v4_record(void)
{
    td_record rec = { 0 };

    rec.src.len = rec.dst.len = 4;
    return rec;
}

static void test_lengths_ipv4(void)
{
    uint8_t ip[20];
    td_record rec = v4_record();

    /* 1500-byte datagram with an Ethernet trailer: the IP length wins */
    ipv4(ip, TD_CE, 1500);
    ip[4] = 0xe1;                       /* identification 0xe114 */
    ip[5] = 0x14;
    td_segment_lengths(&rec, ip, 20, 32, 1500 - 20 + 6);
    g_assert_true(rec.has_ip_id);
    g_assert_cmpuint(rec.ip_id, ==, 0xe114);
    g_assert_true(rec.has_ip_ecn);
    g_assert_cmpuint(rec.ip_ecn, ==, TD_CE);
    g_assert_false(rec.ip_len_zero);
    g_assert_cmpuint(rec.payload_len, ==, 1448);
    g_assert_false(rec.payload_from_ip);
    /* a tool rewrote the original length down to the captured 96 bytes: payload_from_ip */
    rec = v4_record();
    td_segment_lengths(&rec, ip, 20, 32, 96 - 20);
    g_assert_cmpuint(rec.payload_len, ==, 1448);
    g_assert_true(rec.payload_from_ip);
    /* IPv4 length 0 (TSO as its sender captured it): the frame gives the length */
    rec = v4_record();
    ipv4(ip, TD_ECT0, 0);
    td_segment_lengths(&rec, ip, 20, 20, 20 + 60000);
    g_assert_true(rec.ip_len_zero);
    g_assert_cmpuint(rec.ip_ecn, ==, TD_ECT0);
    g_assert_cmpuint(rec.payload_len, ==, 60000);
    g_assert_false(rec.payload_from_ip);
}

static void test_lengths_ipv6_and_reassembled(void)
{
    uint8_t ip[40] = { 0x60 | (TD_ECT1 >> 2), (uint8_t)(TD_ECT1 << 4) };
    td_record rec = { 0 };

    rec.src.len = rec.dst.len = 16;
    ip[4] = 0x05;                       /* payload length 1280 + 40 of IPv6 header */
    td_segment_lengths(&rec, ip, 40, 20, 1300);
    g_assert_false(rec.has_ip_id);      /* IPv6 has none */
    g_assert_cmpuint(rec.ip_ecn, ==, TD_ECT1);
    g_assert_cmpuint(rec.payload_len, ==, 1260);
    rec = (td_record){ 0 };
    rec.src.len = rec.dst.len = 16;
    ip[4] = 0;                          /* a jumbogram: the frame gives the length */
    td_segment_lengths(&rec, ip, 40, 20, 70020);
    g_assert_false(rec.ip_len_zero);
    g_assert_cmpuint(rec.payload_len, ==, 70000);
    /* after reassembly the IP header is elsewhere: no ECN codepoint */
    rec = v4_record();
    td_segment_lengths(&rec, NULL, 0, 20, 3000);
    g_assert_false(rec.has_ip_ecn);
    g_assert_cmpuint(rec.payload_len, ==, 2980);
}

/* A header longer than what both the IP length and the frame leave: no payload. */
static void test_lengths_header_past_both_ends(void)
{
    uint8_t ip[20];
    td_record rec = v4_record();

    ipv4(ip, 0, 40);
    td_segment_lengths(&rec, ip, 20, 60, 40);
    g_assert_cmpuint(rec.payload_len, ==, 0);
    g_assert_false(rec.payload_from_ip);
}

static void test_parse_linux_syn(void)
{
    /* MSS 1460, SACK-permitted, timestamps, NOP, window scale 7: a Linux SYN */
    static const uint8_t syn[] = { 2, 4, 0x05, 0xb4, 4, 2, 8, 10, 0, 0, 0, 1, 0, 0, 0, 0, 1, 3, 3, 7 };
    td_tcp_options o;

    td_options_parse(syn, sizeof syn, sizeof syn, &o);
    g_assert_true(o.complete);
    g_assert_cmpuint(o.present, ==, TD_OPT_MSS | TD_OPT_SACK_PERM | TD_OPT_TS | TD_OPT_WSCALE);
    g_assert_cmpuint(o.mss, ==, 1460);
    g_assert_cmpuint(o.wscale, ==, 7);
    g_assert_true(o.ts_valid);
    g_assert_cmpuint(o.tsval, ==, 1);
    g_assert_cmpuint(o.nop_run, ==, 1);
}

/* A Linux SYN after iptables TCPOPTSTRIP took out window scaling, SACK-permitted and
 * timestamps: each stripped byte became a NOP (the lab's mech-opts-stripped server
 * capture), 16 in a row; a Windows-style SYN pads with at most three. */
static void test_parse_nop_runs(void)
{
    static const uint8_t stripped[] = { 2, 4, 0x05, 0xb4, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1 };
    static const uint8_t padded[] = { 2, 4, 0x05, 0xb4, 1, 3, 3, 8, 1, 1, 4, 2 };
    td_tcp_options o;

    td_options_parse(stripped, sizeof stripped, sizeof stripped, &o);
    g_assert_cmpuint(o.present, ==, TD_OPT_MSS);
    g_assert_cmpuint(o.nop_run, ==, 16);
    td_options_parse(padded, sizeof padded, sizeof padded, &o);
    g_assert_cmpuint(o.present, ==, TD_OPT_MSS | TD_OPT_WSCALE | TD_OPT_SACK_PERM);
    g_assert_cmpuint(o.nop_run, ==, 2);
}

static void test_parse_no_options(void)
{
    td_tcp_options o;

    td_options_parse(NULL, 0, 0, &o);
    g_assert_true(o.complete);
    g_assert_cmpuint(o.present, ==, 0);
    g_assert_cmpuint(o.unknown, ==, 0);
}

static void test_parse_cut_and_malformed(void)
{
    static const uint8_t cut[] = { 2, 4, 0x05, 0xb4, 8, 10, 0, 0 };       /* TS cut by the snaplen */
    static const uint8_t zero_len[] = { 3, 0, 7 };                         /* length below 2 */
    td_tcp_options o;

    td_options_parse(cut, sizeof cut, 12, &o);
    g_assert_false(o.complete);
    g_assert_cmpuint(o.present, ==, TD_OPT_MSS);
    g_assert_cmpuint(o.unknown, ==, TD_OPT_ALL & ~TD_OPT_MSS);    /* anything may follow a cut */
    td_options_parse(zero_len, sizeof zero_len, sizeof zero_len, &o);
    g_assert_false(o.complete);
    g_assert_cmpuint(o.unknown, ==, TD_OPT_ALL);                /* the next option cannot be found */
}

/* Issue 12 item 4: MSS 1460, window scale 3, SACK-permitted, then a timestamps
 * option claiming 10 bytes where the 20-byte option space leaves 9. */
static void test_parse_malformed_last_option_keeps_the_good_ones(void)
{
    static const uint8_t bad_last_ts[] = { 2, 4, 0x05, 0xb4, 3, 3, 3, 4, 2, 1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0 };
    td_tcp_options o;

    td_options_parse(bad_last_ts, sizeof bad_last_ts, sizeof bad_last_ts, &o);
    g_assert_false(o.complete);
    g_assert_cmpuint(o.present, ==, TD_OPT_MSS | TD_OPT_WSCALE | TD_OPT_SACK_PERM);
    g_assert_cmpuint(o.mss, ==, 1460);
    g_assert_cmpuint(o.wscale, ==, 3);
    g_assert_cmpuint(o.unknown, ==, TD_OPT_TS);    /* it overruns the header: nothing follows */
    g_assert_false(o.ts_valid);
}

static void test_parse_experimental_and_others(void)
{
    /* TFO cookie request (34), MP_CAPABLE (30), AccECN order 0 (172), experimental AccECN (254/0xACC1) */
    static const uint8_t opts[] = { 34, 2, 30, 4, 0x01, 0x81, 172, 2, 254, 4, 0xac, 0xc1, 0 };
    td_tcp_options o;

    td_options_parse(opts, sizeof opts, sizeof opts, &o);
    g_assert_true(o.complete);
    g_assert_cmpuint(o.present, ==, TD_OPT_TFO | TD_OPT_MPTCP | TD_OPT_ACCECN);
}

/* The options of a whole header, then of the same header cut by the snaplen inside
 * its options, before them, and in the fixed header (a front end may hand fewer
 * than 20 bytes: nothing is read, and a header with options is not complete). */
static void test_options_of_header_cut_by_snaplen(void)
{
    uint8_t h[32];
    static const uint8_t opts[12] = { 2, 4, 0x05, 0xb4, 1, 1, 8, 10, 0, 0, 0, 9 };
    td_tcp_options o;

    tcp_header(h, 8, TD_TH_SYN);
    memcpy(h + 20, opts, sizeof opts);
    td_segment_read_options(h, sizeof h, 32, &o);
    g_assert_false(o.complete);                 /* the timestamps option overruns the header */
    g_assert_cmpuint(o.present, ==, TD_OPT_MSS);
    g_assert_cmpuint(o.unknown, ==, TD_OPT_TS);
    td_segment_read_options(h, 26, 32, &o);     /* cut inside the options */
    g_assert_false(o.complete);
    g_assert_cmpuint(o.present, ==, TD_OPT_MSS);
    g_assert_cmpuint(o.unknown, ==, TD_OPT_ALL & ~TD_OPT_MSS);
    td_segment_read_options(h, 20, 32, &o);     /* cut at the options' start */
    g_assert_false(o.complete);
    g_assert_cmpuint(o.present, ==, 0);
    g_assert_cmpuint(o.unknown, ==, TD_OPT_ALL);
    td_segment_read_options(h, 16, 32, &o);     /* cut in the fixed header */
    g_assert_false(o.complete);
    g_assert_cmpuint(o.unknown, ==, TD_OPT_ALL);
    td_segment_read_options(h, 16, 20, &o);     /* no options declared: nothing is missing */
    g_assert_true(o.complete);
    g_assert_cmpuint(o.unknown, ==, 0);
    td_segment_read_options(h, 60, 20, &o);     /* payload bytes after the header are not options */
    g_assert_true(o.complete);
    g_assert_cmpuint(o.present, ==, 0);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/segment/header-whole", test_header_whole);
    g_test_add_func("/segment/header-reserved-and-short-offset", test_header_reserved_bits_and_short_offset);
    g_test_add_func("/segment/header-cut", test_header_cut);
    g_test_add_func("/segment/ports", test_ports);
    g_test_add_func("/segment/lengths-ipv4", test_lengths_ipv4);
    g_test_add_func("/segment/lengths-ipv6-and-reassembled", test_lengths_ipv6_and_reassembled);
    g_test_add_func("/segment/lengths-header-past-both-ends", test_lengths_header_past_both_ends);
    g_test_add_func("/segment/options-linux-syn", test_parse_linux_syn);
    g_test_add_func("/segment/options-nop-runs", test_parse_nop_runs);
    g_test_add_func("/segment/options-none", test_parse_no_options);
    g_test_add_func("/segment/options-cut-and-malformed", test_parse_cut_and_malformed);
    g_test_add_func("/segment/options-malformed-last", test_parse_malformed_last_option_keeps_the_good_ones);
    g_test_add_func("/segment/options-experimental", test_parse_experimental_and_others);
    g_test_add_func("/segment/options-of-cut-header", test_options_of_header_cut_by_snaplen);
    return g_test_run();
}
