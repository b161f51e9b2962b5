/* Statistics > tcpdiag: the diagnosis as Wireshark's own sortable tables
 * (stat-tap tables, the kind Wireshark's simple statistics dialogs show), in the
 * GUI on 4.0 to 4.6 and in tshark as `-z tcpdiag,table` and `-z tcpdiag,host-table`.
 *
 * - Diagnosis per flow: one row per flow that has a frame passing the dialog's
 *   display filter, with its rank by time lost (the dialog opens sorted on the
 *   first column), stream, endpoints, cause, cost, fix and the verdicts behind it.
 * - Diagnosis per host: the findings no single flow makes, capture-wide: host
 *   stalls (engine/stall.h), the ECN lottery and SYN options per client and the
 *   offload per sender (engine/hosts.h).
 *
 * Rows come from the tcpdiag tap, which the postdissector feeds only on frames
 * dissected once the capture is complete (the GUI's retap when the dialog opens,
 * tshark's second pass with -2): a row never shows a half-known cause.
 * docs/gui.md says how a row leads to its flow. stats-tcpdiag.c registers them. */

#include "ws_compat.h"

#include <epan/stat_tap_ui.h>
#include <epan/tap.h>

#include "table-tcpdiag.h"

#include "tcpdiag.h"
#include "state-tcpdiag.h"
#include "advice.h"
#include "units.h"
#include "analysis_messages.h"
#include "diagnosis_messages.h"
#include "text.h"

enum flow_column {
    COL_RANK, COL_STREAM, COL_FLOW, COL_CAUSE, COL_LOST, COL_SLOWDOWN, COL_FRAME, COL_DURATION, COL_PACKETS,
    COL_ECN, COL_LIMIT, COL_REACTION, COL_OFFLOAD, COL_FIX, COL_SUMMARY, FLOW_COLUMNS
};

/* The format is what both tshark and the GUI of 4.2 on print the value with.
 * Wireshark's dialog opens sorted on the first column and sizes it to its numbers,
 * which clipped a right-aligned header under the sort arrow ("tream"): the first
 * column is the rank, left-aligned. */
static stat_tap_table_item flow_columns[FLOW_COLUMNS] = {
    [COL_RANK]     = { TABLE_ITEM_UINT,   TAP_ALIGN_LEFT,  "Rank by time lost",  "%u" },
    [COL_STREAM]   = { TABLE_ITEM_UINT,   TAP_ALIGN_RIGHT, "Stream",             "%u" },
    [COL_FLOW]     = { TABLE_ITEM_STRING, TAP_ALIGN_LEFT,  "Client -> server",   "%s" },
    [COL_DURATION] = { TABLE_ITEM_FLOAT,  TAP_ALIGN_RIGHT, "Duration (s)",       "%.3f" },
    [COL_PACKETS]  = { TABLE_ITEM_UINT,   TAP_ALIGN_RIGHT, "Packets",            "%u" },
    [COL_CAUSE]    = { TABLE_ITEM_STRING, TAP_ALIGN_LEFT,  "Cause",              "%s" },
    [COL_LOST]     = { TABLE_ITEM_FLOAT,  TAP_ALIGN_RIGHT, "Time lost (s)",      "%.3f" },
    [COL_SLOWDOWN] = { TABLE_ITEM_FLOAT,  TAP_ALIGN_RIGHT, "Slowdown",           "%.2f" },
    [COL_ECN]      = { TABLE_ITEM_STRING, TAP_ALIGN_LEFT,  "ECN",                "%s" },
    [COL_LIMIT]    = { TABLE_ITEM_STRING, TAP_ALIGN_LEFT,  "Limit",              "%s" },
    [COL_REACTION] = { TABLE_ITEM_STRING, TAP_ALIGN_LEFT,  "Reaction",           "%s" },
    [COL_OFFLOAD]  = { TABLE_ITEM_STRING, TAP_ALIGN_LEFT,  "Offload",            "%s" },
    [COL_FRAME]    = { TABLE_ITEM_UINT,   TAP_ALIGN_RIGHT, "Evidence frame",     "%u" },
    [COL_FIX]      = { TABLE_ITEM_STRING, TAP_ALIGN_LEFT,  "Fix",                "%s" },
    [COL_SUMMARY]  = { TABLE_ITEM_STRING, TAP_ALIGN_LEFT,  "Summary",            "%s" },
};

