/* The flow table and each record's dispatch: flows by tcp.stream (lone SYNs kept
 * small, and held in a ring beyond max_flows), each record handed once to every
 * analysis in a fixed order, and the queries on a flow. */
#include "flow.h"

#include <string.h>

#include "ecn_outcome.h"
#include "flight_context.h"
#include "pair_senders.h"
#include "series.h"

/* Flows live in slabs of SLAB_FLOWS, in first-appearance order: no allocation
 * header per flow, no pointer array, stable addresses. */
enum { SLAB_SHIFT = 12, SLAB_FLOWS = 1 << SLAB_SHIFT };
/* Beyond cfg->max_flows, a new flow that is one SYN is held in a ring of
 * HELD_SYNS, as a kernel's SYN cache holds half-open connections under a flood:
 * it is kept if its next packet comes before HELD_SYNS newer lone SYNs push it
 * out, and otherwise only counted. Flows that start otherwise are always kept. */
enum { HELD_SYNS = 1 << 16 };

struct td_engine {
    const td_config *cfg;
    td_series_book *history;    /* the report's (td_engine_keep_history), NULL none */
    td_exchange_fn on_exchange; /* td_engine_on_exchange's, NULL none */
    void       *exchange_ctx;
    GPtrArray  *slabs;          /* td_flow[SLAB_FLOWS] each */
    guint       nflows;
    /* Wireshark numbers streams in first-appearance order, so stream k is almost
     * always flow k: only the flows for which that does not hold are hashed. */
    GHashTable *misplaced;      /* stream → td_flow* */
    td_flow    *held;           /* ring of HELD_SYNS, from the limit on; packets == 0: free */
    GHashTable *held_by_stream; /* stream → slot + 1 */
    guint       held_next;
    uint64_t    not_kept;       /* lone SYNs beyond the limit that no packet followed in time */
    uint64_t    late;           /* packets for a flow after it settled */
    GArray     *slab_released;  /* guint16 per slab: its flows released (td_engine_forget) */
    td_stalls  *stalls;
    td_pair_senders *pair_senders;  /* the flows that sent data on each pair of addresses */
    bool finished;
};

void td_config_defaults(td_config *cfg)
{
    cfg->vantage_dominance_pct = 80;
    cfg->vantage_min_delay_us = 1000;
    cfg->vantage_override = TD_VANTAGE_UNKNOWN;
    cfg->max_flows = 2000000;
    td_flight_config_defaults(&cfg->flight);
    td_stall_config_defaults(&cfg->stall);
    td_budget_config_defaults(&cfg->budget);
    td_nagle_config_defaults(&cfg->nagle);
    /* Longer than every capture in the repository (the longest is 86 s), whose verdicts
     * are therefore the whole file's; short enough that a live capture's records come
     * within minutes of their flows' end. */
    cfg->settle.window_s = 120;
    /* Zeek's TCP inactivity timeout: a connection silent this long is over for it too. */
    cfg->settle.idle_s = 300;
}

/* NULL once its whole slab has been released. */
static td_flow *flow_at(const td_engine *engine, guint index)
{
    td_flow *slab = g_ptr_array_index(engine->slabs, index >> SLAB_SHIFT);
    return slab ? &slab[index & (SLAB_FLOWS - 1)] : NULL;
}

/* A flow of the table that has not been released, NULL otherwise. */
static td_flow *kept_at(const td_engine *engine, guint index)
{
    td_flow *flow = index < engine->nflows ? flow_at(engine, index) : NULL;
    return flow && !flow->released ? flow : NULL;
}

td_engine *td_engine_new(const td_config *cfg)
{
    td_engine *engine = g_new0(td_engine, 1);
    engine->cfg = cfg;
    engine->slabs = g_ptr_array_new_with_free_func(g_free);
    engine->misplaced = g_hash_table_new(g_direct_hash, g_direct_equal);
    engine->stalls = td_stalls_new(&cfg->stall);
    engine->pair_senders = td_pair_senders_new();
    engine->slab_released = g_array_new(FALSE, TRUE, sizeof(guint16));
    return engine;
}

/* A flow's analyses (NULL: a flow whose slab is gone). */
static void free_more(td_flow *flow)
{
    if (!flow || !flow->more)
        return;
    td_flight_free(flow->more->flight[0]);
    td_flight_free(flow->more->flight[1]);
    g_clear_pointer(&flow->more, g_free);
}

