/* The diagnosis in words (advice.h): each cause's words (causes/) with the cost clause
 * every cause shares. */
#include "advice.h"

#include "units.h"

static const char *reference_phrase(const td_diagnosis *diag, char *buf, size_t size)
{
    switch ((td_reference)diag->reference) {
    case TD_REF_CLIENT_FLOWS:
        g_snprintf(buf, size, "this client's %u other flow%s", diag->peers, diag->peers == 1 ? "" : "s");
        return buf;
    case TD_REF_SENDER_FLOWS:
        g_snprintf(buf, size, "this sender's %u other flow%s", diag->peers, diag->peers == 1 ? "" : "s");
        return buf;
    case TD_REF_WINDOW_CEILING:
        return "what its window allowed";
    case TD_REF_OWN_RATE:
        return "its own pace outside the episode";
    case TD_REF_REFERENCE_RTT:
        return "the same exchange at the reference round trip";
    case TD_REF_ONE_ROUND_TRIP:
        return "one round trip per exchange";
    case TD_REF_EMPTY_PATH:
        return "the same exchanges on the empty path";
    case TD_REF_NONE:
        break;
    }
    return NULL;
}

void td_advice_cost(const td_diagnosis *diag, const char *subject, char *buf, size_t size)
{
    char phrase[64], lost[32];
    const char *reference = reference_phrase(diag, phrase, sizeof phrase);

    /* a part of the flow's own time (no reference) is lost; a slowdown is what it was */
    if (!reference || diag->slowdown <= 0) {
        if (diag->lost_ns > 0) {
            td_format_duration(diag->lost_ns, lost, sizeof lost);
            if (subject)
                g_snprintf(buf, size, "%s lost %s of its time", subject, lost);
            else
                g_snprintf(buf, size, "%s of its time lost", lost);
        } else {
            g_snprintf(buf, size, "%s%snothing in this capture to compare it with", subject ? subject : "",
                       subject ? " lost " : "");
        }
        return;
    }
    if (diag->lost_ns > 0) {
        td_format_duration(diag->lost_ns, lost, sizeof lost);
        g_snprintf(buf, size, "%s%s%.1fx slower than %s (%s lost)", subject ? subject : "", subject ? " was " : "",
                   diag->slowdown, reference, lost);
    } else {
        g_snprintf(buf, size, "%s%s%.1fx slower than %s", subject ? subject : "", subject ? " was " : "",
                   diag->slowdown, reference);
    }
}

void td_advice_evidence(const td_diagnoses *d, const td_flow *flow, char *buf, size_t size)
{
    td_cause_view v;

    td_cause_view_of(d, flow, &v);
    td_cause_ops_of((td_cause)v.diag->cause)->evidence(&v, buf, size);
}

void td_advice_summary(const td_diagnoses *d, const td_flow *flow, char *buf, size_t size)
{
    const td_diagnosis *diag = td_diagnosis_of(d, flow);
    char evidence[TD_SUMMARY_MAX + 1], cost[128];

    td_advice_evidence(d, flow, evidence, sizeof evidence);
    if (!(td_cause_ops_of((td_cause)diag->cause)->flags & TD_CAUSE_COST_SAID)) {
        g_strlcpy(buf, evidence, MIN(size, (size_t)TD_SUMMARY_MAX + 1));
        return;
    }
    td_advice_cost(diag, NULL, cost, sizeof cost);
    g_snprintf(buf, (gulong)MIN(size, (size_t)TD_SUMMARY_MAX + 1), "%s; %s", evidence, cost);
}

static td_advice advice_of(const td_diagnoses *d, const td_flow *flow)
{
    td_cause_view v;

    td_cause_view_of(d, flow, &v);
    return td_cause_ops_of((td_cause)v.diag->cause)->advice(&v);
}

const char *td_advice_fix(const td_diagnoses *d, const td_flow *flow)
{
    return advice_of(d, flow).fix;
}

const char *td_advice_confirm(const td_diagnoses *d, const td_flow *flow)
{
    return advice_of(d, flow).confirm;
}
