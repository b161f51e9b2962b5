/* engine/causes/registry.c: every cause is registered once, at its place in the
 * precedence, with the operations its kind needs; the verdicts that are no cause
 * (none, unknown) have no rule. */
#include <glib.h>
#include <string.h>

#include "causes/registry.h"
#include "findings.h"

static void test_each_cause_at_its_place(void)
{
    for (int c = 0; c < TD_CAUSE_COUNT; c++) {
        const td_cause_ops *ops = td_cause_ops_of((td_cause)c);
        g_assert_nonnull(ops);
        g_assert_cmpint(ops->id, ==, c);
        g_assert_nonnull(ops->name);
        g_assert_nonnull(ops->evidence);
        g_assert_nonnull(ops->advice);
        for (int other = 0; other < c; other++)
            g_assert_cmpstr(td_cause_name((td_cause)other), !=, ops->name);
    }
    /* a number out of range (a hostile or future record) reads as unknown */
    g_assert_cmpstr(td_cause_name(TD_CAUSE_COUNT), ==, "unknown");
    g_assert_cmpstr(td_cause_name((td_cause)200), ==, "unknown");
}

/* A cause has a rule and says where it shows; a verdict without one is no finding. */
static void test_causes_and_verdicts(void)
{
    for (int c = 0; c < TD_CAUSE_COUNT; c++) {
        const td_cause_ops *ops = td_cause_ops_of((td_cause)c);
        bool verdict = c == TD_CAUSE_NONE || c == TD_CAUSE_UNKNOWN;
        g_assert_true((ops->holds == NULL) == verdict);
        g_assert_true((ops->evidence_frame == NULL) == verdict);
        g_assert_true(td_cause_is_finding((td_cause)c) == !verdict);
    }
}

/* docs/diagnosis.md: these nine are read from the flow's time budget; only the
 * application's own pauses are counted apart from the slow flows. */
static void test_kinds(void)
{
    static const td_cause from_budget[] = {
        TD_CAUSE_HANDSHAKE_RETRY, TD_CAUSE_DEAD_PEER, TD_CAUSE_ZERO_WINDOW, TD_CAUSE_QUEUEING_DELAY,
        TD_CAUSE_NAGLE_DELAYED_ACK, TD_CAUSE_RETRANSMISSION_TIMEOUT, TD_CAUSE_SERVER_DELAY, TD_CAUSE_CLIENT_DELAY,
        TD_CAUSE_ROUND_TRIP_BOUND,
    };
    unsigned budget = 0;

    for (size_t i = 0; i < G_N_ELEMENTS(from_budget); i++)
        budget |= 1u << from_budget[i];
    for (int c = 0; c < TD_CAUSE_COUNT; c++) {
        g_assert_true(td_cause_read_from_budget((td_cause)c) == !!(budget & (1u << c)));
        g_assert_true(td_cause_by_application((td_cause)c) == (c == TD_CAUSE_APP_LIMITED));
    }
}

/* The report's figures are fields of the field table; a cause told by its budget
 * draws no flight (its evidence is the budget bar), but a zero window shows the
 * reader's pace against the window, and Nagle's holds and a queue's exchanges have
 * charts of their own. */
static void test_report_picture(void)
{
    for (int c = 0; c < TD_CAUSE_COUNT; c++) {
        const td_cause_ops *ops = td_cause_ops_of((td_cause)c);
        for (size_t i = 0; ops->figures && i < ops->figures->n; i++)
            g_assert_cmpint(ops->figures->items[i].id, <, TD_FIELD_COUNT);
        if (td_cause_read_from_budget((td_cause)c) && c != TD_CAUSE_ZERO_WINDOW &&
            c != TD_CAUSE_NAGLE_DELAYED_ACK && c != TD_CAUSE_QUEUEING_DELAY)
            g_assert_cmpint(ops->chart, ==, TD_CHART_NONE_BUDGET);
    }
    g_assert_cmpint(td_cause_ops_of(TD_CAUSE_ECN_BLACKHOLE)->chart, ==, TD_CHART_NONE_HANDSHAKE);
}

static void test_causes_list(void)
{
    char buf[128];

    td_causes_list((1u << TD_CAUSE_PATH_LOSS) | (1u << TD_CAUSE_HOST_STALL), buf, sizeof buf);
    g_assert_cmpstr(buf, ==, "host-stall,path-loss");     /* in order of precedence */
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/causes/each_at_its_place", test_each_cause_at_its_place);
    g_test_add_func("/causes/causes_and_verdicts", test_causes_and_verdicts);
    g_test_add_func("/causes/kinds", test_kinds);
    g_test_add_func("/causes/report_picture", test_report_picture);
    g_test_add_func("/causes/list", test_causes_list);
    return g_test_run();
}