void td_engine_free(td_engine *engine)
{
    if (!engine)
        return;
    for (guint i = 0; i < engine->nflows; i++)
        free_more(flow_at(engine, i));
    g_array_free(engine->slab_released, TRUE);
    g_hash_table_destroy(engine->misplaced);
    if (engine->held_by_stream)
        g_hash_table_destroy(engine->held_by_stream);
    g_free(engine->held);
    g_ptr_array_free(engine->slabs, TRUE);
    td_stalls_free(engine->stalls);
    td_pair_senders_free(engine->pair_senders);
    g_free(engine);
}

/* The flow of a stream; *released: the stream's flow was released (its slab too,
 * which only a stream numbered as its flow's index can tell: Wireshark's order). */
static td_flow *flow_of_stream(const td_engine *engine, uint32_t stream, bool *released)
{
    *released = false;
    if (stream < engine->nflows) {
        td_flow *flow = flow_at(engine, stream);
        if (!flow || (flow->released && flow->stream == stream)) {
            *released = true;
            return NULL;
        }
        if (flow->stream == stream)
            return flow;
    }
    return g_hash_table_lookup(engine->misplaced, GUINT_TO_POINTER(stream));
}

const td_config *td_engine_config(const td_engine *engine)
{
    return engine->cfg;
}

const td_stalls *td_engine_stalls(const td_engine *engine)
{
    return engine->stalls;
}

static bool same_endpoint(const td_addr *a, uint16_t a_port, const td_addr *b, uint16_t b_port)
{
    return a_port == b_port && td_addr_same(a, b);
}

static void flow_init(td_flow *flow, const td_engine *engine, const td_record *rec)
{
    memset(flow, 0, sizeof *flow);
    flow->stream = rec->stream;
    flow->addr[0] = rec->src;
    flow->port[0] = rec->sport;
    flow->addr[1] = rec->dst;
    flow->port[1] = rec->dport;
    flow->client = -1;
    flow->first_frame = rec->frame;
    flow->first_ns = rec->time_ns;
    flow->beyond_limit = engine->held != NULL;
}

/* A slot for the next flow kept, at index td_engine_flow_count(). */
static td_flow *flow_slot(td_engine *engine)
{
    if ((engine->nflows & (SLAB_FLOWS - 1)) == 0) {
        g_ptr_array_add(engine->slabs, g_new0(td_flow, SLAB_FLOWS));
        g_array_set_size(engine->slab_released, engine->slabs->len);
    }
    return flow_at(engine, engine->nflows);
}

static td_flow *flow_keep(td_engine *engine, td_flow *flow)
{
    flow->index = engine->nflows++;
    if (flow->index != flow->stream)
        g_hash_table_insert(engine->misplaced, GUINT_TO_POINTER(flow->stream), flow);
    return flow;
}

static td_flow *flow_new(td_engine *engine, const td_record *rec)
{
    td_flow *flow = flow_slot(engine);
    flow_init(flow, engine, rec);
    return flow_keep(engine, flow);
}

/* A flow's first packet is a SYN without payload: all it needs is kept in the
 * flow itself (a flood's million flows stay this small). */
static bool is_lone_syn(const td_record *rec)
{
    return (rec->tcp_flags & (TD_TH_SYN | TD_TH_ACK)) == TD_TH_SYN && !rec->payload_len && !rec->payload_from_ip;
}

static void keep_lone_syn(td_flow *flow, const td_record *rec, int sender)
{
    flow->client = (int8_t)sender;
    flow->syn.isn = rec->seq;
    flow->syn.flags = rec->tcp_flags;
    flow->syn.ip_ecn = td_record_ip_ecn(rec);
    flow->syn.opts = td_syn_options_of(&rec->options);
}

/* The handshake a lone SYN makes, as td_handshake_syn would have recorded it. */
static void lone_syn_handshake(const td_flow *flow, td_handshake *hs)
{
    memset(hs, 0, sizeof *hs);
    hs->first_syn_frame = hs->last_syn_frame = flow->first_frame;
    hs->first_syn_ns = hs->last_syn_ns = flow->first_ns;
    hs->first_syn_flags = hs->last_syn_flags = flow->syn.flags;
    hs->syn_isn = flow->syn.isn;
    hs->syn_ip_ecn = flow->syn.ip_ecn;
    hs->synack_ip_ecn = -1;
    hs->opts[flow->client] = flow->syn.opts;
    hs->opts_seen[flow->client] = true;
}

/* td_path_probe's for a flow's budget: the newest round that ended in the span, of
 * the latest flows that sent data from the endpoint's peer's address to its own. */
