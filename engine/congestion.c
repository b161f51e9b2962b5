/* Congestion signals (CE, ECE, CWR, ACE, losses) of one data direction, the flight cut
 * after each response, and the reaction they add up to. */
#include "congestion.h"

#include <glib.h>
#include <stdlib.h>
#include <string.h>

#include "median.h"

enum { UNKNOWN_PCT = 255 };
/* A flight that keeps this share of its size after a response was not cut. */
#define NO_CUT_RATIO 0.9
/* A proportional cut is within this of 1 - marked/2 (DCTCP, Prague)... */
#define PROPORTIONAL_TOLERANCE 0.05
/* ...and a cut at all: below this ratio. */
#define REAL_CUT_RATIO 0.98
/* Signals this many round trips back still feed a collapse. */
enum { SIGNAL_MEMORY_ROUNDS = 2 };
/* The smallest congestion window stacks keep (Linux, RFC 5681 after a loss). */
enum { MIN_WINDOW_SEGMENTS = 2 };
/* Comparable rounds without a signal needed before the flow can be its own control. */
enum { MIN_CONTROL_ROUNDS = 4 };
/* Persistent cuts after signals must exceed dips without them by this many points. */
#define CAUSED_MARGIN_PCT 50.0
/* A sender that cut because of a signal does not grow its flight past what it was
 * within the next two round trips; BBR, probing at gain 1.25 whatever the signals,
 * does so after about as many signals as it dips after. Room for measurement noise. */
#define ROSE_MAX_PCT 10.0

static void cc_begin(td_dir *d, void *state)
{
    td_cc *cc = state;

    memset(cc, 0, sizeof *cc);
    cc->feedback = d->ctx.feedback;
    cc->first_ce_ns = cc->first_echo_ns = -1;
    cc->ecn_ratio = cc->loss_ratio = -1;
    cc->window_event = -1;
}

static void cc_release(void *state)
{
    td_cc *cc = state;

    g_free(cc->events);
    cc->events = NULL;
}

static void cc_on_feedback(td_dir *d, void *state)
{
    ((td_cc *)state)->feedback = d->ctx.feedback;
}

static td_cc_event *add_event(td_cc *cc, uint32_t frame, td_cc_event_kind kind)
{
    td_cc_event *e;

    if (cc->nevents == TD_CC_MAX_EVENTS)
        return NULL;                    /* counts go on; medians use the first ones */
    if (cc->nevents == cc->capacity) {
        cc->capacity = cc->capacity ? (uint16_t)MIN(2 * cc->capacity, TD_CC_MAX_EVENTS) : 16;
        cc->events = g_renew(td_cc_event, cc->events, cc->capacity);
    }
    e = &cc->events[cc->nevents++];
    memset(e, 0, sizeof *e);
    e->frame = frame;
    e->kind = (uint8_t)kind;
    e->latency_ns = -1;
    e->marked_pct = UNKNOWN_PCT;
    e->rate_before = e->rate_after = -1;
    return e;
}

static void settle(td_cc *cc, unsigned i)
{
    cc->npending--;
    memmove(&cc->pending[i], &cc->pending[i + 1], (cc->npending - i) * sizeof cc->pending[0]);
    memmove(&cc->pending_round[i], &cc->pending_round[i + 1], (cc->npending - i) * sizeof cc->pending_round[0]);
}

/* A loss that comes before the last one's cut could be measured takes its place:
 * their effects cannot be told apart. */
static void drop_unmeasured_losses(td_cc *cc)
{
    for (unsigned i = 0; i < cc->npending;) {
        const td_cc_event *e = &cc->events[cc->pending[i]];
        if (e->kind == TD_CC_LOSS && !e->measured)
            settle(cc, i);
        else
            i++;
    }
}

/* While SACKed data sits above a hole, una stays put and flight looks larger
 * than what the sender keeps out: a loss's cut shows only after recovery. */
static bool recovering(const td_dir *d, const td_cc *cc)
{
    return cc->in_recovery && (int32_t)(d->una - cc->recovery_point) < 0;
}

static uint32_t recent(const td_cc *cc, uint32_t round)
{
    return cc->recent_flight[round % TD_CC_HISTORY];
}