enum host_column { HCOL_HOST, HCOL_ROLE, HCOL_FINDING, HCOL_FLOWS, HCOL_FRAME, HCOL_DETAIL, HOST_COLUMNS };

static stat_tap_table_item host_columns[HOST_COLUMNS] = {
    [HCOL_HOST]    = { TABLE_ITEM_STRING, TAP_ALIGN_LEFT,  "Host",    "%s" },
    [HCOL_ROLE]    = { TABLE_ITEM_STRING, TAP_ALIGN_LEFT,  "As",      "%s" },
    [HCOL_FINDING] = { TABLE_ITEM_STRING, TAP_ALIGN_LEFT,  "Finding", "%s" },
    [HCOL_FLOWS]   = { TABLE_ITEM_UINT,   TAP_ALIGN_RIGHT, "Flows",   "%u" },
    [HCOL_FRAME]   = { TABLE_ITEM_UINT,   TAP_ALIGN_RIGHT, "Frame",   "%u" },
    [HCOL_DETAIL]  = { TABLE_ITEM_STRING, TAP_ALIGN_LEFT,  "Detail",  "%s" },
};

static const char FLOW_TABLE[] = "Diagnosis per flow";
static const char HOST_TABLE[] = "Diagnosis per host";

/* Flows that already have a row (flow index + 1), so that every later frame of
 * the flow costs one lookup; emptied with the table. */
static GHashTable *flows_in_table;

/* Per flow index its rank by time lost (1 = the most), for the diagnosis ranked_for. */
static const td_diagnoses *ranked_for;
static GArray *rank_of_flow;

static const td_diagnosis *diagnosis_at(const td_diagnoses *d, guint index)
{
    return td_diagnosis_of(d, td_engine_flow_at(td_diagnoses_engine(d), index));
}

/* The most time lost first, then by stream; flows whose loss is unknown last. */
static gint by_time_lost(gconstpointer a, gconstpointer b, gpointer d)
{
    guint x = *(const guint *)a, y = *(const guint *)b;
    int64_t lx = diagnosis_at(d, x)->lost_ns, ly = diagnosis_at(d, y)->lost_ns;

    if (lx != ly)
        return lx < ly ? 1 : -1;
    return x < y ? -1 : x > y;
}

void tcpdiag_tables_forget(void)
{
    if (rank_of_flow)
        g_array_free(rank_of_flow, TRUE);
    rank_of_flow = NULL;
    ranked_for = NULL;
}

static unsigned rank_of(const td_diagnoses *d, const td_flow *flow)
{
    if (ranked_for != d) {
        guint flows = td_engine_flow_count(td_diagnoses_engine(d));
        GArray *order = g_array_sized_new(FALSE, FALSE, sizeof(guint), flows);

        tcpdiag_tables_forget();
        ranked_for = d;
        for (guint i = 0; i < flows; i++)
            g_array_append_val(order, i);
        g_array_sort_with_data(order, by_time_lost, (gpointer)d);
        rank_of_flow = g_array_new(FALSE, TRUE, sizeof(unsigned));
        g_array_set_size(rank_of_flow, flows);
        for (guint rank = 0; rank < flows; rank++)
            g_array_index(rank_of_flow, unsigned, g_array_index(order, guint, rank)) = rank + 1;
        g_array_free(order, TRUE);
    }
    return g_array_index(rank_of_flow, unsigned, flow->index);
}

static stat_tap_table *first_table(stat_tap_table_ui *ui, const char *name)
{
    stat_tap_table *table = stat_tap_find_table(ui, name);

    if (!table) {
        table = stat_tap_init_table(name, (int)ui->nfields, 0, NULL);
        stat_tap_add_table(ui, table);
    }
    return table;
}

static void init_flow_table(stat_tap_table_ui *ui)
{
    first_table(ui, FLOW_TABLE);
    if (!flows_in_table)
        flows_in_table = g_hash_table_new(g_direct_hash, g_direct_equal);
}

static void init_host_table(stat_tap_table_ui *ui)
{
    first_table(ui, HOST_TABLE);
}

static stat_tap_table_item_type text_item(const char *text)
{
    stat_tap_table_item_type item = { .type = TABLE_ITEM_STRING };
    item.value.string_value = g_strdup(text);
    return item;
}

static stat_tap_table_item_type uint_item(unsigned value)
{
    stat_tap_table_item_type item = { .type = TABLE_ITEM_UINT };
    item.value.uint_value = value;
    return item;
}

