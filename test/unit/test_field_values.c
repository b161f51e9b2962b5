/* engine/field_values.c: the readers of the field table the command exports. The values are
 * the core's own (the parity test holds them to the plugin's on every capture);
 * here: the names, the directions, and which fields a flow carries. */
#include "download_sim.h"
#include "field_values.h"

typedef struct seen {
    GHashTable *flow_wide;      /* name → count */
    GHashTable *by_dir;         /* "dir name" → count */
    uint64_t packets;
    const char *flight_dir;
} seen;

static void count(GHashTable *t, const char *key)
{
    g_hash_table_insert(t, g_strdup(key), GUINT_TO_POINTER(GPOINTER_TO_UINT(g_hash_table_lookup(t, key)) + 1));
}

static void collect(void *ctx, const td_field_value *field)
{
    seen *s = ctx;
    const char *name = td_fields[field->id].name;
    const char *dir = field->dir;

    g_assert_true(g_str_has_prefix(name, "tcpdiag."));
    if (!dir) {
        count(s->flow_wide, name);
    } else {
        char *key = g_strdup_printf("%s %s", dir, name);
        count(s->by_dir, key);
        g_free(key);
    }
    if (strcmp(name, "tcpdiag.flow.packets") == 0) {
        g_assert_cmpint(td_field_kind_of(td_fields[field->id].type), ==, TD_FIELD_UINT);
        s->packets = field->uint;
    }
    if (strcmp(name, "tcpdiag.flight.limit") == 0)
        s->flight_dir = dir;
}

static guint times(GHashTable *t, const char *key)
{
    return GPOINTER_TO_UINT(g_hash_table_lookup(t, key));
}

static void fields_of(const td_engine *engine, const td_flow *flow, seen *s)
{
    td_hosts_config cfg;
    td_hosts *hosts;
    td_diagnoses *d;

    td_hosts_config_defaults(&cfg);
    hosts = td_hosts_build(engine, &cfg);
    d = td_diagnose(engine, hosts);
    s->flow_wide = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    s->by_dir = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    s->flight_dir = NULL;
    td_flow_view view = { engine, d, hosts, true, 0 };
    td_field_sink sink = { .value = collect, .ctx = s };
    td_flow_fields(&view, flow, &sink);
    td_hosts_free(hosts);
    td_diagnoses_free(d);
}

static void seen_free(seen *s)
{
    g_hash_table_destroy(s->flow_wide);
    g_hash_table_destroy(s->by_dir);
}

/* A download with its handshake: roles known, the server's data under "s2c". */
static void test_download(void)
{
    sim s;
    seen f;

    sim_start(&s, false, 7, 1 << 20);
    for (int i = 0; i < 8; i++)
        sim_round(&s, 10, false);
    sim_finish(&s);
    fields_of(s.engine, s.flow, &f);
    g_assert_cmpuint(f.packets, ==, s.flow->packets);
    g_assert_cmpuint(times(f.flow_wide, "tcpdiag.flow.roles"), ==, 1);
    g_assert_cmpuint(times(f.flow_wide, "tcpdiag.diag.cause"), ==, 1);
    g_assert_cmpuint(times(f.flow_wide, "tcpdiag.ecn.outcome"), ==, 1);
    g_assert_cmpuint(times(f.flow_wide, "tcpdiag.host.conns"), ==, 1);
    g_assert_cmpstr(f.flight_dir, ==, "s2c");
    g_assert_cmpuint(times(f.by_dir, "s2c tcpdiag.cc.reaction"), ==, 1);
    g_assert_cmpuint(times(f.by_dir, "s2c tcpdiag.offload.verdict"), ==, 1);
    /* the client sent no data: no direction of its own */
    g_assert_cmpuint(times(f.by_dir, "c2s tcpdiag.flight.limit"), ==, 0);
    seen_free(&f);
    td_engine_free(s.engine);
}

/* Without the handshake the roles are unknown: the data of the endpoint that sent
 * the first packet is "fwd", and no host summary applies. */
static void test_unknown_roles(void)
{
    td_config cfg;
    td_engine *engine;
    const td_flow *flow = NULL;
    seen f;
    int sender;

    td_config_defaults(&cfg);
    engine = td_engine_new(&cfg);
    for (uint32_t i = 0; i < 20; i++) {
        td_record data = segment(false, 443, (int64_t)i * MS, TD_TH_ACK, SERVER_ISN + i * MSS, MSS);
        td_record ack = segment(true, 443, (int64_t)i * MS + 500 * US, TD_TH_ACK, 1, 0);
        data.frame = 2 * i + 1;
        ack.frame = 2 * i + 2;
        ack.ack = SERVER_ISN + (i + 1) * MSS;
        flow = td_engine_add(engine, &data, &sender);
        td_engine_add(engine, &ack, &sender);
    }
    td_engine_finish(engine);
    fields_of(engine, flow, &f);
    g_assert_cmpstr(td_flow_fields_dir(flow, 0), ==, "fwd");
    g_assert_cmpstr(f.flight_dir, ==, "fwd");
    g_assert_cmpuint(times(f.flow_wide, "tcpdiag.flow.roles"), ==, 1);
    g_assert_cmpuint(times(f.flow_wide, "tcpdiag.flow.client"), ==, 0);
    g_assert_cmpuint(times(f.flow_wide, "tcpdiag.host.conns"), ==, 0);
    seen_free(&f);
    td_engine_free(engine);
}

static void render(void *ctx, const td_field_value *v)
{
    GString *out = ctx;

    g_string_append_printf(out, "%s %s %s %" G_GUINT64_FORMAT " %g %" G_GINT64_FORMAT "\n", td_fields[v->id].name,
                           v->dir ? v->dir : "-", v->str ? v->str : "-", v->uint, v->dbl, v->ns);
}

/* A front end may keep what it built while td_flow_fields_key is unchanged: on a
 * single pass, packet by packet, equal keys must give equal fields. */
static void test_key_covers_single_pass(void)
{
    sim s;
    GString *before = g_string_new(""), *now = g_string_new("");
    td_flow_fields_key last, key;
    guint changes = 0;
    int sender;

    sim_start_ts(&s, false, 7, 1 << 20, false);
    sim_handshake(&s, SIM_CLASSIC);
    for (int i = 0; i < 4; i++)
        sim_round(&s, 10, false);
    sim_pause(&s, 0);
    g_array_sort(s.packets, by_capture_time);
    for (guint i = 0; i < s.packets->len; i++) {
        td_record *rec = &g_array_index(s.packets, td_record, i);
        td_flow_view view = { s.engine, NULL, NULL, false, i + 1 };
        td_field_sink sink = { .value = render, .ctx = now };
        rec->frame = i + 1;
        s.flow = td_engine_add(s.engine, rec, &sender);
        g_string_truncate(now, 0);
        td_flow_fields(&view, s.flow, &sink);
        td_flow_fields_key_of(&view, s.flow, &key);
        if (i > 0 && memcmp(&key, &last, sizeof key) == 0)
            g_assert_cmpstr(now->str, ==, before->str);
        else
            changes++;
        last = key;
        g_string_assign(before, now->str);
    }
    g_assert_cmpuint(changes, >=, 3);      /* SYN, SYN-ACK, the ACK that settles ECN */
    g_array_free(s.packets, TRUE);
    g_string_free(before, TRUE);
    g_string_free(now, TRUE);
    td_engine_free(s.engine);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/flowfields/download", test_download);
    g_test_add_func("/flowfields/unknown_roles", test_unknown_roles);
    g_test_add_func("/flowfields/key_covers_single_pass", test_key_covers_single_pass);
    return g_test_run();
}
