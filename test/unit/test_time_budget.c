/* The time budget (engine/time_budget.h) on conversations built by hand and fed
 * through td_engine_add, so flow.c's wiring (a flow kept as a lone SYN first) is
 * covered: each test names where every millisecond goes and checks that the parts
 * add up to the duration exactly. Client 10.0.0.1:40000, server 10.0.0.2:80, times
 * in ms. */
#include <glib.h>
#include "conversation.h"

static const td_time_budget *finish(conv *c)
{
    const td_time_budget *b;
    int64_t sum = 0;

    td_engine_finish(c->engine);
    const td_flow *flow = td_engine_flow_at(c->engine, 0);
    b = td_flow_time_budget(flow);
    for (int p = 0; p < TD_TIME_PARTS; p++) {
        g_assert_cmpint(td_time_budget_part(b, (td_time_part)p), >=, 0);
        sum += td_time_budget_part(b, (td_time_part)p);
    }
    g_assert_cmpint(sum, ==, flow->last_ns - flow->first_ns);
    g_assert_cmpint(td_time_budget_duration(b), ==, sum);
    g_assert_cmpint(td_time_budget_active(b), ==,
                    sum - td_time_budget_part(b, TD_TIME_IDLE) - td_time_budget_part(b, TD_TIME_THINK));
    return b;
}

static void assert_part(const td_time_budget *b, td_time_part part, int64_t ms)
{
    if (td_time_budget_part(b, part) != ms * MS)
        g_error("%s: %" G_GINT64_FORMAT " ns, expected %" G_GINT64_FORMAT " ms", td_time_part_name(part),
                td_time_budget_part(b, part), ms);
}

/* Captured at the client, 10 ms from the server: SYNs at 0, 1000 and 3000 (the
 * kernel's backoff), the answer at 3010; then one exchange and the close. */
static void test_syn_retries(void)
{
    conv c;
    conv_start(&c);
    send(&c, true, 0, TD_TH_SYN, 0);        /* a lone SYN: the flow is kept small at first */
    resend_syn(&c, 1000);
    resend_syn(&c, 3000);
    send(&c, false, 3010, TD_TH_SYN | TD_TH_ACK, 0);
    send(&c, true, 3010, TD_TH_ACK, 0);
    send(&c, true, 3010, TD_TH_ACK | TD_TH_PSH, 100);
    send(&c, false, 3020, TD_TH_ACK | TD_TH_PSH, 1000);     /* at once: the round trip only */
    send(&c, true, 3020, TD_TH_ACK, 0);
    send(&c, true, 3020, TD_TH_ACK | TD_TH_FIN, 0);
    send(&c, false, 3030, TD_TH_ACK | TD_TH_FIN, 0);
    send(&c, true, 3030, TD_TH_ACK, 0);
    const td_time_budget *b = finish(&c);

    assert_part(b, TD_TIME_SETUP, 3010);
    assert_part(b, TD_TIME_SERVER_WAIT, 0);
    assert_part(b, TD_TIME_TRANSFER, 20);   /* the request's round trip, the FIN's */
    assert_part(b, TD_TIME_IDLE, 0);
    g_assert_cmpuint(td_time_budget_syn_retransmissions(b), ==, 2);
    g_assert_cmpuint(td_time_budget_synack_retransmissions(b), ==, 0);
    g_assert_cmpuint(b->handshake_retry_frame, ==, 2);      /* the first SYN sent again */
    g_assert_cmpuint(td_time_budget_exchanges(b), ==, 1);
    td_engine_free(c.engine);
}

/* Captured at the client, 10 ms from the server: the server acknowledges the request
 * at once and answers 500 ms after it arrived. */
static void test_server_delay(void)
{
    conv c;
    conv_start(&c);
    handshake(&c, 0, 10, 10);
    send(&c, true, 10, TD_TH_ACK | TD_TH_PSH, 100);
    send(&c, false, 20, TD_TH_ACK, 0);
    send(&c, false, 520, TD_TH_ACK | TD_TH_PSH, 1000);
    send(&c, true, 520, TD_TH_ACK, 0);
    send(&c, true, 520, TD_TH_ACK | TD_TH_FIN, 0);
    send(&c, false, 530, TD_TH_ACK | TD_TH_FIN, 0);
    send(&c, true, 530, TD_TH_ACK, 0);
    const td_time_budget *b = finish(&c);

    assert_part(b, TD_TIME_SETUP, 10);
    assert_part(b, TD_TIME_SERVER_WAIT, 500);
    assert_part(b, TD_TIME_CLIENT_WAIT, 0);
    assert_part(b, TD_TIME_TRANSFER, 20);
    assert_part(b, TD_TIME_STALL, 0);
    assert_part(b, TD_TIME_IDLE, 0);
    /* the server owed an answer: all of its wait is a delay, ended by the reply (frame 6) */
    g_assert_cmpint(b->answer_wait_ns[TD_SPAN_SERVER_WAIT], ==, 500 * MS);
    g_assert_cmpint(b->longest_ns[TD_SPAN_SERVER_WAIT], ==, 500 * MS);
    g_assert_cmpuint(b->longest_frame[TD_SPAN_SERVER_WAIT], ==, 6);
    td_engine_free(c.engine);
}

