/* The segment-size profile and the offload verdict of one direction. */
#include <glib.h>
#include <string.h>
#include "flight.h"

enum { MSS = 1448, ANNOUNCED = 1460 };

/* A direction measured at the given vantage point, its data yet to come. */
static void direction(td_flight *f, td_seen_from seen)
{
    td_flight_context ctx;

    memset(&ctx, 0, sizeof ctx);
    ctx.seen_from = seen;
    ctx.peer_mss = ANNOUNCED;
    ctx.rcv_wscale = 7;
    td_flight_begin(f, &ctx, NULL, NULL);
    f->mss = MSS;
}

static uint32_t frame;

static void segment(td_flight *f, uint32_t len, bool ip_len_zero)
{
    td_record rec;

    memset(&rec, 0, sizeof rec);
    rec.frame = ++frame;
    rec.payload_len = len;
    rec.ip_len_zero = ip_len_zero;
    td_offload_data(&f->seg, &rec);
    f->new_bytes += len;
}

/* Ends the direction: `rounds` round trips of `flight` bytes over `seconds`. */
static const td_offload_result *judge(td_flight *f, unsigned rounds, uint32_t flight, double seconds)
{
    td_flight_config cfg;

    td_flight_config_defaults(&cfg);
    for (unsigned i = 0; i < rounds; i++)
        td_offload_round(&f->seg, flight, f->mss);
    f->rounds = rounds;
    f->limit_ns[TD_LIMIT_CWND] = (int64_t)(seconds * 1e9);
    td_flight_finish(f, &cfg);
    return &f->seg.result;
}

static void test_tso_at_sender(void)
{
    td_flight f;
    direction(&f, TD_SEEN_SENDER);
    for (unsigned i = 0; i < 100; i++)
        segment(&f, (2 + i % 44) * MSS, false);
    const td_offload_result *r = judge(&f, 20, 40 * MSS, 0.2);
    g_assert_cmpint(r->verdict, ==, TD_OFFLOAD_OFFLOADED);
    g_assert_cmpuint(f.seg.super_packets, ==, 100);
    g_assert_cmpfloat(r->super_share, ==, 100.0);
    g_assert_cmpuint(f.seg.max_payload, ==, 45 * MSS);
    td_offload_free(&f.seg);
}

/* The same sizes at the receiver are its own GRO, never the sender's TSO. */
static void test_gro_at_receiver(void)
{
    td_flight f;
    direction(&f, TD_SEEN_RECEIVER);
    for (unsigned i = 0; i < 100; i++)
        segment(&f, (2 + i % 20) * MSS, false);
    g_assert_cmpint(judge(&f, 20, 40 * MSS, 0.2)->verdict, ==, TD_OFFLOAD_COALESCED);
    td_offload_free(&f.seg);
}

static void test_mss_only_at_sender(void)
{
    td_flight f;
    direction(&f, TD_SEEN_SENDER);
    for (unsigned i = 0; i < 400; i++)
        segment(&f, MSS, false);
    const td_offload_result *r = judge(&f, 20, 20 * MSS, 0.4);
    g_assert_cmpint(r->verdict, ==, TD_OFFLOAD_MSS_CAPPED);
    g_assert_cmpuint(r->median, ==, MSS);
    g_assert_cmpuint(r->p95, ==, MSS);
    g_assert_cmpint(r->cap_cause, ==, TD_CAP_CAUSE_NONE);
    td_offload_free(&f.seg);
}

/* One or two segments per round trip: a TSO sender would not have built more. */
static void test_mss_only_but_nothing_to_offload(void)
{
    td_flight f;
    direction(&f, TD_SEEN_SENDER);
    for (unsigned i = 0; i < 400; i++)
        segment(&f, MSS, false);
    const td_offload_result *r = judge(&f, 400, MSS, 8.0);
    g_assert_cmpint(r->verdict, ==, TD_OFFLOAD_UNKNOWN);
    g_assert_nonnull(strstr(r->reason, "nothing to offload"));
    td_offload_free(&f.seg);
}

static void test_too_little_data(void)
{
    td_flight f;
    direction(&f, TD_SEEN_SENDER);
    segment(&f, 7 * MSS, false);
    segment(&f, 7 * MSS, false);
    const td_offload_result *r = judge(&f, 2, 7 * MSS, 0.04);
    g_assert_cmpint(r->verdict, ==, TD_OFFLOAD_UNKNOWN);
    g_assert_nonnull(strstr(r->reason, "too little data"));
    td_offload_free(&f.seg);
}

/* Up to 28 segments, then never more than 5: capped from the first 5 on,
 * here at 1 Gbit/s, where 1 ms of rate would allow 125 kB. */
