/* tcpdiag: the plugin's diagnosis straight from capture files, without tshark.
 *   tcpdiag [-j N] [--format text|json|csv|ek] FILE...
 * Files are analysed in parallel (-j) and printed in the order given. A file that
 * cannot be read gets a message on stderr and makes the exit status 1; the other
 * files go on. */
#include <glib.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>
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
    GString *text;          /* text, json or ek output */
    td_csv *csv;
    char *error;
    bool done;
} result;

/* The workers and the printing thread synchronise through pthreads and C11
 * atomics only, which ThreadSanitizer sees (GLib's GMutex and GThreadPool are
 * futex-based and invisible to it), so the TSan stage in CI checks every handover. */
typedef struct run {
    char **files;
    guint count;
    td_format format;
    result *results;
    atomic_uint next;           /* the next file a worker takes */
    pthread_mutex_t lock;       /* guards results[].done and what it publishes */
    pthread_cond_t finished;
    volatile gint packets;
} run;

/* Analyses one file and keeps only its output: the engine is freed here, so the
 * memory held for files waiting their turn to print is their text, not their flows. */
static void analyse(run *r, guint i)
{
    td_capture *c = td_capture_analyse(r->files[i], WIRESHARK, &r->packets);
    result *res = &r->results[i];
    GString *text = g_string_new("");
    td_csv *csv = NULL;

    if (c->opened) {
        switch (r->format) {
        case TD_FORMAT_TEXT: td_output_text(c, text); break;
        case TD_FORMAT_JSON: td_output_json(c, text); break;
        case TD_FORMAT_EK:   td_output_ek(c, text); break;
        case TD_FORMAT_CSV:
            csv = td_csv_new();
            td_csv_add(csv, c);
            break;
        }
    }
    pthread_mutex_lock(&r->lock);
    res->text = text;
    res->csv = csv;
    res->error = g_steal_pointer(&c->error);
    res->done = true;
    pthread_cond_broadcast(&r->finished);
    pthread_mutex_unlock(&r->lock);
    td_capture_free(c);
}

/* Takes files in the order given until none is left: the file the printing
 * thread waits for is always the next one started or already running. */
static void *worker(void *data)
{
    run *r = data;

    for (guint i; (i = atomic_fetch_add(&r->next, 1)) < r->count;)
        analyse(r, i);
    return NULL;
}

static void show_progress(run *r, guint printed)
{
    fprintf(stderr, "\rtcpdiag: %u of %u files, %d packets", printed, r->count, g_atomic_int_get(&r->packets));
    fflush(stderr);
}

/* Waits for result i, showing progress on a terminal meanwhile. */
static void wait_for(run *r, guint i, bool progress)
{
    pthread_mutex_lock(&r->lock);
    while (!r->results[i].done) {
        struct timespec until;
        if (!progress) {
            pthread_cond_wait(&r->finished, &r->lock);
            continue;
        }
        pthread_mutex_unlock(&r->lock);
        show_progress(r, i);
        pthread_mutex_lock(&r->lock);
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 200000000;     /* the display's refresh */
        if (until.tv_nsec >= 1000000000) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000;
        }
        pthread_cond_timedwait(&r->finished, &r->lock, &until);
    }
    pthread_mutex_unlock(&r->lock);
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
    run r = { .lock = PTHREAD_MUTEX_INITIALIZER, .finished = PTHREAD_COND_INITIALIZER };
    td_csv *csv = NULL;
    pthread_t *workers;
    guint nworkers;
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
    if (r.format == TD_FORMAT_CSV)
        csv = td_csv_new();
    workers = g_new(pthread_t, MIN((guint)jobs, r.count));
    for (nworkers = 0; nworkers < MIN((guint)jobs, r.count); nworkers++)
        if (pthread_create(&workers[nworkers], NULL, worker, &r) != 0)
            break;      /* out of threads: the ones started take every file */
    if (nworkers == 0) {
        fprintf(stderr, "tcpdiag: cannot start a thread\n");
        return 1;
    }
    for (guint i = 0; i < r.count; i++) {
        result *res = &r.results[i];
        wait_for(&r, i, progress);
        if (progress)
            fputs("\r\033[K", stderr);
        fwrite(res->text->str, 1, res->text->len, stdout);
        fflush(stdout);
        if (res->csv)
            td_csv_append(csv, res->csv);
        if (res->error) {
            fprintf(stderr, "tcpdiag: %s: %s\n", r.files[i], res->error);
            status = 1;
        }
        g_string_free(res->text, TRUE);
        td_csv_free(res->csv);
        g_free(res->error);
    }
    for (guint w = 0; w < nworkers; w++)
        pthread_join(workers[w], NULL);
    g_free(workers);
    if (csv) {
        GString *text = g_string_new("");
        td_csv_write(csv, text);
        fwrite(text->str, 1, text->len, stdout);
        g_string_free(text, TRUE);
        td_csv_free(csv);
    }
    g_free(r.results);
    g_free(format_name);
    td_reader_cleanup();
    return status;
}
