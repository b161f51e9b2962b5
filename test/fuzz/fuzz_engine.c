/* libFuzzer target for the core: arbitrary bytes become a packet sequence.
 * Streams and addresses come from few bits so that flows collide and every
 * handshake path (retries, new ISNs, foreign addresses) is reached. */
#include <stdint.h>
#include <string.h>
#include "addr.h"
#include "advice.h"
#include "options.h"
#include "segment.h"
#include "settle.h"
#include "text.h"

enum { RECORD_BYTES = 16 };

static void decode(const uint8_t *b, uint32_t frame, td_record *rec)
{
    memset(rec, 0, sizeof *rec);
    rec->frame = frame;
    rec->time_ns = (int64_t)(b[0] | (b[1] << 8)) * 1000 * (b[2] & 0x80 ? -1 : 1);
    rec->stream = b[2] & 7;
    rec->src.len = rec->dst.len = (b[3] & 1) ? 16 : 4;
    rec->src.bytes[0] = b[3] >> 6;
    rec->dst.bytes[0] = (b[3] >> 4) & 3;
    rec->sport = b[4] & 3;
    rec->dport = (b[4] >> 2) & 3;
    rec->tcp_flags = (uint16_t)((b[5] | (b[6] << 8)) & 0x1ff);
    rec->has_ip_ecn = b[6] & 0x80;
    rec->ip_ecn = (b[6] >> 4) & 3;
    /* small sequence numbers around the 2^32 wrap, so ACKs and data overlap */
    rec->seq = (uint32_t)(b[7] & 0x3f) * 700 - 2000;
    rec->ack = (uint32_t)b[8] * 700 - 2000;
    rec->has_window = b[13] & 1;
    rec->window = (uint16_t)(b[13] << 4);
    rec->payload_len = (uint32_t)(b[9] | (b[10] << 8)) * (b[11] & 1);
    rec->ip_len_zero = b[11] & 2;
    td_options_parse(b + 12, 4, 4 + (b[11] & 4), &rec->options);     /* cut or whole */
}

static void check_stalls(const td_engine *engine, const td_config *cfg)
{
    const td_stalls *stalls = td_engine_stalls(engine);

    for (guint i = 0; i < td_stalls_count(stalls); i++) {
        const td_stall *s = td_stalls_at(stalls, i);
        if (s->flows_hit < MAX(cfg->stall.min_flows, 1) || s->end_ns - s->start_ns < (int64_t)cfg->stall.min_ms * 1000000)
            __builtin_trap();
    }
    for (guint i = 0; i < td_engine_flow_count(engine); i++) {
        const td_stall_hit *hit = td_stalls_hit(stalls, i);
        if (hit && (hit->stall >= td_stalls_count(stalls) || hit->wait_end_ns < hit->wait_start_ns))
            __builtin_trap();
    }
    td_stalls_dropped(stalls);
}

/* Host summaries add up: no client counts more requests or negotiations than
 * connections, no sender more flows than the engine has, every flow's summary is
 * its own host's. */
static void check_hosts(const td_engine *engine, const td_hosts *hosts)
{
    for (guint i = 0; i < td_hosts_client_count(hosts); i++) {
        const td_client_summary *c = td_hosts_client_at(hosts, i);
        if (c->ecn_requested > c->conns || c->ecn_negotiated > c->conns || c->opts_missing > c->opts_known ||
            c->opts_known > c->conns || (c->ecn_slower && c->ecn_slowdown <= 0))
            __builtin_trap();
    }
    for (guint i = 0; i < td_hosts_sender_count(hosts); i++) {
        const td_sender_summary *s = td_hosts_sender_at(hosts, i);
        if (s->offloaded_flows + s->capped_flows > td_engine_flow_count(engine))
            __builtin_trap();
    }
    const td_flow *flow;
    for (guint i = 0; (flow = td_engine_next_flow(engine, &i)); i++) {
        const td_client_summary *c = td_hosts_client_of(hosts, flow);
        if (c && !td_addr_equal(&c->addr, &flow->addr[flow->client]))
            __builtin_trap();
        if (td_hosts_offload_unused(hosts, flow) && !td_hosts_sender_of(hosts, flow))
            __builtin_trap();
    }
}

