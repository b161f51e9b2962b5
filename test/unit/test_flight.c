/* Flight per round trip, plateaus and the limiting factor, on simulated
 * downloads seen from the sender and from the receiver. */
#include <glib.h>
#include <string.h>
#include "flow.h"
#include "segment.h"

#define MS 1000000LL
#define US 1000LL

enum { MSS = 1448, SERVER_ISN = 5000, RTT_MS = 20 };

/* A download: the server sends rounds of segments, each ACK of the round before
 * releasing two; the client ACKs every second segment (and a lone last one) on
 * arrival. The capture sits at the server (sender) or at the client (receiver).
 * Packets are collected with their capture times and fed in capture order. */
typedef struct client_ack {
    int64_t arrives;            /* at the server */
    uint32_t ack, tsval;
} client_ack;

enum { MAX_ACKS = 512 };

typedef struct sim {
    td_config cfg;
    td_engine *engine;
    const td_flow *flow;
    GArray *packets;            /* td_record; frame = creation order until fed */
    bool at_receiver, timestamps;
    int client_wscale;          /* -1: no window scaling in the handshake */
    uint32_t window;            /* bytes the client offers */
    uint32_t nxt;               /* server sequence space */
    int64_t now;                /* the server's clock: its next send */
    int64_t queue;              /* extra server -> client delay after the handshake */
    uint32_t echo;              /* TSval of the newest ACK the server has */
    client_ack acks[MAX_ACKS];  /* on their way to the server */
    unsigned nacks;
} sim;

static void packet(sim *s, bool from_client, int64_t t, uint16_t flags, uint32_t seq, uint32_t ack,
                   uint32_t len, uint32_t tsval)
{
    td_record rec = segment(from_client, 443, t, flags, seq, len);

    rec.frame = s->packets->len;
    rec.ack = ack;
    rec.has_window = true;
    rec.window = (uint16_t)(from_client && s->client_wscale >= 0 && !(flags & TD_TH_SYN)
                                ? s->window >> s->client_wscale : MIN(s->window, 65535u));
    if (s->timestamps) {
        rec.options.present = TD_OPT_TS;
        rec.options.ts_valid = true;
        rec.options.tsval = tsval;
        rec.options.tsecr = from_client ? 0 : s->echo;
    }
    if (flags & TD_TH_SYN) {
        rec.options.present |= TD_OPT_MSS | (s->client_wscale >= 0 ? TD_OPT_WSCALE : 0);
        rec.options.mss = 1460;
        rec.options.wscale = (uint8_t)(from_client ? MAX(s->client_wscale, 0) : 7);
    }
    g_array_append_val(s->packets, rec);
}

/* Capture times of events on the server's clock: the receiver sees the
 * server's packets half a round trip (and the queue) later, and sends ACKs
 * half a round trip before the server gets them. */
static int64_t seen_data(const sim *s, int64_t server_t)
{
    return s->at_receiver ? server_t + RTT_MS * MS / 2 + s->queue : server_t;
}

static int64_t seen_ack(const sim *s, int64_t server_t)
{
    return s->at_receiver ? server_t - RTT_MS * MS / 2 : server_t;
}

/* 1 ms timestamp clocks: the client's runs on its send time. */
static uint32_t client_tsval(int64_t arrives)
{
    return (uint32_t)((arrives - RTT_MS * MS / 2) / MS) + 1000;
}

static void client_acks(sim *s, int64_t server_t, uint32_t ack)
{
    packet(s, true, seen_ack(s, server_t), TD_TH_ACK, 101, ack, 0, client_tsval(server_t));
    s->echo = client_tsval(server_t);
}

static void sim_start_ts(sim *s, bool at_receiver, int client_wscale, uint32_t window, bool timestamps)
{
    memset(s, 0, sizeof *s);
    s->timestamps = timestamps;
    td_config_defaults(&s->cfg);
    s->engine = td_engine_new(&s->cfg);
    s->packets = g_array_new(FALSE, FALSE, sizeof(td_record));
    s->at_receiver = at_receiver;
    s->client_wscale = client_wscale;
    s->window = window;
    /* SYN reaches the server at 0, SYN-ACK leaves at 0.1 ms, the ACK arrives one RTT later */
    packet(s, true, seen_ack(s, 0), TD_TH_SYN, 100, 0, 0, client_tsval(0));
    packet(s, false, seen_data(s, 100 * US), TD_TH_SYN | TD_TH_ACK, SERVER_ISN, 101, 0, 9000);
    s->now = 100 * US + RTT_MS * MS;
    client_acks(s, s->now, SERVER_ISN + 1);
    s->nxt = SERVER_ISN + 1;
}

