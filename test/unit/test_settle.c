/* The settle rule (engine/settle.c) on hand-written conversations: a closed flow settles
 * once the capture's clock has passed its last packet by the window, not before; a flow
 * that never closes settles after the idle timeout; flows still open settle at the end;
 * a packet that comes after its flow settled is counted, not analysed; and the end keeps
 * the diagnosis a flow was given when it settled. */
#include <glib.h>
#include <string.h>
#include "conversation.h"
#include "settle.h"

typedef struct fixture {
    conv a, b;                  /* streams 0 and 1 of one capture */
    td_hosts_config hosts_cfg;
    td_settler *settler;
    int64_t clock_ms;           /* the time of the last packet fed */
    int64_t settled_at_ms[2];   /* the clock when each stream settled early, -1 never */
    td_diagnosis given[2];
} fixture;

static void on_settled(const td_diagnoses *d, const td_hosts *hosts G_GNUC_UNUSED, const td_flow *flow, void *ctx)
{
    fixture *f = ctx;

    g_assert_cmpuint(flow->stream, <, 2);
    g_assert_cmpint(f->settled_at_ms[flow->stream], ==, -1);   /* once */
    g_assert_true(flow->settled);
    f->settled_at_ms[flow->stream] = f->clock_ms;
    f->given[flow->stream] = *td_diagnosis_of(d, flow);
}

static void setup(fixture *f, gconstpointer data G_GNUC_UNUSED)
{
    memset(f, 0, sizeof *f);
    conv_start(&f->a);
    conv_join(&f->b, &f->a, 1);
    f->a.cfg.settle.window_s = 2;
    f->a.cfg.settle.idle_s = 10;
    td_hosts_config_defaults(&f->hosts_cfg);
    f->settler = td_settler_new(f->a.engine, &f->hosts_cfg, on_settled, f);
    f->settled_at_ms[0] = f->settled_at_ms[1] = -1;
}

static void teardown(fixture *f, gconstpointer data G_GNUC_UNUSED)
{
    td_settler_free(f->settler);
    td_engine_free(f->a.engine);
}

/* A segment of stream c at t_ms, then the capture's clock. */
static void feed(fixture *f, conv *c, bool from_client, int64_t t_ms, uint16_t flags, uint32_t len)
{
    send(c, from_client, t_ms, flags, len);
    f->clock_ms = t_ms;
    td_settler_clock(f->settler, t_ms * MS);
}

/* Stream 0: a request and a 10-segment reply in its first 100 ms, closed by FINs
 * both ways when close is true, else left open. */
static void short_exchange(fixture *f, bool close)
{
    handshake(&f->a, 0, 10, 20);
    f->clock_ms = 20;
    td_settler_clock(f->settler, 20 * MS);
    feed(f, &f->a, true, 21, TD_TH_ACK | TD_TH_PSH, 100);
    for (int i = 0; i < 10; i++)
        feed(f, &f->a, false, 40 + i, TD_TH_ACK, 1448);
    feed(f, &f->a, true, 60, TD_TH_ACK, 0);
    if (!close)
        return;
    feed(f, &f->a, false, 90, TD_TH_ACK | TD_TH_FIN, 0);
    feed(f, &f->a, true, 100, TD_TH_ACK | TD_TH_FIN, 0);
    feed(f, &f->a, false, 110, TD_TH_ACK, 0);
}

/* Stream 1 from 500 ms: a segment each way every 250 ms until until_ms, never closed:
 * it moves the clock on. */
static void keep_busy(fixture *f, int64_t until_ms)
{
    handshake(&f->b, 500, 510, 520);
    for (int64_t t = 750; t <= until_ms; t += 250) {
        feed(f, &f->b, false, t, TD_TH_ACK | TD_TH_PSH, 100);
        feed(f, &f->b, true, t + 10, TD_TH_ACK, 0);
    }
}

