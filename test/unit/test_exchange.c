/* A flow's exchanges (engine/exchange.h) on conversations written by hand
 * (conversation.h), each with the times it was written with: a request answered after
 * the server's wait and the client's think time before the next, a server that speaks
 * first, a one-way upload, a request in two segments; and the report's slowest three
 * (series.h). */
#include <glib.h>
#include "conversation.h"
#include "series.h"

enum { MAX_SEEN = 8 };

typedef struct seen {
    td_exchange ex[MAX_SEEN];
    unsigned n;
} seen;

static void keep(const td_flow *flow G_GNUC_UNUSED, const td_exchange *ex, void *ctx)
{
    seen *s = ctx;

    g_assert_cmpuint(s->n, <, MAX_SEEN);
    s->ex[s->n++] = *ex;
}

static void start(conv *c, seen *s)
{
    conv_start(c);
    memset(s, 0, sizeof *s);
    td_engine_on_exchange(c->engine, keep, s);
}

/* Client and server side by side at the capture point (handshake's round trip 0):
 * request at 10 ms, the server answers 300 ms later, the client thinks 2 s. */
static void test_request_reply_think(void)
{
    conv c;
    seen s;

    start(&c, &s);
    handshake(&c, 0, 0, 0);
    send(&c, true, 10, TD_TH_ACK | TD_TH_PSH, 100);
    send(&c, false, 310, TD_TH_ACK | TD_TH_PSH, 1000);
    send(&c, true, 2310, TD_TH_ACK | TD_TH_PSH, 100);
    send(&c, false, 2320, TD_TH_ACK | TD_TH_PSH, 2000);
    send(&c, true, 2330, TD_TH_ACK, 0);
    g_assert_cmpuint(s.n, ==, 1);           /* the second ends only when the flow does */
    td_engine_finish(c.engine);
    g_assert_cmpuint(s.n, ==, 2);
    g_assert_cmpuint(s.ex[0].index, ==, 1);
    g_assert_cmpuint(s.ex[0].first_frame, ==, 4);
    g_assert_cmpuint(s.ex[0].bytes[TD_EXCHANGE_C2S], ==, 100);
    g_assert_cmpuint(s.ex[0].bytes[TD_EXCHANGE_S2C], ==, 1000);
    g_assert_cmpint(s.ex[0].server_ns, ==, 300 * MS);
    g_assert_cmpint(s.ex[0].think_ns, ==, 2000 * MS);
    g_assert_cmpint(s.ex[0].client_ns, ==, 0);
    g_assert_cmpuint(s.ex[1].first_frame, ==, 6);
    g_assert_cmpuint(s.ex[1].bytes[TD_EXCHANGE_S2C], ==, 2000);
    g_assert_cmpint(s.ex[1].server_ns, ==, 10 * MS);
    g_assert_cmpint(s.ex[1].think_ns, ==, 0);
    td_engine_free(c.engine);
}

/* An FTP-like greeting 50 ms after the handshake, the user's answer 5 s later, the
 * server's reply at once: the greeting is an exchange of its own, its server time the
 * wait before it; the user's pause is think time. */
static void test_server_speaks_first(void)
{
    conv c;
    seen s;

    start(&c, &s);
    handshake(&c, 0, 0, 0);
    send(&c, false, 50, TD_TH_ACK | TD_TH_PSH, 60);
    send(&c, true, 5050, TD_TH_ACK | TD_TH_PSH, 12);
    send(&c, false, 5051, TD_TH_ACK | TD_TH_PSH, 30);
    td_engine_finish(c.engine);
    g_assert_cmpuint(s.n, ==, 2);
    g_assert_cmpuint(s.ex[0].bytes[TD_EXCHANGE_C2S], ==, 0);
    g_assert_cmpuint(s.ex[0].bytes[TD_EXCHANGE_S2C], ==, 60);
    g_assert_cmpint(s.ex[0].server_ns, ==, 50 * MS);
    g_assert_cmpint(s.ex[0].think_ns, ==, 5000 * MS);
    g_assert_cmpuint(s.ex[1].bytes[TD_EXCHANGE_C2S], ==, 12);
    g_assert_cmpint(s.ex[1].server_ns, ==, 1 * MS);
    td_engine_free(c.engine);
}

/* An upload: the client sends four segments 100 ms apart, the server only
 * acknowledges: one exchange, the client's send time its first byte to its last. */
static void test_one_way_upload(void)
{
    conv c;
    seen s;

    start(&c, &s);
    handshake(&c, 0, 0, 0);
    for (int i = 0; i < 4; i++) {
        send(&c, true, 10 + 100 * i, TD_TH_ACK, 1000);
        send(&c, false, 11 + 100 * i, TD_TH_ACK, 0);
    }
    td_engine_finish(c.engine);
    g_assert_cmpuint(s.n, ==, 1);
    g_assert_cmpuint(s.ex[0].bytes[TD_EXCHANGE_C2S], ==, 4000);
    g_assert_cmpuint(s.ex[0].bytes[TD_EXCHANGE_S2C], ==, 0);
    g_assert_cmpint(s.ex[0].client_ns, ==, 300 * MS);
    g_assert_cmpint(s.ex[0].server_ns, ==, 0);
    td_engine_free(c.engine);
}

/* The report keeps a flow's three exchanges with the most active time, the most first,
 * the earlier of two as slow ahead, and counts them all. */
static void test_slowest_three(void)
{
    td_series_book *book = td_series_book_new();
    static const int64_t active_ms[] = { 5, 40, 10, 40, 30, 1 };
    int key;
    const td_dir_series *ds;

    for (unsigned i = 0; i < G_N_ELEMENTS(active_ms); i++) {
        td_exchange ex = { .index = i + 1, .active_ns = active_ms[i] * MS };
        td_series_exchange(book, &key, &ex);
    }
    ds = td_series_of(book, &key);
    g_assert_cmpuint(ds->exchanges_ended, ==, 6);
    g_assert_cmpuint(ds->slowest_n, ==, 3);
    g_assert_cmpuint(ds->slowest[0].index, ==, 2);
    g_assert_cmpuint(ds->slowest[1].index, ==, 4);
    g_assert_cmpuint(ds->slowest[2].index, ==, 5);
    td_series_book_free(book);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/exchange/request-reply-think", test_request_reply_think);
    g_test_add_func("/exchange/server-speaks-first", test_server_speaks_first);
    g_test_add_func("/exchange/one-way-upload", test_one_way_upload);
    g_test_add_func("/exchange/slowest-three", test_slowest_three);
    return g_test_run();
}