/* Captured at the server, 10 ms from the client: two exchanges, the client waiting
 * 1000 ms after the first reply before its second request. */
static void test_client_wait(void)
{
    conv c;
    conv_start(&c);
    handshake(&c, 0, 0, 10);
    send(&c, true, 10, TD_TH_ACK | TD_TH_PSH, 100);
    send(&c, false, 10, TD_TH_ACK | TD_TH_PSH, 1000);
    send(&c, true, 20, TD_TH_ACK, 0);
    send(&c, true, 1020, TD_TH_ACK | TD_TH_PSH, 100);       /* sent 1000 ms after the reply arrived */
    send(&c, false, 1020, TD_TH_ACK | TD_TH_PSH, 1000);
    send(&c, true, 1030, TD_TH_ACK | TD_TH_FIN, 0);         /* closes the moment the reply arrived */
    send(&c, false, 1030, TD_TH_ACK | TD_TH_FIN, 0);
    send(&c, true, 1040, TD_TH_ACK, 0);
    const td_time_budget *b = finish(&c);

    /* issue 37: the client's pause after the reply, with nothing owed either way, is
       think time (its application's or user's), not a wait the server sat through */
    assert_part(b, TD_TIME_SETUP, 10);
    assert_part(b, TD_TIME_THINK, 1000);
    assert_part(b, TD_TIME_CLIENT_WAIT, 0);
    assert_part(b, TD_TIME_SERVER_WAIT, 0);
    assert_part(b, TD_TIME_TRANSFER, 20);   /* each reply's round trip to the client */
    assert_part(b, TD_TIME_IDLE, 10);       /* the close's last ACK */
    g_assert_cmpuint(td_time_budget_exchanges(b), ==, 2);
    g_assert_cmpint(b->answer_wait_ns[TD_SPAN_CLIENT_WAIT], ==, 0);
    g_assert_cmpint(td_time_budget_active(b), ==, 30 * MS);
    td_engine_free(c.engine);
}

/* Captured at the client, 10 ms from the server: the client opens the connection and
 * sends its first request 800 ms later. A connection opened to be used kept the server
 * waiting: client wait, and a wait before an answer. */
static void test_client_wait_before_first_request(void)
{
    conv c;
    conv_start(&c);
    handshake(&c, 0, 0, 10);
    send(&c, true, 810, TD_TH_ACK | TD_TH_PSH, 100);
    send(&c, false, 820, TD_TH_ACK | TD_TH_PSH, 1000);
    send(&c, true, 820, TD_TH_ACK | TD_TH_FIN, 0);
    send(&c, false, 830, TD_TH_ACK | TD_TH_FIN, 0);
    send(&c, true, 830, TD_TH_ACK, 0);
    const td_time_budget *b = finish(&c);

    assert_part(b, TD_TIME_SETUP, 10);
    assert_part(b, TD_TIME_CLIENT_WAIT, 800);
    assert_part(b, TD_TIME_THINK, 0);
    g_assert_cmpint(b->answer_wait_ns[TD_SPAN_CLIENT_WAIT], ==, 800 * MS);
    td_engine_free(c.engine);
}

/* Captured at the server, 10 ms from the client: the server greets first (SMTP, FTP),
 * and the client answers 5 s later, its user at the prompt. The server's greeting was
 * the exchange; the client's pause after it is think time. */
static void test_server_speaks_first(void)
{
    conv c;
    conv_start(&c);
    handshake(&c, 0, 0, 10);
    send(&c, false, 10, TD_TH_ACK | TD_TH_PSH, 80);        /* the greeting */
    send(&c, true, 20, TD_TH_ACK, 0);
    send(&c, true, 5020, TD_TH_ACK | TD_TH_PSH, 20);       /* USER ... */
    send(&c, false, 5020, TD_TH_ACK | TD_TH_PSH, 40);
    send(&c, true, 5030, TD_TH_ACK | TD_TH_FIN, 0);
    send(&c, false, 5030, TD_TH_ACK | TD_TH_FIN, 0);
    send(&c, true, 5040, TD_TH_ACK, 0);
    const td_time_budget *b = finish(&c);

    /* the greeting left at 10 and the answer arrived at 5020: 5010 ms less the 10 ms
       round trip to the client */
    assert_part(b, TD_TIME_THINK, 5000);
    assert_part(b, TD_TIME_CLIENT_WAIT, 0);
    g_assert_cmpint(b->answer_wait_ns[TD_SPAN_CLIENT_WAIT], ==, 0);
    td_engine_free(c.engine);
}

/* Captured at the client, 10 ms from the server: the server sends a first part of its
 * reply, the client acknowledges all of it, and the server goes on 500 ms later. The
 * pause is the server's (server_wait), but it owed no answer: no delay. */
