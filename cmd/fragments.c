/* The fragment reassembly table (fragments.h): pending datagrams by key, each with
 * its bytes so far and the ranges of them that arrived, oldest first for eviction. */
#include "fragments.h"
#include "addr.h"

#include <glib.h>
#include <string.h>

/* Pieces that neither touch nor overlap stay separate ranges; a datagram cut into
 * more separate holes than this is hostile, not a router's work (a router cuts at
 * most 8192 pieces, but they arrive mostly in order and so merge). */
enum { MAX_RANGES = 64 };

typedef struct range {
    uint32_t start, end;
} range;

typedef struct pending {
    td_fragment_key key;
    uint8_t *bytes;         /* the payload so far, allocated to the furthest end seen */
    uint32_t allocated;
    uint32_t total;         /* the payload's length, once the last piece came; else 0 */
    bool have_total;
    range ranges[MAX_RANGES];   /* arrived bytes, sorted, neither touching nor overlapping */
    uint8_t n_ranges;
    GList *age;             /* its link in the table's arrival queue */
} pending;

struct td_fragments {
    GHashTable *by_key;     /* td_fragment_key* -> pending* */
    GQueue arrival;         /* pending*, oldest first */
    size_t bytes;           /* allocated to pending payloads */
    /* the datagrams handed on during the current frame: a tunnel's reassembled
     * datagram may hold the piece that completes an inner one, so each stays
     * until the frame is done (td_fragments_frame_done) */
    GPtrArray *completed;
};

static guint key_hash(gconstpointer p)
{
    const td_fragment_key *k = p;
    return (k->ident * 2654435761u ^ k->proto) + td_addr_hash(&k->src) * 31 + td_addr_hash(&k->dst);
}

static gboolean key_equal(gconstpointer a, gconstpointer b)
{
    const td_fragment_key *x = a, *y = b;
    return x->ident == y->ident && x->proto == y->proto && td_addr_equal(&x->src, &y->src) &&
           td_addr_equal(&x->dst, &y->dst);
}

td_fragments *td_fragments_new(void)
{
    td_fragments *t = g_new0(td_fragments, 1);
    t->by_key = g_hash_table_new(key_hash, key_equal);
    t->completed = g_ptr_array_new_with_free_func(g_free);
    g_queue_init(&t->arrival);
    return t;
}

static void drop(td_fragments *t, pending *p)
{
    g_hash_table_remove(t->by_key, &p->key);
    g_queue_delete_link(&t->arrival, p->age);
    t->bytes -= p->allocated;
    g_free(p->bytes);
    g_free(p);
}

void td_fragments_free(td_fragments *t)
{
    if (!t)
        return;
    while (!g_queue_is_empty(&t->arrival))
        drop(t, g_queue_peek_head(&t->arrival));
    g_hash_table_destroy(t->by_key);
    g_ptr_array_free(t->completed, TRUE);
    g_free(t);
}

/* Records [start, end) as arrived; false when the datagram has too many holes. */
static bool cover(pending *p, uint32_t start, uint32_t end)
{
    int first = 0, last;

    while (first < p->n_ranges && p->ranges[first].end < start)
        first++;
    last = first;
    while (last < p->n_ranges && p->ranges[last].start <= end) {
        start = MIN(start, p->ranges[last].start);
        end = MAX(end, p->ranges[last].end);
        last++;
    }
    /* ranges [first, last) merge into one */
    if (last == first) {
        if (p->n_ranges == MAX_RANGES)
            return false;
        memmove(p->ranges + first + 1, p->ranges + first, (p->n_ranges - first) * sizeof *p->ranges);
        p->n_ranges++;
    } else if (last - first > 1) {
        memmove(p->ranges + first + 1, p->ranges + last, (p->n_ranges - last) * sizeof *p->ranges);
        p->n_ranges = (uint8_t)(p->n_ranges - (last - first - 1));
    }
    p->ranges[first] = (range){ start, end };
    return true;
}

/* Room for the payload up to end, within the table's bound (oldest datagrams give way). */
static bool make_room(td_fragments *t, pending *p, uint32_t end)
{
    if (end <= p->allocated)
        return true;
    while (t->bytes + (end - p->allocated) > TD_FRAGMENTS_MAX_BYTES && g_queue_peek_head(&t->arrival) != p)
        drop(t, g_queue_peek_head(&t->arrival));
    if (t->bytes + (end - p->allocated) > TD_FRAGMENTS_MAX_BYTES)
        return false;
    p->bytes = g_realloc(p->bytes, end);
    memset(p->bytes + p->allocated, 0, end - p->allocated);
    t->bytes += end - p->allocated;
    p->allocated = end;
    return true;
}

static pending *find_or_start(td_fragments *t, const td_fragment_key *key)
{
    pending *p = g_hash_table_lookup(t->by_key, key);

    if (p)
        return p;
    if (t->arrival.length >= TD_FRAGMENTS_MAX_PENDING)
        drop(t, g_queue_peek_head(&t->arrival));
    p = g_new0(pending, 1);
    p->key = *key;
    g_queue_push_tail(&t->arrival, p);
    p->age = t->arrival.tail;
    g_hash_table_insert(t->by_key, &p->key, p);
    return p;
}

const uint8_t *td_fragments_add(td_fragments *t, const td_fragment_key *key, const td_fragment *piece,
                                uint32_t *whole_len)
{
    uint32_t end = piece->offset + piece->len;
    pending *p;

    if (end > TD_FRAGMENTS_MAX_DATAGRAM || end < piece->offset)
        return NULL;
    p = find_or_start(t, key);
    /* a second end, or bytes past the end: the pieces contradict each other */
    if ((!piece->more && p->have_total && p->total != end) ||
        (p->have_total && end > p->total) ||
        (!piece->more && p->n_ranges && p->ranges[p->n_ranges - 1].end > end)) {
        drop(t, p);
        return NULL;
    }
    if (!piece->more) {
        p->total = end;
        p->have_total = true;
    }
    if (!make_room(t, p, end) || !cover(p, piece->offset, end)) {
        drop(t, p);
        return NULL;
    }
    if (piece->len)
        memcpy(p->bytes + piece->offset, piece->bytes, piece->len);
    if (!p->have_total || p->n_ranges != 1 || p->ranges[0].start != 0 || p->ranges[0].end != p->total)
        return NULL;
    *whole_len = p->total;
    const uint8_t *whole = p->bytes;
    g_ptr_array_add(t->completed, g_steal_pointer(&p->bytes));
    t->bytes -= p->allocated;
    p->allocated = 0;
    drop(t, p);
    return whole;
}

void td_fragments_frame_done(td_fragments *t)
{
    /* almost every frame completes nothing: no call into GLib for those */
    if (t->completed->len)
        g_ptr_array_set_size(t->completed, 0);
}
