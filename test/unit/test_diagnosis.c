/* The diagnosis, its words and the report, on small captures made of simulated
 * downloads (downloads.h). */
#include <glib.h>
#include <string.h>
#include "advice.h"
#include "units.h"
#include "downloads.h"
#include "text.h"
#include "segment.h"
#include "time_budget.h"

/* Same addresses, as long as IPv6 makes them: ffff:...:ffff:ff0N for 10.0.0.N. */
static void to_ipv6(fixture *f)
{
    for (guint i = 0; i < f->c.packets->len; i++) {
        td_record *rec = &g_array_index(f->c.packets, td_record, i);
        td_addr *addrs[] = { &rec->src, &rec->dst };
        for (int k = 0; k < 2; k++) {
            uint8_t last = addrs[k]->bytes[3];
            addrs[k]->len = 16;
            memset(addrs[k]->bytes, 0xff, 16);
            addrs[k]->bytes[15] = last;
        }
    }
}

/* Runs the capture and checks what must hold for every flow: a summary that
 * fits a label, and a fix and a way to confirm it exactly when there is a cause. */
static void diagnose(fixture *f)
{
    char summary[4 * TD_SUMMARY_MAX];
    td_hosts_config cfg;

    capture_run(&f->c, true);
    td_hosts_config_defaults(&cfg);
    f->hosts = td_hosts_build(f->c.engine, &cfg);
    f->d = td_diagnose(f->c.engine, f->hosts);
    for (guint i = 0; i < td_engine_flow_count(f->c.engine); i++) {
        const td_flow *flow = td_engine_flow_at(f->c.engine, i);
        td_cause cause = (td_cause)td_diagnosis_of(f->d, flow)->cause;
        bool fixable = cause != TD_CAUSE_NONE && cause != TD_CAUSE_UNKNOWN;
        td_advice_summary(f->d, flow, summary, sizeof summary);
        g_assert_cmpuint(strlen(summary), >, 0);
        g_assert_cmpuint(strlen(summary), <=, TD_SUMMARY_MAX);
        g_assert_true((td_advice_fix(f->d, flow) != NULL) == fixable);
        g_assert_true((td_advice_confirm(f->d, flow) != NULL) == fixable);
    }
}

static const td_diagnosis *diag_of(const fixture *f, guint stream)
{
    return td_diagnosis_of(f->d, td_engine_flow_at(f->c.engine, stream));
}

static char *report(const fixture *f)
{
    GString *out = g_string_new(NULL);

    td_text_diagnosis(f->d, f->hosts, out);
    return g_string_free(out, FALSE);
}

/* The report holds each of parts, in this order. */
static void assert_report(const fixture *f, const char *const *parts, size_t n)
{
    char *text = report(f);
    const char *at = text;

    for (size_t i = 0; i < n; i++) {
        const char *found = strstr(at, parts[i]);
        if (!found)
            g_error("the report lacks \"%s\" after its first %d characters:\n%s", parts[i], (int)(at - text), text);
        at = found + strlen(parts[i]);
    }
    g_free(text);
}

static void test_healthy_is_none(fixture *f, gconstpointer data G_GNUC_UNUSED)
{
    healthy(f, 0);
    diagnose(f);
    g_assert_cmpint(diag_of(f, 0)->cause, ==, TD_CAUSE_NONE);
    g_assert_cmpuint(diag_of(f, 0)->causes, ==, 0);

    char *text = report(f);
    g_assert_cmpstr(text, ==, "tcpdiag: diagnosis of 1 flow: 0 slow, 1 healthy, 0 not diagnosed\n"
                              "No slow flow: every flow with a diagnosis is healthy.\n");
    g_free(text);
}

static void test_no_payload_is_unknown(fixture *f, gconstpointer data G_GNUC_UNUSED)
{
    sim s;
    sim_start(&s, false, 7, 1 << 20);       /* the handshake and nothing else */
    take(f, &s, 0);
    diagnose(f);
    g_assert_cmpint(diag_of(f, 0)->cause, ==, TD_CAUSE_UNKNOWN);
    g_assert_cmpstr(diag_of(f, 0)->reason, ==, "no payload: nothing was transferred");
}

/* SYNs never answered (a full listen queue, a firewall, a lost path). A SYN retried
 * for 1 s is a handshake retry that cost all of that second (issue 29: the cost of a
 * retry is its delay); a lone SYN is kept as one packet, and its reason says it was
 * never answered rather than "nothing was transferred". Linux retries after 1 s. */
