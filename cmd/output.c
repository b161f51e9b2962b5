/* The command's outputs: the text reports, NDJSON, CSV and Elasticsearch bulk lines. */
#include "output.h"

#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "community_id.h"
#include "field_values.h"
#include "text.h"

bool td_format_parse(const char *name, td_format *format)
{
    static const char *const names[] = { "text", "json", "csv", "ek" };

    for (int i = 0; i < 4; i++)
        if (strcmp(name, names[i]) == 0) {
            *format = (td_format)i;
            return true;
        }
    return false;
}

static bool has_cause(td_cause cause)
{
    return cause != TD_CAUSE_NONE;
}

/* A chunk: large enough that writing it costs one system call among many records,
 * small beside any capture's flow state. */
enum { RECORDS_CHUNK = 64 * 1024 };

void td_records_flush(td_records *records)
{
    if (!records->drain || !records->out->len)
        return;
    records->drain(records->out);
    g_string_truncate(records->out, 0);
}

/* After each record: a full chunk leaves. */
static void record_done(td_records *records)
{
    if (records->out->len >= RECORDS_CHUNK)
        td_records_flush(records);
}

bool td_output_shows(const td_capture *c, const td_flow *flow, td_flows_shown shown)
{
    td_cause cause = (td_cause)td_diagnosis_of(c->diagnoses, flow)->cause;

    return shown == TD_SHOW_ALL || (shown == TD_SHOW_WITH_CAUSE ? has_cause(cause) : td_cause_is_finding(cause));
}

/* The per-flow table with the rows asked for; a healthy capture of 250 flows would
 * otherwise bury its few answers. */
static void flows_table(const td_capture *c, td_flows_shown shown, GString *out)
{
    switch (shown) {
    case TD_SHOW_ALL:
        td_text_flows(c->diagnoses, out);
        break;
    case TD_SHOW_WITH_CAUSE:
        td_text_flows_where(c->diagnoses, has_cause, "healthy, cause none; --flows shows every flow", out);
        break;
    case TD_SHOW_SLOW:
        td_text_flows_where(c->diagnoses, td_cause_is_finding, "not slow, cause none or unknown (--slow)", out);
        break;
    }
}

void td_output_text(const td_capture *c, td_flows_shown shown, GString *out)
{
    const td_capture_counts *n = &c->counts;

    g_string_append_printf(out, "tcpdiag: %s: %" PRIu64 " frames, %" PRIu64 " TCP segments, %" PRIu64
                           " ICMP quotes, %" PRIu64 " other, %" PRIu64 " malformed (skipped)\n",
                           c->path, n->frames, n->segments, n->quotes, n->other, n->malformed);
    td_text_diagnosis_framed(c->diagnoses, c->hosts, out);
    flows_table(c, shown, out);
    td_text_hosts_framed(c->hosts, out);
}

/* One field of one flow, its value already rendered for the output at hand. */
typedef struct item {
    td_field_id id;
    const char *dir;        /* static; NULL for a field that is not per direction */
    char *value;
} item;

typedef enum { RENDER_JSON, RENDER_CSV } render_kind;

typedef struct collector {
    GArray *items;          /* item */
    render_kind kind;
    GString *scratch;       /* where a value is rendered */
} collector;

/* JSON and CSV are UTF-8 for the tools that read them (DuckDB rejects a whole
 * table for one bad byte), but a file name is bytes: each byte that is not part of
 * valid UTF-8 becomes U+FFFD. The text output keeps the name as given. */
static char *utf8(const char *s)
{
    return g_utf8_validate(s, -1, NULL) ? g_strdup(s) : g_utf8_make_valid(s, -1);
}

/* Numbers are written here rather than through printf: a million records of about
 * sixty fields each spent most of their time in vasprintf's allocations. */
static void append_uint(GString *out, uint64_t n)
{
    char digits[20];
    size_t len = 0;

    do
        digits[sizeof digits - ++len] = (char)('0' + n % 10);
    while ((n /= 10) != 0);
    g_string_append_len(out, digits + sizeof digits - len, (gssize)len);
}