static void test_pause_in_own_stream(void)
{
    conv c;
    conv_start(&c);
    handshake(&c, 0, 10, 10);
    send(&c, true, 10, TD_TH_ACK | TD_TH_PSH, 100);
    send(&c, false, 20, TD_TH_ACK | TD_TH_PSH, 1000);
    send(&c, true, 20, TD_TH_ACK, 0);
    send(&c, false, 530, TD_TH_ACK | TD_TH_PSH, 1000);
    send(&c, true, 530, TD_TH_ACK, 0);
    const td_time_budget *b = finish(&c);

    assert_part(b, TD_TIME_SERVER_WAIT, 500);
    g_assert_cmpint(b->answer_wait_ns[TD_SPAN_SERVER_WAIT], ==, 0);
    td_engine_free(c.engine);
}

/* A segment seen at t_ms with timestamps `tsval` and `tsecr`. */
static void send_stamped(conv *c, bool from_client, int64_t t_ms, uint16_t flags, uint32_t len, uint32_t tsval,
                         uint32_t tsecr)
{
    td_record rec = conv_segment(c, from_client, t_ms, flags, c->nxt[from_client], len, OPEN_WINDOW);
    int sender;

    rec.options.present = TD_OPT_TS;
    rec.options.complete = rec.options.ts_valid = true;
    rec.options.tsval = tsval;
    rec.options.tsecr = tsecr;
    c->nxt[from_client] += len + ((flags & (TD_TH_SYN | TD_TH_FIN)) != 0);
    g_assert_nonnull(td_engine_add(c->engine, &rec, &sender));
}

/* A segment with timestamps: TSval the sender's clock in ms, echoing `tsecr`. */
static void send_ts(conv *c, bool from_client, int64_t t_ms, uint16_t flags, uint32_t len, uint32_t tsecr)
{
    send_stamped(c, from_client, t_ms, flags, len, (uint32_t)t_ms, tsecr);
}

/* Captured at the client, the server 5 ms away each way at the handshake. Ten
 * requests 1 s apart, each answered at once but the fifth, which the server answers
 * after 300 ms; a queue on the way back holds reply i 10 * i ms (the queue grows, as
 * behind a bulk download filling a FIFO). The server's TSvals, its own clock (origin
 * 1000, a tick of `tick_ms`; 0: no timestamps), show each reply took longer on its
 * way than its SYN-ACK, so the queue's 550 ms are the network's: the server's wait
 * is its 300 ms, and at most a tick and the clocks' drift allowance (500 ppm of the
 * span) more a reply. Without timestamps the round trip is the handshake's, and the
 * queue reads as the server's. */
static void queue_grows_on_the_way_back(int64_t tick_ms)
{
    conv c;
    conv_start(&c);
    if (tick_ms) {
        send_stamped(&c, true, 0, TD_TH_SYN, 0, 0, 0);
        send_stamped(&c, false, 10, TD_TH_SYN | TD_TH_ACK, 0, (uint32_t)((1000 + 5) / tick_ms), 0);
        send_stamped(&c, true, 10, TD_TH_ACK, 0, 10, 0);
    } else {
        handshake(&c, 0, 10, 10);
    }
    for (int64_t i = 1; i <= 10; i++) {
        int64_t request = 1000 * i, wait = i == 5 ? 300 : 0, sent = request + 5 + wait, queued = 10 * i;
        if (!tick_ms) {
            send(&c, true, request, TD_TH_ACK | TD_TH_PSH, 100);
            send(&c, false, sent + 5 + queued, TD_TH_ACK | TD_TH_PSH, 1000);
            send(&c, true, sent + 5 + queued, TD_TH_ACK, 0);
            continue;
        }
        send_stamped(&c, true, request, TD_TH_ACK | TD_TH_PSH, 100, (uint32_t)request, 0);
        send_stamped(&c, false, sent + 5 + queued, TD_TH_ACK | TD_TH_PSH, 1000, (uint32_t)((1000 + sent) / tick_ms),
                     (uint32_t)request);
        send_stamped(&c, true, sent + 5 + queued, TD_TH_ACK, 0, (uint32_t)(sent + 5 + queued), 0);
    }
    const td_time_budget *b = finish(&c);

    if (!tick_ms) {
        assert_part(b, TD_TIME_SERVER_WAIT, 300 + 550);
    } else {
        int64_t allowance_ms = 10 * (tick_ms + 10500 / 2000 + 1);
        g_assert_cmpint(td_time_budget_part(b, TD_TIME_SERVER_WAIT), >=, 300 * MS);
        g_assert_cmpint(td_time_budget_part(b, TD_TIME_SERVER_WAIT), <=, (300 + allowance_ms) * MS);
        g_assert_cmpint(b->answer_wait_ns[TD_SPAN_SERVER_WAIT], ==, td_time_budget_part(b, TD_TIME_SERVER_WAIT));
    }
    td_engine_free(c.engine);
}

static void test_queue_grows_on_the_way_back(void)
{
    queue_grows_on_the_way_back(1);
    queue_grows_on_the_way_back(10);
    queue_grows_on_the_way_back(0);
}

/* Captured at the client, 0 ms from the server on the wire, beyond a bottleneck that
 * queues the server's segments 20 ms: each reaches the client 5 ms after the last,
 * which the client acknowledges at once, so nothing is outstanding in between. Each
 * echoes the client ACK of 20 ms before: it left before the ACK of the previous one
 * arrived, so the gaps are the queue's, not the server's. The control echoes the
 * latest ACK: a server that sent each segment after the previous one's ACK, 5 ms
 * later, pacing its own writes. */
