/* Host-wide stalls: per host its silences, per flow the silences it waited through,
 * paired once the capture is read. */
#include "stall.h"

#include <string.h>

#include "addr.h"

/* Bounds per host, whatever the capture holds: silences of the whole host are
 * rare (each lasts at least the threshold), waits at most a few per flow. */
enum { MAX_GAPS_PER_HOST = 64, MAX_WAITS_PER_HOST = 65536 };

typedef struct host_gap {
    int64_t  start_ns, end_ns;
    uint32_t last_frame, resume_frame;
} host_gap;

typedef struct flow_wait {
    uint32_t flow, end_frame;
    int64_t  start_ns, end_ns;
    bool     on_connection;     /* the host held the flow's connection (not only a SYN owed) */
} flow_wait;

typedef struct td_host_silence {
    td_addr  addr;
    bool     sent;
    int64_t  last_sent_ns;
    uint32_t last_frame;
    GArray  *gaps;          /* host_gap, from the first one */
    GArray  *waits;         /* flow_wait, from the first one */
} host_state;

struct td_stalls {
    td_stall_config cfg;
    td_flow_span_fn flow_span;      /* set by td_stalls_finish */
    const void *flow_span_ctx;
    GHashTable *hosts;      /* td_addr* (the host's own) → host_state* */
    GArray *stalls;         /* td_stall, settled by td_stalls_finish */
    GHashTable *hits;       /* flow index → td_stall_hit* */
    GHashTable *by_resume;  /* resume frame → stall index + 1: a frame ends one stall at most */
    uint64_t dropped;
};

void td_stall_config_defaults(td_stall_config *cfg)
{
    cfg->min_ms = 2000;
    cfg->min_flows = 2;
}

void td_silence_init(td_silence silence[2])
{
    for (int i = 0; i < 2; i++) {
        memset(&silence[i], 0, sizeof silence[i]);
        silence[i].owed_since_ns = -1;
    }
}

static void host_free(gpointer data)
{
    host_state *h = data;
    if (h->gaps)
        g_array_free(h->gaps, TRUE);
    if (h->waits)
        g_array_free(h->waits, TRUE);
    g_free(h);
}

td_stalls *td_stalls_new(const td_stall_config *cfg)
{
    td_stalls *s = g_new0(td_stalls, 1);
    s->cfg = *cfg;
    s->hosts = g_hash_table_new_full(td_addr_hash, td_addr_equal, NULL, host_free);
    s->stalls = g_array_new(FALSE, FALSE, sizeof(td_stall));
    s->hits = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
    s->by_resume = g_hash_table_new(g_direct_hash, g_direct_equal);
    return s;
}

void td_stalls_free(td_stalls *s)
{
    if (!s)
        return;
    g_hash_table_destroy(s->hosts);
    g_array_free(s->stalls, TRUE);
    g_hash_table_destroy(s->hits);
    g_hash_table_destroy(s->by_resume);
    g_free(s);
}

/* A host that has only sent SYNs (a client dialling, or a SYN flood's forged
 * sources) gets no state: only a host in an exchange can leave flows waiting. */
static host_state *host_of(td_stalls *s, td_silence *me, const td_record *rec)
{
    host_state *h = me->host;

    if (h)
        return h;
    h = g_hash_table_lookup(s->hosts, &rec->src);
    if (!h && (rec->tcp_flags & (TD_TH_SYN | TD_TH_ACK)) != TD_TH_SYN) {
        h = g_new0(host_state, 1);
        h->addr = rec->src;
        g_hash_table_insert(s->hosts, &h->addr, h);
    }
    me->host = h;
    return h;
}

static void append_bounded(td_stalls *s, GArray **array, size_t element, guint max, const void *value)
{
    if (!*array)
        *array = g_array_new(FALSE, FALSE, (guint)element);
    if ((*array)->len >= max)
        s->dropped++;
    else
        g_array_append_vals(*array, value, 1);
}

/* Payload the capture saw leave before: a sender that sends it again after a silence
 * waited on its peer's acknowledgement (a timeout's backoff), not the peer on it. A
 * host that stalled sends its transfer on with data the capture has not seen. */
