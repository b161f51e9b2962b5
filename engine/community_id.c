/* Community ID v1 of a TCP flow (community_id.h). */
#include "community_id.h"

#include <string.h>
#include <glib.h>

enum { PROTO_TCP = 6, SHA1_LEN = 20 };

/* The spec orders the two endpoints so that both directions hash alike: the smaller
 * address first, or, between equal addresses, the smaller port. */
static bool in_order(const td_addr *a, uint16_t a_port, const td_addr *b, uint16_t b_port)
{
    int c = memcmp(a->bytes, b->bytes, a->len);
    return c < 0 || (c == 0 && a_port <= b_port);
}

static void put16(GChecksum *sum, uint16_t v)
{
    const guchar bytes[2] = { (guchar)(v >> 8), (guchar)v };
    g_checksum_update(sum, bytes, sizeof bytes);
}

void td_community_id_tcp(const td_addr *a, uint16_t a_port, const td_addr *b, uint16_t b_port, uint16_t seed,
                         char out[TD_COMMUNITY_ID_SIZE])
{
    /* protocol number, then one byte of padding */
    static const guchar proto[2] = { PROTO_TCP, 0 };
    guint8 digest[SHA1_LEN];
    gsize len = sizeof digest;
    GChecksum *sum;
    gchar *b64;

    out[0] = '\0';
    if ((a->len != 4 && a->len != 16) || a->len != b->len)
        return;
    if (!in_order(a, a_port, b, b_port)) {
        const td_addr *t = a;
        uint16_t p = a_port;
        a = b, a_port = b_port;
        b = t, b_port = p;
    }
    sum = g_checksum_new(G_CHECKSUM_SHA1);
    put16(sum, seed);
    g_checksum_update(sum, a->bytes, a->len);
    g_checksum_update(sum, b->bytes, b->len);
    g_checksum_update(sum, proto, sizeof proto);
    put16(sum, a_port);
    put16(sum, b_port);
    g_checksum_get_digest(sum, digest, &len);
    g_checksum_free(sum);
    b64 = g_base64_encode(digest, len);
    g_snprintf(out, TD_COMMUNITY_ID_SIZE, "1:%s", b64);
    g_free(b64);
}
