/* Bytes in flight per round trip, plateaus and the limiting factor of one data
 * direction; it walks the analyses that ride on its round trips (direction.h).
 *
 * Overview, as Linux tcp_bbr.c opens with one.
 *
 * Every question tcpdiag asks of a transfer (is it held by the receiver's window,
 * by the congestion window, by the sender, by the application; did it cut its
 * rate when marked; is it capped below what offload could send) is a question
 * about what the sender did one round trip after it learnt something. Packets are
 * the wrong unit for that: a burst of forty segments and a single one are both
 * one decision. So the flight is measured per round trip, the sender's own unit
 * of decision, and everything else here is bookkeeping for it.
 *
 * A round opens with the first data segment that sends new bytes while no round
 * is open, and ends at that segment's end sequence. It closes when the sender has
 * learnt that all of it was acknowledged: when an ACK covering round_end has
 * reached the sender, not when the capture sees it. Its flight is the largest
 * nxt - una seen while it was open: the bytes the sender let be outstanding,
 * which is the window it was working with whatever the capture point.
 *
 * Why "reached the sender": a capture next to the receiver sees an ACK half a
 * round trip before the sender acts on it, and would count the segments the
 * sender sent meanwhile, under its older window, as the flight of the new one.
 * ACKs therefore wait in a ring until they have reached the sender, by one of two
 * clocks:
 *   - with timestamps, each data segment names the newest ACK its sender had (the
 *     TSval it echoes): that ACK, and those before it, are delivered then, and the
 *     time between sampling the ACK and the data answering it measures the lag;
 *   - without, an ACK is delivered ack_lag_ns after it was seen, the handshake
 *     half between capture point and sender (flight_context.c) less the peer's
 *     turnaround; data beyond the window the sender is thought to know proves a
 *     later ACK had already arrived and delivers it early.
 * A capture next to the sender has no lag, one in the middle a part of it: the
 * same rounds come out at any capture point, only the clock differs.
 *
 * What the rounds drive, each at its hook in direction.h:
 *   - plateaus: rounds whose flights stay within a band make a run; a run of
 *     plateau_min_rounds is a plateau, judged at its end as the receiver's (most
 *     rounds reached the window), the congestion window's (it sits where the
 *     flight stood at the last signal: CUBIC probing back to W_max) or the
 *     sender's (neither);
 *   - limit: each round's duration is attributed to what held it (the receive
 *     window, the congestion window after a signal, the sender on a plateau, the
 *     application for silences with nothing outstanding), and the largest share
 *     is the direction's limit;
 *   - congestion (congestion.c): the flight one and two rounds after each answer
 *     to a signal says whether the sender cut, and by how much; rounds at a few
 *     MSS while signals keep coming make a collapse;
 *   - offload (offload.c): rounds with several MSS in flight are the ones where a
 *     sender with offload would send super-packets;
 *   - series (series.c): one sample per round for the report's charts, and the
 *     round log for the plugin's per-packet tcpdiag.flight.round.
 * Those analyses keep their state inside td_flight and never call flight.c back:
 * flight.c alone knows when a round closes or an ACK reaches the sender, deep in
 * its own bookkeeping, so it walks them in the order of `analyses` below. */
#include "flight.h"

#include <glib.h>
#include <stddef.h>
#include <string.h>

#include "ecn.h"
#include "series.h"

/* Round events. */
enum {
    EV_RETRANSMISSION = 1 << 0,
    EV_ECE            = 1 << 1,
    EV_RWND           = 1 << 2,
};

/* A signal this many rounds before a plateau still counts as its onset
 * (recovery from a loss takes a round or two). */
enum { ONSET_MEMORY_ROUNDS = 3 };
/* Fewer rounds than this say nothing about what limits a flow. */
enum { MIN_ROUNDS_FOR_VERDICT = 4 };

void td_flight_config_defaults(td_flight_config *cfg)
{
    cfg->plateau_min_rounds = 10;
    cfg->plateau_band_pct = 5;
    cfg->collapse_mss = 4;
    cfg->collapse_min_rounds = 10;
    cfg->restart_idle_ms = 200;
    cfg->restart_share_pct = 25;
    cfg->round_log = false;
}

