/* The Community ID of a flow (version 1, corelight/community-id-spec): the flow hash
 * that Zeek, Suricata, Arkime and Wireshark's communityid post-dissector give the
 * same TCP connection, so a tcpdiag record joins their logs without re-deriving the
 * 5-tuple and its direction. */
#ifndef TCPDIAG_COMMUNITY_ID_H
#define TCPDIAG_COMMUNITY_ID_H

#include <stddef.h>
#include <stdint.h>
#include "record.h"

/* "1:" and the base64 of a SHA-1 digest: 30 characters and the terminator. */
enum { TD_COMMUNITY_ID_SIZE = 31 };

/* The Community ID of a TCP flow between two endpoints, in either order, with the
 * spec's seed (0 unless the site chose one). Empty when the addresses are not both
 * IPv4 or both IPv6. */
void td_community_id_tcp(const td_addr *a, uint16_t a_port, const td_addr *b, uint16_t b_port, uint16_t seed,
                         char out[TD_COMMUNITY_ID_SIZE]);

#endif