static void test_cap_after_growth(void)
{
    td_flight f;
    uint32_t cap_from;
    direction(&f, TD_SEEN_SENDER);
    for (unsigned k = 2; k <= 28; k += 2)
        segment(&f, k * MSS, false);
    segment(&f, MSS, false);
    cap_from = frame + 1;
    for (unsigned i = 0; i < 200; i++) {
        segment(&f, 5 * MSS, false);
        segment(&f, i % 4 ? MSS : 3 * MSS, false);
    }
    const td_offload_result *r = judge(&f, 200, 10 * MSS, f.new_bytes / 125e6);
    g_assert_cmpint(r->verdict, ==, TD_OFFLOAD_CAPPED);
    g_assert_cmpuint(r->cap, ==, 5 * MSS);
    g_assert_cmpuint(r->cap_start_frame, ==, cap_from);
    td_offload_free(&f.seg);
}

/* Linux sizes GSO packets to about 1 ms of the flow's rate: a steady 4 MSS at
 * 5 MB/s is that, not a cap. */
static void test_autosize_is_not_a_cap(void)
{
    td_flight f;
    direction(&f, TD_SEEN_SENDER);
    for (unsigned i = 0; i < 300; i++)
        segment(&f, 4 * MSS, false);
    g_assert_cmpint(judge(&f, 100, 40 * MSS, f.new_bytes / 5e6)->verdict, ==, TD_OFFLOAD_OFFLOADED);
    td_offload_free(&f.seg);
}

/* A constant 64 KB is the TSO maximum itself. */
static void test_full_size_is_not_a_cap(void)
{
    td_flight f;
    direction(&f, TD_SEEN_SENDER);
    for (unsigned i = 0; i < 100; i++)
        segment(&f, 45 * MSS, false);
    g_assert_cmpint(judge(&f, 50, 200 * MSS, f.new_bytes / 1e9)->verdict, ==, TD_OFFLOAD_OFFLOADED);
    td_offload_free(&f.seg);
}

static void test_ip_len_zero_counted(void)
{
    td_flight f;
    direction(&f, TD_SEEN_SENDER);
    for (unsigned i = 0; i < 50; i++)
        segment(&f, 20 * MSS, true);
    segment(&f, MSS, false);
    judge(&f, 10, 40 * MSS, 0.1);
    g_assert_cmpuint(f.seg.ip_len_zero, ==, 50);
    td_offload_free(&f.seg);
}

/* Super-packets of many sizes keep the run stack within its bins. */
static void test_run_stack_is_bounded(void)
{
    td_flight f;
    direction(&f, TD_SEEN_SENDER);
    for (unsigned i = 0; i < 10000; i++)
        segment(&f, (uint32_t)(2000 + (i * 7919u) % 70000), false);
    g_assert_cmpuint(f.seg.nruns, <=, TD_CAP_STACK);
    judge(&f, 10, 40 * MSS, 1.0);
    td_offload_free(&f.seg);
}

/* Issue 12 item 3: a paced sender captured on its own host: one early short
 * segment, then only 2-segment GSO packets. The MSS is the GSO packets' segment
 * size, 1448, not the short segment's 880. */
static void test_mss_of_a_paced_gso_flow(void)
{
    td_flight *f = g_new(td_flight, 1);
    td_flight_config cfg;
    td_record rec;

    td_flight_config_defaults(&cfg);
    direction(f, TD_SEEN_SENDER);
    f->mss = 0;
    memset(&rec, 0, sizeof rec);
    rec.options.present = TD_OPT_TS;
    rec.payload_len = 880;
    td_flight_data(f, &rec, &cfg);
    g_assert_cmpuint(f->mss, ==, 880);
    for (int i = 0; i < 20; i++) {
        rec.seq = 880 + (uint32_t)i * 2 * MSS;
        rec.payload_len = 2 * MSS;
        td_flight_data(f, &rec, &cfg);
    }
    g_assert_cmpuint(f->mss, ==, MSS);
    td_flight_free(f);
}

/* The MSS a direction's segments show, once it has been judged: `segments` data
 * segments of `len` bytes carrying timestamps, after a handshake that announced
 * 1460 with both sides using timestamps (`announced`) or none. */