static stat_tap_table_item_type float_item(double value)
{
    stat_tap_table_item_type item = { .type = TABLE_ITEM_FLOAT };
    item.value.float_value = value;
    return item;
}

static void append_row(stat_tap_table *table, const stat_tap_table_item_type *row)
{
    stat_tap_init_table_row(table, table->num_elements, table->num_fields, row);
}

static void add_flow_row(stat_tap_table *table, const td_diagnoses *d, const td_flow *flow)
{
    const td_diagnosis *diag = td_diagnosis_of(d, flow);
    stat_tap_table_item_type row[FLOW_COLUMNS];
    char endpoints[160], summary[TD_SUMMARY_MAX + 1];

    const char *fix = td_advice_fix(d, flow);

    td_text_endpoints(flow, endpoints, sizeof endpoints);
    td_advice_summary(d, flow, summary, sizeof summary);
    row[COL_RANK] = uint_item(rank_of(d, flow));
    row[COL_STREAM] = uint_item(flow->stream);
    row[COL_FLOW] = text_item(endpoints);
    row[COL_DURATION] = float_item((double)(flow->last_ns - flow->first_ns) / 1e9);
    row[COL_PACKETS] = uint_item(flow->packets);
    row[COL_CAUSE] = text_item(td_cause_name((td_cause)diag->cause));
    /* Unknown (negative) counts as none: the rank still puts it last. */
    row[COL_LOST] = float_item(diag->lost_ns > 0 ? (double)diag->lost_ns / 1e9 : 0);
    row[COL_SLOWDOWN] = float_item(diag->slowdown > 0 ? diag->slowdown : 0);
    row[COL_FIX] = text_item(fix ? fix : "-");
    row[COL_ECN] = text_item(td_ecn_outcome_name((td_ecn_outcome)flow->ecn_outcome));
    row[COL_LIMIT] = text_item(td_text_limit(flow));
    row[COL_REACTION] = text_item(td_text_reaction(flow));
    row[COL_OFFLOAD] = text_item(td_text_offload(flow));
    row[COL_FRAME] = uint_item(diag->evidence_frame ? diag->evidence_frame : flow->first_frame);
    row[COL_SUMMARY] = text_item(summary);
    append_row(table, row);
}

static tap_packet_status flow_packet(void *tapdata, packet_info *pinfo _U_, epan_dissect_t *edt _U_,
                                     const void *data, tap_flags_t flags _U_)
{
    stat_data_t *stat = (stat_data_t *)tapdata;
    const td_flow *flow = (const td_flow *)data;
    const td_diagnoses *d = tcpdiag_state_diagnoses();
    gpointer key = GUINT_TO_POINTER(flow->index + 1);

    if (!d || g_hash_table_contains(flows_in_table, key))
        return TAP_PACKET_DONT_REDRAW;
    g_hash_table_add(flows_in_table, key);
    add_flow_row(first_table(stat->stat_tap_data, FLOW_TABLE), d, flow);
    return TAP_PACKET_REDRAW;
}

static void add_host_row(stat_tap_table *table, const char *host, const char *role, const char *finding,
                         unsigned flows, unsigned frame, const char *detail)
{
    stat_tap_table_item_type row[HOST_COLUMNS];

    row[HCOL_HOST] = text_item(host);
    row[HCOL_ROLE] = text_item(role);
    row[HCOL_FINDING] = text_item(finding);
    row[HCOL_FLOWS] = uint_item(flows);
    row[HCOL_FRAME] = uint_item(frame);
    row[HCOL_DETAIL] = text_item(detail);
    append_row(table, row);
}

/* One row per host-wide stall, at the frame where the host resumed. */
static void add_stall_rows(stat_tap_table *table, const td_diagnoses *d)
{
    const td_stalls *stalls = td_engine_stalls(td_diagnoses_engine(d));

    for (guint i = 0; i < td_stalls_count(stalls); i++) {
        const td_stall *stall = td_stalls_at(stalls, i);
        char host[64];
        GString *silence = g_string_new(NULL);

        td_addr_format(&stall->host, host, sizeof host);
        td_message_stall_silence(d, i, silence);
        add_host_row(table, host, "stalled host", "host-stall", stall->flows_hit, stall->resume_frame, silence->str);
        g_string_free(silence, TRUE);
    }
}