static int compare_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

enum { LEVEL_ROUNDS = 5 };

/* The level the flight held before the signal: the median of the last five closed
 * round trips. A response counts as in slow start until two round trips after the
 * flight first fell, or while it grows by half a round trip: the exit from slow
 * start cuts whatever the algorithm (CUBIC's and Reno's first response, BBR's drain
 * of its startup queue). */
static void note_level(const td_cc *cc, uint32_t round, td_cc_event *e)
{
    uint32_t level[LEVEL_ROUNDS];

    e->startup = !cc->growth_end_round || round <= cc->growth_end_round + 1 || round <= LEVEL_ROUNDS;
    e->slow_start = e->startup;
    if (round <= LEVEL_ROUNDS)
        return;
    for (uint32_t back = 1; back <= LEVEL_ROUNDS; back++)
        level[back - 1] = recent(cc, round - back);
    qsort(level, LEVEL_ROUNDS, sizeof level[0], compare_u32);
    e->typical = level[LEVEL_ROUNDS / 2];
    for (uint32_t back = 1; back <= 3; back++)
        e->slow_start |= 2 * (uint64_t)recent(cc, round - back) >= 3 * (uint64_t)recent(cc, round - back - 1);
}

/* The sender answered a signal: the round trips after this one show the cut. */
static td_cc_event *respond(const td_dir *d, td_cc *cc, uint32_t frame, td_cc_event_kind kind)
{
    td_cc_event *e;

    if (kind == TD_CC_LOSS)
        drop_unmeasured_losses(cc);
    e = add_event(cc, frame, kind);
    if (e)
        e->round = d->rounds;

    cc->signal_round = d->rounds;
    cc->responses++;
    if (!e)
        return NULL;
    /* The flight the signal found: in slow start the open round already holds
     * twice the last one, and a cut is measured from there. */
    e->before = cc->last_round_flight > d->round_flight ? cc->last_round_flight : d->round_flight;
    note_level(cc, d->rounds, e);
    if (cc->npending == TD_CC_PENDING)
        settle(cc, 0);                  /* the oldest keeps what it has measured */
    cc->pending[cc->npending] = (uint16_t)(e - cc->events);
    cc->pending_round[cc->npending] = d->rounds;
    cc->npending++;
    return e;
}

static void cc_on_ack_seen(td_dir *d G_GNUC_UNUSED, void *state, const td_record *rec)
{
    td_cc *cc = state;
    bool ece = rec->tcp_flags & TD_TH_ECE;
    td_cc_event *e;

    if (cc->feedback != TD_FEEDBACK_CLASSIC || ece == cc->ece_on)
        return;
    cc->ece_on = ece;
    if (!ece) {
        add_event(cc, rec->frame, TD_CC_ECE_END);
        return;
    }
    cc->ece_episodes++;
    e = add_event(cc, rec->frame, TD_CC_ECE_START);
    if (e && cc->first_ce_ns >= 0 && rec->time_ns >= cc->first_ce_ns)
        e->latency_ns = rec->time_ns - cc->first_ce_ns;
    cc->first_ce_ns = -1;
}

/* AccECN tells how much was marked: the share of segments marked in one
 * window of data (as much as was in flight before the response) from the ACK
 * that brought the first new marks on, as a DCTCP-like sender weighs it. */
static void close_mark_window(const td_dir *d, td_cc *cc)
{
    uint32_t segments = cc->window_acked / (d->mss ? d->mss : 1);

    if (cc->window_event >= 0 && segments)
        cc->events[cc->window_event].marked_pct = (uint8_t)MIN(100u, 100u * cc->window_marks / segments);
    cc->window_event = -1;
}

