/* The readers of the field table (field_values.h): one function per subtree decides
 * which fields a flow carries, under which conditions, and reads their values. */
#include "field_values.h"

#include <stdarg.h>
#include <string.h>

#include "advice.h"
#include "analysis_messages.h"
#include "findings.h"
#include "ccid.h"
#include "community_id.h"
#include "options.h"

typedef struct emitter {
    const td_field_sink *sink;
    const char *dir;
} emitter;

static bool wanted(const emitter *e, td_field_id id)
{
    return !e->sink->wants || e->sink->wants(e->sink->ctx, id);
}

static void emit(const emitter *e, td_field_value *v)
{
    if (!wanted(e, v->id))
        return;
    v->dir = e->dir;
    e->sink->value(e->sink->ctx, v);
}

static void str(const emitter *e, td_field_id id, const char *value)
{
    td_field_value v = { .id = id, .str = value };
    emit(e, &v);
}

static void unum(const emitter *e, td_field_id id, uint64_t value)
{
    td_field_value v = { .id = id, .uint = value };
    emit(e, &v);
}

static void dbl(const emitter *e, td_field_id id, double value)
{
    td_field_value v = { .id = id, .dbl = value };
    emit(e, &v);
}

static void time_ns(const emitter *e, td_field_id id, int64_t ns)
{
    td_field_value v = { .id = id, .ns = ns };
    emit(e, &v);
}

static void address(const emitter *e, td_field_id id, const td_addr *addr)
{
    char text[64];

    if (!wanted(e, id))
        return;
    td_addr_format(addr, text, sizeof text);
    str(e, id, text);
}

static bool headings(const emitter *e)
{
    return e->sink->group && e->sink->headings;
}

/* Opens a subtree; its heading is formatted only for a sink that shows it. */
static void G_GNUC_PRINTF(4, 5) open_group(const emitter *e, td_field_group group, int sender, const char *format, ...)
{
    char heading[320];
    va_list args;

    if (!e->sink->group)
        return;
    if (!e->sink->headings) {
        e->sink->group(e->sink->ctx, group, sender, NULL);
        return;
    }
    va_start(args, format);
    g_vsnprintf(heading, sizeof heading, format, args);
    va_end(args);
    e->sink->group(e->sink->ctx, group, sender, heading);
}

const char *td_flow_fields_dir(const td_flow *flow, int sender)
{
    const char *name = td_flow_dir_name(flow, sender);
    return name ? name : sender == 0 ? "fwd" : "rev";
}

/* The longest host stall that hit the flow, inside the diagnosis. */
static void stall_items(const emitter *e, const td_diagnoses *d, const td_flow *flow)
{
    const td_stalls *stalls = td_engine_stalls(td_diagnoses_engine(d));
    const td_stall_hit *hit = td_stalls_hit(stalls, flow->index);
    const td_stall *stall;
    char host[64];

    if (!hit)
        return;
    stall = td_stalls_at(stalls, hit->stall);
    td_addr_format(&stall->host, host, sizeof host);
    open_group(e, TD_GROUP_STALL, -1, "Host stall: %s silent for %.2f s", host,
         (double)(stall->end_ns - stall->start_ns) / 1e9);
    str(e, TD_F_STALL_HOST, host);
    time_ns(e, TD_F_STALL_START, stall->start_ns);
    time_ns(e, TD_F_STALL_DURATION, stall->end_ns - stall->start_ns);
    unum(e, TD_F_STALL_FLOWS_HIT, stall->flows_hit);
    unum(e, TD_F_STALL_FLOWS_ACTIVE, td_diagnoses_stall_active(d, hit->stall));
    unum(e, TD_F_STALL_FRAME, stall->last_frame);
    time_ns(e, TD_F_STALL_WAITED, hit->wait_end_ns - hit->wait_start_ns);
}

/* The answer opens the tree: its heading is the cause and the summary, the fix
 * right under it (the two lines an analyst needs). */
