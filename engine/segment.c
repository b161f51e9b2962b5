/* The reader of a TCP segment from bytes: the fixed header, the lengths the IP
 * header and the frame give the segment, and the option bytes. */
#include "segment.h"

#include <stdbool.h>
#include <string.h>

enum { TCP_SEQ_AT = 4, TCP_ACK_AT = 8, TCP_FLAGS_AT = 12, TCP_WINDOW_AT = 14 };

static uint16_t get16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

void td_segment_read_ports(const uint8_t *tcp, td_record *rec)
{
    rec->sport = get16(tcp);
    rec->dport = get16(tcp + 2);
}

unsigned td_segment_read_header(const uint8_t *tcp, size_t captured, td_record *rec)
{
    td_segment_read_ports(tcp, rec);
    rec->seq = get32(tcp + TCP_SEQ_AT);
    rec->ack = get32(tcp + TCP_ACK_AT);
    rec->tcp_flags = get16(tcp + TCP_FLAGS_AT) & 0x0fff;
    rec->has_window = captured >= TD_TCP_WINDOW_END;
    if (rec->has_window)
        rec->window = get16(tcp + TCP_WINDOW_AT);
    return (tcp[TCP_FLAGS_AT] >> 4) * 4u;
}

void td_segment_lengths(td_record *rec, const uint8_t *ip, int64_t tcp_offset, unsigned tcp_header,
                        int64_t reported)
{
    int64_t ip_len = 0, from_ip, len;

    reported -= tcp_header;
    if (ip) {
        rec->has_ip_ecn = true;
        if (rec->src.len == 4) {
            rec->ip_ecn = ip[1] & 3;
            ip_len = ip[2] << 8 | ip[3];
            rec->ip_id = (uint16_t)(ip[4] << 8 | ip[5]);
            rec->has_ip_id = true;
            rec->ip_len_zero = ip_len == 0;
        } else {
            rec->ip_ecn = (ip[1] >> 4) & 3;
            ip_len = ip[4] << 8 | ip[5];
            ip_len = ip_len ? ip_len + 40 : 0;
        }
    }
    from_ip = ip_len - tcp_offset - tcp_header;
    if (ip_len && from_ip > reported && from_ip > 0) {
        rec->payload_len = (uint32_t)from_ip;
        rec->payload_from_ip = true;
        return;
    }
    len = ip_len && from_ip < reported ? from_ip : reported;
    rec->payload_len = len > 0 ? (uint32_t)len : 0;
}

void td_segment_read_options(const uint8_t *tcp, size_t captured, unsigned tcp_header, td_tcp_options *out)
{
    size_t options_captured = captured > TD_TCP_MIN_HEADER ? captured - TD_TCP_MIN_HEADER : 0;

    td_options_parse(options_captured ? tcp + TD_TCP_MIN_HEADER : NULL, options_captured, tcp_header - TD_TCP_MIN_HEADER, out);
}

enum {
    KIND_EOL = 0, KIND_NOP = 1, KIND_MSS = 2, KIND_WSCALE = 3, KIND_SACK_PERM = 4,
    KIND_TS = 8, KIND_MPTCP = 30, KIND_TFO = 34, KIND_ACCECN0 = 172, KIND_ACCECN1 = 174,
    KIND_EXPERIMENT = 254,
};
enum { EXP_TFO = 0xF989, EXP_ACCECN0 = 0xACC0, EXP_ACCECN1 = 0xACC1 };

static unsigned experiment_bit(const uint8_t *option, size_t len)
{
    unsigned exid;

    if (len < 4)
        return 0;
    exid = (unsigned)(option[2] << 8 | option[3]);
    if (exid == EXP_TFO)
        return TD_OPT_TFO;
    return (exid == EXP_ACCECN0 || exid == EXP_ACCECN1) ? TD_OPT_ACCECN : 0;
}

