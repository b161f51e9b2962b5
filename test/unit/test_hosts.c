/* The per-host rules (hosts.c) on captures of simulated downloads (downloads.h):
 * the ECN lottery of one client, and what a flood of data-less flows costs them. */
#include <glib.h>
#include <string.h>
#include "downloads.h"
#include "hosts.h"
#include "segment.h"

static td_hosts *build(fixture *f, unsigned slowdown_pct)
{
    td_hosts_config cfg;

    td_hosts_config_defaults(&cfg);
    cfg.ecn_slowdown_pct = slowdown_pct;
    return td_hosts_build(f->c.engine, &cfg);
}

/* test_diagnosis' collapsed ECN flow beside two healthy flows without ECN of the
 * same client: 1 of 3 connections asked for ECN and negotiated it, and the ECN
 * flow moved 201 segments where the others moved 2002 in about the same time. */
static void test_ecn_lottery(fixture *f, gconstpointer data G_GNUC_UNUSED)
{
    collapsed(f);
    healthy(f, 1);
    healthy(f, 2);
    capture_run(&f->c, true);

    td_hosts *hosts = build(f, 200);
    g_assert_cmpuint(td_hosts_client_count(hosts), ==, 1);
    const td_client_summary *s = td_hosts_client_at(hosts, 0);
    g_assert_true(td_hosts_client_of(hosts, td_engine_flow_at(f->c.engine, 2)) == s);
    g_assert_cmpuint(s->addr.bytes[3], ==, 1);          /* 10.0.0.1, the client */
    g_assert_cmpuint(s->conns, ==, 3);
    g_assert_cmpuint(s->ecn_requested, ==, 1);
    g_assert_cmpuint(s->ecn_negotiated, ==, 1);
    g_assert_cmpuint(s->opts_known, ==, 3);
    g_assert_cmpuint(s->opts_missing, ==, 3);           /* download_sim's SYNs carry no SACK-permitted */
    g_assert_cmpfloat(s->ecn_slowdown, >, HEALTHY_SEGMENTS / 201.0 * 0.95);
    g_assert_cmpfloat(s->ecn_slowdown, <, HEALTHY_SEGMENTS / 201.0 * 1.05);
    g_assert_true(s->ecn_slower);
    g_assert_cmpfloat(s->ecn_median_duration_s, >, 0);
    g_assert_cmpfloat(s->other_median_rate, >, s->ecn_median_rate);
    td_hosts_free(hosts);

    /* the threshold is the analyst's: at 11x, a 10x slowdown is not noted */
    hosts = build(f, 1100);
    g_assert_false(td_hosts_client_at(hosts, 0)->ecn_slower);
    td_hosts_free(hosts);
}

/* Like with like: the client's collapsed ECN flow from 10.0.0.2 beside two healthy
 * flows without ECN from it, and a healthy ECN flow from 10.0.0.3 (a server whose
 * sender does not cut on echoes) beside one without ECN. The client's ECN flows are
 * slower than its others from 10.0.0.2 (10x), not from 10.0.0.3 (1x); the rule names
 * the collapsed flow and never the fast one, which pooling both servers' ECN flows
 * would have compared with the slow one's server. */
static void test_ecn_like_with_like(fixture *f, gconstpointer data G_GNUC_UNUSED)
{
    collapsed(f);
    healthy(f, 1);
    healthy(f, 2);
    healthy_from(f, 3, 3, SIM_CLASSIC);
    healthy_from(f, 4, 3, SIM_NO_ECN);
    capture_run(&f->c, true);

    td_hosts *hosts = build(f, 200);
    const td_client_summary *s = td_hosts_client_at(hosts, 0);
    g_assert_cmpuint(s->ecn_negotiated, ==, 2);
    g_assert_cmpfloat(s->ecn_slowdown, >, HEALTHY_SEGMENTS / 201.0 * 0.95);   /* 10.0.0.2's figures */
    g_assert_cmpfloat(s->ecn_slowdown, <, HEALTHY_SEGMENTS / 201.0 * 1.05);
    g_assert_true(s->ecn_slower);
    g_assert_true(td_hosts_ecn_slower_of(hosts, td_engine_flow_at(f->c.engine, 0)) == s);
    g_assert_null(td_hosts_ecn_slower_of(hosts, td_engine_flow_at(f->c.engine, 3)));
    g_assert_null(td_hosts_ecn_slower_of(hosts, td_engine_flow_at(f->c.engine, 1)));   /* no ECN */
    td_hosts_free(hosts);
}

/* ECN flows only from one server, other flows only from another: nothing alike to
 * compare, so no slowdown and no flow named, however slow the ECN flow. */
static void test_ecn_nothing_alike(fixture *f, gconstpointer data G_GNUC_UNUSED)
{
    collapsed(f);
    healthy_from(f, 1, 3, SIM_NO_ECN);
    healthy_from(f, 2, 3, SIM_NO_ECN);
    capture_run(&f->c, true);

    td_hosts *hosts = build(f, 200);
    const td_client_summary *s = td_hosts_client_at(hosts, 0);
    g_assert_cmpfloat(s->ecn_slowdown, ==, 0);
    g_assert_false(s->ecn_slower);
    g_assert_cmpfloat(s->ecn_median_rate, >, 0);        /* the figures are still shown */
    g_assert_cmpfloat(s->other_median_rate, >, s->ecn_median_rate);
    g_assert_null(td_hosts_ecn_slower_of(hosts, td_engine_flow_at(f->c.engine, 0)));
    td_hosts_free(hosts);
}

