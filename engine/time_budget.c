/* A flow's time budget (time_budget.h): the state machine that charges each span of
 * the flow's time to the part that owned it. */
#include "time_budget.h"

#include <string.h>

#include <glib.h>

enum {
    PHASE_FIRST,    /* no record yet: the first one says whether a handshake opens the flow */
    PHASE_SETUP,
    PHASE_OPEN,
};

static bool outstanding(const td_time_side *s)
{
    return s->seq_known && td_seq_after(s->hi, s->acked);
}

/* A part names a cause when it is both a large share of the flow's active time and
 * long in itself: a third of a 0.1 s exchange is nobody's problem, and a 0.3 s wait
 * in a 10 s transfer is not where its time went. 100 ms of round trip is a
 * continent away; 20 ms, a server in the same region. Round trips four times the
 * empty path's are a queue, not a path's jitter (a bloated FIFO made them 10x in the
 * lab, captures/lab/mech). The smallest retransmission timeout of the common stacks is
 * Linux's TCP_RTO_MIN, 200 ms (Windows 300 ms; RFC 6298 asks for 1 s). */
void td_budget_config_defaults(td_budget_config *cfg)
{
    cfg->min_share_pct = 30;
    cfg->min_cost_ms = 200;
    cfg->long_rtt_ms = 100;
    cfg->reference_rtt_ms = 20;
    cfg->queue_rtt_ratio = 4;
    cfg->timeout_floor_ms = 200;
}

const char *td_time_part_name(td_time_part part)
{
    static const char *const names[TD_TIME_PARTS] = {
        "setup", "client_wait", "server_wait", "transfer", "stall", "think", "idle",
    };
    return (unsigned)part < TD_TIME_PARTS ? names[part] : "unknown";
}

void td_time_budget_begin(td_time_budget *b, int64_t first_ns, bool after_lone_syn, const td_budget_config *cfg)
{
    memset(b, 0, sizeof *b);
    b->timeout_floor_ns = (int64_t)cfg->timeout_floor_ms * 1000000;
    b->first_ns = b->cursor_ns = first_ns;
    b->last_data_sender = -1;
    b->guessed_client = -1;
    b->longest_stall_side = -1;
    for (int e = 0; e < 2; e++)
        b->side[e].turn_ns = first_ns;
    if (after_lone_syn) {
        b->phase = PHASE_SETUP;
        b->syns = 1;
    }
}

int64_t td_time_budget_duration(const td_time_budget *b)
{
    int64_t sum = 0;

    for (int p = 0; p < TD_TIME_PARTS; p++)
        sum += b->part_ns[p];
    return sum + b->open_ns;
}

int64_t td_time_budget_active(const td_time_budget *b)
{
    return td_time_budget_duration(b) - b->part_ns[TD_TIME_IDLE] - b->part_ns[TD_TIME_THINK];
}

/* A receiver that advertised a zero window to a sender with data to send holds it. */
static bool zero_window_holds(const td_time_budget *b)
{
    for (int e = 0; e < 2; e++) {
        const td_time_side *sender = &b->side[1 - e];
        if (b->side[e].zero_window && sender->sent_data && !sender->sent_fin)
            return true;
    }
    return false;
}

/* Time passes from the latest packet to this one: setup and zero-window time are
 * known as they pass; the rest waits for the next event to say whose it was. */
static void pass_time(td_time_budget *b, int64_t ns)
{
    if (b->phase == PHASE_SETUP) {
        b->part_ns[TD_TIME_SETUP] += ns;
    } else if (zero_window_holds(b)) {
        b->part_ns[TD_TIME_STALL] += ns;
        b->zero_window_ns += ns;
    } else {
        b->open_ns += ns;
        if (outstanding(&b->side[0]) || outstanding(&b->side[1]))
            b->open_busy_ns += ns;
    }
}

/* The longest single wait or stall, and the frame that ended it. */
static void note_span(td_time_budget *b, td_time_span span, int64_t ns)
{
    if (ns > b->longest_ns[span]) {
        b->longest_ns[span] = ns;
        b->longest_frame[span] = b->frame;
    }
}

static void charge_open(td_time_budget *b, td_time_part part)
{
    b->part_ns[part] += b->open_ns;
    b->open_ns = b->open_busy_ns = 0;
}