static void sim_start(sim *s, bool at_receiver, int client_wscale, uint32_t window)
{
    sim_start_ts(s, at_receiver, client_wscale, window, false);
}

static void send_segment(sim *s, int64_t t, uint32_t seq, bool acked_at_once, client_ack *acks, unsigned *nacks)
{
    packet(s, false, seen_data(s, t), TD_TH_ACK, seq, 101, MSS, (uint32_t)(t / MS) + 9000);
    if (acked_at_once && *nacks < MAX_ACKS) {
        int64_t arrives = t + RTT_MS * MS + s->queue;
        acks[(*nacks)++] = (client_ack){ arrives, seq + MSS, client_tsval(arrives) };
    }
}

/* One round: each ACK of the last round arrives and releases two segments
 * within microseconds; a retransmission of an earlier segment goes first if asked. */
static void sim_round(sim *s, unsigned segments, bool retransmit)
{
    client_ack next[MAX_ACKS];
    unsigned nnext = 0, sent = 0;
    int64_t t = s->now;

    if (retransmit)
        send_segment(s, t += 5 * US, s->nxt - 3 * MSS, false, next, &nnext);
    for (unsigned j = 0; j < s->nacks; j++) {
        t = MAX(t, s->acks[j].arrives);
        client_acks(s, s->acks[j].arrives, s->acks[j].ack);
        for (int k = 0; k < 2 && sent < segments; k++, sent++, s->nxt += MSS)
            send_segment(s, t += 5 * US, s->nxt, sent % 2 || sent + 1 == segments, next, &nnext);
    }
    for (; sent < segments; sent++, s->nxt += MSS)
        send_segment(s, t += 10 * US, s->nxt, sent % 2 || sent + 1 == segments, next, &nnext);
    memcpy(s->acks, next, nnext * sizeof next[0]);
    s->nacks = nnext;
    s->now = t + 10 * US;
}

/* The last round's ACKs arrive and the server sends nothing for `ms`. */
static void sim_pause(sim *s, int64_t ms)
{
    for (unsigned j = 0; j < s->nacks; j++) {
        client_acks(s, s->acks[j].arrives, s->acks[j].ack);
        s->now = MAX(s->now, s->acks[j].arrives);
    }
    s->nacks = 0;
    s->now += ms * MS;
}

static gint by_capture_time(gconstpointer a, gconstpointer b)
{
    const td_record *x = a, *y = b;
    if (x->time_ns != y->time_ns)
        return x->time_ns < y->time_ns ? -1 : 1;
    return x->frame < y->frame ? -1 : x->frame > y->frame;
}

static void sim_finish(sim *s)
{
    int sender;

    sim_pause(s, 0);
    g_array_sort(s->packets, by_capture_time);
    for (guint i = 0; i < s->packets->len; i++) {
        td_record *rec = &g_array_index(s->packets, td_record, i);
        rec->frame = i + 1;
        s->flow = td_engine_add(s->engine, rec, &sender);
    }
    g_array_free(s->packets, TRUE);
    td_engine_finish(s->engine);
}

static const td_flight *server_flight(const sim *s)
{
    return s->flow->flight[td_flow_server(s->flow)];
}

static td_limit limit_of(const td_flight *f)
{
    const char *why;
    return td_flight_limit(f, &why);
}

/* The illumos case: slow start, one retransmission, then five segments per
 * round trip for the rest of the transfer, under a 1 MB window. */
static void burst_limited(bool at_receiver)
{
    sim s;
    sim_start(&s, at_receiver, 7, 1 << 20);
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
    g_assert_cmpint(td_flight_limit(flow->flight[0], &why), ==, TD_LIMIT_UNKNOWN);
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
        client_acks(&s, s.now + i * 10, s.nxt);
    sim_finish(&s);
    g_assert_cmpuint(server_flight(&s)->ring_size, <=, TD_FLIGHT_RING_MAX);
    g_assert_cmpuint(server_flight(&s)->ring_len, ==, 0);
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
    g_test_add_func("/flight/bursts-are-app", test_bursts_are_app);
    g_test_add_func("/flight/too-few-rounds", test_too_few_rounds);
    g_test_add_func("/flight/midflow-is-unknown", test_midflow_is_unknown);
    g_test_add_func("/flight/ack-flood-is-bounded", test_ack_flood_is_bounded);
    return g_test_run();
}