/* tcpdiag.diag.queue_filled_by: "0" or "0,3,5,7,..." */
static void queue_fillers_item(const emitter *e, const td_diagnosis *diag)
{
    char streams[TD_QUEUE_FILLERS_MAX * 11 + 8];
    size_t used = 0;

    for (uint32_t i = 0; i < MIN(diag->queue_fillers, (uint32_t)TD_QUEUE_FILLERS_MAX); i++)
        used += (size_t)g_snprintf(streams + used, sizeof streams - used, "%s%u", i ? "," : "",
                                   diag->queue_filler_streams[i]);
    if (diag->queue_fillers > TD_QUEUE_FILLERS_MAX)
        g_strlcpy(streams + used, ",...", sizeof streams - used);
    str(e, TD_F_DIAG_QUEUE_FILLED_BY, streams);
}

static void diag_items(const emitter *e, const td_diagnoses *d, const td_flow *flow)
{
    const td_diagnosis *diag = d ? td_diagnosis_of(d, flow) : NULL;
    const char *cause, *fix;
    char summary[TD_SUMMARY_MAX + 1], causes[256];

    if (!diag)
        return;
    cause = td_cause_name((td_cause)diag->cause);
    summary[0] = '\0';
    if (headings(e) || wanted(e, TD_F_DIAG_SUMMARY))
        td_advice_summary(d, flow, summary, sizeof summary);
    open_group(e, TD_GROUP_DIAG, -1, "Diagnosis: %s: %s", cause, summary);
    fix = td_advice_fix(d, flow);
    if (fix)
        str(e, TD_F_DIAG_FIX, fix);
    str(e, TD_F_DIAG_CAUSE, cause);
    str(e, TD_F_DIAG_SUMMARY, summary);
    if (fix && wanted(e, TD_F_DIAG_CONFIRM))
        str(e, TD_F_DIAG_CONFIRM, td_advice_confirm(d, flow));
    if (wanted(e, TD_F_DIAG_CAUSES)) {
        td_causes_list(diag->causes, causes, sizeof causes);
        str(e, TD_F_DIAG_CAUSES, causes);
    }
    if (td_cause_is_finding((td_cause)diag->cause)) {
        str(e, TD_F_DIAG_REFERENCE, td_reference_name((td_reference)diag->reference));
        if (diag->peers)
            unum(e, TD_F_DIAG_PEERS, diag->peers);
        if (diag->slowdown > 0)
            dbl(e, TD_F_DIAG_SLOWDOWN, diag->slowdown);
        if (diag->lost_ns >= 0)
            time_ns(e, TD_F_DIAG_LOST, diag->lost_ns);
        if (diag->evidence_frame)
            unum(e, TD_F_DIAG_FRAME, diag->evidence_frame);
        if (diag->queue_fillers)
            queue_fillers_item(e, diag);
    }
    if (diag->reason)
        str(e, TD_F_DIAG_REASON, diag->reason);
    stall_items(e, d, flow);
}

td_field_id td_time_part_field(td_time_part part)
{
    static const td_field_id parts[TD_TIME_PARTS] = {
        [TD_TIME_SETUP] = TD_F_TIME_SETUP, [TD_TIME_CLIENT_WAIT] = TD_F_TIME_CLIENT_WAIT,
        [TD_TIME_SERVER_WAIT] = TD_F_TIME_SERVER_WAIT, [TD_TIME_TRANSFER] = TD_F_TIME_TRANSFER,
        [TD_TIME_STALL] = TD_F_TIME_STALL, [TD_TIME_THINK] = TD_F_TIME_THINK,
        [TD_TIME_IDLE] = TD_F_TIME_IDLE,
    };
    return parts[part];
}

/* Where the flow's time went, once the capture has been read (time_budget.h). */
static void time_items(const emitter *e, const td_flow *flow)
{
    const td_time_budget *b = td_flow_time_budget(flow);
    const td_nagle *n = td_flow_nagle(flow);
    int held = n ? td_nagle_held_sender(n) : -1;

    time_ns(e, TD_F_TIME_DURATION, td_time_budget_duration(b));
    time_ns(e, TD_F_TIME_ACTIVE, td_time_budget_active(b));
    for (int p = 0; p < TD_TIME_PARTS; p++)
        time_ns(e, td_time_part_field((td_time_part)p), td_time_budget_part(b, (td_time_part)p));
    unum(e, TD_F_TIME_SYN_RETRANSMISSIONS, td_time_budget_syn_retransmissions(b));
    unum(e, TD_F_TIME_SYNACK_RETRANSMISSIONS, td_time_budget_synack_retransmissions(b));
    unum(e, TD_F_TIME_EXCHANGES, td_time_budget_exchanges(b));
    time_ns(e, TD_F_TIME_CLIENT_DELAY, b->answer_wait_ns[TD_SPAN_CLIENT_WAIT]);
    time_ns(e, TD_F_TIME_SERVER_DELAY, b->answer_wait_ns[TD_SPAN_SERVER_WAIT]);
    if (held >= 0) {
        unum(e, TD_F_TIME_NAGLE_HOLDS, n->side[held].holds);
        time_ns(e, TD_F_TIME_NAGLE_WAIT, n->side[held].held_ns);
    }
}