static void test_unanswered_syn_is_named(fixture *f, gconstpointer data G_GNUC_UNUSED)
{
    capture_add(&f->c, segment(true, 443, 0, TD_TH_SYN, 1000, 0));
    capture_add(&f->c, segment(true, 443, 1000 * MS, TD_TH_SYN, 1000, 0));
    td_record lone = segment(true, 443, 1500 * MS, TD_TH_SYN, 5000, 0);
    lone.sport = 40001;
    lone.stream = 1;
    capture_add(&f->c, lone);
    diagnose(f);
    g_assert_cmpint(diag_of(f, 0)->cause, ==, TD_CAUSE_HANDSHAKE_RETRY);
    g_assert_cmpint(diag_of(f, 0)->lost_ns, ==, 1000 * MS);
    g_assert_cmpuint(diag_of(f, 0)->evidence_frame, ==, 2);
    g_assert_cmpuint(td_time_budget_syn_retransmissions(td_flow_time_budget(td_engine_flow_at(f->c.engine, 0))), ==, 1);
    g_assert_cmpint(diag_of(f, 1)->cause, ==, TD_CAUSE_UNKNOWN);
    g_assert_cmpstr(diag_of(f, 1)->reason, ==, "no payload: the SYN was never answered in the capture");
}

/* The capture starts after the handshake: roles, window scale and round trip unknown. */
static void test_mid_flow_is_unknown(fixture *f, gconstpointer data G_GNUC_UNUSED)
{
    healthy(f, 0);
    g_array_remove_range(f->c.packets, 0, 3);   /* SYN, SYN-ACK, ACK: the first three made */
    diagnose(f);
    g_assert_cmpint(diag_of(f, 0)->cause, ==, TD_CAUSE_UNKNOWN);
    g_assert_nonnull(diag_of(f, 0)->reason);
    g_assert_nonnull(strstr(diag_of(f, 0)->reason, "handshake"));
    g_assert_cmpint(diag_of(f, 0)->reference, ==, TD_REF_NONE);

    static const char *const parts[] = { "No slow flow: nothing could be diagnosed.\n", "Not diagnosed: 1 flow (1: " };
    assert_report(f, parts, G_N_ELEMENTS(parts));
}

/* The collapsed ECN flow beside two healthy non-ECN flows of the same client,
 * all 31 rounds of 20 ms long: the reference is the client's two other flows,
 * and the slowdown their segment count over this one's, 2002 / 201 = 9.96
 * (durations differ by the µs each segment of a larger round adds: < 5 %). */
static void test_window_collapse_against_client_flows(fixture *f, gconstpointer data G_GNUC_UNUSED)
{
    collapsed(f);
    healthy(f, 1);
    healthy(f, 2);
    diagnose(f);

    const td_diagnosis *d = diag_of(f, 0);
    g_assert_cmpint(d->cause, ==, TD_CAUSE_WINDOW_COLLAPSE);
    g_assert_cmpuint(d->causes & (1u << TD_CAUSE_WINDOW_COLLAPSE), !=, 0);
    /* every echo answered with a loss-like cut while the congestion window held the flight */
    g_assert_cmpuint(d->causes & (1u << TD_CAUSE_ECN_LOSS_REACTION), !=, 0);
    g_assert_cmpint(d->reference, ==, TD_REF_CLIENT_FLOWS);
    g_assert_cmpuint(d->peers, ==, 2);
    g_assert_cmpfloat(d->slowdown, >, HEALTHY_SEGMENTS / 201.0 * 0.95);
    g_assert_cmpfloat(d->slowdown, <, HEALTHY_SEGMENTS / 201.0 * 1.05);
    g_assert_cmpint(d->lost_ns, >, 0);
    g_assert_cmpuint(d->evidence_frame, ==, td_flow_flight(td_engine_flow_at(f->c.engine, 0), 1)->cc.collapse_start_frame);
    g_assert_cmpint(diag_of(f, 1)->cause, ==, TD_CAUSE_NONE);
    g_assert_cmpint(diag_of(f, 2)->cause, ==, TD_CAUSE_NONE);

    static const char *const parts[] = {
        "tcpdiag: diagnosis of 3 flows: 1 slow, 2 healthy, 0 not diagnosed\n",
        /* an ECN cause is the client's: its lottery of 1 ECN flow in 3 */
        "1. 10.0.0.1 (client): 1 of 3 connections negotiated ECN; ",
        "   Cause: window-collapse; 1 flow (stream 0)",
        "\n   Fix: BBR on the sender",
    };
    assert_report(f, parts, G_N_ELEMENTS(parts));
}

