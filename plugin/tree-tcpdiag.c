/* The plugin's side of the field table (engine/field_table.c): the hf, subtree and
 * expert registrations built from it, and the tcpdiag tree built from the
 * readers' values (engine/field_values.c), each item labelled as people read it. */

#include "ws_compat.h"

#include <epan/expert.h>
#include <epan/packet.h>
#include <wsutil/nstime.h>

#include <string.h>

#include "tree-tcpdiag.h"
#include "field_label.h"

static int hf_ids[TD_FIELD_COUNT];
static gint ett_groups[TD_GROUP_COUNT];
static expert_field experts[TD_EXPERT_COUNT];

static enum ftenum ws_type(td_field_type type)
{
    switch (type) {
    case TD_TYPE_STRING:   return FT_STRING;
    case TD_TYPE_UINT8:    return FT_UINT8;
    case TD_TYPE_UINT16:   return FT_UINT16;
    case TD_TYPE_UINT32:   return FT_UINT32;
    case TD_TYPE_UINT64:   return FT_UINT64;
    case TD_TYPE_DOUBLE:   return FT_DOUBLE;
    case TD_TYPE_DURATION: return FT_RELATIVE_TIME;
    case TD_TYPE_FRAME:    return FT_FRAMENUM;
    }
    return FT_NONE;
}

static int ws_display(td_field_type type)
{
    return ws_type(type) >= FT_UINT8 && ws_type(type) <= FT_UINT64 ? BASE_DEC : BASE_NONE;
}

static int ws_group(td_expert_group group)
{
    return group == TD_EXPERT_SEQUENCE ? PI_SEQUENCE : PI_PROTOCOL;
}

static int ws_severity(td_expert_severity severity)
{
    return severity == TD_EXPERT_WARN ? PI_WARN : severity == TD_EXPERT_NOTE ? PI_NOTE : PI_CHAT;
}

/* Wireshark keeps pointers into both arrays for as long as it runs. */
void tcpdiag_fields_register(int proto)
{
    static const hf_register_info blank_hf = { NULL, { NULL, NULL, FT_NONE, BASE_NONE, NULL, 0x0, NULL, HFILL } };
    static const ei_register_info blank_ei = { NULL, { NULL, 0, 0, NULL, EXPFILL } };
    static gint *ett[TD_GROUP_COUNT - 1];
    hf_register_info *hf = g_new(hf_register_info, TD_FIELD_COUNT);
    ei_register_info *ei = g_new(ei_register_info, TD_EXPERT_COUNT);

    for (int i = 0; i < TD_FIELD_COUNT; i++) {
        const td_field_def *def = &td_fields[i];
        hf_ids[i] = -1;
        hf[i] = blank_hf;
        hf[i].p_id = &hf_ids[i];
        hf[i].hfinfo.name = def->label;
        hf[i].hfinfo.abbrev = def->name;
        hf[i].hfinfo.type = ws_type(def->type);
        hf[i].hfinfo.display = ws_display(def->type);
        hf[i].hfinfo.blurb = def->description;
    }
    proto_register_field_array(proto, hf, TD_FIELD_COUNT);
    /* TD_GROUP_TOP is the protocol's own subtree (packet-tcpdiag.c) */
    for (int g = TD_GROUP_TOP + 1; g < TD_GROUP_COUNT; g++) {
        ett_groups[g] = -1;
        ett[g - 1] = &ett_groups[g];
    }
    proto_register_subtree_array(ett, array_length(ett));
    for (int i = 0; i < TD_EXPERT_COUNT; i++) {
        const td_expert_def *def = &td_experts[i];
        ei[i] = blank_ei;
        ei[i].ids = &experts[i];
        ei[i].eiinfo.name = def->name;
        ei[i].eiinfo.group = ws_group(def->group);
        ei[i].eiinfo.severity = ws_severity(def->severity);
        ei[i].eiinfo.summary = def->summary;
    }
    expert_register_field_array(expert_register_protocol(proto), ei, TD_EXPERT_COUNT);
}

int tcpdiag_hf(td_field_id id)
{
    return hf_ids[id];
}

expert_field *tcpdiag_expert(td_expert_id id)
{
    return &experts[id];
}

GString *tcpdiag_message(void)
{
    static GString *words;

    if (!words)
        words = g_string_sized_new(256);
    return g_string_truncate(words, 0);
}

void tcpdiag_add_message(proto_tree *tree, packet_info *pinfo, tvbuff_t *tvb, td_expert_id id, GString *message)
{
    proto_tree_add_expert_format(tree, pinfo, &experts[id], tvb, 0, 0, "%s", message->str);
    g_string_truncate(message, 0);
}

