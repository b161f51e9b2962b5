"""crafted-flight.pcap: bytes in flight (tcpdiag.flight): ACK-clocked downloads,
simulated with AckClock."""

from .packets import Capture
from .expected import WHY_DATA, WHY_SNAP, write_capture
from .ackclock import MIB_WINDOW, SEG, after_last, data_phase, flight_flow, seen_at, sim_expect


# The transfers are sized to keep crafted-flight.pcap near 1 MB (see README).
ILLUMOS_SEGS = 700          # 1 MB: 10 + 20 + 40 segments, then 5 per round
RWND_SEGS = 660             # 60 rounds of 11 segments
RENO_SEGS = 2017            # three 20 -> 40 cycles, the last repair ends it
HEALTHY_SEGS = 993          # the last round's flight just passes 512 KiB
ILLUMOS_CC = dict(iw=10, after_loss=lambda cwnd: (5, 5))      # then flat: no increase
RENO_CC = dict(iw=10, ssthresh=20, ai=True, after_loss=lambda cwnd: (cwnd // 2, cwnd // 2))

FLIGHT_WHY = (" Handshake: MSS 1460, SACK_PERM, TS and WS 7 on both SYNs, so every data "
              "segment carries 1448 bytes (the MSS of the flight fields). Each way takes "
              "exactly 10 ms with no queue (20 ms round trip). The client sends no payload; "
              "it ACKs every second in-order segment u after it arrives, a lone one "
              "0.5 ms + u after it arrived when nothing follows, and each out-of-order "
              "segment (and the one that fills the hole) u after it arrives, with a SACK "
              "block while a hole is open. The server's NIC sends a frame every 2u, on the "
              "first free slot after the ACK (or write) that allows it: every segment "
              "leaves within 0.1 ms of that ACK (at most %g us here). Data passes on even "
              "multiples of u and ACKs on odd ones, so no ACK coincides with a data "
              "segment and an ACK counts for the flight the same way at the server as, "
              "20 ms later, at the client. Timestamps run on 1 ms clocks and each side "
              "echoes the newest TSval that had reached it when it sent (RFC 7323), so at "
              "the client a data segment echoes the ACK that released it, a round trip "
              "earlier. Here u = %g us. " + WHY_DATA + WHY_SNAP)


def flight_expect(c, sim, at_sender, why, cause, limit, rwnd, plateau=None, onset=None,
                  start_frame=None, extra=None):
    """The expected record of one flight flow: the flow fields, then tcpdiag.flight.
    A plateau is held by what limits the flow (the window or the sender itself)."""
    flight = {
        "tcpdiag.flight.dir": "s2c",
        "tcpdiag.flight.limit": limit,
        "tcpdiag.flight.seen_from": "sender" if at_sender else "receiver",
        "tcpdiag.flight.rwnd": rwnd,
        "tcpdiag.flight.plateau": plateau,
        "tcpdiag.flight.plateau_mss": plateau / SEG if plateau else None,
        "tcpdiag.flight.plateau_onset": onset,
        "tcpdiag.flight.plateau_limit": limit if plateau else None,
        "tcpdiag.flight.plateau_start": start_frame,
        # docs/fields.md: smallest window offered on the plateau minus the plateau
        "tcpdiag.flight.headroom": rwnd - plateau if plateau else None,
    }
    flight.update(extra or {})
    return sim_expect(c, at_sender, why, FLIGHT_WHY % (sim.max_lag / 1000.0, sim.u / 1000.0),
                      flight, cause)


def active_share(sim, at_sender, start):
    """Percent of the data phase that lies from new segment `start` on."""
    recs, t0, t_end = data_phase(sim, at_sender)
    t_start = min(seen_at(r, at_sender) for r in recs if r[0] == "data" and r[2] == start)
    return 100.0 * (t_end - t_start) / (t_end - t0)


def illumos_flow(cap, t0, port, at_sender):
    """Issue 6: after one fast retransmit the sender never has more than 5 MSS out."""
    c, sim, frames = flight_flow(cap, t0, port, at_sender, ILLUMOS_SEGS, ILLUMOS_CC,
                                 drop=lambda i, flight: i == 30)    # round 3's first segment
    start = sim.recovered_at[0]
    share = active_share(sim, at_sender, start)
    assert share >= 95.0
    lost = ("segment 31 (frame %d) is sent once and never reaches the client"
            % cap.frame_number(frames[30, False]) if at_sender else
            "segment 31 is lost before the client (absent here)")
    why = ("The illumos burst-limited flight of tcpdiag issue 6. The server sends %d "
           "segments (%d bytes) against a 1 MiB window (window field 8192, shift 7, on "
           "every ACK). Slow start from 10 segments: each ACK of two segments releases "
           "four, so rounds carry 10, 20 and 40 segments (flight 14480, 28960, 57920). "
           "In round 3 %s: the other 39 segments of the round draw SACKed "
           "duplicate ACKs and nothing new; on the third one the server retransmits it "
           "(frame %d). The ACK of the retransmission covers the 40 segments; from then "
           "on cwnd is 5 and never grows: every ACK releases exactly as many segments as "
           "it acknowledged, so each round has exactly 5 x 1448 = 7240 bytes in flight "
           "(the client ACKs them 2 + 2 + 1, the lone one after 0.5 ms). The plateau "
           "starts with segment %d (frame %d), the first new data after the repair, and "
           "lasts to the end (%d more segments, no further loss), %.1f %% of the time from "
           "the first data segment to the last ACK (by construction; sender_share asks "
           "for at least 90). plateau_mss = 7240 / 1448 = 5.0, onset retransmission, "
           "headroom 1048576 - 7240 = 1041336. No Linux congestion control stays flat "
           "below the window with no loss: limit sender."
           % (sim.nxt, sim.nxt * SEG, lost, cap.frame_number(frames[30, True]), start + 1,
              cap.frame_number(frames[start, False]), sim.nxt - start, share))
    cause = ("sender-limited", "After its one retransmission the sender holds the flight "
             "flat at 5 MSS for the rest of the transfer while the client offers 1 MiB and "
             "nothing more is lost (flight limit sender).")
    return flight_expect(c, sim, at_sender, why, cause, "sender", MIB_WINDOW << 7, 5 * SEG,
                         "retransmission", cap.frame_number(frames[start, False]),
                         {"tcpdiag.flight.sender_share": {"min": 90}})


def rwnd_flow(cap, t0, port):
    """A receiver offering 16 KiB: the flight sits at the window from the start."""
    c, sim, frames = flight_flow(cap, t0, port, True, RWND_SEGS, dict(iw=16), window=128,
                                 syn_window=16384)
    why = ("A receiver with a 16 KiB buffer: its SYN offers 16384 and every later ACK window "
           "field 128 << 7 = 16384. The server (initial cwnd 16, so the window binds from the "
           "first round, and cwnd keeps growing in slow start) keeps as many segments out as "
           "fit: 11 x 1448 = 15928 <= 16384 < 12 x 1448 = 17376. %d segments, 11 per round "
           "(%d x 11; the client ACKs 2 x 5 + 1, the lone one after 0.5 ms; the last round "
           "may show fewer as the data runs out), no loss: a "
           "flat plateau at 15928 bytes = 11.0 MSS from the first data segment (frame %d) to "
           "the end, onset start, headroom 16384 - 15928 = 456. Flat at the window is the "
           "receiver's doing: limit rwnd, not sender."
           % (sim.nxt, sim.nxt // 11, cap.frame_number(frames[0, False])))
    cause = ("receive-window", "Window scaling is in use, and the flight sits at the "
             "client's 16 KiB offered window from the first round to the end (flight limit "
             "rwnd).")
    return flight_expect(c, sim, True, why, cause, "rwnd", 16384, 11 * SEG, "start",
                         cap.frame_number(frames[0, False]))


def reno_flow(cap, t0, port):
    """Additive increase and halving: a sawtooth, never flat."""
    c, sim, frames = flight_flow(cap, t0, port, True, RENO_SEGS, RENO_CC,
                                 drop=lambda i, flight: flight >= 40)
    retx = ", ".join(str(cap.frame_number(v)) for k, v in sorted(frames.items()) if k[1])
    why = ("Reno against a 1 MiB window: slow start 10 -> 20 segments (ssthresh 20), then "
           "additive increase of one segment per round (cwnd += 1 per cwnd segments "
           "acknowledged) up to 40. The first segment sent with 40 segments outstanding is "
           "lost; the rest of the round draws SACKed duplicate ACKs, the third one a fast "
           "retransmit, nothing new until the retransmission is acknowledged, then cwnd "
           "and ssthresh are halved to 20 and the server sends 20 segments at once. %d "
           "losses (retransmissions in frames %s), %d segments; the transfer ends with the "
           "last repair. Round flights climb one segment (1448 bytes) per round from 20 to "
           "40: any 8 consecutive rounds span 7 segments, more than max(1 MSS, 10 %%) of "
           "at most 41 segments (4.1 segments), so there is no plateau: limit cwnd."
           % (len(sim.recovered_at), retx, sim.nxt))
    assert len(sim.recovered_at) >= 2
    cause = ("path-loss", "%d loss recoveries, each a fast retransmit long after the previous "
             "repair ended, each cutting cwnd from 40 to 20 segments (the flight after is 0.5 "
             "of the flight before: loss-like), with the congestion window as the flight limit "
             "and no ECN. The flight never drops to 4 MSS (no window collapse), and no other "
             "flow of 198.51.100.40 here uses offload, so nothing higher in the order holds."
             % len(sim.recovered_at))
    return flight_expect(c, sim, True, why, cause, "cwnd", MIB_WINDOW << 7)


def app_flow(cap, t0, port):
    """Bursts from the application with idle time between them."""
    c, sim, frames = flight_flow(cap, t0, port, True, 0, dict(iw=16), app=([16 * SEG] * 30, 200000000))
    why = ("An application that writes 16 segments (23168 bytes) at a time: the server "
           "(initial cwnd 16, no slow-start restart) sends each write at once, the client "
           "ACKs it in 8 ACKs within one round trip, then nothing is outstanding and the "
           "server is silent for 200 ms, %d times (%d segments), 1 MiB window. The flight "
           "never reaches cwnd or the window for want of data: limit app, no plateau "
           "(every round follows an idle period)." % (sim.writes, sim.nxt))
    cause = ("app-limited", "Bursts of one write each, separated by 200 ms of idle time with "
             "nothing outstanding (flight limit app); no loss and no other flow of "
             "198.51.100.40 here uses offload, so nothing higher in the order holds.")
    return flight_expect(c, sim, True, why, cause, "app", MIB_WINDOW << 7)


def healthy_flow(cap, t0, port):
    """Slow start without loss until the flight passes 512 KiB, then the end."""
    c, sim, frames = flight_flow(cap, t0, port, True, HEALTHY_SEGS, dict(iw=10), u=250)
    why = ("Healthy slow start against a 1 MiB window: 10, 20, 40, 80, 160 and 320 "
           "segments per round (each ACK of two segments releases four), then the last "
           "%d segments, whose flight ends at %d x 1448 = %d bytes >= 512 KiB; no loss, "
           "%d segments in all. The server's NIC is faster here (u = 0.25 us) so that the "
           "320-segment round still leaves within 0.1 ms of its ACKs; at microsecond "
           "resolution an ACK and a data segment can then share a timestamp, and the frame "
           "order is the order in which they passed the server. Growing every round, never "
           "flat: limit cwnd, no plateau, never sender."
           % (sim.nxt - 630, sim.nxt - 630, (sim.nxt - 630) * SEG, sim.nxt))
    cause = ("none", "Unchecked slow start: no loss, no ECN, the window never binds, and no "
             "other flow of 198.51.100.40 here uses offload: none of the causes holds.")
    return flight_expect(c, sim, True, why, cause, "cwnd", MIB_WINDOW << 7)


def build_flight(outdir):
    cap = Capture("crafted-flight")
    flows, t0 = [], 0.0
    for make in (lambda t: illumos_flow(cap, t, 40901, True),
                 lambda t: illumos_flow(cap, t, 40902, False),
                 lambda t: rwnd_flow(cap, t, 40903),
                 lambda t: reno_flow(cap, t, 40904),
                 lambda t: app_flow(cap, t, 40905),
                 lambda t: healthy_flow(cap, t, 40906)):
        flows.append(make(t0))
        t0 = after_last(cap)
    write_capture(outdir, cap,
                  "Bytes in flight (tcpdiag.flight): six downloads from 198.51.100.40:443 to "
                  "192.0.2.40, one after the other, each on its own port, simulated ACK by "
                  "ACK. 40901 the illumos burst-limited flight of issue 6 (5 MSS after one "
                  "fast retransmit, 1 MiB window) captured at the server, 40902 the same "
                  "captured at the client, 40903 flat at a 16 KiB receive window, 40904 a "
                  "Reno sawtooth, 40905 application bursts with idle gaps, 40906 healthy "
                  "slow start to 512 KiB.", flows)
