/* The diagnosis of request/response flows (issue 30), on conversations written by
 * hand (conversation.h): prompt small replies are healthy, not a limited sender; a
 * request written in two parts with Nagle on waits for the server's delayed ACK; an
 * interactive flow waits in the queue a download keeps full. And the report's charts
 * of both (the history series.c keeps with --report, drawn by report/charts.c). */
#include <glib.h>
#include <string.h>
#include "charts.h"
#include "conversation.h"
#include "diagnosis.h"
#include "series.h"

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

/* Captured at the server, 20 ms from the client, a pure ACK counting as delayed from
 * `delayed_ms` past its round trip: `n` requests written as a 200 B part and a `second`
 * B part with Nagle on. The server acknowledges the first part `ack_ms`
 * after it arrived (40: its delayed ACK; 0: at once), the client's second part leaves
 * when that ACK reaches it and arrives a round trip after the ACK left, and the server
 * answers with 2048 B at once; the client's next request (acknowledging the reply) a
 * round trip later. book: the report's history to keep, NULL none. */
static void split_requests(conv *c, int n, int64_t ack_ms, uint32_t second, unsigned delayed_ms, td_series_book *book)
{
    int64_t t = 20;

    conv_start(c);
    c->cfg.nagle.min_ack_delay_ms = delayed_ms;     /* the engine reads its configuration there */
    td_engine_keep_history(c->engine, book);    /* the report's history, NULL none */
    c->scaled = true;
    handshake(c, 0, 0, 20);
    for (int i = 0; i < n; i++) {
        send(c, true, t, TD_TH_ACK | TD_TH_PSH, 200);
        send(c, false, t + ack_ms, TD_TH_ACK, 0);
        send(c, true, t + ack_ms + 20, TD_TH_ACK | TD_TH_PSH, second);
        send(c, false, t + ack_ms + 20, TD_TH_ACK, 1448);
        send(c, false, t + ack_ms + 20, TD_TH_ACK | TD_TH_PSH, 600);
        t += ack_ms + 40;
    }
    send(c, true, t, TD_TH_ACK | TD_TH_FIN, 0);
    send(c, false, t, TD_TH_ACK | TD_TH_FIN, 0);
    send(c, true, t + 20, TD_TH_ACK, 0);
}

/* Each second part waits 60 ms behind the first: the server's 40 ms delayed ACK and
 * its way back. 20 holds, 1.2 s of a 1.64 s flow, measured against one round trip per
 * exchange; the evidence is the first delayed ACK (frame 5: after the handshake's
 * three and the first part). */
static void test_nagle_with_delayed_acks(void)
{
    conv c;
    split_requests(&c, 20, 40, 300, 30, NULL);
    td_diagnosis d = diagnose_conv(&c);
    const td_flow *flow = td_engine_flow_at(c.engine, 0);
    const td_nagle *n = td_flow_nagle(flow);

    g_assert_cmpint(d.cause, ==, TD_CAUSE_NAGLE_DELAYED_ACK);
    g_assert_cmpint(td_nagle_held_sender(n), ==, flow->client);
    g_assert_cmpuint(n->side[flow->client].holds, ==, 20);
    g_assert_cmpint(n->side[flow->client].held_ns, ==, 20 * 60 * MS);
    g_assert_cmpuint(n->side[1 - flow->client].holds, ==, 0);
    g_assert_cmpint(d.reference, ==, TD_REF_ONE_ROUND_TRIP);
    g_assert_cmpint(d.lost_ns, ==, 20 * 60 * MS);
    g_assert_cmpuint(d.evidence_frame, ==, 5);
    td_engine_free(c.engine);
}

/* No small segment held until a delayed ACK: the flow is not nagle-delayed-ack. */
static void assert_no_hold(int64_t ack_ms, uint32_t second, unsigned delayed_ms)
{
    conv c;
    split_requests(&c, 20, ack_ms, second, delayed_ms, NULL);
    td_diagnosis d = diagnose_conv(&c);

    g_assert_cmpint(td_nagle_held_sender(td_flow_nagle(td_engine_flow_at(c.engine, 0))), ==, -1);
    g_assert_cmpint(d.cause, !=, TD_CAUSE_NAGLE_DELAYED_ACK);
    td_engine_free(c.engine);
}

/* The ACK came at once (a quick ACK): the hold cost a round trip, no delayed ACK. */
static void test_nagle_without_delayed_acks(void)
{
    assert_no_hold(0, 300, 30);
}

/* A full-sized segment after a delayed ACK is no small segment Nagle held (the sender
 * waited for its window, or its application). */
static void test_full_segment_is_not_held(void)
{
    assert_no_hold(40, 1448, 30);
}

/* "Delayed" is a preference: at 50 ms, a 40 ms ACK is prompt enough. */
static void test_nagle_threshold_is_a_preference(void)
{
    assert_no_hold(40, 300, 50);
}

/* Captured at the server, 20 ms from the client: a download (stream 0: a request,
 * then two segments every 20 ms, each pair acknowledged 20 ms later) keeps the path's
 * queue full; at 100 ms an interactive flow (stream 1) connects, its SYN-ACK waiting
 * 180 ms in the queue, and makes 12 exchanges of 100 B and 1000 B, each reply 200 ms
 * on its way (the queue) before the client's next request. book: the report's history
 * to keep, NULL none. */