/* The frame a host row leads to: the first packet of the host's first flow that
 * shows its finding (for a client whose ECN flows were slower, its first ECN flow,
 * which carries the Note; for a sender with mixed offload, its first flow without
 * offload), or else of its first flow. Kept per summary as frame << 1 | shows. */
static void note_frame(GHashTable *frames, const void *summary, bool shows, uint32_t frame)
{
    gsize old = GPOINTER_TO_SIZE(g_hash_table_lookup(frames, summary));

    if (!old || (shows && !(old & 1)))
        g_hash_table_insert(frames, (gpointer)summary, GSIZE_TO_POINTER((gsize)frame << 1 | shows));
}

static unsigned frame_of(GHashTable *frames, const void *summary)
{
    return (unsigned)(GPOINTER_TO_SIZE(g_hash_table_lookup(frames, summary)) >> 1);
}

/* Counted among its sender's flows without offload, as engine/hosts.c counts them. */
static bool capped(const td_flow *flow)
{
    int sender = td_flow_busiest_sender(flow);
    const td_flight *f = sender < 0 ? NULL : td_flow_flight(flow, sender);
    td_offload_verdict verdict = f ? f->seg.result.verdict : TD_OFFLOAD_UNKNOWN;
    return verdict == TD_OFFLOAD_CAPPED || verdict == TD_OFFLOAD_MSS_CAPPED;
}

static GHashTable *first_frames(const td_hosts *hosts)
{
    GHashTable *frames = g_hash_table_new(g_direct_hash, g_direct_equal);
    const td_engine *engine = tcpdiag_state_engine();

    for (guint i = 0; i < td_engine_flow_count(engine); i++) {
        const td_flow *flow = td_engine_flow_at(engine, i);
        const td_client_summary *client = td_hosts_client_of(hosts, flow);
        const td_sender_summary *sender = td_hosts_sender_of(hosts, flow);

        if (client)
            note_frame(frames, client, client->ecn_slower && td_ecn_negotiated(flow->ecn_outcome), flow->first_frame);
        if (sender)
            note_frame(frames, sender, sender->offload == TD_SENDER_OFFLOAD_MIXED && capped(flow),
                       flow->first_frame);
    }
    return frames;
}

/* A client row's evidence: its first ECN flow when those were slower (it carries
 * the Note), else its first SYN without options when it sent any, else its first
 * flow. */
static unsigned client_frame(GHashTable *frames, const td_client_summary *c)
{
    return !c->ecn_slower && c->opts_missing ? c->opts_missing_frame : frame_of(frames, c);
}

static void format_known_rate(double bytes_per_s, char *buf, size_t size)
{
    if (bytes_per_s >= 0)
        td_format_rate(bytes_per_s, buf, size);
    else
        g_strlcpy(buf, "-", size);
}

/* One row per client whose SYNs were captured: the ECN lottery and the options. */
static void add_client_rows(stat_tap_table *table, const td_hosts *hosts, GHashTable *frames)
{
    for (guint i = 0; i < td_hosts_client_count(hosts); i++) {
        const td_client_summary *c = td_hosts_client_at(hosts, i);
        char host[64], ecn[32], other[32], slowdown[48] = "", detail[320];
        const char *finding = c->ecn_slower && c->opts_missing ? "ecn-slower,syns-without-options"
                              : c->ecn_slower ? "ecn-slower" : c->opts_missing ? "syns-without-options" : "none";

        td_addr_format(&c->addr, host, sizeof host);
        format_known_rate(c->ecn_median_rate, ecn, sizeof ecn);
        format_known_rate(c->other_median_rate, other, sizeof other);
        if (c->ecn_slowdown > 0)
            g_snprintf(slowdown, sizeof slowdown, " (ECN %.2fx slower)", c->ecn_slowdown);
        GString *lottery = g_string_new(NULL);
        td_message_ecn_lottery(c, lottery);
        g_snprintf(detail, sizeof detail, "%s; median rate ECN %s, others %s%s; %u of %u SYNs without wscale, sack or "
                   "ts", lottery->str, ecn, other, slowdown, c->opts_missing, c->opts_known);
        g_string_free(lottery, TRUE);
        add_host_row(table, host, "client", finding, c->conns, client_frame(frames, c), detail);
    }
}

