/* One entry per conversation, keyed by its two endpoints in a canonical order;
 * port reuse replaces the entry, as Wireshark's newer conversation shadows the
 * older one for every later frame. */
#include "streams.h"

#include <glib.h>
#include <string.h>

/* A conversation: its key (the two endpoints, packed as words in a canonical order,
 * so that hashing and equality are word loops and one memcmp: byte-wise compares of
 * td_addr took a fifth of the command's time at a few million packets a second) and
 * where each direction's sequence count starts. The addresses take what their family
 * needs, 8 bytes for IPv4 rather than 32: with the slabs below, a million-SYN flood's
 * conversations cost 28 bytes each, not 64. */
typedef struct conversation {
    uint32_t stream;
    uint32_t base_seq[2];       /* by sending end (index into the key's ends) */
    uint16_t port[2];           /* key; end 0 sorts first */
    uint8_t  words;             /* key: 1 (IPv4) or 4 (IPv6) per address */
    uint8_t  base_set;          /* bit per sending end: its count has a start */
    bool     closed;            /* a FIN or RST was seen, quoted ones too */
    uint32_t addr[];            /* key: words per end, end 0 first */
} conversation;

enum { SLAB_BYTES = 1 << 20 };

/* Conversations live in slabs (no allocator header each); one forgotten
 * (td_streams_forget) goes on its family's free list, the first bytes of its memory
 * pointing to the next, for the next conversation of that family. One shadowed by
 * port reuse stays, as the flow it numbered does in the engine until it is released. */
struct td_streams {
    td_wireshark version;
    GHashTable *by_ends;        /* conversation* (key and value), in the slabs */
    GPtrArray *slabs;
    size_t slab_used;           /* bytes of the last slab taken */
    void *free_list[2];         /* forgotten conversations: IPv4, IPv6 */
    conversation *probe;        /* a lookup's key, with room for two IPv6 addresses */
    conversation *last;         /* the conversation the last lookup found or began: a
                                   burst's next segment is most often its, and then
                                   needs no hash lookup (NULL once forgotten); while
                                   it is set, the probe holds its key */
    uint32_t next;
};

static size_t conversation_size(unsigned words)
{
    return sizeof(conversation) + 2 * words * sizeof(uint32_t);
}

static guint conversation_hash(gconstpointer p)
{
    const conversation *c = p;
    guint h = (guint)c->port[0] << 16 | c->port[1];

    for (unsigned i = 0; i < 2u * c->words; i++)
        h = (h ^ c->addr[i]) * 0x9e3779b1u;
    return h ^ (h >> 15);
}

static gboolean conversation_equal(gconstpointer a, gconstpointer b)
{
    const conversation *x = a, *y = b;
    if (x->port[0] != y->port[0] || x->port[1] != y->port[1] || x->words != y->words)
        return false;
    /* each family's length as a constant: compared in place, not by a call to memcmp */
    if (x->words == 1)
        return x->addr[0] == y->addr[0] && x->addr[1] == y->addr[1];
    if (x->words == 4)
        return memcmp(x->addr, y->addr, 8 * sizeof(uint32_t)) == 0;
    return memcmp(x->addr, y->addr, 2u * x->words * sizeof(uint32_t)) == 0;
}

/* Fills key k for addresses of `words` words; returns whether the packet's sender
 * is the key's second end: any total order on the endpoints will do, it only has to
 * pick the same first end for both directions. */
static inline int fill_key(conversation *k, const td_record *rec, unsigned words)
{
    uint32_t src[4] = { 0 }, dst[4] = { 0 };
    int swap = 0;

    memcpy(src, rec->src.bytes, (size_t)words * 4);
    memcpy(dst, rec->dst.bytes, (size_t)words * 4);
    for (unsigned i = 0; i < words && !swap; i++)
        if (src[i] != dst[i])
            swap = src[i] > dst[i] ? 1 : -1;
    swap = swap ? swap > 0 : rec->sport > rec->dport;
    k->words = (uint8_t)words;
    memcpy(k->addr + (swap ? words : 0), src, (size_t)words * 4);
    memcpy(k->addr + (swap ? 0 : words), dst, (size_t)words * 4);
    k->port[swap] = rec->sport;
    k->port[!swap] = rec->dport;
    return swap;
}

/* Fills the probe's key (fill_key). Each family's length is spelled as a constant,
 * so that its copies are moves, not calls to memcpy with a variable length. */
static int fill_probe(td_streams *s, const td_record *rec)
{
    unsigned words = rec->src.len / 4;

    if (words == 1)
        return fill_key(s->probe, rec, 1);
    if (words == 4)
        return fill_key(s->probe, rec, 4);
    return fill_key(s->probe, rec, words);
}

td_streams *td_streams_new(td_wireshark version)
{
    td_streams *s = g_new0(td_streams, 1);
    s->version = version;
    s->by_ends = g_hash_table_new(conversation_hash, conversation_equal);
    s->slabs = g_ptr_array_new_with_free_func(g_free);
    s->slab_used = SLAB_BYTES;
    s->probe = g_malloc0(conversation_size(4));
    return s;
}

void td_streams_free(td_streams *streams)
{
    if (!streams)
        return;
    g_hash_table_destroy(streams->by_ends);
    g_ptr_array_free(streams->slabs, TRUE);
    g_free(streams->probe);
    g_free(streams);
}

