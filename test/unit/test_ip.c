/* The reader of the IP layer (engine/ip.c): hand-built IPv4 and IPv6 headers and
 * extension chains, laid out byte by byte as RFC 791, RFC 8200 (with RFC 4302 for
 * AH, RFC 6275 for Mobility, RFC 2675 for jumbograms) draw them; the expected
 * offsets are counted from those layouts. */
#include <glib.h>
#include <string.h>
#include "ip.h"

enum { TCP = 6, HOP_BY_HOP = 0, ROUTING = 43, FRAGMENT = 44, ESP = 50, AH = 51, NO_NEXT = 59,
       DESTINATION = 60, MOBILITY = 135, SHIM6 = 140 };

typedef struct bytes {
    uint8_t b[4096];
    size_t len;
} bytes;

static void put(bytes *f, const uint8_t *p, size_t n)
{
    g_assert_cmpuint(f->len + n, <=, sizeof f->b);
    memcpy(f->b + f->len, p, n);
    f->len += n;
}

/* RFC 791 §3.1: version and IHL, TOS, total length, identification, flags and
 * fragment offset, TTL, protocol, checksum, source, destination; then IHL - 5
 * words of options (here NOPs ended by End of Option List). */
static void ipv4(bytes *f, unsigned ihl, uint16_t total, uint16_t id, uint16_t flags_offset, uint8_t proto)
{
    uint8_t h[60] = { (uint8_t)(0x40 | ihl), 0, (uint8_t)(total >> 8), (uint8_t)total, (uint8_t)(id >> 8),
                      (uint8_t)id, (uint8_t)(flags_offset >> 8), (uint8_t)flags_offset, 64, proto, 0, 0,
                      192, 0, 2, 1, 198, 51, 100, 2 };
    for (unsigned i = 20; i < ihl * 4; i++)
        h[i] = i + 1 < ihl * 4 ? 1 : 0;
    put(f, h, ihl * 4);
}

/* RFC 8200 §3: version, traffic class, flow label, payload length, next header,
 * hop limit, source, destination (2001:db8::1 -> 2001:db8::2). */
static void ipv6(bytes *f, uint16_t payload_length, uint8_t next)
{
    uint8_t h[40] = { 0x60, 0, 0, 0, (uint8_t)(payload_length >> 8), (uint8_t)payload_length, next, 64,
                      0x20, 0x01, 0x0d, 0xb8, [23] = 1, 0x20, 0x01, 0x0d, 0xb8, [39] = 2 };
    put(f, h, sizeof h);
}

/* RFC 8200 §4.3, 4.4, 4.6: next header, length in 8-byte units not counting the
 * first 8, then options or routing data; filled with one PadN option (type 1). */
static void options_header(bytes *f, uint8_t next, uint8_t units)
{
    uint8_t h[2048] = { next, units, 1, (uint8_t)((units + 1) * 8 - 4) };
    put(f, h, (units + 1u) * 8);
}

/* RFC 8200 §4.4: a routing header, type 4 (segment routing), segments left 0, and
 * one 16-byte address: length 2. */
static void routing_header(bytes *f, uint8_t next)
{
    uint8_t h[24] = { next, 2, 4, 0, [8] = 0x20, 0x01, 0x0d, 0xb8, [23] = 9 };
    put(f, h, sizeof h);
}

/* RFC 8200 §4.5: next header, reserved, 13-bit offset (8-byte units), 2 reserved
 * bits, M; 32-bit identification. */
static void fragment_header(bytes *f, uint8_t next, uint16_t offset_units, bool more, uint32_t id)
{
    uint16_t field = (uint16_t)(offset_units << 3 | (more ? 1 : 0));
    uint8_t h[8] = { next, 0, (uint8_t)(field >> 8), (uint8_t)field,
                     (uint8_t)(id >> 24), (uint8_t)(id >> 16), (uint8_t)(id >> 8), (uint8_t)id };
    put(f, h, sizeof h);
}

/* RFC 6275 §6.1.1: payload proto, header length (8-byte units past the first 8),
 * MH type (0: Binding Refresh Request), reserved, checksum, and the message's
 * 2 reserved bytes: 8 bytes. */