static void test_queued_before_the_capture(void)
{
    for (int queued = 0; queued < 2; queued++) {
        conv c;
        conv_start(&c);
        handshake(&c, 0, 0, 0);
        send_ts(&c, true, 10, TD_TH_ACK | TD_TH_PSH, 100, 0);
        for (int64_t t = 10; t < 110; t += 5) {
            send_ts(&c, false, t, TD_TH_ACK, 1000, (uint32_t)(queued ? t - 20 : t - 5));
            send_ts(&c, true, t, TD_TH_ACK, 0, (uint32_t)t);
        }
        const td_time_budget *b = finish(&c);
        assert_part(b, TD_TIME_SERVER_WAIT, queued ? 0 : 95);
        assert_part(b, TD_TIME_TRANSFER, queued ? 95 : 0);
        td_engine_free(c.engine);
    }
}

/* Captured at the server: of a two-segment reply the second is lost; the
 * retransmission timer fires 200 ms after the first segment was acknowledged. */
static void test_timeout_silence(void)
{
    conv c;
    conv_start(&c);
    handshake(&c, 0, 0, 10);
    send(&c, true, 10, TD_TH_ACK | TD_TH_PSH, 100);
    send(&c, false, 10, TD_TH_ACK, 1000);
    uint32_t lost = c.nxt[0];
    send(&c, false, 10, TD_TH_ACK | TD_TH_PSH, 1000);
    c.nxt[0] = lost;                        /* the client acknowledges the first only */
    send(&c, true, 20, TD_TH_ACK, 0);
    c.nxt[0] = lost + 1000;
    resend(&c, false, 220, lost, 1000);
    send(&c, true, 230, TD_TH_ACK, 0);
    const td_time_budget *b = finish(&c);

    assert_part(b, TD_TIME_SETUP, 10);
    assert_part(b, TD_TIME_SERVER_WAIT, 0);
    assert_part(b, TD_TIME_STALL, 210);     /* the lost segment's send → its retransmission */
    assert_part(b, TD_TIME_TRANSFER, 10);   /* the retransmission's round trip */
    assert_part(b, TD_TIME_IDLE, 0);
    td_engine_free(c.engine);
}

/* A loss recovered fast, whose retransmission is lost too and resent on the timer:
 * both spans are the stall, only the 400 ms silence is a timeout's (at least the
 * 200 ms floor); the 20 ms before the fast retransmission is the recovery's. */
static void test_fast_recovery_is_no_timeout(void)
{
    conv c;
    conv_start(&c);
    handshake(&c, 0, 0, 10);
    send(&c, true, 10, TD_TH_ACK | TD_TH_PSH, 100);
    uint32_t lost = c.nxt[0];
    send(&c, false, 10, TD_TH_ACK, 1000);
    send(&c, false, 10, TD_TH_ACK | TD_TH_PSH, 1000);
    c.nxt[0] = lost;                        /* duplicate ACKs: the first is missing */
    send(&c, true, 20, TD_TH_ACK, 0);
    send(&c, true, 20, TD_TH_ACK, 0);
    c.nxt[0] = lost + 2000;
    resend(&c, false, 30, lost, 1000);      /* fast retransmission, lost again */
    resend(&c, false, 430, lost, 1000);     /* the timer's */
    send(&c, true, 440, TD_TH_ACK, 0);
    const td_time_budget *b = finish(&c);

    assert_part(b, TD_TIME_STALL, 420);
    g_assert_cmpint(td_time_budget_timeouts_ns(b), ==, 400 * MS);
    td_engine_free(c.engine);
}

/* Captured at the client, the reply lost before it: the server's pure ACK numbered
 * beyond any data seen shows the reply was sent; the reply coming again 490 ms after
 * the request is then a stall, not the server's wait. Without that ACK nothing shows
 * the loss, and the same gap is the server's wait. */
static void reply_lost_before_the_capture(bool numbered_beyond)
{
    conv c;
    conv_start(&c);
    handshake(&c, 0, 0, 10);
    send(&c, true, 10, TD_TH_ACK | TD_TH_PSH, 100);
    uint32_t reply = c.nxt[0];
    c.nxt[0] += 1000;                       /* the reply, never seen here */
    if (numbered_beyond)
        send(&c, false, 300, TD_TH_ACK, 0);
    resend(&c, false, 500, reply, 1000);
    send(&c, true, 510, TD_TH_ACK, 0);
    const td_time_budget *b = finish(&c);

    if (numbered_beyond) {
        assert_part(b, TD_TIME_STALL, 490);
        assert_part(b, TD_TIME_SERVER_WAIT, 0);
    } else {
        assert_part(b, TD_TIME_STALL, 0);
        assert_part(b, TD_TIME_SERVER_WAIT, 490); /* the handshake put the server 0 ms away */
    }
    td_engine_free(c.engine);
}

static void test_reply_lost_before_the_capture(void)
{
    reply_lost_before_the_capture(true);
    reply_lost_before_the_capture(false);
}