/* A TSval clock ticks once a microsecond (Linux's usec option), a millisecond (Linux
 * since 4.13, the BSDs, macOS), 4 or 10 ms (older kernels' HZ) or 100 ms: RFC 7323
 * 5.4 allows 1 ms to 1 s. The tick read from two packets is the one their arrival
 * times over their TSvals' ticks come within 1.5x of, so a queue's growth between
 * them (or a clock's drift) never reads as another tick; 0 when none does. */
static int64_t tick_of(int64_t elapsed_ns, uint32_t ticks)
{
    static const int64_t TICKS_NS[] = { 1000, 1000000, 4000000, 10000000, 100000000 };

    for (size_t i = 0; i < G_N_ELEMENTS(TICKS_NS); i++)
        if (2 * elapsed_ns >= (int64_t)ticks * TICKS_NS[i] * 4 / 3 && 2 * elapsed_ns <= (int64_t)ticks * TICKS_NS[i] * 3)
            return TICKS_NS[i];
    return 0;
}

/* How much longer `rec` took from its sender to the capture point than the sender's
 * handshake packet did: the arrival times between them less the sender's clock
 * between them (its TSvals), less one tick for the TSvals' rounding and 500 ppm of the
 * span for the two clocks' drift (NTP slews a clock by at most that); 0 unknown. The
 * tick is read again at each call until known: the longer the span, the less a
 * queue's growth weighs, and a span under 16 ticks and 100 ms is too short to read. */
static int64_t later_on_its_way(td_time_clock *c, const td_record *rec)
{
    enum { MIN_TICKS = 16, DRIFT_PER = 2000 };
    const int64_t MIN_SPAN_NS = 100000000;
    uint32_t ticks;
    int64_t elapsed;

    if (!c->known || !rec->options.ts_valid)
        return 0;
    ticks = rec->options.tsval - c->origin_tsval;
    elapsed = rec->time_ns - c->origin_ns;
    if (ticks < MIN_TICKS || ticks > INT32_MAX || elapsed <= 0 || elapsed > INT64_MAX / 4)
        return 0;       /* too soon, a clock gone back, or a hostile file's time jump */
    if (!c->tick_ns && elapsed >= MIN_SPAN_NS)
        c->tick_ns = tick_of(elapsed, ticks);
    return c->tick_ns ? MAX(elapsed - elapsed / DRIFT_PER - ((int64_t)ticks + 1) * c->tick_ns, 0) : 0;
}

/* Of the open span, what `owner` part gets when `endpoint` ends it with rec: from the
 * packet that handed it the turn, less the round trip to it when that packet was
 * its peer's (the network's share, charged to transfer): the handshake's, and what
 * rec took on its way beyond the endpoint's handshake packet (a queue grown since);
 * or, when longer, a round trip toward the endpoint that a bulk flow on the same path
 * made meanwhile (the queue on the way there, which no packet of this flow shows). */
static void charge_turn(td_time_budget *b, int endpoint, int client, const td_handshake *hs, const td_record *rec,
                        td_time_part owner)
{
    const td_time_side *s = &b->side[endpoint];
    int64_t net = s->turn_net ? MAX(td_handshake_round_trip_to(hs, endpoint, client), 0) : 0;
    int64_t own;

    own = rec->time_ns - s->turn_ns - net;
    if (own > 0 && s->turn_net) {      /* a wait left to split: its packet's own trip */
        int64_t later = later_on_its_way(&b->clock[endpoint], rec);
        if (b->probe.loop_toward)
            later = MAX(later, b->probe.loop_toward(&b->probe, endpoint, s->turn_ns, rec->time_ns) - net);
        own -= later;
        net += later;
    }
    /* The endpoint going on with its own data after the peer acknowledged all of it:
     * queueing stretches the round trip beyond the handshake's, so a pause no longer
     * than one more round trip is the network's too. */
    if (own < 0 || (endpoint == b->last_data_sender && own <= net))
        own = 0;
    if (own > b->open_ns)
        own = b->open_ns;
    b->part_ns[owner] += own;
    b->open_ns -= own;
    if (owner != TD_TIME_IDLE && owner != TD_TIME_THINK && s->turn_answer) {
        td_time_span span = owner == TD_TIME_CLIENT_WAIT ? TD_SPAN_CLIENT_WAIT : TD_SPAN_SERVER_WAIT;
        b->answer_wait_ns[span] += own;
        note_span(b, span, own);
    }
    charge_open(b, TD_TIME_TRANSFER);
}

