/* One capture file through the engine: read, decode, number the streams, feed, settle
 * (the flows due as the capture's clock moves on, then the rest at the end), diagnose. */
#include "capture.h"

#include "inputs.h"
#include "reader.h"

/* The progress counter is shared: touch it once per batch, not per frame. */
enum { PROGRESS_BATCH = 65536 };

/* The stream Wireshark gives the frame's segment: numbered by its TCP dissector,
 * or, for a segment it gave up on, the one its conversation table already has for
 * the endpoints (where the plugin finds it); false when there is none. */
static bool stream_of(td_streams *streams, td_record *rec, const td_decoded *info, bool quoted)
{
    if (info->numbered) {
        rec->stream = td_streams_number(streams, rec, !quoted && info->header_fits);
        return true;
    }
    return td_streams_find(streams, rec, &rec->stream);
}

static void feed(td_capture *c, td_streams *streams, td_fragments *fragments, td_wireshark version,
                 const td_frame *frame)
{
    td_record rec;
    td_decoded info;
    int sender;

    if (frame->link == TD_LINK_UNSUPPORTED)
        c->counts.undecoded_link++;
    switch (td_decode(frame, version, fragments, &rec, &info)) {
    case TD_FRAME_SEGMENT:
        if (!stream_of(streams, &rec, &info, false) || !info.recorded) {
            c->counts.malformed++;
            break;
        }
        c->counts.segments++;
        td_engine_add(c->engine, &rec, &sender);
        td_settler_clock(c->settler, rec.time_ns);
        break;
    case TD_FRAME_QUOTED:
        if (!stream_of(streams, &rec, &info, true)) {
            c->counts.other++;
            break;
        }
        c->counts.quotes++;
        td_engine_add_quoted(c->engine, &rec);
        break;
    case TD_FRAME_OTHER:
        c->counts.other++;
        break;
    case TD_FRAME_MALFORMED:
        c->counts.malformed++;
        break;
    }
}

/* One file of the capture, its next packet read ahead so that a merge can take
 * the earliest. */
typedef struct source {
    const char *path;
    td_reader *reader;
    td_frame next;
    bool has_next;
} source;

/* Reads the source's next packet; the first error of the files is kept, naming
 * the file when there are several. */
static void advance(source *s, bool several, char **error)
{
    char *failure = NULL;

    s->has_next = td_reader_next(s->reader, &s->next, &failure);
    if (failure && !*error)
        *error = several ? g_strdup_printf("%s: %s", s->path, failure) : g_steal_pointer(&failure);
    g_free(failure);
}

/* The source whose next packet is the earliest (the first given on a tie, as
 * mergecap does), or -1 when all are done. */
static int earliest(const source *sources, guint count)
{
    int best = -1;

    for (guint i = 0; i < count; i++)
        if (sources[i].has_next && (best < 0 || sources[i].next.time_ns < sources[best].next.time_ns))
            best = (int)i;
    return best;
}

/* The settler's hand-over: the capture shows that point's diagnosis to the sink. */
typedef struct settling {
    td_capture *c;
    const td_capture_sink *sink;
    td_streams *streams;
} settling;

static void on_settled(const td_diagnoses *d, const td_hosts *hosts, const td_flow *flow, void *ctx)
{
    settling *st = ctx;

    st->c->diagnoses = (td_diagnoses *)d;
    st->c->hosts = (td_hosts *)hosts;
    st->sink->settled(st->c, flow, st->sink->ctx);
    st->c->diagnoses = NULL;
    st->c->hosts = NULL;
}

static void on_exchange(const td_flow *flow, const td_exchange *ex, void *ctx)
{
    settling *st = ctx;

    st->sink->exchange(st->c, flow, ex, st->sink->ctx);
}

/* A flow whose record is out leaves the history: its conversation goes with it. */
static void on_released(const td_flow *flow, void *ctx)
{
    settling *st = ctx;
    td_record ends = { .src = flow->addr[0], .sport = flow->port[0], .dst = flow->addr[1], .dport = flow->port[1] };

    td_streams_forget(st->streams, &ends, flow->stream);
}

/* What feeding one capture takes, from its first packet to its end, whether its
 * packets come from one file, a merge or a followed ring. */
