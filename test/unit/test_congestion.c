/* Congestion signals and the sender's reaction on simulated downloads: CUBIC-
 * and BBR-like answers to ECN echoes, a collapse, losses, AccECN. */
#include <glib.h>
#include <string.h>
#include "download_sim.h"

static void start(sim *s, bool at_receiver, sim_ecn ecn)
{
    sim_start_ts(s, at_receiver, 7, 1 << 22, true);
    sim_handshake(s, ecn);
    sim_round(s, 10, false);
    sim_round(s, 20, false);
}

static const td_cc *server_cc(const sim *s)
{
    return &server_flight(s)->cc;
}

static unsigned events_of(const td_cc *cc, td_cc_event_kind kind)
{
    unsigned n = 0;
    for (unsigned i = 0; i < cc->nevents; i++)
        n += cc->events[i].kind == kind;
    return n;
}

/* CUBIC: every echo cuts the flight to about 0.7, then it grows back. */
static void cubic_like(bool at_receiver)
{
    sim s;
    start(&s, at_receiver, SIM_CLASSIC);
    for (int cycle = 0; cycle < 4; cycle++) {
        sim_round_marked(&s, 40, false, 1);
        /* The first echo ends slow start, and the sender stays at its cut a few round
           trips before it grows, as the lab's CUBIC kernel did (66 -> 46 -> 32, then
           33, 33, 34 segments: lab-early-cubic-2-of-10). */
        for (int hold = 0; hold < (cycle ? 0 : 2); hold++)
            sim_round(&s, 28, false);
        for (unsigned n = 28; n < 40; n += 2)
            sim_round(&s, n, false);
    }
    sim_finish(&s);

    const td_cc *cc = server_cc(&s);
    g_assert_cmpint(cc->feedback, ==, TD_FEEDBACK_CLASSIC);
    g_assert_cmpint(cc->reaction, ==, TD_REACTION_LOSS_LIKE);
    g_assert_cmpuint(cc->cwr, ==, 4);
    g_assert_cmpuint(cc->ece_episodes, ==, 4);
    g_assert_cmpuint(events_of(cc, TD_CC_CWR), ==, 4);
    /* every echo is a reduction, the first one too: it ends slow start (40 segments,
       the flight doubling each round trip), and the sender keeps the cut: the second
       and third round trips after it deliver 28 segments each, below 0.9 of the rate
       it had reached (docs/congestion.md, issue 19) */
    g_assert_cmpuint(cc->reductions, ==, 4);
    g_assert_cmpfloat(cc->ecn_ratio, >=, 0.65);
    g_assert_cmpfloat(cc->ecn_ratio, <=, 0.8);
    g_assert_cmpuint(cc->losses, ==, 0);
    g_assert_false(td_cc_collapsed(cc, &s.cfg.flight));
    /* a router marks CE downstream of the sender: only the receiver's side shows it */
    g_assert_cmpuint(cc->ce, ==, at_receiver ? 4 : 0);
    g_assert_cmpint(td_cc_unobserved(&server_flight(&s)->dir, &server_flight(&s)->cc) != NULL, ==, !at_receiver);
    td_engine_free(s.engine);
}

static void test_cubic_like_at_sender(void)
{
    cubic_like(false);
}

static void test_cubic_like_at_receiver(void)
{
    cubic_like(true);
}

/* Each CWR is an event on its own frame, with the cut it made. */
static void test_events_on_their_frames(void)
{
    sim s;
    start(&s, false, SIM_CLASSIC);
    sim_round_marked(&s, 40, false, 1);
    for (int i = 0; i < 4; i++)
        sim_round(&s, 28, false);
    sim_finish(&s);

    const td_cc *cc = server_cc(&s);
    const td_cc_event *cwr = NULL;
    for (unsigned i = 0; i < cc->nevents; i++)
        if (cc->events[i].kind == TD_CC_CWR)
            cwr = &cc->events[i];
    g_assert_nonnull(cwr);
    g_assert_true(td_cc_event_at(cc, cwr->frame) == cwr);
    g_assert_null(td_cc_event_at(cc, cwr->frame + 1));
    g_assert_true(cwr->measured);
    g_assert_cmpuint(cwr->before, ==, 40 * MSS);
    g_assert_cmpuint(cwr->after, ==, 28 * MSS);
    g_assert_cmpint(cwr->latency_ns, >=, 0);
    g_assert_cmpint(cwr->latency_ns, <, 1 * MS);      /* the sender answers the echo at once */
    td_engine_free(s.engine);
}

/* BBR: the echoes come, CWR is sent, the flight does not move. */
static void test_bbr_like_is_none(void)
{
    sim s;
    start(&s, true, SIM_CLASSIC);
    for (int i = 0; i < 30; i++)
        sim_round_marked(&s, 40, false, i % 3 == 0);
    sim_finish(&s);
    g_assert_cmpint(server_cc(&s)->reaction, ==, TD_REACTION_NONE);
    g_assert_cmpuint(server_cc(&s)->cwr, ==, 10);
    g_assert_cmpuint(server_cc(&s)->reductions, ==, 0);
    td_engine_free(s.engine);
}

/* Marks on every round trip and a cut for each: down to two segments, where it stays. */
static void test_collapse(void)
{
    static const unsigned spiral[] = { 40, 28, 20, 14, 10, 7, 5, 4, 3 };
    sim s;
    start(&s, false, SIM_CLASSIC);
    for (unsigned i = 0; i < G_N_ELEMENTS(spiral); i++)
        sim_round_marked(&s, spiral[i], false, 1);
    for (int i = 0; i < 20; i++)
        sim_round_marked(&s, 2, false, 1);
    sim_finish(&s);

    const td_cc *cc = server_cc(&s);
    g_assert_cmpint(cc->reaction, ==, TD_REACTION_LOSS_LIKE);
    g_assert_true(td_cc_collapsed(cc, &s.cfg.flight));
    g_assert_cmpuint(cc->collapse_floor, ==, 2 * MSS);
    g_assert_cmpuint(cc->collapse_rounds, >=, 20);
    g_assert_cmpint(cc->collapse_ns, >=, 20 * RTT_MS * MS);
    td_engine_free(s.engine);
}

