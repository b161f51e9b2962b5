/* Test helper: records of several flows, collected in any order, then fed to one
 * engine as Wireshark reads a file (in capture order, frames numbered from 1)
 * and finished. The records stay available to look up frame numbers. */
#ifndef TCPDIAG_TEST_CAPTURE_H
#define TCPDIAG_TEST_CAPTURE_H

#include <glib.h>
#include "download_sim.h"

typedef struct capture {
    td_config cfg;              /* tests change it before capture_run */
    td_engine *engine;
    GArray *packets;            /* td_record */
} capture;

static inline void capture_start(capture *c)
{
    td_config_defaults(&c->cfg);
    c->engine = NULL;
    c->packets = g_array_new(FALSE, FALSE, sizeof(td_record));
}

/* Returns the stored copy, for a test to adjust. */
static inline td_record *capture_add(capture *c, td_record rec)
{
    rec.frame = c->packets->len;    /* creation order breaks ties in time */
    g_array_append_val(c->packets, rec);
    return &g_array_index(c->packets, td_record, c->packets->len - 1);
}

/* in_time_order false: the file order is the order of capture_add, whatever the
 * timestamps say (a capture whose clock steps back). */
static inline void capture_run(capture *c, bool in_time_order)
{
    int sender;

    c->engine = td_engine_new(&c->cfg);
    if (in_time_order)
        g_array_sort(c->packets, by_capture_time);
    for (guint i = 0; i < c->packets->len; i++) {
        td_record *rec = &g_array_index(c->packets, td_record, i);
        rec->frame = i + 1;
        td_engine_add(c->engine, rec, &sender);
    }
    td_engine_finish(c->engine);
}

/* The frame of the packet `src` sent at t_ns (0 when none). */
static inline uint32_t capture_frame(const capture *c, const td_addr *src, int64_t t_ns)
{
    for (guint i = 0; i < c->packets->len; i++) {
        const td_record *rec = &g_array_index(c->packets, td_record, i);
        if (rec->time_ns == t_ns && rec->src.len == src->len && !memcmp(rec->src.bytes, src->bytes, src->len))
            return rec->frame;
    }
    return 0;
}

static inline void capture_free(capture *c)
{
    td_engine_free(c->engine);
    g_array_free(c->packets, TRUE);
}

#endif
