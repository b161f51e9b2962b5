/* The flows that sent data from one address to another: where a flow's wait finds the
 * flows beside it on the same path, whose round trips show a queue its own packets
 * cannot (time_budget.h's td_path_probe). Only a flow's first data in a direction
 * lists it (a SYN flood lists nothing); a pair keeps its latest TD_PAIR_SENDERS_KEPT,
 * and the index at most TD_PAIR_SENDERS_PAIRS pairs (beyond, it starts again), so its
 * memory is bounded whatever the capture holds. */
#ifndef TCPDIAG_PAIR_SENDERS_H
#define TCPDIAG_PAIR_SENDERS_H

#include <stdint.h>
#include "record.h"

enum { TD_PAIR_SENDERS_KEPT = 8, TD_PAIR_SENDERS_PAIRS = 65536 };

/* One flow's data direction: the engine's flow index and the sending endpoint. */
typedef struct td_pair_sender {
    uint32_t flow_index;
    uint8_t  sender;
} td_pair_sender;

typedef struct td_pair_senders td_pair_senders;

td_pair_senders *td_pair_senders_new(void);
void td_pair_senders_free(td_pair_senders *index);
/* The flow's first data from `from` to `to`. */
void td_pair_senders_add(td_pair_senders *index, const td_addr *from, const td_addr *to, uint32_t flow_index,
                         int sender);
/* The latest flows that sent data from `from` to `to`, newest first, into out; how many. */
unsigned td_pair_senders_get(const td_pair_senders *index, const td_addr *from, const td_addr *to,
                             td_pair_sender out[TD_PAIR_SENDERS_KEPT]);

#endif