static bool resends(const td_silence *me, const td_record *rec)
{
    return rec->payload_len && me->sent_any_data && !td_seq_after(rec->seq + rec->payload_len, me->data_end);
}

/* When did this flow start waiting on the sender of rec, if it did: since the
 * peer asked something (payload, SYN, FIN) the sender had not answered, or, when
 * the sender of the flow's transfer (it has sent at least as much payload as its
 * peer) goes on with it unasked, since its last packet. A client asking again
 * while its request is unanswered is not a transfer going on. */
static int64_t waited_since(const td_silence *me, const td_record *rec, uint64_t sent, uint64_t received)
{
    if (me->owed_since_ns >= 0)
        return me->owed_since_ns;
    if (me->sent_data && sent >= received && (rec->payload_len || (rec->tcp_flags & TD_TH_FIN)) && !resends(me, rec))
        return me->last_sent_ns;
    return -1;
}

/* The flow's side of a packet: who has spoken, and who owes an answer since when. */
static void note_sent(td_silence *me, td_silence *peer, const td_record *rec)
{
    int64_t t = rec->time_ns;

    /* Any packet shows the sender alive; capture times can go backwards. */
    if (!me->sent_any || t > me->last_sent_ns)
        me->last_sent_ns = t;
    me->sent_any = true;
    me->owed_since_ns = -1;
    me->owes_synack = false;
    if (!(rec->tcp_flags & TD_TH_SYN))
        me->past_syn = true;
    /* Payload answers the peer's: the peer's turn is over, and its next payload
     * after a silence starts a new exchange (a request on a kept-alive
     * connection), not its transfer going on. */
    if (rec->payload_len) {
        uint32_t end = rec->seq + rec->payload_len;
        if (!me->sent_any_data || td_seq_after(end, me->data_end))
            me->data_end = end;
        me->sent_any_data = true;
        me->sent_data = true;
        peer->sent_data = false;
    }
    if ((rec->payload_len || (rec->tcp_flags & (TD_TH_SYN | TD_TH_FIN))) && peer->owed_since_ns < 0) {
        peer->owed_since_ns = t;
        peer->owes_synack = (rec->tcp_flags & (TD_TH_SYN | TD_TH_ACK)) == TD_TH_SYN;
    }
}

/* A wait that began inside the host's latest silence and lasted to its end (or
 * beyond): the flow asked while the host was silent and got no answer before the
 * host came back. Shorter than the threshold, it is judged against the flow's life
 * once the capture has been read (judge_gap). */
static bool asked_inside_last_gap(const host_state *h, int64_t since, int64_t t)
{
    const host_gap *g;

    if (!h->gaps || !h->gaps->len)
        return false;
    g = &g_array_index(h->gaps, host_gap, h->gaps->len - 1);
    return since > g->start_ns && since < g->end_ns && t >= g->end_ns;
}

/* A flow waits on the host itself once the capture shows the host holding its
 * connection (a packet without SYN), or when the host owes a SYN its SYN-ACK. A host
 * that has answered only with SYN-ACKs may hold no connection at all (a SYN cookie,
 * an accept queue full): the client's request then waits on the listener, which
 * drops it while the host serves its other flows; that is no host stall. Nor is a
 * request on a flow captured mid-way that the host never spoke on. */
static bool waits_on_host(const td_silence *host)
{
    return host->past_syn || host->owes_synack;
}

void td_stalls_packet(td_stalls *s, td_silence silence[2], uint32_t flow_index, int sender,
                      const td_record *rec, uint64_t sent, uint64_t received)
{
    td_silence lone[2];

    if (!silence) {
        td_silence_init(lone);
        silence = lone;
    }
    td_silence *me = &silence[sender], *peer = &silence[1 - sender];
    int64_t t = rec->time_ns, min_ns = (int64_t)s->cfg.min_ms * 1000000;
    host_state *h = host_of(s, me, rec);
    int64_t since = waited_since(me, rec, sent, received);

    if (h) {
        /* The gap first: the packet that ends the host's silence may also end a wait
         * that began inside it. */
        if (h->sent && t - h->last_sent_ns >= min_ns) {
            host_gap g = { h->last_sent_ns, t, h->last_frame, rec->frame };
            append_bounded(s, &h->gaps, sizeof g, MAX_GAPS_PER_HOST, &g);
        }
        if (!h->sent || t > h->last_sent_ns) {
            h->last_sent_ns = t;
            h->last_frame = rec->frame;
        }
        h->sent = true;
        if (since >= 0 && waits_on_host(me) && (t - since >= min_ns || asked_inside_last_gap(h, since, t))) {
            flow_wait w = { flow_index, rec->frame, since, t, me->past_syn };
            append_bounded(s, &h->waits, sizeof w, MAX_WAITS_PER_HOST, &w);
        }
    }
    note_sent(me, peer, rec);
}

