/* The flows that sent data on each directed pair of addresses: a hash table of pairs,
 * each a ring of its latest senders. */
#include "pair_senders.h"

#include <glib.h>

#include "addr.h"

typedef struct pair {
    td_addr  from, to;
    td_pair_sender ring[TD_PAIR_SENDERS_KEPT];
    uint8_t  count, next;
} pair;

struct td_pair_senders {
    GHashTable *pairs;      /* pair* (its own key) → the same pair* */
};

static guint pair_hash(gconstpointer key)
{
    const pair *p = key;

    return td_addr_hash(&p->from) * 33u ^ td_addr_hash(&p->to);
}

static gboolean pair_equal(gconstpointer x, gconstpointer y)
{
    const pair *a = x, *b = y;

    return td_addr_same(&a->from, &b->from) && td_addr_same(&a->to, &b->to);
}

td_pair_senders *td_pair_senders_new(void)
{
    td_pair_senders *index = g_new(td_pair_senders, 1);

    index->pairs = g_hash_table_new_full(pair_hash, pair_equal, g_free, NULL);
    return index;
}

void td_pair_senders_free(td_pair_senders *index)
{
    if (!index)
        return;
    g_hash_table_destroy(index->pairs);
    g_free(index);
}

void td_pair_senders_add(td_pair_senders *index, const td_addr *from, const td_addr *to, uint32_t flow_index,
                         int sender)
{
    pair key = { .from = *from, .to = *to };
    pair *p = g_hash_table_lookup(index->pairs, &key);

    if (!p) {
        if (g_hash_table_size(index->pairs) >= TD_PAIR_SENDERS_PAIRS)
            g_hash_table_remove_all(index->pairs);
        p = g_new0(pair, 1);
        p->from = *from;
        p->to = *to;
        g_hash_table_add(index->pairs, p);
    }
    p->ring[p->next] = (td_pair_sender){ flow_index, (uint8_t)sender };
    p->next = (uint8_t)((p->next + 1) % TD_PAIR_SENDERS_KEPT);
    if (p->count < TD_PAIR_SENDERS_KEPT)
        p->count++;
}

unsigned td_pair_senders_get(const td_pair_senders *index, const td_addr *from, const td_addr *to,
                             td_pair_sender out[TD_PAIR_SENDERS_KEPT])
{
    pair key = { .from = *from, .to = *to };
    const pair *p = g_hash_table_lookup(index->pairs, &key);

    if (!p)
        return 0;
    for (unsigned i = 0; i < p->count; i++)
        out[i] = p->ring[(p->next + TD_PAIR_SENDERS_KEPT - 1 - i) % TD_PAIR_SENDERS_KEPT];
    return p->count;
}