static uint32_t mss_shown(bool announced, uint32_t len, unsigned segments)
{
    td_flight *f = g_new(td_flight, 1);
    td_flight_config cfg;
    td_flight_context ctx;
    td_record rec;
    uint32_t mss;

    td_flight_config_defaults(&cfg);
    memset(&ctx, 0, sizeof ctx);
    ctx.seen_from = TD_SEEN_RECEIVER;
    ctx.peer_mss = announced ? ANNOUNCED : 0;
    ctx.timestamps = announced;
    td_flight_begin(f, &ctx, NULL, NULL);
    memset(&rec, 0, sizeof rec);
    rec.options.present = TD_OPT_TS;
    for (unsigned i = 0; i < segments; i++) {
        rec.seq = i * len;
        rec.payload_len = len;
        td_flight_data(f, &rec, &cfg);
    }
    td_flight_finish(f, &cfg);
    mss = f->mss;
    g_assert_cmpstr(td_offload_mss_source(&f->dir), ==, announced && mss == MSS ? "handshake" : "inferred");
    td_flight_free(f);
    return mss;
}

/* Issue 19: the MSS claims no more than the packets show. A segment shows only
 * that the MSS is at least its size. */
static void test_mss_claims_what_packets_show(void)
{
    /* 78-byte requests after a handshake that said 1460: the handshake's 1448, not 78 */
    g_assert_cmpuint(mss_shown(true, 78, 20), ==, MSS);
    /* one HTTP POST of 2 x 988 bytes (a GRO or TSO packet) and nothing else: unknown */
    g_assert_cmpuint(mss_shown(false, 2 * 988, 1), ==, 0);
    /* one 700-byte segment without a handshake: it shows only that the MSS is at least 700 */
    g_assert_cmpuint(mss_shown(false, 700, 1), ==, 0);
    /* a path that makes 1388-byte segments, repeated, whatever the handshake said */
    g_assert_cmpuint(mss_shown(true, 1388, 30), ==, 1388);
    g_assert_cmpuint(mss_shown(false, 1388, 30), ==, 1388);
    /* a full segment of the handshake's size; 2-segment GSO packets of full
       segments without a handshake (1460 assumed, less the timestamps) */
    g_assert_cmpuint(mss_shown(true, MSS, 1), ==, MSS);
    g_assert_cmpuint(mss_shown(false, 2 * MSS, 5), ==, MSS);
}

/* Which super-packets show a full segment: n = ceil(len / 1460) equal parts of
 * exactly a full segment: 1448 bytes beside timestamps, 1460 without. */
static void test_full_segment_of_super_packets(void)
{
    static const struct { uint32_t len; bool ts; uint32_t full; } rows[] = {
        { 880, true, 880 },             /* at or below the MSS: itself */
        { 2 * MSS, true, MSS },         /* a 2-segment GSO packet */
        { 45 * MSS, true, MSS },        /* the 64 KB TSO maximum */
        { 2 * MSS + 1176, true, 0 },    /* a short tail: not equal parts */
        { 2 * MSS + 2, true, 0 },       /* 2 x 1449 would not fit beside the timestamps */
        { 2 * MSS + 2, false, 0 },      /* nor is it 2 x 1460 without them: an even length only */
        { 2 * 988, true, 0 },           /* one HTTP POST of 1976 bytes is not 2 x 988 */
        { 2 * ANNOUNCED, false, ANNOUNCED },
        { UINT32_MAX, true, 0 },        /* a hostile length: the count of parts must not wrap to 0 */
    };
    td_offload o;
    td_record rec;

    td_offload_begin(&o, ANNOUNCED);
    for (gsize i = 0; i < G_N_ELEMENTS(rows); i++) {
        memset(&rec, 0, sizeof rec);
        rec.payload_len = rows[i].len;
        rec.options.present = rows[i].ts ? TD_OPT_TS : 0;
        g_assert_cmpuint(td_offload_full_segment(&o, &rec), ==, rows[i].full);
    }
    td_offload_free(&o);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/offload/tso-at-sender", test_tso_at_sender);
    g_test_add_func("/offload/gro-at-receiver", test_gro_at_receiver);
    g_test_add_func("/offload/mss-only-at-sender", test_mss_only_at_sender);
    g_test_add_func("/offload/nothing-to-offload", test_mss_only_but_nothing_to_offload);
    g_test_add_func("/offload/too-little-data", test_too_little_data);
    g_test_add_func("/offload/cap-after-growth", test_cap_after_growth);
    g_test_add_func("/offload/autosize-is-not-a-cap", test_autosize_is_not_a_cap);
    g_test_add_func("/offload/full-size-is-not-a-cap", test_full_size_is_not_a_cap);
    g_test_add_func("/offload/ip-len-zero", test_ip_len_zero_counted);
    g_test_add_func("/offload/run-stack-is-bounded", test_run_stack_is_bounded);
    g_test_add_func("/offload/mss-of-a-paced-gso-flow", test_mss_of_a_paced_gso_flow);
    g_test_add_func("/offload/full-segment-of-super-packets", test_full_segment_of_super_packets);
    g_test_add_func("/offload/mss-claims-what-packets-show", test_mss_claims_what_packets_show);
    return g_test_run();
}
