/* The command's outputs: the text reports, NDJSON, CSV and Elasticsearch bulk lines. */
#include "output.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "flowfields.h"
#include "report.h"

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

static bool is_slow(td_cause cause)
{
    return cause != TD_CAUSE_NONE && cause != TD_CAUSE_UNKNOWN;
}

bool td_output_shows(const td_capture *c, const td_flow *flow, td_flows_shown shown)
{
    td_cause cause = (td_cause)td_diagnosis_of(c->diagnoses, flow)->cause;

    return shown == TD_SHOW_ALL || (shown == TD_SHOW_WITH_CAUSE ? has_cause(cause) : is_slow(cause));
}

/* The per-flow table with the rows asked for; a healthy capture of 250 flows would
 * otherwise bury its few answers. */
static void flows_table(const td_capture *c, td_flows_shown shown, GString *out)
{
    switch (shown) {
    case TD_SHOW_ALL:
        td_report_flows(c->diagnoses, out);
        break;
    case TD_SHOW_WITH_CAUSE:
        td_report_flows_where(c->diagnoses, has_cause, "healthy, cause none; --flows shows every flow", out);
        break;
    case TD_SHOW_SLOW:
        td_report_flows_where(c->diagnoses, is_slow, "not slow, cause none or unknown (--slow)", out);
        break;
    }
}

void td_output_text(const td_capture *c, td_flows_shown shown, GString *out)
{
    const td_capture_counts *n = &c->counts;

    g_string_append_printf(out, "tcpdiag: %s: %" PRIu64 " frames, %" PRIu64 " TCP segments, %" PRIu64
                           " ICMP quotes, %" PRIu64 " other, %" PRIu64 " malformed (skipped)\n",
                           c->path, n->frames, n->segments, n->quotes, n->other, n->malformed);
    td_report_diagnosis_framed(c->diagnoses, c->hosts, out);
    flows_table(c, shown, out);
    td_report_hosts_framed(c->hosts, out);
}

/* One field of one flow, its value already rendered for the output at hand. */
typedef struct item {
    const char *name;       /* static: the field table's names */
    const char *dir;        /* static; NULL for a flow-wide field */
    char *value;
} item;

typedef enum { RENDER_JSON, RENDER_CSV } render_kind;

typedef struct collector {
    GArray *items;          /* item */
    render_kind kind;
} collector;

/* JSON and CSV are UTF-8 for the tools that read them (DuckDB rejects a whole
 * table for one bad byte), but a file name is bytes: each byte that is not part of
 * valid UTF-8 becomes U+FFFD. The text output keeps the name as given. */
static char *utf8(const char *s)
{
    return g_utf8_validate(s, -1, NULL) ? g_strdup(s) : g_utf8_make_valid(s, -1);
}

static void json_string(GString *out, const char *raw)
{
    char *s = utf8(raw);

    g_string_append_c(out, '"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            g_string_append_printf(out, "\\%c", *p);
        else if (*p < 0x20)
            g_string_append_printf(out, "\\u%04x", *p);
        else
            g_string_append_c(out, (char)*p);
    }
    g_string_append_c(out, '"');
    g_free(s);
}

/* Durations keep Wireshark's nanoseconds: seconds with nine decimals. */
static void seconds(GString *out, int64_t ns)
{
    uint64_t magnitude = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    g_string_append_printf(out, "%s%" PRIu64 ".%09" PRIu64, ns < 0 ? "-" : "", magnitude / 1000000000u,
                           magnitude % 1000000000u);
}

static char *render(const td_field *f, render_kind kind)
{
    GString *v = g_string_new("");

    switch (f->kind) {
    case TD_FIELD_STRING:
        if (kind == RENDER_JSON)
            json_string(v, f->str);
        else
            g_string_append(v, f->str);
        break;
    case TD_FIELD_UINT:
        g_string_append_printf(v, "%" PRIu64, f->uint);
        break;
    case TD_FIELD_DOUBLE:
        if (isfinite(f->dbl))
            g_string_append_printf(v, "%.17g", f->dbl);
        else
            g_string_append(v, kind == RENDER_JSON ? "null" : "");
        break;
    case TD_FIELD_TIME:
        seconds(v, f->ns);
        break;
    }
    return g_string_free(v, FALSE);
}