/* The turn passes to s at t: answer, it owes its peer an answer (the peer's data, a
 * retransmission, the handshake's end); otherwise the peer acknowledged all s had
 * sent, or opened its window again, and s goes on with its own data. */
static void hand_turn(td_time_side *s, const td_record *rec, bool answer)
{
    s->turn_ns = rec->time_ns;
    s->turn_net = true;
    s->turn_answer = answer;
    s->turn_echoable = rec->options.ts_valid && !rec->payload_len;
    s->turn_tsval = rec->options.tsval;
}

/* With timestamps, a sender going on with its own stream that echoes a TSval older
 * than the pure ACK that handed it the turn sent this data before that ACK reached it
 * (RFC 7323 4.3: an ACK in sequence updates the TSval echoed): its segments sat in a
 * queue between it and the capture point (a bottleneck downstream of the sender, seen
 * near the receiver), and the span was the network's, however long. Only for pure
 * ACKs: a receiver holding a delayed ACK keeps echoing the segment that began it. */
static bool sent_before_turn(const td_time_side *s, const td_record *rec)
{
    return s->turn_echoable && rec->options.ts_valid && td_seq_before(rec->options.tsecr, s->turn_tsval);
}

/* The handshake is over: the client's turn from its own packet, the server's from
 * when that packet reaches it. */
static void open_flow(td_time_budget *b, int client, int64_t t)
{
    b->phase = PHASE_OPEN;
    b->open_ns = b->open_busy_ns = 0;
    for (int e = 0; e < 2; e++) {
        b->side[e].turn_ns = t;
        b->side[e].turn_net = e != client;
        b->side[e].turn_answer = true;
    }
}

static void count_handshake(td_time_budget *b, const td_record *rec)
{
    uint32_t *sent = (rec->tcp_flags & TD_TH_ACK) ? &b->synacks : &b->syns;

    if (++*sent == 2 && !b->handshake_retry_frame)
        b->handshake_retry_frame = b->frame;
}

/* Data `waiter` sent went unanswered: the span it waited is a stall. */
static void charge_stall(td_time_budget *b, int waiter)
{
    if (b->open_ns > b->longest_ns[TD_SPAN_STALL])
        b->longest_stall_side = (int8_t)waiter;
    note_span(b, TD_SPAN_STALL, b->open_ns);
    if (b->open_ns >= b->timeout_floor_ns)
        b->timeout_ns += b->open_ns;
    charge_open(b, TD_TIME_STALL);
}

/* The endpoint with data retransmitted and still outstanding, -1 none. */
static int retransmitted_outstanding(const td_time_budget *b)
{
    for (int e = 0; e < 2; e++)
        if (outstanding(&b->side[e]) && b->side[e].retransmissions)
            return e;
    return -1;
}

/* Its IPv4 identification after the sender's packet: in order (the next number), or a
 * small gap, the packets it sent in between that the capture never saw. A host that
 * numbers per connection (Linux) keeps nearly every step in order; one with a global
 * counter (Windows) or random numbers (macOS) does not, and then gaps say nothing. A
 * super-packet (GRO at a receiver, TSO at a sender) spends several numbers: it, and a
 * large step, make the counter's gaps no evidence but for the 8-in-9 rule below. */
static void note_ip_id(td_time_side *s, const td_record *rec)
{
    enum { MAX_GAP = 16, QUIET_T20 = 954 };     /* 954 x 2^20 ns: one second */
    uint32_t now_t20 = (uint32_t)((uint64_t)rec->time_ns >> 20);
    uint16_t step;

    s->ids_skipped = 0;
    if (!rec->has_ip_id)
        return;
    step = (uint16_t)(rec->ip_id - s->next_id);
    if (s->id_known) {
        if (!step) {
            if (s->ids_in_order < UINT16_MAX)
                s->ids_in_order++;
            s->ids_kept_quiet |= (int32_t)(now_t20 - s->last_sent_t20) >= QUIET_T20;   /* not a clock gone back */
        } else {
            if (s->ids_out_of_order < UINT16_MAX)
                s->ids_out_of_order++;
            if (step < MAX_GAP)
                s->ids_skipped = (uint8_t)step;
            else
                s->ids_jumped = true;
        }
    }
    s->next_id = (uint16_t)(rec->ip_id + 1);
    s->last_sent_t20 = now_t20;
    s->id_known = true;
}