static int64_t loop_toward(const td_path_probe *probe, int endpoint, int64_t after_ns, int64_t by_ns)
{
    const td_engine *engine = probe->engine;
    const td_flow *flow = probe->flow;
    td_pair_sender senders[TD_PAIR_SENDERS_KEPT];
    unsigned n = td_pair_senders_get(engine->pair_senders, &flow->addr[1 - endpoint], &flow->addr[endpoint], senders);
    int64_t loop = 0, ended = after_ns;

    for (unsigned i = 0; i < n; i++) {
        const td_flow *other = senders[i].flow_index == flow->index ? NULL : kept_at(engine, senders[i].flow_index);
        const td_flight *f = other && other->more ? other->more->flight[senders[i].sender] : NULL;
        int64_t its = f ? td_flight_loop_ended(f, ended, by_ns) : 0;
        if (its) {
            loop = its;
            ended = f->bulk_loop_end_ns;
        }
    }
    return loop;
}

/* The flow's second packet (or a first one that is not a lone SYN): the rest of
 * its state, starting from what its lone SYN left. */
static td_flow_more *more_of(const td_engine *engine, td_flow *flow)
{
    td_flow_more *more = flow->more;

    if (more)
        return more;
    more = flow->more = g_new0(td_flow_more, 1);
    if (td_flow_roles_known(flow)) {
        lone_syn_handshake(flow, &more->hs);
        td_silence_after_lone_syn(more->silence, flow->client, flow->first_ns);
    } else {
        td_handshake_init(&more->hs);
        td_silence_init(more->silence);
    }
    td_time_budget_begin(&more->budget, flow->first_ns, td_flow_roles_known(flow), &engine->cfg->budget);
    more->budget.probe = (td_path_probe){ loop_toward, engine, flow };
    return more;
}

const td_handshake *td_flow_hs(const td_flow *flow, td_handshake *scratch)
{
    if (flow->more)
        return &flow->more->hs;
    if (td_flow_roles_known(flow)) {
        lone_syn_handshake(flow, scratch);
    } else {
        td_handshake_init(scratch);
    }
    return scratch;
}

const td_dir_stats *td_flow_sent(const td_flow *flow, int endpoint)
{
    static const td_dir_stats nothing;
    return flow->more ? &flow->more->sent[endpoint] : &nothing;
}

int64_t td_flow_syn_retry_ns(const td_flow *flow)
{
    return flow->more ? flow->more->hs.last_syn_ns - flow->more->hs.first_syn_ns : 0;
}

int64_t td_flow_handshake_rtt_ns(const td_flow *flow)
{
    int64_t to_server, to_client;

    return td_flow_handshake_halves(flow, &to_server, &to_client) ? to_server + to_client : 0;
}

uint32_t td_flow_icmp_quotes(const td_flow *flow)
{
    return flow->more ? flow->more->icmp_quotes : 0;
}

uint32_t td_flow_sizes_from_ip(const td_flow *flow)
{
    return flow->more ? flow->more->sizes_from_ip : 0;
}

const td_time_budget *td_flow_time_budget(const td_flow *flow)
{
    static const td_time_budget nothing;
    return flow->more ? &flow->more->budget : &nothing;
}

const td_nagle *td_flow_nagle(const td_flow *flow)
{
    return flow->more ? &flow->more->nagle : NULL;
}

const td_pmtu_run *td_flow_pmtu_blackhole(const td_flow *flow, int sender)
{
    return flow->more && sender >= 0 ? td_pmtu_blackhole(&flow->more->pmtu, sender) : NULL;
}

int64_t td_flow_blackhole_ns(const td_flow *flow, int sender)
{
    const td_pmtu_run *run = td_flow_pmtu_blackhole(flow, sender);
    int64_t to_sender;

    if (!run)
        return 0;
    to_sender = td_flow_roles_known(flow) ? td_handshake_round_trip_to(&flow->more->hs, sender, flow->client) : -1;
    return to_sender < 0 ? run->wait_ns : MAX(0, run->wait_ns - to_sender);
}

static void settle_ecn(td_flow *flow, const td_ecn_decision *d)
{
    flow->ecn_outcome = d->outcome;
    flow->ecn_decided_frame = d->frame;
    flow->ecn_reason = d->reason;
}

static void note_data(td_flow *flow, const td_record *rec, int sender)
{
    td_dir_stats *dir = &flow->more->sent[sender];

    dir->data_packets++;
    dir->payload_bytes += rec->payload_len;
    if (!dir->first_data_frame) {
        dir->first_data_frame = rec->frame;
        dir->first_data_ns = rec->time_ns;
    }
    if (rec->time_ns > dir->last_data_ns)
        dir->last_data_ns = rec->time_ns;
    if (!rec->has_ip_ecn)
        return;
    dir->ecn_count[rec->ip_ecn & 3]++;
    if ((rec->ip_ecn & 3) != TD_NOT_ECT && !dir->first_ect_frame)
        dir->first_ect_frame = rec->frame;
}