/* Roles, addresses and handshake timing are final from the handshake on; the
 * vantage once the handshake is complete; the rest once the capture has been read. */
static void flow_items(const emitter *e, const td_flow_view *view, const td_flow *flow, const td_handshake *hs)
{
    int64_t to_server, to_client;
    char community_id[TD_COMMUNITY_ID_SIZE];

    open_group(e, TD_GROUP_FLOW, -1, "Flow");
    str(e, TD_F_FLOW_ROLES, td_flow_roles_known(flow) ? "known" : "unknown");
    td_community_id_tcp(&flow->addr[0], flow->port[0], &flow->addr[1], flow->port[1], 0, community_id);
    if (community_id[0])
        str(e, TD_F_FLOW_COMMUNITY_ID, community_id);
    if (td_flow_roles_known(flow)) {
        int server = td_flow_server(flow);
        address(e, TD_F_FLOW_CLIENT, &flow->addr[flow->client]);
        unum(e, TD_F_FLOW_CLIENT_PORT, flow->port[flow->client]);
        address(e, TD_F_FLOW_SERVER, &flow->addr[server]);
        unum(e, TD_F_FLOW_SERVER_PORT, flow->port[server]);
        if (hs->opts[flow->client].present & TD_OPT_MSS)
            unum(e, TD_F_FLOW_CLIENT_MSS, hs->opts[flow->client].mss);
        if (hs->opts[server].present & TD_OPT_MSS)
            unum(e, TD_F_FLOW_SERVER_MSS, hs->opts[server].mss);
    }
    if (td_flow_handshake_halves(flow, &to_server, &to_client)) {
        time_ns(e, TD_F_FLOW_SYN_TO_SYNACK, to_server);
        time_ns(e, TD_F_FLOW_SYNACK_TO_ACK, to_client);
        time_ns(e, TD_F_FLOW_IRTT, to_server + to_client);
    }
    if (view->complete || hs->ack_frame)
        str(e, TD_F_FLOW_VANTAGE, td_vantage_name(td_flow_vantage(flow, td_engine_config(view->engine))));
    if (!view->complete)
        return;
    str(e, TD_F_FLOW_DATA_SENDER, td_flow_data_sender(flow));
    time_ns(e, TD_F_FLOW_DURATION, flow->last_ns - flow->first_ns);
    str(e, TD_F_FLOW_STATE, td_time_budget_state(td_flow_time_budget(flow)));
    unum(e, TD_F_FLOW_PACKETS, flow->packets);
    if (td_flow_icmp_quotes(flow))
        unum(e, TD_F_FLOW_ICMP_QUOTES, td_flow_icmp_quotes(flow));
    if (td_flow_sizes_from_ip(flow))
        unum(e, TD_F_FLOW_SIZES_FROM_IP, td_flow_sizes_from_ip(flow));
    for (int dir = 0; dir < 2 && td_flow_roles_known(flow); dir++)
        unum(e, dir == 0 ? TD_F_FLOW_C2S_BYTES : TD_F_FLOW_S2C_BYTES,
             td_flow_sent(flow, td_flow_sender_at(flow, dir))->payload_bytes);
    time_items(e, flow);
}

