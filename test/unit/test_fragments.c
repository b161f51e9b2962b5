/* The command's IP reassembly table (cmd/fragments.c): a datagram is handed on once
 * its last piece and every byte before it arrived, whatever their order; pieces that
 * contradict each other, hostile piece counts and the table's bounds give datagrams
 * up instead of growing. */
#include <glib.h>
#include <string.h>
#include "fragments.h"

static td_fragment_key key_of(uint32_t ident)
{
    td_fragment_key key;
    memset(&key, 0, sizeof key);
    key.src.len = key.dst.len = 4;
    memcpy(key.src.bytes, (uint8_t[]){ 10, 0, 0, 1 }, 4);
    memcpy(key.dst.bytes, (uint8_t[]){ 10, 0, 0, 2 }, 4);
    key.ident = ident;
    key.proto = 6;
    return key;
}

/* bytes[i] = i % 251 (filled once, in main), so that a piece put in the wrong
 * place shows */
static uint8_t payload[3000];

static const uint8_t *add(td_fragments *t, uint32_t ident, uint32_t offset, uint32_t len, bool more, uint32_t *whole)
{
    td_fragment_key key = key_of(ident);
    return td_fragments_add(t, &key, &(td_fragment){ offset, more, payload + offset, len }, whole);
}

static void setup_payload(void)
{
    for (unsigned i = 0; i < sizeof payload; i++)
        payload[i] = (uint8_t)(i % 251);
}

static void test_in_any_order(void)
{
    /* three pieces of 1,000 bytes, in each of the six orders */
    static const int orders[6][3] = { {0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0} };
    td_fragments *t = td_fragments_new();
    uint32_t whole = 0;

    for (int o = 0; o < 6; o++) {
        for (int i = 0; i < 3; i++) {
            int piece = orders[o][i];
            const uint8_t *got = add(t, (uint32_t)o, (uint32_t)piece * 1000, 1000, piece < 2, &whole);
            if (i < 2) {
                g_assert_null(got);
            } else {
                g_assert_nonnull(got);
                g_assert_cmpuint(whole, ==, 3000);
                g_assert_cmpmem(got, 3000, payload, 3000);
            }
        }
    }
    td_fragments_free(t);
}

static void test_overlap_and_duplicates(void)
{
    td_fragments *t = td_fragments_new();
    uint32_t whole = 0;

    g_assert_null(add(t, 7, 0, 1200, true, &whole));
    g_assert_null(add(t, 7, 0, 1200, true, &whole));          /* a duplicate */
    g_assert_null(add(t, 7, 2000, 1000, false, &whole));
    g_assert_null(add(t, 7, 800, 800, true, &whole));           /* overlaps the first, leaves a hole */
    const uint8_t *got = add(t, 7, 1600, 400, true, &whole);    /* fills it */
    g_assert_nonnull(got);
    g_assert_cmpuint(whole, ==, 3000);
    g_assert_cmpmem(got, 3000, payload, 3000);
    /* the datagram was handed on: the same key starts a new one */
    g_assert_null(add(t, 7, 2000, 1000, false, &whole));
    td_fragments_free(t);
}

static void test_missing_piece_never_completes(void)
{
    td_fragments *t = td_fragments_new();
    uint32_t whole = 0;

    g_assert_null(add(t, 1, 0, 1000, true, &whole));
    g_assert_null(add(t, 1, 2000, 1000, false, &whole));
    g_assert_null(add(t, 2, 1000, 1000, true, &whole));        /* another datagram's piece */
    td_fragments_free(t);
}

