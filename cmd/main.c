/* tcpdiag: the plugin's diagnosis straight from capture files, without tshark.
 *   tcpdiag [-j N] [-F text|json|csv|ek] [--summary] [--slow] [--flows] [--merge | --follow]
 *           [--report FILE.html] [-o tcpdiag.NAME:VALUE]... [--] FILE|DIRECTORY|-...
 * Files are analysed in parallel (-j) and printed in the order given. A file that
 * cannot be read gets a message on stderr and makes the exit status 1; the other
 * files go on. The manual page (cmd/tcpdiag.1) is the reference for users. */
#include <errno.h>
#include <getopt.h>
#include <glib.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "capture.h"
#include "html.h"
#include "inputs.h"
#include "output.h"
#include "prefs.h"
#include "reader.h"
#include "summary.h"

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

/* Exit statuses (tcpdiag(1), EXIT STATUS). */
enum {
    EXIT_ALL_READ = 0,
    EXIT_SOME_UNREADABLE = 1,   /* a file or folder could not be read, or was cut short */
    EXIT_USAGE = 2,
    EXIT_OUTPUT_LOST = 3,       /* standard output could not be written */
};

/* More threads than this would only wait on the disk and on each other. */
enum { MAX_JOBS = 1024 };

typedef struct result {
    GString *text;          /* the file's output, whatever the format */
    td_file_summary *summary;   /* --summary's part of the file */
    GPtrArray *findings;        /* --report: its findings for the ranking across captures */
    char *error;
    char *warning;          /* packets skipped that tshark with the plugin would read */
    guint sources_skipped;  /* merged: files of folders left out, not captures */
    bool not_a_capture;
    bool not_read;          /* the run was stopped (SIGINT, SIGTERM) before the file began */
    bool streaming;         /* its worker writes its records itself (it is the printing turn's) */
    bool done;
} result;

/* The workers and the printing thread synchronise through pthreads and C11
 * atomics only, which ThreadSanitizer sees (GLib's GMutex and GThreadPool are
 * futex-based and invisible to it), so the TSan stage in CI checks every handover. */
typedef struct run {
    const td_input *files;
    guint count;
    bool follow;                /* --follow: the one file named is a dumpcap ring, read as it is written */
    const char **merged;        /* --merge: every file, analysed as one capture (count is 1) */
    bool *merged_in_folder;     /* ...and whether it was found in a folder */
    guint merged_count;
    td_format format;
    td_flows_shown shown;
    bool summary;               /* --summary: one line per file and the findings ranked */
    const char *report;         /* --report: the HTML file to write, instead of standard output */
    const td_prefs *prefs;
    result *results;
    bool progress;              /* the printing thread shows progress on stderr */
    atomic_uint next;           /* the next file a worker takes */
    pthread_mutex_t lock;       /* guards results[], printing and what they publish */
    guint printing;             /* the file the printing thread waits for, once all before it are out */
    pthread_cond_t finished;
    volatile gint packets;
} run;

/* Output that cannot be written is lost: say why, and stop rather than analyse
 * files for nobody. */
static void write_out(const char *data, size_t len)
{
    if (fwrite(data, 1, len, stdout) != len || fflush(stdout) != 0) {
        fprintf(stderr, "tcpdiag: cannot write the output: %s\n", g_strerror(errno));
        exit(EXIT_OUTPUT_LOST);
    }
}

/* A file of a folder that is not a capture (or one cut before its first TCP segment)
 * holds nothing to analyse: it is counted, not printed. */
static bool left_out(const run *r, guint i, bool not_a_capture)
{
    return not_a_capture && r->files[i].in_directory;
}

static void drain_to_stdout(const GString *chunk)
{
    write_out(chunk->str, chunk->len);
}

/* Whether file i's records can leave as they are made: it is the file the printing
 * thread waits for, every one before it is out, and it is printed. Then its worker
 * writes them (the printing thread only waits), the progress line cleared first. */
/* json, csv and ek give a flow's record as it settles; the text report, the summary
 * and the HTML report keep their end-of-run form. */
static bool gives_records(const run *r)
{
    return !r->summary && !r->report && r->format != TD_FORMAT_TEXT;
}