static void collect(const td_field *field, const char *dir, void *ctx)
{
    collector *col = ctx;
    item it = { field->name, dir, render(field, col->kind) };
    g_array_append_val(col->items, it);
}

static void status_item(collector *col, const char *name, const td_field *value)
{
    item it = { name, NULL, render(value, col->kind) };
    g_array_append_val(col->items, it);
}

static void status_string(collector *col, const char *name, const char *text)
{
    td_field value = { .kind = TD_FIELD_STRING, .str = text };
    status_item(col, name, &value);
}

static void status_uint(collector *col, const char *name, uint64_t number)
{
    td_field value = { .kind = TD_FIELD_UINT, .uint = number };
    status_item(col, name, &value);
}

static void clear(collector *col)
{
    for (guint i = 0; i < col->items->len; i++)
        g_free(g_array_index(col->items, item, i).value);
    g_array_set_size(col->items, 0);
}

static void collect_flow(collector *col, const td_capture *c, const td_flow *flow)
{
    clear(col);
    td_flow_fields(c->diagnoses, c->hosts, flow, collect, col);
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
               strcmp(g_array_index(items, item, i + n).name, it->name) == 0)
            n++;
        g_string_append(out, *first ? "" : ",");
        *first = false;
        key_of(out, it->name);
        g_string_append_c(out, ':');
        if (n > 1)
            g_string_append_c(out, '[');
        for (guint k = 0; k < n; k++)
            g_string_append_printf(out, "%s%s", k ? "," : "", g_array_index(items, item, i + k).value);
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

static void plain_key(GString *out, const char *name)
{
    json_string(out, name);
}

void td_output_json(const td_capture *c, td_flows_shown shown, GString *out)
{
    collector col = { g_array_new(FALSE, FALSE, sizeof(item)), RENDER_JSON };

    for (guint i = 0; c->engine && i < td_engine_flow_count(c->engine); i++) {
        const td_flow *flow = td_engine_flow_at(c->engine, i);
        if (!td_output_shows(c, flow, shown))
            continue;
        bool first = false;
        collect_flow(&col, c, flow);
        g_string_append(out, "{\"record\":\"flow\",\"file\":");
        json_string(out, c->path);
        g_string_append_printf(out, ",\"tcp.stream\":%u", flow->stream);
        json_members(out, col.items, NULL, &first, plain_key);
        direction_members(out, col.items, "", plain_key);
        g_string_append(out, "}\n");
    }
    clear(&col);
    g_array_free(col.items, TRUE);
}

/* tshark -T ek names a field "<protocol>_<field with dots as underscores>", so
 * that Elasticsearch does not read the dots as object paths. */
static void ek_key(GString *out, const char *name)
{
    char *flat = g_strdelimit(g_strdup_printf("tcpdiag_%s", name), ".", '_');
    json_string(out, flat);
    g_free(flat);
}

