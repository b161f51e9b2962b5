/* `tshark -z tcpdiag,flows`: the per-flow diagnosis table, printed once the
 * capture has been read. One row per flow; a column per capability. */

#include "ws_compat.h"

#include <stdio.h>

#include <epan/stat_tap_ui.h>
#include <epan/tap.h>

#include "tcpdiag.h"
#include "core/options.h"
#include "core/report.h"

void tcpdiag_flow_endpoints(const td_flow *flow, char *buf, size_t size)
{
    char a[72], b[72];
    int from = td_flow_roles_known(flow) ? flow->client : 0;

    td_flow_endpoint_format(flow, from, a, sizeof a);
    td_flow_endpoint_format(flow, 1 - from, b, sizeof b);
    g_snprintf(buf, (gulong)size, "%s %s %s", a, td_flow_roles_known(flow) ? "->" : "<>", b);
}

static const td_flight *main_flight(const td_flow *flow)
{
    int sender = td_flow_busiest_sender(flow);
    return sender < 0 ? NULL : td_flow_flight(flow, sender);
}

const char *tcpdiag_flow_reaction(const td_flow *flow)
{
    const td_flight *f = main_flight(flow);
    return !f ? "no-data" : f->unknown_reason ? "unknown" : td_reaction_name(f->cc.reaction);
}

const char *tcpdiag_flow_offload(const td_flow *flow)
{
    const td_flight *f = main_flight(flow);
    return f ? td_offload_verdict_name(f->seg.result.verdict) : "no-data";
}

const char *tcpdiag_flow_limit(const td_flow *flow)
{
    const td_flight *f = main_flight(flow);
    const char *why;
    return f ? td_limit_name(td_flight_limit(f, &why)) : "no-data";
}

static void format_plateau(const td_flow *flow, char *plateau, size_t plateau_size)
{
    const td_flight *f = main_flight(flow);
    const td_plateau *p = f ? td_flight_plateau(f) : NULL;

    if (p && f->mss)
        g_snprintf(plateau, (gulong)plateau_size, "%uB=%.1fMSS", p->high, (double)p->high / f->mss);
    else
        g_strlcpy(plateau, "-", plateau_size);
}

static void draw_flows(void *tapdata _U_)
{
    td_engine *engine = tcpdiag_engine();
    const td_diagnoses *diagnoses = tcpdiag_diagnoses();
    char endpoints[160];

    printf("\n==================================================================================\n");
    printf("tcpdiag: per-flow diagnosis\n");
    printf("%-6s %-50s %10s %8s  %-14s %-16s %-8s %-18s %-12s %-12s %-18s\n", "Stream", "Flow (client -> server)",
           "Duration", "Packets", "ECN", "Options missing", "Limit", "Plateau", "Reaction", "Offload", "Cause");
    if (!engine) {
        printf("(no capture analysed)\n");
        return;
    }
    for (guint i = 0; i < td_engine_flow_count(engine); i++) {
        const td_flow *flow = td_engine_flow_at(engine, i);
        td_options_audit audit;
        char missing[64] = "unknown", plateau[32];
        tcpdiag_flow_endpoints(flow, endpoints, sizeof endpoints);
        format_plateau(flow, plateau, sizeof plateau);
        td_options_audit_flow(flow, &audit);
        if (audit.settled)
            td_options_missing_list(audit.missing, missing, sizeof missing);
        printf("%-6u %-50s %9.3fs %8u  %-14s %-16s %-8s %-18s %-12s %-12s %-18s\n", flow->stream, endpoints,
               (double)(flow->last_ns - flow->first_ns) / 1e9, flow->packets,
               td_ecn_outcome_name(flow->ecn_outcome), missing, tcpdiag_flow_limit(flow), plateau,
               tcpdiag_flow_reaction(flow), tcpdiag_flow_offload(flow), td_cause_name((td_cause)td_diagnosis_of(diagnoses, flow)->cause));
    }
    GString *not_kept = g_string_new("");
    td_report_not_kept(engine, not_kept);
    fputs(not_kept->str, stdout);
    g_string_free(not_kept, TRUE);
    printf("==================================================================================\n");
}

static void draw_diagnosis(void *tapdata _U_)
{
    const td_diagnoses *diagnoses = tcpdiag_diagnoses();
    GString *text = g_string_new("");

    printf("\n==================================================================================\n");
    if (diagnoses)
        td_report_diagnosis(diagnoses, tcpdiag_hosts(), text);
    else
        g_string_append(text, "tcpdiag: diagnosis\n(no capture analysed)\n");
    fputs(text->str, stdout);
    printf("==================================================================================\n");
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
