/* Every `-z tcpdiag,*` report of tshark and the GUI, registered here: the text
 * reports printed once the capture has been read (tcpdiag,flows: one row per flow,
 * a column per capability; tcpdiag,diagnosis: the findings ranked by cost;
 * tcpdiag,hosts: the per-host rules), whose text the engine writes (engine/text.c),
 * and the stat-tap tables tcpdiag,table and tcpdiag,host-table, which
 * table-tcpdiag.c defines. */

#include "ws_compat.h"

#include <stdio.h>

#include <epan/stat_tap_ui.h>
#include <epan/tap.h>

#include "tcpdiag.h"
#include "state-tcpdiag.h"
#include "table-tcpdiag.h"
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

static void draw_hosts(void *tapdata _U_)
{
    GString *text = g_string_new("");

    /* tshark draws after its last pass: the capture has been read in full, also
     * without -2. */
    td_text_hosts_framed(tcpdiag_state_hosts(), text);
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

static td_stat_init_result init_hosts(const char *opt_arg _U_, void *userdata _U_)
{
    TD_STAT_INIT_RETURN(listen("tcpdiag,hosts", draw_hosts));
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
    static stat_tap_ui hosts_ui = {
        REGISTER_STAT_GROUP_GENERIC,
        "tcpdiag per-host rules",
        "tcpdiag,hosts",
        init_hosts,
        0,
        NULL
    };
    register_stat_tap_ui(&flows_ui, NULL);
    register_stat_tap_ui(&diagnosis_ui, NULL);
    register_stat_tap_ui(&hosts_ui, NULL);
    register_cleanup_routine(tcpdiag_tables_forget);
    register_stat_tap_table_ui(&tcpdiag_flow_table_ui);
    register_stat_tap_table_ui(&tcpdiag_host_table_ui);
}
