/* engine/field_label.c: each label style reads as people read it, durations and
 * seconds rounded alike (the tree and the HTML report share this rule). */
#include <glib.h>
#include <string.h>

#include "field_label.h"

static void expect_label(td_field_value v, const char *expected)
{
    char text[64];

    g_assert_true(td_field_label_text(&v, text, sizeof text));
    g_assert_cmpstr(text, ==, expected);
}

static void test_durations_round(void)
{
    expect_label((td_field_value){ .id = TD_F_FLOW_IRTT, .ns = 421000 }, "0.421 ms");
    expect_label((td_field_value){ .id = TD_F_FLOW_IRTT, .ns = 1997000 }, "1.997 ms");
    expect_label((td_field_value){ .id = TD_F_FLOW_IRTT, .ns = 120400000 }, "120 ms");
    expect_label((td_field_value){ .id = TD_F_DIAG_LOST, .ns = 1420000000 }, "1.42 s");
}

static void test_ratio(void)
{
    expect_label((td_field_value){ .id = TD_F_DIAG_SLOWDOWN, .dbl = 3.14159 }, "3.14");
}

/* Every row with a style but PLAIN has a label; PLAIN leaves the text alone. */
static void test_every_style(void)
{
    for (int id = 0; id < TD_FIELD_COUNT; id++) {
        td_field_value v = { .id = (td_field_id)id, .dbl = 0.0099994999999, .ns = 5 };
        char text[64] = "untouched";
        bool labelled = td_field_label_text(&v, text, sizeof text);
        g_assert_true(labelled == (td_fields[id].label_style != TD_LABEL_PLAIN));
        if (!labelled)
            g_assert_cmpstr(text, ==, "untouched");
        else if (td_fields[id].label_style == TD_LABEL_SECONDS)
            g_assert_cmpstr(text, ==, "10 ms");      /* 9999499.9999 ns rounds to 9999500; cut, it would read 9.999 ms */
        else if (td_fields[id].label_style == TD_LABEL_DURATION)
            g_assert_cmpstr(text, ==, "0.000 ms");   /* 5 ns */
    }
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/field_label/durations_round", test_durations_round);
    g_test_add_func("/field_label/ratio", test_ratio);
    g_test_add_func("/field_label/every_style", test_every_style);
    return g_test_run();
}