/* Captured at the client, 10 ms from the server: the client's window closes after
 * the first segment of the reply and opens 500 ms later. */
static void test_zero_window(void)
{
    conv c;
    conv_start(&c);
    handshake(&c, 0, 10, 10);
    send(&c, true, 10, TD_TH_ACK | TD_TH_PSH, 100);
    send(&c, false, 20, TD_TH_ACK, 1000);
    send_window(&c, true, 20, TD_TH_ACK, 0, 0);
    send_window(&c, true, 520, TD_TH_ACK, 0, OPEN_WINDOW);
    send(&c, false, 530, TD_TH_ACK | TD_TH_PSH, 1000);
    send(&c, true, 530, TD_TH_ACK, 0);
    const td_time_budget *b = finish(&c);

    assert_part(b, TD_TIME_SETUP, 10);
    assert_part(b, TD_TIME_STALL, 500);
    assert_part(b, TD_TIME_SERVER_WAIT, 0);
    assert_part(b, TD_TIME_TRANSFER, 20);   /* the request's round trip, the reopened window's */
    g_assert_cmpuint(b->zero_windows, ==, 1);
    g_assert_cmpint(b->zero_window_ns, ==, 500 * MS);
    g_assert_cmpuint(b->zero_window_frame, ==, 6);
    td_engine_free(c.engine);
}

/* Captured at the client: a reply in ten segments, the client acknowledging each,
 * then after 500 ms the reply's last segment. With the server's packets numbered one
 * by one, two numbers skipped before it show two packets lost on the way (the tail
 * and its probe): a stall. Without the gap, or with numbers that say nothing, the
 * same 500 ms are the server's pause. */
static const td_time_budget *tail_after_pause(conv *c, bool numbered, uint16_t skipped)
{
    conv_start(c);
    c->numbered = numbered;
    c->server_id = 0xe100;
    handshake(c, 0, 10, 10);
    send(c, true, 10, TD_TH_ACK | TD_TH_PSH, 100);
    for (int i = 0; i < 10; i++) {
        send(c, false, 20 + i, TD_TH_ACK, 1000);
        send(c, true, 20 + i, TD_TH_ACK, 0);
    }
    c->server_id += skipped;
    send(c, false, 530, TD_TH_ACK | TD_TH_PSH, 500);
    send(c, true, 530, TD_TH_ACK, 0);
    return finish(c);
}

static void test_lost_tail_near_the_receiver(void)
{
    conv c;
    const td_time_budget *b = tail_after_pause(&c, true, 2);
    g_assert_cmpint(td_time_budget_part(b, TD_TIME_STALL), >=, 500 * MS);
    assert_part(b, TD_TIME_SERVER_WAIT, 0);
    td_engine_free(c.engine);

    b = tail_after_pause(&c, true, 0);
    g_assert_cmpint(td_time_budget_part(b, TD_TIME_STALL), ==, 0);
    g_assert_cmpint(td_time_budget_part(b, TD_TIME_SERVER_WAIT), >=, 490 * MS);
    td_engine_free(c.engine);

    b = tail_after_pause(&c, false, 2);      /* IPv6, or numbers not kept per connection */
    g_assert_cmpint(td_time_budget_part(b, TD_TIME_STALL), ==, 0);
    td_engine_free(c.engine);
}

/* Captured at the client, 10 ms from the server, which numbers its packets per
 * connection: three requests, each answered in one segment, the client pausing
 * `pause_ms` after the first answer (two segments). The third answer comes 500 ms late, two numbers
 * after the second (the answer and its probe, lost on the way): too few steps in
 * order for the 8-in-9 rule, but the second answer kept its number across the
 * server's silence, so nothing else was numbered from its counter: a stall. `jump`
 * numbers taken elsewhere inside the first answer (a counter shared with other
 * traffic), or a super-packet of three segments as the second answer (its numbers
 * spent), make the gap no evidence: the 500 ms are the server's. */
static const td_time_budget *answers_after_pauses(conv *c, int64_t pause_ms, uint16_t jump, bool super_packet)
{
    int64_t t;

    conv_start(c);
    c->numbered = true;
    c->server_id = 0x6286;
    handshake(c, 0, 10, 10);
    send(c, true, 10, TD_TH_ACK | TD_TH_PSH, 100);
    send(c, false, 20, TD_TH_ACK, 500);
    c->server_id += jump;
    send(c, false, 20, TD_TH_ACK | TD_TH_PSH, 500);
    t = 20 + pause_ms;
    send(c, true, t, TD_TH_ACK | TD_TH_PSH, 100);
    send(c, false, t + 10, TD_TH_ACK | TD_TH_PSH, super_packet ? 3000 : 1000);
    c->server_id += super_packet ? 2 : 0;
    send(c, true, t + 10, TD_TH_ACK, 0);
    send(c, true, t + 1000, TD_TH_ACK | TD_TH_PSH, 100);
    c->server_id += 2;
    send(c, false, t + 1510, TD_TH_ACK | TD_TH_PSH, 1000);
    send(c, true, t + 1510, TD_TH_ACK, 0);
    return finish(c);
}

