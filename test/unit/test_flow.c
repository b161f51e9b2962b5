/* The flow model: roles, handshake timing → vantage, ECN outcome over time. */
#include <glib.h>
#include <string.h>
#include "flow.h"
#include "segment.h"

#define MS 1000000LL

typedef struct {
    td_config cfg;
    td_engine *engine;
    uint32_t frame;
} fixture;

static void setup(fixture *f, gconstpointer data G_GNUC_UNUSED)
{
    td_config_defaults(&f->cfg);
    f->engine = td_engine_new(&f->cfg);
    f->frame = 0;
}

static void teardown(fixture *f, gconstpointer data G_GNUC_UNUSED)
{
    td_engine_free(f->engine);
}

/* One packet of stream 0 between client 10.0.0.1:40000 and server 10.0.0.2:80. */
static td_flow *send(fixture *f, bool from_client, int64_t t_ns, uint16_t flags, uint32_t seq,
                     uint32_t len, int ecn, int *sender)
{
    td_record rec = segment(from_client, 80, t_ns, flags, seq, len);
    int ignored;

    rec.frame = ++f->frame;
    if (flags & TD_TH_SYN) {
        rec.options.present = TD_OPT_MSS;
        rec.options.mss = from_client ? 1460 : 1400;
    }
    rec.has_ip_ecn = ecn >= 0;
    rec.ip_ecn = ecn >= 0 ? (uint8_t)ecn : 0;
    return td_engine_add(f->engine, &rec, sender ? sender : &ignored);
}

enum { CLASSIC_SYN = TD_TH_SYN | TD_TH_ECE | TD_TH_CWR, CLASSIC_SYNACK = TD_TH_SYN | TD_TH_ACK | TD_TH_ECE };

/* Handshake seen from a capture point d_server ms from the server and d_client ms
 * from the client (round trips). */
static td_flow *handshake(fixture *f, uint16_t syn, uint16_t synack, int64_t rtt_server, int64_t rtt_client)
{
    send(f, true, 0, syn, 1000, 0, TD_NOT_ECT, NULL);
    send(f, false, rtt_server, synack, 5000, 0, TD_NOT_ECT, NULL);
    return send(f, true, rtt_server + rtt_client, TD_TH_ACK, 1001, 0, TD_NOT_ECT, NULL);
}

static void test_roles_and_mss(fixture *f, gconstpointer data G_GNUC_UNUSED)
{
    int sender = -1;
    td_flow *flow = handshake(f, CLASSIC_SYN, CLASSIC_SYNACK, 40 * MS, 50000);

    g_assert_true(td_flow_roles_known(flow));
    send(f, false, 41 * MS, TD_TH_ACK, 5001, 1448, TD_ECT0, &sender);
    g_assert_cmpint(sender, ==, 1 - flow->client);
    g_assert_cmpint(flow->more->hs.opts[flow->client].mss, ==, 1460);
    g_assert_cmpint(flow->more->hs.opts[td_flow_server(flow)].mss, ==, 1400);
    g_assert_cmpstr(td_flow_data_sender(flow), ==, "server");
    g_assert_cmpint(flow->ecn_outcome, ==, TD_ECN_CLASSIC);
    g_assert_cmpint(flow->ecn_decided_frame, ==, 3);    /* settled when the client answers */
    g_assert_cmpint(td_flow_ecn_data_use(flow, sender), ==, TD_ECN_DATA_ECT);
}

static void test_roles_from_synack_only(fixture *f, gconstpointer data G_GNUC_UNUSED)
{
    td_flow *flow = send(f, false, 0, CLASSIC_SYNACK, 5000, 0, TD_NOT_ECT, NULL);

    g_assert_true(td_flow_roles_known(flow));
    g_assert_cmpint(flow->client, ==, 1);          /* the SYN-ACK's receiver */
    g_assert_cmpint(flow->ecn_outcome, ==, TD_ECN_UNKNOWN);
}

static void test_vantage(fixture *f, gconstpointer data G_GNUC_UNUSED)
{
    td_flow *flow = handshake(f, TD_TH_SYN, TD_TH_SYN | TD_TH_ACK, 40 * MS, 30000);
    g_assert_cmpint(td_flow_vantage(flow, &f->cfg), ==, TD_VANTAGE_NEAR_CLIENT);
    f->cfg.vantage_override = TD_VANTAGE_MIDDLE;
    g_assert_cmpint(td_flow_vantage(flow, &f->cfg), ==, TD_VANTAGE_MIDDLE);
}