static nstime_t ns_to_nstime(int64_t ns)
{
    nstime_t t;
    t.secs = (time_t)(ns / 1000000000);
    t.nsecs = (int)(ns % 1000000000);
    return t;
}

/* The label of an item that reads otherwise than Wireshark prints its type, in
 * text; false for the others. A rate's label keeps the field's own unit after the
 * bit/s reading, as the item's value is in B/s. */
static bool value_label(const td_field_value *v, char *text, size_t size)
{
    char reading[32];

    if (!td_field_label_text(v, reading, sizeof reading))
        return false;
    if (td_fields[v->id].label_style == TD_LABEL_RATE)
        g_snprintf(text, size, "%s (%.0f B/s)", reading, v->dbl);
    else
        g_strlcpy(text, reading, size);
    return true;
}

/* Every tcpdiag item is derived: it covers no bytes and is marked generated.
 * label: the item's text after its name, or NULL for Wireshark's own. */
static void add_labelled(proto_tree *tree, tvbuff_t *tvb, const td_field_value *v, const char *label)
{
    int hf = hf_ids[v->id];
    proto_item *item = NULL;
    nstime_t t;

    switch (td_fields[v->id].type) {
    case TD_TYPE_STRING:
        item = proto_tree_add_string(tree, hf, tvb, 0, 0, v->str);
        break;
    case TD_TYPE_UINT8:
    case TD_TYPE_UINT16:
    case TD_TYPE_UINT32:
    case TD_TYPE_FRAME:
        item = proto_tree_add_uint(tree, hf, tvb, 0, 0, (uint32_t)v->uint);
        break;
    case TD_TYPE_UINT64:
        item = proto_tree_add_uint64(tree, hf, tvb, 0, 0, v->uint);
        break;
    case TD_TYPE_DOUBLE:
        item = label ? proto_tree_add_double_format_value(tree, hf, tvb, 0, 0, v->dbl, "%s", label)
                     : proto_tree_add_double(tree, hf, tvb, 0, 0, v->dbl);
        break;
    case TD_TYPE_DURATION:
        t = ns_to_nstime(v->ns);
        item = label ? proto_tree_add_time_format_value(tree, hf, tvb, 0, 0, &t, "%s", label)
                     : proto_tree_add_time(tree, hf, tvb, 0, 0, &t);
        break;
    }
    proto_item_set_generated(item);
}

enum { LABEL_SIZE = 64 };

void tcpdiag_add_value(proto_tree *tree, tvbuff_t *tvb, const td_field_value *v)
{
    char label[LABEL_SIZE];

    add_labelled(tree, tvb, v, value_label(v, label, sizeof label) ? label : NULL);
}

void tcpdiag_add_string(proto_tree *tree, tvbuff_t *tvb, td_field_id id, const char *value)
{
    td_field_value v = { .id = id, .str = value };
    tcpdiag_add_value(tree, tvb, &v);
}

void tcpdiag_add_uint(proto_tree *tree, tvbuff_t *tvb, td_field_id id, uint32_t value)
{
    td_field_value v = { .id = id, .uint = value };
    tcpdiag_add_value(tree, tvb, &v);
}

void tcpdiag_add_double(proto_tree *tree, tvbuff_t *tvb, td_field_id id, double value)
{
    td_field_value v = { .id = id, .dbl = value };
    tcpdiag_add_value(tree, tvb, &v);
}

void tcpdiag_add_time(proto_tree *tree, tvbuff_t *tvb, td_field_id id, int64_t ns)
{
    td_field_value v = { .id = id, .ns = ns };
    tcpdiag_add_value(tree, tvb, &v);
}

typedef struct builder {
    tvbuff_t *tvb;
    proto_tree *top;
    proto_tree *groups[TD_GROUP_COUNT];     /* the subtree each group last opened */
    td_field_group group;                   /* the one open now */
    int sender;
    tcpdiag_group_done done;
    void *done_ctx;
} builder;

static void finish_group(builder *b)
{
    if (b->group != TD_GROUP_TOP && b->done)
        b->done(b->done_ctx, b->top, b->group, b->sender);
}

static void open_group(void *ctx, td_field_group group, int sender, const char *heading)
{
    builder *b = ctx;
    proto_tree *parent = b->groups[td_field_group_parent(group)];

    finish_group(b);
    b->group = group;
    b->sender = sender;
    b->groups[group] = proto_tree_add_subtree_format(parent, b->tvb, 0, 0, ett_groups[group], NULL, "%s",
                                                     heading ? heading : "");
}