static void test_lost_answers_among_pauses(void)
{
    conv c;
    const td_time_budget *b = answers_after_pauses(&c, 2000, 0, false);
    g_assert_cmpint(td_time_budget_part(b, TD_TIME_STALL), >=, 500 * MS);
    assert_part(b, TD_TIME_SERVER_WAIT, 0);
    td_engine_free(c.engine);

    b = answers_after_pauses(&c, 500, 0, false);     /* no second of silence kept its number */
    assert_part(b, TD_TIME_STALL, 0);
    g_assert_cmpint(td_time_budget_part(b, TD_TIME_SERVER_WAIT), >=, 490 * MS);
    td_engine_free(c.engine);

    b = answers_after_pauses(&c, 2000, 40, false);   /* a counter shared with other traffic */
    assert_part(b, TD_TIME_STALL, 0);
    g_assert_cmpint(td_time_budget_part(b, TD_TIME_SERVER_WAIT), >=, 490 * MS);
    td_engine_free(c.engine);

    b = answers_after_pauses(&c, 2000, 0, true);     /* GRO's super-packet spent three numbers */
    assert_part(b, TD_TIME_STALL, 0);
    g_assert_cmpint(td_time_budget_part(b, TD_TIME_SERVER_WAIT), >=, 490 * MS);
    td_engine_free(c.engine);
}

/* Captured at the server: an interactive flow (stream 0) answers a request at 21 ms
 * and the client's next request comes at 222, 201 ms later, where the handshake's round
 * trip was 20. With `bulk`, a download on the same pair of addresses (stream 1) sent
 * four segments at 21 whose ACK came at 221: its round trip shows 200 ms of queue on
 * the way to the client, which the reply met too, so the client paused 1 ms, not 181.
 * With the download's round ending before the reply was sent, it says nothing; nor
 * does a round of three 100-byte writes on a flow that announced no MSS: under two
 * segments of the MSS a host assumes then (536), an answer of small writes, which
 * its receiver may acknowledge late, not a measure of the path. */
static const td_time_budget *reply_beside_a_download(conv *c, conv *d, bool bulk, int64_t bulk_ack_ms,
                                                     int segments, uint32_t segment_len)
{
    conv_start(c);
    conv_join(d, c, 1);
    send(c, true, 0, TD_TH_SYN, 0);
    send(c, false, 0, TD_TH_SYN | TD_TH_ACK, 0);
    if (bulk) {
        send(d, true, 0, TD_TH_SYN, 0);
        send(d, false, 0, TD_TH_SYN | TD_TH_ACK, 0);
        send(d, true, 20, TD_TH_ACK, 0);
        send(d, true, 20, TD_TH_ACK | TD_TH_PSH, 100);
    }
    send(c, true, 20, TD_TH_ACK, 0);
    send(c, true, 20, TD_TH_ACK | TD_TH_PSH, 100);
    if (bulk) {
        for (int i = 0; i < segments; i++)
            send(d, false, 20, TD_TH_ACK, segment_len);
    }
    send(c, false, 21, TD_TH_ACK | TD_TH_PSH, 1000);
    if (bulk)
        send(d, true, bulk_ack_ms, TD_TH_ACK, 0);
    send(c, true, 222, TD_TH_ACK | TD_TH_PSH, 100);
    send(c, false, 222, TD_TH_ACK | TD_TH_PSH, 1000);
    send(c, true, 242, TD_TH_ACK, 0);
    return finish(c);
}

static void test_reply_queued_beside_a_download(void)
{
    conv c, d;
    const td_time_budget *b = reply_beside_a_download(&c, &d, true, 221, 4, 1448);
    g_assert_cmpint(td_time_budget_part(b, TD_TIME_THINK), <=, 2 * MS);
    td_engine_free(c.engine);

    b = reply_beside_a_download(&c, &d, false, 0, 0, 0);
    g_assert_cmpint(td_time_budget_part(b, TD_TIME_THINK), >=, 180 * MS);
    td_engine_free(c.engine);

    b = reply_beside_a_download(&c, &d, true, 21, 4, 1448);     /* its round over before the reply */
    g_assert_cmpint(td_time_budget_part(b, TD_TIME_THINK), >=, 180 * MS);
    td_engine_free(c.engine);

    b = reply_beside_a_download(&c, &d, true, 221, 3, 100);     /* small writes, no MSS announced */
    g_assert_cmpint(td_time_budget_part(b, TD_TIME_THINK), >=, 180 * MS);
    td_engine_free(c.engine);
}

/* Captured at the server: the reply's second segment is never acknowledged; the
 * server resends it at 220, 620 and 1420 ms and the capture ends: a peer (or a path)
 * gone. A FIN the peer acknowledged is no such silence. */
