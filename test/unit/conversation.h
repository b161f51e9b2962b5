/* Test helper: a TCP conversation written by hand, segment by segment, fed through
 * td_engine_add as it is written: client 10.0.0.1:40000, server 10.0.0.2:80, times in
 * ms, each segment acknowledging all its peer has sent. Shared by the time budget's
 * tests and the exchanges' (request/response) diagnosis tests. */
#ifndef TCPDIAG_TEST_CONVERSATION_H
#define TCPDIAG_TEST_CONVERSATION_H

#include <glib.h>
#include <string.h>
#include "segment.h"
#include "flow.h"

#define MS 1000000LL

enum { CLIENT_ISN = 1000, SERVER_ISN = 9000, OPEN_WINDOW = 65535 };

typedef struct conv {
    td_config cfg;
    td_engine *engine;
    uint32_t frame;
    uint32_t *frames;       /* the capture's frame counter: its own, or the first
                               conversation's for one that joined it (conv_join) */
    uint32_t stream;        /* client port 40000 + stream */
    uint32_t nxt[2];        /* next sequence number, [from_client] */
    bool     numbered;      /* the server numbers its IPv4 packets one by one (Linux) */
    uint16_t server_id;     /* the next it would send */
    bool     scaled;        /* the SYNs offer MSS 1460 and window scale 0: a window the
                               flight analysis can judge (the diagnosis' tests) */
} conv;

static inline void conv_start(conv *c)
{
    memset(c, 0, sizeof *c);
    td_config_defaults(&c->cfg);
    c->engine = td_engine_new(&c->cfg);
    c->frames = &c->frame;
    c->nxt[1] = CLIENT_ISN;
    c->nxt[0] = SERVER_ISN;
}

/* A second conversation in the same capture (the first's engine and frames), as
 * stream `stream`; its segments must come in time order with the first's. */
static inline void conv_join(conv *c, conv *first, uint32_t stream)
{
    memset(c, 0, sizeof *c);
    c->engine = first->engine;
    c->frames = first->frames;
    c->stream = stream;
    c->scaled = first->scaled;
    c->nxt[1] = CLIENT_ISN;
    c->nxt[0] = SERVER_ISN;
}

/* A segment of this conversation at t_ms: `len` bytes from `seq`, acknowledging all
 * the peer has sent (with ACK set), advertising `window`. */
static inline td_record conv_segment(conv *c, bool from_client, int64_t t_ms, uint16_t flags, uint32_t seq,
                                     uint32_t len, uint16_t window)
{
    td_record rec = segment(from_client, 80, t_ms * MS, flags, seq, len);

    rec.frame = ++*c->frames;
    rec.stream = c->stream;
    if (from_client)
        rec.sport = (uint16_t)(rec.sport + c->stream);
    else
        rec.dport = (uint16_t)(rec.dport + c->stream);
    rec.ack = (flags & TD_TH_ACK) ? c->nxt[!from_client] : 0;
    rec.has_window = true;
    rec.window = window;
    return rec;
}

/* One segment at t_ms from the client or the server; it acknowledges all the peer
 * has sent, advertises `window`, and sends `len` new bytes from the sender's next. */
static inline void send_window(conv *c, bool from_client, int64_t t_ms, uint16_t flags, uint32_t len, uint16_t window)
{
    td_record rec = conv_segment(c, from_client, t_ms, flags, c->nxt[from_client], len, window);
    int sender;

    if (c->scaled && (flags & TD_TH_SYN)) {
        rec.options.present = TD_OPT_MSS | TD_OPT_WSCALE;
        rec.options.mss = 1460;
    }
    if (c->numbered && !from_client) {
        rec.has_ip_id = true;
        rec.ip_id = c->server_id++;
    }
    c->nxt[from_client] += len + ((flags & (TD_TH_SYN | TD_TH_FIN)) != 0);
    g_assert_nonnull(td_engine_add(c->engine, &rec, &sender));
}

static inline void send(conv *c, bool from_client, int64_t t_ms, uint16_t flags, uint32_t len)
{
    send_window(c, from_client, t_ms, flags, len, OPEN_WINDOW);
}

/* A segment sent again: `len` bytes from `seq`, the sender's next left alone. */
static inline void resend(conv *c, bool from_client, int64_t t_ms, uint32_t seq, uint32_t len)
{
    td_record rec = conv_segment(c, from_client, t_ms, TD_TH_ACK, seq, len, OPEN_WINDOW);
    int sender;

    g_assert_nonnull(td_engine_add(c->engine, &rec, &sender));
}

/* A SYN sent again (same ISN). */
static inline void resend_syn(conv *c, int64_t t_ms)
{
    c->nxt[1] = CLIENT_ISN;
    send(c, true, t_ms, TD_TH_SYN, 0);
}

static inline void handshake(conv *c, int64_t syn, int64_t synack, int64_t ack)
{
    send(c, true, syn, TD_TH_SYN, 0);
    send(c, false, synack, TD_TH_SYN | TD_TH_ACK, 0);
    send(c, true, ack, TD_TH_ACK, 0);
}

#endif