static void json_string(GString *out, const char *raw)
{
    char *fixed = g_utf8_validate(raw, -1, NULL) ? NULL : g_utf8_make_valid(raw, -1);
    const unsigned char *p = (const unsigned char *)(fixed ? fixed : raw);

    g_string_append_c(out, '"');
    while (*p) {
        const unsigned char *run = p;
        while (*p && *p != '"' && *p != '\\' && *p >= 0x20)
            p++;
        g_string_append_len(out, (const char *)run, p - run);
        if (!*p)
            break;
        if (*p < 0x20)
            g_string_append_printf(out, "\\u%04x", *p);
        else {
            g_string_append_c(out, '\\');
            g_string_append_c(out, (char)*p);
        }
        p++;
    }
    g_string_append_c(out, '"');
    g_free(fixed);
}

/* Durations keep Wireshark's nanoseconds: seconds with nine decimals. */
static void seconds(GString *out, int64_t ns)
{
    uint64_t magnitude = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    char fraction[9];

    if (ns < 0)
        g_string_append_c(out, '-');
    append_uint(out, magnitude / 1000000000u);
    g_string_append_c(out, '.');
    magnitude %= 1000000000u;
    for (int i = 8; i >= 0; i--, magnitude /= 10)
        fraction[i] = (char)('0' + magnitude % 10);
    g_string_append_len(out, fraction, sizeof fraction);
}

/* The value rendered into v (emptied first), then copied out: one allocation a value. */
static char *render(const td_field_value *f, render_kind kind, GString *v)
{
    g_string_truncate(v, 0);

    switch (td_field_kind_of(td_fields[f->id].type)) {
    case TD_FIELD_STRING:
        if (kind == RENDER_JSON)
            json_string(v, f->str);
        else
            g_string_append(v, f->str);
        break;
    case TD_FIELD_UINT:
        append_uint(v, f->uint);
        break;
    case TD_FIELD_DOUBLE:
        if (isfinite(f->dbl)) {
            char text[32];      /* %.17g: at most 24 characters */
            g_string_append_len(v, text, snprintf(text, sizeof text, "%.17g", f->dbl));
        } else
            g_string_append(v, kind == RENDER_JSON ? "null" : "");
        break;
    case TD_FIELD_TIME:
        seconds(v, f->ns);
        break;
    }
    return g_strndup(v->str, v->len);
}

static void collect(void *ctx, const td_field_value *field)
{
    collector *col = ctx;
    item it = { field->id, field->dir, render(field, col->kind, col->scratch) };
    g_array_append_val(col->items, it);
}

static void clear(collector *col)
{
    for (guint i = 0; i < col->items->len; i++)
        g_free(g_array_index(col->items, item, i).value);
    g_array_set_size(col->items, 0);
}

static collector *collector_new(render_kind kind)
{
    collector *col = g_new(collector, 1);

    *col = (collector){ g_array_new(FALSE, FALSE, sizeof(item)), kind, g_string_new("") };
    return col;
}

static void collector_free(collector *col)
{
    clear(col);
    g_array_free(col->items, TRUE);
    g_string_free(col->scratch, TRUE);
    g_free(col);
}

/* The command reads a capture once, to its end: every value is final. */
static void collect_flow(collector *col, const td_capture *c, const td_flow *flow)
{
    td_flow_view view = { c->engine, c->diagnoses, c->hosts, true, 0 };
    td_field_sink sink = { .value = collect, .ctx = col };

    clear(col);
    td_flow_fields(&view, flow, &sink);
}

/* An exchange's fields, after its flow's Community ID (the key that joins it to its
 * flow's record across files and tools, beside tcp.stream). */
static void collect_exchange(collector *col, const td_flow *flow, const td_exchange *ex)
{
    char community_id[TD_COMMUNITY_ID_SIZE];
    td_field_sink sink = { .value = collect, .ctx = col };

    clear(col);
    td_community_id_tcp(&flow->addr[0], flow->port[0], &flow->addr[1], flow->port[1], 0, community_id);
    if (community_id[0]) {
        td_field_value v = { .id = TD_F_FLOW_COMMUNITY_ID, .str = community_id };
        collect(col, &v);
    }
    td_exchange_fields(ex, &sink);
}