static uint32_t seq_max(uint32_t a, uint32_t b)
{
    return td_seq_before(a, b) ? b : a;
}

static bool measuring(const td_flight *f)
{
    return !f->unknown_reason;
}

/* The analyses that ride on the round trips, in call order, and where each one's
 * state lives in td_flight: congestion before offload (the offload's cap is
 * explained by the congestion collapse). The only place that names them. */
typedef struct analysis {
    const td_dir_ops *ops;
    size_t state;
} analysis;

static const analysis analyses[] = {
    { &td_cc_ops, offsetof(td_flight, cc) },
    { &td_offload_ops, offsetof(td_flight, seg) },
    { &td_restart_ops, offsetof(td_flight, restart) },
};

static void *state_of(td_flight *f, const analysis *a)
{
    return (char *)f + a->state;
}

/* The analyses that have this hook, in order; those that need the rounds skip a
 * direction whose flight cannot be measured. The hook is tested first: most
 * analyses leave most hooks NULL, and these loops run on every segment. */
#define EACH_HOOK(f, a, hook)                                                   \
    for (const analysis *a = analyses; a < analyses + G_N_ELEMENTS(analyses); a++) \
        if (!a->ops->hook || (a->ops->measured_only && !measuring(f))) {} else

void td_flight_begin(td_flight *f, const td_flight_context *ctx, const char *unknown_reason,
                     td_series_book *history)
{
    memset(f, 0, sizeof *f);
    f->history = history;
    if (ctx) {
        f->ctx = *ctx;
        f->lag_ns = ctx->ack_lag_ns;
    } else {
        f->unknown_reason = unknown_reason;
    }
    EACH_HOOK(f, a, begin)
        a->ops->begin(&f->dir, state_of(f, a));
}

void td_flight_free(td_flight *f)
{
    if (f) {
        for (const analysis *a = analyses; a < analyses + G_N_ELEMENTS(analyses); a++)
            a->ops->release(state_of(f, a));
        g_free(f->ring);
        g_free(f->round_log);
    }
    g_free(f);
}

void td_flight_learn_feedback(td_flight *f, td_ecn_feedback feedback)
{
    if (!measuring(f) || !f->ctx.no_handshake || f->ctx.feedback != TD_FEEDBACK_NONE)
        return;
    f->ctx.feedback = feedback;
    EACH_HOOK(f, a, on_feedback)
        a->ops->on_feedback(&f->dir, state_of(f, a));
}

static uint32_t band_of(const td_flight *f, uint32_t high, const td_flight_config *cfg)
{
    uint32_t share = (uint32_t)((uint64_t)high * cfg->plateau_band_pct / 100);
    return share > f->mss ? share : f->mss;
}

/* A flat run ends: judge it and attribute its time. A plateau held by the
 * window is the receiver's doing. One that sits where the flight stood at the
 * last loss or echo is the congestion window probing back (CUBIC's plateau at
 * W_max), not the sender. Nor is one of lone segments: a round of one segment,
 * sent with nothing outstanding, shows no flight held back. Its sender sent
 * nothing more while it was out, which a cap does, but so does a sender whose
 * next segment was not ready within the round trip: on a veth pair or loopback
 * the ACK is back in a microsecond or two, before the sending CPU has the next
 * segment, and a healthy download between two namespaces ran hundreds of such
 * rounds at 1 MSS, read "sender-limited, 6,270x slower" under load (issue 37). A
 * cap shows as several segments out at once, waiting. */
static void end_run(td_flight *f, const td_flight_config *cfg)
{
    td_plateau *run = &f->run;

    if (!run->rounds)
        return;
    run->limit = TD_LIMIT_CWND;
    if (run->rounds >= cfg->plateau_min_rounds) {
        if (run->rwnd_rounds * 2 >= run->rounds)
            run->limit = TD_LIMIT_RWND;
        else if (run->lone_rounds * 2 < run->rounds &&
                 (!f->peak_at_signal || run->high + band_of(f, f->peak_at_signal, cfg) < f->peak_at_signal))
            run->limit = TD_LIMIT_SENDER;
    }
    /* rounds at the window were attributed as they closed */
    f->limit_ns[run->limit == TD_LIMIT_RWND ? TD_LIMIT_CWND : run->limit] += run->unassigned_ns;
    if (run->rounds >= cfg->plateau_min_rounds && run->ns > f->best.ns)
        f->best = *run;
    memset(run, 0, sizeof *run);
}