static void test_unanswered_retransmissions(void)
{
    conv c;
    unsigned count;
    conv_start(&c);
    handshake(&c, 0, 0, 10);
    send(&c, true, 10, TD_TH_ACK | TD_TH_PSH, 100);
    send(&c, false, 10, TD_TH_ACK, 1000);
    uint32_t lost = c.nxt[0];
    send(&c, false, 10, TD_TH_ACK | TD_TH_PSH, 1000);
    c.nxt[0] = lost;
    send(&c, true, 20, TD_TH_ACK, 0);       /* the first segment only */
    c.nxt[0] = lost + 1000;
    resend(&c, false, 220, lost, 1000);
    resend(&c, false, 620, lost, 1000);
    resend(&c, false, 1420, lost, 1000);
    const td_time_budget *b = finish(&c);

    g_assert_cmpint(td_time_budget_unanswered(b, &count), ==, td_flow_server(td_engine_flow_at(c.engine, 0)));
    g_assert_cmpuint(count, ==, 3);
    assert_part(b, TD_TIME_STALL, 1410);    /* the lost segment's send → its last resend */
    g_assert_cmpint(b->longest_ns[TD_SPAN_STALL], ==, 800 * MS);
    td_engine_free(c.engine);
}

/* Captured at the client: one exchange, then 90 s of keep-alive (a probe at 45 s)
 * before the client closes. */
static void test_trailing_idle(void)
{
    conv c;
    conv_start(&c);
    handshake(&c, 0, 10, 10);
    send(&c, true, 10, TD_TH_ACK | TD_TH_PSH, 100);
    send(&c, false, 20, TD_TH_ACK | TD_TH_PSH, 797);
    send(&c, true, 20, TD_TH_ACK, 0);
    resend(&c, true, 45020, c.nxt[1] - 1, 0);   /* keep-alive: one below the next */
    send(&c, false, 45030, TD_TH_ACK, 0);
    send(&c, true, 90020, TD_TH_ACK | TD_TH_FIN, 0);
    send(&c, false, 90030, TD_TH_ACK | TD_TH_FIN, 0);
    send(&c, true, 90030, TD_TH_ACK, 0);
    const td_time_budget *b = finish(&c);

    assert_part(b, TD_TIME_SETUP, 10);
    assert_part(b, TD_TIME_IDLE, 90000 + 10);
    assert_part(b, TD_TIME_TRANSFER, 10);
    assert_part(b, TD_TIME_CLIENT_WAIT, 0);
    g_assert_cmpint(td_time_budget_active(b), ==, 20 * MS);
    td_engine_free(c.engine);
}

/* The client closes a while after the reply and its FIN is resent at +1, +3 and +7 s,
 * never acknowledged. fin_resends: its FIN and resends from `at`. */
static void close_unanswered(conv *c, int64_t at)
{
    static const int64_t resends[] = { 0, 1000, 3000, 7000 };
    uint32_t fin = c->nxt[1];

    for (size_t i = 0; i < G_N_ELEMENTS(resends); i++) {
        td_record rec = conv_segment(c, true, at + resends[i], TD_TH_ACK | TD_TH_FIN, fin, 0, OPEN_WINDOW);
        int sender;
        g_assert_nonnull(td_engine_add(c->engine, &rec, &sender));
    }
}

/* Captured at the client: a 2500-byte reply ends with a short segment (the server had
 * sent all it had, RFC 1122 4.2.3.4) and is acknowledged; 60 s later the client closes
 * and its FIN is never acknowledged (the server left). The close is asynchronous: the
 * application has its data, so the silences are idle and no peer is dead; that the
 * peer left is a fact of the flow. */
static void test_unanswered_fin_after_the_data(void)
{
    conv c;
    unsigned count;
    conv_start(&c);
    handshake(&c, 0, 0, 10);
    send(&c, true, 10, TD_TH_ACK | TD_TH_PSH, 100);
    send(&c, false, 20, TD_TH_ACK, 1000);
    send(&c, false, 20, TD_TH_ACK, 1000);
    send(&c, false, 20, TD_TH_ACK | TD_TH_PSH, 500);
    send(&c, true, 20, TD_TH_ACK, 0);
    close_unanswered(&c, 60020);
    const td_time_budget *b = finish(&c);

    g_assert_cmpint(td_time_budget_unanswered(b, &count), ==, -1);
    g_assert_cmpint(td_time_budget_left_by_peer(b), ==, td_engine_flow_at(c.engine, 0)->client);
    assert_part(b, TD_TIME_STALL, 0);
    /* the 60 s before the FIN less the 10 ms round trip to the client (the budget's
       rule for every turn), and its resends' 7 s */
    assert_part(b, TD_TIME_IDLE, 59990 + 7000);
    td_engine_free(c.engine);
}

/* The same, but the reply stops on a full segment, as a transfer cut off mid-way does
 * (captures/lab/next tb-dead-peer: the router dropped everything the server sent): the
 * capture cannot tell it ended, so the unanswered FIN still says the peer went away. */
static void test_unanswered_fin_after_a_cut(void)
{
    conv c;
    unsigned count;
    conv_start(&c);
    handshake(&c, 0, 0, 10);
    send(&c, true, 10, TD_TH_ACK | TD_TH_PSH, 100);
    send(&c, false, 20, TD_TH_ACK, 1000);
    send(&c, false, 20, TD_TH_ACK, 1000);
    send(&c, true, 20, TD_TH_ACK, 0);
    close_unanswered(&c, 12020);
    const td_time_budget *b = finish(&c);

    g_assert_cmpint(td_time_budget_unanswered(b, &count), ==, td_engine_flow_at(c.engine, 0)->client);
    g_assert_cmpuint(count, ==, 3);
    g_assert_cmpint(td_time_budget_left_by_peer(b), ==, -1);
    assert_part(b, TD_TIME_STALL, 7000);
    td_engine_free(c.engine);
}

