/* The exchanges of the open file (exchange-tcpdiag.h): kept in the order they end, put
 * in frame order once, after the read, and looked up by their first frame. */
#include "exchange-tcpdiag.h"

#include "tree-tcpdiag.h"

static GArray *exchanges;   /* td_exchange */
static bool in_frame_order;

static void keep(const td_flow *flow _U_, const td_exchange *ex, void *ctx _U_)
{
    g_array_append_vals(exchanges, ex, 1);
    in_frame_order = false;
}

void tcpdiag_exchanges_open(td_engine *engine)
{
    exchanges = g_array_new(FALSE, FALSE, sizeof(td_exchange));
    in_frame_order = true;
    td_engine_on_exchange(engine, keep, NULL);
}

void tcpdiag_exchanges_close(void)
{
    if (exchanges)
        g_array_free(exchanges, TRUE);
    exchanges = NULL;
}

static gint by_frame(gconstpointer a, gconstpointer b)
{
    uint32_t x = ((const td_exchange *)a)->first_frame, y = ((const td_exchange *)b)->first_frame;
    return x < y ? -1 : x > y;
}

void tcpdiag_exchange_items(proto_tree *tree, tvbuff_t *tvb, uint32_t frame)
{
    td_exchange key = { .first_frame = frame };
    const td_exchange *found;

    if (!exchanges || !exchanges->len)
        return;
    if (!in_frame_order) {
        g_array_sort(exchanges, by_frame);
        in_frame_order = true;
    }
    found = bsearch(&key, exchanges->data, exchanges->len, sizeof(td_exchange), by_frame);
    if (found)
        tcpdiag_exchange_tree(tree, tvb, found);
}
