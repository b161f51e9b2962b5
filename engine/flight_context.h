/* What a direction's flight analysis is told when the direction's data starts, all
 * of it read from the flow's handshake: how long an ACK seen here takes to reach
 * the sender, the receiver's window scale, timestamps, the peer's MSS and how CE
 * marks are echoed; and, for a flow whose handshake was not captured, what its
 * data's timestamps and flags show instead. */
#ifndef TCPDIAG_FLIGHT_CONTEXT_H
#define TCPDIAG_FLIGHT_CONTEXT_H

#include <stdbool.h>
#include "direction.h"
#include "ecn.h"
#include "handshake.h"
#include "record.h"
#include "vantage.h"

/* Fills *ctx for the data endpoint `sender` sends, whose first data segment is
 * first_data; client: the client's endpoint index, -1 when roles are unknown;
 * later_ts: a segment after the handshake carried timestamps. Returns NULL, or
 * why the flight cannot be measured (static text; *ctx is then not set). */
const char *td_flight_context_of(const td_handshake *hs, int client, int sender, bool later_ts,
                                 td_vantage vantage, td_ecn_outcome ecn, const td_record *first_data,
                                 td_flight_context *ctx);

/* For a flow whose SYN-ACK was not captured: the ECN feedback a record's flags
 * show, TD_FEEDBACK_NONE when they show none. */
td_ecn_feedback td_flight_feedback_shown(const td_record *rec);

#endif
