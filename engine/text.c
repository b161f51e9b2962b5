/* The reports both front ends print: the findings ranked by cost, the per-flow table
 * and the per-host rules. */
#include "text.h"

#include <string.h>

#include "addr.h"
#include "advice.h"
#include "units.h"
#include "options.h"

/* An ECN finding is the client's: its lottery is said. */
static bool about_ecn(const td_diagnoses *d, const td_flow *flow)
{
    td_cause_view v;
    const td_cause_ops *ops;

    td_cause_view_of(d, flow, &v);
    ops = td_cause_ops_of((td_cause)v.diag->cause);
    return ops->about_ecn && ops->about_ecn(&v);
}

void td_text_finding_sentence(const td_diagnoses *d, const td_hosts *hosts, const td_finding *f, GString *out)
{
    const td_diagnosis *worst = td_diagnosis_of(d, f->worst);
    char address[64], evidence[TD_SUMMARY_MAX + 1], cost[160];
    const char *text = evidence;
    unsigned n = f->flows->len;

    td_addr_format(f->who, address, sizeof address);
    td_advice_evidence(d, f->worst, evidence, sizeof evidence);
    g_string_append_printf(out, "%s (%s): ", address, f->role);
    if (about_ecn(d, f->worst)) {
        /* an ECN cause is the client's: its lottery */
        const td_client_summary *client = td_hosts_client_of(hosts, f->worst);
        if (client)
            g_string_append_printf(out, "%u of %u connections negotiated ECN; ", client->ecn_negotiated, client->conns);
        if (g_str_has_prefix(text, "ECN negotiated; "))
            text += strlen("ECN negotiated; ");
    }
    if (n > 1)
        g_string_append_printf(out, "%u flows; %s: ", n,
                               td_cause_by_application(f->cause) ? "for one of them" : "the one that lost most");
    g_string_append(out, text);
    if (worst->slowdown > 0) {
        td_advice_cost(worst, n > 1 ? "it" : "that flow", cost, sizeof cost);
        g_string_append_printf(out, "; %s", cost);
    }
    g_string_append_c(out, '.');
}

static void write_finding(const td_diagnoses *d, const td_hosts *hosts, const td_finding *f, unsigned rank,
                          GString *out)
{
    const td_diagnosis *worst = td_diagnosis_of(d, f->worst);
    char lost[64];
    unsigned n = f->flows->len;

    g_string_append_printf(out, "%u. ", rank);
    td_text_finding_sentence(d, hosts, f, out);
    g_string_append_c(out, '\n');
    g_string_append_printf(out, "   Cause: %s; %u flow%s (stream%s", td_cause_name(f->cause), n, n == 1 ? "" : "s",
                           n == 1 ? "" : "s");
    for (guint i = 0; i < n && i < 8; i++)
        g_string_append_printf(out, " %u", ((const td_flow *)g_ptr_array_index(f->flows, i))->stream);
    g_string_append(out, n > 8 ? " ...)" : ")");
    td_finding_lost_words(f, lost, sizeof lost);
    if (*lost)
        g_string_append_printf(out, ", %s", lost);
    if (worst->evidence_frame)
        g_string_append_printf(out, "; evidence from frame %u", worst->evidence_frame);
    g_string_append_printf(out, ".\n   Fix: %s.\n   Confirm: %s.\n", td_advice_fix(d, f->worst),
                           td_advice_confirm(d, f->worst));
}

/* Flows without a diagnosis, by reason. */
/* The reasons in the order the flows first give them: a hash table's order would
 * follow the reasons' addresses, which differ between the plugin and the command. */
static void write_undiagnosed(const td_diagnoses *d, GString *out)
{
    const td_engine *engine = td_diagnoses_engine(d);
    GHashTable *counts = g_hash_table_new(g_direct_hash, g_direct_equal);
    GPtrArray *reasons = g_ptr_array_new();
    unsigned total = 0;

    const td_flow *flow;
    for (guint i = 0; (flow = td_engine_next_flow(engine, &i)); i++) {
        const td_diagnosis *diag = td_diagnosis_of(d, flow);
        guint count;
        if (diag->cause != TD_CAUSE_UNKNOWN)
            continue;
        total++;
        count = GPOINTER_TO_UINT(g_hash_table_lookup(counts, diag->reason));
        if (!count)
            g_ptr_array_add(reasons, (gpointer)diag->reason);
        g_hash_table_insert(counts, (gpointer)diag->reason, GUINT_TO_POINTER(count + 1));
    }
    if (total) {
        g_string_append_printf(out, "Not diagnosed: %u flow%s", total, total == 1 ? "" : "s");
        for (guint i = 0; i < reasons->len; i++) {
            const char *reason = g_ptr_array_index(reasons, i);
            g_string_append_printf(out, "%s%u: %s", i ? "; " : " (",
                                   GPOINTER_TO_UINT(g_hash_table_lookup(counts, reason)),
                                   reason ? reason : "no reason recorded");
        }
        g_string_append(out, ").\n");
    }
    g_ptr_array_free(reasons, TRUE);
    g_hash_table_destroy(counts);
}