/* The outcome once settled; codepoint use once the capture has been read. */
static void ecn_items(const emitter *e, const td_flow_view *view, const td_flow *flow, const td_handshake *hs)
{
    static const td_field_id counts[2] = { TD_F_ECN_C2S_NOT_ECT, TD_F_ECN_S2C_NOT_ECT };

    open_group(e, TD_GROUP_ECN, -1, "ECN");
    if (flow->ecn_outcome != TD_ECN_PENDING) {
        str(e, TD_F_ECN_OUTCOME, td_ecn_outcome_name((td_ecn_outcome)flow->ecn_outcome));
        if (flow->ecn_reason)
            str(e, TD_F_ECN_REASON, flow->ecn_reason);
        if (flow->ecn_outcome == TD_ECN_ACCECN)
            str(e, TD_F_ECN_ACCECN_FEEDBACK, td_ip_ecn_name((td_ip_ecn)flow->accecn_feedback));
    }
    if (hs->syn_ip_ecn >= 0)
        str(e, TD_F_ECN_SYN_IP_ECN, td_ip_ecn_name((td_ip_ecn)hs->syn_ip_ecn));
    if (hs->synack_ip_ecn >= 0)
        str(e, TD_F_ECN_SYNACK_IP_ECN, td_ip_ecn_name((td_ip_ecn)hs->synack_ip_ecn));
    if (!view->complete || !td_flow_roles_known(flow))
        return;
    for (int dir = 0; dir < 2; dir++) {
        int sender = td_flow_sender_at(flow, dir);
        /* the counts' ids follow td_ip_ecn's order */
        for (int cp = TD_NOT_ECT; cp <= TD_CE; cp++)
            unum(e, (td_field_id)(counts[dir] + cp), td_flow_sent(flow, sender)->ecn_count[cp]);
        str(e, dir == 0 ? TD_F_ECN_C2S_DATA : TD_F_ECN_S2C_DATA,
            td_ecn_data_use_name(td_flow_ecn_data_use(flow, sender)));
    }
}

/* What each side announced is final from its SYN on; the audit once the capture
 * has been read. */
static void options_items(const emitter *e, const td_flow_view *view, const td_flow *flow, const td_handshake *hs)
{
    static const td_field_id announced[2] = { TD_F_OPTS_CLIENT, TD_F_OPTS_SERVER };
    static const td_field_id unreadable[2] = { TD_F_OPTS_CLIENT_UNREADABLE, TD_F_OPTS_SERVER_UNREADABLE };
    static const td_field_id wscale[2] = { TD_F_OPTS_CLIENT_WSCALE, TD_F_OPTS_SERVER_WSCALE };
    static const td_field_id used[3] = { TD_F_OPTS_WSCALE_USED, TD_F_OPTS_SACK_USED, TD_F_OPTS_TS_USED };
    td_options_audit audit;
    char text[64];

    if (!td_flow_roles_known(flow))
        return;
    open_group(e, TD_GROUP_OPTS, -1, "Handshake options");
    for (int dir = 0; dir < 2; dir++) {
        int sender = td_flow_sender_at(flow, dir);
        const td_syn_options *opts = &hs->opts[sender];
        char unread[64];
        if (!hs->opts_seen[sender])
            continue;
        td_syn_options_describe(opts, text, unread, sizeof text);
        if (text[0])
            str(e, announced[dir], text);
        if (unread[0])
            str(e, unreadable[dir], unread);
        if (opts->present & TD_OPT_WSCALE)
            unum(e, wscale[dir], opts->wscale);
    }
    if (!view->complete)
        return;
    td_options_audit_flow(flow, &audit);
    if (audit.client_seen) {
        td_options_missing_list(audit.left_out_by_client, text, sizeof text);
        str(e, TD_F_OPTS_LEFT_OUT_BY_CLIENT, text);
    }
    if (audit.server_seen) {
        td_options_missing_list(audit.left_out_by_server, text, sizeof text);
        str(e, TD_F_OPTS_LEFT_OUT_BY_SERVER, text);
    }
    for (int i = 0; i < 3; i++)
        str(e, used[i], td_tristate_name(audit.used[i]));
    if (audit.settled) {
        td_options_missing_list(audit.missing, text, sizeof text);
        str(e, TD_F_OPTS_MISSING, text);
    }
    if (audit.window_ceiling)
        unum(e, TD_F_OPTS_WINDOW_CEILING, audit.window_ceiling);
    if (audit.ceiling_throughput > 0)
        dbl(e, TD_F_OPTS_CEILING_THROUGHPUT, audit.ceiling_throughput);
    if (audit.at_ceiling != TD_UNKNOWN)
        str(e, TD_F_OPTS_AT_CEILING, td_tristate_name(audit.at_ceiling));
    for (int role = 0; role < 2; role++)
        if (audit.default_mss[role])
            unum(e, TD_F_OPTS_DEFAULT_MSS, audit.default_mss[role]);
    const char *stripped = td_options_ts_stripped_name(&audit);
    if (stripped)
        str(e, TD_F_OPTS_TS_STRIPPED, stripped);
}