static void cc_on_ack_delivered(td_dir *d, void *state, const td_ack_sample *s, uint32_t acked, int64_t at_ns)
{
    td_cc *cc = state;
    bool ece = s->ece;
    unsigned ace_marks = s->ace_marks;

    /* the ACK's own capture time: at a receiver the lag to the sender includes the
       queue, which a drain empties, and would shrink the time between two ACKs */
    cc->acked += acked;
    cc->last_ack_ns = s->at_ns;
    if (cc->feedback == TD_FEEDBACK_CLASSIC && ece && cc->first_echo_ns < 0)
        cc->first_echo_ns = at_ns;
    if (cc->feedback != TD_FEEDBACK_ACCECN)
        return;
    cc->ace_marks += ace_marks;
    /* marks within the window of the last response belong to it */
    if (ace_marks && !cc->ace_unanswered && cc->window_event < 0) {
        cc->ace_unanswered = true;
        cc->window_marks = cc->window_acked = 0;
    }
    cc->window_marks += ace_marks;
    cc->window_acked += acked;
    if (cc->window_event >= 0 && cc->window_acked >= cc->events[cc->window_event].before)
        close_mark_window(d, cc);
}

static void cc_on_data(td_dir *d, void *state, const td_record *rec, bool retransmission)
{
    td_cc *cc = state;
    td_cc_event *e;

    if (rec->has_ip_ecn && rec->ip_ecn == TD_CE) {
        cc->ce++;
        if (cc->first_ce_ns < 0)
            cc->first_ce_ns = rec->time_ns;
    }
    /* One response per round trip: a CWR resent with a retransmission is the same one. */
    if (cc->feedback == TD_FEEDBACK_CLASSIC && (rec->tcp_flags & TD_TH_CWR) && d->rounds + 1 > cc->ecn_round) {
        cc->cwr++;
        cc->ecn_round = d->rounds + 1;
        e = respond(d, cc, rec->frame, TD_CC_CWR);
        if (e && cc->first_echo_ns >= 0 && rec->time_ns >= cc->first_echo_ns)
            e->latency_ns = rec->time_ns - cc->first_echo_ns;
        cc->first_echo_ns = -1;
    }
    /* An AccECN sender sends no CWR; at most one response per round trip. */
    if (cc->feedback == TD_FEEDBACK_ACCECN && cc->ace_unanswered && d->rounds + 1 > cc->ecn_round) {
        cc->ace_unanswered = false;
        cc->ecn_round = d->rounds + 1;
        e = respond(d, cc, rec->frame, TD_CC_ACE);
        if (e)
            cc->window_event = (int16_t)(e - cc->events);
        if (e && cc->window_acked >= e->before)
            close_mark_window(d, cc);
    }
    /* One recovery per loss episode: retransmissions until the ACK passes what
     * had been sent when it began belong to it, unless one sends again what this
     * recovery already resent: the retransmission was lost (or a timeout went back
     * to una), a new congestion event on which stacks cut again (RFC 6675 §5.1). */
    if (!retransmission)
        return;
    bool resent = cc->in_recovery && (int32_t)(rec->seq - cc->resent_high) < 0;
    if (!cc->in_recovery || (int32_t)(d->una - cc->recovery_point) >= 0 || resent) {
        cc->in_recovery = true;
        cc->recovery_point = d->nxt;
        cc->resent_high = rec->seq;
        cc->losses++;
        cc->loss_round = d->rounds + 1;
        respond(d, cc, rec->frame, TD_CC_LOSS);
    }
    if ((int32_t)(rec->seq + rec->payload_len - cc->resent_high) > 0)
        cc->resent_high = rec->seq + rec->payload_len;
}

/* A collapse is one sustained stretch: rounds at the floor scattered over a long
 * transfer (a window that dips to a few segments now and then, and recovers) are
 * not one (the lab's kernel truth for CUBIC under 3 % random marking). */
static void note_collapse(const td_dir *d, td_cc *cc, uint32_t index, uint32_t flight, int64_t ns,
                          const td_flight_config *cfg)
{
    uint32_t unit = d->mss ? d->mss : 1;

    /* A flight of no segment is an idle connection, not a collapsed window; a reply's
       flight is the reply (one segment answers a short request, whatever the window). */
    if (cc->responses < 2 || !flight || d->round_answers ||
        flight > cfg->collapse_mss * unit || index - cc->signal_round > SIGNAL_MEMORY_ROUNDS) {
        cc->run_rounds = 0;
        return;
    }
    if (!cc->run_rounds) {
        cc->run_floor = flight;
        cc->run_start_frame = d->round_start_frame;
        cc->run_ns = 0;
    }
    cc->run_floor = MIN(cc->run_floor, flight);
    cc->run_rounds++;
    cc->run_ns += ns;
    if (cc->run_rounds > cc->collapse_rounds) {
        cc->collapse_rounds = cc->run_rounds;
        cc->collapse_floor = cc->run_floor;
        cc->collapse_start_frame = cc->run_start_frame;
        cc->collapse_ns = cc->run_ns;
    }
}