static void test_contradictions(void)
{
    td_fragments *t = td_fragments_new();
    uint32_t whole = 0;

    /* two ends: given up, so the middle piece completes nothing */
    g_assert_null(add(t, 3, 0, 1000, true, &whole));
    g_assert_null(add(t, 3, 2000, 1000, false, &whole));
    g_assert_null(add(t, 3, 1000, 1000, false, &whole));
    g_assert_null(add(t, 3, 1000, 1000, true, &whole));
    /* bytes past the end */
    g_assert_null(add(t, 4, 1000, 1000, false, &whole));
    g_assert_null(add(t, 4, 1500, 1000, true, &whole));        /* past the end at 2000: given up */
    g_assert_null(add(t, 4, 0, 1000, true, &whole));
    /* a piece past the largest datagram */
    td_fragment_key key = key_of(5);
    g_assert_null(td_fragments_add(t, &key, &(td_fragment){ 65528, false, payload, 16 }, &whole));
    td_fragments_free(t);
}

static void test_hostile_holes(void)
{
    td_fragments *t = td_fragments_new();
    uint32_t whole = 0;

    /* 8-byte pieces with 8-byte holes between them: beyond the ranges a datagram
     * may hold, it is given up; filling the holes then completes nothing */
    for (uint32_t at = 0; at < 2048; at += 16)
        g_assert_null(add(t, 9, at, 8, true, &whole));
    g_assert_null(add(t, 9, 2048, 8, false, &whole));
    for (uint32_t at = 8; at < 2048; at += 16)
        g_assert_null(add(t, 9, at, 8, true, &whole));
    td_fragments_free(t);
}

/* A tunnel's datagram, itself reassembled, may carry the piece that completes an
 * inner datagram: that piece's bytes lie in the outer datagram, which must live
 * until the frame is done (under ASan, freeing it at the next add reads freed memory). */
static void test_nested_in_one_frame(void)
{
    td_fragments *t = td_fragments_new();
    uint32_t outer_len = 0, inner_len = 0;

    g_assert_null(add(t, 20, 0, 1000, true, &inner_len));             /* the inner datagram's first half */
    g_assert_null(add(t, 21, 0, 1000, true, &outer_len));
    const uint8_t *outer = add(t, 21, 1000, 1000, false, &outer_len);  /* the frame that completes both */
    g_assert_nonnull(outer);
    td_fragment_key key = key_of(20);
    const uint8_t *inner = td_fragments_add(t, &key, &(td_fragment){ 1000, false, outer + 1000, 1000 }, &inner_len);
    g_assert_nonnull(inner);
    g_assert_cmpuint(inner_len, ==, 2000);
    g_assert_cmpmem(inner, 2000, payload, 2000);
    g_assert_cmpmem(outer, 2000, payload, 2000);
    td_fragments_frame_done(t);
    td_fragments_free(t);
}

static void test_bounded(void)
{
    td_fragments *t = td_fragments_new();
    uint32_t whole = 0;

    /* datagram 0's first piece, then more pending datagrams than the table keeps:
     * datagram 0 is pushed out, so its last piece completes nothing */
    g_assert_null(add(t, 0, 0, 1000, true, &whole));
    for (uint32_t ident = 1; ident <= TD_FRAGMENTS_MAX_PENDING; ident++)
        g_assert_null(add(t, ident, 0, 8, true, &whole));
    g_assert_null(add(t, 0, 1000, 1000, false, &whole));
    /* the newest are still there */
    g_assert_nonnull(add(t, TD_FRAGMENTS_MAX_PENDING, 8, 8, false, &whole));
    g_assert_cmpuint(whole, ==, 16);
    td_fragments_free(t);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    setup_payload();
    g_test_add_func("/fragments/in_any_order", test_in_any_order);
    g_test_add_func("/fragments/overlap_and_duplicates", test_overlap_and_duplicates);
    g_test_add_func("/fragments/missing_piece_never_completes", test_missing_piece_never_completes);
    g_test_add_func("/fragments/contradictions", test_contradictions);
    g_test_add_func("/fragments/hostile_holes", test_hostile_holes);
    g_test_add_func("/fragments/nested_in_one_frame", test_nested_in_one_frame);
    g_test_add_func("/fragments/bounded", test_bounded);
    return g_test_run();
}