static td_onset onset_now(const td_flight *f)
{
    if (f->rounds == 1)
        return TD_ONSET_START;
    return f->rounds_since_event <= ONSET_MEMORY_ROUNDS ? f->last_event : TD_ONSET_NONE;
}

static void note_event(td_flight *f, td_onset what)
{
    f->last_event = what;
    f->rounds_since_event = 0;
}

/* A round that opened an answer to the peer (its data came with the sender's flight
 * drained, after the peer's own) carried what the peer asked for, all the sender had:
 * a reply per request stays flat below the window because each reply is that size,
 * not because the sender held it (issue 30: a 2 kB reply per request is not a limited
 * sender). Such a round joins no plateau; its time is the network's, like any round
 * outside one, and the time budget judges the exchanges. */
static void add_to_run(td_flight *f, int64_t ns, bool at_window, const td_flight_config *cfg)
{
    td_plateau *run = &f->run;
    uint32_t flight = f->round_flight;

    if (f->round_answers) {
        end_run(f, cfg);
        f->limit_ns[TD_LIMIT_CWND] += at_window ? 0 : ns;
        return;
    }
    if (run->rounds) {
        uint32_t low = run->low < flight ? run->low : flight;
        uint32_t high = run->high > flight ? run->high : flight;
        if (high - low > band_of(f, high, cfg))
            end_run(f, cfg);
    }
    if (!run->rounds) {
        run->low = run->high = flight;
        run->start_frame = f->round_start_frame;
        run->onset = onset_now(f);
        run->min_window = UINT32_MAX;
    }
    run->rounds++;
    run->lone_rounds += flight <= f->mss;
    run->low = run->low < flight ? run->low : flight;
    run->high = run->high > flight ? run->high : flight;
    run->ns += ns;
    if (at_window)
        run->rwnd_rounds++;
    else
        run->unassigned_ns += ns;
    if (f->have_edge && f->window < run->min_window)
        run->min_window = f->window;
}

/* The HTML report's history (series.h), when one is kept. */
static void record_round(const td_flight *f, int64_t at_ns, td_series_book *book)
{
    td_round_sample sample = { f->round_flight, f->have_edge ? f->window : 0,
                               f->cc.ce, f->cc.ece_episodes, f->cc.cwr, f->cc.losses };

    td_series_round(book, f, at_ns, &sample);
}

/* A segment, for telling a bulk round (more than one) from an answer of a few small
 * writes: the largest one sent or the receiver's MSS, whichever is larger; without
 * an MSS announced, the one a host assumes then (RFC 9293 3.7.1: 536). */
static uint32_t bulk_segment(const td_flight *f)
{
    enum { DEFAULT_MSS = 536 };

    return MAX(f->mss, f->ctx.peer_mss ? f->ctx.peer_mss : DEFAULT_MSS);
}

static void close_round(td_flight *f, int64_t at_ns, const td_flight_config *cfg)
{
    int64_t ns = at_ns > f->round_start_ns ? at_ns - f->round_start_ns : 0;
    bool at_window = f->round_events & EV_RWND;

    f->in_round = false;
    f->round_at_window = at_window;
    if (cfg->round_log) {
        if (f->round_log_len == f->round_log_size) {
            f->round_log_size = f->round_log_size ? 2 * f->round_log_size : 4;
            f->round_log = g_renew(td_round_start, f->round_log, f->round_log_size);
        }
        f->round_log[f->round_log_len++] = (td_round_start){ f->round_start_frame, f->round_flight };
    }
    EACH_HOOK(f, a, on_round)
        a->ops->on_round(&f->dir, state_of(f, a), f->rounds, f->round_flight, ns, cfg);
    if (f->history)
        record_round(f, at_ns, f->history);
    f->rounds++;
    f->rounds_since_event++;
    f->round_ns_total += ns;
    if (at_window) {
        f->limit_ns[TD_LIMIT_RWND] += ns;
        if (!f->first_rwnd_frame)
            f->first_rwnd_frame = f->round_start_frame;
    }
    if (f->round_events & (EV_RETRANSMISSION | EV_ECE)) {
        end_run(f, cfg);
        if (!at_window)
            f->limit_ns[TD_LIMIT_CWND] += ns;
        note_event(f, (f->round_events & EV_RETRANSMISSION) ? TD_ONSET_RETRANSMISSION : TD_ONSET_ECN_ECHO);
        f->peak_at_signal = f->round_flight > f->peak_since_signal ? f->round_flight : f->peak_since_signal;
        f->peak_since_signal = 0;
        return;
    }
    if (f->round_flight > f->peak_since_signal)
        f->peak_since_signal = f->round_flight;
    if (f->round_flight > bulk_segment(f)) {
        f->bulk_loop_end_ns = at_ns - f->lag_ns;    /* the ACK seen here, before its lag to the sender */
        f->bulk_loop_ns = MAX(ns - f->lag_ns, 0);
    }
    add_to_run(f, ns, at_window, cfg);
}