/* The flow as its own control: a round with no response in the round before it, in
 * it or in the two after, measured as a response would be (the two rounds after it
 * against it). A sender whose flight dips as often without signals as after them did
 * not cut because of them. */
static void note_control(const td_dir *d, td_cc *cc, uint32_t index, uint32_t flight)
{
    uint32_t base, floor = MIN_WINDOW_SEGMENTS * (d->mss ? d->mss : 1);
    bool quiet = true;

    cc->recent_flight[index % TD_CC_HISTORY] = flight;
    cc->recent_response[index % TD_CC_HISTORY] = cc->responses && cc->signal_round == index;
    if (index < 3)
        return;
    if (!cc->growth_end_round && recent(cc, index - 1) > floor && flight < NO_CUT_RATIO * recent(cc, index - 1))
        cc->growth_end_round = index + 1;
    for (uint32_t back = 0; back < 4; back++)
        quiet = quiet && !cc->recent_response[(index - back) % TD_CC_HISTORY];
    base = recent(cc, index - 2);
    if (!quiet || base <= floor)
        return;
    cc->control_rounds++;
    cc->control_dips += MAX(recent(cc, index - 1), flight) < NO_CUT_RATIO * base;
}

/* An ECN response at the end of slow start is judged by the delivery rate: the flight
 * the echo found there is no level the sender held, and a drain (BBR leaving startup)
 * shrinks the flight and the queue together while the rate stays. (A window of a few
 * segments that grows by one is also growing by half, but not in slow start: those
 * responses are left out as before.) */
static bool rate_judged(const td_cc_event *e)
{
    return e->startup && td_cc_is_ecn_response(e);
}

/* Round trips after a response that show its effect: the cut in the first two. What
 * a round sends is acked in the same round or the next, as the capture point sees the
 * ACKs early or late: the rate a response found (what the round before it or its own
 * round sent, as `before` takes the larger flight) is the best of the round before it,
 * its own and the next, and the rate of the second and third round after it (its cut,
 * kept or not) shows in the third and fourth. A drain (BBR leaving startup) does not
 * lower it: the queue it empties keeps the bottleneck busy. */
enum { CUT_ROUNDS = 2, RATE_ROUNDS = 4 };

/* Bytes acked per second over the `rounds` round trips up to the close of round last,
 * -1 when that cannot be told. Measured between the ACKs that closed the rounds (as
 * captured), not over the rounds' own durations: a round begins with its first
 * segment sent, so the ACKs that came before it (a paced sender's gap) would count in
 * too little time. */
static float delivery_rate(const td_cc *cc, uint32_t last, uint32_t rounds)
{
    uint32_t from = (last - rounds) % TD_CC_HISTORY, to = last % TD_CC_HISTORY;
    int64_t ns = cc->close_ns[to] - cc->close_ns[from];

    if (last < rounds || ns <= 0)
        return -1;
    return (float)((double)(cc->close_acked[to] - cc->close_acked[from]) * 1e9 / (double)ns);
}

