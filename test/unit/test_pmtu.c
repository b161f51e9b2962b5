/* Path MTU black holes (engine/pmtu.c) on hand-built records: the lab's black hole
 * seen near the sender and past the hop, and what must not read as one: the control
 * whose ICMP got through, an application's short writes after a pause, an outage after
 * which full-size segments got through again. */
#include <glib.h>
#include <string.h>
#include "pmtu.h"

#define MS 1000000LL

enum { CLIENT = 0, SERVER = 1, ALLOWED = 1448 };

typedef struct fixture {
    td_handshake hs;
    td_pmtu pmtu;
    uint32_t frame;
} fixture;

/* Both sides announced MSS 1460 and timestamps: 1448 B allowed. */
static void setup(fixture *f, gconstpointer data G_GNUC_UNUSED)
{
    memset(f, 0, sizeof *f);
    for (int e = 0; e < 2; e++) {
        f->hs.opts_seen[e] = true;
        f->hs.opts[e] = (td_syn_options){ .complete = true, .present = TD_OPT_MSS | TD_OPT_TS, .mss = 1460 };
    }
}

static void send_at(fixture *f, int sender, int64_t ms, uint32_t seq, uint32_t len, uint32_t ack)
{
    td_record rec;

    memset(&rec, 0, sizeof rec);
    rec.frame = ++f->frame;
    rec.time_ns = ms * MS;
    rec.tcp_flags = TD_TH_ACK;
    rec.seq = seq;
    rec.ack = ack;
    rec.payload_len = len;
    td_pmtu_record(&f->pmtu, &rec, sender, &f->hs);
}

/* The request at 0, then the server's initial window: four full-size segments. */
static void request_and_full_segments(fixture *f)
{
    send_at(f, CLIENT, 0, 1000, 100, 1);
    for (uint32_t i = 0; i < 4; i++)
        send_at(f, SERVER, 1, 1 + i * ALLOWED, ALLOWED, 1100);
}

/* Near the sender (the lab's server capture): the first segment resent three times
 * at full size, then cut to 1024 B, which gets through and goes on at that size. */
static void test_blackhole_near_sender(fixture *f, gconstpointer data G_GNUC_UNUSED)
{
    request_and_full_segments(f);
    send_at(f, SERVER, 300, 1, ALLOWED, 1100);
    send_at(f, SERVER, 900, 1, ALLOWED, 1100);
    send_at(f, SERVER, 1900, 1, ALLOWED, 1100);
    send_at(f, SERVER, 3800, 1, 1024, 1100);
    uint32_t cut_frame = f->frame;
    send_at(f, CLIENT, 3840, 1100, 0, 1025);
    send_at(f, SERVER, 3841, 1 + 4 * ALLOWED, 1024, 1100);     /* new data, 1025.. outstanding */
    const td_pmtu_run *run = td_pmtu_blackhole(&f->pmtu, SERVER);
    g_assert_nonnull(run);
    g_assert_cmpuint(run->frame, ==, cut_frame);
    g_assert_cmpint(run->wait_ns, ==, 3800 * MS);
    g_assert_cmpuint(run->size, ==, 1024);
    g_assert_cmpuint(run->full_retransmissions, ==, 3);
    g_assert_null(td_pmtu_blackhole(&f->pmtu, CLIENT));
}

/* Past the hop (the lab's client capture): nothing for 3.85 s, then 1024 B segments,
 * the second beyond a hole (the full-size ones sent before never came). */
static void test_blackhole_past_the_hop(fixture *f, gconstpointer data G_GNUC_UNUSED)
{
    send_at(f, CLIENT, 0, 1000, 100, 1);
    send_at(f, SERVER, 41, 1, 0, 1100);                         /* the ACK of the request */
    send_at(f, SERVER, 3850, 1, 1024, 1100);
    send_at(f, CLIENT, 3851, 1100, 0, 1025);
    send_at(f, SERVER, 3890, 1 + 4 * ALLOWED, 1024, 1100);      /* beyond the hole */
    send_at(f, CLIENT, 3891, 1100, 0, 1025);
    send_at(f, SERVER, 3892, 1 + 4 * ALLOWED + 1024, 1024, 1100);
    const td_pmtu_run *run = td_pmtu_blackhole(&f->pmtu, SERVER);
    g_assert_nonnull(run);
    g_assert_true(run->hole);
    g_assert_cmpuint(run->full_retransmissions, ==, 0);
    g_assert_cmpint(run->wait_ns, ==, 3850 * MS);
}

