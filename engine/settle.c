/* The settle rule (settle.h): which flows settle as the capture's clock moves on,
 * their diagnosis at that point, and what the end of the input keeps of it. */
#include "settle.h"

#include <string.h>

/* Points come at most this often in capture time (a quarter of the window), so that
 * the host rules are not rebuilt for every packet; a flow's record waits at most that
 * long past its due time. */
enum { POINTS_PER_WINDOW = 4 };
#define MIN_POINT_STEP_NS 100000000     /* 100 ms: a window of 0 s settles within that */
#define NS_PER_S 1000000000LL

struct td_settler {
    td_engine *engine;
    const td_hosts_config *hosts_cfg;
    td_settled_fn settled;
    void *ctx;
    int64_t window_ns, idle_ns, step_ns;
    int64_t history_ns;         /* a settled flow is read by later flows' rules this long past its last packet */
    int64_t clock_ns;           /* the latest packet time seen */
    int64_t next_point_ns;      /* INT64_MIN: before the first packet */
    guint seen;                 /* flows of the engine already in open */
    GArray *open;               /* guint flow indices not settled yet, in flow order */
    GArray *due;                /* scratch: the indices settling at a point */
    GArray *kept;               /* guint indices settled and not forgotten yet, in the order they settled */
    void (*released)(const td_flow *flow, void *ctx);  /* td_settler_release: set to give memory back */
    void *released_ctx;
    /* flow index → the td_diagnosis* given at its point, of every flow settled before the
     * end (NULL for a lone SYN's, which all share one: diagnosis.c) */
    GHashTable *given;
};

td_settler *td_settler_new(td_engine *engine, const td_hosts_config *hosts_cfg, td_settled_fn settled, void *ctx)
{
    td_settler *s = g_new0(td_settler, 1);
    const td_settle_config *cfg = &td_engine_config(engine)->settle;

    s->engine = engine;
    s->hosts_cfg = hosts_cfg;
    s->settled = settled;
    s->ctx = ctx;
    s->window_ns = (int64_t)cfg->window_s * NS_PER_S;
    s->idle_ns = (int64_t)cfg->idle_s * NS_PER_S;
    s->step_ns = MAX(s->window_ns / POINTS_PER_WINDOW, MIN_POINT_STEP_NS);
    /* A flow that settles is compared with the flows that ended within a window
     * before it (and those of the window after, which it waited for); one settled by
     * the idle timeout was silent longer than that, and is kept as long */
    s->history_ns = MAX(2 * s->window_ns, s->idle_ns);
    s->next_point_ns = INT64_MIN;
    s->open = g_array_new(FALSE, FALSE, sizeof(guint));
    s->due = g_array_new(FALSE, FALSE, sizeof(guint));
    s->kept = g_array_new(FALSE, FALSE, sizeof(guint));
    s->given = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
    return s;
}

void td_settler_free(td_settler *s)
{
    if (!s)
        return;
    g_array_free(s->open, TRUE);
    g_array_free(s->due, TRUE);
    g_array_free(s->kept, TRUE);
    g_hash_table_destroy(s->given);
    g_free(s);
}

static bool is_due(const td_settler *s, const td_flow *flow)
{
    int64_t quiet = s->clock_ns - flow->last_ns;

    return quiet >= s->idle_ns || (td_flow_closed(flow) && quiet >= s->window_ns);
}

/* Moves the flows due at this point from open to due, both in flow order. */
static void collect_due(td_settler *s)
{
    guint kept = 0;

    for (guint n = td_engine_flow_count(s->engine); s->seen < n; s->seen++)
        g_array_append_val(s->open, s->seen);
    g_array_set_size(s->due, 0);
    for (guint k = 0; k < s->open->len; k++) {
        guint i = g_array_index(s->open, guint, k);
        if (is_due(s, td_engine_flow_at(s->engine, i)))
            g_array_append_val(s->due, i);
        else
            g_array_index(s->open, guint, kept++) = i;
    }
    g_array_set_size(s->open, kept);
}