static void plateau_items(const emitter *e, const td_flight *f, const td_plateau *p)
{
    unum(e, TD_F_FLIGHT_PLATEAU, p->high);
    if (f->mss)
        dbl(e, TD_F_FLIGHT_PLATEAU_MSS, (double)p->high / f->mss);
    unum(e, TD_F_FLIGHT_PLATEAU_ROUNDS, p->rounds);
    dbl(e, TD_F_FLIGHT_PLATEAU_SHARE, 100.0 * (double)p->ns / (double)td_flight_measured_ns(f));
    unum(e, TD_F_FLIGHT_PLATEAU_START, p->start_frame);
    str(e, TD_F_FLIGHT_PLATEAU_ONSET, td_onset_name(p->onset));
    str(e, TD_F_FLIGHT_PLATEAU_LIMIT, td_limit_name(p->limit));
    time_ns(e, TD_F_FLIGHT_PLATEAU_ROUND_TIME, p->ns / p->rounds);
    if (p->min_window != UINT32_MAX && p->min_window >= p->high)
        unum(e, TD_F_FLIGHT_HEADROOM, p->min_window - p->high);
    dbl(e, TD_F_FLIGHT_CEILING, td_plateau_ceiling(p));
}

/* A subtree per data direction, headed "<Title> <direction>: <verdict>". */
static void open_direction(const emitter *e, td_field_group group, const td_flow *flow, int sender,
                           const char *title, const char *verdict)
{
    char label[TD_DIR_LABEL_SIZE];

    if (headings(e))
        td_flow_dir_label(flow, sender, label, sizeof label);
    else
        label[0] = '\0';
    open_group(e, group, sender, "%s %s: %s", title, label, verdict);
}

static void flight_items(const emitter *e, const td_flow *flow, const td_flight *f, int sender)
{
    static const td_field_id shares[TD_LIMIT_COUNT] = {
        [TD_LIMIT_RWND] = TD_F_FLIGHT_RWND_SHARE, [TD_LIMIT_CWND] = TD_F_FLIGHT_CWND_SHARE,
        [TD_LIMIT_SENDER] = TD_F_FLIGHT_SENDER_SHARE, [TD_LIMIT_APP] = TD_F_FLIGHT_APP_SHARE,
    };
    const char *dir = td_flow_dir_name(flow, sender);
    const char *why;
    td_limit limit = td_flight_limit(f, &why);

    open_direction(e, TD_GROUP_FLIGHT, flow, sender, "Flight", td_limit_name(limit));
    if (dir)
        str(e, TD_F_FLIGHT_DIR, dir);
    str(e, TD_F_FLIGHT_LIMIT, td_limit_name(limit));
    if (why)
        str(e, TD_F_FLIGHT_REASON, why);
    if (f->unknown_reason)
        return;
    str(e, TD_F_FLIGHT_SEEN_FROM, td_seen_from_name(f->ctx.seen_from));
    time_ns(e, TD_F_FLIGHT_ACK_LAG, f->lag_ns);
    if (f->mss)
        unum(e, TD_F_FLIGHT_MSS, f->mss);
    unum(e, TD_F_FLIGHT_ROUNDS, f->rounds);
    unum(e, TD_F_FLIGHT_MAX, f->max_flight);
    if (f->ctx.rcv_wscale >= 0)
        unum(e, TD_F_FLIGHT_RWND, f->max_window);
    unum(e, TD_F_FLIGHT_RETRANSMISSIONS, f->retransmissions);
    unum(e, TD_F_FLIGHT_REORDERED, f->reordered);
    if (td_flight_measured_ns(f) <= 0)
        return;
    for (int i = TD_LIMIT_RWND; i < TD_LIMIT_COUNT; i++)
        dbl(e, shares[i], td_flight_share(f, (td_limit)i));
    dbl(e, TD_F_FLIGHT_THROUGHPUT, td_flight_throughput(f));
    if (td_flight_plateau(f))
        plateau_items(e, f, td_flight_plateau(f));
}

