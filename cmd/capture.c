/* One capture file through the engine: read, decode, number the streams, feed, settle
 * (the flows due as the capture's clock moves on, then the rest at the end), diagnose. */
#include "capture.h"

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

/* A flow whose record is out leaves the history: its conversation goes with it. */
static void on_released(const td_flow *flow, void *ctx)
{
    settling *st = ctx;
    td_record ends = { .src = flow->addr[0], .sport = flow->port[0], .dst = flow->addr[1], .dport = flow->port[1] };

    td_streams_forget(st->streams, &ends, flow->stream);
}

td_capture *td_capture_analyse_merged(const char *const *paths, const bool *in_folder, guint count,
                                      const td_prefs *prefs, td_wireshark version, volatile gint *packets,
                                      const td_capture_sink *sink)
{
    td_capture *c = g_new0(td_capture, 1);
    source *sources = g_new0(source, count);
    bool several = count > 1;
    guint opened = 0;
    td_streams *streams;
    td_fragments *fragments;
    char *error = NULL;
    unsigned batch = 0;
    uint32_t merged_frames = 0;
    bool holds_packets = false;

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
    c->opened = true;
    c->cfg = prefs->engine;
    if (prefs->keep_history)
        c->cfg.flight.series = c->cfg.nagle.series = c->series = td_series_book_new();
    c->engine = td_engine_new(&c->cfg);
    streams = td_streams_new(version);
    settling st = { c, sink, streams };
    c->settler = td_settler_new(c->engine, &prefs->hosts, sink ? on_settled : NULL, &st);
    /* streamed records: a flow written and past the history is never read again, so
     * memory holds the flows open at once and the history, whatever the capture's length */
    if (sink)
        td_settler_release(c->settler, on_released, &st);
    fragments = td_fragments_new();
    for (int i; (i = earliest(sources, count)) >= 0;) {
        td_frame frame = sources[i].next;
        /* a merged capture numbers its frames in the merged order, as the file
         * mergecap writes would; a single file keeps wiretap's numbers */
        if (several)
            frame.number = ++merged_frames;
        feed(c, streams, fragments, version, &frame);
        advance(&sources[i], several, &error);
        if (packets && ++batch == PROGRESS_BATCH) {
            g_atomic_int_add(packets, (gint)batch);
            batch = 0;
        }
    }
    if (packets)
        g_atomic_int_add(packets, (gint)batch);
    c->error = error;
    for (guint i = 0; i < count; i++) {
        if (!sources[i].reader)
            continue;
        c->counts.frames += td_reader_frames(sources[i].reader);
        if (!c->undecoded_link)
            c->undecoded_link = g_strdup(td_reader_undecoded_link(sources[i].reader));
        holds_packets |= td_reader_holds_packets(sources[i].reader);
        td_reader_close(sources[i].reader);
    }
    c->not_a_capture = !holds_packets || (error && c->counts.segments == 0 && c->counts.quotes == 0);
    g_free(sources);
    td_fragments_free(fragments);
    td_settler_finish(c->settler, &c->hosts, &c->diagnoses);    /* may still release flows: streams after */
    td_streams_free(streams);
    c->counts.late = td_engine_late(c->engine);
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
