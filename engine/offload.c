/* Segmentation offload of one data direction: the segment-size profile, super-packets,
 * the cap, and the verdict by capture point. */
#include "offload.h"

#include <glib.h>
#include <string.h>


/* Thresholds of the verdicts (docs/offload.md). */
enum {
    MIN_BYTES = 64 * 1024,          /* less data than this cannot show a pattern */
    MIN_BUSY_ROUNDS = 8,            /* round trips with 2 MSS or more to send at once */
    BUSY_MSS = 2,                   /* what a TSO sender needs to build a super-packet */
    LARGEST_CAP = 60 * 1024,        /* caps at 60-64 KB are the TSO maximum itself */
    MIN_PATH_MSS = 536,             /* no path makes segments smaller than this full */
};
#define RATE_WINDOW_S 0.001         /* Linux sizes a GSO packet to ~1 ms of its rate */

void td_offload_begin(td_offload *o, uint32_t announced_mss)
{
    memset(o, 0, sizeof *o);
    o->unit = announced_mss ? announced_mss : 1460;
}

void td_offload_free(td_offload *o)
{
    g_free(o->runs);
    o->runs = NULL;
}

static td_cap_run *top_run(td_offload *o)
{
    return o->nruns ? &o->runs[o->nruns - 1] : NULL;
}

/* Runs no larger than a super-packet merge into its own. */
static void note_super_packet(td_offload *o, uint8_t bin, uint32_t frame, uint32_t bytes)
{
    td_cap_run run = { frame, 1, 1, bytes, bin };
    td_cap_run *top;

    if (!o->runs)
        o->runs = g_new(td_cap_run, TD_CAP_STACK);
    while ((top = top_run(o)) && top->bin < bin) {
        run.count += top->count;
        run.first_frame = top->first_frame;
        o->nruns--;
    }
    if (top && top->bin == bin) {
        top->count += run.count;
        top->at_bin++;
        if (bytes > top->max_bytes)
            top->max_bytes = bytes;
        return;
    }
    o->runs[o->nruns++] = run;          /* bins fall strictly: at most TD_CAP_STACK runs */
}

void td_offload_data(td_offload *o, const td_record *rec)
{
    uint32_t len = rec->payload_len;
    /* a segment no larger than the unit is in bin 1: no division for those */
    uint32_t bin = len <= o->unit ? 1 : (len + o->unit - 1) / o->unit;

    if (!len)
        return;
    o->segments++;
    o->bytes += len;
    if (len > o->max_payload)
        o->max_payload = len;
    if (len <= o->unit && len >= o->largest_plain) {
        o->largest_plain_count = len == o->largest_plain ? o->largest_plain_count + 1 : 1;
        o->largest_plain = len;
    }
    o->size_bins[bin < TD_SIZE_BINS ? bin : TD_SIZE_BINS]++;
    o->ip_len_zero += rec->ip_len_zero;
    if (len <= o->unit)
        return;
    o->super_packets++;
    o->super_bytes += len;
    note_super_packet(o, (uint8_t)(bin < TD_SIZE_BINS ? bin : TD_SIZE_BINS), rec->frame, len);
}

/* The timestamp option with its two NOPs of padding, as every stack sends it. */
enum { TS_OPTION_BYTES = 12 };

uint32_t td_offload_handshake_mss(uint32_t announced_mss, bool timestamps)
{
    return announced_mss > TS_OPTION_BYTES && timestamps ? announced_mss - TS_OPTION_BYTES : announced_mss;
}

const char *td_offload_mss_source(const td_dir *d)
{
    return d->ctx.peer_mss && d->mss == td_offload_handshake_mss(d->ctx.peer_mss, d->ctx.timestamps) ? "handshake"
                                                                                                   : "inferred";
}

