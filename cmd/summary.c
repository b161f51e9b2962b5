/* --summary: each file's line and the findings of all files ranked by time lost. */
#include "summary.h"

#include <inttypes.h>

#include "findings.h"
#include "units.h"

/* Findings are listed up to this many, so that the summary of a folder of captures
 * fits on a screen; the rest are counted. */
enum { RANKED_SHOWN = 10 };

/* The findings of one file (findings.h) that share a primary cause, summed: one
 * entry of its line and of the ranking. */
typedef struct by_cause {
    const td_file_summary *file;
    td_cause cause;
    int64_t lost_ns;            /* summed over the flows whose loss is known */
    guint flows;
    guint flows_lost_unknown;
    GString *streams;           /* "3, 5" */
} by_cause;

struct td_file_summary {
    char *path;
    char *error;                /* NULL when the whole file was read */
    bool opened;
    td_tally tally;             /* the file's flows as the text report's headline counts them */
    GArray *causes;             /* by_cause, in order of precedence */
};

struct td_summary {
    GPtrArray *files;           /* td_file_summary */
};

static gint by_precedence(gconstpointer a, gconstpointer b)
{
    return (gint)((const by_cause *)a)->cause - (gint)((const by_cause *)b)->cause;
}

static gint by_flow_index(gconstpointer a, gconstpointer b)
{
    guint x = (*(const td_flow *const *)a)->index, y = (*(const td_flow *const *)b)->index;

    return x < y ? -1 : x > y;
}

/* Every flow of the file's findings with this cause, in capture order. */
static void sum_cause(td_file_summary *file, const td_diagnoses *d, const GPtrArray *findings, td_cause cause)
{
    by_cause sum = { .file = file, .cause = cause, .streams = g_string_new("") };
    GPtrArray *flows = g_ptr_array_new();

    for (guint i = 0; i < findings->len; i++) {
        const td_finding *f = g_ptr_array_index(findings, i);
        for (guint k = 0; f->cause == cause && k < f->flows->len; k++)
            g_ptr_array_add(flows, g_ptr_array_index(f->flows, k));
    }
    g_ptr_array_sort(flows, by_flow_index);
    for (guint k = 0; k < flows->len; k++) {
        const td_flow *flow = g_ptr_array_index(flows, k);
        const td_diagnosis *diag = td_diagnosis_of(d, flow);
        sum.flows++;
        if (diag->lost_ns > 0)
            sum.lost_ns += diag->lost_ns;
        else if (diag->lost_ns < 0)
            sum.flows_lost_unknown++;
        g_string_append_printf(sum.streams, "%s%u", sum.streams->len ? ", " : "", flow->stream);
    }
    g_ptr_array_free(flows, TRUE);
    g_array_append_val(file->causes, sum);
}

td_file_summary *td_file_summary_of(const td_capture *c)
{
    td_file_summary *file = g_new0(td_file_summary, 1);
    unsigned seen = 0;

    file->path = g_strdup(c->path);
    file->error = g_strdup(c->error);
    file->opened = c->opened;
    file->causes = g_array_new(FALSE, FALSE, sizeof(by_cause));
    if (!c->engine)
        return file;
    GPtrArray *findings = td_findings(c->diagnoses);
    file->tally = td_findings_tally(c->diagnoses);
    for (guint i = 0; i < findings->len; i++) {
        td_cause cause = ((const td_finding *)g_ptr_array_index(findings, i))->cause;
        if (!(seen & (1u << cause))) {
            seen |= 1u << cause;
            sum_cause(file, c->diagnoses, findings, cause);
        }
    }
    g_ptr_array_free(findings, TRUE);
    g_array_sort(file->causes, by_precedence);
    return file;
}

void td_file_summary_free(td_file_summary *file)
{
    if (!file)
        return;
    for (guint i = 0; i < file->causes->len; i++)
        g_string_free(g_array_index(file->causes, by_cause, i).streams, TRUE);
    g_array_free(file->causes, TRUE);
    g_free(file->path);
    g_free(file->error);
    g_free(file);
}

td_summary *td_summary_new(void)
{
    td_summary *summary = g_new0(td_summary, 1);
    summary->files = g_ptr_array_new_with_free_func((GDestroyNotify)td_file_summary_free);
    return summary;
}

void td_summary_add(td_summary *summary, td_file_summary *file)
{
    g_ptr_array_add(summary->files, file);
}