static void cc_on_round(td_dir *d, void *state, uint32_t index, uint32_t flight, int64_t ns,
                        const td_flight_config *cfg)
{
    td_cc *cc = state;

    cc->close_acked[index % TD_CC_HISTORY] = cc->acked;
    cc->close_ns[index % TD_CC_HISTORY] = cc->last_ack_ns;
    for (unsigned i = 0; i < cc->npending;) {
        td_cc_event *e = &cc->events[cc->pending[i]];
        uint32_t since;
        if (e->kind == TD_CC_LOSS && recovering(d, cc))
            cc->pending_round[i] = index;       /* count from the end of recovery */
        if (index <= cc->pending_round[i]) {
            i++;
            continue;
        }
        since = index - cc->pending_round[i];
        if (since <= CUT_ROUNDS) {
            if (!e->measured || flight < e->after) {
                e->after = flight;
                e->measured = e->before > 0;
            }
            e->second_after = flight;
        }
        if (since == 1 && rate_judged(e))
            e->rate_before = MAX(MAX(delivery_rate(cc, index - 2, 1), delivery_rate(cc, index - 1, 1)),
                                 delivery_rate(cc, index, 1));
        /* A loss near it spoils the rates: the ACK that ends a recovery acks at once
           what was SACKed over several round trips. */
        if (since == RATE_ROUNDS && rate_judged(e) && cc->loss_round < cc->pending_round[i])
            e->rate_after = delivery_rate(cc, index, 2);
        if (since >= (rate_judged(e) ? RATE_ROUNDS : CUT_ROUNDS))
            settle(cc, i);
        else
            i++;
    }
    cc->last_round_flight = flight;
    note_control(d, cc, index, flight);
    note_collapse(d, cc, index, flight, ns, cfg);
}

static int compare_frame(const void *a, const void *b)
{
    uint32_t x = ((const td_cc_event *)a)->frame, y = ((const td_cc_event *)b)->frame;
    return (x > y) - (x < y);
}

static double ratio_of(const td_cc_event *e)
{
    return (double)e->after / e->before;
}

/* Median ratio of the measured responses of the given kinds, -1 when none.
 * Responses at the smallest window a stack keeps (two segments) cannot cut
 * and say nothing about how the sender reacts. */
static double median_ratio(const td_cc *cc, uint32_t mss, bool ecn)
{
    double ratios[TD_CC_MAX_EVENTS];
    unsigned n = 0;

    for (unsigned i = 0; i < cc->nevents; i++) {
        const td_cc_event *e = &cc->events[i];
        bool is_ecn = td_cc_is_ecn_response(e);
        if (e->measured && e->before > MIN_WINDOW_SEGMENTS * mss &&
            (is_ecn ? ecn : e->kind == TD_CC_LOSS && !ecn))
            ratios[n++] = ratio_of(e);
    }
    return td_median(ratios, n);
}

/* Cuts that follow the marked share (1 - F/2), where the feedback tells F. */
static bool cuts_follow_marks(const td_cc *cc)
{
    unsigned known = 0, following = 0;

    for (unsigned i = 0; i < cc->nevents; i++) {
        const td_cc_event *e = &cc->events[i];
        if (e->kind != TD_CC_ACE || !e->measured || e->marked_pct == UNKNOWN_PCT)
            continue;
        known++;
        double expected = 1.0 - e->marked_pct / 200.0;
        following += ratio_of(e) < REAL_CUT_RATIO && ratio_of(e) > expected - PROPORTIONAL_TOLERANCE &&
                     ratio_of(e) < expected + PROPORTIONAL_TOLERANCE;
    }
    return known >= 3 && following * 3 >= known * 2;
}

/* The flight was cut, and what the second and third round after a rate-judged
 * response sent stayed below NO_CUT_RATIO of the rate reached: the sender kept its cut. */
static bool rate_kept_cut(const td_cc_event *e)
{
    return e->measured && e->rate_before > 0 && e->rate_after >= 0 && e->after < NO_CUT_RATIO * e->before &&
           e->rate_after < NO_CUT_RATIO * e->rate_before;
}

/* Of the measured responses, the share (%) that kept their cut: past slow start, a
 * flight still below NO_CUT_RATIO of the level before the signal in the second round
 * after; an ECN response at the end of slow start, rate_kept_cut. In *rose_share, of
 * those past slow start, the share after which the flight grew past that level
 * instead (BBR's gain cycle; at the end of slow start every sender grows on towards
 * the path's rate unless it cut, so growth there says nothing of the algorithm). */
