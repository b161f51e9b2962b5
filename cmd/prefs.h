/* The plugin's Wireshark preferences, set on the command line as tshark sets them
 * (-o tcpdiag.NAME:VALUE): the same names, values and defaults, feeding the same
 * engine configuration (test_command.py holds them to tshark -G defaultprefs). */
#ifndef TCPDIAG_CMD_PREFS_H
#define TCPDIAG_CMD_PREFS_H

#include <glib.h>
#include "flow.h"
#include "hosts.h"

typedef struct td_prefs {
    td_config engine;
    td_hosts_config hosts;
    /* Not a preference: --report asks each capture to keep the history its charts
     * draw (engine/series.h); off, the engine keeps none. */
    bool keep_history;
} td_prefs;

void td_prefs_defaults(td_prefs *prefs);

/* One "tcpdiag.NAME:VALUE" setting. False, with a message saying what is wrong
 * (g_free it), for an unknown name or a value the preference does not take. */
bool td_prefs_set(td_prefs *prefs, const char *setting, char **error);

/* Every preference's full name ("tcpdiag.capture_position"), for messages. */
char *td_prefs_names(void);

#endif