typedef struct feeding {
    td_streams *streams;
    td_fragments *fragments;
    settling st;
    td_wireshark version;
    volatile gint *packets;     /* the progress counter, NULL none */
    unsigned batch;             /* packets not counted there yet */
    bool holds_packets;         /* a file read was one wiretap reads for packets */
} feeding;

static void start(td_capture *c, feeding *f, const td_prefs *prefs, td_wireshark version, volatile gint *packets,
                  const td_capture_sink *sink)
{
    c->opened = true;
    c->cfg = prefs->engine;
    c->engine = td_engine_new(&c->cfg);
    if (prefs->keep_history)
        td_engine_keep_history(c->engine, c->series = td_series_book_new());
    f->streams = td_streams_new(version);
    f->fragments = td_fragments_new();
    f->st = (settling){ c, sink, f->streams };
    f->version = version;
    f->packets = packets;
    c->settler = td_settler_new(c->engine, &prefs->hosts, sink ? on_settled : NULL, &f->st);
    if (sink && sink->exchange)
        td_engine_on_exchange(c->engine, on_exchange, &f->st);
    /* streamed records: a flow written and past the history is never read again, so
     * memory holds the flows open at once and the history, whatever the capture's length */
    if (sink)
        td_settler_release(c->settler, on_released, &f->st);
}

static void feed_frame(td_capture *c, feeding *f, const td_frame *frame)
{
    feed(c, f->streams, f->fragments, f->version, frame);
    if (f->packets && ++f->batch == PROGRESS_BATCH) {
        g_atomic_int_add(f->packets, (gint)f->batch);
        f->batch = 0;
    }
}

/* A file read: its frames counted, what it could not decode noted, and closed. */
static void close_source(td_capture *c, feeding *f, td_reader *reader)
{
    c->counts.frames += td_reader_frames(reader);
    if (!c->undecoded_link)
        c->undecoded_link = g_strdup(td_reader_undecoded_link(reader));
    f->holds_packets |= td_reader_holds_packets(reader);
    td_reader_close(reader);
}

static void finish(td_capture *c, feeding *f, char *error)
{
    if (f->packets)
        g_atomic_int_add(f->packets, (gint)f->batch);
    c->error = error;
    c->not_a_capture = !f->holds_packets || (error && c->counts.segments == 0 && c->counts.quotes == 0);
    td_fragments_free(f->fragments);
    td_settler_finish(c->settler, &c->hosts, &c->diagnoses);    /* may still release flows: streams after */
    td_streams_free(f->streams);
    c->counts.late = td_engine_late(c->engine);
}

td_capture *td_capture_analyse_merged(const char *const *paths, const bool *in_folder, guint count,
                                      const td_prefs *prefs, td_wireshark version, volatile gint *packets,
                                      const td_capture_sink *sink)
{
    td_capture *c = g_new0(td_capture, 1);
    source *sources = g_new0(source, count);
    bool several = count > 1;
    guint opened = 0;
    feeding f = { 0 };
    char *error = NULL;
    uint32_t merged_frames = 0;

    for (guint i = 0; i < count; i++) {
        char *failure = NULL;
        sources[i].path = paths[i];
        sources[i].reader = td_reader_open(paths[i], &failure);
        /* in a folder, only captures count: not one wiretap cannot open, nor one it
         * opens for its content (JSON, media), which holds no packet */
        if (in_folder && in_folder[i] && (!sources[i].reader || !td_reader_holds_packets(sources[i].reader))) {
            if (sources[i].reader)
                td_reader_close(g_steal_pointer(&sources[i].reader));
            c->sources_skipped++;
            g_free(failure);
            continue;
        }
        if (!sources[i].reader) {
            if (!error)
                error = several ? g_strdup_printf("%s: %s", paths[i], failure) : g_strdup(failure);
            g_free(failure);
            continue;
        }
        if (!opened++)
            c->path = g_strdup(paths[i]);
        advance(&sources[i], several, &error);
    }
    if (!opened) {
        c->path = g_strdup(paths[0]);
        c->error = error;
        c->not_a_capture = true;
        g_free(sources);
        return c;
    }
    start(c, &f, prefs, version, packets, sink);
    for (int i; (i = earliest(sources, count)) >= 0;) {
        td_frame frame = sources[i].next;
        /* a merged capture numbers its frames in the merged order, as the file
         * mergecap writes would; a single file keeps wiretap's numbers */
        if (several)
            frame.number = ++merged_frames;
        feed_frame(c, &f, &frame);
        advance(&sources[i], several, &error);
    }
    for (guint i = 0; i < count; i++)
        if (sources[i].reader)
            close_source(c, &f, sources[i].reader);
    g_free(sources);
    finish(c, &f, error);
    return c;
}

