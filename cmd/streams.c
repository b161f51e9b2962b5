/* One entry per conversation, keyed by its two endpoints in a canonical order;
 * port reuse replaces the entry, as Wireshark's newer conversation shadows the
 * older one for every later frame. */
#include "streams.h"

#include <glib.h>
#include <string.h>

typedef struct endpoint {
    td_addr  addr;
    uint16_t port;
} endpoint;

typedef struct conversation {
    endpoint ends[2];           /* the key: ends[0] sorts first */
    uint32_t stream;
    uint32_t base_seq[2];       /* by sending endpoint (index into ends) */
    bool     base_set[2];
    bool     closed;            /* a FIN or RST was seen, quoted ones too */
} conversation;

struct td_streams {
    td_stream_rules rules;
    GHashTable *by_ends;        /* conversation* (key and value), owned */
    uint32_t next;
};

/* The address as 32-bit words (one for IPv4, four for IPv6), read once per
 * packet: hashing and comparing words costs a fraction of byte-wise memcmp calls,
 * which showed in the profile at a few million packets a second. */
static unsigned words_of(const td_addr *a, uint32_t w[4])
{
    unsigned n = a->len / 4;
    memcpy(w, a->bytes, (size_t)n * 4);
    return n;
}

static int endpoint_cmp(const endpoint *a, const endpoint *b)
{
    uint32_t x[4], y[4];
    unsigned n;

    if (a->addr.len != b->addr.len)
        return a->addr.len < b->addr.len ? -1 : 1;
    n = words_of(&a->addr, x);
    words_of(&b->addr, y);
    for (unsigned i = 0; i < n; i++)
        if (x[i] != y[i])
            return x[i] < y[i] ? -1 : 1;    /* any total order will do: it only picks ends[0] */
    return a->port == b->port ? 0 : a->port < b->port ? -1 : 1;
}

static guint conversation_hash(gconstpointer key)
{
    const conversation *c = key;
    guint h = (guint)c->ends[0].port << 16 | c->ends[1].port;
    uint32_t w[4];

    for (int e = 0; e < 2; e++) {
        unsigned n = words_of(&c->ends[e].addr, w);
        for (unsigned i = 0; i < n; i++)
            h = (h ^ w[i]) * 0x9e3779b1u;
    }
    return h ^ (h >> 15);
}

static gboolean conversation_equal(gconstpointer a, gconstpointer b)
{
    const conversation *x = a, *y = b;
    return endpoint_cmp(&x->ends[0], &y->ends[0]) == 0 && endpoint_cmp(&x->ends[1], &y->ends[1]) == 0;
}

td_streams *td_streams_new(td_stream_rules rules)
{
    td_streams *s = g_new0(td_streams, 1);
    s->rules = rules;
    s->by_ends = g_hash_table_new_full(conversation_hash, conversation_equal, NULL, g_free);
    return s;
}

void td_streams_free(td_streams *streams)
{
    if (!streams)
        return;
    g_hash_table_destroy(streams->by_ends);
    g_free(streams);
}

uint32_t td_streams_count(const td_streams *streams)
{
    return streams->next;
}

static conversation *begin(td_streams *s, const conversation *key)
{
    conversation *c = g_new0(conversation, 1);
    c->ends[0] = key->ends[0];
    c->ends[1] = key->ends[1];
    c->stream = s->next++;
    g_hash_table_replace(s->by_ends, c, c);
    return c;
}

/* Whether this SYN or SYN-ACK opens a new connection on the conversation's ports. */
static bool reuses_ports(const td_streams *s, const conversation *c, int from, const td_record *rec)
{
    uint16_t syn_ack = rec->tcp_flags & (TD_TH_SYN | TD_TH_ACK);
    bool other_isn = c->base_set[from] && rec->seq != c->base_seq[from];

    if (s->rules == TD_STREAMS_WS40)
        return syn_ack == TD_TH_SYN && other_isn;
    return (syn_ack == TD_TH_SYN || syn_ack == (TD_TH_SYN | TD_TH_ACK)) && (other_isn || c->closed);
}

uint32_t td_streams_number(td_streams *streams, const td_record *rec, bool analysed)
{
    conversation key, *c;
    int from;

    memset(&key, 0, sizeof key);
    key.ends[0].addr = rec->src;
    key.ends[0].port = rec->sport;
    key.ends[1].addr = rec->dst;
    key.ends[1].port = rec->dport;
    from = endpoint_cmp(&key.ends[0], &key.ends[1]) > 0;
    if (from) {
        endpoint swap = key.ends[0];
        key.ends[0] = key.ends[1];
        key.ends[1] = swap;
    }
    c = g_hash_table_lookup(streams->by_ends, &key);
    if (!c || reuses_ports(streams, c, from, rec))
        c = begin(streams, &key);
    /* Wireshark counts a sender's sequence numbers from its first analysed segment:
     * from the ISN of a SYN, else from one before the first seq seen; and the peer's
     * from one before the first ACK number, if the peer has not spoken yet. */
    if (analysed && !c->base_set[from]) {
        c->base_seq[from] = rec->tcp_flags & TD_TH_SYN ? rec->seq : rec->seq - 1;
        c->base_set[from] = true;
    }
    if (analysed && !c->base_set[!from] && (rec->tcp_flags & TD_TH_ACK)) {
        c->base_seq[!from] = rec->ack - 1;
        c->base_set[!from] = true;
    }
    if (rec->tcp_flags & (TD_TH_FIN | TD_TH_RST))
        c->closed = true;
    return c->stream;
}