/* A small flight without signals is not a collapse. */
static void test_small_without_signals_is_no_collapse(void)
{
    sim s;
    start(&s, false, SIM_CLASSIC);
    for (int i = 0; i < 30; i++)
        sim_round(&s, 2, false);
    sim_finish(&s);
    g_assert_cmpint(server_cc(&s)->reaction, ==, TD_REACTION_NO_SIGNAL);
    g_assert_false(td_cc_collapsed(server_cc(&s), &s.cfg.flight));
    td_engine_free(s.engine);
}

/* Reno without ECN: each loss halves the flight. */
static void test_losses_halve(void)
{
    sim s;
    start(&s, false, SIM_NO_ECN);
    for (int cycle = 0; cycle < 3; cycle++) {
        sim_round(&s, 40, false);
        sim_round(&s, 20, true);
        for (unsigned n = 21; n < 40; n += 4)
            sim_round(&s, n, false);
    }
    sim_finish(&s);

    const td_cc *cc = server_cc(&s);
    g_assert_cmpint(cc->feedback, ==, TD_FEEDBACK_NONE);
    g_assert_cmpuint(cc->losses, ==, 3);
    g_assert_cmpint(cc->reaction, ==, TD_REACTION_LOSS_LIKE);
    g_assert_cmpfloat(cc->loss_ratio, >=, 0.45);
    g_assert_cmpfloat(cc->loss_ratio, <=, 0.6);
    g_assert_cmpfloat(cc->ecn_ratio, <, 0);
    td_engine_free(s.engine);
}

/* AccECN with a DCTCP-like sender: the cut follows the marked share. */
static void test_accecn_proportional(void)
{
    static const unsigned marks[] = { 4, 8, 12, 16, 8, 4 };
    sim s;
    start(&s, true, SIM_ACCECN);
    sim_round(&s, 40, false);
    for (unsigned i = 0; i < G_N_ELEMENTS(marks); i++) {
        sim_round_marked(&s, 40, false, marks[i]);
        for (int r = 0; r < 3; r++)
            sim_round(&s, 40 - marks[i] / 2, false);  /* cwnd x (1 - F/2), F = marks / 40 */
        sim_round(&s, 40, false);
        sim_round(&s, 40, false);
    }
    sim_finish(&s);

    const td_cc *cc = server_cc(&s);
    g_assert_cmpint(cc->feedback, ==, TD_FEEDBACK_ACCECN);
    g_assert_cmpuint(cc->ace_marks, ==, 52);
    g_assert_cmpuint(cc->cwr, ==, 0);
    g_assert_cmpint(cc->reaction, ==, TD_REACTION_PROPORTIONAL);
    td_engine_free(s.engine);
}

/* AccECN marks answered with a fixed cut (CUBIC) or none at all (BBR). */
static void accecn_fixed_answer(unsigned cut_to, td_reaction expected)
{
    static const unsigned marks[] = { 4, 8, 12, 16, 8, 4 };
    sim s;
    start(&s, false, SIM_ACCECN);
    sim_round(&s, 40, false);
    for (unsigned i = 0; i < G_N_ELEMENTS(marks); i++) {
        sim_round_marked(&s, 40, false, marks[i]);
        for (int r = 0; r < 3; r++)
            sim_round(&s, cut_to, false);
        sim_round(&s, 40, false);
    }
    sim_finish(&s);
    g_assert_cmpint(server_cc(&s)->reaction, ==, expected);
    td_engine_free(s.engine);
}

static void test_accecn_cubic_is_loss_like(void)
{
    accecn_fixed_answer(28, TD_REACTION_LOSS_LIKE);
}

static void test_accecn_bbr_is_none(void)
{
    accecn_fixed_answer(40, TD_REACTION_NONE);
}

/* Without ECN and without loss there is nothing to react to. */
static void test_no_signal(void)
{
    sim s;
    start(&s, false, SIM_NO_ECN);
    for (int i = 0; i < 10; i++)
        sim_round(&s, 40, false);
    sim_finish(&s);
    g_assert_cmpint(server_cc(&s)->reaction, ==, TD_REACTION_NO_SIGNAL);
    g_assert_cmpuint(server_cc(&s)->nevents, ==, 0);
    td_engine_free(s.engine);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/congestion/cubic-like-at-sender", test_cubic_like_at_sender);
    g_test_add_func("/congestion/cubic-like-at-receiver", test_cubic_like_at_receiver);
    g_test_add_func("/congestion/events-on-their-frames", test_events_on_their_frames);
    g_test_add_func("/congestion/bbr-like-is-none", test_bbr_like_is_none);
    g_test_add_func("/congestion/collapse", test_collapse);
    g_test_add_func("/congestion/small-without-signals", test_small_without_signals_is_no_collapse);
    g_test_add_func("/congestion/losses-halve", test_losses_halve);
    g_test_add_func("/congestion/accecn-proportional", test_accecn_proportional);
    g_test_add_func("/congestion/accecn-cubic-is-loss-like", test_accecn_cubic_is_loss_like);
    g_test_add_func("/congestion/accecn-bbr-is-none", test_accecn_bbr_is_none);
    g_test_add_func("/congestion/no-signal", test_no_signal);
    return g_test_run();
}
