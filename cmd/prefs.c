/* -o tcpdiag.NAME:VALUE: the plugin's preferences (registered in the plugin's files with
 * prefs_register_*_preference) mapped onto the engine configuration they feed. */
#include "prefs.h"

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define MODULE "tcpdiag."

/* capture_position's values: Wireshark takes a value's name or its description,
 * in any case (plugin/packet-tcpdiag.c, register_prefs). */
typedef struct position {
    const char *name, *description;
    td_vantage vantage;
} position;

static const position positions[] = {
    { "auto", "Infer from handshake timing", TD_VANTAGE_UNKNOWN },
    { "near-client", "Near the client", TD_VANTAGE_NEAR_CLIENT },
    { "middle", "In the middle of the path", TD_VANTAGE_MIDDLE },
    { "near-server", "Near the server", TD_VANTAGE_NEAR_SERVER },
};

enum { NO_EFFECT = -1 };

typedef struct pref {
    const char *name;           /* without "tcpdiag." */
    bool is_position;           /* capture_position; the others are unsigned numbers */
    /* Offset of the unsigned it sets in td_prefs. NO_EFFECT: the preference only
     * sets an expert item's threshold in Wireshark, and the command has none; it
     * is taken (one -o list serves tshark and the command) and checked. */
    ptrdiff_t offset;
} pref;

#define AT(field) ((ptrdiff_t)offsetof(td_prefs, field))

static const pref prefs[] = {
    { "capture_position", true, AT(engine.vantage_override) },
    { "vantage_dominance_pct", false, AT(engine.vantage_dominance_pct) },
    { "vantage_min_delay_us", false, AT(engine.vantage_min_delay_us) },
    { "max_flows", false, AT(engine.max_flows) },
    { "plateau_min_rounds", false, AT(engine.flight.plateau_min_rounds) },
    { "plateau_band_pct", false, AT(engine.flight.plateau_band_pct) },
    { "sender_warn_mss", false, NO_EFFECT },
    { "collapse_mss", false, AT(engine.flight.collapse_mss) },
    { "collapse_min_rounds", false, AT(engine.flight.collapse_min_rounds) },
    { "stall_min_ms", false, AT(engine.stall.min_ms) },
    { "stall_min_flows", false, AT(engine.stall.min_flows) },
    { "ecn_slowdown_pct", false, AT(hosts.ecn_slowdown_pct) },
};

void td_prefs_defaults(td_prefs *p)
{
    td_config_defaults(&p->engine);
    td_hosts_config_defaults(&p->hosts);
    p->keep_history = false;
}

char *td_prefs_names(void)
{
    GString *names = g_string_new("");

    for (size_t i = 0; i < G_N_ELEMENTS(prefs); i++)
        g_string_append_printf(names, "%s" MODULE "%s", i ? ", " : "", prefs[i].name);
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

static bool parse_position(const char *text, td_vantage *vantage)
{
    for (size_t i = 0; i < G_N_ELEMENTS(positions); i++)
        if (g_ascii_strcasecmp(text, positions[i].name) == 0 ||
            g_ascii_strcasecmp(text, positions[i].description) == 0) {
            *vantage = positions[i].vantage;
            return true;
        }
    return false;
}

bool td_prefs_set(td_prefs *p, const char *setting, char **error)
{
    const char *colon = strchr(setting, ':');
    char *name, *value;
    const pref *found = NULL;
    bool ok = false;

    if (!colon) {
        *error = g_strdup_printf("-o %s: expected NAME:VALUE, as in tshark (-o tcpdiag.capture_position:near-client)",
                                 setting);
        return false;
    }
    name = g_strstrip(g_strndup(setting, (gsize)(colon - setting)));
    value = g_strstrip(g_strdup(colon + 1));
    for (size_t i = 0; i < G_N_ELEMENTS(prefs); i++)
        if (g_str_has_prefix(name, MODULE) && strcmp(name + strlen(MODULE), prefs[i].name) == 0)
            found = &prefs[i];
    if (!found) {
        char *names = td_prefs_names();
        *error = g_strdup_printf("-o %s: no such preference; the command takes tcpdiag's: %s", name, names);
        g_free(names);
    } else if (found->is_position) {
        td_vantage vantage;
        ok = parse_position(value, &vantage);
        if (ok)
            *(td_vantage *)((char *)p + found->offset) = vantage;
        else
            *error = g_strdup_printf("-o %s: \"%s\" is not a capture position: auto, near-client, middle or "
                                     "near-server", name, value);
    } else {
        unsigned number;
        ok = parse_unsigned(value, &number);
        if (ok && found->offset != NO_EFFECT)
            *(unsigned *)((char *)p + found->offset) = number;
        else if (!ok)
            *error = g_strdup_printf("-o %s: \"%s\" is not a decimal number from 0 to %u", name, value, UINT_MAX);
    }
    g_free(name);
    g_free(value);
    return ok;
}
