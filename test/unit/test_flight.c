/* Flight per round trip, plateaus and the limiting factor, on simulated
 * downloads seen from the sender and from the receiver. */
#include <glib.h>
#include <string.h>
#include "download_sim.h"

static td_limit limit_of(const td_flight *f)
{
    const char *why;
    return td_flight_limit(f, &why);
}

/* tcpdiag.flight.round: one sample per acknowledged round trip, on the segment that
 * begins it and on no other, at least `rounds` of them with the plateau's flight. */
static void round_log_holds_plateau(const td_flight *f, unsigned rounds, uint32_t plateau)
{
    unsigned at_plateau = 0;
    uint32_t flight;

    g_assert_cmpuint(f->round_log_len, ==, f->rounds);
    for (uint32_t i = 0; i < f->round_log_len; i++) {
        const td_round_start *r = &f->round_log[i];
        if (i > 0)
            g_assert_cmpuint(r->frame, >, f->round_log[i - 1].frame);
        g_assert_true(td_flight_round_at(f, r->frame, &flight));
        g_assert_cmpuint(flight, ==, r->flight);
        at_plateau += r->flight == plateau;
    }
    g_assert_cmpuint(at_plateau, >=, rounds);
    /* the last round's second segment begins none */
    g_assert_false(td_flight_round_at(f, f->round_log[f->round_log_len - 1].frame + 1, &flight));
    g_assert_false(td_flight_round_at(f, 0, &flight));
}

/* The illumos case: slow start, one retransmission, then five segments per
 * round trip for the rest of the transfer, under a 1 MB window. */
static void burst_limited(bool at_receiver)
{
    sim s;
    sim_start(&s, at_receiver, 7, 1 << 20);
    s.cfg.flight.round_log = at_receiver;   /* as the plugin asks; the command does not */
    sim_round(&s, 10, false);
    sim_round(&s, 20, false);
    sim_round(&s, 40, false);
    sim_round(&s, 5, true);
    for (int i = 0; i < 100; i++)
        sim_round(&s, 5, false);
    sim_finish(&s);

    const td_flight *f = server_flight(&s);
    const td_plateau *p = td_flight_plateau(f);
    g_assert_cmpint(f->ctx.seen_from, ==, at_receiver ? TD_SEEN_RECEIVER : TD_SEEN_SENDER);
    g_assert_cmpuint(f->mss, ==, MSS);
    g_assert_cmpint(limit_of(f), ==, TD_LIMIT_SENDER);
    g_assert_nonnull(p);
    g_assert_cmpuint(p->high, ==, 5 * MSS);
    g_assert_cmpuint(p->low, ==, 5 * MSS);
    g_assert_cmpint(p->limit, ==, TD_LIMIT_SENDER);
    g_assert_cmpint(p->onset, ==, TD_ONSET_RETRANSMISSION);
    g_assert_cmpuint(p->rounds, >=, 100);
    g_assert_cmpuint(p->min_window, ==, 1 << 20);
    g_assert_cmpfloat(td_flight_share(f, TD_LIMIT_SENDER), >, 90.0);
    g_assert_cmpuint(f->retransmissions, ==, 1);
    /* 7240 bytes per ~20 ms round trip */
    g_assert_cmpfloat(td_plateau_ceiling(p), >, 7240 / 0.0202);
    g_assert_cmpfloat(td_plateau_ceiling(p), <, 7240 / 0.0199);
    if (at_receiver) {
        round_log_holds_plateau(f, 100, 5 * MSS);
    } else {
        uint32_t flight;
        g_assert_null(f->round_log);        /* not asked for: nothing kept */
        g_assert_false(td_flight_round_at(f, 0, &flight));
    }
    td_engine_free(s.engine);
}

static void test_burst_limited_at_sender(void)
{
    burst_limited(false);
}

static void test_burst_limited_at_receiver(void)
{
    burst_limited(true);
}

/* A queue on the path makes the real round trip 1.5 times the handshake's; the
 * receiver's timestamps echoed in the data still say which ACK each segment
 * answered, so the flight stays exact and the lag estimate follows. */
static void test_timestamps_follow_queueing(void)
{
    sim s;
    sim_start_ts(&s, true, 7, 1 << 20, true);
    sim_handshake(&s, SIM_NO_ECN);
    s.queue = RTT_MS * MS / 2;
    sim_round(&s, 10, false);
    sim_round(&s, 20, false);
    sim_round(&s, 5, true);
    for (int i = 0; i < 60; i++)
        sim_round(&s, 5, false);
    sim_finish(&s);

    const td_flight *f = server_flight(&s);
    g_assert_cmpint(f->ctx.seen_from, ==, TD_SEEN_RECEIVER);
    g_assert_nonnull(td_flight_plateau(f));
    g_assert_cmpuint(td_flight_plateau(f)->high, ==, 5 * MSS);
    g_assert_cmpuint(td_flight_plateau(f)->low, ==, 5 * MSS);
    g_assert_cmpint(limit_of(f), ==, TD_LIMIT_SENDER);
    g_assert_cmpint(f->lag_ns, >, 3 * RTT_MS * MS / 2 - 2 * MS);
    g_assert_cmpint(f->lag_ns, <, 3 * RTT_MS * MS / 2 + 2 * MS);
    td_engine_free(s.engine);
}

