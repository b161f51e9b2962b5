/* The one table of tcpdiag's preferences: name, title, description, kind (an
 * unsigned number, or one of named values) and where the value goes. The plugin
 * registers them with Wireshark in a loop (plugin/prefs-tcpdiag.c), the command
 * parses -o tcpdiag.NAME:VALUE against them (cmd/prefs.c); defaults are what the
 * configuration's defaults (td_config_defaults, td_hosts_config_defaults) hold when
 * the preference is registered. */
#ifndef TCPDIAG_PREFERENCES_H
#define TCPDIAG_PREFERENCES_H

#include <stddef.h>
#include "flow.h"
#include "hosts.h"

typedef enum td_pref_kind {
    TD_PREF_UINT,           /* a decimal number from 0 to UINT_MAX */
    TD_PREF_CHOICE,         /* one of choices[], by name or description, in any case */
} td_pref_kind;

/* Which configuration a preference sets. */
typedef enum td_pref_home {
    TD_PREF_IN_ENGINE,      /* td_config */
    TD_PREF_IN_HOSTS,       /* td_hosts_config */
    TD_PREF_IN_PLUGIN,      /* an expert item's threshold of the plugin's; the command has none */
} td_pref_home;

typedef struct td_pref_choice {
    const char *name, *description;
    int value;
} td_pref_choice;

typedef struct td_pref_def {
    const char *name;                   /* without "tcpdiag." */
    const char *title, *description;    /* as Wireshark shows them */
    td_pref_kind kind;
    const td_pref_choice *choices;      /* TD_PREF_CHOICE: choice_count of them */
    size_t choice_count;
    td_pref_home home;
    size_t offset;                      /* of the value in its home (an unsigned, or a td_vantage) */
} td_pref_def;

enum { TD_PREF_COUNT = 23 };
extern const td_pref_def td_prefs_table[TD_PREF_COUNT];

/* Where a front end keeps the configurations the preferences set. */
typedef struct td_pref_homes {
    td_config *engine;
    td_hosts_config *hosts;
    unsigned *plugin_warn_mss;          /* TD_PREF_IN_PLUGIN; NULL in the command */
} td_pref_homes;

/* Where pref's value goes among homes, or NULL when that front end has no place
 * for it (the value is then taken and checked, with no effect). */
void *td_pref_place(const td_pref_def *pref, const td_pref_homes *homes);

#endif