static void test_vantage_server_and_middle(void)
{
    struct { int64_t to_server, to_client; td_vantage expected; } rows[] = {
        { 30000, 40 * MS, TD_VANTAGE_NEAR_SERVER },
        { 20 * MS, 20 * MS, TD_VANTAGE_MIDDLE },
        { 60000, 30000, TD_VANTAGE_UNKNOWN },     /* host turnaround only: cannot tell */
        { 2 * MS, 1500000, TD_VANTAGE_MIDDLE },
    };
    for (gsize i = 0; i < G_N_ELEMENTS(rows); i++) {
        fixture f;
        setup(&f, NULL);
        td_flow *flow = handshake(&f, TD_TH_SYN, TD_TH_SYN | TD_TH_ACK, rows[i].to_server, rows[i].to_client);
        g_assert_cmpint(td_flow_vantage(flow, &f.cfg), ==, rows[i].expected);
        teardown(&f, NULL);
    }
}

/* Without a handshake (a lone SYN's flow, or none captured) only the analyst's
 * override tells the vantage; the names are the field values. */
static void test_vantage_without_handshake(void)
{
    g_assert_cmpint(td_vantage_infer(NULL, 80, 1000, TD_VANTAGE_UNKNOWN), ==, TD_VANTAGE_UNKNOWN);
    g_assert_cmpint(td_vantage_infer(NULL, 80, 1000, TD_VANTAGE_NEAR_SERVER), ==, TD_VANTAGE_NEAR_SERVER);
    g_assert_cmpstr(td_vantage_name(TD_VANTAGE_NEAR_CLIENT), ==, "near-client");
    g_assert_cmpstr(td_vantage_name(TD_VANTAGE_NEAR_SERVER), ==, "near-server");
    g_assert_cmpstr(td_vantage_name(TD_VANTAGE_MIDDLE), ==, "middle");
    g_assert_cmpstr(td_vantage_name(TD_VANTAGE_UNKNOWN), ==, "unknown");
}

/* A handshake packet with timestamps: TSval, TSecr (the client's clock counts from
 * 1000, the server's from 5000, in ms). */
static td_flow *send_ts(fixture *f, bool from_client, int64_t t_ms, uint16_t flags, uint32_t tsval,
                        uint32_t tsecr)
{
    td_record rec = segment(from_client, 80, t_ms * MS, flags, from_client ? 1000 : 5000, 0);
    int ignored;

    rec.frame = ++f->frame;
    rec.ack = (flags & TD_TH_ACK) ? (from_client ? 5001 : 1001) : 0;
    rec.options.present = TD_OPT_TS | ((flags & TD_TH_SYN) ? TD_OPT_MSS : 0);
    rec.options.mss = 1460;
    rec.options.ts_valid = true;
    rec.options.tsval = tsval;
    rec.options.tsecr = tsecr;
    return td_engine_add(f->engine, &rec, &ignored);
}

/* A segment of the flow send_ts opened, without any option: `len` bytes from `seq`. */
static td_flow *send_bare(fixture *f, bool from_client, int64_t t_ms, uint32_t seq, uint32_t len)
{
    td_record rec = segment(from_client, 80, t_ms * MS, TD_TH_ACK, seq, len);
    int ignored;

    rec.frame = ++f->frame;
    rec.ack = from_client ? 5001 : 1101;
    return td_engine_add(f->engine, &rec, &ignored);
}

/* Timestamps negotiated (RFC 7323 3.2: then every segment but a RST carries them). A
 * keep-alive probe without them (RFC 1122 4.2.3.6: SND.NXT - 1, no data; some stacks
 * send theirs bare) is no evidence of a path that strips them; a data segment
 * without them is. */