/* A signal between rounds belongs to the round it starts. */
static void note_round_event(td_flight *f, uint8_t event)
{
    if (f->in_round)
        f->round_events |= event;
    else
        f->next_round_events |= event;
}

/* Without timestamps, ACKs within 1/64 of the lag share a slot. */
enum { SLOTS_PER_LAG = 64 };
/* Lag samples per estimate. */
enum { LAG_WINDOW = 8 };

/* The sender has learnt of an ACK. */
static void apply_ack(td_flight *f, const td_ack_sample *s, const td_flight_config *cfg)
{
    int64_t at = s->at_ns + f->lag_ns;

    if (td_seq_before(s->ack, f->una))
        return;                             /* an old ACK, reordered */
    uint32_t acked = s->ack - f->una;
    f->una = s->ack;
    if (f->ctx.rcv_wscale >= 0) {
        f->edge = s->edge;
        f->have_edge = true;
        f->window = s->edge - s->ack;
        if (f->window > f->max_window)
            f->max_window = f->window;
    }
    EACH_HOOK(f, a, on_ack_delivered)
        a->ops->on_ack_delivered(&f->dir, state_of(f, a), s, acked, at);
    if (s->ece && f->ctx.feedback == TD_FEEDBACK_CLASSIC)
        note_round_event(f, EV_ECE);
    if (f->in_round && !td_seq_before(f->una, f->round_end))
        close_round(f, at, cfg);
    if (!f->idle && !td_seq_before(f->una, f->nxt)) {
        f->idle = true;                     /* nothing outstanding */
        f->idle_since_ns = at;
    }
}

/* The ring's size is a power of two (TD_FLIGHT_RING_MIN, doubled by ring_grow): a
 * mask, not a division, on every ACK's slot. */
G_STATIC_ASSERT((TD_FLIGHT_RING_MIN & (TD_FLIGHT_RING_MIN - 1)) == 0);

static td_ack_sample *slot_at(const td_flight *f, unsigned i)
{
    return &f->ring[(f->ring_first + i) & (f->ring_size - 1u)];
}

static void deliver_oldest(td_flight *f, const td_flight_config *cfg)
{
    td_ack_sample sample = *slot_at(f, 0);

    f->ring_first = (uint16_t)((f->ring_first + 1) & (f->ring_size - 1u));
    f->ring_len--;
    apply_ack(f, &sample, cfg);
}

/* Without timestamps: the ACKs that have reached the sender by capture time now_ns. */
static void deliver_until(td_flight *f, int64_t now_ns, const td_flight_config *cfg)
{
    while (f->ring_len && slot_at(f, 0)->at_ns + f->lag_ns <= now_ns)
        deliver_oldest(f, cfg);
}

static bool ts_not_after(uint32_t a, uint32_t b)
{
    return (int32_t)(a - b) <= 0;
}

/* The lag is the smallest of the last few samples: an ACK-clocked sender
 * answers at once, but a sample can still hold a short stall. */
