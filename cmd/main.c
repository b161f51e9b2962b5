/* tcpdiag: the plugin's diagnosis straight from capture files, without tshark.
 *   tcpdiag [-j N] [--format text|json|csv|ek] FILE...
 * Files are analysed in parallel (-j) and printed in the order given. A file that
 * cannot be read gets a message on stderr and makes the exit status 1; the other
 * files go on. */
#include <glib.h>
#include <stdio.h>
#include <unistd.h>

#include "capture.h"
#include "output.h"
#include "reader.h"

#ifndef VERSION
#define VERSION "0.1.0"
#endif

/* Decoding and stream numbering follow the Wireshark whose wiretap this was built
 * against, so that the command's records and tcp.stream are that tshark's. */
#if TD_WIRESHARK_VERSION >= 406
#define WIRESHARK TD_WIRESHARK_4_6
#elif TD_WIRESHARK_VERSION >= 404
#define WIRESHARK TD_WIRESHARK_4_4
#else
#define WIRESHARK TD_WIRESHARK_4_0
#endif

typedef struct result {
    GString *text;          /* the file's output, whatever the format */
    char *error;
    bool done;
} result;

typedef struct run {
    char **files;
    guint count;
    td_format format;
    result *results;
    GMutex lock;
    GCond finished;
    volatile gint packets;
} run;

/* Analyses one file and keeps only its output: the engine is freed here, so the
 * memory held for files waiting their turn to print is their text, not their flows. */
static void analyse(run *r, guint i)
{
    td_capture *c = td_capture_analyse(r->files[i], WIRESHARK, &r->packets);
    result *res = &r->results[i];
    GString *text = g_string_new("");

    if (c->opened) {
        switch (r->format) {
        case TD_FORMAT_TEXT: td_output_text(c, text); break;
        case TD_FORMAT_JSON: td_output_json(c, text); break;
        case TD_FORMAT_EK:   td_output_ek(c, text); break;
        case TD_FORMAT_CSV:  td_output_csv(c, text); break;
        }
    }
    g_mutex_lock(&r->lock);
    res->text = text;
    res->error = g_steal_pointer(&c->error);
    res->done = true;
    g_cond_signal(&r->finished);
    g_mutex_unlock(&r->lock);
    td_capture_free(c);
}

static void worker(gpointer data, gpointer user)
{
    analyse(user, GPOINTER_TO_UINT(data) - 1);
}

static void show_progress(run *r, guint printed)
{
    fprintf(stderr, "\rtcpdiag: %u of %u files, %d packets", printed, r->count, g_atomic_int_get(&r->packets));
    fflush(stderr);
}

/* Prints result i once it is there, with progress on a terminal meanwhile. */
static void wait_for(run *r, guint i, bool progress)
{
    g_mutex_lock(&r->lock);
    while (!r->results[i].done) {
        if (progress) {
            g_mutex_unlock(&r->lock);
            show_progress(r, i);
            g_mutex_lock(&r->lock);
        }
        g_cond_wait_until(&r->finished, &r->lock, g_get_monotonic_time() + G_TIME_SPAN_SECOND / 5);
    }
    g_mutex_unlock(&r->lock);
}

int main(int argc, char **argv)
{
    int jobs = 1;
    char *format_name = NULL;
    gboolean version = FALSE;
    GOptionEntry entries[] = {
        { "jobs", 'j', 0, G_OPTION_ARG_INT, &jobs, "Analyse N files at a time (default 1)", "N" },
        { "format", 'F', 0, G_OPTION_ARG_STRING, &format_name,
          "text (the -z tcpdiag,diagnosis and -z tcpdiag,flows reports, the default), json (NDJSON, one "
          "object per flow), csv, or ek (Elasticsearch/OpenSearch bulk lines, as tshark -T ek)", "FORMAT" },
        { "version", 0, 0, G_OPTION_ARG_NONE, &version, "Print the version and exit", NULL },
        { NULL, 0, 0, 0, NULL, NULL, NULL },
    };
    GOptionContext *context = g_option_context_new("FILE... - why TCP transfers are slow, from capture files");
    GError *error = NULL;
    run r = { 0 };
    GThreadPool *pool;
    bool progress = isatty(STDERR_FILENO);
    int status = 0;

    g_option_context_add_main_entries(context, entries, NULL);
    if (!g_option_context_parse(context, &argc, &argv, &error)) {
        fprintf(stderr, "tcpdiag: %s\n", error->message);
        return 2;
    }
    g_option_context_free(context);
    if (version) {
        printf("tcpdiag " VERSION "\n");
        return 0;
    }
    if (format_name && !td_format_parse(format_name, &r.format)) {
        fprintf(stderr, "tcpdiag: unknown format \"%s\": text, json, csv or ek\n", format_name);
        return 2;
    }
    if (argc < 2 || jobs < 1) {
        fprintf(stderr, "usage: tcpdiag [-j N] [--format text|json|csv|ek] FILE...\n");
        return 2;
    }
    td_reader_init();
    r.files = argv + 1;
    r.count = (guint)argc - 1;
    r.results = g_new0(result, r.count);
    g_mutex_init(&r.lock);
    g_cond_init(&r.finished);
    if (r.format == TD_FORMAT_CSV) {
        GString *header = g_string_new("");
        td_output_csv_header(header);
        fwrite(header->str, 1, header->len, stdout);
        g_string_free(header, TRUE);
    }
    pool = g_thread_pool_new(worker, &r, jobs, TRUE, NULL);
    for (guint i = 0; i < r.count; i++)
        g_thread_pool_push(pool, GUINT_TO_POINTER(i + 1), NULL);
    for (guint i = 0; i < r.count; i++) {
        result *res = &r.results[i];
        wait_for(&r, i, progress);
        if (progress)
            fputs("\r\033[K", stderr);
        fwrite(res->text->str, 1, res->text->len, stdout);
        fflush(stdout);
        if (res->error) {
            fprintf(stderr, "tcpdiag: %s: %s\n", r.files[i], res->error);
            status = 1;
        }
        g_string_free(res->text, TRUE);
        g_free(res->error);
    }
    g_thread_pool_free(pool, FALSE, TRUE);
    g_free(r.results);
    g_free(format_name);
    td_reader_cleanup();
    return status;
}
