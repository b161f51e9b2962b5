/* libFuzzer target for the command's path without wiretap: arbitrary bytes become
 * frames of any link type, which are decoded, numbered as tcp.stream, fed to the
 * engine (IP fragments put together as the command does; the HTML report's history
 * kept, as --report does), diagnosed and exported through the field table, the reports
 * and the HTML page, as cmd/capture.c, cmd/output.c and report/ do. Hostile frames must
 * not crash, and the state kept must grow with conversations, not frames. */
#include <stdint.h>
#include <string.h>
#include "decode.h"
#include "field_values.h"
#include "html.h"
#include "text.h"
#include "streams.h"

/* Each frame: 2 bytes of length (caplen), 1 byte of link type and flags, then the
 * bytes; the original length is the captured one or 64 more. */
enum { FRAME_HEADER = 3 };

static void check_field(void *ctx, const td_field_value *field)
{
    const char *dir = field->dir;

    (void)ctx;
    if ((unsigned)field->id >= TD_FIELD_COUNT ||
        (td_field_kind_of(td_fields[field->id].type) == TD_FIELD_STRING && !field->str))
        __builtin_trap();
    if (dir && strcmp(dir, "c2s") && strcmp(dir, "s2c") && strcmp(dir, "fwd") && strcmp(dir, "rev"))
        __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    td_config cfg;
    td_hosts_config hosts_cfg;
    td_engine *engine;
    td_streams *streams;
    td_fragments *fragments = td_fragments_new();
    td_series_book *history = td_series_book_new();
    td_diagnoses *d;
    td_hosts *hosts;
    GString *text = g_string_new(NULL);
    uint32_t number = 0, conversations_max = 0;
    td_wireshark version;
    int sender;

    td_config_defaults(&cfg);
    engine = td_engine_new(&cfg);
    td_engine_keep_history(engine, history);
    version = size ? (td_wireshark)(data[0] % (TD_WIRESHARK_4_6 + 1)) : TD_WIRESHARK_4_0;
    streams = td_streams_new(version);
    for (size_t at = 1; at + FRAME_HEADER <= size;) {
        uint32_t caplen = (uint32_t)(data[at] | data[at + 1] << 8) % 1600;
        uint8_t kind = data[at + 2];
        td_frame frame;
        td_record rec;
        td_decoded info;

        at += FRAME_HEADER;
        if (caplen > size - at)
            caplen = (uint32_t)(size - at);
        frame.link = (td_link)(kind % (TD_LINK_LAST + 1));
        frame.data = data + at;
        frame.caplen = caplen;
        frame.wire_len = caplen + (kind & 0x80 ? 64 : 0);
        frame.number = ++number;
        frame.time_ns = (int64_t)number * 1000000;
        at += caplen;
        switch (td_decode(&frame, version, fragments, &rec, &info)) {
        case TD_FRAME_SEGMENT:
            if (info.numbered)
                rec.stream = td_streams_number(streams, &rec, info.header_fits);
            else if (!td_streams_find(streams, &rec, &rec.stream))
                break;
            if (info.recorded)
                td_engine_add(engine, &rec, &sender);
            break;
        case TD_FRAME_QUOTED:
            if (info.numbered)
                rec.stream = td_streams_number(streams, &rec, false);
            else if (!td_streams_find(streams, &rec, &rec.stream))
                break;
            td_engine_add_quoted(engine, &rec);
            break;
        case TD_FRAME_OTHER:
        case TD_FRAME_MALFORMED:
            break;
        }
        conversations_max = td_streams_count(streams);
    }
    /* one stream per conversation the frames opened: never more than frames */
    if (conversations_max > number)
        __builtin_trap();
    td_engine_finish(engine);
    td_hosts_config_defaults(&hosts_cfg);
    hosts = td_hosts_build(engine, &hosts_cfg);
    d = td_diagnose(engine, hosts);
    td_flow_view view = { engine, d, hosts, true, 0 };
    td_field_sink sink = { .value = check_field };
    for (guint i = 0; i < td_engine_flow_count(engine); i++)
        td_flow_fields(&view, td_engine_flow_at(engine, i), &sink);
    td_text_diagnosis_framed(d, hosts, text);
    td_text_flows(d, text);
    td_text_hosts_framed(hosts, text);
    td_html_capture page = { "fuzz.pcap", 1, engine, d, hosts, history, NULL };
    g_string_truncate(text, 0);
    td_html_section(&page, text, NULL);
    /* nothing from the frames makes markup: the page's only elements are its own */
    if (strstr(text->str, "<script") || strstr(text->str, "<img"))
        __builtin_trap();
    g_string_free(text, TRUE);
    td_series_book_free(history);
    td_hosts_free(hosts);
    td_diagnoses_free(d);
    td_streams_free(streams);
    td_fragments_free(fragments);
    td_engine_free(engine);
    return 0;
}