static void mobility_header(bytes *f, uint8_t payload_proto)
{
    uint8_t h[8] = { payload_proto, 0, 0, 0 };
    put(f, h, sizeof h);
}

/* A TCP header's first 20 bytes: where a walk lands is read by its ports. */
static void tcp(bytes *f)
{
    uint8_t h[20] = { 0x9c, 0x40, 0x01, 0xbb, [12] = 0x50, 0x02 };
    put(f, h, sizeof h);
}

static td_ip read(const bytes *f, td_ip_verdict expected)
{
    td_ip ip;
    g_assert_cmpint(td_ip_read(f->b, f->len, &ip), ==, expected);
    return ip;
}

static void test_ipv4(void)
{
    bytes f = { .len = 0 };
    td_ip ip;
    td_addr src, dst;
    static const uint8_t client[4] = { 192, 0, 2, 1 }, server[4] = { 198, 51, 100, 2 };

    ipv4(&f, 5, 60, 0x1234, 0x4000, TCP);       /* DF: no fragment */
    tcp(&f);
    ip = read(&f, TD_IP_READ);
    g_assert_cmpuint(ip.version, ==, 4);
    g_assert_cmpuint(ip.proto, ==, TCP);
    g_assert_cmpuint(ip.payload_at, ==, 20);
    g_assert_cmpuint(ip.length, ==, 60);
    g_assert_false(td_ip_is_fragment(&ip));
    g_assert_true(td_ip_addresses(f.b, f.len, &src, &dst));
    g_assert_cmpuint(src.len, ==, 4);
    g_assert_cmpmem(src.bytes, 4, client, 4);
    g_assert_cmpmem(dst.bytes, 4, server, 4);

    /* a total length of 0: TSO as the sender captured it, read on */
    f.len = 0;
    ipv4(&f, 5, 0, 1, 0, TCP);
    ip = read(&f, TD_IP_READ);
    g_assert_cmpuint(ip.length, ==, 0);
    g_assert_cmpuint(ip.payload_at, ==, 20);
}

/* IHL above 5: options between the fixed header and the payload. */
static void test_ipv4_options(void)
{
    for (unsigned ihl = 6; ihl <= 15; ihl += 9) {
        bytes f = { .len = 0 };
        ipv4(&f, ihl, (uint16_t)(ihl * 4 + 20), 7, 0, TCP);
        tcp(&f);
        td_ip ip = read(&f, TD_IP_READ);
        g_assert_cmpuint(ip.payload_at, ==, ihl * 4);
        g_assert_cmpuint(f.b[ip.payload_at], ==, 0x9c);
        /* the options cut by the capture: the header is not whole */
        f.len = ihl * 4 - 1;
        read(&f, TD_IP_TRUNCATED);
    }
}

/* RFC 791: the first fragment has offset 0 and MF (0x2000); a later one an offset
 * in 8-byte units (the low 13 bits); DF and the reserved bit say nothing. */
static void test_ipv4_fragments(void)
{
    bytes f = { .len = 0 };
    td_ip ip;

    ipv4(&f, 5, 1500, 0xbeef, 0x2000, TCP);
    tcp(&f);
    ip = read(&f, TD_IP_READ);
    g_assert_true(td_ip_is_fragment(&ip));
    g_assert_true(ip.more_fragments);
    g_assert_cmpuint(ip.fragment_offset, ==, 0);
    g_assert_cmphex(ip.fragment_id, ==, 0xbeef);
    g_assert_cmpuint(ip.fragment_at, ==, 20);
    g_assert_cmpuint(ip.fragment_proto, ==, TCP);
    g_assert_cmpuint(ip.proto, ==, TCP);
    g_assert_cmpuint(ip.payload_at, ==, 20);

    /* the second of two: 1480 bytes in (185 units), the last; reserved bit set */
    f.len = 0;
    ipv4(&f, 5, 60, 0xbeef, 0x8000 | 185, TCP);
    ip = read(&f, TD_IP_READ);
    g_assert_true(td_ip_is_fragment(&ip));
    g_assert_false(ip.more_fragments);
    g_assert_cmpuint(ip.fragment_offset, ==, 1480);
    g_assert_cmpuint(ip.fragment_at, ==, 20);

    /* a middle one: both */
    f.len = 0;
    ipv4(&f, 5, 1500, 0xbeef, 0x2000 | 185, TCP);
    ip = read(&f, TD_IP_READ);
    g_assert_true(ip.more_fragments);
    g_assert_cmpuint(ip.fragment_offset, ==, 1480);
}

