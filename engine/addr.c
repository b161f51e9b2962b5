/* Endpoint addresses: hashing and comparing them as GLib keys, and writing them as text. */
#include "addr.h"

#include <arpa/inet.h>
#include <string.h>
#include <sys/socket.h>

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
    return td_addr_same(x, y);
}

void td_addr_format(const td_addr *addr, char *buf, size_t size)
{
    const char *text = NULL;

    if (size == 0)
        return;
    if (addr->len == 4)
        text = inet_ntop(AF_INET, addr->bytes, buf, (socklen_t)size);
    else if (addr->len == 16)
        text = inet_ntop(AF_INET6, addr->bytes, buf, (socklen_t)size);
    if (!text)
        g_strlcpy(buf, "?", size);
}
