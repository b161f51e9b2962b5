/* Endpoint addresses (td_addr): compared and hashed as a GLib hash-table key
 * (per-host state in stall.c, per-host reference groups in diagnosis.c, flows'
 * endpoints in flow.c), and written as text for every front end. */
#ifndef TCPDIAG_ADDR_H
#define TCPDIAG_ADDR_H

#include <glib.h>
#include <stdbool.h>
#include <string.h>
#include "record.h"

guint td_addr_hash(gconstpointer key);
gboolean td_addr_equal(gconstpointer a, gconstpointer b);

/* The same address: inline, with the two families' lengths as constants (compared
 * in a few moves instead of a call to memcmp; every packet compares its sender
 * with its flow's ends). */
static inline bool td_addr_same(const td_addr *a, const td_addr *b)
{
    if (a->len != b->len)
        return false;
    if (a->len == 4)
        return memcmp(a->bytes, b->bytes, 4) == 0;
    if (a->len == 16)
        return memcmp(a->bytes, b->bytes, 16) == 0;
    return memcmp(a->bytes, b->bytes, MIN(a->len, sizeof a->bytes)) == 0;
}
/* Writes the address as text (dotted quad or RFC 5952 IPv6) into buf; "?" when it
 * is neither or buf is too small. */
void td_addr_format(const td_addr *addr, char *buf, size_t size);

#endif