static double persisted_share(const td_cc *cc, uint32_t mss, bool ecn, double *rose_share)
{
    unsigned n = 0, persisted = 0, rose = 0;

    for (unsigned i = 0; i < cc->nevents; i++) {
        const td_cc_event *e = &cc->events[i];
        bool is_ecn = td_cc_is_ecn_response(e);
        if (!e->measured || (is_ecn ? !ecn : e->kind != TD_CC_LOSS || ecn))
            continue;
        if (rate_judged(e)) {
            if (e->rate_before <= 0 || e->rate_after < 0 || e->before <= MIN_WINDOW_SEGMENTS * mss)
                continue;
            n++;
            persisted += rate_kept_cut(e);
            continue;
        }
        if (e->slow_start || e->typical <= MIN_WINDOW_SEGMENTS * mss)
            continue;
        n++;
        persisted += e->second_after < NO_CUT_RATIO * e->typical;
        rose += e->second_after * NO_CUT_RATIO > e->typical;
    }
    *rose_share = n ? 100.0 * rose / n : 0;
    return n ? 100.0 * persisted / n : 0;
}

/* Most responses cut for good, well beyond how often the flow's flight dipped as
 * deep at comparable rounds without a signal: the signals caused the cuts. BBR's
 * flight moves with its gain cycle whether a signal came or not, and returns.
 * A collapse proves it another way (cc_finish): the flight held at its floor while
 * signals kept coming, where every round trip dips against the flow's typical
 * flight, signal or not, so the comparison with rounds without one shows nothing
 * (a CUBIC flow collapsed under CE marks, lab-ecn-two-servers stream 2). */
static bool caused_by_signals(const td_cc *cc)
{
    return cc->cut_share - MAX(cc->control_share, 0.0) >= CAUSED_MARGIN_PCT && cc->rose_share <= ROSE_MAX_PCT;
}

static void cc_finish(td_dir *d, void *state, const td_flight_config *cfg)
{
    td_cc *cc = state;
    bool ecn_signals = cc->ece_episodes || cc->ace_marks || cc->cwr;
    double median;

    cc->npending = 0;
    close_mark_window(d, cc);
    if (cc->nevents)
        qsort(cc->events, cc->nevents, sizeof cc->events[0], compare_frame);
    cc->ecn_ratio = median_ratio(cc, d->mss, true);
    cc->loss_ratio = median_ratio(cc, d->mss, false);

    median = ecn_signals ? cc->ecn_ratio : cc->loss_ratio;
    cc->cut_share = persisted_share(cc, d->mss, ecn_signals, &cc->rose_share);
    cc->control_share = cc->control_rounds >= MIN_CONTROL_ROUNDS ? 100.0 * cc->control_dips / cc->control_rounds : -1;
    if (!ecn_signals && !cc->losses)
        cc->reaction = TD_REACTION_NO_SIGNAL;
    else if (median < 0)
        cc->reaction = TD_REACTION_UNKNOWN;
    else if (cuts_follow_marks(cc))
        cc->reaction = TD_REACTION_PROPORTIONAL;
    else
        cc->reaction = median < NO_CUT_RATIO && (caused_by_signals(cc) || td_cc_collapsed(cc, cfg))
                       ? TD_REACTION_LOSS_LIKE : TD_REACTION_NONE;
    cc->reductions = 0;
    for (unsigned i = 0; i < cc->nevents; i++)
        cc->reductions += td_cc_is_reduction(cc, &cc->events[i]);
}

/* Signals and responses need the round trips: directions whose flight cannot be
 * measured get no congestion analysis. */
const td_dir_ops td_cc_ops = {
    .measured_only = true,
    .begin = cc_begin,
    .release = cc_release,
    .on_data = cc_on_data,
    .on_ack_seen = cc_on_ack_seen,
    .on_ack_delivered = cc_on_ack_delivered,
    .on_round = cc_on_round,
    .on_feedback = cc_on_feedback,
    .finish = cc_finish,
};

const td_cc_event *td_cc_event_at(const td_cc *cc, uint32_t frame)
{
    unsigned low = 0, high = cc->nevents;

    while (low < high) {
        unsigned mid = (low + high) / 2;
        if (cc->events[mid].frame < frame)
            low = mid + 1;
        else
            high = mid;
    }
    return low < cc->nevents && cc->events[low].frame == frame ? &cc->events[low] : NULL;
}