/* The option bits a kind may announce; an experiment names its own in its ExID. */
static unsigned kind_bits(uint8_t kind)
{
    switch (kind) {
    case KIND_MSS:        return TD_OPT_MSS;
    case KIND_WSCALE:     return TD_OPT_WSCALE;
    case KIND_SACK_PERM:  return TD_OPT_SACK_PERM;
    case KIND_TS:         return TD_OPT_TS;
    case KIND_MPTCP:      return TD_OPT_MPTCP;
    case KIND_TFO:        return TD_OPT_TFO;
    case KIND_ACCECN0:
    case KIND_ACCECN1:    return TD_OPT_ACCECN;
    case KIND_EXPERIMENT: return TD_OPT_TFO | TD_OPT_ACCECN;
    default:              return 0;
    }
}

void td_options_parse(const uint8_t *bytes, size_t captured, size_t declared, td_tcp_options *out)
{
    size_t len = captured < declared ? captured : declared, at = 0;
    unsigned nops = 0;

    memset(out, 0, sizeof *out);
    /* NOP, NOP, timestamps: what every segment but the SYNs carries on a connection
     * with timestamps (RFC 7323 Appendix A's layout, Linux's and others'), read
     * at once: the same fields the walk below sets for these 12 bytes */
    if (declared == 12 && captured >= 12 && bytes[0] == KIND_NOP && bytes[1] == KIND_NOP &&
        bytes[2] == KIND_TS && bytes[3] == 10) {
        out->complete = true;
        out->present = TD_OPT_TS;
        out->nop_run = 2;
        out->ts_valid = true;
        out->tsval = get32(bytes + 4);
        out->tsecr = get32(bytes + 8);
        return;
    }
    while (at < len) {
        uint8_t kind = bytes[at];
        if (kind == KIND_EOL)
            break;
        if (kind == KIND_NOP) {
            at++;
            nops++;
            if (nops > out->nop_run)
                out->nop_run = (uint8_t)nops;
            continue;
        }
        nops = 0;
        if (at + 1 >= len || bytes[at + 1] < 2 || at + bytes[at + 1] > len) {
            /* An option that overruns a header captured whole hides only itself. */
            bool overruns = captured >= declared && (at + 1 >= len || at + bytes[at + 1] > len);
            out->unknown = (uint8_t)((overruns ? kind_bits(kind) : TD_OPT_ALL) & ~out->present);
            return;
        }
        const uint8_t *option = bytes + at;
        size_t option_len = bytes[at + 1];
        switch (kind) {
        case KIND_MSS:
            if (option_len == 4) {
                out->present |= TD_OPT_MSS;
                out->mss = (uint16_t)(option[2] << 8 | option[3]);
            }
            break;
        case KIND_WSCALE:
            if (option_len == 3) {
                out->present |= TD_OPT_WSCALE;
                out->wscale = option[2];
            }
            break;
        case KIND_SACK_PERM: out->present |= TD_OPT_SACK_PERM; break;
        case KIND_TS:
            out->present |= TD_OPT_TS;
            if (option_len == 10) {
                out->ts_valid = true;
                out->tsval = (uint32_t)option[2] << 24 | (uint32_t)option[3] << 16 | (uint32_t)option[4] << 8 | option[5];
                out->tsecr = (uint32_t)option[6] << 24 | (uint32_t)option[7] << 16 | (uint32_t)option[8] << 8 | option[9];
            }
            break;
        case KIND_MPTCP:     out->present |= TD_OPT_MPTCP; break;
        case KIND_TFO:       out->present |= TD_OPT_TFO; break;
        case KIND_ACCECN0:
        case KIND_ACCECN1:   out->present |= TD_OPT_ACCECN; break;
        case KIND_EXPERIMENT: out->present |= (uint8_t)experiment_bit(option, option_len); break;
        default: break;
        }
        at += option_len;
    }
    out->complete = captured >= declared;
    if (!out->complete && at >= len)        /* cut between options */
        out->unknown = (uint8_t)(TD_OPT_ALL & ~out->present);
}