/* One row per sender whose offload is known: which of its flows used it. */
static void add_sender_rows(stat_tap_table *table, const td_hosts *hosts, GHashTable *frames)
{
    for (guint i = 0; i < td_hosts_sender_count(hosts); i++) {
        const td_sender_summary *s = td_hosts_sender_at(hosts, i);
        char host[64], common[64] = "", capped_rate[32], offloaded_rate[32], detail[320];

        if (s->offload == TD_SENDER_OFFLOAD_UNKNOWN)
            continue;
        td_addr_format(&s->addr, host, sizeof host);
        format_known_rate(s->capped_median_rate, capped_rate, sizeof capped_rate);
        format_known_rate(s->offloaded_median_rate, offloaded_rate, sizeof offloaded_rate);
        if (s->offload == TD_SENDER_OFFLOAD_MIXED) {
            char traits[48];
            td_common_traits(s->common, traits, sizeof traits);
            g_snprintf(common, sizeof common, " (in common: %s)", traits);
        }
        g_snprintf(detail, sizeof detail, "%u flows offloaded, %u not%s; median rate not offloaded %s, offloaded %s",
                   s->offloaded_flows, s->capped_flows, common, capped_rate, offloaded_rate);
        add_host_row(table, host, "sender", td_sender_offload_name((td_sender_offload)s->offload),
                     s->offloaded_flows + s->capped_flows, frame_of(frames, s), detail);
    }
}

/* The per-host findings do not depend on which frames pass the dialog's filter:
 * the table is filled once, from the first frame the tap hands over. */
static tap_packet_status host_packet(void *tapdata, packet_info *pinfo _U_, epan_dissect_t *edt _U_,
                                     const void *data _U_, tap_flags_t flags _U_)
{
    stat_data_t *stat = (stat_data_t *)tapdata;
    stat_tap_table *table = first_table(stat->stat_tap_data, HOST_TABLE);
    const td_diagnoses *d = tcpdiag_state_diagnoses();

    const td_hosts *hosts = tcpdiag_state_hosts();
    GHashTable *frames;

    if (!d || !hosts || table->num_elements)
        return TAP_PACKET_DONT_REDRAW;
    add_stall_rows(table, d);
    frames = first_frames(hosts);
    add_client_rows(table, hosts, frames);
    add_sender_rows(table, hosts, frames);
    g_hash_table_destroy(frames);
    return TAP_PACKET_REDRAW;
}

static void free_item(stat_tap_table *table _U_, guint row _U_, guint column _U_, stat_tap_table_item_type *item)
{
    if (item->type == TABLE_ITEM_STRING)
        g_free((char *)item->value.string_value);
    item->value.string_value = NULL;
}

/* A retap (a new display filter, a reloaded file) starts from no rows: the rows
 * are the flows of this pass, not counters to zero. */
static void drop_rows(stat_tap_table *table)
{
    for (guint row = 0; row < table->num_elements; row++) {
        for (guint column = 0; column < table->num_fields; column++)
            free_item(table, row, column, &table->elements[row][column]);
        g_free(table->elements[row]);
    }
    g_free(table->elements);
    table->elements = NULL;
    table->num_elements = 0;
}

static void reset_flow_table(stat_tap_table *table)
{
    drop_rows(table);
    g_hash_table_remove_all(flows_in_table);
}

/* The packet-statistics group is the one the Qt GUI lists under Statistics (the
 * generic group gets no menu entry on 4.0). A "/" in the title would be shown as
 * is, not as a submenu, hence "tcpdiag: ...". */
stat_tap_table_ui tcpdiag_flow_table_ui = {
    .group = REGISTER_PACKET_STAT_GROUP_UNSORTED,
    .title = "tcpdiag: diagnosis per flow",
    .tap_name = "tcpdiag",
    .cli_string = "tcpdiag,table",
    .stat_tap_init_cb = init_flow_table,
    .packet_func = flow_packet,
    .stat_tap_reset_table_cb = reset_flow_table,
    .stat_tap_free_table_item_cb = free_item,
    .nfields = FLOW_COLUMNS,
    .fields = flow_columns,
};

stat_tap_table_ui tcpdiag_host_table_ui = {
    .group = REGISTER_PACKET_STAT_GROUP_UNSORTED,
    .title = "tcpdiag: diagnosis per host",
    .tap_name = "tcpdiag",
    .cli_string = "tcpdiag,host-table",
    .stat_tap_init_cb = init_host_table,
    .packet_func = host_packet,
    .stat_tap_reset_table_cb = drop_rows,
    .stat_tap_free_table_item_cb = free_item,
    .nfields = HOST_COLUMNS,
    .fields = host_columns,
};