void td_output_ek(const td_capture *c, td_flows_shown shown, GString *out)
{
    collector col = { g_array_new(FALSE, FALSE, sizeof(item)), RENDER_JSON };

    for (guint i = 0; c->engine && i < td_engine_flow_count(c->engine); i++) {
        const td_flow *flow = td_engine_flow_at(c->engine, i);
        if (!td_output_shows(c, flow, shown))
            continue;
        GDateTime *day = g_date_time_new_from_unix_utc(flow->first_ns / 1000000000);
        char *date = day ? g_date_time_format(day, "%Y-%m-%d") : g_strdup("1970-01-01");
        bool first = true;

        collect_flow(&col, c, flow);
        /* tshark indexes packets-DATE by the packet's day; these are flows */
        g_string_append_printf(out, "{\"index\":{\"_index\":\"tcpdiag-%s\"}}\n", date);
        g_string_append_printf(out, "{\"timestamp\":\"%" PRId64 "\",\"file\":", flow->first_ns / 1000000);
        json_string(out, c->path);
        g_string_append_printf(out, ",\"tcp_stream\":%u,\"layers\":{\"tcpdiag\":{", flow->stream);
        json_members(out, col.items, NULL, &first, ek_key);
        g_string_append_c(out, '}');
        direction_members(out, col.items, "tcpdiag_", ek_key);
        g_string_append(out, "}}\n");
        g_free(date);
        if (day)
            g_date_time_unref(day);
    }
    clear(&col);
    g_array_free(col.items, TRUE);
}

/* The file's status: how it was read and what was skipped, as items of the
 * output at hand. Names begin with "file." so that they never meet a field's. */
static void file_status(const td_capture *c, collector *col)
{
    const td_capture_counts *n = &c->counts;

    status_string(col, "file.status", !c->opened ? "unreadable" : c->error ? "cut-short" : "read");
    status_uint(col, "file.frames", n->frames);
    status_uint(col, "file.tcp_segments", n->segments);
    status_uint(col, "file.icmp_quotes", n->quotes);
    status_uint(col, "file.flows", c->engine ? td_engine_flow_count(c->engine) : 0);
    status_uint(col, "file.skipped.not_tcp", n->other - n->undecoded_link);
    status_uint(col, "file.skipped.undecoded_link", n->undecoded_link);
    status_uint(col, "file.skipped.malformed", n->malformed);
    if (c->undecoded_link)
        status_string(col, "file.undecoded_link_type", c->undecoded_link);
    if (c->error)
        status_string(col, "file.error", c->error);
}

void td_output_json_file(const td_capture *c, GString *out)
{
    collector col = { g_array_new(FALSE, FALSE, sizeof(item)), RENDER_JSON };
    bool first = false;

    file_status(c, &col);
    g_string_append(out, "{\"record\":\"file\",\"file\":");
    json_string(out, c->path);
    json_members(out, col.items, NULL, &first, plain_key);
    g_string_append(out, "}\n");
    clear(&col);
    g_array_free(col.items, TRUE);
}

/* record, file, tcp.stream: the columns every row has, in this order. */
enum { CSV_FIXED_COLUMNS = 3 };

struct td_csv {
    GPtrArray *columns;     /* char*, in the order met */
    GHashTable *column_of;  /* name → index + 1 */
    GPtrArray *rows;        /* GPtrArray of char* (NULL: empty cell), one per flow */
};

td_csv *td_csv_new(void)
{
    td_csv *csv = g_new0(td_csv, 1);
    csv->columns = g_ptr_array_new_with_free_func(g_free);
    csv->column_of = g_hash_table_new(g_str_hash, g_str_equal);
    csv->rows = g_ptr_array_new_with_free_func((GDestroyNotify)g_ptr_array_unref);
    g_ptr_array_add(csv->columns, g_strdup("record"));
    g_ptr_array_add(csv->columns, g_strdup("file"));
    g_ptr_array_add(csv->columns, g_strdup("tcp.stream"));
    return csv;
}

static void csv_set(td_csv *csv, GPtrArray *row, char *column, char *value)
{
    guint at = GPOINTER_TO_UINT(g_hash_table_lookup(csv->column_of, column));

    if (!at) {
        g_ptr_array_add(csv->columns, column);
        at = csv->columns->len;
        g_hash_table_insert(csv->column_of, column, GUINT_TO_POINTER(at));
    } else
        g_free(column);
    if (row->len < at)
        g_ptr_array_set_size(row, (gint)at);
    if (g_ptr_array_index(row, at - 1)) {    /* a repeated field: one cell, values joined */
        char *joined = g_strdup_printf("%s,%s", (char *)g_ptr_array_index(row, at - 1), value);
        g_free(value);
        g_free(g_ptr_array_index(row, at - 1));
        value = joined;
    }
    g_ptr_array_index(row, at - 1) = value;
}