static void sample_lag(td_flight *f, int64_t sample)
{
    if (!f->lag_samples || sample < f->lag_window_min)
        f->lag_window_min = sample;
    if (++f->lag_samples == LAG_WINDOW) {
        f->lag_ns = f->lag_window_min;
        f->lag_samples = 0;
    }
}

/* With timestamps a data segment names the newest ACK its sender had: the one
 * whose TSval it echoes. While data is still outstanding after that ACK, the
 * sender answered it at once, so the two also measure the lag, queueing
 * included. After the sender had nothing outstanding they may measure a pause
 * instead: such a sample counts only up to twice the current estimate (one
 * timestamp tick can cover a whole burst of ACKs, so "nothing outstanding" is
 * often only the tick's doing). */
static void deliver_echoed(td_flight *f, const td_record *rec, const td_flight_config *cfg)
{
    int64_t echoed_at = -1, echoed_first = -1;

    for (unsigned i = 0; i < f->ring_len && ts_not_after(slot_at(f, i)->tsval, rec->options.tsecr); i++) {
        echoed_at = slot_at(f, i)->at_ns;
        echoed_first = slot_at(f, i)->first_ns;
    }
    /* An echo of an ACK the sender cannot have had yet (far sooner than the
     * handshake's round trip) is not a timestamp to go by: fall back to time. Had
     * yet: the tick's first ACK, which carried the TSval echoed as well as its last
     * (a round trip shorter than the tick, a LAN, sees several ACKs a tick). */
    if (echoed_first >= 0 && rec->time_ns - echoed_first < f->ctx.ack_lag_ns / 2) {
        f->ctx.timestamps = false;
        f->lag_ns = f->ctx.ack_lag_ns;
        deliver_until(f, rec->time_ns, cfg);
        return;
    }
    while (f->ring_len && ts_not_after(slot_at(f, 0)->tsval, rec->options.tsecr))
        deliver_oldest(f, cfg);
    int64_t sample = rec->time_ns - echoed_at;
    if (echoed_at >= 0 && sample >= 0 && (!f->idle || sample <= 2 * f->lag_ns))
        sample_lag(f, sample);
}

static void ring_grow(td_flight *f)
{
    uint16_t size = f->ring_size ? (uint16_t)(2 * f->ring_size) : TD_FLIGHT_RING_MIN;
    td_ack_sample *ring = g_new(td_ack_sample, size);

    for (unsigned i = 0; i < f->ring_len; i++)
        ring[i] = *slot_at(f, i);
    g_free(f->ring);
    f->ring = ring;
    f->ring_size = size;
    f->ring_first = 0;
}

/* AccECN: CE marks the receiver counted since its previous ACK, from the ACE
 * field (a mod-8 counter, RFC 9768 §3.2.2). Taken in capture order, before
 * ACKs share a ring slot. */
static unsigned ace_increase(td_flight *f, const td_record *rec)
{
    unsigned ace = td_ecn_bits(rec->tcp_flags), marks;

    if (f->ctx.feedback != TD_FEEDBACK_ACCECN)
        return 0;
    marks = f->ace_known ? (ace - f->last_ace) & 7 : 0;
    f->ace_known = true;
    f->last_ace = (uint8_t)ace;
    return marks;
}