static void behind_a_download(conv *bulk, conv *chat, td_series_book *book)
{
    enum { LAST_MS = 2900, CHAT_START_MS = 300, EXCHANGE_MS = 200, EXCHANGES = 12 };

    conv_start(bulk);
    td_engine_keep_history(bulk->engine, book);
    bulk->scaled = true;
    handshake(bulk, 0, 0, 20);
    send(bulk, true, 20, TD_TH_ACK | TD_TH_PSH, 100);
    conv_join(chat, bulk, 1);
    for (int64_t t = 20; t <= LAST_MS; t += 20) {
        if (t > 20)
            send(bulk, true, t, TD_TH_ACK, 0);
        send(bulk, false, t, TD_TH_ACK, 1448);
        send(bulk, false, t, TD_TH_ACK, 1448);
        if (t == 100) {
            send(chat, true, t, TD_TH_SYN, 0);
            send(chat, false, t, TD_TH_SYN | TD_TH_ACK, 0);
        }
        if (t >= CHAT_START_MS && t < CHAT_START_MS + EXCHANGES * EXCHANGE_MS && t % EXCHANGE_MS == 100) {
            send(chat, true, t, TD_TH_ACK | TD_TH_PSH, 100);
            send(chat, false, t, TD_TH_ACK | TD_TH_PSH, 1000);
        }
    }
    send(chat, true, CHAT_START_MS + EXCHANGES * EXCHANGE_MS, TD_TH_ACK | TD_TH_FIN, 0);
    send(chat, false, CHAT_START_MS + EXCHANGES * EXCHANGE_MS, TD_TH_ACK | TD_TH_FIN, 0);
    send(bulk, true, LAST_MS + 20, TD_TH_ACK | TD_TH_FIN, 0);
    send(bulk, false, LAST_MS + 20, TD_TH_ACK | TD_TH_FIN, 0);
}

/* The interactive flow's round trips are 10x the empty path's, which the download's
 * handshake shows (its own SYN-ACK was queued too): queueing-delay, the download named
 * as what filled the queue; the download itself sends unasked and is not. */
static void test_queueing_behind_a_download(void)
{
    conv bulk, chat;
    td_diagnoses *all;

    behind_a_download(&bulk, &chat, NULL);
    td_engine_finish(bulk.engine);
    all = td_diagnose(bulk.engine, NULL);
    const td_diagnosis *d = td_diagnosis_of(all, td_engine_flow_at(bulk.engine, 1));
    const td_diagnosis *download = td_diagnosis_of(all, td_engine_flow_at(bulk.engine, 0));

    g_assert_cmpint(d->cause, ==, TD_CAUSE_QUEUEING_DELAY);
    g_assert_cmpint(d->reference, ==, TD_REF_EMPTY_PATH);
    g_assert_cmpint(d->path_rtt_ns, ==, 20 * MS);
    g_assert_cmpint(d->queued_rtt_ns, >=, 195 * MS);
    g_assert_cmpint(d->queued_rtt_ns, <=, 205 * MS);
    g_assert_cmpuint(d->queue_fillers, ==, 1);
    g_assert_cmpuint(d->queue_filler_streams[0], ==, 0);
    /* 13 round trips (the handshake and 12 exchanges) of ~200 ms, each 20 ms on an empty path */
    g_assert_cmpint(d->lost_ns, >=, 13 * 175 * MS);
    g_assert_cmpint(d->lost_ns, <=, 13 * 185 * MS);
    g_assert_false(download->causes & (1u << TD_CAUSE_QUEUEING_DELAY));
    td_diagnoses_free(all);
    td_engine_free(bulk.engine);
}

/* The chart the flow's diagnosed cause calls for, with the report's history. */
static td_chart *chart_of(const td_engine *engine, const td_diagnoses *all, const td_series_book *book,
                          const td_flow *flow)
{
    td_chart_source src = { engine, all, book };
    const char *why = NULL;
    td_chart *chart = td_chart_for_flow(&src, flow, &why);

    g_assert_null(why);
    g_assert_nonnull(chart);
    g_assert_true(chart->y_us);
    return chart;
}

static const td_chart_level *level_of(const td_chart *chart, const char *cls)
{
    for (guint i = 0; i < chart->levels->len; i++)
        if (strcmp(g_array_index(chart->levels, td_chart_level, i).cls, cls) == 0)
            return &g_array_index(chart->levels, td_chart_level, i);
    g_assert_not_reached();
}

/* The chart of the 20 held second parts: a dot per hold, each 60 ms (the server's
 * 40 ms delayed ACK and its 20 ms way back), at its release; against the handshake's
 * 20 ms round trip and the 50 ms from which the rule calls an ACK delayed. */