/* Whether signals caused the cuts, how sure that is, and the algorithm it points to. */
static void cc_identity(const emitter *e, const td_flight *f)
{
    const td_cc *cc = &f->cc;
    const char *why;
    td_cc_algorithm algorithm = td_cc_identify(f, &why);

    if (cc->reaction == TD_REACTION_LOSS_LIKE || cc->reaction == TD_REACTION_NONE) {
        dbl(e, TD_F_CC_CUT_SHARE, cc->cut_share);
        if (cc->control_share >= 0)
            dbl(e, TD_F_CC_CONTROL_SHARE, cc->control_share);
        str(e, TD_F_CC_CONFIDENCE, td_cc_confidence(cc, f->mss));
    }
    str(e, TD_F_CC_ALGORITHM, td_cc_algorithm_name(algorithm));
    str(e, TD_F_CC_ALGORITHM_WHY, why);
}

static void cc_items(const emitter *e, const td_flow *flow, const td_flight *f, int sender,
                     const td_flight_config *cfg)
{
    static const char *const feedback_names[] = { "none", "classic", "accecn" };
    const td_cc *cc = &f->cc;
    const char *dir = td_flow_dir_name(flow, sender);
    const char *unobserved;
    td_reaction reaction = f->unknown_reason ? TD_REACTION_UNKNOWN : cc->reaction;

    open_direction(e, TD_GROUP_CC, flow, sender, "Congestion", td_reaction_name(reaction));
    if (dir)
        str(e, TD_F_CC_DIR, dir);
    str(e, TD_F_CC_REACTION, td_reaction_name(reaction));
    if (f->unknown_reason)
        return;
    str(e, TD_F_CC_FEEDBACK, feedback_names[cc->feedback]);
    unum(e, TD_F_CC_CE, cc->ce);
    unum(e, TD_F_CC_ECE_EPISODES, cc->ece_episodes);
    unum(e, TD_F_CC_CWR, cc->cwr);
    unum(e, TD_F_CC_ACE_MARKS, cc->ace_marks);
    unum(e, TD_F_CC_LOSSES, cc->losses);
    unum(e, TD_F_CC_REDUCTIONS, cc->reductions);
    if (cc->ecn_ratio >= 0)
        dbl(e, TD_F_CC_ECN_RATIO, cc->ecn_ratio);
    if (cc->loss_ratio >= 0)
        dbl(e, TD_F_CC_LOSS_RATIO, cc->loss_ratio);
    str(e, TD_F_CC_COLLAPSE, td_cc_collapsed(cc, cfg) ? "yes" : "no");
    if (td_cc_collapsed(cc, cfg)) {
        unum(e, TD_F_CC_COLLAPSE_FLOOR, cc->collapse_floor);
        if (f->mss)
            dbl(e, TD_F_CC_COLLAPSE_FLOOR_MSS, (double)cc->collapse_floor / f->mss);
        unum(e, TD_F_CC_COLLAPSE_ROUNDS, cc->collapse_rounds);
        time_ns(e, TD_F_CC_COLLAPSE_TIME, cc->collapse_ns);
    }
    unobserved = td_cc_unobserved(&f->dir, &f->cc);
    if (unobserved)
        str(e, TD_F_CC_UNOBSERVED, unobserved);
    cc_identity(e, f);
}

static void offload_items(const emitter *e, const td_flow *flow, const td_flight *f, int sender)
{
    const td_offload_result *r = &f->seg.result;
    const char *dir = td_flow_dir_name(flow, sender);

    open_direction(e, TD_GROUP_OFFLOAD, flow, sender, "Offload", td_offload_verdict_name(r->verdict));
    if (dir)
        str(e, TD_F_OFFLOAD_DIR, dir);
    str(e, TD_F_OFFLOAD_VERDICT, td_offload_verdict_name(r->verdict));
    if (r->reason)
        str(e, TD_F_OFFLOAD_REASON, r->reason);
    if (f->mss) {
        unum(e, TD_F_OFFLOAD_MSS, f->mss);
        str(e, TD_F_OFFLOAD_MSS_SOURCE, td_offload_mss_source(&f->dir));
    }
    unum(e, TD_F_OFFLOAD_SEGMENTS, f->seg.segments);
    unum(e, TD_F_OFFLOAD_MAX, f->seg.max_payload);
    unum(e, TD_F_OFFLOAD_MEDIAN, r->median);
    unum(e, TD_F_OFFLOAD_P95, r->p95);
    unum(e, TD_F_OFFLOAD_SUPER_PACKETS, f->seg.super_packets);
    dbl(e, TD_F_OFFLOAD_SUPER_SHARE, r->super_share);
    unum(e, TD_F_OFFLOAD_IP_LEN_ZERO, f->seg.ip_len_zero);
    if (r->verdict == TD_OFFLOAD_CAPPED) {
        unum(e, TD_F_OFFLOAD_CAP, r->cap);
        if (f->mss)
            dbl(e, TD_F_OFFLOAD_CAP_MSS, (double)r->cap / f->mss);
        unum(e, TD_F_OFFLOAD_CAP_START, r->cap_start_frame);
    }
    if (r->verdict == TD_OFFLOAD_CAPPED || r->verdict == TD_OFFLOAD_MSS_CAPPED)
        str(e, TD_F_OFFLOAD_CAP_CAUSE, td_cap_cause_name(r->cap_cause));
}