void td_flight_ack(td_flight *f, const td_record *rec, const td_flight_config *cfg)
{
    if (!measuring(f) || !(rec->tcp_flags & TD_TH_ACK) || (rec->tcp_flags & (TD_TH_SYN | TD_TH_RST)))
        return;
    f->peer_sent |= rec->payload_len > 0;
    if (!f->ctx.timestamps)
        deliver_until(f, rec->time_ns, cfg);
    EACH_HOOK(f, a, on_ack_seen)
        a->ops->on_ack_seen(&f->dir, state_of(f, a), rec);

    /* A header cut before the window field keeps the last window. */
    uint32_t window = f->ctx.rcv_wscale < 0 ? 0
                      : rec->has_window ? (uint32_t)rec->window << f->ctx.rcv_wscale : f->window;
    unsigned ace_marks = ace_increase(f, rec);
    int64_t width = f->lag_ns / SLOTS_PER_LAG;
    td_ack_sample *newest = f->ring_len ? slot_at(f, f->ring_len - 1u) : NULL;
    bool merge = newest && (f->ctx.timestamps ? newest->tsval == rec->options.tsval
                                              : width > 0 && rec->time_ns / width == newest->at_ns / width);

    if (!merge) {
        if (f->ring_len == f->ring_size) {
            if (f->ring_size < TD_FLIGHT_RING_MAX)
                ring_grow(f);
            else
                deliver_oldest(f, cfg);
        }
        f->ring_len++;
        newest = slot_at(f, f->ring_len - 1u);
        newest->ack = rec->ack;
        newest->ace_marks = 0;
        /* An ACK of a tick whose earlier ACKs were delivered already: the sender may
           echo this TSval for those, seen since the tick's first. */
        if (!f->tick_known || rec->options.tsval != f->tick_tsval) {
            f->tick_known = true;
            f->tick_tsval = rec->options.tsval;
            f->tick_first_ns = rec->time_ns;
        }
        newest->first_ns = f->tick_first_ns;
    }
    /* a shared slot is delivered as its latest ACK */
    newest->at_ns = rec->time_ns;
    newest->ack = seq_max(newest->ack, rec->ack);
    newest->edge = rec->ack + window;
    newest->tsval = rec->options.tsval;
    newest->ece = rec->tcp_flags & TD_TH_ECE;
    newest->ace_marks = (uint16_t)MIN(newest->ace_marks + ace_marks, UINT16_MAX);
    if (!f->ctx.timestamps)
        deliver_until(f, rec->time_ns, cfg);
}

/* Nothing was outstanding until now. A silence of at least half a round (and
 * 1 ms) is an application's pause; a shorter one belongs to the next round. Whose
 * pause: before data that answers the peer's (a reply to a request), the sender owed
 * nothing while the peer thought or asked, which the time budget books as the peer's
 * think time or wait; only a pause in the sender's own stream is its application
 * having nothing to send (issue 37: a browser keeping a connection warm between
 * requests read "nothing to send 99 % of the time"). Both restart slow start alike. */
static bool end_idle(td_flight *f, int64_t now_ns, uint32_t frame, bool answers, const td_flight_config *cfg)
{
    int64_t gap = now_ns - f->idle_since_ns;
    int64_t mean_round = f->rounds ? f->round_ns_total / f->rounds : 0;

    f->idle = false;
    if (gap < 1000000 || gap * 2 < mean_round)
        return false;
    end_run(f, cfg);
    if (!answers)
        f->limit_ns[TD_LIMIT_APP] += gap;
    f->round_pause_ns = gap;                /* the round this segment opens follows it */
    if (gap > f->longest_pause_ns) {
        f->longest_pause_ns = gap;
        f->longest_pause_end_frame = frame;
    }
    note_event(f, TD_ONSET_IDLE);
    return true;
}

/* Data beyond nxt leaves a hole the capture did not see sent (yet): kept in the slot of
 * the oldest. */
static void open_hole(td_flight *f, uint32_t start, uint32_t end, int64_t now_ns)
{
    td_hole *slot = &f->holes[0];

    for (int i = 0; i < TD_FLIGHT_HOLES; i++) {
        if (f->holes[i].start == f->holes[i].end) {
            slot = &f->holes[i];
            break;
        }
        if (f->holes[i].opened_ns < slot->opened_ns)
            slot = &f->holes[i];
    }
    *slot = (td_hole){ start, end, now_ns };
}

/* Whether a segment below nxt fills a hole sooner than a retransmission could: a lost
 * segment is resent at least the capture point's loop to the sender (ack_lag) after
 * the data beyond it passed (the receiver must see that data and its duplicate ACKs
 * reach the sender), so one arriving in under half that was held back on the path.
 * An ICMP "fragmentation needed" from a hop before the capture point asks for a resend
 * sooner, but in smaller segments: a held-back segment has the sender's full size
 * (whole segments of it, for a super-packet) or is the last piece of its hole, and
 * held-back segments come in their order, each at its hole's start. Without the
 * handshake's loop nothing is told apart. The hole shrinks by what came. */