/* Not a header, or one that contradicts itself; and headers cut short. */
static void test_ipv4_malformed_and_truncated(void)
{
    bytes f = { .len = 0 };

    ipv4(&f, 5, 40, 1, 0, TCP);
    f.b[0] = 0x44;                      /* IHL 4: below the fixed header */
    read(&f, TD_IP_MALFORMED);
    f.b[0] = 0x46;                      /* IHL 6 (24 bytes) with a total length of 20 */
    f.b[2] = 0, f.b[3] = 20;
    read(&f, TD_IP_MALFORMED);
    f.b[0] = 0x55;                      /* version 5 */
    read(&f, TD_IP_MALFORMED);
    f.b[0] = 0x45;
    f.len = 19;                         /* the fixed header cut */
    read(&f, TD_IP_TRUNCATED);
    f.len = 0;
    read(&f, TD_IP_TRUNCATED);
}

static void test_ipv6(void)
{
    bytes f = { .len = 0 };
    td_ip ip;
    td_addr src, dst;

    ipv6(&f, 20, TCP);
    tcp(&f);
    ip = read(&f, TD_IP_READ);
    g_assert_cmpuint(ip.version, ==, 6);
    g_assert_cmpuint(ip.proto, ==, TCP);
    g_assert_cmpuint(ip.payload_at, ==, 40);
    g_assert_cmpuint(ip.length, ==, 60);
    g_assert_false(td_ip_is_fragment(&ip));
    g_assert_true(td_ip_addresses(f.b, f.len, &src, &dst));
    g_assert_cmpuint(src.len, ==, 16);
    g_assert_cmpuint(src.bytes[15], ==, 1);
    g_assert_cmpuint(dst.bytes[15], ==, 2);
    g_assert_false(td_ip_addresses(f.b, 39, &src, &dst));
    f.len = 39;
    read(&f, TD_IP_TRUNCATED);
}

/* Hop-by-Hop (8 bytes), Routing (24), Destination Options (16), then TCP: the
 * upper-layer header at 40 + 8 + 24 + 16 = 88. AH after them: (4 + 2) * 4 = 24
 * more; Shim6 is stepped over as Wireshark does: 8 more. */
static void test_ipv6_chain(void)
{
    bytes f = { .len = 0 };
    td_ip ip;

    ipv6(&f, 68, HOP_BY_HOP);
    options_header(&f, ROUTING, 0);
    routing_header(&f, DESTINATION);
    options_header(&f, TCP, 1);
    tcp(&f);
    ip = read(&f, TD_IP_READ);
    g_assert_cmpuint(ip.proto, ==, TCP);
    g_assert_cmpuint(ip.payload_at, ==, 88);

    f.len = 0;
    ipv6(&f, 60, DESTINATION);
    options_header(&f, AH, 0);
    uint8_t ah[24] = { SHIM6, 4 };      /* RFC 4302 §2: next header, payload length 4 (6 words) */
    put(&f, ah, sizeof ah);
    options_header(&f, TCP, 0);         /* Shim6 (RFC 5533 §5): next header, length */
    tcp(&f);
    ip = read(&f, TD_IP_READ);
    g_assert_cmpuint(ip.proto, ==, TCP);
    g_assert_cmpuint(ip.payload_at, ==, 40 + 8 + 24 + 8);
}

/* A Mobility header ends the chain, even when its Payload Proto names TCP: it is
 * the upper layer (RFC 6275 §6.1.1; Wireshark hands nothing on). So do ESP, No
 * Next Header and the experimental values. */