void td_silence_after_lone_syn(td_silence silence[2], int sender, int64_t t_ns)
{
    td_record syn = { .time_ns = t_ns, .tcp_flags = TD_TH_SYN };

    td_silence_init(silence);
    note_sent(&silence[sender], &silence[1 - sender], &syn);
}

static int64_t overlap(int64_t a0, int64_t a1, int64_t b0, int64_t b1)
{
    int64_t from = MAX(a0, b0), to = MIN(a1, b1);
    return to > from ? to - from : 0;
}

static void note_hit(td_stalls *s, const flow_wait *w, uint32_t stall)
{
    td_stall_hit *hit = g_hash_table_lookup(s->hits, GUINT_TO_POINTER(w->flow));

    if (!hit) {
        hit = g_new(td_stall_hit, 1);
        g_hash_table_insert(s->hits, GUINT_TO_POINTER(w->flow), hit);
    } else if (hit->wait_end_ns - hit->wait_start_ns >= w->end_ns - w->start_ns) {
        return;
    }
    hit->stall = stall;
    hit->resume_frame = w->end_frame;
    hit->wait_start_ns = w->start_ns;
    hit->wait_end_ns = w->end_ns;
}

bool td_stall_open_at_end(int64_t end_ns, int64_t first_ns, int64_t last_ns)
{
    return first_ns < end_ns && last_ns >= end_ns;
}

/* The flow was open when the host came back: true of every waiting flow but in a
 * capture whose clock stepped back across the silence's end. */
static bool open_at_end(const td_stalls *s, const flow_wait *w, const host_gap *g)
{
    int64_t first, last;

    s->flow_span(w->flow, s->flow_span_ctx, &first, &last);
    return td_stall_open_at_end(g->end_ns, first, last);
}

/* A flow that asked inside the silence and waited for the rest of it: the stall
 * held it when that wait is at least half of the flow's life (without the stall it
 * would have taken at most half as long). A SYN answered the moment the host came
 * back, on a long transfer, was barely held. */
static bool held_from_inside(const td_stalls *s, const flow_wait *w, const host_gap *g)
{
    int64_t first, last;

    if (w->start_ns <= g->start_ns || w->start_ns >= g->end_ns || w->end_ns < g->end_ns)
        return false;
    s->flow_span(w->flow, s->flow_span_ctx, &first, &last);
    return 2 * (w->end_ns - w->start_ns) >= last - first;
}

/* The flows the silence g of h left waiting: the waits that span at least the
 * threshold of it make the stall (at least min_flows flows, one of them on a
 * connection the host held); then a flow that asked inside it and was held for the
 * rest of it waited in it too. SYNs alone left unanswered are a listener's drops as
 * much as a host's silence (a full listen queue: captures/lab/next's tb-accept-slow,
 * whose last clients' SYNs met 6 s of the server's silence once it had served the
 * others; a firewall on the port; a server down): handshake-retry names those, with
 * their fixes. A host that stopped shows on a connection it held. */