/* How often --follow looks for the ring's next file, and for a stop meanwhile. */
#define FOLLOW_POLL_US 200000

/* Reads one file of a followed ring whole, its frames numbered on from the files
 * before. The newest file after a stop is what dumpcap had written of it: a record
 * cut short at its end is no error. */
static void follow_file(td_capture *c, feeding *f, const td_prefs *prefs, const td_capture_sink *sink,
                        td_wireshark version, volatile gint *packets, const char *path, bool newest,
                        uint32_t *frames, char **error)
{
    char *failure = NULL;
    td_reader *reader = td_reader_open(path, &failure);
    td_frame frame;

    if (!reader) {
        if (!*error)
            *error = g_strdup_printf("%s: %s", path, failure);
        g_free(failure);
        return;
    }
    td_reader_read_to_end(reader);
    if (!c->opened)
        start(c, f, prefs, version, packets, sink);
    while (td_reader_next(reader, &frame, &failure)) {
        frame.number = ++*frames;
        feed_frame(c, f, &frame);
    }
    if (failure && !newest && !*error)
        *error = g_strdup_printf("%s: %s", path, failure);
    g_free(failure);
    close_source(c, f, reader);
}

td_capture *td_capture_follow(const char *ring, const td_prefs *prefs, td_wireshark version,
                              volatile gint *packets, const td_capture_sink *sink)
{
    td_capture *c = g_new0(td_capture, 1);
    feeding f = { 0 };
    GHashTable *read = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);   /* paths */
    char *error = NULL;
    uint32_t frames = 0;
    bool stopping = false;

    c->path = g_strdup(ring);
    while (!stopping) {
        char *failure = NULL;
        GPtrArray *files;
        guint complete;

        /* a stop seen before the listing: the newest file is read too, as it is */
        stopping = td_reader_stop_requested();
        files = td_ring_files(ring, &failure);
        if (!files) {
            error = failure;
            break;
        }
        /* dumpcap has finished a file once it writes the next */
        complete = stopping ? files->len : (files->len ? files->len - 1 : 0);
        for (guint i = 0; i < complete; i++) {
            const char *path = g_ptr_array_index(files, i);
            if (g_hash_table_contains(read, path))
                continue;
            follow_file(c, &f, prefs, sink, version, packets, path, stopping && i + 1 == files->len, &frames,
                        &error);
            g_hash_table_add(read, g_strdup(path));
        }
        g_ptr_array_free(files, TRUE);
        if (!stopping)
            g_usleep(FOLLOW_POLL_US);
    }
    g_hash_table_destroy(read);
    if (!c->opened) {
        c->error = error ? error : g_strdup_printf("no file of the ring %s was read", ring);
        c->not_a_capture = true;
        return c;
    }
    finish(c, &f, error);
    return c;
}

td_capture *td_capture_analyse(const char *path, const td_prefs *prefs, td_wireshark version,
                               volatile gint *packets, const td_capture_sink *sink)
{
    return td_capture_analyse_merged(&path, NULL, 1, prefs, version, packets, sink);
}

bool td_capture_settled_early(const td_capture *c, const td_flow *flow)
{
    return c->settler && td_settler_settled_early(c->settler, flow);
}

void td_capture_free(td_capture *c)
{
    if (!c)
        return;
    td_hosts_free(c->hosts);
    td_diagnoses_free(c->diagnoses);
    td_settler_free(c->settler);
    td_engine_free(c->engine);
    td_series_book_free(c->series);
    g_free(c->path);
    g_free(c->error);
    g_free(c->undecoded_link);
    g_free(c);
}
