/* One packet as the core sees it: the facts the glue extracts from a dissected
 * frame. Plain C so the core can be unit-tested and fuzzed without Wireshark. */
#ifndef TCPDIAG_RECORD_H
#define TCPDIAG_RECORD_H

#include <stdbool.h>
#include <stdint.h>

/* Sequence numbers wrap (RFC 9293 §3.4): a is before b when b lies less than 2^31
 * ahead of it. */
static inline bool td_seq_before(uint32_t a, uint32_t b)
{
    return (int32_t)(a - b) < 0;
}

/* a is after b when it lies less than 2^31 ahead of it. Not !td_seq_before: exactly
 * 2^31 apart, each is before the other and neither is after. */
static inline bool td_seq_after(uint32_t a, uint32_t b)
{
    return (int32_t)(a - b) > 0;
}

/* TCP header flag bits as on the wire (AE is the former NS bit). */
enum {
    TD_TH_FIN = 0x001,
    TD_TH_SYN = 0x002,
    TD_TH_RST = 0x004,
    TD_TH_PSH = 0x008,
    TD_TH_ACK = 0x010,
    TD_TH_URG = 0x020,
    TD_TH_ECE = 0x040,
    TD_TH_CWR = 0x080,
    TD_TH_AE  = 0x100,
};

/* IP ECN codepoints, numbered as on the wire (RFC 3168 §5). */
typedef enum td_ip_ecn {
    TD_NOT_ECT = 0,
    TD_ECT1    = 1,
    TD_ECT0    = 2,
    TD_CE      = 3,
} td_ip_ecn;

/* TCP options as announced in one segment (bits of td_tcp_options.present). */
enum {
    TD_OPT_MSS       = 1 << 0,
    TD_OPT_WSCALE    = 1 << 1,
    TD_OPT_SACK_PERM = 1 << 2,
    TD_OPT_TS        = 1 << 3,
    TD_OPT_TFO       = 1 << 4,
    TD_OPT_MPTCP     = 1 << 5,
    TD_OPT_ACCECN    = 1 << 6,
    TD_OPT_ALL       = (1 << 7) - 1,
};

typedef struct td_tcp_options {
    bool     complete;      /* every option byte was captured and well formed */
    uint8_t  present;       /* TD_OPT_*: the well-formed options, also those before a bad one */
    uint8_t  unknown;       /* TD_OPT_* the unreadable bytes may hold (none when complete) */
    uint16_t mss;
    uint8_t  wscale;
    uint8_t  nop_run;       /* the longest run of NOPs (td_options_overwritten) */
    bool     ts_valid;      /* a well-formed timestamps option: */
    uint32_t tsval, tsecr;
} td_tcp_options;

typedef struct td_addr {
    uint8_t len;        /* 4 (IPv4), 16 (IPv6), 0 when unknown */
    uint8_t bytes[16];
} td_addr;

typedef struct td_record {
    uint32_t frame;
    int64_t  time_ns;        /* capture timestamp */
    uint32_t stream;         /* Wireshark's tcp.stream */
    td_addr  src, dst;
    uint16_t sport, dport;
    uint16_t tcp_flags;
    uint8_t  ip_ecn;         /* td_ip_ecn; meaningful only with has_ip_ecn */
    bool     has_ip_ecn;
    bool     ip_len_zero;    /* IPv4 total length 0: a TSO packet as its sender captured it */
    uint32_t seq, ack;       /* raw (absolute) sequence numbers */
    uint16_t window;         /* raw window field, unscaled */
    bool     has_window;     /* false when the capture cut the header before it */
    uint32_t payload_len;
    bool     payload_from_ip; /* the record was cut below the IP length, which gave payload_len */
    bool     has_ip_id;      /* IPv4: ip_id is the header's identification */
    uint16_t ip_id;
    td_tcp_options options;
} td_record;

#endif
