/* The reference groups a slow flow is compared with (reference_groups.h): three tables
 * of groups, by client, by client and server pair, and by sender. */
#include "reference_groups.h"

#include "addr.h"
#include "median.h"

struct td_groups {
    GHashTable *clients, *pairs, *senders;
};

static void group_free(gpointer data)
{
    td_group *g = data;
    for (int i = 0; i < TD_GROUP_SETS; i++)
        if (g->rates[i])
            g_array_free(g->rates[i], TRUE);
    if (g->fillers)
        g_array_free(g->fillers, TRUE);
    g_free(g);
}

/* A flow as the key of its client and server: ECN flows are compared with the
 * client's other flows to the same server, since servers differ in how they answer
 * ECN (a CUBIC server cuts on every echo, a BBR server does not). */
static guint pair_hash(gconstpointer key)
{
    const td_flow *flow = key;
    return td_addr_hash(&flow->addr[flow->client]) * 31u + td_addr_hash(&flow->addr[1 - flow->client]);
}

static gboolean pair_equal(gconstpointer a, gconstpointer b)
{
    const td_flow *x = a, *y = b;
    return td_addr_equal(&x->addr[x->client], &y->addr[y->client]) &&
           td_addr_equal(&x->addr[1 - x->client], &y->addr[1 - y->client]);
}

td_groups *td_groups_new(void)
{
    td_groups *g = g_new0(td_groups, 1);

    g->clients = g_hash_table_new_full(td_addr_hash, td_addr_equal, NULL, group_free);
    g->pairs = g_hash_table_new_full(pair_hash, pair_equal, NULL, group_free);
    g->senders = g_hash_table_new_full(td_addr_hash, td_addr_equal, NULL, group_free);
    return g;
}

void td_groups_free(td_groups *g)
{
    g_hash_table_destroy(g->clients);
    g_hash_table_destroy(g->pairs);
    g_hash_table_destroy(g->senders);
    g_free(g);
}

/* A group by its key: an address (td_addr_hash), or a flow standing for its client
 * and server pair (pair_hash). The key is the flow's own memory, which outlives the
 * tables. */
static td_group *group_of(GHashTable *groups, gconstpointer key)
{
    td_group *g = g_hash_table_lookup(groups, key);
    if (!g) {
        g = g_new0(td_group, 1);
        g_hash_table_insert(groups, (gpointer)key, g);
    }
    return g;
}

td_group *td_groups_client(td_groups *g, const td_flow *flow)
{
    return group_of(g->clients, &flow->addr[flow->client]);
}

td_group *td_groups_pair(td_groups *g, const td_flow *flow)
{
    return group_of(g->pairs, flow);
}

td_group *td_groups_sender(td_groups *g, const td_flow *flow, int sender)
{
    return group_of(g->senders, &flow->addr[sender]);
}

static void group_sort(gpointer key G_GNUC_UNUSED, gpointer value, gpointer data G_GNUC_UNUSED)
{
    td_group *g = value;
    for (int i = 0; i < TD_GROUP_SETS; i++)
        if (g->rates[i])
            g_array_sort(g->rates[i], td_compare_double);
}

void td_groups_sort(td_groups *g)
{
    g_hash_table_foreach(g->clients, group_sort, NULL);
    g_hash_table_foreach(g->pairs, group_sort, NULL);
    g_hash_table_foreach(g->senders, group_sort, NULL);
}

void td_group_add(td_group *group, td_group_set set, double rate)
{
    if (!group->rates[set])
        group->rates[set] = g_array_new(FALSE, FALSE, sizeof(double));
    g_array_append_val(group->rates[set], rate);
}

double td_group_median(const td_group *group, td_group_set set, uint32_t *n)
{
    const GArray *r = group ? group->rates[set] : NULL;

    *n = r ? r->len : 0;
    return *n ? td_median_sorted((const double *)(const void *)r->data, *n) : 0;
}