/* Every flow gets one cause in range, a summary that fits a label, and a fix
 * exactly when there is a cause to fix; the report covers them all. */
static void check_diagnosis(const td_engine *engine, bool released_any)
{
    td_hosts_config hosts_cfg;
    td_hosts_config_defaults(&hosts_cfg);
    td_hosts *hosts = td_hosts_build(engine, &hosts_cfg);
    td_diagnoses *d = td_diagnose(engine, hosts);
    GString *report = g_string_new(NULL);
    char summary[4 * TD_SUMMARY_MAX], text[256];

    const td_flow *flow;
    for (guint i = 0; (flow = td_engine_next_flow(engine, &i)); i++) {
        const td_diagnosis *diag = td_diagnosis_of(d, flow);
        bool fixable = diag->cause != TD_CAUSE_NONE && diag->cause != TD_CAUSE_UNKNOWN;
        if (diag->cause >= TD_CAUSE_COUNT || diag->reference > TD_REF_EMPTY_PATH)   /* the last reference */
            __builtin_trap();
        td_advice_summary(d, flow, summary, sizeof summary);
        if (strlen(summary) > TD_SUMMARY_MAX)
            __builtin_trap();
        if ((td_advice_fix(d, flow) != NULL) != fixable || (td_advice_confirm(d, flow) != NULL) != fixable)
            __builtin_trap();
        td_causes_list(diag->causes, text, sizeof text);
        td_advice_cost(diag, NULL, text, sizeof text);
        /* the time budget's parts add up to the flow's duration, none negative, and no
         * flow loses more time than it was active */
        const td_time_budget *budget = td_flow_time_budget(flow);
        int64_t sum = 0;
        for (int p = 0; p < TD_TIME_PARTS; p++) {
            if (td_time_budget_part(budget, (td_time_part)p) < 0)
                __builtin_trap();
            sum += td_time_budget_part(budget, (td_time_part)p);
        }
        if (sum != flow->last_ns - flow->first_ns || diag->lost_ns > td_time_budget_active(budget))
            __builtin_trap();
    }
    /* the flows waiting through a stall never outnumber the flows open when it ended
     * (counted among the flows kept: with flows released, only the stall's own time
     * had them all) */
    for (guint i = 0; !released_any && i < td_stalls_count(td_engine_stalls(engine)); i++)
        if (td_diagnoses_stall_active(d, i) < td_stalls_at(td_engine_stalls(engine), i)->flows_hit)
            __builtin_trap();
    check_hosts(engine, hosts);
    td_text_diagnosis(d, hosts, report);
    td_hosts_free(hosts);
    g_string_free(report, TRUE);
    td_diagnoses_free(d);
}

/* A flow settled before the end (settle.c): final, with a diagnosis in range. */
static void check_settled(const td_diagnoses *d, const td_hosts *hosts, const td_flow *flow, void *ctx)
{
    const td_diagnosis *diag = td_diagnosis_of(d, flow);
    (void)hosts;
    (void)ctx;
    if (!flow->settled || !diag || diag->cause >= TD_CAUSE_COUNT)
        __builtin_trap();
}