/* A keep-alive probe (RFC 1122 4.2.3.6): SEG.SEQ = SND.NXT - 1, no payload or one
 * garbage octet. Some stacks send theirs without options; it carries no data, so it
 * says nothing of a path that strips timestamps. */
static bool keepalive_probe(const td_flow *flow, const td_record *rec, int sender)
{
    const td_time_side *s = &flow->more->budget.side[sender];

    return rec->payload_len <= 1 && s->seq_known && rec->seq + 1 == s->hi && !(rec->tcp_flags & TD_TH_FIN);
}

/* RFC 7323 §3.2: once negotiated, every segment but a RST carries timestamps. */
static void note_timestamps(td_flow *flow, const td_record *rec, int sender)
{
    const td_handshake *hs = &flow->more->hs;
    td_dir_stats *dir = &flow->more->sent[sender];

    if (rec->tcp_flags & (TD_TH_SYN | TD_TH_RST))
        return;
    if (rec->options.present & TD_OPT_TS)
        dir->sent_ts = true;
    if (dir->first_frame_without_ts || !hs->synack_frame || (rec->options.unknown & TD_OPT_TS) ||
        (rec->options.present & TD_OPT_TS))
        return;
    if ((hs->opts[0].present & TD_OPT_TS) && (hs->opts[1].present & TD_OPT_TS) && !keepalive_probe(flow, rec, sender))
        dir->first_frame_without_ts = rec->frame;
}

/* The analyses a record meets once its flow is found and counted, in this order,
 * each once: after the kernel's tcp_congestion_ops, one entry per analysis with a
 * hook per record and one for when the capture has been read (FLOW_ANALYSES, after
 * the hooks). A record's path is a star from here: no analysis calls flow.c back or
 * hands the record on.
 *
 *   handshake  the SYNs, SYN-ACK and client's ACK, and the roles they settle;
 *   tallies    what each endpoint sent: data, codepoints, timestamps (the options
 *              audit, options.c, reads them when asked);
 *   ecn        the ECN outcome, as soon as the handshake so far proves it
 *              (ecn_outcome.c): after the handshake, which it reads;
 *   flight     each data direction's rounds (flight.c), and through them
 *              congestion and offload (direction.h): after ecn, whose outcome
 *              tells a direction's first data how CE marks are echoed;
 *   stall      the host-wide silences (stall.c): after the tallies, whose payload
 *              counts tell waiting from idle;
 *   budget     where the flow's time went (time_budget.c): after the handshake,
 *              whose roles and round-trip halves it reads; and the flow's requests
 *              and responses (exchange.c), which read the budget's events and parts;
 *   pmtu       each sender's segments against the size the handshake allowed
 *              (pmtu.c): after the handshake, whose MSS options it reads.
 *
 * A flow that is still one SYN (flow->more NULL) meets them too: handshake,
 * tallies, flight and budget keep their state in flow->more and let it pass; ecn reads
 * the handshake its SYN makes, stall the host-wide side of the SYN. */
/* The hooks are inlined into dispatch; the cost table's build (test/bench/cost-table,
 * -DTD_COST_TABLE) keeps each a function of its own, so that callgrind books each
 * analysis's cost to it. */
#ifdef TD_COST_TABLE
#define FLOW_HOOK static G_GNUC_NO_INLINE
#else
#define FLOW_HOOK static
#endif

/* Once the client's ACK is in, only a SYN or SYN-ACK can change the handshake:
 * the records of the transfer pass by. */
FLOW_HOOK void handshake_record(td_engine *engine G_GNUC_UNUSED, td_flow *flow, const td_record *rec, int sender)
{
    if (flow->more && (!flow->more->hs.ack_frame || (rec->tcp_flags & TD_TH_SYN)))
        td_handshake_record(&flow->more->hs, rec, sender, &flow->client);
}

FLOW_HOOK void tallies_record(td_engine *engine G_GNUC_UNUSED, td_flow *flow, const td_record *rec, int sender)
{
    if (!flow->more)
        return;
    if (rec->payload_len)
        note_data(flow, rec, sender);
    note_timestamps(flow, rec, sender);
}

FLOW_HOOK void ecn_record(td_engine *engine G_GNUC_UNUSED, td_flow *flow, const td_record *rec,
                          int sender G_GNUC_UNUSED)
{
    td_handshake scratch;
    td_ecn_decision d;

    if (flow->ecn_outcome == TD_ECN_PENDING &&
        td_ecn_decide(td_flow_hs(flow, &scratch), flow->beyond_limit, rec->frame, &flow->accecn_feedback, &d))
        settle_ecn(flow, &d);
}

