/* Slow-start restart after idle (engine/restart.c) on hand-fed round trips: the lab's
 * restarts (a 2 MB burst after each 1.5 s pause starts again at 10 segments where 600
 * got through before), its control (each burst starts at the flight of the one
 * before), and what must not count: a pause too short, a burst too small to need more
 * rounds, a first round the receiver's window held, the first burst of a flow. */
#include <glib.h>
#include <string.h>
#include "flight.h"

#define MS 1000000LL

enum { MSS = 1448 };

typedef struct fixture {
    td_dir dir;
    td_restart r;
    td_flight_config cfg;
} fixture;

static void setup(fixture *f, gconstpointer data G_GNUC_UNUSED)
{
    memset(f, 0, sizeof *f);
    td_flight_config_defaults(&f->cfg);
    td_restart_ops.begin(&f->dir, &f->r);
}

/* A burst of round trips of 40 ms, flights in segments, after a pause (0: none). */
static void burst(fixture *f, int64_t pause_ms, const uint32_t *segments, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        f->dir.round_pause_ns = i ? 0 : pause_ms * MS;
        f->dir.round_start_frame = (uint32_t)(1000 * pause_ms + i + 1);
        td_restart_ops.on_round(&f->dir, &f->r, (uint32_t)i, segments[i] * MSS, 40 * MS, &f->cfg);
    }
}

static const uint32_t SLOW_START[] = { 10, 20, 40, 80, 160, 320, 600, 150 };
static const uint32_t KEPT[] = { 680, 700 };

static void test_restarts(fixture *f, gconstpointer data G_GNUC_UNUSED)
{
    burst(f, 1500, SLOW_START, G_N_ELEMENTS(SLOW_START));
    for (int i = 0; i < 3; i++)
        burst(f, 1500 + i, SLOW_START, G_N_ELEMENTS(SLOW_START));
    td_restart_ops.finish(&f->dir, &f->r, &f->cfg);
    g_assert_cmpuint(f->r.restarts, ==, 3);
    g_assert_cmpuint(f->r.restart_flight, ==, 10 * MSS);
    g_assert_cmpuint(f->r.restart_known, ==, 600 * MSS);
    g_assert_cmpuint(f->r.frame, ==, 1500 * 1000 + 1);
    /* 1380 segments need 3 rounds at 600: 5 rounds of 40 ms too many, per burst */
    g_assert_cmpint(f->r.cost_ns, ==, 3 * 5 * 40 * MS);
}

static void test_window_kept(fixture *f, gconstpointer data G_GNUC_UNUSED)
{
    burst(f, 1500, SLOW_START, G_N_ELEMENTS(SLOW_START));
    for (int i = 0; i < 3; i++)
        burst(f, 1500, KEPT, G_N_ELEMENTS(KEPT));
    td_restart_ops.finish(&f->dir, &f->r, &f->cfg);
    g_assert_cmpuint(f->r.restarts, ==, 0);
}

/* A first round held by the receiver's window is the receiver's doing. */
static void test_window_held(fixture *f, gconstpointer data G_GNUC_UNUSED)
{
    burst(f, 1500, SLOW_START, G_N_ELEMENTS(SLOW_START));
    f->dir.round_at_window = true;
    burst(f, 1500, SLOW_START, 1);
    f->dir.round_at_window = false;
    burst(f, 1500, SLOW_START, G_N_ELEMENTS(SLOW_START));
    td_restart_ops.finish(&f->dir, &f->r, &f->cfg);
    g_assert_cmpuint(f->r.restarts, ==, 1);
}

/* A pause shorter than any retransmission timeout, and a reply that fits in the
 * rounds it took anyway: no restart cost. */
static void test_short_pause_and_small_burst(fixture *f, gconstpointer data G_GNUC_UNUSED)
{
    static const uint32_t SMALL[] = { 8 };

    burst(f, 1500, SLOW_START, G_N_ELEMENTS(SLOW_START));
    burst(f, 150, SLOW_START, G_N_ELEMENTS(SLOW_START));
    burst(f, 1500, SMALL, G_N_ELEMENTS(SMALL));
    td_restart_ops.finish(&f->dir, &f->r, &f->cfg);
    g_assert_cmpuint(f->r.restarts, ==, 0);
}

#define ADD(path, fn) g_test_add(path, fixture, NULL, setup, fn, NULL)

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    ADD("/restart/restarts", test_restarts);
    ADD("/restart/window-kept", test_window_kept);
    ADD("/restart/window-held", test_window_held);
    ADD("/restart/short-pause-and-small-burst", test_short_pause_and_small_burst);
    return g_test_run();
}