/* One answer: an ECN flow of two round trips (10 and 20 segments, too few for any
 * analysis to judge) beside two healthy flows of the same client without ECN (2002
 * segments in 31 round trips). By rate it is several times slower, so the host rule
 * calls the client's ECN flows slower (the default threshold, 2x), and the flow is
 * therefore unknown, never healthy, with the host rule's own slowdown as its cost. */
static void test_ecn_flow_called_slower_is_not_healthy(fixture *f, gconstpointer data G_GNUC_UNUSED)
{
    sim s;
    start(&s, SIM_CLASSIC);
    take(f, &s, 0);
    healthy(f, 1);
    healthy(f, 2);
    diagnose(f);

    const td_flow *ecn_flow = td_engine_flow_at(f->c.engine, 0);
    const td_client_summary *client = td_hosts_client_of(f->hosts, ecn_flow);
    g_assert_nonnull(client);
    g_assert_true(client->ecn_slower);
    const td_diagnosis *d = diag_of(f, 0);
    g_assert_cmpint(d->cause, ==, TD_CAUSE_UNKNOWN);
    g_assert_cmpuint(d->causes, ==, 0);
    g_assert_nonnull(strstr(d->reason, "ECN flows are slower than its other flows"));
    g_assert_cmpint(d->reference, ==, TD_REF_CLIENT_FLOWS);
    g_assert_cmpuint(d->peers, ==, 2);
    g_assert_cmpfloat(d->slowdown, >, client->ecn_slowdown * 0.99);
    g_assert_cmpfloat(d->slowdown, <, client->ecn_slowdown * 1.01);
    g_assert_cmpint(diag_of(f, 1)->cause, ==, TD_CAUSE_NONE);
    g_assert_cmpint(diag_of(f, 2)->cause, ==, TD_CAUSE_NONE);
}

/* The ECN-setup SYN at -1000 ms goes unanswered; the same SYN (same ISN)
 * without ECN flags at 0 is answered: 1 s lost to the blackhole. */
static void test_ecn_blackhole(fixture *f, gconstpointer data G_GNUC_UNUSED)
{
    sim s;
    sim_start_ts(&s, false, 7, 1 << 22, true);
    packet(&s, true, -1000 * MS, TD_TH_SYN | TD_TH_ECE | TD_TH_CWR, 100, 0, 0, 0);
    sim_handshake(&s, SIM_NO_ECN);
    for (int i = 0; i < 10; i++)
        sim_round(&s, 40, false);
    take(f, &s, 0);
    diagnose(f);

    const td_diagnosis *d = diag_of(f, 0);
    const td_flow *flow = td_engine_flow_at(f->c.engine, 0);
    int64_t life = flow->last_ns - flow->first_ns;
    g_assert_cmpint(d->cause, ==, TD_CAUSE_ECN_BLACKHOLE);
    g_assert_cmpint(d->reference, ==, TD_REF_OWN_RATE);
    g_assert_cmpint(d->lost_ns, ==, 1000 * MS);
    g_assert_cmpfloat_with_epsilon(d->slowdown, (double)life / (double)(life - 1000 * MS), 1e-9);
    g_assert_cmpuint(d->evidence_frame, ==, 2);     /* the retry: second packet of the capture */
}

/* Two downloads from the server with the same life: 30 segments, 5 rounds of
 * 40, 3 s with nothing to send, 5 rounds of 40. The server is silent on both at
 * once, so the idle time is a host stall, not the application's choice alone. */
static void stalled(fixture *f)
{
    for (int k = 0; k < 2; k++) {
        sim s;
        start(&s, SIM_NO_ECN);
        for (int i = 0; i < 5; i++)
            sim_round(&s, 40, false);
        sim_pause(&s, 3000);
        for (int i = 0; i < 5; i++)
            sim_round(&s, 40, false);
        take(f, &s, k);
    }
}

