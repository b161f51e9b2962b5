/* Test helper: frame bytes built field by field (link header, IPv4 or IPv6, TCP
 * with options), for the decoder and the stream numbering. */
#ifndef TCPDIAG_TEST_FRAMES_H
#define TCPDIAG_TEST_FRAMES_H

#include <glib.h>
#include <string.h>
#include "decode.h"

typedef struct frame_bytes {
    uint8_t b[2048];
    uint32_t len;
} frame_bytes;

static inline void put8(frame_bytes *f, uint8_t v)
{
    f->b[f->len++] = v;
}

static inline void put16(frame_bytes *f, uint16_t v)
{
    put8(f, (uint8_t)(v >> 8));
    put8(f, (uint8_t)v);
}

static inline void put32(frame_bytes *f, uint32_t v)
{
    put16(f, (uint16_t)(v >> 16));
    put16(f, (uint16_t)v);
}

static inline void put_bytes(frame_bytes *f, const void *p, uint32_t n)
{
    if (!n)
        return;         /* p may be NULL then, which memcpy does not allow */
    memcpy(f->b + f->len, p, n);
    f->len += n;
}

/* A TCP header (with its option bytes, a multiple of 4) and payload. */
typedef struct tcp_spec {
    uint16_t sport, dport;
    uint32_t seq, ack;
    uint16_t flags;             /* TD_TH_*, AE included */
    uint16_t window;
    const uint8_t *opts;
    uint32_t opts_len;
    uint32_t payload;
} tcp_spec;

static inline uint32_t tcp_len(const tcp_spec *t)
{
    return 20 + t->opts_len + t->payload;
}

static inline void put_tcp(frame_bytes *f, const tcp_spec *t)
{
    put16(f, t->sport);
    put16(f, t->dport);
    put32(f, t->seq);
    put32(f, t->ack);
    put16(f, (uint16_t)(((20 + t->opts_len) / 4) << 12 | (t->flags & 0x1ff)));
    put16(f, t->window);
    put32(f, 0);                /* checksum, urgent pointer */
    put_bytes(f, t->opts, t->opts_len);
    for (uint32_t i = 0; i < t->payload; i++)
        put8(f, (uint8_t)i);
}

static inline void put_ipv4(frame_bytes *f, const uint8_t src[4], const uint8_t dst[4], uint8_t proto, uint8_t ecn,
                            uint16_t total_len)
{
    put8(f, 0x45);
    put8(f, ecn);
    put16(f, total_len);
    put32(f, 0x00014000);       /* id 1, don't fragment */
    put8(f, 64);
    put8(f, proto);
    put16(f, 0);
    put_bytes(f, src, 4);
    put_bytes(f, dst, 4);
}

static inline void put_ipv6(frame_bytes *f, const uint8_t src[16], const uint8_t dst[16], uint8_t next,
                            uint8_t ecn, uint16_t payload_len)
{
    put32(f, 6u << 28 | (uint32_t)ecn << 20);
    put16(f, payload_len);
    put8(f, next);
    put8(f, 64);
    put_bytes(f, src, 16);
    put_bytes(f, dst, 16);
}

static inline void put_ethernet(frame_bytes *f, uint16_t type)
{
    static const uint8_t macs[12] = { 2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2 };
    put_bytes(f, macs, 12);
    put16(f, type);
}

static inline td_frame frame_of(const frame_bytes *f, td_link link)
{
    td_frame frame = { link, f->b, f->len, f->len, 1, 1000 };
    return frame;
}

#endif