/* The sender's latest packet came after packets it sent that never reached the
 * capture point: a gap right before it, in a counter numbered in order at least 8
 * times in 9; or in one whose every step was small and that kept its next number
 * across a second or more of the sender's silence, in which nothing else took one (a
 * per-connection counter, whose gaps are only its own lost packets, where a flow's
 * losses leave too few steps in order for the first rule: a reply lost twice in
 * every exchange). */
static bool unseen_sends(const td_time_side *s, const td_handshake *hs, int receiver)
{
    enum { MIN_IN_ORDER = 8, ETHERNET_MSS = 1460 };
    uint32_t largest_segment;

    if (!s->ids_skipped)
        return false;
    if (s->ids_in_order >= MIN_IN_ORDER && s->ids_out_of_order * 8u <= s->ids_in_order)
        return true;
    /* the largest segment the receiver's MSS lets the sender send (without it,
     * Ethernet's): a larger one was a super-packet (GRO, TSO) */
    largest_segment = td_handshake_mss(hs, receiver);
    if (!largest_segment)
        largest_segment = ETHERNET_MSS;
    return !s->ids_jumped && s->ids_kept_quiet && s->max_payload <= largest_segment;
}

/* Data below a sequence number the sender's packets already carried (a pure ACK or a
 * FIN numbered beyond the data seen): the sender had sent it, and the capture point
 * never saw it go by, so this is that data again, resent when the path lost it before
 * the capture point (a client's request probe, answered with a D-SACK whose sequence
 * number shows the lost reply). */
static bool sent_unseen_before(const td_time_side *s, const td_record *rec)
{
    return td_seq_after(s->seq_top, rec->seq);
}

/* New payload from `sender`: its data going on, or its application taking its turn;
 * or, when its packets numbered in order skip some right before it, the end of a
 * silence in which what it sent was lost before the capture point (near the
 * receiver, a lost tail's timeout reads so, not as the sender's wait). */
static void new_data(td_time_budget *b, const td_record *rec, int sender, int client, const td_handshake *hs)
{
    /* the client's next request after the server's answer: nobody was waiting on it */
    bool thinks = sender == client && b->last_data_sender >= 0 && b->last_data_sender != client;

    if (outstanding(&b->side[sender]) ||
        (sender == b->last_data_sender && sent_before_turn(&b->side[sender], rec)))
        charge_open(b, TD_TIME_TRANSFER);
    else if (unseen_sends(&b->side[sender], hs, 1 - sender) || sent_unseen_before(&b->side[sender], rec))
        charge_stall(b, sender);
    else
        charge_turn(b, sender, client, hs, rec,
                    thinks ? TD_TIME_THINK : sender == client ? TD_TIME_CLIENT_WAIT : TD_TIME_SERVER_WAIT);
    if (sender != client && b->last_data_sender >= 0 && b->last_data_sender == client)
        b->exchanges++;
    b->begins_exchange = b->last_data_sender < 0 || thinks;
    b->last_data_sender = (int8_t)sender;
    hand_turn(&b->side[1 - sender], rec, true);
}

/* A FIN or RST: time with data outstanding is the transfer's, or a stall when that
 * data was retransmitted unanswered; quiet time before it is idle. */
static void closing(td_time_budget *b, int sender, int client, const td_handshake *hs, const td_record *rec)
{
    int waiter = retransmitted_outstanding(b);

    if (waiter >= 0)
        charge_stall(b, waiter);
    else if (outstanding(&b->side[0]) || outstanding(&b->side[1]))
        charge_open(b, TD_TIME_TRANSFER);
    else
        charge_turn(b, sender, client, hs, rec, TD_TIME_IDLE);
}

static void retransmission(td_time_budget *b, const td_record *rec, int sender)
{
    charge_stall(b, sender);
    if (b->side[sender].retransmissions < UINT16_MAX)
        b->side[sender].retransmissions++;
    if (b->side[sender].unanswered < UINT16_MAX)
        b->side[sender].unanswered++;
    hand_turn(&b->side[1 - sender], rec, true);
}

