/* td_addr as a GLib hash-table key: per-host state (stall.c) and per-host
 * reference groups (diagnosis.c) are keyed by address. */
#ifndef TCPDIAG_ADDR_H
#define TCPDIAG_ADDR_H

#include <glib.h>
#include "record.h"

guint td_addr_hash(gconstpointer key);
gboolean td_addr_equal(gconstpointer a, gconstpointer b);

#endif
