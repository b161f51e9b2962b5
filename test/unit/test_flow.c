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
    g_assert_cmpint(flow->hs.opts[flow->client].mss, ==, 1460);
    g_assert_cmpint(flow->hs.opts[td_flow_server(flow)].mss, ==, 1400);
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
    g_assert_cmpint(flow->hs.synack_frame, ==, 4);            /* timing from the live handshake */
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
    g_assert_cmpuint(flow->icmp_quotes, ==, 1);
    g_assert_cmpuint(flow->packets, ==, 2);
    g_assert_cmpuint(flow->last_frame, ==, 2);
    g_assert_cmpint(flow->last_ns - flow->first_ns, ==, 20 * MS);
    g_assert_cmpuint(flow->hs.fallback_frame, ==, 0);
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
    g_assert_cmpuint(flow->sent[server].ecn_count[TD_ECT0], ==, 1);
    g_assert_cmpuint(flow->sent[server].ecn_count[TD_CE], ==, 1);
    g_assert_cmpuint(flow->sent[server].ecn_count[TD_NOT_ECT], ==, 1);
    g_assert_cmpuint(flow->sent[flow->client].data_packets, ==, 0);
    g_assert_cmpuint(flow->sent[server].payload_bytes, ==, 3 * 1448);
    g_assert_cmpuint(flow->sent[server].first_ect_frame, ==, 4);
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

#define ADD(path, fn) g_test_add(path, fixture, NULL, setup, fn, teardown)

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    ADD("/flow/roles-and-mss", test_roles_and_mss);
    ADD("/flow/roles-from-synack-only", test_roles_from_synack_only);
    ADD("/flow/vantage-near-client", test_vantage);
    g_test_add_func("/flow/vantage-table", test_vantage_server_and_middle);
    ADD("/flow/fallback", test_fallback);
    ADD("/flow/syn-retransmitted-with-ecn", test_syn_retransmitted_with_ecn_is_not_fallback);
    ADD("/flow/synack-lost-then-fallback", test_synack_lost_then_fallback);
    ADD("/flow/client-ack-not-captured", test_client_ack_not_captured);
    ADD("/flow/quoted-segment", test_quoted_segment_is_counted_apart);
    ADD("/flow/direction-labels", test_direction_labels);
    ADD("/flow/midflow-unknown", test_midflow_unknown);
    ADD("/flow/syn-without-synack", test_syn_without_synack);
    ADD("/flow/codepoint-counts", test_codepoint_counts);
    ADD("/flow/foreign-address-rejected", test_foreign_address_rejected);
    g_test_add_func("/flow/addr-format", test_addr_format);
    return g_test_run();
}