void td_settler_release(td_settler *s, void (*released)(const td_flow *flow, void *ctx), void *ctx)
{
    s->released = released;
    s->released_ctx = ctx;
}

/* The settled flows past the history leave it (td_engine_forget), and when the front
 * end asked for it their memory goes: nothing will read them again. */
static void forget_past(td_settler *s)
{
    guint kept = 0;

    for (guint k = 0; k < s->kept->len; k++) {
        guint i = g_array_index(s->kept, guint, k);
        const td_flow *flow = td_engine_flow_at(s->engine, i);
        if (s->clock_ns - flow->last_ns <= s->history_ns) {
            g_array_index(s->kept, guint, kept++) = i;
            continue;
        }
        if (s->released) {
            s->released(flow, s->released_ctx);
            g_hash_table_remove(s->given, GUINT_TO_POINTER(i));
        }
        td_engine_forget(s->engine, i, s->released != NULL);
    }
    g_array_set_size(s->kept, kept);
}

/* The flows due settle, are diagnosed against the flows settled within the history,
 * and are handed over; each keeps its diagnosis for the end. */
static void point(td_settler *s)
{
    td_hosts *hosts;
    td_diagnoses *d;

    collect_due(s);
    if (!s->due->len)
        return;
    for (guint k = 0; k < s->due->len; k++)
        td_engine_settle(s->engine, g_array_index(s->due, guint, k));
    td_engine_pair_stalls(s->engine);
    hosts = td_hosts_build(s->engine, s->hosts_cfg);
    d = td_diagnose_flows(s->engine, hosts, (const guint *)(const void *)s->due->data, s->due->len);
    for (guint k = 0; k < s->due->len; k++) {
        guint i = g_array_index(s->due, guint, k);
        const td_flow *flow = td_engine_flow_at(s->engine, i);
        g_hash_table_insert(s->given, GUINT_TO_POINTER(i),
                            flow->more ? g_memdup2(td_diagnosis_of(d, flow), sizeof(td_diagnosis)) : NULL);
        if (s->settled)
            s->settled(d, hosts, flow, s->ctx);
    }
    g_array_append_vals(s->kept, s->due->data, s->due->len);
    td_diagnoses_free(d);
    td_hosts_free(hosts);
}

/* The clock reached a settle point. Not inlined into td_settler_clock, so that the
 * check every segment makes saves and restores no registers for it. */
static G_GNUC_NO_INLINE void reach_point(td_settler *s)
{
    forget_past(s);
    point(s);
    s->next_point_ns = s->clock_ns + s->step_ns;
}

void td_settler_clock(td_settler *s, int64_t time_ns)
{
    if (time_ns > s->clock_ns || s->next_point_ns == INT64_MIN)
        s->clock_ns = time_ns;
    if (s->next_point_ns == INT64_MIN)
        s->next_point_ns = time_ns + s->step_ns;
    if (s->clock_ns >= s->next_point_ns)
        reach_point(s);
}

void td_settler_finish(td_settler *s, td_hosts **hosts, td_diagnoses **diagnoses)
{
    GHashTableIter iter;
    gpointer key, value;

    forget_past(s);
    td_engine_finish(s->engine);
    *hosts = td_hosts_build(s->engine, s->hosts_cfg);
    *diagnoses = td_diagnose(s->engine, *hosts);
    g_hash_table_iter_init(&iter, s->given);
    while (g_hash_table_iter_next(&iter, &key, &value))
        if (value)
            td_diagnoses_keep(*diagnoses, td_engine_flow_at(s->engine, GPOINTER_TO_UINT(key)), value);
}

bool td_settler_settled_early(const td_settler *s, const td_flow *flow)
{
    return g_hash_table_contains(s->given, GUINT_TO_POINTER(flow->index));
}