static bool fills_hole_early(td_flight *f, const td_record *rec)
{
    uint32_t end = rec->seq + rec->payload_len;

    if (f->ctx.ack_lag_ns <= 0 || !f->mss)
        return false;
    for (int i = 0; i < TD_FLIGHT_HOLES; i++) {
        td_hole *h = &f->holes[i];
        if (h->start == h->end || td_seq_before(rec->seq, h->start) || td_seq_before(h->end, end))
            continue;
        if ((rec->time_ns - h->opened_ns) * 2 >= f->ctx.ack_lag_ns ||
            (rec->payload_len % f->mss != 0 && end != h->end))
            return false;
        if (rec->seq != h->start)
            return false;           /* held-back segments come in their order */
        h->start = end;
        return true;
    }
    return false;
}

void td_flight_data(td_flight *f, const td_record *rec, const td_flight_config *cfg)
{
    uint32_t end = rec->seq + rec->payload_len;
    bool started = f->rounds || f->in_round || f->idle;

    if (!rec->payload_len)
        return;
    /* the MSS: the largest full segment, seen alone or inside a super-packet */
    f->mss = MAX(f->mss, td_offload_full_segment(&f->seg, rec));
    EACH_HOOK(f, a, on_segment)
        a->ops->on_segment(&f->dir, state_of(f, a), rec);
    if (f->history)
        td_series_segment(f->history, f, rec->time_ns, rec->payload_len);
    if (!measuring(f))
        return;
    if (!started) {
        f->una = f->nxt = rec->seq;
        f->idle = true;
        f->idle_since_ns = rec->time_ns;
    }
    if (f->ctx.timestamps && rec->options.ts_valid)
        deliver_echoed(f, rec, cfg);
    else
        deliver_until(f, rec->time_ns, cfg);
    /* Data beyond the window the sender is thought to know proves that a later
     * ACK had reached it: the lag measured at the handshake is only an estimate. */
    while (f->ring_len && f->have_edge && td_seq_before(f->edge, end))
        deliver_oldest(f, cfg);
    bool below = td_seq_before(rec->seq, f->nxt);
    bool reordered = below && fills_hole_early(f, rec);
    bool retransmission = below && !reordered;
    if (reordered) {
        f->reordered++;
        f->new_bytes += rec->payload_len;
    }
    if (td_seq_before(f->nxt, rec->seq))
        open_hole(f, f->nxt, rec->seq, rec->time_ns);
    if (retransmission) {
        if (!f->retransmissions)
            f->first_retransmission_frame = rec->frame;
        f->retransmissions++;
        note_round_event(f, EV_RETRANSMISSION);
    }
    if (td_seq_before(f->nxt, end)) {
        int64_t round_start = rec->time_ns;
        bool was_idle = f->idle;
        bool answers = was_idle && f->peer_sent;
        bool paused;
        f->peer_sent = false;
        paused = was_idle && end_idle(f, rec->time_ns, rec->frame, answers, cfg);
        if (was_idle && !paused)
            round_start = f->idle_since_ns;
        f->new_bytes += end - (below ? f->nxt : rec->seq);
        f->nxt = end;
        if (!f->in_round) {
            if (!paused)
                f->round_pause_ns = 0;
            f->in_round = true;
            f->round_end = end;
            f->round_flight = 0;
            f->round_events = f->next_round_events;
            f->next_round_events = 0;
            f->round_start_ns = round_start;
            f->round_start_frame = rec->frame;
            f->round_answers = answers;
        }
    }
    uint32_t flight = f->nxt - f->una;
    if (td_seq_before(f->nxt, f->una))
        flight = 0;
    if (flight > f->round_flight)
        f->round_flight = flight;
    if (flight > f->max_flight)
        f->max_flight = flight;
    if (f->have_edge && f->in_round && (int32_t)(f->edge - f->nxt) < (int32_t)(f->mss ? f->mss : 1))
        f->round_events |= EV_RWND;
    EACH_HOOK(f, a, on_data)
        a->ops->on_data(&f->dir, state_of(f, a), rec, retransmission);
}