static void released(const td_flow *flow, void *ctx)
{
    (void)ctx;
    if (!flow->settled)
        __builtin_trap();       /* only a flow whose verdict was given goes */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    td_tcp_options parsed;
    td_options_parse(data, size > 60 ? 60 : size, 40, &parsed);    /* raw option bytes too */
    td_config cfg;
    td_record rec;
    char text[64];
    int sender;

    td_config_defaults(&cfg);
    cfg.vantage_dominance_pct = size ? data[0] % 101 : 80;
    cfg.flight.plateau_min_rounds = size > 1 ? data[1] % 16 : 10;
    cfg.flight.plateau_band_pct = size > 2 ? data[2] % 101 : 5;
    /* decode() makes times of at most 65 ms: thresholds of a few ms make stalls reachable */
    cfg.stall.min_ms = size > 3 ? data[3] % 16 : 2;
    cfg.stall.min_flows = size > 4 ? data[4] % 4 : 2;
    /* Flows settling while packets come (settle.c): decode()'s milliseconds become
     * seconds so that windows and idle timeouts of 0 to 2 s are reached, and with
     * release the flows past the history are freed, as the command's records do. */
    bool settling = size > 5 && (data[5] & 1);
    cfg.settle.window_s = size > 5 ? (unsigned)(data[5] >> 1) % 3 : 120;
    cfg.settle.idle_s = size > 6 ? data[6] % 3u : 300;
    td_hosts_config hosts_cfg;
    td_hosts_config_defaults(&hosts_cfg);
    td_engine *engine = td_engine_new(&cfg);
    td_settler *settler = td_settler_new(engine, &hosts_cfg, check_settled, NULL);
    if (settling && size > 6 && (data[6] & 4))
        td_settler_release(settler, released, NULL);
    for (size_t at = 0, frame = 1; at + RECORD_BYTES <= size; at += RECORD_BYTES, frame++) {
        decode(data + at, (uint32_t)frame, &rec);
        if (settling)
            rec.time_ns *= 1000;
        if (data[at + 14] & 1)
            td_engine_add_quoted(engine, &rec);
        else {
            td_engine_add(engine, &rec, &sender);
            td_settler_clock(settler, rec.time_ns);
        }
    }
    td_hosts *settled_hosts;
    td_diagnoses *settled;
    td_settler_finish(settler, &settled_hosts, &settled);
    const td_flow *flow;
    guint kept = 0;
    for (guint i = 0; (flow = td_engine_next_flow(engine, &i)); i++, kept++)
        if (!td_diagnosis_of(settled, flow))
            __builtin_trap();           /* every flow kept has its verdict */
    td_diagnoses_free(settled);
    td_hosts_free(settled_hosts);
    td_settler_free(settler);
    check_stalls(engine, &cfg);
    check_diagnosis(engine, td_engine_flow_count(engine) > kept);
    for (guint i = 0; (flow = td_engine_next_flow(engine, &i)); i++) {
        int64_t a, b;
        td_flow_vantage(flow, &cfg);
        td_flow_handshake_halves(flow, &a, &b);
        td_flow_data_sender(flow);
        td_ecn_outcome_name(flow->ecn_outcome);
        td_ecn_data_use_name(td_flow_ecn_data_use(flow, 0));
        td_ecn_data_use_name(td_flow_ecn_data_use(flow, 1));
        td_addr_format(&flow->addr[0], text, sizeof text);
        td_options_audit audit;
        td_options_audit_flow(flow, &audit);
        td_options_list(audit.left_out_by_client, text, sizeof text);
        if (flow->ecn_outcome == TD_ECN_PENDING)
            __builtin_trap();           /* finish() must settle every flow */
        for (int sender = 0; sender < 2; sender++) {
            const td_flight *f = td_flow_flight(flow, sender);
            const char *why;
            if (!f)
                continue;
            if (f->ring_len || td_flight_limit(f, &why) >= TD_LIMIT_COUNT)
                __builtin_trap();       /* finish() delivers every ACK */
            td_flight_share(f, TD_LIMIT_SENDER);
            td_offload_verdict_name(f->seg.result.verdict);
            td_reaction_name(f->cc.reaction);
            if (f->seg.nruns > TD_CAP_STACK || f->cc.nevents > TD_CC_MAX_EVENTS)
                __builtin_trap();
            td_flight_throughput(f);
            if (td_flight_plateau(f))
                td_plateau_ceiling(td_flight_plateau(f));
        }
    }
    td_engine_free(engine);
    return 0;
}
