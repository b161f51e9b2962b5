/* The diagnosis of request/response flows (issue 30), on conversations written by
 * hand (conversation.h): prompt small replies are healthy, not a limited sender. */
#include <glib.h>
#include "conversation.h"
#include "diagnosis.h"

/* Diagnoses the finished conversation's one flow. */
static td_diagnosis diagnose_conv(conv *c)
{
    td_diagnoses *all;
    td_diagnosis d;

    td_engine_finish(c->engine);
    all = td_diagnose(c->engine, NULL);
    d = *td_diagnosis_of(all, td_engine_flow_at(c->engine, 0));
    td_diagnoses_free(all);
    return d;
}

static td_limit limit_of(const td_flight *f)
{
    const char *why;
    return td_flight_limit(f, &why);
}

/* Captured at the server, 20 ms from the client: `n` exchanges of a 100 B request
 * answered at once by a 2048 B reply (two segments), the client's next request
 * (acknowledging the reply) one round trip later. */
static void prompt_exchanges(conv *c, int n)
{
    int64_t t = 20;

    conv_start(c);
    c->scaled = true;
    handshake(c, 0, 0, 20);
    for (int i = 0; i < n; i++, t += 20) {
        send(c, true, t, TD_TH_ACK | TD_TH_PSH, 100);
        send(c, false, t, TD_TH_ACK, 1448);
        send(c, false, t, TD_TH_ACK | TD_TH_PSH, 600);
    }
    send(c, true, t, TD_TH_ACK | TD_TH_FIN, 0);
    send(c, false, t, TD_TH_ACK | TD_TH_FIN, 0);
    send(c, true, t + 20, TD_TH_ACK, 0);
}

/* Each reply is all the server had: its flight stays at 2048 B, far below the window,
 * round after round, and no sender held it (the false alarm). */
static void test_prompt_replies_are_healthy(void)
{
    conv c;
    prompt_exchanges(&c, 50);
    td_diagnosis d = diagnose_conv(&c);
    const td_flow *flow = td_engine_flow_at(c.engine, 0);

    g_assert_cmpint(d.cause, ==, TD_CAUSE_NONE);
    g_assert_cmpuint(d.causes, ==, 0);
    for (int e = 0; e < 2; e++) {
        const td_flight *f = td_flow_flight(flow, e);
        g_assert_cmpuint(f->rounds, >=, 49);
        g_assert_null(td_flight_plateau(f));    /* no plateau of answers */
        g_assert_cmpint(limit_of(f), !=, TD_LIMIT_SENDER);
    }
    g_assert_cmpuint(td_time_budget_exchanges(td_flow_time_budget(flow)), ==, 50);
    td_engine_free(c.engine);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/exchanges/prompt-replies-are-healthy", test_prompt_replies_are_healthy);
    return g_test_run();
}