static void test_keepalive_without_timestamps(fixture *f, gconstpointer data G_GNUC_UNUSED)
{
    send_ts(f, true, 0, TD_TH_SYN, 1000, 0);
    send_ts(f, false, 10, TD_TH_SYN | TD_TH_ACK, 5000, 1000);
    send_ts(f, true, 20, TD_TH_ACK, 1020, 5000);
    td_record rec = segment(true, 80, 20 * MS, TD_TH_ACK | TD_TH_PSH, 1001, 100);
    int ignored;
    rec.frame = ++f->frame;
    rec.ack = 5001;
    rec.options.present = TD_OPT_TS;
    rec.options.ts_valid = true;
    rec.options.tsval = 1020;
    rec.options.tsecr = 5000;
    td_flow *flow = td_engine_add(f->engine, &rec, &ignored);
    send_bare(f, false, 30, 5001, 0);
    uint32_t probe = send_bare(f, true, 45030, 1100, 0)->more->sent[flow->client].first_frame_without_ts;
    g_assert_cmpuint(probe, ==, 0);
    flow = send_bare(f, true, 45040, 1101, 100);
    g_assert_cmpuint(flow->more->sent[flow->client].first_frame_without_ts, ==, f->frame);
}

static void assert_handshake(const td_flow *flow, const td_config *cfg, int64_t to_server_ms,
                             int64_t to_client_ms, td_vantage vantage)
{
    int64_t to_server, to_client;

    g_assert_true(td_flow_handshake_halves(flow, &to_server, &to_client));
    g_assert_cmpint(to_server, ==, to_server_ms * MS);
    g_assert_cmpint(to_client, ==, to_client_ms * MS);
    g_assert_cmpint(td_flow_vantage(flow, cfg), ==, vantage);
}

/* A path of 1200 ms round trip, captured at the client (lab-syn-retry-crossing):
 * the SYN at 0 is retried at 1000 ms (same ISN, TSval 2000); the SYN-ACK answering
 * the first SYN arrives at 1200 ms, after the retry, echoing TSval 1000; the client
 * ACKs it at once. The server answers the retry with a SYN-ACK that echoes the first
 * SYN's TSval too (RFC 7323: a retransmitted SYN does not update TS.Recent), at
 * 2200 ms, and the client's duplicate ACK echoes the first SYN-ACK. Paired with the
 * retry, the first SYN-ACK would make a 200 ms round trip. */
static void test_retry_crossing_synack(fixture *f, gconstpointer data G_GNUC_UNUSED)
{
    send_ts(f, true, 0, TD_TH_SYN, 1000, 0);
    send_ts(f, true, 1000, TD_TH_SYN, 2000, 0);
    send_ts(f, false, 1200, TD_TH_SYN | TD_TH_ACK, 5600, 1000);
    send_ts(f, true, 1200, TD_TH_ACK, 2200, 5600);
    send_ts(f, false, 2200, TD_TH_SYN | TD_TH_ACK, 6600, 1000);
    td_flow *flow = send_ts(f, true, 2200, TD_TH_ACK, 3200, 5600);
    assert_handshake(flow, &f->cfg, 1200, 0, TD_VANTAGE_NEAR_CLIENT);
}

/* The same kind of crossing at the server of a 40 ms path (lab-host-stall-late-syn):
 * the server's SYN-ACK to the SYN at 0 never left (dropped), its timer sends it again
 * at 1010 ms; the client's retry arrives at 1030 ms and is answered at once; the
 * client's ACK of the timer's SYN-ACK arrives at 1050 ms, its duplicate ACK of the
 * answer to the retry at 1070 ms. The handshake ACK answers the SYN-ACK of 1010 ms
 * (its TSecr): 40 ms from the server to the client and back, not 20. */
static void test_retry_crossing_at_server(fixture *f, gconstpointer data G_GNUC_UNUSED)
{
    send_ts(f, true, 0, TD_TH_SYN, 1000, 0);
    send_ts(f, false, 1010, TD_TH_SYN | TD_TH_ACK, 6010, 1000);
    send_ts(f, true, 1030, TD_TH_SYN, 2010, 0);
    send_ts(f, false, 1030, TD_TH_SYN | TD_TH_ACK, 6030, 1000);
    send_ts(f, true, 1050, TD_TH_ACK, 2030, 6010);
    td_flow *flow = send_ts(f, true, 1070, TD_TH_ACK, 2050, 6010);
    assert_handshake(flow, &f->cfg, 0, 40, TD_VANTAGE_NEAR_SERVER);
}

/* A retry after a lost SYN-ACK, the one answer echoing the first SYN (a server that
 * got the first SYN): no second SYN-ACK follows, so it answers the retry. */
