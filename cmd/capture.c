/* One capture file through the engine: read, decode, number the streams, feed, finish,
 * diagnose. */
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

static void feed(td_capture *c, td_streams *streams, td_wireshark version, const td_frame *frame)
{
    td_record rec;
    td_decoded info;
    int sender;

    if (frame->link == TD_LINK_UNSUPPORTED)
        c->counts.undecoded_link++;
    switch (td_decode(frame, version, &rec, &info)) {
    case TD_FRAME_SEGMENT:
        if (!stream_of(streams, &rec, &info, false) || !info.recorded) {
            c->counts.malformed++;
            break;
        }
        c->counts.segments++;
        td_engine_add(c->engine, &rec, &sender);
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

td_capture *td_capture_analyse(const char *path, const td_prefs *prefs, td_wireshark version,
                               volatile gint *packets)
{
    td_capture *c = g_new0(td_capture, 1);
    td_reader *reader;
    td_streams *streams;
    td_frame frame;
    char *error = NULL;
    unsigned batch = 0;

    c->path = g_strdup(path);
    reader = td_reader_open(path, &c->error);
    if (!reader) {
        c->not_a_capture = true;
        return c;
    }
    c->opened = true;
    c->cfg = prefs->engine;
    c->engine = td_engine_new(&c->cfg);
    streams = td_streams_new(version);
    while (td_reader_next(reader, &frame, &error)) {
        feed(c, streams, version, &frame);
        if (packets && ++batch == PROGRESS_BATCH) {
            g_atomic_int_add(packets, (gint)batch);
            batch = 0;
        }
    }
    if (packets)
        g_atomic_int_add(packets, (gint)batch);
    c->error = error;
    c->counts.frames = td_reader_frames(reader);
    c->undecoded_link = g_strdup(td_reader_undecoded_link(reader));
    c->not_a_capture = !td_reader_holds_packets(reader) ||
                       (error && c->counts.segments == 0 && c->counts.quotes == 0);
    td_reader_close(reader);
    td_streams_free(streams);
    td_engine_finish(c->engine);
    c->hosts = td_hosts_build(c->engine, &prefs->hosts);
    c->diagnoses = td_diagnose(c->engine, c->hosts);
    return c;
}

void td_capture_free(td_capture *c)
{
    if (!c)
        return;
    td_hosts_free(c->hosts);
    td_diagnoses_free(c->diagnoses);
    td_engine_free(c->engine);
    g_free(c->path);
    g_free(c->error);
    g_free(c->undecoded_link);
    g_free(c);
}
