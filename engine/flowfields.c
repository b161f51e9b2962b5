/* The per-flow fields in the plugin's order and under its conditions: a field is
 * emitted exactly when the plugin's glue files add it to a two-pass tree (complete). */
#include "flowfields.h"

#include "advice.h"
#include "ccid.h"
#include "options.h"

typedef struct sink {
    td_field_fn fn;
    void *ctx;
    const char *dir;
} sink;

static void emit(const sink *s, const char *name, td_field_kind kind, const char *str, uint64_t u, double d,
                 int64_t ns)
{
    td_field field = { name, kind, str, u, d, ns };
    s->fn(&field, s->dir, s->ctx);
}

static void str(const sink *s, const char *name, const char *value)
{
    emit(s, name, TD_FIELD_STRING, value, 0, 0, 0);
}

static void unum(const sink *s, const char *name, uint64_t value)
{
    emit(s, name, TD_FIELD_UINT, NULL, value, 0, 0);
}

static void dbl(const sink *s, const char *name, double value)
{
    emit(s, name, TD_FIELD_DOUBLE, NULL, 0, value, 0);
}

static void time_ns(const sink *s, const char *name, int64_t ns)
{
    emit(s, name, TD_FIELD_TIME, NULL, 0, 0, ns);
}

static void address(const sink *s, const char *name, const td_addr *addr)
{
    char text[64];
    td_addr_format(addr, text, sizeof text);
    str(s, name, text);
}

const char *td_flow_fields_dir(const td_flow *flow, int sender)
{
    const char *name = td_flow_dir_name(flow, sender);
    return name ? name : sender == 0 ? "fwd" : "rev";
}

static void flow_items(const sink *s, const td_engine *engine, const td_flow *flow, const td_handshake *hs)
{
    static const char *const bytes[2] = { "tcpdiag.flow.c2s.bytes", "tcpdiag.flow.s2c.bytes" };
    int64_t to_server, to_client;

    str(s, "tcpdiag.flow.roles", td_flow_roles_known(flow) ? "known" : "unknown");
    if (td_flow_roles_known(flow)) {
        int server = td_flow_server(flow);
        address(s, "tcpdiag.flow.client", &flow->addr[flow->client]);
        unum(s, "tcpdiag.flow.client_port", flow->port[flow->client]);
        address(s, "tcpdiag.flow.server", &flow->addr[server]);
        unum(s, "tcpdiag.flow.server_port", flow->port[server]);
        if (hs->opts[flow->client].present & TD_OPT_MSS)
            unum(s, "tcpdiag.flow.client_mss", hs->opts[flow->client].mss);
        if (hs->opts[server].present & TD_OPT_MSS)
            unum(s, "tcpdiag.flow.server_mss", hs->opts[server].mss);
    }
    if (td_flow_handshake_halves(flow, &to_server, &to_client)) {
        time_ns(s, "tcpdiag.flow.syn_to_synack", to_server);
        time_ns(s, "tcpdiag.flow.synack_to_ack", to_client);
        time_ns(s, "tcpdiag.flow.irtt", to_server + to_client);
    }
    str(s, "tcpdiag.flow.vantage", td_vantage_name(td_flow_vantage(flow, td_engine_config(engine))));
    str(s, "tcpdiag.flow.data_sender", td_flow_data_sender(flow));
    time_ns(s, "tcpdiag.flow.duration", flow->last_ns - flow->first_ns);
    unum(s, "tcpdiag.flow.packets", flow->packets);
    if (td_flow_icmp_quotes(flow))
        unum(s, "tcpdiag.flow.icmp_quotes", td_flow_icmp_quotes(flow));
    if (td_flow_sizes_from_ip(flow))
        unum(s, "tcpdiag.flow.sizes_from_ip", td_flow_sizes_from_ip(flow));
    for (int dir = 0; dir < 2 && td_flow_roles_known(flow); dir++)
        unum(s, bytes[dir], td_flow_sent(flow, td_flow_sender_at(flow, dir))->payload_bytes);
}

