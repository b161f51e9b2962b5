/* --summary: each file's line and the findings of all files ranked by time lost. */
#include "summary.h"

#include <inttypes.h>

#include "units.h"

/* Findings are listed up to this many, so that the summary of a folder of captures
 * fits on a screen; the rest are counted. */
enum { RANKED_SHOWN = 10 };

/* The slow flows of one file that share a primary cause. */
typedef struct finding {
    const td_file_summary *file;
    td_cause cause;
    int64_t lost_ns;            /* summed over the flows whose loss is known */
    guint flows;
    guint flows_lost_unknown;
    GString *streams;           /* "3, 5" */
} finding;

struct td_file_summary {
    char *path;
    char *error;                /* NULL when the whole file was read */
    bool opened;
    guint flows;
    guint slow;
    GArray *findings;           /* finding, in order of precedence of their cause */
};

struct td_summary {
    GPtrArray *files;           /* td_file_summary */
};

static finding *finding_for(td_file_summary *file, td_cause cause)
{
    finding fresh = { .file = file, .cause = cause };

    for (guint i = 0; i < file->findings->len; i++)
        if (g_array_index(file->findings, finding, i).cause == cause)
            return &g_array_index(file->findings, finding, i);
    fresh.streams = g_string_new("");
    g_array_append_val(file->findings, fresh);
    return &g_array_index(file->findings, finding, file->findings->len - 1);
}

static gint by_precedence(gconstpointer a, gconstpointer b)
{
    return (gint)((const finding *)a)->cause - (gint)((const finding *)b)->cause;
}

td_file_summary *td_file_summary_of(const td_capture *c)
{
    td_file_summary *file = g_new0(td_file_summary, 1);

    file->path = g_strdup(c->path);
    file->error = g_strdup(c->error);
    file->opened = c->opened;
    file->findings = g_array_new(FALSE, FALSE, sizeof(finding));
    for (guint i = 0; c->engine && i < td_engine_flow_count(c->engine); i++) {
        const td_flow *flow = td_engine_flow_at(c->engine, i);
        const td_diagnosis *diag = td_diagnosis_of(c->diagnoses, flow);
        finding *f;
        file->flows++;
        if (diag->cause == TD_CAUSE_NONE || diag->cause == TD_CAUSE_UNKNOWN)
            continue;
        file->slow++;
        f = finding_for(file, (td_cause)diag->cause);
        f->flows++;
        if (diag->lost_ns > 0)
            f->lost_ns += diag->lost_ns;
        else if (diag->lost_ns < 0)
            f->flows_lost_unknown++;
        g_string_append_printf(f->streams, "%s%u", f->streams->len ? ", " : "", flow->stream);
    }
    g_array_sort(file->findings, by_precedence);
    return file;
}

void td_file_summary_free(td_file_summary *file)
{
    if (!file)
        return;
    for (guint i = 0; i < file->findings->len; i++)
        g_string_free(g_array_index(file->findings, finding, i).streams, TRUE);
    g_array_free(file->findings, TRUE);
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
static void cost(const finding *f, GString *out)
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
    g_string_append_printf(out, "%u flow%s, %u slow:", file->flows, file->flows == 1 ? "" : "s", file->slow);
    for (guint i = 0; i < file->findings->len; i++) {
        const finding *f = &g_array_index(file->findings, finding, i);
        g_string_append_printf(out, "%s %s (", i ? "," : "", td_cause_name(f->cause));
        cost(f, out);
        g_string_append_c(out, ')');
    }
    if (file->error)
        g_string_append_printf(out, "%scut short: %s", file->slow ? "; " : " ", file->error);
    g_string_append_c(out, '\n');
}

/* Most time lost first; findings whose cost is unknown last, by cause. */
static gint by_time_lost(gconstpointer a, gconstpointer b)
{
    const finding *x = *(const finding *const *)a, *y = *(const finding *const *)b;

    if (x->lost_ns != y->lost_ns)
        return x->lost_ns < y->lost_ns ? 1 : -1;
    return (gint)x->cause - (gint)y->cause;
}

void td_summary_write(const td_summary *summary, GString *out)
{
    GPtrArray *ranked = g_ptr_array_new();
    guint healthy = 0, healthy_flows = 0;

    /* a file read whole with no slow flow has nothing to say: those are counted on
     * one line, so that the ones with an answer fit on a screen */
    for (guint i = 0; i < summary->files->len; i++) {
        const td_file_summary *file = g_ptr_array_index(summary->files, i);
        if (file->opened && !file->error && !file->slow) {
            healthy++;
            healthy_flows += file->flows;
            continue;
        }
        file_line(file, out);
        for (guint k = 0; k < file->findings->len; k++)
            g_ptr_array_add(ranked, &g_array_index(file->findings, finding, k));
    }
    if (healthy)
        g_string_append_printf(out, "%s%u file%s read whole, no slow flow (%u flow%s)\n",
                               healthy == summary->files->len ? "" : "and ", healthy, healthy == 1 ? "" : "s",
                               healthy_flows, healthy_flows == 1 ? "" : "s");
    g_ptr_array_sort(ranked, by_time_lost);
    g_string_append_printf(out, "\nFindings ranked by time lost (%u):\n", ranked->len);
    for (guint i = 0; i < MIN(ranked->len, (guint)RANKED_SHOWN); i++) {
        const finding *f = g_ptr_array_index(ranked, i);
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