/* "2.40 s lost", or that no reference told what it cost. */
static void cost(const by_cause *f, GString *out)
{
    char lost[32];

    if (f->lost_ns > 0) {
        td_format_duration(f->lost_ns, lost, sizeof lost);
        g_string_append_printf(out, "%s lost", lost);
        if (f->flows_lost_unknown)
            g_string_append_printf(out, ", more by %u flow%s", f->flows_lost_unknown,
                                   f->flows_lost_unknown == 1 ? "" : "s");
    } else
        g_string_append(out, "time lost unknown");
}

static void file_line(const td_file_summary *file, GString *out)
{
    g_string_append_printf(out, "%s: ", file->path);
    if (!file->opened) {
        g_string_append_printf(out, "not read: %s\n", file->error ? file->error : "unknown error");
        return;
    }
    g_string_append_printf(out, "%u flow%s, %u slow", file->tally.flows, file->tally.flows == 1 ? "" : "s",
                           file->tally.slow);
    if (file->tally.by_application)
        g_string_append_printf(out, ", %u limited by %s application", file->tally.by_application,
                               file->tally.by_application == 1 ? "its" : "their");
    g_string_append_c(out, ':');
    for (guint i = 0; i < file->causes->len; i++) {
        const by_cause *f = &g_array_index(file->causes, by_cause, i);
        g_string_append_printf(out, "%s %s (", i ? "," : "", td_cause_name(f->cause));
        cost(f, out);
        g_string_append_c(out, ')');
    }
    if (file->error)
        g_string_append_printf(out, "%scut short: %s", file->causes->len ? "; " : " ", file->error);
    g_string_append_c(out, '\n');
}

/* As the findings model ranks (findings.h): the network's first, then most time lost
 * (those whose cost is unknown last), then by cause. */
static gint by_time_lost(gconstpointer a, gconstpointer b)
{
    const by_cause *x = *(const by_cause *const *)a, *y = *(const by_cause *const *)b;

    if (td_cause_by_application(x->cause) != td_cause_by_application(y->cause))
        return td_cause_by_application(x->cause) ? 1 : -1;
    if (x->lost_ns != y->lost_ns)
        return x->lost_ns < y->lost_ns ? 1 : -1;
    return (gint)x->cause - (gint)y->cause;
}

void td_summary_write(const td_summary *summary, GString *out)
{
    GPtrArray *ranked = g_ptr_array_new();
    guint healthy = 0, healthy_flows = 0;

    /* a file read whole with no finding has nothing to say: those are counted on
     * one line, so that the ones with an answer fit on a screen */
    for (guint i = 0; i < summary->files->len; i++) {
        const td_file_summary *file = g_ptr_array_index(summary->files, i);
        if (file->opened && !file->error && !file->causes->len) {
            healthy++;
            healthy_flows += file->tally.flows;
            continue;
        }
        file_line(file, out);
        for (guint k = 0; k < file->causes->len; k++)
            g_ptr_array_add(ranked, &g_array_index(file->causes, by_cause, k));
    }
    if (healthy)
        g_string_append_printf(out, "%s%u file%s read whole, no slow flow (%u flow%s)\n",
                               healthy == summary->files->len ? "" : "and ", healthy, healthy == 1 ? "" : "s",
                               healthy_flows, healthy_flows == 1 ? "" : "s");
    g_ptr_array_sort(ranked, by_time_lost);
    g_string_append_printf(out, "\nFindings ranked by time lost (%u):\n", ranked->len);
    for (guint i = 0; i < MIN(ranked->len, (guint)RANKED_SHOWN); i++) {
        const by_cause *f = g_ptr_array_index(ranked, i);
        g_string_append_printf(out, "%2u. %s: ", i + 1, td_cause_name(f->cause));
        cost(f, out);
        g_string_append_printf(out, "; %s, stream%s %s\n", f->file->path, f->flows == 1 ? "" : "s",
                               f->streams->str);
    }
    if (ranked->len > RANKED_SHOWN)
        g_string_append_printf(out, "... and %u more (tcpdiag FILE reports each file in full)\n",
                               ranked->len - RANKED_SHOWN);
    if (!ranked->len)
        g_string_append(out, "(none: no flow is slow for a known cause)\n");
    g_ptr_array_free(ranked, TRUE);
}

void td_summary_free(td_summary *summary)
{
    if (!summary)
        return;
    g_ptr_array_free(summary->files, TRUE);
    g_free(summary);
}