static void test_retry_answered_once(fixture *f, gconstpointer data G_GNUC_UNUSED)
{
    send_ts(f, true, 0, TD_TH_SYN, 1000, 0);
    send_ts(f, true, 1000, TD_TH_SYN, 2000, 0);
    send_ts(f, false, 1040, TD_TH_SYN | TD_TH_ACK, 6040, 1000);
    td_flow *flow = send_ts(f, true, 1040, TD_TH_ACK, 2040, 6040);
    assert_handshake(flow, &f->cfg, 40, 0, TD_VANTAGE_NEAR_CLIENT);
}

static void test_fallback(fixture *f, gconstpointer data G_GNUC_UNUSED)
{
    td_flow *flow = send(f, true, 0, CLASSIC_SYN, 7, 0, TD_NOT_ECT, NULL);
    g_assert_cmpint(flow->ecn_outcome, ==, TD_ECN_PENDING);
    send(f, true, 1000 * MS, TD_TH_SYN, 7, 0, TD_NOT_ECT, NULL);      /* same ISN, no ECN */
    g_assert_cmpint(flow->ecn_outcome, ==, TD_ECN_FALLBACK);
    g_assert_cmpint(flow->ecn_decided_frame, ==, 2);
    send(f, false, 1010 * MS, TD_TH_SYN | TD_TH_ACK, 9, 0, TD_NOT_ECT, NULL);
    g_assert_cmpint(flow->ecn_outcome, ==, TD_ECN_FALLBACK);
}

static void test_syn_retransmitted_with_ecn_is_not_fallback(fixture *f, gconstpointer data G_GNUC_UNUSED)
{
    send(f, true, 0, CLASSIC_SYN, 7, 0, TD_NOT_ECT, NULL);
    send(f, true, 1000 * MS, CLASSIC_SYN, 7, 0, TD_NOT_ECT, NULL);
    td_flow *flow = send(f, false, 1010 * MS, CLASSIC_SYNACK, 9, 0, TD_NOT_ECT, NULL);
    g_assert_cmpint(flow->ecn_outcome, ==, TD_ECN_PENDING);
    send(f, true, 1020 * MS, TD_TH_ACK, 8, 0, TD_NOT_ECT, NULL);
    g_assert_cmpint(flow->ecn_outcome, ==, TD_ECN_CLASSIC);
}

/* RFC 3168 §6.1.1.1: the ECN-setup SYN-ACK is lost after the capture point and
 * the client retries without ECN; the server's second SYN-ACK answers that. */
static void test_synack_lost_then_fallback(fixture *f, gconstpointer data G_GNUC_UNUSED)
{
    td_flow *flow = send(f, true, 0, CLASSIC_SYN, 7, 0, TD_NOT_ECT, NULL);
    send(f, false, 10 * MS, CLASSIC_SYNACK, 9, 0, TD_NOT_ECT, NULL);
    g_assert_cmpint(flow->ecn_outcome, ==, TD_ECN_PENDING);   /* not proven yet */
    send(f, true, 1000 * MS, TD_TH_SYN, 7, 0, TD_NOT_ECT, NULL);
    send(f, false, 1010 * MS, TD_TH_SYN | TD_TH_ACK, 9, 0, TD_NOT_ECT, NULL);
    send(f, true, 1010 * MS + 50000, TD_TH_ACK, 8, 0, TD_NOT_ECT, NULL);
    g_assert_cmpint(flow->ecn_outcome, ==, TD_ECN_FALLBACK);
    g_assert_cmpint(flow->ecn_decided_frame, ==, 3);
    g_assert_cmpint(flow->more->hs.synack_frame, ==, 4);            /* timing from the live handshake */
}

static void test_client_ack_not_captured(fixture *f, gconstpointer data G_GNUC_UNUSED)
{
    td_flow *flow = send(f, true, 0, CLASSIC_SYN, 7, 0, TD_NOT_ECT, NULL);
    send(f, false, 10 * MS, CLASSIC_SYNACK, 9, 0, TD_NOT_ECT, NULL);
    send(f, false, 20 * MS, TD_TH_ACK, 10, 1448, TD_ECT0, NULL);
    g_assert_cmpint(flow->ecn_outcome, ==, TD_ECN_PENDING);
    td_engine_finish(f->engine);
    g_assert_cmpint(flow->ecn_outcome, ==, TD_ECN_CLASSIC);
    g_assert_cmpint(flow->ecn_decided_frame, ==, 2);
}

/* An ICMP error quoting the SYN after the flow's last segment: counted apart,
 * so the flow keeps its 1 packet and its 20 ms duration, not 3.4 s. */