static void ecn_items(const sink *s, const td_flow *flow, const td_handshake *hs)
{
    static const char *const counts[2][4] = {
        { "tcpdiag.ecn.c2s.not_ect", "tcpdiag.ecn.c2s.ect1", "tcpdiag.ecn.c2s.ect0", "tcpdiag.ecn.c2s.ce" },
        { "tcpdiag.ecn.s2c.not_ect", "tcpdiag.ecn.s2c.ect1", "tcpdiag.ecn.s2c.ect0", "tcpdiag.ecn.s2c.ce" },
    };
    static const char *const data[2] = { "tcpdiag.ecn.c2s.data", "tcpdiag.ecn.s2c.data" };

    if (flow->ecn_outcome != TD_ECN_PENDING) {
        str(s, "tcpdiag.ecn.outcome", td_ecn_outcome_name((td_ecn_outcome)flow->ecn_outcome));
        if (flow->ecn_reason)
            str(s, "tcpdiag.ecn.reason", flow->ecn_reason);
        if (flow->ecn_outcome == TD_ECN_ACCECN)
            str(s, "tcpdiag.ecn.accecn_feedback", td_ip_ecn_name((td_ip_ecn)flow->accecn_feedback));
    }
    if (hs->syn_ip_ecn >= 0)
        str(s, "tcpdiag.ecn.syn_ip_ecn", td_ip_ecn_name((td_ip_ecn)hs->syn_ip_ecn));
    if (hs->synack_ip_ecn >= 0)
        str(s, "tcpdiag.ecn.synack_ip_ecn", td_ip_ecn_name((td_ip_ecn)hs->synack_ip_ecn));
    if (!td_flow_roles_known(flow))
        return;
    for (int dir = 0; dir < 2; dir++) {
        int sender = td_flow_sender_at(flow, dir);
        for (int cp = TD_NOT_ECT; cp <= TD_CE; cp++)
            unum(s, counts[dir][cp], td_flow_sent(flow, sender)->ecn_count[cp]);
        str(s, data[dir], td_ecn_data_use_name(td_flow_ecn_data_use(flow, sender)));
    }
}

static void options_items(const sink *s, const td_flow *flow, const td_handshake *hs)
{
    static const char *const announced[2] = { "tcpdiag.opts.client", "tcpdiag.opts.server" };
    static const char *const unreadable[2] = { "tcpdiag.opts.client_unreadable", "tcpdiag.opts.server_unreadable" };
    static const char *const wscale[2] = { "tcpdiag.opts.client_wscale", "tcpdiag.opts.server_wscale" };
    static const char *const used[3] = { "tcpdiag.opts.wscale_used", "tcpdiag.opts.sack_used", "tcpdiag.opts.ts_used" };
    td_options_audit audit;
    char text[64];

    if (!td_flow_roles_known(flow))
        return;
    for (int dir = 0; dir < 2; dir++) {
        int sender = td_flow_sender_at(flow, dir);
        const td_syn_options *opts = &hs->opts[sender];
        char unread[64];
        if (!hs->opts_seen[sender])
            continue;
        td_syn_options_describe(opts, text, unread, sizeof text);
        if (text[0])
            str(s, announced[dir], text);
        if (unread[0])
            str(s, unreadable[dir], unread);
        if (opts->present & TD_OPT_WSCALE)
            unum(s, wscale[dir], opts->wscale);
    }
    td_options_audit_flow(flow, &audit);
    if (audit.client_seen) {
        td_options_missing_list(audit.left_out_by_client, text, sizeof text);
        str(s, "tcpdiag.opts.left_out_by_client", text);
    }
    if (audit.server_seen) {
        td_options_missing_list(audit.left_out_by_server, text, sizeof text);
        str(s, "tcpdiag.opts.left_out_by_server", text);
    }
    for (int i = 0; i < 3; i++)
        str(s, used[i], td_tristate_name(audit.used[i]));
    if (audit.settled) {
        td_options_missing_list(audit.missing, text, sizeof text);
        str(s, "tcpdiag.opts.missing", text);
    }
    if (audit.window_ceiling)
        unum(s, "tcpdiag.opts.window_ceiling", audit.window_ceiling);
    if (audit.ceiling_throughput > 0)
        dbl(s, "tcpdiag.opts.ceiling_throughput", audit.ceiling_throughput);
    if (audit.at_ceiling != TD_UNKNOWN)
        str(s, "tcpdiag.opts.at_ceiling", td_tristate_name(audit.at_ceiling));
    for (int role = 0; role < 2; role++)
        if (audit.default_mss[role])
            unum(s, "tcpdiag.opts.default_mss", audit.default_mss[role]);
    const char *stripped = td_options_ts_stripped_name(&audit);
    if (stripped)
        str(s, "tcpdiag.opts.ts_stripped", stripped);
}