static bool same_dir(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

/* The members of one object: the items of direction dir, a repeated field as an
 * array; key_of gives the member's name. */
static void json_members(GString *out, const GArray *items, const char *dir, bool *first,
                         void (*key_of)(GString *out, const char *name))
{
    for (guint i = 0; i < items->len; i++) {
        const item *it = &g_array_index(items, item, i);
        guint n = 1;
        if (!same_dir(it->dir, dir))
            continue;
        while (i + n < items->len && same_dir(g_array_index(items, item, i + n).dir, dir) &&
               g_array_index(items, item, i + n).id == it->id)
            n++;
        g_string_append(out, *first ? "" : ",");
        *first = false;
        key_of(out, td_fields[it->id].name);
        g_string_append_c(out, ':');
        if (n > 1)
            g_string_append_c(out, '[');
        for (guint k = 0; k < n; k++) {
            if (k)
                g_string_append_c(out, ',');
            g_string_append(out, g_array_index(items, item, i + k).value);
        }
        if (n > 1)
            g_string_append_c(out, ']');
        i += n - 1;
    }
}

/* The directions in the order the items name them. */
static void dirs_of(const GArray *items, const char *dirs[2])
{
    dirs[0] = dirs[1] = NULL;
    for (guint i = 0; i < items->len; i++) {
        const char *d = g_array_index(items, item, i).dir;
        if (d && !same_dir(d, dirs[0]) && !dirs[1])
            dirs[dirs[0] ? 1 : 0] = d;
    }
}

/* The per-direction objects, after the flow-wide members: ,"<prefix><dir>":{...} */
static void direction_members(GString *out, const GArray *items, const char *prefix,
                              void (*key_of)(GString *out, const char *name))
{
    const char *dirs[2];

    dirs_of(items, dirs);
    for (int d = 0; d < 2 && dirs[d]; d++) {
        bool first = true;
        g_string_append_printf(out, ",\"%s%s\":{", prefix, dirs[d]);
        json_members(out, items, dirs[d], &first, key_of);
        g_string_append_c(out, '}');
    }
}

/* A field's name as a JSON key: Wireshark's field names are lower-case ASCII letters,
 * digits, dots and underscores (field_table.c), with nothing to escape. */
static void plain_key(GString *out, const char *name)
{
    g_string_append_c(out, '"');
    g_string_append(out, name);
    g_string_append_c(out, '"');
}

/* A record's opening: {"record":KIND,"file":...,"tcp.stream":N */
static void json_lead(const char *kind, const td_capture *c, const td_flow *flow, GString *out)
{
    g_string_append_printf(out, "{\"record\":\"%s\",\"file\":", kind);
    json_string(out, c->path);
    g_string_append(out, ",\"tcp.stream\":");
    append_uint(out, flow->stream);
}

static void json_record(collector *col, const td_capture *c, const td_flow *flow, GString *out)
{
    bool first = false;

    collect_flow(col, c, flow);
    json_lead("flow", c, flow, out);
    json_members(out, col->items, NULL, &first, plain_key);
    direction_members(out, col->items, "", plain_key);
    g_string_append(out, "}\n");
}

static void json_exchange(collector *col, const td_capture *c, const td_flow *flow, const td_exchange *ex,
                          GString *out)
{
    bool first = false;

    collect_exchange(col, flow, ex);
    json_lead("exchange", c, flow, out);
    json_members(out, col->items, NULL, &first, plain_key);
    g_string_append(out, "}\n");
}

/* tshark -T ek names a field "<protocol>_<field with dots as underscores>", so
 * that Elasticsearch does not read the dots as object paths. */
static void ek_key(GString *out, const char *name)
{
    char *flat = g_strdelimit(g_strdup_printf("tcpdiag_%s", name), ".", '_');
    json_string(out, flat);
    g_free(flat);
}

/* An ek document's opening, up to the tcpdiag layer's members: its index line by the
 * day of time_ns (tshark indexes packets-DATE by the packet's day), its timestamp, file,
 * tcp_stream and, for a record other than a flow's, "record":kind. */
static void ek_lead(const char *kind, const td_capture *c, const td_flow *flow, int64_t time_ns, GString *out)
{
    GDateTime *day = g_date_time_new_from_unix_utc(time_ns / 1000000000);
    char *date = day ? g_date_time_format(day, "%Y-%m-%d") : g_strdup("1970-01-01");

    g_string_append_printf(out, "{\"index\":{\"_index\":\"tcpdiag-%s\"}}\n", date);
    g_string_append_printf(out, "{\"timestamp\":\"%" PRId64 "\",", time_ns / 1000000);
    if (kind)
        g_string_append_printf(out, "\"record\":\"%s\",", kind);
    g_string_append(out, "\"file\":");
    json_string(out, c->path);
    g_string_append_printf(out, ",\"tcp_stream\":%u,\"layers\":{\"tcpdiag\":{", flow->stream);
    g_free(date);
    if (day)
        g_date_time_unref(day);
}

static void ek_record(collector *col, const td_capture *c, const td_flow *flow, GString *out)
{
    bool first = true;

    collect_flow(col, c, flow);
    ek_lead(NULL, c, flow, flow->first_ns, out);
    json_members(out, col->items, NULL, &first, ek_key);
    g_string_append_c(out, '}');
    direction_members(out, col->items, "tcpdiag_", ek_key);
    g_string_append(out, "}}\n");
}

static void ek_exchange(collector *col, const td_capture *c, const td_flow *flow, const td_exchange *ex,
                        GString *out)
{
    bool first = true;

    collect_exchange(col, flow, ex);
    ek_lead("exchange", c, flow, ex->start_ns, out);
    json_members(out, col->items, NULL, &first, ek_key);
    g_string_append(out, "}}}\n");
}

/* CSV: one fixed header whatever the capture. A flow whose roles are unknown puts
 * its fwd direction in the c2s columns and rev in s2c (its tcpdiag.flow.roles
 * column says so). */
static const char *const csv_dirs[2] = { "c2s", "s2c" };

/* A file's status record (its JSON line, its CSV row): how it was read and what was
 * skipped. Names begin with "file." so that they never meet a field's. */
enum { FILE_STATUS_COLUMNS = 11 };
static const char *const file_status_names[FILE_STATUS_COLUMNS] = {
    "file.status", "file.frames", "file.tcp_segments", "file.icmp_quotes", "file.flows",
    "file.skipped.not_tcp", "file.skipped.undecoded_link", "file.skipped.malformed",
    "file.undecoded_link_type", "file.error", NULL,
};

/* The status values in file_status_names' order, numbers as text; NULL where a value
 * does not apply (no undecoded link type, no error). */
static void file_status(const td_capture *c, char *values[FILE_STATUS_COLUMNS])
{
    const td_capture_counts *n = &c->counts;
    uint64_t counts[] = { n->frames, n->segments, n->quotes, c->engine ? td_engine_flow_count(c->engine) : 0,
                          n->other - n->undecoded_link, n->undecoded_link, n->malformed };

    memset(values, 0, FILE_STATUS_COLUMNS * sizeof values[0]);
    values[0] = g_strdup(!c->opened ? "unreadable" : c->error ? "cut-short" : "read");
    for (guint i = 0; i < G_N_ELEMENTS(counts); i++)
        values[1 + i] = g_strdup_printf("%" PRIu64, counts[i]);
    values[8] = c->undecoded_link ? utf8(c->undecoded_link) : NULL;
    values[9] = c->error ? utf8(c->error) : NULL;
}

void td_output_json_file(const td_capture *c, GString *out)
{
    char *values[FILE_STATUS_COLUMNS];

    file_status(c, values);
    g_string_append(out, "{\"record\":\"file\",\"file\":");
    json_string(out, c->path);
    for (guint i = 0; file_status_names[i]; i++) {
        if (!values[i])
            continue;
        g_string_append_c(out, ',');
        json_string(out, file_status_names[i]);
        g_string_append_c(out, ':');
        if (i == 0 || i >= 8)
            json_string(out, values[i]);
        else
            g_string_append(out, values[i]);
        g_free(values[i]);
    }
    g_string_append(out, "}\n");
}

/* record, file, tcp.stream, then the file status columns (empty on a flow's row),
 * then the field table's (empty on a file's row). */
enum { CSV_LEAD = 3 + FILE_STATUS_COLUMNS - 1 };

/* The columns, in table order: the fields that are not per direction, then the
 * per-direction ones for c2s, then for s2c, then the exchange's (last, so that a flow's
 * columns keep their places). column[slot][id]: 0 when none. */
enum { CSV_EXCHANGE_SLOT = 3 };
typedef struct csv_layout {
    guint column[4][TD_FIELD_COUNT];    /* slot 0: per flow; 1, 2: c2s, s2c; 3: per exchange */
    guint count;
} csv_layout;

/* Whether a field's columns sit in slot (per-packet fields have none). */
static bool csv_in_slot(td_field_scope scope, int slot)
{
    switch (scope) {
    case TD_SCOPE_FLOW:
        return slot == 0;
    case TD_SCOPE_DIRECTION:
        return slot == 1 || slot == 2;
    case TD_SCOPE_EXCHANGE:
        return slot == CSV_EXCHANGE_SLOT;
    case TD_SCOPE_PACKET:
        break;
    }
    return false;
}

static csv_layout layout;
static pthread_once_t layout_once = PTHREAD_ONCE_INIT;

static void lay_out_columns(void)
{
    guint next = CSV_LEAD;

    for (int slot = 0; slot <= CSV_EXCHANGE_SLOT; slot++)
        for (int id = 0; id < TD_FIELD_COUNT; id++)
            if (csv_in_slot(td_fields[id].scope, slot))
                layout.column[slot][id] = next++;
    layout.count = next;
}

/* Laid out once, by whichever thread asks first: pthread_once, not g_once, so that
   ThreadSanitizer sees the ordering (GLib's own synchronisation is hidden from it). */
static const csv_layout *csv_columns(void)
{
    pthread_once(&layout_once, lay_out_columns);
    return &layout;
}

static void csv_cell(GString *out, const char *value)
{
    if (!value)
        return;
    if (!strpbrk(value, ",\"\n\r")) {
        g_string_append(out, value);
        return;
    }
    g_string_append_c(out, '"');
    for (const char *p = value; *p; p++) {
        if (*p == '"')
            g_string_append_c(out, '"');
        g_string_append_c(out, *p);
    }
    g_string_append_c(out, '"');
}

static void csv_line(GString *out, char **cells, guint count)
{
    for (guint i = 0; i < count; i++) {
        g_string_append(out, i ? "," : "");
        csv_cell(out, cells[i]);
    }
    g_string_append_c(out, '\n');
}

void td_output_csv_header(GString *out)
{
    const csv_layout *layout = csv_columns();
    char **names = g_new0(char *, layout->count);

    names[0] = g_strdup("record");
    names[1] = g_strdup("file");
    names[2] = g_strdup("tcp.stream");
    for (guint i = 0; file_status_names[i]; i++)
        names[3 + i] = g_strdup(file_status_names[i]);
    for (int slot = 0; slot <= CSV_EXCHANGE_SLOT; slot++)
        for (int id = 0; id < TD_FIELD_COUNT; id++)
            if (layout->column[slot][id])
                names[layout->column[slot][id]] = slot == 1 || slot == 2 ? g_strdup_printf("%s.%s", csv_dirs[slot - 1], td_fields[id].name)
                                                        : g_strdup(td_fields[id].name);
    csv_line(out, names, layout->count);
    for (guint i = 0; i < layout->count; i++)
        g_free(names[i]);
    g_free(names);
}

/* The direction slot of an item: 0 when not per direction, else 1 for the flow's
 * first direction (c2s, or fwd) and 2 for the other. */
static int csv_slot(const td_flow *flow, const char *dir)
{
    if (!dir)
        return 0;
    return same_dir(dir, td_flow_fields_dir(flow, td_flow_sender_at(flow, 0))) ? 1 : 2;
}

static void csv_record(collector *col, const td_capture *c, const td_flow *flow, GString *out)
{
    const csv_layout *layout = csv_columns();
    char **cells = g_new0(char *, layout->count);

    collect_flow(col, c, flow);
    cells[0] = g_strdup("flow");
    cells[1] = utf8(c->path);
    cells[2] = g_strdup_printf("%u", flow->stream);
    for (guint k = 0; k < col->items->len; k++) {
        item *it = &g_array_index(col->items, item, k);
        char **cell = &cells[layout->column[csv_slot(flow, it->dir)][it->id]];
        /* a repeated field: one cell, its values joined */
        char *value = *cell ? g_strdup_printf("%s,%s", *cell, it->value) : g_steal_pointer(&it->value);
        g_free(*cell);
        *cell = value;
    }
    csv_line(out, cells, layout->count);
    for (guint k = 0; k < layout->count; k++)
        g_free(cells[k]);
    g_free(cells);
}

/* An exchange's row: its flow's stream and Community ID, its own columns. */
static void csv_exchange(collector *col, const td_capture *c, const td_flow *flow, const td_exchange *ex,
                         GString *out)
{
    const csv_layout *layout = csv_columns();
    char **cells = g_new0(char *, layout->count);

    collect_exchange(col, flow, ex);
    cells[0] = g_strdup("exchange");
    cells[1] = utf8(c->path);
    cells[2] = g_strdup_printf("%u", flow->stream);
    for (guint k = 0; k < col->items->len; k++) {
        item *it = &g_array_index(col->items, item, k);
        int slot = td_fields[it->id].scope == TD_SCOPE_EXCHANGE ? CSV_EXCHANGE_SLOT : 0;
        cells[layout->column[slot][it->id]] = g_steal_pointer(&it->value);
    }
    csv_line(out, cells, layout->count);
    for (guint k = 0; k < layout->count; k++)
        g_free(cells[k]);
    g_free(cells);
}

/* One flow's record and one exchange's in each format that has records, and how
 * their values are rendered. */
typedef struct record_writer {
    void (*write)(collector *col, const td_capture *c, const td_flow *flow, GString *out);
    void (*exchange)(collector *col, const td_capture *c, const td_flow *flow, const td_exchange *ex, GString *out);
    render_kind kind;
} record_writer;

static const record_writer *writer_of(td_format format)
{
    static const record_writer writers[] = {
        [TD_FORMAT_JSON] = { json_record, json_exchange, RENDER_JSON },
        [TD_FORMAT_EK] = { ek_record, ek_exchange, RENDER_JSON },
        [TD_FORMAT_CSV] = { csv_record, csv_exchange, RENDER_CSV },
    };
    return (size_t)format < G_N_ELEMENTS(writers) && writers[format].write ? &writers[format] : NULL;
}

void td_output_records(td_format format, const td_capture *c, td_flows_shown shown, td_records *records)
{
    const record_writer *w = writer_of(format);
    const td_flow *flow;
    collector *col;

    if (!w || !c->engine)
        return;
    col = collector_new(w->kind);
    /* a flow released (settle.h) gave its record when it settled, as did every flow
     * settled before the end */
    for (guint i = 0; (flow = td_engine_next_flow(c->engine, &i)); i++) {
        if (td_capture_settled_early(c, flow) || !td_output_shows(c, flow, shown))
            continue;
        w->write(col, c, flow, records->out);
        record_done(records);
    }
    collector_free(col);
}

void td_output_settled(td_format format, const td_capture *c, const td_flow *flow, td_flows_shown shown,
                       td_records *records)
{
    const record_writer *w = writer_of(format);
    collector *col;

    if (!w || !td_output_shows(c, flow, shown))
        return;
    col = collector_new(w->kind);
    w->write(col, c, flow, records->out);
    td_records_flush(records);
    collector_free(col);
}

void td_output_exchange(td_format format, const td_capture *c, const td_flow *flow, const td_exchange *ex,
                        td_flows_shown shown, td_records *records)
{
    const record_writer *w = writer_of(format);

    if (!w || shown != TD_SHOW_ALL)
        return;
    if (!records->exchanges)
        records->exchanges = collector_new(w->kind);
    w->exchange(records->exchanges, c, flow, ex, records->out);
    record_done(records);
}

void td_records_free(td_records *records)
{
    if (records->exchanges)
        collector_free(records->exchanges);
    records->exchanges = NULL;
}

void td_output_csv_file(const td_capture *c, GString *out)
{
    const csv_layout *layout = csv_columns();
    char **cells = g_new0(char *, layout->count);

    cells[0] = g_strdup("file");
    cells[1] = utf8(c->path);
    file_status(c, cells + 3);
    csv_line(out, cells, layout->count);
    for (guint k = 0; k < layout->count; k++)
        g_free(cells[k]);
    g_free(cells);
}
