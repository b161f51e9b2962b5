/* Path MTU black holes: each sender's segments against the size its handshake allowed
 * (pmtu.h says what is watched and why). */
#include "pmtu.h"

#include <string.h>

/* The timestamps option as a data segment carries it (10 bytes and 2 of NOP padding):
 * the room a sender's MSS loses when both sides use timestamps (RFC 7323 §3.2). */
enum { TS_OPTION_ROOM = 12 };
/* Every IPv4 path carries 576-byte datagrams (RFC 9293 §3.7.1: the default MSS 536),
 * so a segment smaller than that, less the timestamps option, is no MTU's cut: a
 * smaller run is the application's writes. */
enum { MIN_CUT_SIZE = 536 - TS_OPTION_ROOM };

static bool seq_before(uint32_t a, uint32_t b)
{
    return td_seq_before(a, b);
}

/* The segment size the handshake allowed the sender: the smaller announced MSS, less
 * the timestamps option when both use it; 0 when an MSS is not known. */
static uint16_t allowed_size(const td_handshake *hs)
{
    const td_syn_options *a = &hs->opts[0], *b = &hs->opts[1];
    unsigned size;

    if (!hs->opts_seen[0] || !hs->opts_seen[1] || !(a->present & TD_OPT_MSS) || !(b->present & TD_OPT_MSS))
        return 0;
    size = a->mss < b->mss ? a->mss : b->mss;
    if ((a->present & b->present & TD_OPT_TS) && size > TS_OPTION_ROOM)
        size -= TS_OPTION_ROOM;
    return (uint16_t)size;
}

static void count_up(uint16_t *counter)
{
    if (*counter < UINT16_MAX)
        (*counter)++;
}

/* The record's sender as the peer of the other side's data: its new data, or its ACK
 * of more of that data, is progress; the ACK of a full-size segment sent after a run
 * shows the path carrying full size again. */
static void as_peer(td_pmtu_side *other, const td_record *rec, bool new_data)
{
    bool progress = new_data || !other->progress_ns;

    if (other->seq_known && (rec->tcp_flags & TD_TH_ACK) && seq_before(other->acked, rec->ack)) {
        other->acked = rec->ack;
        progress = true;
        if (other->full_end && !seq_before(rec->ack, other->full_end))
            other->back_to_full = true;
    }
    if (progress) {
        other->progress_ns = rec->time_ns;
        other->full_retransmissions = 0;
    }
}

static void open_candidate(td_pmtu_side *me, const td_record *rec)
{
    me->in_candidate = true;
    me->candidate = (td_pmtu_run){ rec->time_ns, rec->time_ns - me->progress_ns, rec->frame,
                                   (uint16_t)rec->payload_len, me->full_retransmissions, false };
}

/* A segment below the allowed size: it opens a candidate run (or replaces it when it
 * starts a new exchange, nothing outstanding, after a longer wait), and new data of the
 * same size while data is still outstanding confirms it. */
static void reduced_segment(td_pmtu_side *me, const td_record *rec, bool new_data, bool hole)
{
    bool outstanding = seq_before(me->acked, me->hi);
    uint16_t size = (uint16_t)rec->payload_len;

    if (me->reduced) {
        me->largest_after = size > me->largest_after ? size : me->largest_after;
    } else if (!me->in_candidate || (!outstanding && rec->time_ns - me->progress_ns > me->candidate.wait_ns)) {
        open_candidate(me, rec);
    } else {
        me->candidate.hole = me->candidate.hole || (new_data && hole);
        if (new_data && outstanding && size == me->last_reduced) {
            if (!me->run.frame || me->candidate.wait_ns > me->run.wait_ns)
                me->run = me->candidate;
            me->reduced = true;
            me->in_candidate = false;
            me->largest_after = size > me->candidate.size ? size : me->candidate.size;
        }
    }
    me->last_reduced = size;
}

static void as_sender(td_pmtu_side *me, const td_record *rec, const td_handshake *hs)
{
    uint32_t end = rec->seq + rec->payload_len;
    bool new_data, hole;

    if (!me->seq_known) {
        me->seq_known = true;
        me->hi = me->acked = rec->seq;
    }
    new_data = seq_before(me->hi, end);
    hole = seq_before(me->hi, rec->seq);
    if (!me->allowed && !me->off) {
        me->allowed = allowed_size(hs);
        me->off = !me->allowed;
    }
    if (me->allowed && rec->payload_len >= me->allowed) {
        if (seq_before(rec->seq, me->hi) && !me->reduced)
            count_up(&me->full_retransmissions);
        if (me->reduced)
            me->full_end = end;
        else if (new_data)
            me->in_candidate = false;       /* full size again: the short one was a tail */
    } else if (me->allowed && rec->payload_len >= MIN_CUT_SIZE) {
        reduced_segment(me, rec, new_data, hole);
    }
    if (new_data)
        me->hi = end;
}

void td_pmtu_record(td_pmtu *p, const td_record *rec, int sender, const td_handshake *hs)
{
    td_pmtu_side *me = &p->side[sender];
    bool new_data = rec->payload_len && (!me->seq_known || seq_before(me->hi, rec->seq + rec->payload_len));

    if (rec->tcp_flags & (TD_TH_SYN | TD_TH_RST))
        return;
    as_peer(&p->side[1 - sender], rec, new_data);
    if (rec->payload_len)
        as_sender(me, rec, hs);
}

const td_pmtu_run *td_pmtu_blackhole(const td_pmtu *p, int sender)
{
    const td_pmtu_side *s = &p->side[sender];

    if (!s->run.frame || s->back_to_full)
        return NULL;
    /* full-size segments seen dying (sent again and again), or data sent before the
       run that never reached the capture point */
    return s->run.full_retransmissions >= 2 || s->run.hole ? &s->run : NULL;
}