static void ecn_end(td_engine *engine G_GNUC_UNUSED, td_flow *flow)
{
    td_handshake scratch;
    td_ecn_decision d;

    if (flow->ecn_outcome != TD_ECN_PENDING)
        return;
    td_ecn_decide_at_end(td_flow_hs(flow, &scratch), &flow->accecn_feedback, &d);
    settle_ecn(flow, &d);
}

/* A direction's first data segment: its flight starts with what the handshake
 * tells (flight_context.h). */
static td_flight *flight_begin(const td_engine *engine, const td_flow *flow, const td_record *rec, int sender)
{
    const td_flow_more *more = flow->more;
    bool later_ts = more->sent[0].sent_ts || more->sent[1].sent_ts;
    td_flight_context ctx;
    td_vantage vantage = td_vantage_infer(&more->hs, engine->cfg->vantage_dominance_pct,
                                          engine->cfg->vantage_min_delay_us, engine->cfg->vantage_override);
    const char *why = td_flight_context_of(&more->hs, flow->client, sender, later_ts, vantage,
                                           (td_ecn_outcome)flow->ecn_outcome, rec, &ctx);
    td_flight *flight = g_new(td_flight, 1);

    td_flight_begin(flight, why ? NULL : &ctx, why, engine->history);
    return flight;
}

FLOW_HOOK void flight_record(td_engine *engine, td_flow *flow, const td_record *rec, int from)
{
    const td_flight_config *cfg = &engine->cfg->flight;
    td_flight **flight;

    if (rec->tcp_flags & TD_TH_SYN)
        return;                 /* a lone SYN, the one record without flow->more, among them */
    flight = flow->more->flight;
    if (rec->payload_len && !flight[from]) {
        flight[from] = flight_begin(engine, flow, rec, from);
        td_pair_senders_add(engine->pair_senders, &flow->addr[from], &flow->addr[1 - from], flow->index, from);
    }
    if (!flow->more->hs.synack_frame) {
        td_ecn_feedback shown = td_flight_feedback_shown(rec);
        for (int sender = 0; sender < 2 && shown != TD_FEEDBACK_NONE; sender++)
            if (flight[sender])
                td_flight_learn_feedback(flight[sender], shown);
    }
    if (rec->payload_len)
        td_flight_data(flight[from], rec, cfg);
    if (flight[1 - from])
        td_flight_ack(flight[1 - from], rec, cfg);
}

static void flight_end(td_engine *engine, td_flow *flow)
{
    for (int sender = 0; sender < 2; sender++)
        if (td_flow_flight(flow, sender))
            td_flight_finish(td_flow_flight(flow, sender), &engine->cfg->flight);
}

FLOW_HOOK void stall_record(td_engine *engine, td_flow *flow, const td_record *rec, int sender)
{
    if (!flow->more)
        td_stalls_packet(engine->stalls, NULL, flow->index, sender, rec, 0, 0);
    else
        td_stalls_packet(engine->stalls, flow->more->silence, flow->index, sender, rec,
                     flow->more->sent[sender].payload_bytes, flow->more->sent[1 - sender].payload_bytes);
}

/* An exchange ended (exchange.h): to the front end that shows them, and the report's
 * history. */
static void exchange_done(td_engine *engine, const td_flow *flow, const td_exchange *done)
{
    if (engine->on_exchange)
        engine->on_exchange(flow, done, engine->exchange_ctx);
    if (engine->history)
        td_series_exchange(engine->history, &flow->more->budget, done);
}

/* The budget's events go on to the flow's exchanges, only for a record of new data
 * (the one event they read). The report's history (series.h), when one is kept: each
 * exchange's network time, read from the budget where a request begins (the client's
 * new data after the server's, or its first) and where the flow begins to close. */
FLOW_HOOK void budget_record(td_engine *engine, td_flow *flow, const td_record *rec, int sender)
{
    td_series_book *book = engine->history;
    td_time_budget *b;
    td_exchange done;
    int8_t last_data_sender;
    int client;

    if (!flow->more)
        return;
    b = &flow->more->budget;
    last_data_sender = b->last_data_sender;
    td_time_budget_record(b, rec, sender, flow->client, &flow->more->hs);
    client = flow->client >= 0 ? flow->client : b->guessed_client;
    if (b->new_bytes && td_exchanges_record(&flow->more->exchanges, b, rec, sender, client, &done))
        exchange_done(engine, flow, &done);
    if (!book)
        return;
    if (sender == client && b->last_data_sender == sender && last_data_sender != sender)
        td_series_request(book, b, rec->time_ns, td_time_budget_part(b, TD_TIME_TRANSFER));
    else if (rec->tcp_flags & (TD_TH_FIN | TD_TH_RST))
        td_series_closing(book, b, rec->time_ns, td_time_budget_part(b, TD_TIME_TRANSFER));
}

