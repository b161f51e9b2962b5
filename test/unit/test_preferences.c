/* engine/preferences.c: every preference has its words and a place in the
 * configuration a front end hands it, and names are spelled once. */
#include <glib.h>
#include <string.h>

#include "preferences.h"

static void test_rows(void)
{
    GHashTable *names = g_hash_table_new(g_str_hash, g_str_equal);

    for (size_t i = 0; i < TD_PREF_COUNT; i++) {
        const td_pref_def *p = &td_prefs_table[i];
        g_assert_nonnull(p->name);
        g_assert_nonnull(p->title);
        g_assert_nonnull(p->description);
        g_assert_true(g_hash_table_add(names, (gpointer)p->name));
        g_assert_true((p->kind == TD_PREF_CHOICE) == (p->choice_count > 0));
    }
    g_hash_table_destroy(names);
}

static void test_places(void)
{
    td_config engine;
    td_hosts_config hosts;
    unsigned warn = 16;
    td_pref_homes plugin = { &engine, &hosts, &warn }, command = { &engine, &hosts, NULL };

    for (size_t i = 0; i < TD_PREF_COUNT; i++) {
        const td_pref_def *p = &td_prefs_table[i];
        char *place = td_pref_place(p, &plugin);
        g_assert_nonnull(place);
        if (p->home == TD_PREF_IN_PLUGIN) {
            g_assert_true(place == (char *)&warn);
            g_assert_null(td_pref_place(p, &command));
        } else if (p->home == TD_PREF_IN_HOSTS) {
            g_assert_true(place >= (char *)&hosts && place + sizeof(unsigned) <= (char *)(&hosts + 1));
        } else {
            g_assert_true(place >= (char *)&engine && place + sizeof(unsigned) <= (char *)(&engine + 1));
        }
    }
    /* the preference named capture_position sets the vantage the engine reads */
    g_assert_cmpstr(td_prefs_table[0].name, ==, "capture_position");
    g_assert_true(td_pref_place(&td_prefs_table[0], &command) == (void *)&engine.vantage_override);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/preferences/rows", test_rows);
    g_test_add_func("/preferences/places", test_places);
    return g_test_run();
}