static bool takes_printing_turn(run *r, guint i, const td_capture *c)
{
    bool turn;

    if (!gives_records(r) || left_out(r, i, c->not_a_capture))
        return false;
    pthread_mutex_lock(&r->lock);
    turn = r->results[i].streaming = r->printing == i;
    pthread_mutex_unlock(&r->lock);
    if (turn && r->progress)
        fputs("\r\033[K", stderr);
    return turn;
}

/* A file's records while it is read. */
typedef struct file_records {
    run *r;
    guint i;
    td_records records;
} file_records;

/* Once the file's turn to print has come, its records (those kept so far first) go
 * straight out. */
static void claim_printing_turn(file_records *fr, const td_capture *c)
{
    if (!fr->records.drain && takes_printing_turn(fr->r, fr->i, c))
        fr->records.drain = drain_to_stdout;
}

/* A flow that settled before the end of the file: its record now (settle.h). */
static void record_settled(const td_capture *c, const td_flow *flow, void *ctx)
{
    file_records *fr = ctx;

    claim_printing_turn(fr, c);
    td_output_settled(fr->r->format, c, flow, fr->r->shown, &fr->records);
}

/* An exchange that completed while the file was read: its record now. */
static void record_exchange(const td_capture *c, const td_flow *flow, const td_exchange *ex, void *ctx)
{
    file_records *fr = ctx;

    claim_printing_turn(fr, c);
    td_output_exchange(fr->r->format, c, flow, ex, fr->r->shown, &fr->records);
}

/* Analyses one file. Its records leave as they are made when it is the printing
 * turn's file; otherwise its output is kept until its turn. Either way the engine is
 * freed here, so the memory held for files waiting their turn to print is their
 * text, not their flows. */
static void analyse(run *r, guint i)
{
    if (td_reader_stop_requested()) {
        pthread_mutex_lock(&r->lock);
        r->results[i].not_read = r->results[i].done = true;
        pthread_cond_broadcast(&r->finished);
        pthread_mutex_unlock(&r->lock);
        return;
    }
    GString *text = g_string_new("");
    file_records fr = { r, i, { text, NULL, NULL } };
    td_capture_sink records = { record_settled, record_exchange, &fr };
    const td_capture_sink *sink = gives_records(r) ? &records : NULL;
    td_capture *c = r->follow   ? td_capture_follow(r->files[i].path, r->prefs, WIRESHARK, &r->packets, sink)
                    : r->merged ? td_capture_analyse_merged(r->merged, r->merged_in_folder, r->merged_count,
                                                            r->prefs, WIRESHARK, &r->packets, sink)
                                : td_capture_analyse(r->files[i].path, r->prefs, WIRESHARK, &r->packets, sink);
    result *res = &r->results[i];
    td_file_summary *summary = r->summary ? td_file_summary_of(c) : NULL;
    GPtrArray *findings = NULL;
    GString *warnings = g_string_new("");

    claim_printing_turn(&fr, c);
    if (r->report) {
        /* a merge is named by its first file and how many more */
        char *name = r->merged && r->merged_count > 1
                         ? g_strdup_printf("%s and %u more files merged", c->path, r->merged_count - 1)
                         : g_strdup(c->path);
        td_html_capture section = { name, i + 1, c->opened ? c->engine : NULL, c->diagnoses, c->hosts, c->series,
                                    c->error };
        findings = g_ptr_array_new_with_free_func(td_html_finding_row_free);
        td_html_section(&section, text, findings);
        g_free(name);
    } else if (!r->summary) {
        /* json and csv say how every file was read, even one that could not be */
        if (r->format == TD_FORMAT_TEXT) {
            if (c->opened)
                td_output_text(c, r->shown, text);
        } else
            td_output_records(r->format, c, r->shown, &fr.records);
        if (r->format == TD_FORMAT_JSON)
            td_output_json_file(c, text);
        else if (r->format == TD_FORMAT_CSV)
            td_output_csv_file(c, text);
        td_records_flush(&fr.records);
    }
    td_records_free(&fr.records);
    if (c->counts.undecoded_link)
        g_string_append_printf(warnings, "%" G_GUINT64_FORMAT " packet%s skipped: the command does not decode link "
                               "type %s; tshark -2 with the plugin reads it", c->counts.undecoded_link,
                               c->counts.undecoded_link == 1 ? "" : "s", c->undecoded_link);
    if (c->counts.late)
        g_string_append_printf(warnings, "%s%" G_GUINT64_FORMAT " segment%s came after their flow had settled "
                               "(closed for settle_window_s, or silent for idle_timeout_s) and its record was "
                               "given: not analysed",
                               warnings->len ? "; " : "", c->counts.late, c->counts.late == 1 ? "" : "s");
    pthread_mutex_lock(&r->lock);
    res->text = text;
    res->warning = g_string_free(warnings, warnings->len == 0);     /* NULL when none */
    res->summary = summary;
    res->findings = findings;
    res->error = g_steal_pointer(&c->error);
    res->not_a_capture = c->not_a_capture;
    res->sources_skipped = c->sources_skipped;
    res->done = true;
    pthread_cond_broadcast(&r->finished);
    pthread_mutex_unlock(&r->lock);
    td_capture_free(c);
}