void td_flight_finish(td_flight *f, const td_flight_config *cfg)
{
    if (measuring(f)) {
        while (f->ring_len)
            deliver_oldest(f, cfg);
        f->in_round = false;                /* never acknowledged in the capture */
        end_run(f, cfg);
    }
    const td_plateau *plateau = td_flight_plateau(f);
    f->throughput = td_flight_throughput(f);
    f->sender_plateau = plateau && plateau->limit == TD_LIMIT_SENDER ? plateau->high : 0;
    /* settled by the rounds already: the offload analysis reads it (a collapsing window
       explains a cap) */
    f->collapsed = td_cc_collapsed(&f->cc, cfg);
    EACH_HOOK(f, a, finish)
        a->ops->finish(&f->dir, state_of(f, a), cfg);
}

int64_t td_flight_measured_ns(const td_flight *f)
{
    int64_t total = 0;
    for (int i = 0; i < TD_LIMIT_COUNT; i++)
        total += f->limit_ns[i];
    return total;
}

td_limit td_flight_limit(const td_flight *f, const char **why)
{
    td_limit best = TD_LIMIT_UNKNOWN;

    *why = NULL;
    if (!measuring(f)) {
        *why = f->unknown_reason;
        return TD_LIMIT_UNKNOWN;
    }
    /* Rounds measured from timestamps alone serve the congestion analysis; which
     * factor held the flight needs the window scale and the capture point. */
    if (f->ctx.no_handshake) {
        *why = "handshake not captured: the window scale and the capture point are unknown";
        return TD_LIMIT_UNKNOWN;
    }
    if (f->rounds < MIN_ROUNDS_FOR_VERDICT || td_flight_measured_ns(f) <= 0) {
        *why = "too little data: fewer than 4 acknowledged round trips";
        return TD_LIMIT_UNKNOWN;
    }
    for (int i = TD_LIMIT_RWND; i < TD_LIMIT_COUNT; i++)
        if (f->limit_ns[i] > f->limit_ns[best])
            best = (td_limit)i;
    if (best != TD_LIMIT_APP && f->ctx.rcv_wscale < 0)
        *why = "window scale unknown (handshake options not captured): the receive window cannot be ruled out";
    return *why ? TD_LIMIT_UNKNOWN : best;
}

double td_flight_share(const td_flight *f, td_limit limit)
{
    int64_t total = td_flight_measured_ns(f);
    return total > 0 ? 100.0 * (double)f->limit_ns[limit] / (double)total : 0.0;
}

double td_flight_throughput(const td_flight *f)
{
    int64_t total = td_flight_measured_ns(f);
    return total > 0 ? (double)f->new_bytes * 1e9 / (double)total : 0.0;
}

const td_plateau *td_flight_plateau(const td_flight *f)
{
    return f->best.rounds ? &f->best : NULL;
}

bool td_flight_round_at(const td_flight *f, uint32_t frame, uint32_t *flight)
{
    uint32_t low = 0, high = f->round_log_len;

    while (low < high) {
        uint32_t mid = low + (high - low) / 2;
        if (f->round_log[mid].frame < frame)
            low = mid + 1;
        else
            high = mid;
    }
    if (low == f->round_log_len || f->round_log[low].frame != frame)
        return false;
    *flight = f->round_log[low].flight;
    return true;
}

double td_plateau_ceiling(const td_plateau *p)
{
    return p->ns > 0 ? (double)p->high * p->rounds * 1e9 / (double)p->ns : 0.0;
}

const char *td_limit_name(td_limit limit)
{
    static const char *const names[TD_LIMIT_COUNT] = { "unknown", "rwnd", "cwnd", "sender", "app" };
    return (unsigned)limit < TD_LIMIT_COUNT ? names[limit] : "unknown";
}

const char *td_onset_name(td_onset onset)
{
    switch (onset) {
    case TD_ONSET_START:          return "start";
    case TD_ONSET_RETRANSMISSION: return "retransmission";
    case TD_ONSET_ECN_ECHO:       return "ecn-echo";
    case TD_ONSET_IDLE:           return "idle";
    case TD_ONSET_NONE:           break;
    }
    return "none";
}

const char *td_seen_from_name(td_seen_from seen)
{
    switch (seen) {
    case TD_SEEN_SENDER:   return "sender";
    case TD_SEEN_RECEIVER: return "receiver";
    case TD_SEEN_MIDDLE:   return "middle";
    case TD_SEEN_UNKNOWN:  break;
    }
    return "unknown";
}
