/* `tshark -z tcpdiag,flows`: the per-flow diagnosis table, printed once the
 * capture has been read. One row per flow; a column per capability. */

#include "ws_compat.h"

#include <stdio.h>

#include <epan/stat_tap_ui.h>
#include <epan/tap.h>

#include "tcpdiag.h"
#include "state-tcpdiag.h"
#include "text.h"

static void draw_flows(void *tapdata _U_)
{
    GString *text = g_string_new("");

    td_text_flows(tcpdiag_state_diagnoses(), text);
    fputs(text->str, stdout);
    g_string_free(text, TRUE);
}

static void draw_diagnosis(void *tapdata _U_)
{
    GString *text = g_string_new("");

    td_text_diagnosis_framed(tcpdiag_state_diagnoses(), tcpdiag_state_hosts(), text);
    fputs(text->str, stdout);
    g_string_free(text, TRUE);
}

static bool listen(const char *report, tap_draw_cb draw)
{
    GString *error = register_tap_listener("tcpdiag", NULL, NULL, TL_REQUIRES_NOTHING, NULL, NULL, draw, NULL);

    if (!error)
        return true;
    fprintf(stderr, "tshark: couldn't register %s tap: %s\n", report, error->str);
    g_string_free(error, TRUE);
    return false;
}

static td_stat_init_result init_flows(const char *opt_arg _U_, void *userdata _U_)
{
    TD_STAT_INIT_RETURN(listen("tcpdiag,flows", draw_flows));
}

static td_stat_init_result init_diagnosis(const char *opt_arg _U_, void *userdata _U_)
{
    TD_STAT_INIT_RETURN(listen("tcpdiag,diagnosis", draw_diagnosis));
}

void tcpdiag_register_stats(void)
{
    static stat_tap_ui flows_ui = {
        REGISTER_STAT_GROUP_GENERIC,
        "tcpdiag per-flow diagnosis",
        "tcpdiag,flows",
        init_flows,
        0,
        NULL
    };
    static stat_tap_ui diagnosis_ui = {
        REGISTER_STAT_GROUP_GENERIC,
        "tcpdiag diagnosis: findings ranked by cost",
        "tcpdiag,diagnosis",
        init_diagnosis,
        0,
        NULL
    };
    register_stat_tap_ui(&flows_ui, NULL);
    register_stat_tap_ui(&diagnosis_ui, NULL);
}
