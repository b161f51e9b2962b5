/* Test helper: one IPv4 segment of stream 0 between client 10.0.0.1:40000 and
 * a server 10.0.0.2 on the given port. */
#ifndef TCPDIAG_TEST_SEGMENT_H
#define TCPDIAG_TEST_SEGMENT_H

#include <string.h>
#include "record.h"

static inline td_record segment(bool from_client, uint16_t server_port, int64_t t_ns, uint16_t flags,
                                uint32_t seq, uint32_t len)
{
    static const uint8_t client_ip[4] = { 10, 0, 0, 1 }, server_ip[4] = { 10, 0, 0, 2 };
    td_record rec;

    memset(&rec, 0, sizeof rec);
    rec.time_ns = t_ns;
    rec.src.len = rec.dst.len = 4;
    memcpy(rec.src.bytes, from_client ? client_ip : server_ip, 4);
    memcpy(rec.dst.bytes, from_client ? server_ip : client_ip, 4);
    rec.sport = from_client ? 40000 : server_port;
    rec.dport = from_client ? server_port : 40000;
    rec.tcp_flags = flags;
    rec.seq = seq;
    rec.payload_len = len;
    rec.options.complete = true;
    return rec;
}

#endif
