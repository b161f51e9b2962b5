/* One entry per conversation, keyed by its two endpoints in a canonical order;
 * port reuse replaces the entry, as Wireshark's newer conversation shadows the
 * older one for every later frame. */
#include "streams.h"

#include <glib.h>
#include <string.h>

/* The two endpoints packed as words, zero-padded, so that hashing and equality are
 * word loops and one memcmp over a fixed size: byte-wise compares of td_addr took
 * a fifth of the command's time at a few million packets a second. */
typedef struct conv_key {
    uint32_t addr[2][4];        /* ends[0] sorts first */
    uint16_t port[2];
    uint32_t words;             /* 1 (IPv4) or 4 (IPv6) per address */
} conv_key;

typedef struct conversation {
    conv_key key;
    uint32_t stream;
    uint32_t base_seq[2];       /* by sending endpoint (index into the key's ends) */
    bool     base_set[2];
    bool     closed;            /* a FIN or RST was seen, quoted ones too */
} conversation;

struct td_streams {
    td_wireshark version;
    GHashTable *by_ends;        /* conversation* (key and value), owned */
    uint32_t next;
};

static guint conversation_hash(gconstpointer p)
{
    const conv_key *k = p;
    guint h = (guint)k->port[0] << 16 | k->port[1];

    for (unsigned e = 0; e < 2; e++)
        for (unsigned i = 0; i < k->words; i++)
            h = (h ^ k->addr[e][i]) * 0x9e3779b1u;
    return h ^ (h >> 15);
}

static gboolean conversation_equal(gconstpointer a, gconstpointer b)
{
    return memcmp(a, b, sizeof(conv_key)) == 0;
}

/* Whether the packet's sender is the key's second end: any total order on the
 * endpoints will do, it only has to pick the same first end for both directions. */
static int fill_key(conv_key *k, const td_record *rec)
{
    uint32_t src[4] = { 0 }, dst[4] = { 0 };
    int swap = 0;

    memset(k, 0, sizeof *k);
    k->words = rec->src.len / 4;
    memcpy(src, rec->src.bytes, (size_t)k->words * 4);
    memcpy(dst, rec->dst.bytes, (size_t)k->words * 4);
    for (unsigned i = 0; i < k->words && !swap; i++)
        if (src[i] != dst[i])
            swap = src[i] > dst[i] ? 1 : -1;
    swap = swap ? swap > 0 : rec->sport > rec->dport;
    memcpy(k->addr[swap], src, sizeof src);
    memcpy(k->addr[!swap], dst, sizeof dst);
    k->port[swap] = rec->sport;
    k->port[!swap] = rec->dport;
    return swap;
}

td_streams *td_streams_new(td_wireshark version)
{
    td_streams *s = g_new0(td_streams, 1);
    s->version = version;
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

static conversation *begin(td_streams *s, const conv_key *key)
{
    conversation *c = g_new0(conversation, 1);
    c->key = *key;
    c->stream = s->next++;
    g_hash_table_replace(s->by_ends, c, c);
    return c;
}

/* Whether this SYN or SYN-ACK opens a new connection on the conversation's ports:
 * never while its sender's count has no start yet. */
static bool reuses_ports(const td_streams *s, const conversation *c, int from, const td_record *rec)
{
    uint16_t syn_ack = rec->tcp_flags & (TD_TH_SYN | TD_TH_ACK);
    bool other_isn = rec->seq != c->base_seq[from];

    if (!c->base_set[from])
        return false;
    if (s->version == TD_WIRESHARK_4_0)
        return syn_ack == TD_TH_SYN && other_isn;
    return (syn_ack == TD_TH_SYN || syn_ack == (TD_TH_SYN | TD_TH_ACK)) && (other_isn || c->closed);
}

bool td_streams_find(const td_streams *streams, const td_record *rec, uint32_t *stream)
{
    conv_key key;
    const conversation *c;

    fill_key(&key, rec);
    c = g_hash_table_lookup(streams->by_ends, &key);
    if (c)
        *stream = c->stream;
    return c != NULL;
}

uint32_t td_streams_number(td_streams *streams, const td_record *rec, bool analysed)
{
    conv_key key;
    conversation *c;
    int from = fill_key(&key, rec);

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