void td_text_not_kept(const td_engine *engine, GString *out)
{
    uint64_t not_kept = td_engine_not_kept(engine);

    if (not_kept)
        g_string_append_printf(out, "Not kept: %" G_GUINT64_FORMAT " flows that were one SYN each, beyond the "
                               "max_flows preference (%u flows): counted, not analysed.\n",
                               not_kept, td_engine_config(engine)->max_flows);
}

void td_text_headline(const td_diagnoses *d, GString *out)
{
    td_tally t = td_findings_tally(d);
    char application[64] = "";

    if (t.by_application)
        g_snprintf(application, sizeof application, ", %u limited by their application", t.by_application);
    g_string_append_printf(out, "diagnosis of %u flow%s: %u slow%s, %u healthy, %u not diagnosed", t.flows,
                           t.flows == 1 ? "" : "s", t.slow, application, t.healthy, t.undiagnosed);
}

void td_text_diagnosis(const td_diagnoses *d, const td_hosts *hosts, GString *out)
{
    GPtrArray *findings = td_findings(d);
    td_tally t = td_findings_tally(d);

    g_string_append(out, "tcpdiag: ");
    td_text_headline(d, out);
    g_string_append(out, "\n");
    td_text_not_kept(td_diagnoses_engine(d), out);
    if (!t.slow)
        g_string_append_printf(out, "No slow flow: %s.\n",
                               t.by_application ? "the network held none back; the flows below waited on their application"
                               : t.healthy ? "every flow with a diagnosis is healthy" : "nothing could be diagnosed");
    for (guint i = 0; i < findings->len; i++)
        write_finding(d, hosts, g_ptr_array_index(findings, i), i + 1, out);
    write_undiagnosed(d, out);
    g_ptr_array_free(findings, TRUE);
}

void td_text_diagnosis_framed(const td_diagnoses *d, const td_hosts *hosts, GString *out)
{
    g_string_append(out, "\n" TD_REPORT_RULE "\n");
    if (d)
        td_text_diagnosis(d, hosts, out);
    else
        g_string_append(out, "tcpdiag: diagnosis\n(no capture analysed)\n");
    g_string_append(out, TD_REPORT_RULE "\n");
}

void td_text_endpoints(const td_flow *flow, char *buf, size_t size)
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

const char *td_text_reaction(const td_flow *flow)
{
    const td_flight *f = main_flight(flow);
    return !f ? "no-data" : f->unknown_reason ? "unknown" : td_reaction_name(f->cc.reaction);
}

const char *td_text_offload(const td_flow *flow)
{
    const td_flight *f = main_flight(flow);
    return f ? td_offload_verdict_name(f->seg.result.verdict) : "no-data";
}

const char *td_text_limit(const td_flow *flow)
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

void td_text_flows(const td_diagnoses *d, GString *out)
{
    td_text_flows_where(d, NULL, NULL, out);
}