uint32_t td_offload_full_segment(const td_offload *o, const td_record *rec)
{
    uint32_t len = rec->payload_len;
    uint32_t room = o->unit - ((rec->options.present & TD_OPT_TS) ? TS_OPTION_BYTES : 0);

    if (!o->unit || len <= o->unit)
        return len;
    /* in 64 bits: a hostile length near 4 GiB must not wrap the count to 0 */
    uint32_t n = (uint32_t)(((uint64_t)len + o->unit - 1) / o->unit);
    /* Only parts of exactly a full segment's room: any even length splits into two
     * equal halves, and a single write's 2 x 988 bytes says nothing of the MSS. */
    return len % n == 0 && len / n == room ? room : 0;
}

void td_offload_round(td_offload *o, uint32_t flight, uint32_t mss)
{
    if (mss && flight >= BUSY_MSS * mss)
        o->busy_rounds++;
}

/* Payload below which a share of the segments lie, to the MSS. */
static uint32_t size_quantile(const td_offload *o, uint32_t mss, unsigned pct)
{
    uint64_t wanted = ((uint64_t)o->segments * pct + 99) / 100, seen = 0;

    for (unsigned bin = 1; bin <= TD_SIZE_BINS; bin++) {
        seen += o->size_bins[bin];
        if (seen >= wanted && seen) {
            uint32_t top = bin == 1 ? (mss ? mss : o->unit) : bin * o->unit;
            return top < o->max_payload ? top : o->max_payload;
        }
    }
    return o->max_payload;
}

/* The cap: the largest run whose size at least half of the super-packets from
 * its start on have, where that stretch holds at least half of them all. */
static const td_cap_run *find_cap(const td_offload *o)
{
    uint32_t after = 0;

    for (unsigned i = 0; i < o->nruns; i++)
        after += o->runs[i].count;
    for (unsigned i = 0; i < o->nruns; i++) {
        const td_cap_run *run = &o->runs[i];
        if (run->bin >= 2 && 2 * run->at_bin >= after && 2 * after >= o->super_packets)
            return run;
        after -= run->count;
    }
    return NULL;
}

static bool equals_plateau(const td_dir *d, uint32_t cap)
{
    uint32_t high = d->sender_plateau;
    return high && high + d->mss >= cap && cap + d->mss >= high;
}

static void judge_super_packets(const td_dir *d, const td_offload *o, td_offload_result *out)
{
    const td_cap_run *cap;

    switch (d->ctx.seen_from) {
    case TD_SEEN_RECEIVER:
    case TD_SEEN_MIDDLE:
        out->verdict = TD_OFFLOAD_COALESCED;
        return;
    case TD_SEEN_UNKNOWN:
        out->reason = "capture point unknown: the sender's TSO and the receiver's GRO look alike";
        return;
    case TD_SEEN_SENDER:
        break;
    }
    out->verdict = TD_OFFLOAD_OFFLOADED;
    cap = find_cap(o);
    if (!cap || cap->max_bytes >= LARGEST_CAP)
        return;
    /* A GSO packet of about 1 ms of the flow's rate is normal; a cap far below
     * that is not, nor one that is the whole flight the sender allows itself or
     * that a collapsing congestion window leaves it. */
    if (2.0 * cap->max_bytes < d->throughput * RATE_WINDOW_S || equals_plateau(d, cap->max_bytes) ||
        d->collapsed) {
        out->verdict = TD_OFFLOAD_CAPPED;
        out->cap = cap->max_bytes;
        out->cap_start_frame = cap->first_frame;
    }
}

/* The MSS claims no more than the packets show. A segment shows only that the MSS
 * is at least its size: its largest one is taken for the MSS when it is the full
 * segment the handshake implies (or more), or when a super-packet split into full
 * segments, or when at least two segments had that size and it is one a path can
 * impose (536 bytes, the smallest MSS of IPv4: RFC 9293 §3.7.1). Otherwise (a
 * direction of 78-byte requests, one HTTP POST) the MSS is the handshake's, or
 * unknown (0) without one. */
static void settle_mss(td_dir *d, const td_offload *o)
{
    uint32_t handshake = td_offload_handshake_mss(d->ctx.peer_mss, d->ctx.timestamps);
    bool split = d->mss > o->largest_plain;
    bool repeated = d->mss == o->largest_plain && o->largest_plain_count >= 2 && o->largest_plain >= MIN_PATH_MSS;

    if ((handshake && d->mss >= handshake) || split || repeated)
        return;
    d->mss = handshake;
}

