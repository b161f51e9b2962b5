/* td_addr as a GLib hash key: hashing and comparing endpoint addresses. */
#include "addr.h"

#include <string.h>

guint td_addr_hash(gconstpointer key)
{
    const td_addr *a = key;
    guint h = a->len;
    for (unsigned i = 0; i < a->len && i < sizeof a->bytes; i++)
        h = h * 31 + a->bytes[i];
    return h;
}

gboolean td_addr_equal(gconstpointer x, gconstpointer y)
{
    const td_addr *a = x, *b = y;
    return a->len == b->len && memcmp(a->bytes, b->bytes, MIN(a->len, sizeof a->bytes)) == 0;
}
