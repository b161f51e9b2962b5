/* The Community ID of a TCP flow (engine/community_id.h) against the spec's own
 * example (corelight/community-id-spec, README: TCP 128.232.110.120:34855 ->
 * 66.35.250.204:80, seed 0); the reference implementation checks every committed
 * capture, IPv4 and IPv6, in test/integration/test_community_id.py. */
#include <glib.h>
#include <string.h>
#include "community_id.h"

static td_addr v4(uint8_t a, uint8_t b, uint8_t c, uint8_t d)
{
    td_addr addr = { .len = 4, .bytes = { a, b, c, d } };
    return addr;
}

static void test_spec_example(void)
{
    td_addr client = v4(128, 232, 110, 120), server = v4(66, 35, 250, 204);
    char id[TD_COMMUNITY_ID_SIZE], back[TD_COMMUNITY_ID_SIZE], seeded[TD_COMMUNITY_ID_SIZE];

    td_community_id_tcp(&client, 34855, &server, 80, 0, id);
    g_assert_cmpstr(id, ==, "1:LQU9qZlK+B5F3KDmev6m5PMibrg=");
    /* either direction, the same flow */
    td_community_id_tcp(&server, 80, &client, 34855, 0, back);
    g_assert_cmpstr(back, ==, id);
    /* another seed, another hash */
    td_community_id_tcp(&client, 34855, &server, 80, 1, seeded);
    g_assert_cmpstr(seeded, !=, id);
    g_assert_cmpuint(strlen(seeded), ==, TD_COMMUNITY_ID_SIZE - 1);
}

/* Equal addresses: the ports order the endpoints. */
static void test_same_host(void)
{
    td_addr host = v4(127, 0, 0, 1);
    char a[TD_COMMUNITY_ID_SIZE], b[TD_COMMUNITY_ID_SIZE];

    td_community_id_tcp(&host, 40000, &host, 80, 0, a);
    td_community_id_tcp(&host, 80, &host, 40000, 0, b);
    g_assert_cmpstr(a, ==, b);
}

/* Mixed families or an unknown address: no ID rather than a wrong one. */
static void test_no_id_without_two_addresses_alike(void)
{
    td_addr v6 = { .len = 16 }, unknown = { .len = 0 }, host = v4(10, 0, 0, 1);
    char id[TD_COMMUNITY_ID_SIZE];

    td_community_id_tcp(&host, 1, &v6, 2, 0, id);
    g_assert_cmpstr(id, ==, "");
    td_community_id_tcp(&unknown, 1, &unknown, 2, 0, id);
    g_assert_cmpstr(id, ==, "");
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/community_id/spec_example", test_spec_example);
    g_test_add_func("/community_id/same_host", test_same_host);
    g_test_add_func("/community_id/no_id_without_two_addresses_alike", test_no_id_without_two_addresses_alike);
    return g_test_run();
}