static void test_host_stall_above_app_limited(fixture *f, gconstpointer data G_GNUC_UNUSED)
{
    stalled(f);
    diagnose(f);
    const td_stalls *stalls = td_engine_stalls(f->c.engine);
    g_assert_cmpuint(td_stalls_count(stalls), ==, 1);
    g_assert_cmpuint(td_diagnoses_stall_active(f->d, 0), ==, 2);
    for (guint k = 0; k < 2; k++) {
        const td_diagnosis *d = diag_of(f, k);
        const td_stall_hit *hit = td_stalls_hit(stalls, k);
        g_assert_cmpint(d->cause, ==, TD_CAUSE_HOST_STALL);
        /* the pause comes in the server's own stream (the client had acknowledged all of
           it): no answer was owed, so it is no server delay (time_budget.h) */
        g_assert_cmpuint(d->causes, ==, (1u << TD_CAUSE_HOST_STALL) | (1u << TD_CAUSE_APP_LIMITED));
        g_assert_cmpint(d->reference, ==, TD_REF_OWN_RATE);
        /* the flow's wait: the pause and the last round's ACKs (one round trip) */
        g_assert_cmpint(d->lost_ns, ==, hit->wait_end_ns - hit->wait_start_ns);
        g_assert_cmpint(d->lost_ns, >=, 3000 * MS);
        g_assert_cmpint(d->lost_ns, <=, (3000 + RTT_MS + 1) * MS);
        /* each flow's own first packet from the host after the silence: the first of
           them ends the host's silence, the other comes later on its own flow */
        g_assert_cmpuint(d->evidence_frame, ==, hit->resume_frame);
        g_assert_cmpuint(d->evidence_frame, >=, td_stalls_at(stalls, 0)->resume_frame);
    }
    g_assert_cmpuint(diag_of(f, 0)->evidence_frame, !=, diag_of(f, 1)->evidence_frame);

    static const char *const parts[] = {
        "tcpdiag: diagnosis of 2 flows: 2 slow, 0 healthy, 0 not diagnosed\n"
        "1. 10.0.0.2 (host): 2 flows; the one that lost most: Host 10.0.0.2 sent nothing on any flow for 3.0",
        "(2 of 2 flows waiting)",
        "   Cause: host-stall; 2 flows (streams 0 1)",
        "\n   Fix: Find what stopped the host's network stack",
        "\n   Confirm: Capture on the host itself",
    };
    assert_report(f, parts, G_N_ELEMENTS(parts));
}

/* A download held at a 16 kB window, captured at the sender; queue_ms of queue on the
 * path after the handshake (the flight standing in it). */
static void held_at_window(fixture *f, int64_t queue_ms)
{
    sim s;
    sim_start_ts(&s, false, 7, 16384, true);
    sim_handshake(&s, SIM_NO_ECN);
    s.queue = queue_ms * MS;
    for (int i = 0; i < 50; i++)
        sim_round(&s, 11, false);       /* 11 x 1448 = 15928: less than one MSS left */
    take(f, &s, 0);
}

/* At the window with round trips as the handshake's: receive-window. */
static void test_window_held_is_receive_window(fixture *f, gconstpointer data G_GNUC_UNUSED)
{
    held_at_window(f, 0);
    diagnose(f);
    g_assert_cmpint(diag_of(f, 0)->cause, ==, TD_CAUSE_RECEIVE_WINDOW);
}

/* At the window with round trips 5x the handshake's (queue_rtt_ratio 4): the flight
 * stands in a queue at the bottleneck, which was busy all along; a larger window would
 * only lengthen the queue, so the window held nothing (issue 30's 2010 transfer). */
static void test_window_in_a_standing_queue_is_not_the_limit(fixture *f, gconstpointer data G_GNUC_UNUSED)
{
    held_at_window(f, 4 * RTT_MS);
    diagnose(f);
    const char *why;
    const td_flight *flight = td_flow_flight(td_engine_flow_at(f->c.engine, 0), diag_of(f, 0)->sender);
    g_assert_cmpint(td_flight_limit(flight, &why), ==, TD_LIMIT_RWND);     /* the symptom stays */
    g_assert_false(diag_of(f, 0)->causes & (1u << TD_CAUSE_RECEIVE_WINDOW));
    g_assert_cmpint(diag_of(f, 0)->cause, ==, TD_CAUSE_NONE);
}