void td_csv_add(td_csv *csv, const td_capture *c, td_flows_shown shown)
{
    collector col = { g_array_new(FALSE, FALSE, sizeof(item)), RENDER_CSV };

    for (guint i = 0; c->engine && i < td_engine_flow_count(c->engine); i++) {
        const td_flow *flow = td_engine_flow_at(c->engine, i);
        if (!td_output_shows(c, flow, shown))
            continue;
        GPtrArray *row = g_ptr_array_new_with_free_func(g_free);
        collect_flow(&col, c, flow);
        g_ptr_array_add(row, g_strdup("flow"));
        g_ptr_array_add(row, utf8(c->path));
        g_ptr_array_add(row, g_strdup_printf("%u", flow->stream));
        for (guint k = 0; k < col.items->len; k++) {
            item *it = &g_array_index(col.items, item, k);
            char *column = it->dir ? g_strdup_printf("%s.%s", it->dir, it->name) : g_strdup(it->name);
            csv_set(csv, row, column, it->value);
            it->value = NULL;
        }
        g_ptr_array_add(csv->rows, row);
    }
    clear(&col);
    g_array_free(col.items, TRUE);
}

void td_csv_add_file(td_csv *csv, const td_capture *c)
{
    collector col = { g_array_new(FALSE, FALSE, sizeof(item)), RENDER_CSV };
    GPtrArray *row = g_ptr_array_new_with_free_func(g_free);

    file_status(c, &col);
    g_ptr_array_add(row, g_strdup("file"));
    g_ptr_array_add(row, utf8(c->path));
    g_ptr_array_add(row, NULL);     /* tcp.stream: a file has none */
    for (guint k = 0; k < col.items->len; k++) {
        item *it = &g_array_index(col.items, item, k);
        csv_set(csv, row, g_strdup(it->name), g_steal_pointer(&it->value));
    }
    g_ptr_array_add(csv->rows, row);
    clear(&col);
    g_array_free(col.items, TRUE);
}

void td_csv_append(td_csv *csv, td_csv *part)
{
    for (guint r = 0; r < part->rows->len; r++) {
        GPtrArray *from = g_ptr_array_index(part->rows, r);
        GPtrArray *row = g_ptr_array_new_with_free_func(g_free);
        for (guint i = 0; i < from->len; i++) {
            char *value = g_ptr_array_index(from, i);
            g_ptr_array_index(from, i) = NULL;
            if (i < CSV_FIXED_COLUMNS)
                g_ptr_array_add(row, value);
            else if (value)
                csv_set(csv, row, g_strdup(g_ptr_array_index(part->columns, i)), value);
        }
        g_ptr_array_add(csv->rows, row);
    }
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

void td_csv_write(const td_csv *csv, GString *out)
{
    for (guint i = 0; i < csv->columns->len; i++) {
        g_string_append(out, i ? "," : "");
        csv_cell(out, g_ptr_array_index(csv->columns, i));
    }
    g_string_append_c(out, '\n');
    for (guint r = 0; r < csv->rows->len; r++) {
        const GPtrArray *row = g_ptr_array_index(csv->rows, r);
        for (guint i = 0; i < csv->columns->len; i++) {
            g_string_append(out, i ? "," : "");
            csv_cell(out, i < row->len ? g_ptr_array_index(row, i) : NULL);
        }
        g_string_append_c(out, '\n');
    }
}

void td_csv_free(td_csv *csv)
{
    if (!csv)
        return;
    g_ptr_array_free(csv->rows, TRUE);
    g_hash_table_destroy(csv->column_of);
    g_ptr_array_free(csv->columns, TRUE);
    g_free(csv);
}