static void test_quoted_segment_is_counted_apart(fixture *f, gconstpointer data G_GNUC_UNUSED)
{
    td_record quoted;
    td_flow *flow = send(f, true, 0, CLASSIC_SYN, 7, 0, TD_NOT_ECT, NULL);

    send(f, false, 20 * MS, CLASSIC_SYNACK, 9, 0, TD_NOT_ECT, NULL);
    memset(&quoted, 0, sizeof quoted);
    quoted.frame = 3;
    quoted.time_ns = 3400 * MS;
    quoted.tcp_flags = TD_TH_SYN;         /* flags cleared by a middlebox, as quoted */
    quoted.seq = 7;
    g_assert_true(td_engine_add_quoted(f->engine, &quoted) == flow);
    g_assert_cmpuint(td_flow_icmp_quotes(flow), ==, 1);
    g_assert_cmpuint(flow->packets, ==, 2);
    g_assert_cmpuint(flow->last_frame, ==, 2);
    g_assert_cmpint(flow->last_ns - flow->first_ns, ==, 20 * MS);
    g_assert_cmpuint(flow->more->hs.fallback_frame, ==, 0);
    quoted.stream = 42;
    g_assert_null(td_engine_add_quoted(f->engine, &quoted));
}

static void test_midflow_unknown(fixture *f, gconstpointer data G_GNUC_UNUSED)
{
    td_flow *flow = send(f, false, 0, TD_TH_ACK, 100, 1448, TD_ECT0, NULL);
    g_assert_cmpint(flow->ecn_outcome, ==, TD_ECN_UNKNOWN);
    g_assert_nonnull(flow->ecn_reason);
    g_assert_false(td_flow_roles_known(flow));
    g_assert_cmpstr(td_flow_data_sender(flow), ==, "unknown");
    g_assert_cmpint(td_flow_vantage(flow, &f->cfg), ==, TD_VANTAGE_UNKNOWN);
}

static void test_syn_without_synack(fixture *f, gconstpointer data G_GNUC_UNUSED)
{
    td_flow *flow = send(f, true, 0, CLASSIC_SYN, 1, 0, TD_NOT_ECT, NULL);
    g_assert_cmpint(flow->ecn_outcome, ==, TD_ECN_PENDING);
    td_engine_finish(f->engine);
    g_assert_cmpint(flow->ecn_outcome, ==, TD_ECN_UNKNOWN);
    g_assert_cmpint(flow->ecn_decided_frame, ==, 1);

    /* without an ECN request the SYN alone decides */
    fixture g;
    setup(&g, NULL);
    flow = send(&g, true, 0, TD_TH_SYN, 1, 0, TD_NOT_ECT, NULL);
    g_assert_cmpint(flow->ecn_outcome, ==, TD_ECN_NOT_REQUESTED);
    teardown(&g, NULL);
}

static void test_codepoint_counts(fixture *f, gconstpointer data G_GNUC_UNUSED)
{
    td_flow *flow = handshake(f, CLASSIC_SYN, CLASSIC_SYNACK, 1 * MS, 1 * MS);
    int server = td_flow_server(flow);
    send(f, false, 3 * MS, TD_TH_ACK, 5001, 1448, TD_ECT0, NULL);
    send(f, false, 3 * MS, TD_TH_ACK, 6449, 1448, TD_CE, NULL);
    send(f, false, 3 * MS, TD_TH_ACK, 5001, 1448, TD_NOT_ECT, NULL);   /* retransmission */
    send(f, true, 4 * MS, TD_TH_ACK | TD_TH_ECE, 1001, 0, TD_NOT_ECT, NULL);   /* pure ACK: not data */
    g_assert_cmpuint(td_flow_sent(flow, server)->ecn_count[TD_ECT0], ==, 1);
    g_assert_cmpuint(td_flow_sent(flow, server)->ecn_count[TD_CE], ==, 1);
    g_assert_cmpuint(td_flow_sent(flow, server)->ecn_count[TD_NOT_ECT], ==, 1);
    g_assert_cmpuint(td_flow_sent(flow, flow->client)->data_packets, ==, 0);
    g_assert_cmpuint(td_flow_sent(flow, server)->payload_bytes, ==, 3 * 1448);
    g_assert_cmpuint(td_flow_sent(flow, server)->first_ect_frame, ==, 4);
    g_assert_cmpint(td_flow_ecn_data_use(flow, flow->client), ==, TD_ECN_DATA_NONE);
}