static bool is_finding(td_cause cause)
{
    return cause != TD_CAUSE_NONE && cause != TD_CAUSE_UNKNOWN;
}

static void stall_items(const sink *s, const td_diagnoses *d, const td_flow *flow)
{
    const td_stalls *stalls = td_engine_stalls(td_diagnoses_engine(d));
    const td_stall_hit *hit = td_stalls_hit(stalls, flow->index);
    const td_stall *stall;

    if (!hit)
        return;
    stall = td_stalls_at(stalls, hit->stall);
    address(s, "tcpdiag.host.stall", &stall->host);
    time_ns(s, "tcpdiag.host.stall_start", stall->start_ns);
    time_ns(s, "tcpdiag.host.stall_duration", stall->end_ns - stall->start_ns);
    unum(s, "tcpdiag.host.stall_flows_hit", stall->flows_hit);
    unum(s, "tcpdiag.host.stall_flows_active", td_diagnoses_stall_active(d, hit->stall));
    unum(s, "tcpdiag.host.stall_frame", stall->last_frame);
    time_ns(s, "tcpdiag.host.stall_waited", hit->wait_end_ns - hit->wait_start_ns);
}

static void diag_items(const sink *s, const td_diagnoses *d, const td_flow *flow)
{
    const td_diagnosis *diag = td_diagnosis_of(d, flow);
    char summary[TD_SUMMARY_MAX + 1], causes[256];
    const char *fix;

    if (!diag)
        return;
    td_advice_summary(d, flow, summary, sizeof summary);
    str(s, "tcpdiag.diag.cause", td_cause_name((td_cause)diag->cause));
    str(s, "tcpdiag.diag.summary", summary);
    fix = td_advice_fix(d, flow);
    if (fix) {
        str(s, "tcpdiag.diag.fix", fix);
        str(s, "tcpdiag.diag.confirm", td_advice_confirm(d, flow));
    }
    td_causes_list(diag->causes, causes, sizeof causes);
    str(s, "tcpdiag.diag.causes", causes);
    if (is_finding((td_cause)diag->cause)) {
        str(s, "tcpdiag.diag.reference", td_reference_name((td_reference)diag->reference));
        if (diag->peers)
            unum(s, "tcpdiag.diag.peers", diag->peers);
        if (diag->slowdown > 0)
            dbl(s, "tcpdiag.diag.slowdown", diag->slowdown);
        if (diag->lost_ns >= 0)
            time_ns(s, "tcpdiag.diag.lost", diag->lost_ns);
        if (diag->evidence_frame)
            unum(s, "tcpdiag.diag.frame", diag->evidence_frame);
    }
    if (diag->reason)
        str(s, "tcpdiag.diag.reason", diag->reason);
    stall_items(s, d, flow);
}

