/* tcpdiag's Wireshark preferences: the engine's preference table
 * (engine/preferences.c) registered in one loop. */
#include "ws_compat.h"

#include <epan/prefs.h>

#include "tcpdiag.h"
#include "preferences.h"

/* Wireshark writes an enum preference through a gint. */
G_STATIC_ASSERT(sizeof(td_vantage) == sizeof(gint));

static enum_val_t *wireshark_choices(const td_pref_def *pref)
{
    enum_val_t *values = g_new0(enum_val_t, pref->choice_count + 1);     /* kept: Wireshark reads them for good */

    for (size_t i = 0; i < pref->choice_count; i++) {
        values[i].name = pref->choices[i].name;
        values[i].description = pref->choices[i].description;
        values[i].value = pref->choices[i].value;
    }
    return values;
}

void tcpdiag_prefs_register(int proto, const td_pref_homes *homes)
{
    module_t *module = prefs_register_protocol(proto, NULL);

    for (size_t i = 0; i < TD_PREF_COUNT; i++) {
        const td_pref_def *pref = &td_prefs_table[i];
        void *place = td_pref_place(pref, homes);
        switch (pref->kind) {
        case TD_PREF_UINT:
            prefs_register_uint_preference(module, pref->name, pref->title, pref->description, 10, place);
            break;
        case TD_PREF_CHOICE:
            prefs_register_enum_preference(module, pref->name, pref->title, pref->description, place,
                                           wireshark_choices(pref), FALSE);
            break;
        }
    }
}