/* The budget's end, then the flow's last exchange, which reads it. */
static void budget_end(td_engine *engine, td_flow *flow)
{
    td_exchange done;

    if (!flow->more)
        return;
    td_time_budget_end(&flow->more->budget);
    if (td_exchanges_end(&flow->more->exchanges, &flow->more->budget, &done))
        exchange_done(engine, flow, &done);
}

/* After the flight's, which knows the sender's segments. A segment is short of a full
 * one below the largest it sent so far, or the MSS its peer announced less the most
 * option bytes a segment can carry (40): a sender of small writes never shows its
 * full size. */
FLOW_HOOK void nagle_record(td_engine *engine, td_flow *flow, const td_record *rec, int sender)
{
    enum { MAX_OPTION_BYTES = 40 };
    const td_flight *f;
    uint32_t full = 0;

    if (!flow->more)
        return;
    f = flow->more->flight[sender];
    if (f)
        full = MAX(f->mss, f->ctx.peer_mss > MAX_OPTION_BYTES ? f->ctx.peer_mss - MAX_OPTION_BYTES : 0);
    td_nagle_record(&flow->more->nagle, rec, sender, flow->client, &flow->more->hs, full, &engine->cfg->nagle,
                    engine->history);
}

FLOW_HOOK void pmtu_record(td_engine *engine G_GNUC_UNUSED, td_flow *flow, const td_record *rec, int sender)
{
    if (flow->more)
        td_pmtu_record(&flow->more->pmtu, rec, sender, &flow->more->hs);
}

/* The analyses, in order: each one's hook per record, and the one for when the
 * capture has been read, which settles what is pending (NULL when nothing can be).
 * A list the calls are made from rather than a table of pointers: direct calls,
 * which the compiler inlines on the path every packet takes (a loop over the
 * table's pointers cost 124 instructions a packet, 7.5 % of the command's). */
#define FLOW_ANALYSES(X)                    \
    X(handshake_record, NULL)               \
    X(tallies_record, NULL)                 \
    X(ecn_record, ecn_end)                  \
    X(flight_record, flight_end)            \
    X(stall_record, NULL)                   \
    X(budget_record, budget_end)            \
    X(nagle_record, NULL)                   \
    X(pmtu_record, NULL)

static void dispatch(td_engine *engine, td_flow *flow, const td_record *rec, int sender)
{
#define ON_RECORD(on_record, on_end) on_record(engine, flow, rec, sender);
    FLOW_ANALYSES(ON_RECORD)
#undef ON_RECORD
}

#define ON_END(on_record, on_end) on_end,
static void (*const analyses_end[])(td_engine *engine, td_flow *flow) = { FLOW_ANALYSES(ON_END) };
#undef ON_END

/* The flow's first packet is a SYN without payload: it keeps only that. */
static td_flow *lone_syn(td_engine *engine, td_flow *flow, const td_record *rec)
{
    flow->packets = 1;
    flow->last_frame = rec->frame;
    flow->last_ns = rec->time_ns;
    keep_lone_syn(flow, rec, 0);
    dispatch(engine, flow, rec, 0);
    return flow;
}

/* Beyond the limit: the lone SYN waits in the ring, in place of the oldest. */
static td_flow *hold(td_engine *engine, const td_record *rec)
{
    td_flow *slot;

    if (!engine->held) {
        engine->held = g_new0(td_flow, HELD_SYNS);
        engine->held_by_stream = g_hash_table_new(g_direct_hash, g_direct_equal);
    }
    slot = &engine->held[engine->held_next];
    if (slot->packets) {
        engine->not_kept++;
        g_hash_table_remove(engine->held_by_stream, GUINT_TO_POINTER(slot->stream));
    }
    g_hash_table_insert(engine->held_by_stream, GUINT_TO_POINTER(rec->stream), GUINT_TO_POINTER(engine->held_next + 1));
    engine->held_next = (engine->held_next + 1) % HELD_SYNS;
    flow_init(slot, engine, rec);
    slot->index = UINT32_MAX;
    lone_syn(engine, slot, rec);
    return NULL;
}