/* What the record's ACK and window say of the peer's data. asks: the record carries
 * new data, so the turn it hands the peer asks for an answer even when its ACK also
 * covers all the peer sent (a request acknowledging the previous reply). */
static void note_ack(td_time_budget *b, const td_record *rec, int sender, bool asks)
{
    td_time_side *me = &b->side[sender], *peer = &b->side[1 - sender];

    if (rec->has_window && !(rec->tcp_flags & (TD_TH_SYN | TD_TH_RST))) {
        bool zero = rec->window == 0;
        if (me->zero_window && !zero)
            hand_turn(peer, rec, asks);
        if (zero && !me->zero_window && peer->sent_data && !peer->sent_fin && !b->zero_windows++)
            b->zero_window_frame = rec->frame;
        me->zero_window = zero;
    }
    if (!(rec->tcp_flags & TD_TH_ACK))
        return;
    if (!peer->seq_known) {
        peer->hi = peer->acked = peer->seq_top = rec->ack;
        peer->seq_known = true;
        return;
    }
    if (!td_seq_after(rec->ack, peer->acked))
        return;
    peer->acked = rec->ack;
    peer->unanswered = 0;
    if (td_seq_after(rec->ack, peer->hi))
        peer->hi = rec->ack;    /* a FIN's sequence number, or data sent before the capture */
    if (!outstanding(peer)) {
        peer->retransmissions = 0;
        hand_turn(peer, rec, asks);
    }
}

/* Data the peer had already acknowledged, sent again: the sender never had those
 * ACKs (the path lost them, or they came too late), so its silence before was its
 * retransmission timer, even where the capture saw nothing outstanding (a capture
 * beyond an outage sees the ACKs leave, and the sender's silence). A keep-alive probe
 * (RFC 9293 3.8.4: the byte before the acknowledged edge, or none) is no resend. */
static bool resends_acknowledged(const td_time_side *me, const td_record *rec)
{
    uint32_t end = rec->seq + rec->payload_len;

    return rec->payload_len > 1 && me->sent_data && !td_seq_after(end, me->acked);
}

/* A segment short of the MSS its receiver announced, by more than options could take
 * (40 bytes): its sender had no more to send then (RFC 1122 4.2.3.4), even when it is
 * the sender's first and only one (a request, a greeting). */
static bool short_of_mss(const td_handshake *hs, int receiver, uint32_t payload_len)
{
    enum { OPTIONS_MAX = 40 };
    uint32_t mss = td_handshake_mss(hs, receiver);

    return mss && payload_len + OPTIONS_MAX <= mss;
}

/* A record after the handshake: which event it is, then what it changes. */
static void open_record(td_time_budget *b, const td_record *rec, int sender, int client, const td_handshake *hs)
{
    td_time_side *me = &b->side[sender];
    uint32_t end = rec->seq + rec->payload_len;
    bool fin = rec->tcp_flags & TD_TH_FIN;
    bool asks = false;

    if (!me->seq_known) {
        me->hi = me->acked = me->seq_top = rec->seq;
        me->seq_known = true;
    }
    note_ip_id(me, rec);
    if (rec->tcp_flags & TD_TH_SYN) {
        count_handshake(b, rec);
        retransmission(b, rec, sender);
    } else if (rec->payload_len && td_seq_after(end, me->hi)) {
        new_data(b, rec, sender, client, hs);
        b->new_bytes = end - me->hi;
        asks = true;
        me->hi = end;
        me->sent_data = true;
        me->wrote_all = rec->payload_len < me->max_payload || short_of_mss(hs, 1 - sender, rec->payload_len);
        me->max_payload = MAX(me->max_payload, rec->payload_len);
    } else if (fin && me->sent_fin && !rec->payload_len && !outstanding(me) && b->side[1 - sender].wrote_all &&
               !outstanding(&b->side[1 - sender])) {
        /* The close is asynchronous: a FIN resent after the peer had sent all it had and
         * all of it was acknowledged waits on nobody's application, so its silence is
         * idle, not a stall, and no dead peer. */
        charge_open(b, TD_TIME_IDLE);
        me->fin_retransmitted = true;
    } else if ((rec->payload_len && outstanding(me)) || (fin && me->sent_fin) || resends_acknowledged(me, rec)) {
        retransmission(b, rec, sender);
        me->fin_retransmitted |= fin;
    } else if ((fin && !me->sent_fin) || (rec->tcp_flags & TD_TH_RST)) {
        closing(b, sender, client, hs, rec);
    }
    if (fin && !me->sent_fin) {
        me->sent_fin = true;
        me->fin_end = end + 1;
    }
    if (rec->tcp_flags & TD_TH_RST)
        b->reset = true;
    if (td_seq_after(rec->seq, me->seq_top))
        me->seq_top = rec->seq;
    note_ack(b, rec, sender, asks);
}