uint32_t td_streams_count(const td_streams *streams)
{
    return streams->next;
}

/* A new conversation with the probe's key, in the slabs. */
static conversation *begin(td_streams *s)
{
    size_t size = conversation_size(s->probe->words);
    conversation *c;

    void **reused = &s->free_list[s->probe->words > 1];

    if (*reused) {
        c = *reused;
        memcpy(reused, c, sizeof *reused);
    } else {
        if (s->slab_used + size > SLAB_BYTES) {
            g_ptr_array_add(s->slabs, g_malloc(SLAB_BYTES));
            s->slab_used = 0;
        }
        c = (conversation *)(void *)((char *)g_ptr_array_index(s->slabs, s->slabs->len - 1) + s->slab_used);
        s->slab_used += size;
    }
    memcpy(c, s->probe, size);
    c->stream = s->next++;
    c->base_set = 0;
    c->closed = false;
    g_hash_table_replace(s->by_ends, c, c);
    s->last = c;
    return c;
}

/* The conversation with the probe's key, NULL if none. */
static conversation *lookup(td_streams *s)
{
    if (!s->last || !conversation_equal(s->last, s->probe))
        s->last = g_hash_table_lookup(s->by_ends, s->probe);
    return s->last;
}

/* Whether this SYN or SYN-ACK opens a new connection on the conversation's ports:
 * never while its sender's count has no start yet. */
static bool reuses_ports(const td_streams *s, const conversation *c, int from, const td_record *rec)
{
    uint16_t syn_ack = rec->tcp_flags & (TD_TH_SYN | TD_TH_ACK);
    bool other_isn = rec->seq != c->base_seq[from];

    if (!(c->base_set & (1u << from)))
        return false;
    if (s->version == TD_WIRESHARK_4_0)
        return syn_ack == TD_TH_SYN && other_isn;
    return (syn_ack == TD_TH_SYN || syn_ack == (TD_TH_SYN | TD_TH_ACK)) && (other_isn || c->closed);
}

bool td_streams_find(td_streams *streams, const td_record *rec, uint32_t *stream)
{
    const conversation *c;

    fill_probe(streams, rec);
    c = lookup(streams);
    if (c)
        *stream = c->stream;
    return c != NULL;
}

/* Whether the record came from c's end `end` to its other end, with addresses of
 * `words` words (a constant where it is called: the compares are moves, not calls). */
static inline bool sent_from_end(const conversation *c, const td_record *rec, int end, unsigned words)
{
    size_t bytes = (size_t)words * 4;

    return c->port[end] == rec->sport && c->port[!end] == rec->dport &&
           memcmp(c->addr + (end ? words : 0), rec->src.bytes, bytes) == 0 &&
           memcmp(c->addr + (end ? 0 : words), rec->dst.bytes, bytes) == 0;
}

/* The end of c that sent the record (0 or 1), read from the record itself, or -1 when
 * the record is not c's. The key is in a canonical order, so the ends as the record
 * gives them match one way round only, the way fill_key would put them; but when both
 * ends are the same, where either matches and fill_key says 0, the first tried. */
static inline int sender_end(const conversation *c, const td_record *rec)
{
    if (c->words == 1 && rec->src.len == 4)
        return sent_from_end(c, rec, 0, 1) ? 0 : sent_from_end(c, rec, 1, 1) ? 1 : -1;
    if (c->words == 4 && rec->src.len == 16)
        return sent_from_end(c, rec, 0, 4) ? 0 : sent_from_end(c, rec, 1, 4) ? 1 : -1;
    return -1;
}

uint32_t td_streams_number(td_streams *streams, const td_record *rec, bool analysed)
{
    /* a burst's next segment is most often the last conversation's: then it needs
     * neither a key built nor a hash lookup (19 instructions a packet of the command's 1,400) */
    conversation *c = streams->last;
    int from = c ? sender_end(c, rec) : -1;

    if (from < 0) {
        from = fill_probe(streams, rec);
        c = streams->last = g_hash_table_lookup(streams->by_ends, streams->probe);
    }
    if (!c || reuses_ports(streams, c, from, rec))
        c = begin(streams);     /* the probe holds the key: the record's, or last's, the same */
    /* Wireshark counts a sender's sequence numbers from its first analysed segment:
     * from the ISN of a SYN, else from one before the first seq seen; and the peer's
     * from one before the first ACK number, if the peer has not spoken yet. */
    if (analysed && !(c->base_set & (1u << from))) {
        c->base_seq[from] = rec->tcp_flags & TD_TH_SYN ? rec->seq : rec->seq - 1;
        c->base_set |= (uint8_t)(1u << from);
    }
    if (analysed && !(c->base_set & (1u << !from)) && (rec->tcp_flags & TD_TH_ACK)) {
        c->base_seq[!from] = rec->ack - 1;
        c->base_set |= (uint8_t)(1u << !from);
    }
    if (rec->tcp_flags & (TD_TH_FIN | TD_TH_RST))
        c->closed = true;
    return c->stream;
}

void td_streams_forget(td_streams *streams, const td_record *rec, uint32_t stream)
{
    conversation *c;
    void **head;

    fill_probe(streams, rec);
    c = lookup(streams);
    if (!c || c->stream != stream)
        return;
    g_hash_table_remove(streams->by_ends, c);
    streams->last = NULL;
    head = &streams->free_list[c->words > 1];
    memcpy(c, head, sizeof *head);
    *head = c;
}