/* The held SYN's flow got its next packet: it is kept from now on. */
static td_flow *held_flow_kept(td_engine *engine, uint32_t stream)
{
    guint slot = engine->held_by_stream ? GPOINTER_TO_UINT(g_hash_table_lookup(engine->held_by_stream,
                                                                               GUINT_TO_POINTER(stream)))
                                        : 0;
    td_flow *held, *flow;

    if (!slot)
        return NULL;
    held = &engine->held[slot - 1];
    g_hash_table_remove(engine->held_by_stream, GUINT_TO_POINTER(stream));
    flow = flow_slot(engine);
    *flow = *held;
    held->packets = 0;
    return flow_keep(engine, flow);
}

td_flow *td_engine_add(td_engine *engine, const td_record *rec, int *sender)
{
    bool released;
    td_flow *flow = flow_of_stream(engine, rec->stream, &released);
    td_flow_more *more;
    int from;

    if (released || (flow && flow->settled)) {
        engine->late++;
        return NULL;
    }
    if (!flow)
        flow = held_flow_kept(engine, rec->stream);
    if (!flow) {
        if (is_lone_syn(rec)) {
            if (engine->nflows >= engine->cfg->max_flows && engine->cfg->max_flows)
                return hold(engine, rec);
            *sender = 0;
            return lone_syn(engine, flow_new(engine, rec), rec);
        }
        flow = flow_new(engine, rec);
    }
    if (same_endpoint(&rec->src, rec->sport, &flow->addr[0], flow->port[0]))
        from = 0;
    else if (same_endpoint(&rec->src, rec->sport, &flow->addr[1], flow->port[1]))
        from = 1;
    else
        return NULL;

    more = more_of(engine, flow);
    flow->packets++;
    more->sizes_from_ip += rec->payload_from_ip;
    flow->last_frame = rec->frame;
    if (rec->time_ns > flow->last_ns || flow->packets == 1)
        flow->last_ns = rec->time_ns;

    if (rec->tcp_flags & TD_TH_FIN)
        flow->fin_from |= 1u << from;
    if (rec->tcp_flags & TD_TH_RST)
        flow->reset = true;
    dispatch(engine, flow, rec, from);
    *sender = from;
    return flow;
}

td_flow *td_engine_add_quoted(td_engine *engine, const td_record *rec)
{
    bool released;
    td_flow *flow = flow_of_stream(engine, rec->stream, &released);

    (void)released;     /* a quote of a released flow's segment is nobody's */
    if (flow && !flow->settled)
        more_of(engine, flow)->icmp_quotes++;
    return flow;
}

static void flow_span(uint32_t flow_index, const void *engine, int64_t *first_ns, int64_t *last_ns)
{
    const td_flow *flow = td_engine_flow_at(engine, flow_index);

    *first_ns = flow ? flow->first_ns : 0;
    *last_ns = flow ? flow->last_ns : 0;
}

static void settle(td_engine *engine, td_flow *flow)
{
    if (flow->settled)
        return;
    for (size_t a = 0; a < G_N_ELEMENTS(analyses_end); a++)
        if (analyses_end[a])
            analyses_end[a](engine, flow);
    flow->settled = true;
}

void td_engine_settle(td_engine *engine, guint index)
{
    td_flow *flow = kept_at(engine, index);

    if (flow)
        settle(engine, flow);
}

void td_engine_keep_history(td_engine *engine, td_series_book *history)
{
    engine->history = history;
}

void td_engine_on_exchange(td_engine *engine, td_exchange_fn fn, void *ctx)
{
    engine->on_exchange = fn;
    engine->exchange_ctx = ctx;
}

void td_engine_forget(td_engine *engine, guint index, bool release)
{
    td_flow *flow = kept_at(engine, index);
    guint16 *released;

    if (!flow)
        return;
    flow->forgotten = true;
    /* the history is keyed by the addresses of the flow's analyses: they stay */
    if (!release || engine->history)
        return;
    free_more(flow);
    if (flow->stream != flow->index)
        g_hash_table_remove(engine->misplaced, GUINT_TO_POINTER(flow->stream));
    flow->released = true;
    /* a whole slab released goes back: only a full one can be */
    released = &g_array_index(engine->slab_released, guint16, index >> SLAB_SHIFT);
    if (++*released == SLAB_FLOWS)
        g_clear_pointer(&g_ptr_array_index(engine->slabs, index >> SLAB_SHIFT), g_free);
}

uint64_t td_engine_late(const td_engine *engine)
{
    return engine->late;
}

void td_engine_pair_stalls(td_engine *engine)
{
    td_stalls_finish(engine->stalls, flow_span, engine);
}