static void test_foreign_address_rejected(fixture *f, gconstpointer data G_GNUC_UNUSED)
{
    td_record rec;
    int sender = -1;

    send(f, true, 0, TD_TH_SYN, 1, 0, TD_NOT_ECT, NULL);
    memset(&rec, 0, sizeof rec);
    rec.frame = 99;
    rec.src.len = rec.dst.len = 4;
    rec.src.bytes[0] = 192;
    rec.sport = 1;
    g_assert_null(td_engine_add(f->engine, &rec, &sender));
    g_assert_cmpuint(td_engine_flow_count(f->engine), ==, 1);
    g_assert_cmpuint(td_engine_flow_at(f->engine, 0)->packets, ==, 1);
}

static void test_addr_format(void)
{
    td_addr v4 = { 4, { 10, 77, 1, 2 } };
    td_addr v6 = { 16, { 0xfd, 0x77, 0, 1, [15] = 2 } };
    td_addr none = { 0, { 0 } };
    char buf[64];

    td_addr_format(&v4, buf, sizeof buf);
    g_assert_cmpstr(buf, ==, "10.77.1.2");
    td_addr_format(&v6, buf, sizeof buf);
    g_assert_cmpstr(buf, ==, "fd77:1::2");
    td_addr_format(&none, buf, sizeof buf);
    g_assert_cmpstr(buf, ==, "?");
    td_addr_format(&v6, buf, 4);      /* too small: no overflow, a placeholder */
    g_assert_cmpstr(buf, ==, "?");
}

/* Subtree labels name a direction by its role, or by its addresses without roles. */
static void test_direction_labels(fixture *f, gconstpointer data G_GNUC_UNUSED)
{
    td_record rec = segment(false, 443, 0, TD_TH_ACK, 100, 1448);
    td_flow *flow;
    char label[TD_DIR_LABEL_SIZE];
    int sender;

    rec.frame = 1;
    flow = td_engine_add(f->engine, &rec, &sender);
    td_flow_dir_label(flow, sender, label, sizeof label);
    g_assert_cmpstr(label, ==, "10.0.0.2:443 \u2192 10.0.0.1:40000");
    td_flow_dir_label(flow, 1 - sender, label, sizeof label);
    g_assert_cmpstr(label, ==, "10.0.0.1:40000 \u2192 10.0.0.2:443");
    flow->addr[0].len = flow->addr[1].len = 16;
    td_flow_dir_label(flow, sender, label, sizeof label);
    g_assert_cmpstr(label, ==, "[a00:2::]:443 \u2192 [a00:1::]:40000");
    flow->client = (int8_t)(1 - sender);
    td_flow_dir_label(flow, sender, label, sizeof label);
    g_assert_cmpstr(label, ==, "s2c");
}

/* Issue 14: a flow that is one SYN (a flood's forged source, a scan) costs its
 * td_flow and nothing more; the rest comes with its second packet, and from then
 * on the flow reads as if it had been whole from the start. */