static void on_stop_signal(int signal_number)
{
    (void)signal_number;
    td_reader_request_stop();
}

static const int STOP_SIGNALS[] = { SIGINT, SIGTERM };

/* SIGINT (^C, which in a pipeline also stops the tcpdump or dumpcap feeding us) and
 * SIGTERM end the run cleanly: every reader stops at its next record and the flows
 * read so far are analysed and written; a second one kills, as usual (SA_RESETHAND).
 * Not SA_RESTART: a reader waiting on a quiet pipe must wake up, so the signals go to
 * the readers (the printing thread blocks them, block_stop_signals) and interrupt
 * their read. */
static void catch_stop_signals(void)
{
    struct sigaction action;

    memset(&action, 0, sizeof action);
    action.sa_handler = on_stop_signal;
    action.sa_flags = SA_RESETHAND;
    sigemptyset(&action.sa_mask);
    for (size_t i = 0; i < G_N_ELEMENTS(STOP_SIGNALS); i++)
        sigaction(STOP_SIGNALS[i], &action, NULL);
}

static void block_stop_signals(void)
{
    sigset_t set;

    sigemptyset(&set);
    for (size_t i = 0; i < G_N_ELEMENTS(STOP_SIGNALS); i++)
        sigaddset(&set, STOP_SIGNALS[i]);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
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
static void wait_for(run *r, guint i)
{
    pthread_mutex_lock(&r->lock);
    r->printing = i;
    while (!r->results[i].done) {
        struct timespec until;
        if (!r->progress || r->results[i].streaming) {
            pthread_cond_wait(&r->finished, &r->lock);
            continue;
        }
        /* under the lock: a worker that takes the printing turn clears the line
           before its records, and no progress comes after */
        show_progress(r, i);
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

static const char usage_line[] =
    "usage: tcpdiag [-j N] [-F text|json|csv|ek] [--summary] [--slow] [--flows] [--merge | --follow]\n"
    "               [--report FILE.html] [-o tcpdiag.NAME:VALUE]... [-v] [--] FILE|DIRECTORY|-...\n";

static void print_help(void)
{
    printf("%s", usage_line);
    printf("Why TCP transfers are slow, from capture files: the tcpdiag Wireshark plugin's diagnosis\n"
           "without tshark.\n\n"
           "  -j, --jobs N           analyse N files at a time (default 1; 0: one per CPU)\n"
           "  -F, --format FORMAT    text (the diagnosis, flows and hosts reports; the default),\n"
           "                         json (NDJSON, one object per flow), csv, or ek (Elasticsearch\n"
           "                         bulk lines, as tshark -T ek)\n"
           "      --summary          one line per file, then the findings of every file ranked by\n"
           "                         the time they lost (replaces the per-file output)\n"
           "      --slow             only the flows slow for a known cause (neither none nor unknown)\n"
           "      --flows            the text report's per-flow table with every flow (by default,\n"
           "                         only flows with a cause)\n"
           "      --merge            the files are one capture in time order (dumpcap ring buffers):\n"
           "                         analyse them as one, as mergecap would make it\n"           "      --follow           FILE is a dumpcap ring being written (dumpcap -b ... -w FILE):\n"
           "                         read its files as they are finished, as one capture, until ^C\n"
           "      --report FILE.html write one self-contained HTML page (the findings ranked, a chart\n"
           "                         of why for each slow flow) instead of the per-file output\n"
           "  -o, --option NAME:VALUE  set a tcpdiag preference as tshark -o does,\n"
           "                         e.g. -o tcpdiag.capture_position:near-client\n"
           "  -v, --verbose          say what reads each file (the pcap reader, libpcap or wiretap) and why\n"
           "  -h, --help             print this help and exit\n"
           "      --version          print the version and exit\n"
           "  --                     end of the options: every argument after it is a file\n\n"
           "A directory is walked recursively, in sorted order; files in it that are not captures\n"
           "are skipped and counted. \"-\" reads standard input.\n"
           "Exit status: 0 every file read, 1 some file unreadable or cut short, 2 usage error,\n"
           "3 the output could not be written. See tcpdiag(1).\n");
}

static int usage_error(const char *fmt, ...) G_GNUC_PRINTF(1, 2);

static int usage_error(const char *fmt, ...)
{
    va_list args;

    fputs("tcpdiag: ", stderr);
    va_start(args, fmt);
    vfprintf(stderr, fmt, args);
    va_end(args);
    fprintf(stderr, "\n%s(tcpdiag --help for more)\n", usage_line);
    return EXIT_USAGE;
}

/* -j's value: a whole number of files at a time, 0 for one per CPU. */
static bool parse_jobs(const char *text, int *jobs)
{
    char *end;
    long n;

    if (!g_ascii_isdigit(*text))
        return false;
    n = strtol(text, &end, 10);
    if (*end || n > MAX_JOBS)
        return false;
    *jobs = n == 0 ? (int)g_get_num_processors() : (int)n;
    return true;
}

static void free_section(gpointer section)
{
    g_string_free(section, TRUE);
}

/* --report: the page, written whole or not at all (a temporary file renamed). */
static bool write_report(const run *r, GPtrArray *sections, GPtrArray *findings)
{
    GString *page = g_string_new("");
    char *title = r->count == 1 && !r->merged ? g_strdup(r->files[0].path)
                                              : g_strdup_printf("%u captures", r->merged ? r->merged_count : r->count);
    GError *error = NULL;
    bool written;

    td_html_page(page, title, findings, sections->len, (const GString *const *)sections->pdata);
    written = g_file_set_contents(r->report, page->str, (gssize)page->len, &error);
    if (!written) {
        fprintf(stderr, "tcpdiag: cannot write the report: %s\n", error->message);
        g_error_free(error);
    }
    g_free(title);
    g_string_free(page, TRUE);
    return written;
}

/* Prints each file's output in the order given, as soon as it and the ones before
 * it are done (with --report, keeps it for the page); counts the files of walked
 * folders that were not captures, and those a stopped run never began. Returns the
 * exit status. */
static int print_results(run *r, guint *skipped, guint *not_read)
{
    td_summary *summary = r->summary ? td_summary_new() : NULL;
    GPtrArray *sections = r->report ? g_ptr_array_new_with_free_func(free_section) : NULL;
    GPtrArray *findings = r->report ? g_ptr_array_new_with_free_func(td_html_finding_row_free) : NULL;
    int status = EXIT_ALL_READ;

    if (r->format == TD_FORMAT_CSV && !r->summary) {
        /* one header for every file: the field table's columns, whatever the files hold */
        GString *header = g_string_new("");
        td_output_csv_header(header);
        write_out(header->str, header->len);
        g_string_free(header, TRUE);
    }

    for (guint i = 0; i < r->count; i++) {
        result *res = &r->results[i];
        /* in a folder, only captures count (one cut before its first TCP segment
         * holds nothing to analyse either) */
        bool skip;
        wait_for(r, i);
        if (res->not_read) {
            (*not_read)++;
            continue;
        }
        skip = left_out(r, i, res->not_a_capture);
        if (r->progress)
            fputs("\r\033[K", stderr);
        *skipped += res->sources_skipped;
        if (skip)
            (*skipped)++;
        else if (sections) {
            g_ptr_array_add(sections, g_steal_pointer(&res->text));
            g_ptr_array_extend_and_steal(findings, g_steal_pointer(&res->findings));
        } else {
            write_out(res->text->str, res->text->len);
            if (res->summary)
                td_summary_add(summary, g_steal_pointer(&res->summary));
        }
        if (res->warning && !skip)
            fprintf(stderr, "tcpdiag: %s: %s\n", r->files[i].path, res->warning);
        if (res->error && !skip) {
            fprintf(stderr, "tcpdiag: %s: %s\n", r->files[i].path, res->error);
            status = EXIT_SOME_UNREADABLE;
        }
        if (res->text)
            g_string_free(res->text, TRUE);
        if (res->findings)
            g_ptr_array_free(res->findings, TRUE);
        td_file_summary_free(res->summary);
        g_free(res->error);
        g_free(res->warning);
    }
    if (summary) {
        GString *text = g_string_new("");
        td_summary_write(summary, text);
        write_out(text->str, text->len);
        g_string_free(text, TRUE);
        td_summary_free(summary);
    }
    if (sections) {
        if (!write_report(r, sections, findings))
            status = EXIT_OUTPUT_LOST;
        g_ptr_array_free(sections, TRUE);
        g_ptr_array_free(findings, TRUE);
    }
    return status;
}

int main(int argc, char **argv)
{
    static const struct option options[] = {
        { "jobs", required_argument, NULL, 'j' },
        { "format", required_argument, NULL, 'F' },
        { "option", required_argument, NULL, 'o' },
        { "help", no_argument, NULL, 'h' },
        { "verbose", no_argument, NULL, 'v' },
        { "version", no_argument, NULL, 'V' },
        { "summary", no_argument, NULL, 'S' },
        { "slow", no_argument, NULL, 's' },
        { "flows", no_argument, NULL, 'f' },
        { "merge", no_argument, NULL, 'm' },
        { "follow", no_argument, NULL, 'w' },
        { "report", required_argument, NULL, 'R' },
        { NULL, 0, NULL, 0 },
    };
    int jobs = 1, opt, status, printed;
    td_prefs prefs;
    run r = { .lock = PTHREAD_MUTEX_INITIALIZER, .finished = PTHREAD_COND_INITIALIZER, .prefs = &prefs,
              .printing = G_MAXUINT };
    td_inputs *inputs;
    pthread_t *workers;
    guint nworkers, skipped, not_read = 0;
    bool slow = false, every_flow = false, merge = false, format_given = false, follow = false;

    td_prefs_defaults(&prefs);
    opterr = 0;     /* the messages below say what is wrong and how to do it */
    while ((opt = getopt_long(argc, argv, ":j:F:o:hv", options, NULL)) != -1) {
        char *error = NULL;
        switch (opt) {
        case 'j':
            if (!parse_jobs(optarg, &jobs))
                return usage_error("-j %s: expected the number of files to analyse at a time, from 1 to %d "
                                   "(0: one per CPU)", optarg, MAX_JOBS);
            break;
        case 'F':
            format_given = true;
            if (!td_format_parse(optarg, &r.format))
                return usage_error("unknown format \"%s\": text, json, csv or ek", optarg);
            break;
        case 'o':
            if (!td_prefs_set(&prefs, optarg, &error)) {
                status = usage_error("%s", error);
                g_free(error);
                return status;
            }
            break;
        case 'h':
            print_help();
            return EXIT_ALL_READ;
        case 'v':
            td_reader_set_verbose(true);
            break;
        case 'S':
            r.summary = true;
            break;
        case 's':
            slow = true;
            break;
        case 'f':
            every_flow = true;
            break;
        case 'm':
            merge = true;
            break;
        case 'w':
            follow = true;
            break;
        case 'R':
            r.report = optarg;
            break;
        case 'V':
            printf("tcpdiag " VERSION " (built against Wireshark " TD_WIRESHARK_BUILT_AGAINST ")\n");
            return EXIT_ALL_READ;
        case ':':   /* the option was the last argument */
            return usage_error("%s needs a value", argv[optind - 1]);
        default:    /* optopt names an unknown short option; a long one is the argument itself */
            return optopt ? usage_error("unknown option -%c (a file whose name starts with - goes after --)",
                                        optopt)
                          : usage_error("unknown option %s", argv[optind - 1]);
        }
    }
    if (optind == argc)
        return usage_error("no capture file given");
    if (follow && (merge || argc - optind != 1 || strcmp(argv[optind], "-") == 0))
        return usage_error("--follow reads one dumpcap ring: give the name given to dumpcap -w (no --merge)");
    if (slow && every_flow)
        return usage_error("--slow and --flows ask for different flows: give one of them");
    if (r.report && (r.summary || slow || every_flow || format_given))
        return usage_error("--report writes its own page: it takes no -F, --summary, --slow or --flows");
    prefs.keep_history = r.report != NULL;
    /* the per-flow records are the fleet's table: all of them unless --slow; the text
     * table is read by a person: the flows with a cause unless --flows */
    r.shown = slow ? TD_SHOW_SLOW : every_flow || r.format != TD_FORMAT_TEXT ? TD_SHOW_ALL : TD_SHOW_WITH_CAUSE;

    inputs = td_inputs_collect(argv + optind, argc - optind);
    status = inputs->errors->len ? EXIT_SOME_UNREADABLE : EXIT_ALL_READ;
    for (guint i = 0; i < inputs->errors->len; i++)
        fprintf(stderr, "tcpdiag: %s\n", (char *)g_ptr_array_index(inputs->errors, i));
    td_reader_init();
    r.files = (const td_input *)(void *)inputs->files->data;
    r.count = inputs->files->len;
    r.follow = follow;
    if (merge && r.count > 1) {
        r.merged = g_new(const char *, r.count);
        r.merged_in_folder = g_new(bool, r.count);
        for (guint i = 0; i < r.count; i++) {
            r.merged[i] = r.files[i].path;
            r.merged_in_folder[i] = r.files[i].in_directory;
        }
        r.merged_count = r.count;
        r.count = 1;
    }
    r.results = g_new0(result, r.count);
    r.progress = isatty(STDERR_FILENO);
    catch_stop_signals();
    workers = g_new(pthread_t, MIN((guint)jobs, r.count));
    for (nworkers = 0; nworkers < MIN((guint)jobs, r.count); nworkers++)
        if (pthread_create(&workers[nworkers], NULL, worker, &r) != 0)
            break;      /* out of threads: the ones started take every file */
    if (nworkers == 0 && r.count) {
        fprintf(stderr, "tcpdiag: cannot start a thread\n");
        return EXIT_SOME_UNREADABLE;
    }
    block_stop_signals();
    skipped = inputs->skipped;
    printed = print_results(&r, &skipped, &not_read);
    if (printed != EXIT_ALL_READ)
        status = printed;       /* some file unreadable, or the report not written */
    if (td_reader_stop_requested()) {
        fprintf(stderr, "tcpdiag: stopped by a signal: the flows read until then are reported (those not closed "
                "as tcpdiag.flow.state open)");
        if (not_read)
            fprintf(stderr, "; %u file%s not read", not_read, not_read == 1 ? "" : "s");
        fputc('\n', stderr);
        if (not_read && status == EXIT_ALL_READ)
            status = EXIT_SOME_UNREADABLE;
    }
    for (guint w = 0; w < nworkers; w++)
        pthread_join(workers[w], NULL);
    g_free(workers);
    if (skipped)
        fprintf(stderr, "tcpdiag: %u file%s in the folders given skipped: not packet captures, or no TCP "
                "segment before an error\n", skipped, skipped == 1 ? "" : "s");
    g_free(r.results);
    g_free(r.merged);
    g_free(r.merged_in_folder);
    td_inputs_free(inputs);
    td_reader_cleanup();
    if (fclose(stdout) != 0) {
        fprintf(stderr, "tcpdiag: cannot write the output: %s\n", g_strerror(errno));
        return EXIT_OUTPUT_LOST;
    }
    return status;
}