void td_offload_judge(td_dir *d, td_offload *o)
{
    td_offload_result *out = &o->result;

    settle_mss(d, o);
    memset(out, 0, sizeof *out);
    out->median = size_quantile(o, d->mss, 50);
    out->p95 = size_quantile(o, d->mss, 95);
    out->super_share = o->bytes ? 100.0 * (double)o->super_bytes / (double)o->bytes : 0.0;
    if (d->unknown_reason) {
        out->reason = d->unknown_reason;
        return;
    }
    /* Sizes say nothing about offload without knowing which side the capture saw. */
    if (d->ctx.no_handshake) {
        out->reason = "handshake not captured: the capture point, and so TSO from GRO, cannot be told";
        return;
    }
    if (d->new_bytes < MIN_BYTES) {
        out->reason = "too little data: under 64 kB";
        return;
    }
    if (o->super_packets)
        judge_super_packets(d, o, out);
    else if (d->ctx.seen_from != TD_SEEN_SENDER)
        out->reason = "no super-packets, and only the sender's side shows whether it used offload";
    else if (o->busy_rounds < MIN_BUSY_ROUNDS)
        out->reason = "never 2 MSS to send at once for 8 round trips: nothing to offload";
    else
        out->verdict = TD_OFFLOAD_MSS_CAPPED;
    if (out->verdict == TD_OFFLOAD_CAPPED || out->verdict == TD_OFFLOAD_MSS_CAPPED) {
        if (d->collapsed)
            out->cap_cause = TD_CAP_CAUSE_WINDOW_COLLAPSE;
        else if (out->verdict == TD_OFFLOAD_CAPPED && equals_plateau(d, out->cap))
            out->cap_cause = TD_CAP_CAUSE_FLIGHT_PLATEAU;
    }
}

/* The table's hooks over the profile (state: a td_offload). */
static void offload_begin(td_dir *d, void *state)
{
    td_offload_begin(state, d->ctx.peer_mss);
}

static void offload_release(void *state)
{
    td_offload_free(state);
}

static void offload_on_segment(td_dir *d G_GNUC_UNUSED, void *state, const td_record *rec)
{
    td_offload_data(state, rec);
}

static void offload_on_round(td_dir *d, void *state, uint32_t index G_GNUC_UNUSED, uint32_t flight,
                             int64_t ns G_GNUC_UNUSED, const td_flight_config *cfg G_GNUC_UNUSED)
{
    td_offload_round(state, flight, d->mss);
}

static void offload_finish(td_dir *d, void *state, const td_flight_config *cfg G_GNUC_UNUSED)
{
    td_offload_judge(d, state);
}

/* Segment sizes need no lag: every data direction is profiled, even without a
 * handshake (its verdict then says why it cannot be judged). */
const td_dir_ops td_offload_ops = {
    .measured_only = false,
    .begin = offload_begin,
    .release = offload_release,
    .on_segment = offload_on_segment,
    .on_round = offload_on_round,
    .finish = offload_finish,
};

const char *td_offload_verdict_name(td_offload_verdict verdict)
{
    switch (verdict) {
    case TD_OFFLOAD_OFFLOADED:  return "offloaded";
    case TD_OFFLOAD_COALESCED:  return "coalesced";
    case TD_OFFLOAD_MSS_CAPPED: return "mss-capped";
    case TD_OFFLOAD_CAPPED:     return "capped";
    case TD_OFFLOAD_UNKNOWN:    break;
    }
    return "unknown";
}

const char *td_cap_cause_name(td_cap_cause cause)
{
    switch (cause) {
    case TD_CAP_CAUSE_WINDOW_COLLAPSE: return "window-collapse";
    case TD_CAP_CAUSE_FLIGHT_PLATEAU:  return "flight-plateau";
    case TD_CAP_CAUSE_NONE:            break;
    }
    return "none";
}