static void test_lone_syn_is_small(fixture *f, gconstpointer data G_GNUC_UNUSED)
{
    enum { FLOOD = 3 * 4096 + 5 };      /* more than one slab of flows */
    td_handshake scratch;
    const td_handshake *hs;

    g_assert_cmpuint(sizeof(td_flow), <=, 128);
    for (uint32_t i = 0; i < FLOOD; i++) {
        td_record syn = segment(true, 443, i * 1000, CLASSIC_SYN, 7 * i, 0);
        int sender;
        syn.frame = ++f->frame;
        syn.stream = i;
        syn.src.bytes[2] = (uint8_t)(i >> 8);
        syn.src.bytes[3] = (uint8_t)i;
        syn.options.present = TD_OPT_MSS | TD_OPT_WSCALE;
        syn.options.mss = 1460;
        syn.options.wscale = 7;
        const td_flow *flow = td_engine_add(f->engine, &syn, &sender);
        g_assert_null(flow->more);
        g_assert_cmpint(sender, ==, 0);
    }
    g_assert_cmpuint(td_engine_flow_count(f->engine), ==, FLOOD);
    const td_flow *last = td_engine_flow_at(f->engine, FLOOD - 1);
    g_assert_cmpuint(last->stream, ==, FLOOD - 1);
    hs = td_flow_hs(last, &scratch);
    g_assert_cmpuint(hs->first_syn_frame, ==, FLOOD);
    g_assert_cmpuint(hs->syn_isn, ==, 7u * (FLOOD - 1));
    g_assert_cmpuint(hs->opts[last->client].mss, ==, 1460);
    g_assert_true(hs->opts_seen[last->client]);
    g_assert_false(hs->opts_seen[1 - last->client]);
    g_assert_cmpuint(td_flow_sent(last, 0)->data_packets, ==, 0);

    /* The server answers the last one, the client completes it and sends data. */
    td_record synack = segment(false, 443, 50 * MS, CLASSIC_SYNACK, 9000, 0);
    td_record ack = segment(true, 443, 60 * MS, TD_TH_ACK, 7 * (FLOOD - 1) + 1, 100);
    int sender;
    synack.frame = ++f->frame;
    ack.frame = ++f->frame;
    synack.stream = ack.stream = FLOOD - 1;
    synack.dst.bytes[2] = ack.src.bytes[2] = (uint8_t)((FLOOD - 1) >> 8);
    synack.dst.bytes[3] = ack.src.bytes[3] = (uint8_t)(FLOOD - 1);
    g_assert_true(td_engine_add(f->engine, &synack, &sender) == last);
    g_assert_nonnull(last->more);
    g_assert_true(td_engine_add(f->engine, &ack, &sender) == last);
    hs = td_flow_hs(last, &scratch);
    g_assert_true(hs == &last->more->hs);
    g_assert_cmpuint(hs->first_syn_frame, ==, FLOOD);       /* kept across the promotion */
    g_assert_cmpuint(hs->opts[last->client].wscale, ==, 7);
    g_assert_cmpuint(hs->synack_frame, ==, FLOOD + 1);
    g_assert_cmpint(last->ecn_outcome, ==, TD_ECN_CLASSIC);
    g_assert_cmpuint(last->packets, ==, 3);
    g_assert_cmpuint(td_flow_sent(last, last->client)->payload_bytes, ==, 100);

    /* the others stay lone SYNs whose ECN request was never answered */
    td_engine_finish(f->engine);
    const td_flow *first = td_engine_flow_at(f->engine, 0);
    g_assert_null(first->more);
    g_assert_cmpint(first->ecn_outcome, ==, TD_ECN_UNKNOWN);
    g_assert_cmpuint(first->ecn_decided_frame, ==, 1);
}

/* Stream numbers that are not in first-appearance order still find their flows. */
static void test_streams_out_of_order(fixture *f, gconstpointer data G_GNUC_UNUSED)
{
    static const uint32_t streams[] = { 5, 0, 1 << 30, 2 };
    int sender;

    for (unsigned i = 0; i < G_N_ELEMENTS(streams); i++) {
        td_record syn = segment(true, 443, i * MS, TD_TH_SYN, 100 + i, 0);
        syn.frame = ++f->frame;
        syn.stream = streams[i];
        syn.sport = (uint16_t)(50000 + i);
        td_engine_add(f->engine, &syn, &sender);
    }
    for (unsigned i = 0; i < G_N_ELEMENTS(streams); i++) {
        td_record synack = segment(false, 443, 10 * MS + i, TD_TH_SYN | TD_TH_ACK, 900, 0);
        synack.frame = ++f->frame;
        synack.stream = streams[i];
        synack.dport = (uint16_t)(50000 + i);
        const td_flow *flow = td_engine_add(f->engine, &synack, &sender);
        g_assert_nonnull(flow);
        g_assert_cmpuint(flow->stream, ==, streams[i]);
        g_assert_cmpuint(flow->index, ==, i);
        g_assert_cmpuint(flow->packets, ==, 2);
    }
    g_assert_cmpuint(td_engine_flow_count(f->engine), ==, G_N_ELEMENTS(streams));
}

static td_record flood_syn(fixture *f, uint32_t i)
{
    td_record syn = segment(true, 443, (int64_t)i * 1000, TD_TH_SYN, i, 0);
    syn.frame = ++f->frame;
    syn.stream = i;
    syn.src.bytes[1] = (uint8_t)(i >> 16);
    syn.src.bytes[2] = (uint8_t)(i >> 8);
    syn.src.bytes[3] = (uint8_t)i;
    return syn;
}