/* An endpoint's first packet of the handshake with a timestamp: its clock's origin. */
static void note_clock(td_time_clock *c, const td_record *rec)
{
    if (c->known || !rec->options.ts_valid)
        return;
    c->known = true;
    c->origin_tsval = rec->options.tsval;
    c->origin_ns = rec->time_ns;
}

/* The handshake ends with the client's ACK of a SYN-ACK, any data, or a RST. */
static bool ends_setup(const td_time_budget *b, const td_record *rec, int sender, int client)
{
    if (rec->tcp_flags & TD_TH_SYN)
        return false;
    return rec->payload_len || (rec->tcp_flags & TD_TH_RST) ||
           (b->synacks && sender == client && (rec->tcp_flags & TD_TH_ACK));
}

void td_time_budget_record(td_time_budget *b, const td_record *rec, int sender, int client,
                           const td_handshake *hs)
{
    int64_t t = rec->time_ns;

    b->frame = rec->frame;
    b->new_bytes = 0;
    if (b->phase == PHASE_FIRST) {
        b->guessed_client = (int8_t)(rec->sport > rec->dport ? sender : 1 - sender);
        b->phase = (rec->tcp_flags & TD_TH_SYN) ? PHASE_SETUP : PHASE_OPEN;
    }
    if (client < 0)
        client = b->guessed_client;
    if (t > b->cursor_ns) {
        pass_time(b, t - b->cursor_ns);
        b->cursor_ns = t;
    }
    if (b->phase == PHASE_SETUP) {
        note_clock(&b->clock[sender], rec);
        if (!ends_setup(b, rec, sender, client)) {
            if (rec->tcp_flags & TD_TH_SYN)
                count_handshake(b, rec);
            return;
        }
        open_flow(b, client, t);
    }
    open_record(b, rec, sender, client, hs);
}

void td_time_budget_end(td_time_budget *b)
{
    int64_t quiet = b->open_ns - b->open_busy_ns;
    int waiter = retransmitted_outstanding(b);

    b->part_ns[TD_TIME_IDLE] += quiet;
    b->open_ns -= quiet;
    if (waiter >= 0)
        charge_stall(b, waiter);
    else
        charge_open(b, TD_TIME_TRANSFER);
}

const char *td_time_budget_state(const td_time_budget *b)
{
    if (b->reset)
        return "reset";
    if (b->side[0].sent_fin && b->side[1].sent_fin)
        return "closed";
    return b->side[0].sent_fin || b->side[1].sent_fin ? "half-closed" : "open";
}

int td_time_budget_unanswered(const td_time_budget *b, unsigned *count)
{
    int who = -1;

    *count = 0;
    /* Both sides may have given up on the other (the path went away): the one that
       retransmitted more is the one the silence was about. */
    for (int e = 0; e < 2; e++) {
        const td_time_side *s = &b->side[e];
        bool data = outstanding(s) && s->unanswered;
        bool fin = s->fin_retransmitted && td_seq_before(s->acked, s->fin_end) && !b->side[1 - e].wrote_all;
        if ((data || fin) && MAX(s->unanswered, 1u) > *count) {
            *count = MAX(s->unanswered, 1u);
            who = e;
        }
    }
    return who;
}

int td_time_budget_left_by_peer(const td_time_budget *b)
{
    for (int e = 0; e < 2; e++) {
        const td_time_side *s = &b->side[e];
        if (s->fin_retransmitted && td_seq_before(s->acked, s->fin_end) && !outstanding(s) &&
            b->side[1 - e].wrote_all)
            return e;
    }
    return -1;
}