void td_engine_finish(td_engine *engine)
{
    for (guint i = 0; i < engine->nflows; i++) {
        td_flow *flow = kept_at(engine, i);
        if (flow)
            settle(engine, flow);
    }
    if (engine->held) {
        engine->not_kept += g_hash_table_size(engine->held_by_stream);
        g_hash_table_destroy(engine->held_by_stream);
        g_free(engine->held);
        engine->held_by_stream = NULL;
        engine->held = NULL;
    }
    td_engine_pair_stalls(engine);
    engine->finished = true;
}

bool td_engine_finished(const td_engine *engine)
{
    return engine->finished;
}

uint64_t td_engine_not_kept(const td_engine *engine)
{
    return engine->not_kept;
}

guint td_engine_flow_count(const td_engine *engine)
{
    return engine->nflows;
}

const td_flow *td_engine_flow_at(const td_engine *engine, guint index)
{
    return kept_at(engine, index);
}

const td_flow *td_engine_next_flow(const td_engine *engine, guint *index)
{
    for (guint i = *index; i < engine->nflows; i++) {
        const td_flow *flow = flow_at(engine, i);
        if (!flow) {
            i |= SLAB_FLOWS - 1;        /* the slab is gone: on to the next */
            continue;
        }
        if (!flow->released) {
            *index = i;
            return flow;
        }
    }
    *index = engine->nflows;
    return NULL;
}

bool td_flow_roles_known(const td_flow *flow)
{
    return flow->client >= 0;
}

int td_flow_server(const td_flow *flow)
{
    return flow->client < 0 ? -1 : 1 - flow->client;
}

int td_flow_sender_at(const td_flow *flow, int i)
{
    if (!td_flow_roles_known(flow))
        return i;
    return i == 0 ? flow->client : td_flow_server(flow);
}

const char *td_flow_dir_name(const td_flow *flow, int sender)
{
    if (!td_flow_roles_known(flow))
        return NULL;
    return sender == flow->client ? "c2s" : "s2c";
}

void td_flow_endpoint_format(const td_flow *flow, int endpoint, char *buf, size_t size)
{
    char addr[64];

    td_addr_format(&flow->addr[endpoint], addr, sizeof addr);
    g_snprintf(buf, (gulong)size, flow->addr[endpoint].len == 16 ? "[%s]:%u" : "%s:%u", addr,
               flow->port[endpoint]);
}

void td_flow_dir_label(const td_flow *flow, int sender, char *buf, size_t size)
{
    const char *name = td_flow_dir_name(flow, sender);
    char from[72], to[72];

    if (name) {
        g_strlcpy(buf, name, size);
        return;
    }
    td_flow_endpoint_format(flow, sender, from, sizeof from);
    td_flow_endpoint_format(flow, 1 - sender, to, sizeof to);
    g_snprintf(buf, (gulong)size, "%s \u2192 %s", from, to);
}

const char *td_flow_data_sender(const td_flow *flow)
{
    bool client_sent, server_sent;

    if (!td_flow_roles_known(flow))
        return (td_flow_sent(flow, 0)->data_packets || td_flow_sent(flow, 1)->data_packets) ? "unknown" : "none";
    client_sent = td_flow_sent(flow, flow->client)->data_packets != 0;
    server_sent = td_flow_sent(flow, td_flow_server(flow))->data_packets != 0;
    if (client_sent && server_sent)
        return "both";
    if (client_sent)
        return "client";
    return server_sent ? "server" : "none";
}

int td_flow_busiest_sender(const td_flow *flow)
{
    int busier = td_flow_sent(flow, 1)->payload_bytes > td_flow_sent(flow, 0)->payload_bytes;

    if (td_flow_flight(flow, busier))
        return busier;
    return td_flow_flight(flow, 1 - busier) ? 1 - busier : -1;
}

bool td_flow_handshake_halves(const td_flow *flow, int64_t *syn_to_synack, int64_t *synack_to_ack)
{
    return flow->more && td_handshake_halves(&flow->more->hs, syn_to_synack, synack_to_ack);
}

td_vantage td_flow_vantage(const td_flow *flow, const td_config *cfg)
{
    return td_vantage_infer(flow->more ? &flow->more->hs : NULL, cfg->vantage_dominance_pct, cfg->vantage_min_delay_us,
                            cfg->vantage_override);
}

td_ecn_data_use td_flow_ecn_data_use(const td_flow *flow, int sender)
{
    return td_ecn_data_use_of((td_ecn_outcome)flow->ecn_outcome, td_flow_sent(flow, sender)->ecn_count);
}