bool td_cc_collapsed(const td_cc *cc, const td_flight_config *cfg)
{
    return cc->collapse_rounds && cc->collapse_rounds >= cfg->collapse_min_rounds;
}

bool td_cc_lasting_cut(const td_cc_event *e)
{
    /* The exit from slow start shrinks the flight whatever the algorithm (CUBIC's and
     * Reno's first response, BBR's drain of its startup queue): there an ECN response
     * is judged by the rate it left (rate_kept_cut), and a loss not at all. Past it the
     * level is the flight the last round trips held, which one probing spike does not
     * set. */
    if (rate_judged(e))
        return rate_kept_cut(e);
    return e->measured && !e->slow_start && td_cc_is_response(e) && e->second_after < NO_CUT_RATIO * e->typical &&
           e->after < NO_CUT_RATIO * e->before;
}

bool td_cc_is_reduction(const td_cc *cc, const td_cc_event *e)
{
    return (cc->reaction == TD_REACTION_LOSS_LIKE || cc->reaction == TD_REACTION_PROPORTIONAL) &&
           td_cc_lasting_cut(e);
}

unsigned td_cc_measured_responses(const td_cc *cc, bool ecn)
{
    unsigned n = 0;

    for (unsigned i = 0; i < cc->nevents; i++) {
        const td_cc_event *e = &cc->events[i];
        bool is_ecn = td_cc_is_ecn_response(e);
        n += e->measured && (ecn ? is_ecn : e->kind == TD_CC_LOSS);
    }
    return n;
}

bool td_cc_ecn_driven(const td_cc *cc)
{
    return (cc->cwr || cc->ace_marks || cc->ece_episodes) && td_cc_measured_responses(cc, true) >= cc->losses;
}

bool td_cc_cuts_like_loss(double median_ratio)
{
    return median_ratio >= 0 && median_ratio < NO_CUT_RATIO;
}

const char *td_cc_unobserved(const td_dir *d, const td_cc *cc)
{

    if (cc->feedback == TD_FEEDBACK_NONE)
        return NULL;
    if (d->ctx.no_handshake)
        return cc->feedback == TD_FEEDBACK_ACCECN
            ? "handshake not captured: AccECN taken from the AE flag; marks before the capture are not counted"
            : "handshake not captured: classic ECN taken from the ECT, ECE and CWR seen";
    if (d->ctx.seen_from == TD_SEEN_SENDER)
        return "ce: routers mark downstream of the sender, so its side never shows CE";
    if ((cc->ece_episodes || cc->ace_marks) && !cc->ce)
        return "ce: echoed but never seen here, so marked downstream of this capture point";
    return NULL;
}

const char *td_cc_confidence(const td_cc *cc, uint32_t mss)
{
    unsigned n = 0;
    double margin = cc->cut_share - MAX(cc->control_share, 0.0);

    for (unsigned i = 0; i < cc->nevents; i++)
        n += cc->events[i].measured && td_cc_is_response(&cc->events[i]) &&
             cc->events[i].before > MIN_WINDOW_SEGMENTS * (mss ? mss : 1);
    if (n >= 5 && (cc->control_share >= 0 || margin >= 80 || margin <= 20))
        return "high";
    return n >= 3 ? "medium" : "low";
}

const char *td_reaction_name(td_reaction reaction)
{
    switch (reaction) {
    case TD_REACTION_NO_SIGNAL:    return "no-signal";
    case TD_REACTION_NONE:         return "none";
    case TD_REACTION_LOSS_LIKE:    return "loss-like";
    case TD_REACTION_PROPORTIONAL: return "proportional";
    case TD_REACTION_UNKNOWN:      break;
    }
    return "unknown";
}

const char *td_cc_event_name(td_cc_event_kind kind)
{
    switch (kind) {
    case TD_CC_ECE_START: return "ece-start";
    case TD_CC_ECE_END:   return "ece-end";
    case TD_CC_CWR:       return "cwr";
    case TD_CC_ACE:       return "ace";
    case TD_CC_LOSS:      return "loss";
    }
    return "unknown";
}
