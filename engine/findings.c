/* The findings model (findings.h): flows grouped by cause and by whose fix it is,
 * ranked by cost; the capture's tally. */
#include "findings.h"

#include "addr.h"
#include "units.h"

bool td_cause_is_finding(td_cause cause)
{
    /* none and unknown are verdicts without a rule: no cause held */
    return td_cause_ops_of(cause)->holds != NULL;
}

bool td_cause_by_application(td_cause cause)
{
    return td_cause_ops_of(cause)->flags & TD_CAUSE_BY_APPLICATION;
}

/* Whose finding it is (each cause's who): the party whose fix it is. */
static const td_addr *who_of(const td_diagnoses *d, const td_flow *flow, const char **role)
{
    td_cause_view v;
    const td_cause_ops *ops;

    td_cause_view_of(d, flow, &v);
    ops = td_cause_ops_of((td_cause)v.diag->cause);
    return ops->who ? ops->who(&v, role) : td_cause_endpoint(&v, v.diag->sender, role);
}

static void finding_free(gpointer data)
{
    td_finding *f = data;
    g_ptr_array_free(f->flows, TRUE);
    g_free(f);
}

static gint by_cost(gconstpointer a, gconstpointer b)
{
    const td_finding *x = *(td_finding *const *)a, *y = *(td_finding *const *)b;
    /* the network's findings first: an application's own pauses cost nothing on the path */
    if (td_cause_by_application(x->cause) != td_cause_by_application(y->cause))
        return td_cause_by_application(x->cause) ? 1 : -1;
    if (x->lost_ns != y->lost_ns)
        return x->lost_ns < y->lost_ns ? 1 : -1;
    if (x->flows->len != y->flows->len)
        return x->flows->len < y->flows->len ? 1 : -1;
    return x->cause - y->cause;
}

static void add_to_finding(GHashTable *by_key, GPtrArray *findings, const td_diagnoses *d, const td_flow *flow)
{
    const td_diagnosis *diag = td_diagnosis_of(d, flow);
    const char *role;
    const td_addr *who = who_of(d, flow, &role);
    char address[64], *key;
    td_finding *f;

    td_addr_format(who, address, sizeof address);
    key = g_strdup_printf("%d|%s", diag->cause, address);
    f = g_hash_table_lookup(by_key, key);
    if (!f) {
        f = g_new0(td_finding, 1);
        f->cause = (td_cause)diag->cause;
        f->who = who;
        f->role = role;
        f->flows = g_ptr_array_new();
        f->worst_lost_ns = -1;
        g_hash_table_insert(by_key, key, f);
        g_ptr_array_add(findings, f);
    } else {
        g_free(key);
    }
    g_ptr_array_add(f->flows, (gpointer)flow);
    if (diag->lost_ns > 0)
        f->lost_ns += diag->lost_ns;
    if (!f->worst || diag->lost_ns > f->worst_lost_ns) {
        f->worst = flow;
        f->worst_lost_ns = diag->lost_ns;
    }
}

static gint by_start(gconstpointer a, gconstpointer b)
{
    int64_t x = (*(const td_flow *const *)a)->first_ns, y = (*(const td_flow *const *)b)->first_ns;

    return x < y ? -1 : x > y;
}

/* The flows that lost time, their lives [first, last] joined. */
static int64_t span_of(const td_diagnoses *d, const td_finding *f)
{
    GPtrArray *lost = g_ptr_array_new();
    int64_t span = 0, start = 0, end = 0;

    for (guint i = 0; i < f->flows->len; i++)
        if (td_diagnosis_of(d, g_ptr_array_index(f->flows, i))->lost_ns > 0)
            g_ptr_array_add(lost, g_ptr_array_index(f->flows, i));
    g_ptr_array_sort(lost, by_start);
    for (guint i = 0; lost->len >= 2 && i < lost->len; i++) {
        const td_flow *flow = g_ptr_array_index(lost, i);
        if (i && flow->first_ns <= end) {
            end = MAX(end, flow->last_ns);
            continue;
        }
        span += end - start;
        start = flow->first_ns;
        end = flow->last_ns;
    }
    if (lost->len >= 2)
        span += end - start;
    g_ptr_array_free(lost, TRUE);
    return span;
}

void td_finding_lost_words(const td_finding *f, char *buf, size_t size)
{
    char lost[32], span[32];

    if (f->lost_ns <= 0) {
        g_strlcpy(buf, "", size);
        return;
    }
    td_format_duration(f->lost_ns, lost, sizeof lost);
    if (f->span_ns > 0 && f->span_ns < f->lost_ns) {
        td_format_duration(f->span_ns, span, sizeof span);
        g_snprintf(buf, size, "%s lost over %s", lost, span);
    } else {
        g_snprintf(buf, size, "%s lost", lost);
    }
}

GPtrArray *td_findings(const td_diagnoses *d)
{
    const td_engine *engine = td_diagnoses_engine(d);
    GHashTable *by_key = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    GPtrArray *findings = g_ptr_array_new_with_free_func(finding_free);
    const td_flow *flow;

    for (guint i = 0; (flow = td_engine_next_flow(engine, &i)); i++)
        if (td_cause_is_finding((td_cause)td_diagnosis_of(d, flow)->cause))
            add_to_finding(by_key, findings, d, flow);
    for (guint i = 0; i < findings->len; i++) {
        td_finding *f = g_ptr_array_index(findings, i);
        f->span_ns = span_of(d, f);
    }
    g_ptr_array_sort(findings, by_cost);
    g_hash_table_destroy(by_key);
    return findings;
}

td_tally td_findings_tally(const td_diagnoses *d)
{
    const td_engine *engine = td_diagnoses_engine(d);
    td_tally t = { 0 };
    const td_flow *flow;

    /* the flows kept: a front end that released flows (settle.h) gave their records */
    for (guint i = 0; (flow = td_engine_next_flow(engine, &i)); i++) {
        td_cause cause = (td_cause)td_diagnosis_of(d, flow)->cause;
        t.flows++;
        if (cause == TD_CAUSE_NONE)
            t.healthy++;
        else if (!td_cause_is_finding(cause))
            t.undiagnosed++;
        else if (td_cause_by_application(cause))
            t.by_application++;     /* a flow its own application held back is no network fault */
        else
            t.slow++;
    }
    return t;
}