/* flight, then cc, then offload, each over the flow's data directions */
static void direction_items(const emitter *flow_e, const td_flow_view *view, const td_flow *flow)
{
    const td_flight_config *cfg = &td_engine_config(view->engine)->flight;

    for (int group = TD_GROUP_FLIGHT; group <= TD_GROUP_OFFLOAD; group++)
        for (int i = 0; i < 2; i++) {
            int sender = td_flow_sender_at(flow, i);
            const td_flight *f = td_flow_flight(flow, sender);
            emitter e = { flow_e->sink, td_flow_fields_dir(flow, sender) };
            if (!f)
                continue;
            if (group == TD_GROUP_FLIGHT)
                flight_items(&e, flow, f, sender);
            else if (group == TD_GROUP_CC)
                cc_items(&e, flow, f, sender, cfg);
            else
                offload_items(&e, flow, f, sender);
        }
}

static void client_items(const emitter *e, const td_client_summary *c)
{
    char host[64], share[96];
    GString *lottery = g_string_new(NULL);

    if (headings(e)) {
        td_addr_format(&c->addr, host, sizeof host);
        td_message_ecn_lottery(c, lottery);
    } else {
        host[0] = '\0';
    }
    open_group(e, TD_GROUP_CLIENT, -1, "Client %s: %s", host, lottery->str);
    g_string_free(lottery, TRUE);
    unum(e, TD_F_HOST_CONNS, c->conns);
    unum(e, TD_F_HOST_ECN_REQUESTED, c->ecn_requested);
    unum(e, TD_F_HOST_ECN_NEGOTIATED, c->ecn_negotiated);
    if (wanted(e, TD_F_HOST_ECN_SHARE)) {
        g_snprintf(share, sizeof share, "%u of %u requested ECN", c->ecn_requested, c->conns);
        str(e, TD_F_HOST_ECN_SHARE, share);
    }
    if (c->ecn_median_duration_s >= 0)
        dbl(e, TD_F_HOST_ECN_MEDIAN_DURATION, c->ecn_median_duration_s);
    if (c->other_median_duration_s >= 0)
        dbl(e, TD_F_HOST_OTHER_MEDIAN_DURATION, c->other_median_duration_s);
    if (c->ecn_median_rate >= 0)
        dbl(e, TD_F_HOST_ECN_MEDIAN_THROUGHPUT, c->ecn_median_rate);
    if (c->other_median_rate >= 0)
        dbl(e, TD_F_HOST_OTHER_MEDIAN_THROUGHPUT, c->other_median_rate);
    if (c->ecn_slowdown > 0)
        dbl(e, TD_F_HOST_ECN_SLOWDOWN, c->ecn_slowdown);
    unum(e, TD_F_HOST_OPTS_MISSING_CONNS, c->opts_missing);
    if (wanted(e, TD_F_HOST_OPTS_SHARE)) {
        g_snprintf(share, sizeof share, "%u of %u connections sent SYNs without wscale, sack or ts",
                   c->opts_missing, c->opts_known);
        str(e, TD_F_HOST_OPTS_SHARE, share);
    }
}

