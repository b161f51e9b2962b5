/* Test helper: a capture made of simulated downloads (download_sim.h) merged into
 * one engine: each simulated download becomes stream k from client port 40000 + k
 * of 10.0.0.1 to 10.0.0.2:443. Shared by the diagnosis and the host-rule tests. */
#ifndef TCPDIAG_TEST_DOWNLOADS_H
#define TCPDIAG_TEST_DOWNLOADS_H

#include <glib.h>
#include <string.h>
#include "capture.h"
#include "diagnosis.h"
#include "hosts.h"

typedef struct {
    capture c;
    unsigned streams;
    td_hosts *hosts;
    td_diagnoses *d;
} fixture;

static inline void setup(fixture *f, gconstpointer data G_GNUC_UNUSED)
{
    memset(f, 0, sizeof *f);
    capture_start(&f->c);
}

static inline void teardown(fixture *f, gconstpointer data G_GNUC_UNUSED)
{
    td_diagnoses_free(f->d);
    td_hosts_free(f->hosts);
    capture_free(&f->c);
}

/* A download that starts like test_congestion's: timestamps, client window
 * scale 7, a 4 MiB window, two rounds of 10 and 20 segments. */
static inline void start(sim *s, sim_ecn ecn)
{
    sim_start_ts(s, false, 7, 1 << 22, true);
    sim_handshake(s, ecn);
    sim_round(s, 10, false);
    sim_round(s, 20, false);
}

/* The simulated download's packets join the capture as the next stream, offset_ms
 * later, from the server 10.0.0.<server>; the sim's own engine is not used. */
static inline void take_from(fixture *f, sim *s, int64_t offset_ms, uint8_t server)
{
    uint16_t port = (uint16_t)(40000 + f->streams);

    sim_pause(s, 0);                /* the last round's ACKs */
    for (guint i = 0; i < s->packets->len; i++) {
        td_record rec = g_array_index(s->packets, td_record, i);
        rec.stream = f->streams;
        rec.time_ns += offset_ms * MS;
        if (rec.sport == 40000) {
            rec.sport = port;
            rec.dst.bytes[3] = server;
        } else {
            rec.dport = port;
            rec.src.bytes[3] = server;
        }
        capture_add(&f->c, rec);
    }
    f->streams++;
    g_array_free(s->packets, TRUE);
    td_engine_free(s->engine);
}

static inline void take(fixture *f, sim *s, int64_t offset_ms)
{
    take_from(f, s, offset_ms, 2);
}

/* The congestion window opening all along (nothing else holds the flight):
 * 2 + 29 rounds, 30 + (40 + 42 + ... + 96) = 2002 segments. */
enum { HEALTHY_SEGMENTS = 2002 };

static inline void healthy_from(fixture *f, int64_t offset_ms, uint8_t server, sim_ecn ecn)
{
    sim s;
    start(&s, ecn);
    for (unsigned i = 0; i < 29; i++)
        sim_round(&s, 40 + 2 * i, false);
    take_from(f, &s, offset_ms, server);
}

static inline void healthy(fixture *f, int64_t offset_ms)
{
    healthy_from(f, offset_ms, 2, SIM_NO_ECN);
}

/* test_congestion's collapse: an ECN flow cut on every echo down to 2 segments
 * for 20 rounds; 2 + 9 + 20 rounds, 30 + 131 + 40 = 201 segments. */
static inline void collapsed(fixture *f)
{
    static const unsigned spiral[] = { 40, 28, 20, 14, 10, 7, 5, 4, 3 };
    sim s;
    start(&s, SIM_CLASSIC);
    for (unsigned i = 0; i < G_N_ELEMENTS(spiral); i++)
        sim_round_marked(&s, spiral[i], false, 1);
    for (int i = 0; i < 20; i++)
        sim_round_marked(&s, 2, false, 1);
    take(f, &s, 0);
}

#endif