static void test_closed_flow_settles_after_the_window(fixture *f, gconstpointer data G_GNUC_UNUSED)
{
    td_hosts *hosts;
    td_diagnoses *d;

    short_exchange(f, true);
    keep_busy(f, 5000);
    /* its last packet at 110 ms, the window 2 s, points every 500 ms */
    g_assert_cmpint(f->settled_at_ms[0], >=, 2110);
    g_assert_cmpint(f->settled_at_ms[0], <=, 2110 + 500 + 260);
    g_assert_cmpint(f->settled_at_ms[1], ==, -1);
    td_settler_finish(f->settler, &hosts, &d);
    g_assert_true(td_settler_settled_early(f->settler, td_engine_flow_at(f->a.engine, 0)));
    g_assert_false(td_settler_settled_early(f->settler, td_engine_flow_at(f->a.engine, 1)));
    /* the end keeps what the flow was given when it settled */
    g_assert_true(memcmp(td_diagnosis_of(d, td_engine_flow_at(f->a.engine, 0)), &f->given[0], sizeof f->given[0]) == 0);
    g_assert_nonnull(td_diagnosis_of(d, td_engine_flow_at(f->a.engine, 1)));
    td_diagnoses_free(d);
    td_hosts_free(hosts);
}

static void test_open_flow_settles_after_the_idle_timeout(fixture *f, gconstpointer data G_GNUC_UNUSED)
{
    td_hosts *hosts;
    td_diagnoses *d;

    short_exchange(f, false);
    keep_busy(f, 9000);
    g_assert_cmpint(f->settled_at_ms[0], ==, -1);   /* silent 8.9 s of the 10 */
    keep_busy(f, 13000);
    g_assert_cmpint(f->settled_at_ms[0], >=, 10060);
    g_assert_cmpint(f->settled_at_ms[0], <=, 10060 + 500 + 260);
    td_settler_finish(f->settler, &hosts, &d);
    td_diagnoses_free(d);
    td_hosts_free(hosts);
}

/* A segment for a flow that settled is counted and left out: the record given holds. */
static void test_late_segment_is_counted(fixture *f, gconstpointer data G_GNUC_UNUSED)
{
    td_record late;
    int sender;
    uint32_t packets;

    short_exchange(f, true);
    keep_busy(f, 3000);
    g_assert_cmpint(f->settled_at_ms[0], >, 0);
    packets = td_engine_flow_at(f->a.engine, 0)->packets;
    late = conv_segment(&f->a, false, 3100, TD_TH_ACK | TD_TH_FIN, f->a.nxt[0] - 1, 0, OPEN_WINDOW);
    g_assert_null(td_engine_add(f->a.engine, &late, &sender));
    g_assert_cmpuint(td_engine_late(f->a.engine), ==, 1);
    g_assert_cmpuint(td_engine_flow_at(f->a.engine, 0)->packets, ==, packets);
}

/* Without a later packet the clock does not move: a flow settles at the end. */
static void test_everything_settles_at_the_end(fixture *f, gconstpointer data G_GNUC_UNUSED)
{
    td_hosts *hosts;
    td_diagnoses *d;

    short_exchange(f, true);
    td_settler_finish(f->settler, &hosts, &d);
    g_assert_cmpint(f->settled_at_ms[0], ==, -1);
    g_assert_false(td_settler_settled_early(f->settler, td_engine_flow_at(f->a.engine, 0)));
    g_assert_true(td_engine_flow_at(f->a.engine, 0)->settled);
    g_assert_nonnull(td_diagnosis_of(d, td_engine_flow_at(f->a.engine, 0)));
    td_diagnoses_free(d);
    td_hosts_free(hosts);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add("/settle/closed-flow-after-the-window", fixture, NULL, setup,
               test_closed_flow_settles_after_the_window, teardown);
    g_test_add("/settle/open-flow-after-the-idle-timeout", fixture, NULL, setup,
               test_open_flow_settles_after_the_idle_timeout, teardown);
    g_test_add("/settle/late-segment-counted", fixture, NULL, setup, test_late_segment_is_counted, teardown);
    g_test_add("/settle/everything-at-the-end", fixture, NULL, setup, test_everything_settles_at_the_end, teardown);
    return g_test_run();
}
