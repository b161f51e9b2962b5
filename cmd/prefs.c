/* -o tcpdiag.NAME:VALUE: the command line read against the engine's preference table
 * (engine/preferences.c), which the plugin registers with Wireshark. */
#include "prefs.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "preferences.h"

#define MODULE "tcpdiag."

void td_prefs_defaults(td_prefs *p)
{
    td_config_defaults(&p->engine);
    td_hosts_config_defaults(&p->hosts);
    p->keep_history = false;
}

char *td_prefs_names(void)
{
    GString *names = g_string_new("");

    for (size_t i = 0; i < TD_PREF_COUNT; i++)
        g_string_append_printf(names, "%s" MODULE "%s", i ? ", " : "", td_prefs_table[i].name);
    return g_string_free(names, FALSE);
}

/* A decimal number that fits an unsigned, as Wireshark reads a uint preference. */
static bool parse_unsigned(const char *text, unsigned *value)
{
    char *end;
    unsigned long long n;

    if (!g_ascii_isdigit(*text))
        return false;
    errno = 0;
    n = strtoull(text, &end, 10);
    if (errno || *end || n > UINT_MAX)
        return false;
    *value = (unsigned)n;
    return true;
}

/* One of the preference's values, by name or description in any case, as Wireshark
 * reads an enum preference. */
static bool parse_choice(const td_pref_def *pref, const char *text, int *value)
{
    for (size_t i = 0; i < pref->choice_count; i++)
        if (g_ascii_strcasecmp(text, pref->choices[i].name) == 0 ||
            g_ascii_strcasecmp(text, pref->choices[i].description) == 0) {
            *value = pref->choices[i].value;
            return true;
        }
    return false;
}

/* "-o NAME: "VALUE" is not a capture position: auto, near-client, middle or near-server". */
static char *choice_error(const td_pref_def *pref, const char *name, const char *value)
{
    GString *error = g_string_new(NULL);

    g_string_append_printf(error, "-o %s: \"%s\" is not a %c%s:", name, value, pref->title[0] + ('a' - 'A'),
                           pref->title + 1);
    for (size_t i = 0; i < pref->choice_count; i++)
        g_string_append_printf(error, "%s %s", i == 0 ? "" : i + 1 == pref->choice_count ? " or" : ",",
                               pref->choices[i].name);
    return g_string_free(error, FALSE);
}

bool td_prefs_set(td_prefs *p, const char *setting, char **error)
{
    const char *colon = strchr(setting, ':');
    char *name, *value;
    const td_pref_def *found = NULL;
    td_pref_homes homes = { &p->engine, &p->hosts, NULL };   /* the command has no expert items */
    void *place;
    bool ok = false;

    if (!colon) {
        *error = g_strdup_printf("-o %s: expected NAME:VALUE, as in tshark (-o tcpdiag.capture_position:near-client)",
                                 setting);
        return false;
    }
    name = g_strstrip(g_strndup(setting, (gsize)(colon - setting)));
    value = g_strstrip(g_strdup(colon + 1));
    for (size_t i = 0; i < TD_PREF_COUNT; i++)
        if (g_str_has_prefix(name, MODULE) && strcmp(name + strlen(MODULE), td_prefs_table[i].name) == 0)
            found = &td_prefs_table[i];
    if (!found) {
        char *names = td_prefs_names();
        *error = g_strdup_printf("-o %s: no such preference; the command takes tcpdiag's: %s", name, names);
        g_free(names);
    } else if (found->kind == TD_PREF_CHOICE) {
        int choice;
        place = td_pref_place(found, &homes);
        ok = parse_choice(found, value, &choice);
        if (ok && place)
            *(td_vantage *)place = (td_vantage)choice;  /* capture_position, the one choice */
        else if (!ok)
            *error = choice_error(found, name, value);
    } else {
        unsigned number;
        place = td_pref_place(found, &homes);
        ok = parse_unsigned(value, &number);
        if (ok && place)
            *(unsigned *)place = number;
        else if (!ok)
            *error = g_strdup_printf("-o %s: \"%s\" is not a decimal number from 0 to %u", name, value, UINT_MAX);
    }
    g_free(name);
    g_free(value);
    return ok;
}