static void judge_gap(td_stalls *s, const host_state *h, const host_gap *g)
{
    int64_t need = MIN((int64_t)s->cfg.min_ms * 1000000, g->end_ns - g->start_ns);
    GHashTable *flows = g_hash_table_new(g_direct_hash, g_direct_equal);
    GPtrArray *hitting = g_ptr_array_new();
    bool on_connection = false;
    td_stall stall;

    for (guint i = 0; i < h->waits->len; i++) {
        const flow_wait *w = &g_array_index(h->waits, flow_wait, i);
        if (overlap(w->start_ns, w->end_ns, g->start_ns, g->end_ns) >= need && open_at_end(s, w, g)) {
            g_hash_table_add(flows, GUINT_TO_POINTER(w->flow));
            g_ptr_array_add(hitting, (gpointer)w);
            on_connection |= w->on_connection;
        }
    }
    if (on_connection && g_hash_table_size(flows) >= MAX(s->cfg.min_flows, 1)) {
        for (guint i = 0; i < h->waits->len; i++) {
            const flow_wait *w = &g_array_index(h->waits, flow_wait, i);
            if (!g_hash_table_contains(flows, GUINT_TO_POINTER(w->flow)) && held_from_inside(s, w, g) &&
                open_at_end(s, w, g)) {
                g_hash_table_add(flows, GUINT_TO_POINTER(w->flow));
                g_ptr_array_add(hitting, (gpointer)w);
            }
        }
        stall.host = h->addr;
        stall.start_ns = g->start_ns;
        stall.end_ns = g->end_ns;
        stall.last_frame = g->last_frame;
        stall.resume_frame = g->resume_frame;
        stall.flows_hit = g_hash_table_size(flows);
        g_array_append_val(s->stalls, stall);
        g_hash_table_insert(s->by_resume, GUINT_TO_POINTER(g->resume_frame), GUINT_TO_POINTER(s->stalls->len));
        for (guint i = 0; i < hitting->len; i++)
            note_hit(s, g_ptr_array_index(hitting, i), s->stalls->len - 1);
    }
    g_ptr_array_free(hitting, TRUE);
    g_hash_table_destroy(flows);
}

typedef struct host_gap_ref {
    const host_state *host;
    const host_gap *gap;
} host_gap_ref;

/* Stalls are numbered by time (then by address, for equal times), not by hash order. */
static int compare_gap_refs(const void *a, const void *b)
{
    const host_gap_ref *x = a, *y = b;
    if (x->gap->start_ns != y->gap->start_ns)
        return (x->gap->start_ns > y->gap->start_ns) - (x->gap->start_ns < y->gap->start_ns);
    if (x->host->addr.len != y->host->addr.len)
        return x->host->addr.len - y->host->addr.len;
    return memcmp(x->host->addr.bytes, y->host->addr.bytes, x->host->addr.len);
}

void td_stalls_finish(td_stalls *s, td_flow_span_fn flow_span, const void *ctx)
{
    GArray *refs = g_array_new(FALSE, FALSE, sizeof(host_gap_ref));
    GHashTableIter iter;
    gpointer value;

    s->flow_span = flow_span;
    s->flow_span_ctx = ctx;
    g_array_set_size(s->stalls, 0);
    g_hash_table_remove_all(s->hits);
    g_hash_table_remove_all(s->by_resume);
    g_hash_table_iter_init(&iter, s->hosts);
    while (g_hash_table_iter_next(&iter, NULL, &value)) {
        const host_state *h = value;
        if (!h->gaps || !h->waits || h->waits->len < s->cfg.min_flows)
            continue;
        for (guint i = 0; i < h->gaps->len; i++) {
            host_gap_ref ref = { h, &g_array_index(h->gaps, host_gap, i) };
            g_array_append_val(refs, ref);
        }
    }
    g_array_sort(refs, compare_gap_refs);
    for (guint i = 0; i < refs->len; i++) {
        const host_gap_ref *ref = &g_array_index(refs, host_gap_ref, i);
        judge_gap(s, ref->host, ref->gap);
    }
    g_array_free(refs, TRUE);
}

guint td_stalls_count(const td_stalls *s)
{
    return s->stalls->len;
}

const td_stall *td_stalls_at(const td_stalls *s, guint index)
{
    return index < s->stalls->len ? &g_array_index(s->stalls, td_stall, index) : NULL;
}

const td_stall_hit *td_stalls_hit(const td_stalls *s, uint32_t flow_index)
{
    return g_hash_table_lookup(s->hits, GUINT_TO_POINTER(flow_index));
}

int td_stalls_resumed_at(const td_stalls *s, uint32_t frame)
{
    return (int)GPOINTER_TO_UINT(g_hash_table_lookup(s->by_resume, GUINT_TO_POINTER(frame))) - 1;
}

uint64_t td_stalls_dropped(const td_stalls *s)
{
    return s->dropped;
}
