/* Test helper: a simulated download, packet by packet, captured at the sender
 * or at the receiver; optionally with ECN (classic or AccECN feedback) and CE
 * marks on the path. */
#ifndef TCPDIAG_TEST_DOWNLOAD_SIM_H
#define TCPDIAG_TEST_DOWNLOAD_SIM_H

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
    uint16_t ecn_flags;         /* ECE, or the ACE field */
} client_ack;

typedef enum sim_ecn { SIM_NO_ECN, SIM_CLASSIC, SIM_ACCECN } sim_ecn;

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
    sim_ecn ecn;
    unsigned ce_received;       /* CE marks the client has counted */
    bool echoing;               /* classic: the client sets ECE until it gets CWR */
    bool cwr_next;              /* the server's next segment carries CWR */
    uint32_t cwr_until;         /* and it answers no echo before this is acknowledged */
} sim;

static inline void packet(sim *s, bool from_client, int64_t t, uint16_t flags, uint32_t seq, uint32_t ack,
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
static inline int64_t seen_data(const sim *s, int64_t server_t)
{
    return s->at_receiver ? server_t + RTT_MS * MS / 2 + s->queue : server_t;
}

static inline int64_t seen_ack(const sim *s, int64_t server_t)
{
    return s->at_receiver ? server_t - RTT_MS * MS / 2 : server_t;
}

/* 1 ms timestamp clocks: the client's runs on its send time. */
static inline uint32_t client_tsval(int64_t arrives)
{
    return (uint32_t)((arrives - RTT_MS * MS / 2) / MS) + 1000;
}

static inline void client_acks(sim *s, int64_t server_t, uint32_t ack, uint16_t ecn_flags)
{
    packet(s, true, seen_ack(s, server_t), TD_TH_ACK | ecn_flags, 101, ack, 0, client_tsval(server_t));
    s->echo = client_tsval(server_t);
    if (s->ecn == SIM_CLASSIC && (ecn_flags & TD_TH_ECE) && (int32_t)(ack - s->cwr_until) > 0) {
        s->cwr_next = true;     /* one answer per window of data */
        s->cwr_until = s->nxt;
    }
}

/* The ACE field (RFC 9768): the client's CE counter, starting at 5, mod 8. */
static inline uint16_t ace_flags(unsigned ce_received)
{
    unsigned ace = (5 + ce_received) & 7;
    return (uint16_t)(((ace & 4) ? TD_TH_AE : 0) | ((ace & 2) ? TD_TH_CWR : 0) | ((ace & 1) ? TD_TH_ECE : 0));
}

static inline void sim_start_ts(sim *s, bool at_receiver, int client_wscale, uint32_t window, bool timestamps)
{
    memset(s, 0, sizeof *s);
    s->timestamps = timestamps;
    td_config_defaults(&s->cfg);
    s->engine = td_engine_new(&s->cfg);
    s->packets = g_array_new(FALSE, FALSE, sizeof(td_record));
    s->at_receiver = at_receiver;
    s->client_wscale = client_wscale;
    s->window = window;
    s->nxt = SERVER_ISN + 1;
}

/* SYN reaches the server at 0, SYN-ACK leaves at 0.1 ms, the ACK arrives one RTT later. */
static inline void sim_handshake(sim *s, sim_ecn ecn)
{
    static const uint16_t syn[] = { 0, TD_TH_ECE | TD_TH_CWR, TD_TH_AE | TD_TH_ECE | TD_TH_CWR };
    static const uint16_t synack[] = { 0, TD_TH_ECE, TD_TH_CWR };    /* AccECN: (0,1,0), RFC 9768 */

    s->ecn = ecn;
    packet(s, true, seen_ack(s, 0), TD_TH_SYN | syn[ecn], 100, 0, 0, client_tsval(0));
    packet(s, false, seen_data(s, 100 * US), TD_TH_SYN | TD_TH_ACK | synack[ecn], SERVER_ISN, 101, 0, 9000);
    s->now = 100 * US + RTT_MS * MS;
    client_acks(s, s->now, SERVER_ISN + 1, ecn == SIM_ACCECN ? TD_TH_AE : 0);
}

static inline void sim_start(sim *s, bool at_receiver, int client_wscale, uint32_t window)
{
    sim_start_ts(s, at_receiver, client_wscale, window, false);
    sim_handshake(s, SIM_NO_ECN);
}

/* One data segment; `marked`: a router on the way sets CE (the capture shows it
 * only at the receiver), and the client's ACKs echo it. */
static inline void send_segment(sim *s, int64_t t, uint32_t seq, bool acked_at_once, bool marked, client_ack *acks,
                         unsigned *nacks)
{
    uint16_t flags = TD_TH_ACK | (s->cwr_next ? TD_TH_CWR : 0);
    td_record *rec;

    s->cwr_next = false;
    packet(s, false, seen_data(s, t), flags, seq, 101, MSS, (uint32_t)(t / MS) + 9000);
    rec = &g_array_index(s->packets, td_record, s->packets->len - 1);
    rec->has_ip_ecn = s->ecn != SIM_NO_ECN;
    rec->ip_ecn = marked && s->at_receiver ? TD_CE : TD_ECT0;
    s->ce_received += marked;
    s->echoing = marked || (s->echoing && !(flags & TD_TH_CWR));
    if (acked_at_once && *nacks < MAX_ACKS) {
        int64_t arrives = t + RTT_MS * MS + s->queue;
        uint16_t ecn_flags = s->ecn == SIM_ACCECN ? ace_flags(s->ce_received)
                             : s->ecn == SIM_CLASSIC && s->echoing ? TD_TH_ECE : 0;
        acks[(*nacks)++] = (client_ack){ arrives, seq + MSS, client_tsval(arrives), ecn_flags };
    }
}

/* One round: each ACK of the last round arrives and releases two segments
 * within microseconds; a retransmission of an earlier segment goes first if
 * asked; the first `marks` segments are CE-marked on the way. */
static inline void sim_round_marked(sim *s, unsigned segments, bool retransmit, unsigned marks)
{
    client_ack next[MAX_ACKS];
    unsigned nnext = 0, sent = 0;
    int64_t t = s->now;

    if (retransmit)
        send_segment(s, t += 5 * US, s->nxt - 3 * MSS, false, false, next, &nnext);
    for (unsigned j = 0; j < s->nacks; j++) {
        t = MAX(t, s->acks[j].arrives);
        client_acks(s, s->acks[j].arrives, s->acks[j].ack, s->acks[j].ecn_flags);
        for (int k = 0; k < 2 && sent < segments; k++, sent++, s->nxt += MSS)
            send_segment(s, t += 5 * US, s->nxt, sent % 2 || sent + 1 == segments, sent < marks, next, &nnext);
    }
    for (; sent < segments; sent++, s->nxt += MSS)
        send_segment(s, t += 10 * US, s->nxt, sent % 2 || sent + 1 == segments, sent < marks, next, &nnext);
    memcpy(s->acks, next, nnext * sizeof next[0]);
    s->nacks = nnext;
    s->now = t + 10 * US;
}

static inline void sim_round(sim *s, unsigned segments, bool retransmit)
{
    sim_round_marked(s, segments, retransmit, 0);
}

/* The last round's ACKs arrive and the server sends nothing for `ms`. */
static inline void sim_pause(sim *s, int64_t ms)
{
    for (unsigned j = 0; j < s->nacks; j++) {
        client_acks(s, s->acks[j].arrives, s->acks[j].ack, s->acks[j].ecn_flags);
        s->now = MAX(s->now, s->acks[j].arrives);
    }
    s->nacks = 0;
    s->now += ms * MS;
}

static inline gint by_capture_time(gconstpointer a, gconstpointer b)
{
    const td_record *x = a, *y = b;
    if (x->time_ns != y->time_ns)
        return x->time_ns < y->time_ns ? -1 : 1;
    return x->frame < y->frame ? -1 : x->frame > y->frame;
}

static inline void sim_finish(sim *s)
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

static inline const td_flight *server_flight(const sim *s)
{
    return td_flow_flight(s->flow, td_flow_server(s->flow));
}


#endif