static void test_nagle_chart(void)
{
    td_series_book *book = td_series_book_new();
    conv c;
    split_requests(&c, 20, 40, 300, 30, book);
    td_engine_finish(c.engine);
    td_diagnoses *all = td_diagnose(c.engine, NULL);
    const td_flow *flow = td_engine_flow_at(c.engine, 0);
    td_chart *chart = chart_of(c.engine, all, book, flow);
    const td_chart_line *holds = &g_array_index(chart->lines, td_chart_line, 0);

    g_assert_cmpuint(chart->lines->len, ==, 1);
    g_assert_true(holds->dots);
    g_assert_cmpuint(holds->points->len, ==, 20);
    for (guint i = 0; i < 20; i++) {
        const td_xy *p = &g_array_index(holds->points, td_xy, i);
        g_assert_cmpfloat_with_epsilon(p->y, 60000, 1e-6);                      /* µs */
        g_assert_cmpfloat_with_epsilon(p->x, 0.020 + 0.080 * i + 0.060, 1e-9);  /* released: first part + 60 ms */
    }
    g_assert_cmpfloat_with_epsilon(level_of(chart, "path")->y, 20000, 1e-6);
    g_assert_cmpfloat_with_epsilon(level_of(chart, "late")->y, 50000, 1e-6);
    td_chart_free(chart);
    td_diagnoses_free(all);
    td_engine_free(c.engine);
    td_series_book_free(book);
}

/* The chart of the interactive flow: one point per exchange, each the 200 ms from one
 * request to the next (the last to the client's FIN), whatever the capture point
 * subtracts; against the empty path's 20 ms and the 80 ms from which the rule calls
 * a round trip queued; the download shaded over the flow's life. The download, which
 * made one request and closed, keeps one exchange and no chart of this kind. */
static void test_queueing_chart(void)
{
    td_series_book *book = td_series_book_new();
    conv bulk, chat;
    behind_a_download(&bulk, &chat, book);
    td_engine_finish(bulk.engine);
    td_diagnoses *all = td_diagnose(bulk.engine, NULL);
    const td_flow *flow = td_engine_flow_at(bulk.engine, 1);
    td_chart *chart = chart_of(bulk.engine, all, book, flow);
    const td_chart_line *exchanges = &g_array_index(chart->lines, td_chart_line, 0);
    const td_chart_span *download = &g_array_index(chart->silences, td_chart_span, 0);

    g_assert_cmpuint(chart->lines->len, ==, 1);
    g_assert_true(exchanges->dots);
    g_assert_cmpuint(exchanges->points->len, ==, 12);
    for (guint i = 0; i < 12; i++) {
        const td_xy *p = &g_array_index(exchanges->points, td_xy, i);
        g_assert_cmpfloat_with_epsilon(p->y, 200000, 1e-6);
        g_assert_cmpfloat_with_epsilon(p->x, 0.400 + 0.200 * i, 1e-9);  /* its end: the next request, the FIN */
    }
    g_assert_cmpfloat_with_epsilon(level_of(chart, "path")->y, 20000, 1e-6);
    g_assert_cmpfloat_with_epsilon(level_of(chart, "late")->y, 80000, 1e-6);
    g_assert_cmpuint(chart->silences->len, ==, 1);
    g_assert_cmpfloat_with_epsilon(download->x0, 0, 1e-9);
    g_assert_cmpfloat_with_epsilon(download->x1, 2.6, 1e-9);     /* the flow's last packet */
    g_assert_nonnull(strstr(download->label, "stream 0"));
    g_assert_cmpuint(td_series_len(&td_series_of(book, td_flow_time_budget(td_engine_flow_at(bulk.engine, 0)))->exchanges),
                     ==, 1);
    td_chart_free(chart);
    td_diagnoses_free(all);
    td_engine_free(bulk.engine);
    td_series_book_free(book);
}

/* Without the report's history nothing is kept, and the chart says so. */
static void test_no_chart_without_history(void)
{
    conv c;
    split_requests(&c, 20, 40, 300, 30, NULL);
    td_engine_finish(c.engine);
    td_diagnoses *all = td_diagnose(c.engine, NULL);
    td_chart_source src = { c.engine, all, NULL };
    const char *why = NULL;

    g_assert_null(td_chart_for_flow(&src, td_engine_flow_at(c.engine, 0), &why));
    g_assert_nonnull(why);
    td_diagnoses_free(all);
    td_engine_free(c.engine);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/exchanges/prompt-replies-are-healthy", test_prompt_replies_are_healthy);
    g_test_add_func("/exchanges/nagle-with-delayed-acks", test_nagle_with_delayed_acks);
    g_test_add_func("/exchanges/nagle-without-delayed-acks", test_nagle_without_delayed_acks);
    g_test_add_func("/exchanges/full-segment-is-not-held", test_full_segment_is_not_held);
    g_test_add_func("/exchanges/nagle-threshold-is-a-preference", test_nagle_threshold_is_a_preference);
    g_test_add_func("/exchanges/queueing-behind-a-download", test_queueing_behind_a_download);
    g_test_add_func("/exchanges/nagle-chart", test_nagle_chart);
    g_test_add_func("/exchanges/queueing-chart", test_queueing_chart);
    g_test_add_func("/exchanges/no-chart-without-history", test_no_chart_without_history);
    return g_test_run();
}
