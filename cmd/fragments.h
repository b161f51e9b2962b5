/* IP datagrams that arrived in fragments, put back together as Wireshark's IP
 * dissectors do before TCP sees them: pieces keyed by addresses, protocol and
 * identification; a datagram is whole once its last piece and every byte before it
 * arrived, and is handed on at the frame that completed it. Bounded, since a
 * capture's fragments may never complete: at most TD_FRAGMENTS_MAX_PENDING
 * datagrams and TD_FRAGMENTS_MAX_BYTES of their bytes wait, the oldest given up
 * first. One table per capture (and per thread). */
#ifndef TCPDIAG_CMD_FRAGMENTS_H
#define TCPDIAG_CMD_FRAGMENTS_H

#include <stdbool.h>
#include <stdint.h>
#include "record.h"

enum {
    TD_FRAGMENTS_MAX_PENDING = 1024,
    TD_FRAGMENTS_MAX_BYTES = 16 << 20,
    TD_FRAGMENTS_MAX_DATAGRAM = 65535,  /* IPv4's total length, IPv6's payload length */
};

typedef struct td_fragments td_fragments;

/* Which datagram a piece belongs to. */
typedef struct td_fragment_key {
    td_addr src, dst;
    uint32_t ident;         /* IPv4's 16-bit identification, IPv6's 32-bit one */
    uint8_t proto;          /* IPv4's protocol, the IPv6 Fragment header's next header */
} td_fragment_key;

/* One piece: where its bytes go in the datagram's payload, and whether more follow. */
typedef struct td_fragment {
    uint32_t offset;
    bool more;
    const uint8_t *bytes;
    uint32_t len;
} td_fragment;

td_fragments *td_fragments_new(void);
void td_fragments_free(td_fragments *table);

/* Adds a piece. When it completes its datagram, returns the whole payload (valid
 * until td_fragments_frame_done) and its length in *whole_len; otherwise NULL. A
 * piece that contradicts its datagram (past its end, or a second end) gives the
 * datagram up. */
const uint8_t *td_fragments_add(td_fragments *table, const td_fragment_key *key, const td_fragment *piece,
                                uint32_t *whole_len);

/* The frame being decoded is done: the datagrams it completed are freed. (One
 * frame completes at most one datagram per IP layer it nests.) */
void td_fragments_frame_done(td_fragments *table);

#endif