static const td_flow *answer(fixture *f, uint32_t i)
{
    td_record synack = segment(false, 443, 200 * 1000 * MS, TD_TH_SYN | TD_TH_ACK, 9000, 0);
    int sender;
    synack.frame = ++f->frame;
    synack.stream = i;
    synack.dst.bytes[1] = (uint8_t)(i >> 16);
    synack.dst.bytes[2] = (uint8_t)(i >> 8);
    synack.dst.bytes[3] = (uint8_t)i;
    return td_engine_add(f->engine, &synack, &sender);
}

/* Issue 14, degrading gracefully: beyond max_flows, lone SYNs wait in a ring of
 * 65,536 and are kept only if their next packet comes in time; the rest are
 * counted. A flow whose SYN was pushed out is still kept, and says why its
 * handshake is incomplete. */
static void test_max_flows(fixture *f, gconstpointer data G_GNUC_UNUSED)
{
    enum { LIMIT = 10, RING = 65536, BEYOND = RING + 4464 };
    int sender;

    f->cfg.max_flows = LIMIT;
    for (uint32_t i = 0; i < LIMIT + BEYOND; i++) {
        td_record syn = flood_syn(f, i);
        const td_flow *flow = td_engine_add(f->engine, &syn, &sender);
        g_assert_true((flow != NULL) == (i < LIMIT));
    }
    g_assert_cmpuint(td_engine_flow_count(f->engine), ==, LIMIT);

    /* the newest held SYN is answered: it becomes flow LIMIT, its SYN included */
    const td_flow *kept = answer(f, LIMIT + BEYOND - 1);
    g_assert_nonnull(kept);
    g_assert_cmpuint(kept->index, ==, LIMIT);
    g_assert_cmpuint(kept->first_frame, ==, LIMIT + BEYOND);
    g_assert_cmpuint(kept->packets, ==, 2);
    g_assert_cmpuint(kept->more->hs.first_syn_frame, ==, LIMIT + BEYOND);
    g_assert_true(td_engine_flow_at(f->engine, LIMIT) == kept);

    /* the oldest one beyond the limit was pushed out by the 65,536 after it */
    const td_flow *late = answer(f, LIMIT);
    g_assert_nonnull(late);
    g_assert_cmpuint(late->more->hs.first_syn_frame, ==, 0);
    g_assert_true(late->beyond_limit);
    g_assert_cmpstr(late->ecn_reason, ==, "SYN not kept: more flows than the max_flows preference");

    td_engine_finish(f->engine);
    g_assert_cmpuint(td_engine_flow_count(f->engine), ==, LIMIT + 2);
    g_assert_cmpuint(td_engine_not_kept(f->engine), ==, BEYOND - 1);
}

#define ADD(path, fn) g_test_add(path, fixture, NULL, setup, fn, teardown)

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    ADD("/flow/roles-and-mss", test_roles_and_mss);
    ADD("/flow/roles-from-synack-only", test_roles_from_synack_only);
    ADD("/flow/vantage-near-client", test_vantage);
    g_test_add_func("/flow/vantage-table", test_vantage_server_and_middle);
    g_test_add_func("/flow/vantage-without-handshake", test_vantage_without_handshake);
    ADD("/flow/retry-crossing-synack", test_retry_crossing_synack);
    ADD("/flow/keepalive-without-timestamps", test_keepalive_without_timestamps);
    ADD("/flow/retry-crossing-at-server", test_retry_crossing_at_server);
    ADD("/flow/retry-answered-once", test_retry_answered_once);
    ADD("/flow/fallback", test_fallback);
    ADD("/flow/syn-retransmitted-with-ecn", test_syn_retransmitted_with_ecn_is_not_fallback);
    ADD("/flow/synack-lost-then-fallback", test_synack_lost_then_fallback);
    ADD("/flow/client-ack-not-captured", test_client_ack_not_captured);
    ADD("/flow/quoted-segment", test_quoted_segment_is_counted_apart);
    ADD("/flow/direction-labels", test_direction_labels);
    ADD("/flow/lone-syn-is-small", test_lone_syn_is_small);
    ADD("/flow/streams-out-of-order", test_streams_out_of_order);
    ADD("/flow/max-flows", test_max_flows);
    ADD("/flow/midflow-unknown", test_midflow_unknown);
    ADD("/flow/syn-without-synack", test_syn_without_synack);
    ADD("/flow/codepoint-counts", test_codepoint_counts);
    ADD("/flow/foreign-address-rejected", test_foreign_address_rejected);
    g_test_add_func("/flow/addr-format", test_addr_format);
    return g_test_run();
}