/* A flow captured mid-transfer: no setup, and the rest still accounted. */
static void test_mid_flow(void)
{
    conv c;
    conv_start(&c);
    send(&c, false, 0, TD_TH_ACK, 1000);
    send(&c, true, 10, TD_TH_ACK, 0);
    send(&c, false, 10, TD_TH_ACK, 1000);
    send(&c, false, 20, TD_TH_ACK | TD_TH_FIN, 0);
    send(&c, true, 30, TD_TH_ACK | TD_TH_FIN, 0);
    const td_time_budget *b = finish(&c);

    assert_part(b, TD_TIME_SETUP, 0);
    g_assert_cmpuint(td_time_budget_syn_retransmissions(b), ==, 0);
    g_assert_cmpint(td_time_budget_duration(b), ==, 30 * MS);
    td_engine_free(c.engine);
}

/* An outage seen beyond the drop, captured mid-flow at the client: the server's data
 * stops at 40 ms, all of it acknowledged as far as the capture sees (the ACKs died on
 * the path); 3 s later the server sends again data the client had acknowledged, then
 * goes on. Its silence was its retransmission timer: a stall, not its wait. A
 * keep-alive probe (the byte before the acknowledged edge) after a pause is no resend. */
static void test_outage_beyond_the_drop(void)
{
    conv c;
    conv_start(&c);
    for (int i = 0; i < 5; i++) {
        send(&c, false, 10 * i, TD_TH_ACK, 1000);
        send(&c, true, 10 * i, TD_TH_ACK, 0);
    }
    resend(&c, false, 3040, c.nxt[0] - 1000, 1000);
    send(&c, true, 3040, TD_TH_ACK, 0);
    send(&c, false, 3041, TD_TH_ACK, 1000);
    send(&c, true, 3041, TD_TH_ACK, 0);
    const td_time_budget *b = finish(&c);

    assert_part(b, TD_TIME_STALL, 3000);
    assert_part(b, TD_TIME_SERVER_WAIT, 41);    /* its paced writes: 10 ms each, and 1 ms after the resend */
    /* the server's data waited (roles from the ports: the client is 40000) */
    g_assert_cmpint(b->longest_stall_side, ==, 1 - b->guessed_client);
    td_engine_free(c.engine);

    conv_start(&c);
    send(&c, false, 0, TD_TH_ACK, 1000);
    send(&c, true, 10, TD_TH_ACK, 0);
    resend(&c, false, 7010, c.nxt[0] - 1, 1);           /* a keep-alive probe */
    send(&c, true, 7010, TD_TH_ACK, 0);
    b = finish(&c);
    assert_part(b, TD_TIME_STALL, 0);
    td_engine_free(c.engine);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/time_budget/syn_retries", test_syn_retries);
    g_test_add_func("/time_budget/server_delay", test_server_delay);
    g_test_add_func("/time_budget/client_wait", test_client_wait);
    g_test_add_func("/time_budget/client_wait_before_first_request", test_client_wait_before_first_request);
    g_test_add_func("/time_budget/server_speaks_first", test_server_speaks_first);
    g_test_add_func("/time_budget/unanswered_fin_after_the_data", test_unanswered_fin_after_the_data);
    g_test_add_func("/time_budget/unanswered_fin_after_a_cut", test_unanswered_fin_after_a_cut);
    g_test_add_func("/time_budget/pause_in_own_stream", test_pause_in_own_stream);
    g_test_add_func("/time_budget/timeout_silence", test_timeout_silence);
    g_test_add_func("/time_budget/fast_recovery_is_no_timeout", test_fast_recovery_is_no_timeout);
    g_test_add_func("/time_budget/reply_lost_before_the_capture", test_reply_lost_before_the_capture);
    g_test_add_func("/time_budget/unanswered_retransmissions", test_unanswered_retransmissions);
    g_test_add_func("/time_budget/lost_tail_near_the_receiver", test_lost_tail_near_the_receiver);
    g_test_add_func("/time_budget/lost_answers_among_pauses", test_lost_answers_among_pauses);
    g_test_add_func("/time_budget/reply_queued_beside_a_download", test_reply_queued_beside_a_download);
    g_test_add_func("/time_budget/zero_window", test_zero_window);
    g_test_add_func("/time_budget/trailing_idle", test_trailing_idle);
    g_test_add_func("/time_budget/mid_flow", test_mid_flow);
    g_test_add_func("/time_budget/outage_beyond_the_drop", test_outage_beyond_the_drop);
    g_test_add_func("/time_budget/queued_before_the_capture", test_queued_before_the_capture);
    g_test_add_func("/time_budget/queue_grows_on_the_way_back", test_queue_grows_on_the_way_back);
    return g_test_run();
}
