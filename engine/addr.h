/* Endpoint addresses (td_addr): compared and hashed as a GLib hash-table key
 * (per-host state in stall.c, per-host reference groups in diagnosis.c, flows'
 * endpoints in flow.c), and written as text for every front end. */
#ifndef TCPDIAG_ADDR_H
#define TCPDIAG_ADDR_H

#include <glib.h>
#include "record.h"

guint td_addr_hash(gconstpointer key);
gboolean td_addr_equal(gconstpointer a, gconstpointer b);
/* Writes the address as text (dotted quad or RFC 5952 IPv6) into buf; "?" when it
 * is neither or buf is too small. */
void td_addr_format(const td_addr *addr, char *buf, size_t size);

#endif
