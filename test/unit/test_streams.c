/* cmd/streams.c against tcp.stream. Each case is a packet sequence crafted to
 * tell Wireshark's rules apart; the expected numbers are what tshark 4.0.17,
 * 4.4.18 and 4.6.9 printed for the same sequence (4.4 and 4.6 agree). */
#include <glib.h>
#include <string.h>
#include "streams.h"

enum { A = 0, B = 1 };
enum { S = TD_TH_SYN, SA = TD_TH_SYN | TD_TH_ACK, AK = TD_TH_ACK, F = TD_TH_FIN | TD_TH_ACK, R = TD_TH_RST,
       RA = TD_TH_RST | TD_TH_ACK };

typedef struct pkt {
    int from;
    uint32_t seq, ack;
    uint16_t flags;
    bool quoted;
} pkt;

typedef struct scenario {
    const char *name;
    pkt pkts[8];
    unsigned n;
    uint32_t ws40[8], ws44[8];         /* 4.4 and 4.6 printed the same */
} scenario;

static const scenario SCENARIOS[] = {
    { "same ISN after FIN", { { A, 100, 0, S, false }, { B, 500, 101, SA, false }, { A, 101, 501, AK, false }, { A, 101, 501, F, false },
      { B, 501, 102, F, false }, { A, 102, 502, AK, false }, { A, 100, 0, S, false } }, 7,
      { 0, 0, 0, 0, 0, 0, 0 }, { 0, 0, 0, 0, 0, 0, 1 } },
    { "same ISN after RST, then another ISN", { { A, 100, 0, S, false }, { B, 0, 101, RA, false }, { A, 100, 0, S, false },
      { A, 900, 0, S, false } }, 4, { 0, 0, 0, 1 }, { 0, 0, 1, 2 } },
    { "mid-flow start: counted from seq - 1", { { A, 1000, 1, AK, false }, { A, 999, 0, S, false }, { A, 1000, 0, S, false } }, 3,
      { 0, 0, 1 }, { 0, 0, 1 } },
    { "quoted SYN sets no start", { { A, 7777, 0, S, true }, { A, 100, 0, S, false }, { B, 500, 101, SA, false } }, 3,
      { 0, 0, 0 }, { 0, 0, 0 } },
    { "SYN-ACK with another ISN", { { A, 100, 0, S, false }, { B, 500, 101, SA, false }, { B, 900, 101, SA, false },
      { A, 101, 501, AK, false } }, 4, { 0, 0, 0, 0 }, { 0, 0, 1, 1 } },
    { "peer's first ACK sets the start", { { B, 500, 101, AK, false }, { A, 100, 0, S, false }, { A, 50, 0, S, false } }, 3,
      { 0, 0, 1 }, { 0, 0, 1 } },
    { "a RST, then a SYN at the start the peer acknowledged", { { B, 500, 101, AK, false }, { B, 501, 101, R, false }, { A, 100, 0, S, false } }, 3,
      { 0, 0, 0 }, { 0, 0, 1 } },
    { "no new stream while the sender's count has no start", { { A, 100, 0, S, false },
      { B, 7, 0, TD_TH_FIN | R, false }, { A, 61, 0, S | R, false }, { B, 71, 0, TD_TH_FIN | S | R, false } }, 4,
      { 0, 0, 1, 1 }, { 0, 0, 1, 1 } },
    { "quoted FIN closes too", { { A, 100, 0, S, false }, { B, 500, 101, SA, false }, { A, 101, 501, F, true },
      { A, 100, 0, S, false } }, 4, { 0, 0, 0, 0 }, { 0, 0, 0, 1 } },
};

static td_record record_of(const pkt *p)
{
    td_record rec;
    static const uint8_t a[4] = { 10, 0, 0, 1 }, b[4] = { 10, 0, 0, 2 };

    memset(&rec, 0, sizeof rec);
    rec.src.len = rec.dst.len = 4;
    memcpy(rec.src.bytes, p->from == A ? a : b, 4);
    memcpy(rec.dst.bytes, p->from == A ? b : a, 4);
    rec.sport = p->from == A ? 1000 : 80;
    rec.dport = p->from == A ? 80 : 1000;
    rec.seq = p->seq;
    rec.ack = p->ack;
    rec.tcp_flags = p->flags;
    return rec;
}

static void check(td_wireshark version)
{
    for (unsigned i = 0; i < G_N_ELEMENTS(SCENARIOS); i++) {
        const scenario *sc = &SCENARIOS[i];
        td_streams *streams = td_streams_new(version);
        for (unsigned k = 0; k < sc->n; k++) {
            td_record rec = record_of(&sc->pkts[k]);
            uint32_t want = version == TD_WIRESHARK_4_0 ? sc->ws40[k] : sc->ws44[k];
            uint32_t got = td_streams_number(streams, &rec, !sc->pkts[k].quoted);
            if (got != want)
                g_error("%s, packet %u: stream %u, tshark said %u", sc->name, k + 1, got, want);
        }
        td_streams_free(streams);
    }
}