static void sender_items(const emitter *e, const td_sender_summary *snd)
{
    char host[64], common[64];
    const char *offload = td_sender_offload_name((td_sender_offload)snd->offload);

    if (headings(e))
        td_addr_format(&snd->addr, host, sizeof host);
    else
        host[0] = '\0';
    open_group(e, TD_GROUP_SENDER, -1, "Sender %s: offload %s (%u offloaded, %u not)", host, offload,
         snd->offloaded_flows, snd->capped_flows);
    str(e, TD_F_SENDER_OFFLOAD, offload);
    unum(e, TD_F_SENDER_OFFLOADED_FLOWS, snd->offloaded_flows);
    unum(e, TD_F_SENDER_CAPPED_FLOWS, snd->capped_flows);
    if (snd->offload == TD_SENDER_OFFLOAD_MIXED) {
        td_common_traits(snd->common, common, sizeof common);
        str(e, TD_F_SENDER_CAPPED_COMMON, common);
    }
    if (snd->capped_median_rate >= 0)
        dbl(e, TD_F_SENDER_CAPPED_MEDIAN_THROUGHPUT, snd->capped_median_rate);
    if (snd->offloaded_median_rate >= 0)
        dbl(e, TD_F_SENDER_OFFLOADED_MEDIAN_THROUGHPUT, snd->offloaded_median_rate);
}

/* On a flow's first packet, for flows with known roles: the client's rules, then
 * its busiest sender's; a sender whose offload is unknown says nothing. */
static void host_items(const emitter *e, const td_flow_view *view, const td_flow *flow)
{
    const td_client_summary *client;
    const td_sender_summary *sender;

    if (!view->hosts || !td_flow_roles_known(flow) || (view->frame && view->frame != flow->first_frame))
        return;
    if ((client = td_hosts_client_of(view->hosts, flow)) != NULL)
        client_items(e, client);
    sender = td_hosts_sender_of(view->hosts, flow);
    if (sender && sender->offload != TD_SENDER_OFFLOAD_UNKNOWN)
        sender_items(e, sender);
}

void td_flow_fields(const td_flow_view *view, const td_flow *flow, const td_field_sink *sink)
{
    emitter e = { sink, NULL };
    td_handshake scratch;
    const td_handshake *hs = td_flow_hs(flow, &scratch);

    if (view->complete)
        diag_items(&e, view->diagnoses, flow);
    flow_items(&e, view, flow, hs);
    ecn_items(&e, view, flow, hs);
    options_items(&e, view, flow, hs);
    if (!view->complete)
        return;
    direction_items(&e, view, flow);
    host_items(&e, view, flow);
}

void td_exchange_fields(const td_exchange *ex, const td_field_sink *sink)
{
    emitter e = { sink, NULL };

    open_group(&e, TD_GROUP_EXCHANGE, -1, "Exchange %u", ex->index);
    unum(&e, TD_F_EXCHANGE_INDEX, ex->index);
    unum(&e, TD_F_EXCHANGE_FRAME, ex->first_frame);
    unum(&e, TD_F_EXCHANGE_BYTES_C2S, ex->bytes[TD_EXCHANGE_C2S]);
    unum(&e, TD_F_EXCHANGE_BYTES_S2C, ex->bytes[TD_EXCHANGE_S2C]);
    time_ns(&e, TD_F_EXCHANGE_ACTIVE, ex->active_ns);
    time_ns(&e, TD_F_EXCHANGE_CLIENT_TIME, ex->client_ns);
    time_ns(&e, TD_F_EXCHANGE_SERVER_TIME, ex->server_ns);
    time_ns(&e, TD_F_EXCHANGE_TRANSFER, ex->transfer_ns);
    time_ns(&e, TD_F_EXCHANGE_STALL, ex->stall_ns);
    time_ns(&e, TD_F_EXCHANGE_THINK, ex->think_ns);
}

void td_flow_fields_key_of(const td_flow_view *view, const td_flow *flow, td_flow_fields_key *key)
{
    td_handshake scratch;
    const td_handshake *hs;

    memset(key, 0, sizeof *key);    /* padding included: keys are compared whole */
    key->flow = flow;
    key->complete = view->complete;
    key->first_packet = view->frame == flow->first_frame;
    if (view->complete)
        return;
    hs = td_flow_hs(flow, &scratch);
    key->handshake_frames[0] = hs->first_syn_frame;
    key->handshake_frames[1] = hs->last_syn_frame;
    key->handshake_frames[2] = hs->synack_frame;
    key->handshake_frames[3] = hs->ack_frame;
    key->ecn_decided_frame = flow->ecn_decided_frame;
    key->ecn_outcome = flow->ecn_outcome;
    key->roles_known = td_flow_roles_known(flow);
}
