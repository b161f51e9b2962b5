/* Nagle's algorithm meeting the peer's delayed ACK (nagle.h): the holds, counted per
 * sender as the records pass. */
#include "nagle.h"

#include <glib.h>
#include "series.h"

/* Linux's delayed ACK is at least 40 ms (TCP_DELACK_MIN); a prompt ACK's jitter on a
 * busy host is a few ms. */
void td_nagle_config_defaults(td_nagle_config *cfg)
{
    cfg->min_ack_delay_ms = 30;
}

/* Released right after the ACK reached the sender: within the capture point's round
 * trip to it, and a quarter of the path's round trip (at least 1 ms) of jitter. */
static bool released_at_once(int64_t after_ack_ns, int64_t to_sender, int64_t path_rtt)
{
    return after_ack_ns <= to_sender + MAX(path_rtt / 4, (int64_t)1000000);
}

void td_nagle_record(td_nagle *n, const td_record *rec, int sender, int client, const td_handshake *hs,
                     uint32_t mss, const td_nagle_config *cfg, td_series_book *history)
{
    td_nagle_side *me = &n->side[sender], *peer = &n->side[1 - sender];
    int64_t to_server, to_client, to_me, to_peer, t = rec->time_ns;
    uint32_t end = rec->seq + rec->payload_len;

    /* the halves read once for both ends' round trips (td_handshake_round_trip_to
     * for each read them twice on every segment) */
    if ((rec->tcp_flags & (TD_TH_SYN | TD_TH_RST)) || client < 0 || !td_handshake_halves(hs, &to_server, &to_client))
        return;
    to_me = sender == client ? to_client : to_server;
    to_peer = sender == client ? to_server : to_client;
    /* What its ACK says of the peer's data: all of it acknowledged, by a pure ACK this
       receiver held past the round trip from the capture point to it (it had nothing
       to send with it). */
    if ((rec->tcp_flags & TD_TH_ACK) && peer->outstanding && !td_seq_before(rec->ack, peer->hi)) {
        peer->outstanding = false;
        if (!rec->payload_len && !(rec->tcp_flags & TD_TH_FIN) &&
            t - peer->sent_ns - to_me >= (int64_t)cfg->min_ack_delay_ms * 1000000) {
            peer->late_ack_ns = t;
            peer->late_ack_frame = rec->frame;
        }
    }
    if (rec->payload_len)
        peer->late_ack_ns = 0;          /* it answered: the exchange went on its way */
    if (!rec->payload_len || (me->known && !td_seq_after(end, me->hi)))
        return;
    if (me->late_ack_ns && mss && rec->payload_len < mss &&
        released_at_once(t - me->late_ack_ns, to_me, to_me + to_peer)) {
        if (!me->holds++)
            me->first_frame = me->late_ack_frame;
        me->held_ns += t - me->sent_ns;
        if (history)
            td_series_hold(history, me, t, t - me->sent_ns);
    }
    me->late_ack_ns = 0;
    me->hi = end;
    me->sent_ns = t;
    me->known = me->outstanding = true;
}

int td_nagle_held_sender(const td_nagle *n)
{
    if (!n->side[0].holds && !n->side[1].holds)
        return -1;
    return n->side[1].held_ns > n->side[0].held_ns ? 1 : 0;
}