/* Flat at the receiver's window is the receiver's limit, not the sender's. */
static void test_pinned_at_window(void)
{
    sim s;
    sim_start(&s, false, 7, 16384);
    for (int i = 0; i < 50; i++)
        sim_round(&s, 11, false);       /* 11 x 1448 = 15928: less than one MSS left */
    sim_finish(&s);

    const td_flight *f = server_flight(&s);
    g_assert_cmpint(limit_of(f), ==, TD_LIMIT_RWND);
    g_assert_cmpint(td_flight_plateau(f)->limit, ==, TD_LIMIT_RWND);
    g_assert_cmpuint(f->max_window, ==, 16384);
    g_assert_cmpuint(f->first_rwnd_frame, >, 0);
    td_engine_free(s.engine);
}

/* Without window scaling the offered window is the raw field. */
static void test_unscaled_window(void)
{
    sim s;
    sim_start(&s, false, -1, 65535);
    for (int i = 0; i < 30; i++)
        sim_round(&s, 45, false);       /* 45 x 1448 = 65160 */
    sim_finish(&s);
    g_assert_cmpuint(server_flight(&s)->max_window, ==, 65535);
    g_assert_cmpint(limit_of(server_flight(&s)), ==, TD_LIMIT_RWND);
    td_engine_free(s.engine);
}

/* Growth without loss is the congestion window opening, never a plateau. */
static void test_growth_is_cwnd(void)
{
    sim s;
    sim_start(&s, false, 7, 1 << 22);
    for (unsigned n = 10; n <= 320; n *= 2)
        sim_round(&s, n, false);
    for (unsigned n = 330; n <= 500; n += 10)
        sim_round(&s, n, false);
    sim_finish(&s);
    g_assert_cmpint(limit_of(server_flight(&s)), ==, TD_LIMIT_CWND);
    g_assert_null(td_flight_plateau(server_flight(&s)));
    td_engine_free(s.engine);
}

/* A sawtooth whose flat stretches sit where the last loss happened (CUBIC
 * around W_max) is congestion control, not a sender limit. */
static void test_flat_at_last_loss_is_cwnd(void)
{
    sim s;
    sim_start(&s, false, 7, 1 << 22);
    sim_round(&s, 10, false);
    sim_round(&s, 20, false);
    sim_round(&s, 40, false);
    for (int cycle = 0; cycle < 3; cycle++) {
        sim_round(&s, 28, true);
        for (unsigned n = 30; n < 40; n += 2)
            sim_round(&s, n, false);
        for (int i = 0; i < 12; i++)
            sim_round(&s, 40, false);
    }
    sim_finish(&s);
    const td_flight *f = server_flight(&s);
    g_assert_cmpint(limit_of(f), ==, TD_LIMIT_CWND);
    g_assert_cmpint(td_flight_plateau(f)->limit, ==, TD_LIMIT_CWND);
    g_assert_cmpfloat(td_flight_share(f, TD_LIMIT_SENDER), ==, 0.0);
    td_engine_free(s.engine);
}

/* One segment per round trip, each acknowledged before the next leaves, for 200
 * rounds under a 1 MB window: a cap at 1 MSS would look so, but so does a sender whose
 * next segment is not ready within the round trip (a veth pair: the ACK is back in
 * microseconds). Nothing shows a flight held back, so no sender plateau; the same
 * after a loss (the onset a cap would have). Five segments a round stay a cap
 * (burst-limited above). */
static void test_lone_segments_are_no_cap(void)
{
    for (int after_loss = 0; after_loss < 2; after_loss++) {
        sim s;
        sim_start(&s, false, 7, 1 << 20);
        sim_round(&s, 10, false);
        sim_round(&s, 20, after_loss);
        for (int i = 0; i < 200; i++)
            sim_round(&s, 1, false);
        sim_finish(&s);
        const td_flight *f = server_flight(&s);
        const td_plateau *p = td_flight_plateau(f);
        g_assert_nonnull(p);
        g_assert_cmpuint(p->high, ==, MSS);
        g_assert_cmpuint(p->rounds, >=, 190);
        g_assert_cmpint(p->limit, ==, TD_LIMIT_CWND);
        g_assert_cmpint(limit_of(f), ==, TD_LIMIT_CWND);
        g_assert_cmpfloat(td_flight_share(f, TD_LIMIT_SENDER), ==, 0.0);
        td_engine_free(s.engine);
    }
}