static void plateau_items(const sink *s, const td_flight *f, const td_plateau *p)
{
    unum(s, "tcpdiag.flight.plateau", p->high);
    if (f->mss)
        dbl(s, "tcpdiag.flight.plateau_mss", (double)p->high / f->mss);
    unum(s, "tcpdiag.flight.plateau_rounds", p->rounds);
    dbl(s, "tcpdiag.flight.plateau_share", 100.0 * (double)p->ns / (double)td_flight_measured_ns(f));
    unum(s, "tcpdiag.flight.plateau_start", p->start_frame);
    str(s, "tcpdiag.flight.plateau_onset", td_onset_name(p->onset));
    str(s, "tcpdiag.flight.plateau_limit", td_limit_name(p->limit));
    time_ns(s, "tcpdiag.flight.plateau_round_time", p->ns / p->rounds);
    if (p->min_window != UINT32_MAX && p->min_window >= p->high)
        unum(s, "tcpdiag.flight.headroom", p->min_window - p->high);
    dbl(s, "tcpdiag.flight.ceiling", td_plateau_ceiling(p));
}

static void flight_items(const sink *s, const td_flow *flow, const td_flight *f, int sender)
{
    static const char *const shares[TD_LIMIT_COUNT] = {
        [TD_LIMIT_RWND] = "tcpdiag.flight.rwnd_share", [TD_LIMIT_CWND] = "tcpdiag.flight.cwnd_share",
        [TD_LIMIT_SENDER] = "tcpdiag.flight.sender_share", [TD_LIMIT_APP] = "tcpdiag.flight.app_share",
    };
    const char *dir = td_flow_dir_name(flow, sender);
    const char *why;
    td_limit limit = td_flight_limit(f, &why);

    if (dir)
        str(s, "tcpdiag.flight.dir", dir);
    str(s, "tcpdiag.flight.limit", td_limit_name(limit));
    if (why)
        str(s, "tcpdiag.flight.reason", why);
    if (f->unknown_reason)
        return;
    str(s, "tcpdiag.flight.seen_from", td_seen_from_name(f->ctx.seen_from));
    time_ns(s, "tcpdiag.flight.ack_lag", f->lag_ns);
    if (f->mss)
        unum(s, "tcpdiag.flight.mss", f->mss);
    unum(s, "tcpdiag.flight.rounds", f->rounds);
    unum(s, "tcpdiag.flight.max", f->max_flight);
    if (f->ctx.rcv_wscale >= 0)
        unum(s, "tcpdiag.flight.rwnd", f->max_window);
    unum(s, "tcpdiag.flight.retransmissions", f->retransmissions);
    if (td_flight_measured_ns(f) <= 0)
        return;
    for (int i = TD_LIMIT_RWND; i < TD_LIMIT_COUNT; i++)
        dbl(s, shares[i], td_flight_share(f, (td_limit)i));
    dbl(s, "tcpdiag.flight.throughput", td_flight_throughput(f));
    if (td_flight_plateau(f))
        plateau_items(s, f, td_flight_plateau(f));
}

