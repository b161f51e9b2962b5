/* engine/field_table.c: every field id and expert id has its row, and every name is
 * spelled once. With an argument, prints the table instead (name, type, scope,
 * label, description; experts as name, "expert", group / severity, summary), one
 * tab-separated line each, for test_field_table_doc.py. */
#include <glib.h>
#include <stdio.h>
#include <string.h>

#include "field_table.h"

static const char *const type_names[] = {
    [TD_TYPE_STRING] = "string", [TD_TYPE_UINT8] = "uint8", [TD_TYPE_UINT16] = "uint16",
    [TD_TYPE_UINT32] = "uint32", [TD_TYPE_UINT64] = "uint64", [TD_TYPE_DOUBLE] = "double",
    [TD_TYPE_DURATION] = "relative time", [TD_TYPE_FRAME] = "frame number",
};
static const char *const scope_names[] = {
    [TD_SCOPE_FLOW] = "flow", [TD_SCOPE_DIRECTION] = "direction", [TD_SCOPE_PACKET] = "packet",
    [TD_SCOPE_EXCHANGE] = "exchange",
};
static const char *const group_names[] = { [TD_EXPERT_PROTOCOL] = "Protocol", [TD_EXPERT_SEQUENCE] = "Sequence" };
static const char *const severity_names[] = {
    [TD_EXPERT_CHAT] = "Chat", [TD_EXPERT_NOTE] = "Note", [TD_EXPERT_WARN] = "Warning",
};

static void print_table(void)
{
    for (int i = 0; i < TD_FIELD_COUNT; i++) {
        const td_field_def *f = &td_fields[i];
        printf("%s\t%s\t%s\t%s\t%s\n", f->name, type_names[f->type], scope_names[f->scope], f->label,
               f->description ? f->description : "");
    }
    for (int i = 0; i < TD_EXPERT_COUNT; i++) {
        const td_expert_def *e = &td_experts[i];
        printf("%s\texpert\t%s / %s\t%s\t\n", e->name, group_names[e->group], severity_names[e->severity],
               e->summary);
    }
}

/* A name in the table twice would be registered twice and shadow a field; a name
 * outside Wireshark's alphabet would need escaping in JSON. */
static void check_unique(GHashTable *names, const char *name)
{
    g_assert_nonnull(name);
    g_assert_true(g_str_has_prefix(name, "tcpdiag."));
    /* ...and written as it is wherever a name goes (the command's JSON keys) */
    for (const char *c = name; *c; c++)
        g_assert_true(g_ascii_islower(*c) || g_ascii_isdigit(*c) || *c == '.' || *c == '_');
    g_assert_false(g_hash_table_contains(names, name));
    g_hash_table_add(names, (gpointer)name);
}

static void test_every_row(void)
{
    GHashTable *names = g_hash_table_new(g_str_hash, g_str_equal);

    for (int i = 0; i < TD_FIELD_COUNT; i++) {
        check_unique(names, td_fields[i].name);
        g_assert_nonnull(td_fields[i].label);
        /* per-direction values sit in the per-direction subtrees, and only there */
        g_assert_cmpint(td_fields[i].scope == TD_SCOPE_DIRECTION, ==,
                        td_fields[i].group >= TD_GROUP_FLIGHT && td_fields[i].group <= TD_GROUP_OFFLOAD);
        g_assert_cmpint(td_fields[i].scope == TD_SCOPE_PACKET, ==, td_fields[i].group == TD_GROUP_TOP);
        g_assert_cmpint(td_fields[i].scope == TD_SCOPE_EXCHANGE, ==, td_fields[i].group == TD_GROUP_EXCHANGE);
    }
    for (int i = 0; i < TD_EXPERT_COUNT; i++) {
        check_unique(names, td_experts[i].name);
        g_assert_nonnull(td_experts[i].summary);
    }
    g_hash_table_destroy(names);
}

/* The readers rely on the codepoint counts following td_ip_ecn's order. */
static void test_codepoint_order(void)
{
    g_assert_cmpstr(td_fields[TD_F_ECN_C2S_NOT_ECT + 1].name, ==, "tcpdiag.ecn.c2s.ect1");
    g_assert_cmpstr(td_fields[TD_F_ECN_C2S_NOT_ECT + 3].name, ==, "tcpdiag.ecn.c2s.ce");
    g_assert_cmpstr(td_fields[TD_F_ECN_S2C_NOT_ECT + 2].name, ==, "tcpdiag.ecn.s2c.ect0");
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--print") == 0) {
        print_table();
        return 0;
    }
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/fields/every_row", test_every_row);
    g_test_add_func("/fields/codepoint_order", test_codepoint_order);
    return g_test_run();
}