static void test_ipv6_mobility_ends_the_chain(void)
{
    bytes f = { .len = 0 };
    td_ip ip;

    ipv6(&f, 28, MOBILITY);
    mobility_header(&f, TCP);
    tcp(&f);
    ip = read(&f, TD_IP_READ);
    g_assert_cmpuint(ip.proto, ==, MOBILITY);
    g_assert_cmpuint(ip.payload_at, ==, 40);

    f.len = 0;
    ipv6(&f, 36, DESTINATION);          /* a Home Address option's header, then Mobility */
    options_header(&f, MOBILITY, 0);
    mobility_header(&f, NO_NEXT);
    tcp(&f);
    ip = read(&f, TD_IP_READ);
    g_assert_cmpuint(ip.proto, ==, MOBILITY);
    g_assert_cmpuint(ip.payload_at, ==, 48);

    static const uint8_t ends[] = { ESP, NO_NEXT, 139, 253, 254 };
    for (unsigned i = 0; i < G_N_ELEMENTS(ends); i++) {
        f.len = 0;
        ipv6(&f, 28, ends[i]);
        options_header(&f, TCP, 0);
        tcp(&f);
        ip = read(&f, TD_IP_READ);
        g_assert_cmpuint(ip.proto, ==, ends[i]);
        g_assert_cmpuint(ip.payload_at, ==, 40);
    }
}

/* No count of headers: 40 Destination Options headers (past the 8 and 16 the
 * front ends had) are walked to TCP at 40 + 40 * 8; the bytes are the limit: the
 * same chain with its last header cut is truncated. */
static void test_ipv6_chain_length(void)
{
    bytes f = { .len = 0 };
    td_ip ip;

    ipv6(&f, 40 * 8 + 20, DESTINATION);
    for (int i = 0; i < 40; i++)
        options_header(&f, i == 39 ? TCP : DESTINATION, 0);
    tcp(&f);
    ip = read(&f, TD_IP_READ);
    g_assert_cmpuint(ip.proto, ==, TCP);
    g_assert_cmpuint(ip.payload_at, ==, 360);

    f.len = 40 + 39 * 8 + 7;
    read(&f, TD_IP_TRUNCATED);
    f.len = 40 + 39 * 8 + 1;            /* not even its length byte */
    read(&f, TD_IP_TRUNCATED);
    f.len = 360;                        /* the chain whole, the TCP header not captured */
    ip = read(&f, TD_IP_READ);
    g_assert_cmpuint(ip.payload_at, ==, 360);
}

/* A header cut inside: a 16-byte Destination Options header with 12 bytes
 * captured, and a Routing header whose length runs past the capture. */
static void test_ipv6_truncated(void)
{
    bytes f = { .len = 0 };

    ipv6(&f, 36, DESTINATION);
    options_header(&f, TCP, 1);
    tcp(&f);
    f.len = 40 + 12;
    read(&f, TD_IP_TRUNCATED);

    f.len = 0;
    ipv6(&f, 44, ROUTING);
    routing_header(&f, TCP);
    f.len -= 1;
    read(&f, TD_IP_TRUNCATED);
}

/* RFC 8200 §4.5: the first piece (offset 0, M) holds the rest of the chain and
 * the TCP header; a later piece's bytes are the fragmentable part's middle: the
 * walk ends at the Fragment header, with its next header as the protocol. */
static void test_ipv6_fragments(void)
{
    bytes f = { .len = 0 };
    td_ip ip;

    ipv6(&f, 1240, FRAGMENT);
    fragment_header(&f, DESTINATION, 0, true, 0xdeadbeef);
    options_header(&f, TCP, 0);
    tcp(&f);
    ip = read(&f, TD_IP_READ);
    g_assert_true(td_ip_is_fragment(&ip));
    g_assert_true(ip.more_fragments);
    g_assert_cmpuint(ip.fragment_offset, ==, 0);
    g_assert_cmphex(ip.fragment_id, ==, 0xdeadbeef);
    g_assert_cmpuint(ip.fragment_at, ==, 48);
    g_assert_cmpuint(ip.fragment_proto, ==, DESTINATION);
    g_assert_cmpuint(ip.proto, ==, TCP);
    g_assert_cmpuint(ip.payload_at, ==, 56);

    /* the second piece, 1232 bytes in (154 units), the last; the bytes after the
     * Fragment header look like a header but are payload */
    f.len = 0;
    ipv6(&f, 36, FRAGMENT);
    fragment_header(&f, DESTINATION, 154, false, 0xdeadbeef);
    options_header(&f, TCP, 0);
    tcp(&f);
    ip = read(&f, TD_IP_READ);
    g_assert_true(td_ip_is_fragment(&ip));
    g_assert_false(ip.more_fragments);
    g_assert_cmpuint(ip.fragment_offset, ==, 1232);
    g_assert_cmpuint(ip.proto, ==, DESTINATION);
    g_assert_cmpuint(ip.payload_at, ==, 48);

    /* an atomic fragment (RFC 6946), its reserved bits set: whole, read on */
    f.len = 0;
    ipv6(&f, 28, FRAGMENT);
    fragment_header(&f, TCP, 0, false, 7);
    f.b[40 + 3] |= 0x06;
    tcp(&f);
    ip = read(&f, TD_IP_READ);
    g_assert_false(td_ip_is_fragment(&ip));
    g_assert_cmpuint(ip.proto, ==, TCP);
    g_assert_cmpuint(ip.payload_at, ==, 48);
}

