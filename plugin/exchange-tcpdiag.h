/* The plugin's exchanges (exchange-tcpdiag.c): each flow's exchanges kept as the engine
 * completes them, and shown on their first packet once the capture has been read. */
#ifndef TCPDIAG_EXCHANGE_GLUE_H
#define TCPDIAG_EXCHANGE_GLUE_H

#include <epan/packet.h>

#include "flow.h"

/* A file opens with engine: its exchanges are kept from here on. */
void tcpdiag_exchanges_open(td_engine *engine);
/* The file closes: they are dropped. */
void tcpdiag_exchanges_close(void);
/* The exchange that begins at frame, if any, in its subtree under tree (the tcpdiag
 * tree): only once the capture has been read, when every exchange has ended. */
void tcpdiag_exchange_items(proto_tree *tree, tvbuff_t *tvb, uint32_t frame);

#endif