static void cc_items(const sink *s, const td_flow *flow, const td_flight *f, int sender,
                     const td_flight_config *cfg)
{
    static const char *const feedback_names[] = { "none", "classic", "accecn" };
    const td_cc *cc = &f->cc;
    const char *dir = td_flow_dir_name(flow, sender);
    const char *unobserved, *why;
    td_cc_algorithm algorithm;

    if (dir)
        str(s, "tcpdiag.cc.dir", dir);
    str(s, "tcpdiag.cc.reaction", td_reaction_name(f->unknown_reason ? TD_REACTION_UNKNOWN : cc->reaction));
    if (f->unknown_reason)
        return;
    str(s, "tcpdiag.cc.feedback", feedback_names[cc->feedback]);
    unum(s, "tcpdiag.cc.ce", cc->ce);
    unum(s, "tcpdiag.cc.ece_episodes", cc->ece_episodes);
    unum(s, "tcpdiag.cc.cwr", cc->cwr);
    unum(s, "tcpdiag.cc.ace_marks", cc->ace_marks);
    unum(s, "tcpdiag.cc.losses", cc->losses);
    unum(s, "tcpdiag.cc.reductions", cc->reductions);
    if (cc->ecn_ratio >= 0)
        dbl(s, "tcpdiag.cc.ecn_ratio", cc->ecn_ratio);
    if (cc->loss_ratio >= 0)
        dbl(s, "tcpdiag.cc.loss_ratio", cc->loss_ratio);
    str(s, "tcpdiag.cc.collapse", td_cc_collapsed(cc, cfg) ? "yes" : "no");
    if (td_cc_collapsed(cc, cfg)) {
        unum(s, "tcpdiag.cc.collapse_floor", cc->collapse_floor);
        if (f->mss)
            dbl(s, "tcpdiag.cc.collapse_floor_mss", (double)cc->collapse_floor / f->mss);
        unum(s, "tcpdiag.cc.collapse_rounds", cc->collapse_rounds);
        time_ns(s, "tcpdiag.cc.collapse_time", cc->collapse_ns);
    }
    unobserved = td_cc_unobserved(&f->dir, &f->cc);
    if (unobserved)
        str(s, "tcpdiag.cc.unobserved", unobserved);
    algorithm = td_cc_identify(f, &why);
    if (cc->reaction == TD_REACTION_LOSS_LIKE || cc->reaction == TD_REACTION_NONE) {
        dbl(s, "tcpdiag.cc.cut_share", cc->cut_share);
        if (cc->control_share >= 0)
            dbl(s, "tcpdiag.cc.control_share", cc->control_share);
        str(s, "tcpdiag.cc.confidence", td_cc_confidence(cc, f->mss));
    }
    str(s, "tcpdiag.cc.algorithm", td_cc_algorithm_name(algorithm));
    str(s, "tcpdiag.cc.algorithm_why", why);
}

static void offload_items(const sink *s, const td_flow *flow, const td_flight *f, int sender)
{
    const td_offload_result *r = &f->seg.result;
    const char *dir = td_flow_dir_name(flow, sender);

    if (dir)
        str(s, "tcpdiag.offload.dir", dir);
    str(s, "tcpdiag.offload.verdict", td_offload_verdict_name(r->verdict));
    if (r->reason)
        str(s, "tcpdiag.offload.reason", r->reason);
    if (f->mss) {
        unum(s, "tcpdiag.offload.mss", f->mss);
        str(s, "tcpdiag.offload.mss_source", td_offload_mss_source(&f->dir));
    }
    unum(s, "tcpdiag.offload.segments", f->seg.segments);
    unum(s, "tcpdiag.offload.max", f->seg.max_payload);
    unum(s, "tcpdiag.offload.median", r->median);
    unum(s, "tcpdiag.offload.p95", r->p95);
    unum(s, "tcpdiag.offload.super_packets", f->seg.super_packets);
    dbl(s, "tcpdiag.offload.super_share", r->super_share);
    unum(s, "tcpdiag.offload.ip_len_zero", f->seg.ip_len_zero);
    if (r->verdict == TD_OFFLOAD_CAPPED) {
        unum(s, "tcpdiag.offload.cap", r->cap);
        if (f->mss)
            dbl(s, "tcpdiag.offload.cap_mss", (double)r->cap / f->mss);
        unum(s, "tcpdiag.offload.cap_start", r->cap_start_frame);
    }
    if (r->verdict == TD_OFFLOAD_CAPPED || r->verdict == TD_OFFLOAD_MSS_CAPPED)
        str(s, "tcpdiag.offload.cap_cause", td_cap_cause_name(r->cap_cause));
}

