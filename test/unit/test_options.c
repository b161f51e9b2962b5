/* Handshake options: the audit of what a flow's handshake left out (the option
 * bytes' parsing is test_segment.c's). */
#include <glib.h>
#include <string.h>
#include "options.h"

static td_flow *handshake(td_engine *engine, unsigned client_opts, unsigned server_opts, bool v6)
{
    td_record rec;
    int sender;
    td_flow *flow = NULL;

    for (int i = 0; i < 3; i++) {
        memset(&rec, 0, sizeof rec);
        rec.frame = (uint32_t)i + 1;
        rec.time_ns = i * 10000000LL;           /* 10 ms per half: RTT 20 ms */
        rec.src.len = rec.dst.len = v6 ? 16 : 4;
        rec.src.bytes[0] = i == 1 ? 2 : 1;
        rec.dst.bytes[0] = i == 1 ? 1 : 2;
        rec.sport = i == 1 ? 80 : 40000;
        rec.dport = i == 1 ? 40000 : 80;
        rec.tcp_flags = i == 0 ? TD_TH_SYN : i == 1 ? TD_TH_SYN | TD_TH_ACK : TD_TH_ACK;
        rec.options.complete = true;
        rec.options.present = (uint8_t)(i == 0 ? client_opts : i == 1 ? server_opts : 0);
        flow = td_engine_add(engine, &rec, &sender);
    }
    return flow;
}

static void test_audit_noopt_client(void)
{
    td_config cfg;
    td_options_audit a;
    char text[64];

    td_config_defaults(&cfg);
    td_engine *engine = td_engine_new(&cfg);
    td_flow *flow = handshake(engine, 0, TD_OPT_MSS, false);
    td_options_audit_flow(flow, &a);
    g_assert_cmpint(a.used[TD_USED_WSCALE], ==, TD_NO);
    g_assert_cmpint(a.used[TD_USED_SACK], ==, TD_NO);
    g_assert_cmpint(a.used[TD_USED_TS], ==, TD_NO);
    td_options_missing_list(a.missing, text, sizeof text);
    g_assert_cmpstr(text, ==, "wscale,sack,ts");
    td_options_missing_list(a.left_out_by_client, text, sizeof text);
    g_assert_cmpstr(text, ==, "mss,wscale,sack,ts");
    g_assert_cmpuint(a.default_mss[0], ==, 536);        /* RFC 9293 §3.7.1 */
    g_assert_cmpuint(a.default_mss[1], ==, 0);
    g_assert_cmpuint(a.window_ceiling, ==, 65535);
    g_assert_cmpfloat_with_epsilon(a.ceiling_throughput, 65535 / 0.020, 1e-6);
    g_assert_cmpint(a.at_ceiling, ==, TD_UNKNOWN);      /* no data, nothing to compare */

    /* Issue 12 item 4, related: the same SYN-ACK with only an MSS, the SYN's options
     * cut by the snaplen: window scaling, SACK and timestamps were still not used. */
    flow->more->hs.opts[flow->client].complete = false;
    flow->more->hs.opts[flow->client].unknown = TD_OPT_ALL;
    td_options_audit_flow(flow, &a);
    for (int i = 0; i < 3; i++)
        g_assert_cmpint(a.used[i], ==, TD_NO);
    g_assert_true(a.settled);
    g_assert_false(a.client_seen);
    g_assert_cmpuint(a.default_mss[0], ==, 0);          /* the client's MSS is not known */
    td_options_missing_list(a.missing, text, sizeof text);
    g_assert_cmpstr(text, ==, "wscale,sack,ts");
    td_options_missing_list(a.left_out_by_server, text, sizeof text);
    g_assert_cmpstr(text, ==, "wscale,sack,ts");
    g_assert_cmpuint(a.window_ceiling, ==, 65535);
    td_engine_free(engine);
}

static void test_audit_server_drops_wscale_v6(void)
{
    td_config cfg;
    td_options_audit a;
    unsigned all = TD_OPT_MSS | TD_OPT_WSCALE | TD_OPT_SACK_PERM | TD_OPT_TS;
    char text[64];

    td_config_defaults(&cfg);
    td_engine *engine = td_engine_new(&cfg);
    td_flow *flow = handshake(engine, all, all & ~TD_OPT_WSCALE & ~TD_OPT_MSS, true);
    td_options_audit_flow(flow, &a);
    g_assert_cmpint(a.used[TD_USED_WSCALE], ==, TD_NO);
    g_assert_cmpint(a.used[TD_USED_SACK], ==, TD_YES);
    td_options_missing_list(a.left_out_by_server, text, sizeof text);
    g_assert_cmpstr(text, ==, "mss,wscale");
    g_assert_cmpuint(a.default_mss[1], ==, 1220);       /* IPv6: 1280 - 60 */
    td_engine_free(engine);
}