/* Reassembled, a fragmentable part may open with more extension headers (RFC
 * 8200 §4.5: those not needed on the way): a Destination Options header (16
 * bytes) then TCP, walked from the Fragment header's next header. */
static void test_reassembled_chain(void)
{
    bytes f = { .len = 0 };
    td_ip ip;

    options_header(&f, TCP, 1);
    tcp(&f);
    g_assert_cmpint(td_ip_read_chain(f.b, f.len, DESTINATION, &ip), ==, TD_IP_READ);
    g_assert_cmpuint(ip.proto, ==, TCP);
    g_assert_cmpuint(ip.payload_at, ==, 16);
    g_assert_false(td_ip_is_fragment(&ip));
    g_assert_cmpint(td_ip_read_chain(f.b + 16, f.len - 16, TCP, &ip), ==, TD_IP_READ);
    g_assert_cmpuint(ip.payload_at, ==, 0);
    g_assert_cmpint(td_ip_read_chain(f.b, 12, DESTINATION, &ip), ==, TD_IP_TRUNCATED);
}

/* RFC 2675: a payload length of 0 and a Jumbo Payload option (type 0xC2, length
 * 4) in the Hop-by-Hop header, here after a Pad1 and a PadN. */
static void test_ipv6_jumbogram(void)
{
    bytes f = { .len = 0 };
    td_ip ip;
    uint8_t hop_by_hop[16] = { TCP, 1, 0, 1, 3, 0, 0, 0, 0xc2, 4, 0x00, 0x01, 0x11, 0x70, 1, 0 };

    ipv6(&f, 0, HOP_BY_HOP);
    put(&f, hop_by_hop, sizeof hop_by_hop);
    tcp(&f);
    ip = read(&f, TD_IP_READ);
    g_assert_cmpuint(ip.length, ==, 0);
    g_assert_true(ip.has_jumbo);
    g_assert_cmpuint(ip.jumbo_length, ==, 70000);
    g_assert_cmpuint(ip.payload_at, ==, 56);

    /* with a payload length the option is not looked for */
    f.b[5] = 36;
    ip = read(&f, TD_IP_READ);
    g_assert_false(ip.has_jumbo);
    g_assert_cmpuint(ip.length, ==, 76);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/ip/ipv4", test_ipv4);
    g_test_add_func("/ip/ipv4_options", test_ipv4_options);
    g_test_add_func("/ip/ipv4_fragments", test_ipv4_fragments);
    g_test_add_func("/ip/ipv4_malformed_and_truncated", test_ipv4_malformed_and_truncated);
    g_test_add_func("/ip/ipv6", test_ipv6);
    g_test_add_func("/ip/ipv6_chain", test_ipv6_chain);
    g_test_add_func("/ip/ipv6_mobility_ends_the_chain", test_ipv6_mobility_ends_the_chain);
    g_test_add_func("/ip/ipv6_chain_length", test_ipv6_chain_length);
    g_test_add_func("/ip/ipv6_truncated", test_ipv6_truncated);
    g_test_add_func("/ip/ipv6_fragments", test_ipv6_fragments);
    g_test_add_func("/ip/reassembled_chain", test_reassembled_chain);
    g_test_add_func("/ip/ipv6_jumbogram", test_ipv6_jumbogram);
    return g_test_run();
}