/* The longest addresses IPv6 writes: the summaries still fit (diagnose checks). */
static void test_summary_fits_with_ipv6(fixture *f, gconstpointer data G_GNUC_UNUSED)
{
    char summary[4 * TD_SUMMARY_MAX];
    stalled(f);
    to_ipv6(f);
    diagnose(f);
    td_advice_summary(f->d, td_engine_flow_at(f->c.engine, 0), summary, sizeof summary);
    g_assert_true(g_str_has_prefix(summary, "Host ffff:ffff:ffff:ffff:ffff:ffff:ffff:ff02 sent nothing"));
}

static void test_format_rate(void)
{
    static const struct { double bytes_per_s; const char *text; } rows[] = {
        { 190000, "1.52 Mbit/s" },      /* 1 520 000 bit/s */
        { 100, "800 bit/s" },
        { 0, "0 bit/s" },
        { 80000, "640 kbit/s" },        /* 100 or more: no decimals */
        { 1250, "10 kbit/s" },          /* 3 significant digits: 10.0 prints as 10 */
        { 125e9, "1 Tbit/s" },
        { 1.25e15, "10000 Tbit/s" },    /* no unit beyond Tbit/s */
    };
    char buf[32];
    for (gsize i = 0; i < G_N_ELEMENTS(rows); i++) {
        td_format_rate(rows[i].bytes_per_s, buf, sizeof buf);
        g_assert_cmpstr(buf, ==, rows[i].text);
    }
}

static void test_format_duration(void)
{
    static const struct { int64_t ns; const char *text; } rows[] = {
        { 6500 * MS, "6.50 s" },
        { 1000 * MS, "1.00 s" },
        { 120 * MS, "120 ms" },
        { 0, "0.000 ms" },
        { 421000, "0.421 ms" },         /* below 10 ms: three decimals, a LAN's round trip */
        { 9999400, "9.999 ms" },
        { 9999500, "10 ms" },           /* not 10.000 ms */
        { -1500 * MS, "-1.50 s" },
    };
    char buf[32];
    for (gsize i = 0; i < G_N_ELEMENTS(rows); i++) {
        td_format_duration(rows[i].ns, buf, sizeof buf);
        g_assert_cmpstr(buf, ==, rows[i].text);
    }
}

static void test_causes_list(void)
{
    char buf[64], small[12];
    unsigned three = (1u << TD_CAUSE_APP_LIMITED) | (1u << TD_CAUSE_HOST_STALL) | (1u << TD_CAUSE_WINDOW_COLLAPSE);

    td_causes_list(three, buf, sizeof buf);
    g_assert_cmpstr(buf, ==, "host-stall,window-collapse,app-limited");     /* precedence, not bit order given */
    td_causes_list(0, buf, sizeof buf);
    g_assert_cmpstr(buf, ==, "none");
    /* none and unknown are verdicts, not causes that hold */
    td_causes_list((1u << TD_CAUSE_NONE) | (1u << TD_CAUSE_UNKNOWN), buf, sizeof buf);
    g_assert_cmpstr(buf, ==, "none");
    td_causes_list(three, small, sizeof small);
    g_assert_cmpstr(small, ==, "host-stall,");      /* cut at 11 characters, terminated */
}

#define ADD(path, fn) g_test_add(path, fixture, NULL, setup, fn, teardown)

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    ADD("/diagnosis/healthy-is-none", test_healthy_is_none);
    ADD("/diagnosis/no-payload-is-unknown", test_no_payload_is_unknown);
    ADD("/diagnosis/unanswered-syn-is-named", test_unanswered_syn_is_named);
    ADD("/diagnosis/mid-flow-is-unknown", test_mid_flow_is_unknown);
    ADD("/diagnosis/window-collapse-against-client-flows", test_window_collapse_against_client_flows);
    ADD("/diagnosis/ecn-blackhole", test_ecn_blackhole);
    ADD("/diagnosis/ecn-flow-called-slower-is-not-healthy", test_ecn_flow_called_slower_is_not_healthy);
    ADD("/diagnosis/host-stall-above-app-limited", test_host_stall_above_app_limited);
    ADD("/diagnosis/summary-fits-with-ipv6", test_summary_fits_with_ipv6);
    ADD("/diagnosis/window-held-is-receive-window", test_window_held_is_receive_window);
    ADD("/diagnosis/window-in-a-standing-queue-is-not-the-limit", test_window_in_a_standing_queue_is_not_the_limit);
    g_test_add_func("/advice/format-rate", test_format_rate);
    g_test_add_func("/advice/format-duration", test_format_duration);
    g_test_add_func("/diagnosis/causes-list", test_causes_list);
    return g_test_run();
}