static void add_built(void *ctx, const td_field_value *v)
{
    builder *b = ctx;
    tcpdiag_add_value(b->groups[b->group], b->tvb, v);
}

/* In a tree nobody looks at, a field no filter or column names would be dropped. */
static bool referenced(void *ctx, td_field_id id)
{
    builder *b = ctx;
    return proto_field_is_referenced(b->top, hf_ids[id]);
}

/* A shown tree (the GUI's details, tshark -V, -T fields, -T json) gets every item
 * of the flow on every packet. So the readers' answer for a flow is recorded once,
 * labels formatted, and replayed on its next packets while its key is unchanged:
 * a few slots, by flow, whatever the number of flows (no memory per flow). */
typedef struct recorded {
    bool opens;                 /* a subtree: group, sender, heading (in value.str) */
    td_field_group group;
    int sender;
    td_field_value value;
    const char *label;          /* NULL: as Wireshark prints the type */
} recorded;

typedef struct recording {
    bool used;
    td_flow_fields_key key;
    GArray *items;              /* recorded */
    GStringChunk *text;         /* their strings */
} recording;

enum { RECORDINGS = 32 };
static recording recordings[RECORDINGS];

static const char *keep_text(recording *r, const char *text)
{
    return text ? g_string_chunk_insert(r->text, text) : NULL;
}

static void record_group(void *ctx, td_field_group group, int sender, const char *heading)
{
    recording *r = ctx;
    recorded item = { .opens = true, .group = group, .sender = sender };

    item.value.str = keep_text(r, heading);
    g_array_append_val(r->items, item);
}

static void record_value(void *ctx, const td_field_value *v)
{
    recording *r = ctx;
    recorded item = { .value = *v };
    char label[LABEL_SIZE];

    item.value.str = keep_text(r, v->str);
    if (value_label(v, label, sizeof label))
        item.label = keep_text(r, label);
    g_array_append_val(r->items, item);
}

static const recording *recorded_fields(const td_flow_view *view, const td_flow *flow)
{
    recording *r = &recordings[flow->index % RECORDINGS];
    td_flow_fields_key key;
    td_field_sink sink = { record_value, record_group, NULL, true, r };

    td_flow_fields_key_of(view, flow, &key);
    if (r->used && memcmp(&r->key, &key, sizeof key) == 0)
        return r;
    if (!r->items) {
        r->items = g_array_new(FALSE, FALSE, sizeof(recorded));
        r->text = g_string_chunk_new(1024);
    }
    g_array_set_size(r->items, 0);
    g_string_chunk_clear(r->text);
    r->key = key;
    r->used = true;
    td_flow_fields(view, flow, &sink);
    return r;
}

void tcpdiag_fields_forget(void)
{
    for (int i = 0; i < RECORDINGS; i++) {
        if (recordings[i].items) {
            g_array_free(recordings[i].items, TRUE);
            g_string_chunk_free(recordings[i].text);
        }
        recordings[i] = (recording){ 0 };
    }
}

void tcpdiag_exchange_tree(proto_tree *tree, tvbuff_t *tvb, const td_exchange *ex)
{
    builder b = { .tvb = tvb, .top = tree, .group = TD_GROUP_TOP, .sender = -1 };
    bool visible = PTREE_DATA(tree)->visible;
    td_field_sink sink = { add_built, open_group, visible ? NULL : referenced, visible, &b };

    b.groups[TD_GROUP_TOP] = tree;
    td_exchange_fields(ex, &sink);
}

void tcpdiag_flow_tree(proto_tree *tree, tvbuff_t *tvb, const td_flow_view *view, const td_flow *flow,
                       tcpdiag_group_done done, void *done_ctx)
{
    builder b = { .tvb = tvb, .top = tree, .group = TD_GROUP_TOP, .sender = -1, .done = done,
                  .done_ctx = done_ctx };

    if (!tree)
        return;
    b.groups[TD_GROUP_TOP] = tree;
    if (!PTREE_DATA(tree)->visible) {
        td_field_sink sink = { add_built, open_group, referenced, false, &b };
        td_flow_fields(view, flow, &sink);
    } else {
        const GArray *items = recorded_fields(view, flow)->items;
        for (guint i = 0; i < items->len; i++) {
            const recorded *item = &g_array_index(items, recorded, i);
            if (item->opens)
                open_group(&b, item->group, item->sender, item->value.str);
            else
                add_labelled(b.groups[b.group], tvb, &item->value, item->label);
        }
    }
    finish_group(&b);
}