void td_text_flows_where(const td_diagnoses *d, bool (*keep)(td_cause cause), const char *left_out_why,
                           GString *out)
{
    const td_engine *engine = d ? td_diagnoses_engine(d) : NULL;
    char endpoints[160];
    guint left_out = 0;

    g_string_append(out, "\n" TD_REPORT_RULE "\ntcpdiag: per-flow diagnosis\n");
    g_string_append_printf(out, "%-6s %-50s %10s %8s  %-14s %-16s %-8s %-18s %-12s %-12s %-18s\n", "Stream",
                           "Flow (client -> server)", "Duration", "Packets", "ECN", "Options missing", "Limit",
                           "Plateau", "Reaction", "Offload", "Cause");
    if (!engine) {
        g_string_append(out, "(no capture analysed)\n");
        return;
    }
    const td_flow *flow;
    for (guint i = 0; (flow = td_engine_next_flow(engine, &i)); i++) {
        td_cause cause = (td_cause)td_diagnosis_of(d, flow)->cause;
        td_options_audit audit;
        char missing[64] = "unknown", plateau[32];
        if (keep && !keep(cause)) {
            left_out++;
            continue;
        }
        td_text_endpoints(flow, endpoints, sizeof endpoints);
        format_plateau(flow, plateau, sizeof plateau);
        td_options_audit_flow(flow, &audit);
        if (audit.settled)
            td_options_missing_list(audit.missing, missing, sizeof missing);
        g_string_append_printf(out, "%-6u %-50s %9.3fs %8u  %-14s %-16s %-8s %-18s %-12s %-12s %-18s\n",
                               flow->stream, endpoints, (double)(flow->last_ns - flow->first_ns) / 1e9, flow->packets,
                               td_ecn_outcome_name((td_ecn_outcome)flow->ecn_outcome), missing, td_text_limit(flow), plateau,
                               td_text_reaction(flow), td_text_offload(flow), td_cause_name(cause));
    }
    if (left_out)
        g_string_append_printf(out, "(%u flow%s left out: %s)\n", left_out, left_out == 1 ? "" : "s",
                               left_out_why ? left_out_why : "not asked for");
    td_text_not_kept(engine, out);
    g_string_append(out, TD_REPORT_RULE "\n");
}

static void format_seconds(double seconds, char *buf, size_t size)
{
    if (seconds >= 0)
        g_snprintf(buf, (gulong)size, "%.3fs", seconds);
    else
        g_strlcpy(buf, "-", size);
}

static void report_clients(const td_hosts *hosts, GString *out)
{
    g_string_append(out, "tcpdiag: per-client rules\n");
    g_string_append_printf(out, "%-40s %6s %9s %10s %12s %12s %9s %13s\n", "Client", "Conns", "ECN req", "ECN negot",
                           "ECN median", "Other median", "Slowdown", "SYNs w/o opts");
    for (guint i = 0; i < td_hosts_client_count(hosts); i++) {
        const td_client_summary *s = td_hosts_client_at(hosts, i);
        char host[64], ecn[16], other[16], slowdown[16] = "-", opts[24];
        td_addr_format(&s->addr, host, sizeof host);
        format_seconds(s->ecn_median_duration_s, ecn, sizeof ecn);
        format_seconds(s->other_median_duration_s, other, sizeof other);
        if (s->ecn_slowdown > 0)
            g_snprintf(slowdown, sizeof slowdown, "%.1fx", s->ecn_slowdown);
        g_snprintf(opts, sizeof opts, "%u/%u", s->opts_missing, s->opts_known);
        g_string_append_printf(out, "%-40s %6u %9u %10u %12s %12s %9s %13s%s\n", host, s->conns, s->ecn_requested,
                               s->ecn_negotiated, ecn, other, slowdown, opts, s->ecn_slower ? "  ECN flows slower" : "");
    }
}

static void report_senders(const td_hosts *hosts, GString *out)
{
    g_string_append(out, "\ntcpdiag: per-sender offload rules\n");
    g_string_append_printf(out, "%-40s %-14s %9s %9s %-28s %14s %14s\n", "Sender", "Offload", "Offloaded", "Not",
                           "In common", "Median not", "Median offl.");
    for (guint i = 0; i < td_hosts_sender_count(hosts); i++) {
        const td_sender_summary *s = td_hosts_sender_at(hosts, i);
        char host[64], common[64] = "-", capped[32] = "-", offloaded[32] = "-";
        if (s->offload == TD_SENDER_OFFLOAD_UNKNOWN)
            continue;
        td_addr_format(&s->addr, host, sizeof host);
        if (s->offload == TD_SENDER_OFFLOAD_MIXED)
            td_common_traits(s->common, common, sizeof common);
        if (s->capped_median_rate >= 0)
            td_format_rate(s->capped_median_rate, capped, sizeof capped);
        if (s->offloaded_median_rate >= 0)
            td_format_rate(s->offloaded_median_rate, offloaded, sizeof offloaded);
        g_string_append_printf(out, "%-40s %-14s %9u %9u %-28s %14s %14s\n", host,
                               td_sender_offload_name((td_sender_offload)s->offload), s->offloaded_flows,
                               s->capped_flows, common, capped, offloaded);
    }
}

void td_text_hosts_framed(const td_hosts *hosts, GString *out)
{
    g_string_append(out, "\n" TD_REPORT_RULE "\n");
    if (!hosts) {
        g_string_append(out, "tcpdiag: per-host rules\n(no capture analysed)\n");
    } else {
        report_clients(hosts, out);
        report_senders(hosts, out);
    }
    g_string_append(out, TD_REPORT_RULE "\n");
}