/* The host table points at the evidence: a client's first SYN without window
 * scaling, SACK or timestamps, not its first SYN. Its first SYN (stream 1, frame 1)
 * offers them all and is never answered; then a download whose SYN (download_sim's)
 * offers no SACK-permitted. */
static void test_first_syn_without_options(fixture *f, gconstpointer data G_GNUC_UNUSED)
{
    td_record *syn = capture_add(&f->c, segment(true, 443, -1000 * MS, TD_TH_SYN, 7, 0));

    syn->stream = 1;
    syn->sport = 50000;
    syn->options.complete = true;
    syn->options.present = TD_OPT_MSS | TD_OPT_WSCALE | TD_OPT_SACK_PERM | TD_OPT_TS;
    healthy(f, 0);
    capture_run(&f->c, true);

    td_hosts *hosts = build(f, 200);
    const td_client_summary *s = td_hosts_client_at(hosts, 0);
    td_handshake scratch;
    g_assert_cmpuint(s->conns, ==, 2);
    g_assert_cmpuint(s->opts_known, ==, 2);
    g_assert_cmpuint(s->opts_missing, ==, 1);
    g_assert_cmpuint(s->opts_missing_frame, ==, td_flow_hs(td_engine_flow_at(f->c.engine, 1), &scratch)->last_syn_frame);
    g_assert_cmpuint(s->opts_missing_frame, ==, 2);
    td_hosts_free(hosts);
}

/* A SYN flood: N forged sources, one SYN each, beside one real download. The
 * forged sources get no summary and no sender rule; the real client's count is
 * its own one connection. */
static void test_syn_flood_costs_no_summary(fixture *f, gconstpointer data G_GNUC_UNUSED)
{
    enum { FORGED = 5000 };

    healthy(f, 0);
    for (unsigned i = 0; i < FORGED; i++) {
        td_record *syn = capture_add(&f->c, segment(true, 443, (int64_t)i * 1000, TD_TH_SYN, i, 0));
        syn->stream = f->streams++;
        syn->src.bytes[0] = 192;
        syn->src.bytes[1] = (uint8_t)(i >> 16);
        syn->src.bytes[2] = (uint8_t)(i >> 8);
        syn->src.bytes[3] = (uint8_t)i;
        syn->sport = (uint16_t)(1024 + i);
    }
    capture_run(&f->c, true);
    g_assert_cmpuint(td_engine_flow_count(f->c.engine), ==, FORGED + 1);

    td_hosts *hosts = build(f, 200);
    g_assert_cmpuint(td_hosts_client_count(hosts), ==, 1);
    g_assert_cmpuint(td_hosts_client_at(hosts, 0)->conns, ==, 1);
    g_assert_cmpuint(td_hosts_sender_count(hosts), ==, 1);          /* the real download's server */
    for (guint i = 0; i < td_engine_flow_count(f->c.engine); i++) {
        const td_flow *flow = td_engine_flow_at(f->c.engine, i);
        if (flow->stream == 0)
            continue;
        g_assert_null(td_hosts_client_of(hosts, flow));
        g_assert_null(td_hosts_sender_of(hosts, flow));
        g_assert_false(td_hosts_offload_unused(hosts, flow));
    }
    td_hosts_free(hosts);
}

static void test_common_traits(void)
{
    char buf[64];

    td_common_traits(0, buf, sizeof buf);
    g_assert_cmpstr(buf, ==, "nothing");
    td_common_traits(TD_COMMON_ECN | TD_COMMON_ECN_AS_OFFLOADED, buf, sizeof buf);
    g_assert_cmpstr(buf, ==, "ecn (as the offloaded)");
    td_common_traits(TD_COMMON_ECN | TD_COMMON_DESTINATION | TD_COMMON_RETRANSMISSION, buf, sizeof buf);
    g_assert_cmpstr(buf, ==, "ecn,destination,retransmission");
    td_common_traits(TD_COMMON_RETRANSMISSION, buf, sizeof buf);
    g_assert_cmpstr(buf, ==, "retransmission");
}

#define ADD(path, fn) g_test_add(path, fixture, NULL, setup, fn, teardown)

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    ADD("/hosts/ecn-lottery", test_ecn_lottery);
    ADD("/hosts/syn-flood-costs-no-summary", test_syn_flood_costs_no_summary);
    ADD("/hosts/first-syn-without-options", test_first_syn_without_options);
    ADD("/hosts/ecn-like-with-like", test_ecn_like_with_like);
    ADD("/hosts/ecn-nothing-alike", test_ecn_nothing_alike);
    g_test_add_func("/hosts/common-traits", test_common_traits);
    return g_test_run();
}