static void test_audit_healthy(void)
{
    td_config cfg;
    td_options_audit a;
    unsigned all = TD_OPT_MSS | TD_OPT_WSCALE | TD_OPT_SACK_PERM | TD_OPT_TS;

    td_config_defaults(&cfg);
    td_engine *engine = td_engine_new(&cfg);
    td_options_audit_flow(handshake(engine, all, all, false), &a);
    g_assert_cmpuint(a.missing, ==, 0);
    g_assert_cmpuint(a.left_out_by_client | a.left_out_by_server, ==, 0);
    g_assert_cmpuint(a.window_ceiling, ==, 0);
    td_engine_free(engine);
}

/* A later segment of the server (frame 4) with the given options. */
static void server_segment(td_engine *engine, unsigned options)
{
    td_record rec;
    int sender;

    memset(&rec, 0, sizeof rec);
    rec.frame = 4;
    rec.time_ns = 30000000;
    rec.src.len = rec.dst.len = 4;
    rec.src.bytes[0] = 2;
    rec.dst.bytes[0] = 1;
    rec.sport = 80;
    rec.dport = 40000;
    rec.tcp_flags = TD_TH_ACK;
    rec.payload_len = 1448;
    rec.options.complete = true;
    rec.options.present = (uint8_t)options;
    td_engine_add(engine, &rec, &sender);
}

/* Issue 12 item 4: the SYN-ACK's timestamps option is malformed after three good
 * options: only ts is open, until a later segment carries timestamps. */
static void test_audit_malformed_synack_ts(void)
{
    td_config cfg;
    td_options_audit a;
    char text[64];

    td_config_defaults(&cfg);
    td_engine *engine = td_engine_new(&cfg);
    td_flow *flow = handshake(engine, TD_OPT_MSS | TD_OPT_NEGOTIATED, 0, false);
    /* MSS 1460, window scale 3, SACK-permitted, then a timestamps option that overruns
     * the header (test_segment.c reads these bytes) */
    td_tcp_options synack = { .present = TD_OPT_MSS | TD_OPT_WSCALE | TD_OPT_SACK_PERM, .unknown = TD_OPT_TS,
                              .mss = 1460, .wscale = 3 };
    flow->more->hs.opts[td_flow_server(flow)] = td_syn_options_of(&synack);
    td_options_audit_flow(flow, &a);
    g_assert_cmpint(a.used[TD_USED_WSCALE], ==, TD_YES);
    g_assert_cmpint(a.used[TD_USED_SACK], ==, TD_YES);
    g_assert_cmpint(a.used[TD_USED_TS], ==, TD_UNKNOWN);
    g_assert_false(a.settled);
    g_assert_false(a.server_seen);
    g_assert_cmpuint(a.default_mss[1], ==, 0);
    server_segment(engine, TD_OPT_TS);          /* RFC 7323 §3.2: only sent once negotiated */
    td_options_audit_flow(flow, &a);
    g_assert_cmpint(a.used[TD_USED_TS], ==, TD_YES);
    g_assert_true(a.settled && a.server_seen);
    td_options_missing_list(a.missing, text, sizeof text);
    g_assert_cmpstr(text, ==, "none");
    td_options_missing_list(a.left_out_by_server, text, sizeof text);
    g_assert_cmpstr(text, ==, "none");
    td_engine_free(engine);
}

/* A SYN whose options a middlebox overwrote with NOPs (more in a row than padding
 * ever needs, a negotiated option missing) shows the strip; a SYN that merely lacks
 * options, or a full SYN with padding, does not. */
static void test_audit_overwritten_syn(void)
{
    td_config cfg;
    td_options_audit a;
    td_syn_options opts = { .complete = true, .present = TD_OPT_MSS, .mss = 1460, .nop_run = 16 };

    td_config_defaults(&cfg);
    td_engine *engine = td_engine_new(&cfg);
    td_flow *flow = handshake(engine, TD_OPT_MSS, TD_OPT_MSS, false);
    td_options_audit_flow(flow, &a);
    g_assert_false(a.overwritten[0] || a.overwritten[1]);
    flow->more->hs.opts[flow->client] = opts;
    td_options_audit_flow(flow, &a);
    g_assert_true(a.overwritten[0]);
    g_assert_false(a.overwritten[1]);
    g_assert_true(a.left_out_by_client & TD_OPT_WSCALE);
    opts.nop_run = TD_NOP_PADDING_MAX;
    g_assert_false(td_options_overwritten(&opts));
    opts.nop_run = 16;
    opts.present = TD_OPT_MSS | TD_OPT_NEGOTIATED;      /* nothing missing: nothing was stripped */
    g_assert_false(td_options_overwritten(&opts));
    td_engine_free(engine);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/options/audit-noopt-client", test_audit_noopt_client);
    g_test_add_func("/options/audit-server-drops-wscale-v6", test_audit_server_drops_wscale_v6);
    g_test_add_func("/options/audit-healthy", test_audit_healthy);
    g_test_add_func("/options/audit-malformed-synack-ts", test_audit_malformed_synack_ts);
    g_test_add_func("/options/audit-overwritten-syn", test_audit_overwritten_syn);
    return g_test_run();
}
