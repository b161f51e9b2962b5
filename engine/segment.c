/* One reading of a segment's IP header (ECN codepoint, IPv4 length 0, payload length)
 * for the plugin and the command. */
#include "segment.h"

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