static void client_items(const sink *s, const td_client_summary *c)
{
    char share[96];

    unum(s, "tcpdiag.host.conns", c->conns);
    unum(s, "tcpdiag.host.ecn_requested", c->ecn_requested);
    unum(s, "tcpdiag.host.ecn_negotiated", c->ecn_negotiated);
    g_snprintf(share, sizeof share, "%u of %u requested ECN", c->ecn_requested, c->conns);
    str(s, "tcpdiag.host.ecn_share", share);
    if (c->ecn_median_duration_s >= 0)
        dbl(s, "tcpdiag.host.ecn_median_duration", c->ecn_median_duration_s);
    if (c->other_median_duration_s >= 0)
        dbl(s, "tcpdiag.host.other_median_duration", c->other_median_duration_s);
    if (c->ecn_median_rate >= 0)
        dbl(s, "tcpdiag.host.ecn_median_throughput", c->ecn_median_rate);
    if (c->other_median_rate >= 0)
        dbl(s, "tcpdiag.host.other_median_throughput", c->other_median_rate);
    if (c->ecn_slowdown > 0)
        dbl(s, "tcpdiag.host.ecn_slowdown", c->ecn_slowdown);
    unum(s, "tcpdiag.host.opts_missing_conns", c->opts_missing);
    g_snprintf(share, sizeof share, "%u of %u connections sent SYNs without wscale, sack or ts", c->opts_missing,
               c->opts_known);
    str(s, "tcpdiag.host.opts_share", share);
}

static void sender_items(const sink *s, const td_sender_summary *snd)
{
    char common[64];

    str(s, "tcpdiag.sender.offload", td_sender_offload_name((td_sender_offload)snd->offload));
    unum(s, "tcpdiag.sender.offloaded_flows", snd->offloaded_flows);
    unum(s, "tcpdiag.sender.capped_flows", snd->capped_flows);
    if (snd->offload == TD_SENDER_OFFLOAD_MIXED) {
        td_common_traits(snd->common, common, sizeof common);
        str(s, "tcpdiag.sender.capped_common", common);
    }
    if (snd->capped_median_rate >= 0)
        dbl(s, "tcpdiag.sender.capped_median_throughput", snd->capped_median_rate);
    if (snd->offloaded_median_rate >= 0)
        dbl(s, "tcpdiag.sender.offloaded_median_throughput", snd->offloaded_median_rate);
}

/* The plugin shows them on a flow's first packet, for flows with known roles; a
 * sender whose offload is unknown says nothing. */
static void host_items(const sink *s, const td_hosts *hosts, const td_flow *flow)
{
    const td_client_summary *client;
    const td_sender_summary *sender;

    if (!td_flow_roles_known(flow))
        return;
    if ((client = td_hosts_client_of(hosts, flow)) != NULL)
        client_items(s, client);
    sender = td_hosts_sender_of(hosts, flow);
    if (sender && sender->offload != TD_SENDER_OFFLOAD_UNKNOWN)
        sender_items(s, sender);
}

void td_flow_fields(const td_diagnoses *d, const td_hosts *hosts, const td_flow *flow, td_field_fn fn, void *ctx)
{
    const td_engine *engine = td_diagnoses_engine(d);
    sink s = { fn, ctx, NULL };
    td_handshake scratch;
    const td_handshake *hs = td_flow_hs(flow, &scratch);

    diag_items(&s, d, flow);
    flow_items(&s, engine, flow, hs);
    ecn_items(&s, flow, hs);
    options_items(&s, flow, hs);
    for (int i = 0; i < 2; i++) {
        int sender = td_flow_sender_at(flow, i);
        const td_flight *f = td_flow_flight(flow, sender);
        if (!f)
            continue;
        s.dir = td_flow_fields_dir(flow, sender);
        flight_items(&s, flow, f, sender);
        cc_items(&s, flow, f, sender, &td_engine_config(engine)->flight);
        offload_items(&s, flow, f, sender);
    }
    s.dir = NULL;
    host_items(&s, hosts, flow);
}