/* Bursts with long silences and nothing outstanding: the application. */
static void test_bursts_are_app(void)
{
    sim s;
    sim_start(&s, false, 7, 1 << 20);
    for (int i = 0; i < 20; i++) {
        sim_round(&s, 16, false);
        sim_pause(&s, 200);
    }
    sim_finish(&s);
    const td_flight *f = server_flight(&s);
    g_assert_cmpint(limit_of(f), ==, TD_LIMIT_APP);
    g_assert_null(td_flight_plateau(f));        /* each silence ends a run */
    g_assert_cmpfloat(td_flight_share(f, TD_LIMIT_APP), >, 80.0);
    td_engine_free(s.engine);
}

static void test_too_few_rounds(void)
{
    sim s;
    const char *why;
    sim_start(&s, false, 7, 1 << 20);
    sim_round(&s, 10, false);
    sim_round(&s, 20, false);
    sim_finish(&s);
    g_assert_cmpint(td_flight_limit(server_flight(&s), &why), ==, TD_LIMIT_UNKNOWN);
    g_assert_nonnull(strstr(why, "too little data"));
    td_engine_free(s.engine);
}

/* No handshake: nobody knows how far the sender is. */
static void test_midflow_is_unknown(void)
{
    td_config cfg;
    td_record rec;
    const char *why;
    int sender;
    td_flow *flow = NULL;

    td_config_defaults(&cfg);
    td_engine *engine = td_engine_new(&cfg);
    rec = segment(false, 443, 0, TD_TH_ACK, 0, MSS);
    for (uint32_t i = 0; i < 100; i++) {
        rec.frame = i + 1;
        rec.time_ns = i * MS;
        rec.seq = i * MSS;
        flow = td_engine_add(engine, &rec, &sender);
    }
    td_engine_finish(engine);
    g_assert_cmpint(td_flight_limit(td_flow_flight(flow, 0), &why), ==, TD_LIMIT_UNKNOWN);
    g_assert_nonnull(strstr(why, "handshake"));
    td_engine_free(engine);
}

/* However many ACKs are in transit, the ring stays within its slots. */
static void test_ack_flood_is_bounded(void)
{
    sim s;
    sim_start(&s, true, 7, 1 << 20);
    sim_round(&s, 10, false);
    for (uint32_t i = 0; i < 100000; i++)
        client_acks(&s, s.now + i * 10, s.nxt, 0);
    sim_finish(&s);
    g_assert_cmpuint(server_flight(&s)->ring_size, <=, TD_FLIGHT_RING_MAX);
    g_assert_cmpuint(server_flight(&s)->ring_len, ==, 0);
    td_engine_free(s.engine);
}

/* Delays the k-th data segment the server sent (0 first) on its way to the capture. */
static void hold_back(sim *s, unsigned k, int64_t ns)
{
    for (guint i = 0; i < s->packets->len; i++) {
        td_record *rec = &g_array_index(s->packets, td_record, i);
        if (rec->payload_len && k-- == 0) {
            rec->time_ns += ns;
            return;
        }
    }
    g_assert_not_reached();
}

/* At the receiver, a segment held back 1 ms on the path arrives behind later ones: it
 * fills its gap far sooner than a resend could (a round trip), so it is reordered and
 * no retransmission; one that comes two round trips late could have been resent. */
static void test_held_back_segment_is_reordered(void)
{
    sim s;
    const td_flight *f;

    sim_start(&s, true, 7, 1 << 22);
    for (unsigned n = 10; n <= 80; n *= 2)
        sim_round(&s, n, false);
    hold_back(&s, 30, 1 * MS);
    hold_back(&s, 100, 2 * RTT_MS * MS);
    sim_finish(&s);
    f = server_flight(&s);
    g_assert_cmpuint(f->reordered, ==, 1);
    g_assert_cmpuint(f->retransmissions, ==, 1);
    td_engine_free(s.engine);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/flight/burst-limited-at-sender", test_burst_limited_at_sender);
    g_test_add_func("/flight/burst-limited-at-receiver", test_burst_limited_at_receiver);
    g_test_add_func("/flight/timestamps-follow-queueing", test_timestamps_follow_queueing);
    g_test_add_func("/flight/pinned-at-window", test_pinned_at_window);
    g_test_add_func("/flight/unscaled-window", test_unscaled_window);
    g_test_add_func("/flight/growth-is-cwnd", test_growth_is_cwnd);
    g_test_add_func("/flight/flat-at-last-loss-is-cwnd", test_flat_at_last_loss_is_cwnd);
    g_test_add_func("/flight/lone-segments-are-no-cap", test_lone_segments_are_no_cap);
    g_test_add_func("/flight/bursts-are-app", test_bursts_are_app);
    g_test_add_func("/flight/too-few-rounds", test_too_few_rounds);
    g_test_add_func("/flight/midflow-is-unknown", test_midflow_is_unknown);
    g_test_add_func("/flight/ack-flood-is-bounded", test_ack_flood_is_bounded);
    g_test_add_func("/flight/held-back-segment-is-reordered", test_held_back_segment_is_reordered);
    return g_test_run();
}