/* The control: ICMP got through, the sender resent at 1348 B one round trip later and
 * went on at that size. A cut, but no full-size segment seen dying. */
static void test_icmp_let_through(fixture *f, gconstpointer data G_GNUC_UNUSED)
{
    request_and_full_segments(f);
    send_at(f, SERVER, 46, 1, 1348, 1100);
    send_at(f, SERVER, 46, 1 + 1348, 1348, 1100);
    send_at(f, SERVER, 47, 1 + 4 * ALLOWED, 1348, 1100);
    g_assert_null(td_pmtu_blackhole(&f->pmtu, SERVER));
    g_assert_true(f->pmtu.side[SERVER].reduced);
}

/* A server that thinks 3 s, then writes 1000 B twice: short writes after a wait, and
 * nothing died. */
static void test_short_writes_after_a_pause(fixture *f, gconstpointer data G_GNUC_UNUSED)
{
    send_at(f, CLIENT, 0, 1000, 100, 1);
    send_at(f, SERVER, 3000, 1, 1000, 1100);
    send_at(f, SERVER, 3001, 1001, 1000, 1100);
    send_at(f, SERVER, 3002, 2001, 1000, 1100);
    g_assert_null(td_pmtu_blackhole(&f->pmtu, SERVER));
}

/* An outage: the same timeouts and cut, then a full-size segment acknowledged: the
 * path carried full size again, so the size was not what killed the segments. */
static void test_outage_back_to_full(fixture *f, gconstpointer data G_GNUC_UNUSED)
{
    test_blackhole_near_sender(f, NULL);
    send_at(f, SERVER, 3900, 1 + 4 * ALLOWED + 1024, ALLOWED, 1100);
    g_assert_nonnull(td_pmtu_blackhole(&f->pmtu, SERVER));    /* sent, not yet acknowledged */
    send_at(f, CLIENT, 3941, 1100, 0, 1 + 5 * ALLOWED + 1024);
    g_assert_null(td_pmtu_blackhole(&f->pmtu, SERVER));
}

/* Segments below what every IPv4 path carries are no MTU's cut; an MSS not announced
 * leaves nothing to judge. */
static void test_tiny_segments_and_unknown_mss(fixture *f, gconstpointer data G_GNUC_UNUSED)
{
    request_and_full_segments(f);
    for (int i = 0; i < 3; i++)
        send_at(f, SERVER, 300 + 600 * i, 1, ALLOWED, 1100);
    send_at(f, SERVER, 3800, 1, 300, 1100);
    send_at(f, SERVER, 3801, 1 + 4 * ALLOWED, 300, 1100);
    send_at(f, SERVER, 3802, 1 + 4 * ALLOWED + 300, 300, 1100);
    g_assert_null(td_pmtu_blackhole(&f->pmtu, SERVER));

    setup(f, NULL);
    f->hs.opts[CLIENT].present = TD_OPT_TS;
    request_and_full_segments(f);
    g_assert_true(f->pmtu.side[SERVER].off);
}

#define ADD(path, fn) g_test_add(path, fixture, NULL, setup, fn, NULL)

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    ADD("/pmtu/blackhole-near-sender", test_blackhole_near_sender);
    ADD("/pmtu/blackhole-past-the-hop", test_blackhole_past_the_hop);
    ADD("/pmtu/icmp-let-through", test_icmp_let_through);
    ADD("/pmtu/short-writes-after-a-pause", test_short_writes_after_a_pause);
    ADD("/pmtu/outage-back-to-full", test_outage_back_to_full);
    ADD("/pmtu/tiny-segments-and-unknown-mss", test_tiny_segments_and_unknown_mss);
    return g_test_run();
}
