/* ECN negotiation table: every SYN x SYN-ACK row of RFC 3168 §6.1.1 and
 * RFC 9768 §3.1.1 (Table 2), written out from the RFC text. */
#include <glib.h>
#include "ecn.h"

#define F(ae, cwr, ece) ((uint16_t)(((ae) ? TD_TH_AE : 0) | ((cwr) ? TD_TH_CWR : 0) | ((ece) ? TD_TH_ECE : 0)))
#define SYN(ae, cwr, ece) ((uint16_t)(TD_TH_SYN | F(ae, cwr, ece)))
#define SYNACK(ae, cwr, ece) ((uint16_t)(TD_TH_SYN | TD_TH_ACK | F(ae, cwr, ece)))

static void test_not_requested(void)
{
    /* A SYN without ECN flags decides the outcome whatever the SYN-ACK says. */
    for (unsigned b = 0; b < 8; b++)
        g_assert_cmpint(td_ecn_classify(SYN(0, 0, 0), SYNACK(b & 4, b & 2, b & 1), NULL), ==,
                        TD_ECN_NOT_REQUESTED);
}

static void test_classic_rows(void)
{
    g_assert_cmpint(td_ecn_classify(SYN(0, 1, 1), SYNACK(0, 0, 1), NULL), ==, TD_ECN_CLASSIC);
    g_assert_cmpint(td_ecn_classify(SYN(0, 1, 1), SYNACK(0, 0, 0), NULL), ==, TD_ECN_DECLINED);
    /* RFC 3168 §6.1.1: a SYN-ACK with ECE and CWR set is not an ECN-setup SYN-ACK */
    g_assert_cmpint(td_ecn_classify(SYN(0, 1, 1), SYNACK(0, 1, 1), NULL), ==, TD_ECN_REFLECTED);
    /* an AccECN server must answer a classic SYN the RFC 3168 way: anything else is invalid */
    g_assert_cmpint(td_ecn_classify(SYN(0, 1, 1), SYNACK(0, 1, 0), NULL), ==, TD_ECN_INVALID);
    g_assert_cmpint(td_ecn_classify(SYN(0, 1, 1), SYNACK(1, 0, 0), NULL), ==, TD_ECN_INVALID);
    g_assert_cmpint(td_ecn_classify(SYN(0, 1, 1), SYNACK(1, 1, 1), NULL), ==, TD_ECN_INVALID);
}

static void test_accecn_rows(void)
{
    static const struct {
        uint16_t synack;
        td_ecn_outcome outcome;
        td_ip_ecn feedback;
    } rows[] = {
        { SYNACK(0, 0, 0), TD_ECN_DECLINED, 0 },
        { SYNACK(0, 0, 1), TD_ECN_ACCECN_CLASSIC, 0 },
        { SYNACK(0, 1, 0), TD_ECN_ACCECN, TD_NOT_ECT },
        { SYNACK(0, 1, 1), TD_ECN_ACCECN, TD_ECT1 },
        { SYNACK(1, 0, 0), TD_ECN_ACCECN, TD_ECT0 },
        { SYNACK(1, 0, 1), TD_ECN_INVALID, 0 },   /* reserved */
        { SYNACK(1, 1, 0), TD_ECN_ACCECN, TD_CE },
        { SYNACK(1, 1, 1), TD_ECN_REFLECTED, 0 },
    };
    for (gsize i = 0; i < G_N_ELEMENTS(rows); i++) {
        td_ip_ecn feedback = (td_ip_ecn)99;
        g_assert_cmpint(td_ecn_classify(SYN(1, 1, 1), rows[i].synack, &feedback), ==, rows[i].outcome);
        if (rows[i].outcome == TD_ECN_ACCECN)
            g_assert_cmpint(feedback, ==, rows[i].feedback);
        else
            g_assert_cmpint(feedback, ==, 99);
    }
}

static void test_reserved_syns(void)
{
    static const uint16_t syns[] = { SYN(0, 0, 1), SYN(0, 1, 0), SYN(1, 0, 0), SYN(1, 0, 1), SYN(1, 1, 0) };
    for (gsize i = 0; i < G_N_ELEMENTS(syns); i++) {
        g_assert_true(td_ecn_syn_requests(syns[i]));
        g_assert_false(td_ecn_is_setup_request(syns[i]));
        g_assert_cmpint(td_ecn_classify(syns[i], SYNACK(0, 0, 1), NULL), ==, TD_ECN_INVALID);
    }
}

static void test_other_flags_ignored(void)
{
    /* PSH, URG, FIN on a handshake packet do not change the ECN reading */
    g_assert_cmpint(td_ecn_classify(SYN(0, 1, 1) | TD_TH_PSH, SYNACK(0, 0, 1) | TD_TH_URG, NULL), ==,
                    TD_ECN_CLASSIC);
}

static void test_data_use(void)
{
    uint32_t none[4] = { 0 }, plain[4] = { 5, 0, 0, 0 }, ect0[4] = { 1, 0, 9, 0 }, ce[4] = { 0, 0, 0, 2 };

    g_assert_cmpint(td_ecn_data_use_of(TD_ECN_CLASSIC, none), ==, TD_ECN_DATA_NONE);
    g_assert_cmpint(td_ecn_data_use_of(TD_ECN_CLASSIC, ect0), ==, TD_ECN_DATA_ECT);
    g_assert_cmpint(td_ecn_data_use_of(TD_ECN_ACCECN, ce), ==, TD_ECN_DATA_ECT);
    g_assert_cmpint(td_ecn_data_use_of(TD_ECN_CLASSIC, plain), ==, TD_ECN_DATA_UNMARKED);
    g_assert_cmpint(td_ecn_data_use_of(TD_ECN_NOT_REQUESTED, plain), ==, TD_ECN_DATA_NOT_ECT);
    g_assert_cmpint(td_ecn_data_use_of(TD_ECN_DECLINED, ect0), ==, TD_ECN_DATA_UNNEGOTIATED);
    g_assert_cmpint(td_ecn_data_use_of(TD_ECN_UNKNOWN, ect0), ==, TD_ECN_DATA_UNKNOWN);
}

static void test_names(void)
{
    g_assert_cmpstr(td_ecn_outcome_name(TD_ECN_ACCECN_CLASSIC), ==, "accecn-classic");
    g_assert_cmpstr(td_ecn_outcome_name(TD_ECN_NOT_REQUESTED), ==, "not-requested");
    g_assert_cmpstr(td_ip_ecn_name(TD_ECT0), ==, "ect0");
    g_assert_cmpstr(td_ip_ecn_name(TD_ECT1), ==, "ect1");
    g_assert_cmpstr(td_ecn_data_use_name(TD_ECN_DATA_UNNEGOTIATED), ==, "unnegotiated-ect");
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/ecn/not-requested", test_not_requested);
    g_test_add_func("/ecn/classic-rows", test_classic_rows);
    g_test_add_func("/ecn/accecn-rows", test_accecn_rows);
    g_test_add_func("/ecn/reserved-syns", test_reserved_syns);
    g_test_add_func("/ecn/other-flags-ignored", test_other_flags_ignored);
    g_test_add_func("/ecn/data-use", test_data_use);
    g_test_add_func("/ecn/names", test_names);
    return g_test_run();
}