static void test_wireshark_40(void)
{
    check(TD_WIRESHARK_4_0);
}

static void test_wireshark_44_46(void)
{
    check(TD_WIRESHARK_4_4);
    check(TD_WIRESHARK_4_6);
}

/* Conversations are keyed by both endpoints in either order, IPv4 apart from IPv6;
 * the table holds one entry per conversation, whatever the packets. */
static void test_endpoints(void)
{
    td_streams *streams = td_streams_new(TD_WIRESHARK_4_4);
    pkt data = { A, 100, 1, AK, false };
    td_record rec = record_of(&data), reply;

    for (int i = 0; i < 1000; i++)
        g_assert_cmpuint(td_streams_number(streams, &rec, true), ==, 0);
    reply = rec;
    reply.src = rec.dst;
    reply.dst = rec.src;
    reply.sport = rec.dport;
    reply.dport = rec.sport;
    g_assert_cmpuint(td_streams_number(streams, &reply, true), ==, 0);
    rec.sport++;
    g_assert_cmpuint(td_streams_number(streams, &rec, true), ==, 1);
    rec.src.len = rec.dst.len = 16;
    g_assert_cmpuint(td_streams_number(streams, &rec, true), ==, 2);
    g_assert_cmpuint(td_streams_count(streams), ==, 3);
    {
        uint32_t found = 99;
        g_assert_true(td_streams_find(streams, &reply, &found));
        g_assert_cmpuint(found, ==, 0);
        reply.dport += 10;          /* a port pair never seen */
        g_assert_false(td_streams_find(streams, &reply, &found));
        g_assert_cmpuint(td_streams_count(streams), ==, 3);
    }
    td_streams_free(streams);
}

/* A record's conversation is found from the last one without a key built: the same
 * numbers as the lookup by key, whatever the order of the records. Table `keyed` is
 * made to look every record up by its key (a find of a record it never holds first
 * forgets its last conversation); the endpoints include a host talking to itself on
 * one port and on two, in IPv4 and IPv6, and SYNs with other ISNs reuse ports. */
static void test_last_as_keyed(void)
{
    /* two of each family; the IPv6 ones apart in their last byte only */
    static const uint8_t hosts[4][16] = { { 10, 0, 0, 1 }, { 10, 0, 0, 2 }, { 0xfe, 0x80, [15] = 1 },
                                          { 0xfe, 0x80, [15] = 2 } };
    static const uint16_t ports[3] = { 80, 1000, 1001 };
    td_streams *last = td_streams_new(TD_WIRESHARK_4_4), *keyed = td_streams_new(TD_WIRESHARK_4_4);
    GRand *rand = g_rand_new_with_seed(38);
    td_record never, rec;
    uint32_t found;

    memset(&never, 0, sizeof never);
    never.src.len = never.dst.len = 4;
    never.sport = never.dport = 7;
    for (int i = 0; i < 20000; i++) {
        bool v6 = g_rand_int_range(rand, 0, 4) == 0;
        memset(&rec, 0, sizeof rec);
        rec.src.len = rec.dst.len = v6 ? 16 : 4;
        memcpy(rec.src.bytes, hosts[2 * v6 + g_rand_int_range(rand, 0, 2)], 16);
        memcpy(rec.dst.bytes, hosts[2 * v6 + g_rand_int_range(rand, 0, 2)], 16);
        rec.sport = ports[g_rand_int_range(rand, 0, 3)];
        rec.dport = ports[g_rand_int_range(rand, 0, 3)];
        rec.tcp_flags = (uint16_t[]){ AK, AK, AK, S, SA, F, R }[g_rand_int_range(rand, 0, 7)];
        rec.seq = (uint32_t)g_rand_int_range(rand, 0, 3) * 1000;
        rec.ack = 1;
        g_assert_false(td_streams_find(keyed, &never, &found));
        g_assert_cmpuint(td_streams_number(last, &rec, true), ==, td_streams_number(keyed, &rec, true));
        /* the same record again: now last's for both */
        g_assert_cmpuint(td_streams_number(last, &rec, true), ==, td_streams_number(keyed, &rec, true));
    }
    g_assert_cmpuint(td_streams_count(last), ==, td_streams_count(keyed));
    g_assert_cmpuint(td_streams_count(last), >, 100);
    g_rand_free(rand);
    td_streams_free(last);
    td_streams_free(keyed);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/streams/last_as_keyed", test_last_as_keyed);
    g_test_add_func("/streams/wireshark_4.0", test_wireshark_40);
    g_test_add_func("/streams/wireshark_4.4_4.6", test_wireshark_44_46);
    g_test_add_func("/streams/endpoints", test_endpoints);
    return g_test_run();
}
