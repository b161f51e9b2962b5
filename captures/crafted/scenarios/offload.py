"""crafted-offload.pcap: segmentation offload (tcpdiag.offload): TSO/GSO/LSO at
the sender, GRO at the receiver, as the capturing host shows them; simulated
with AckClock."""

import itertools
import statistics

from .packets import Capture
from .expected import WHY_DATA, WHY_SNAP, write_capture
from .ackclock import SEG, after_last, captured, data_rate, flight_flow, seen_at, sim_expect
from .flight import ILLUMOS_CC


OFFLOAD_HOSTS = ("192.0.2.50", "198.51.100.50")
LSO_SEGS = 45               # 64 KB offload limit: 45 x 1448 = 65160 bytes per packet
GRO_FRAMES = 20             # the client's NIC interrupts every 20 frame times (rx-usecs)
LSO_ILLUMOS_SEGS = 540      # 110 segments of slow start and repair, then 86 rounds of 5
LINUX_WRITES = (100000, 30000, 46 * SEG, 150000, 20000, 90000)  # 456608 bytes, 5 short tails
PACE_SEGS = (4, 3, 4, 4, 3)  # one GSO packet per ms: 18 x 1448 bytes per 5 ms = 5.2 MB/s

OFFLOAD_WHY = (" Handshake: MSS 1460, SACK_PERM, TS and WS 7 on both SYNs, so a full segment "
               "carries 1448 bytes (the MSS of the offload fields); the client offers 1 MiB "
               "(window field 8192, shift 7) and sends no payload. Each way takes exactly "
               "10 ms with no queue (20 ms round trip). The server hands its stack's packets to "
               "the NIC on a grid of 2u and the NIC puts their segments on the wire 2u apart "
               "(u = %g us here); a frame is written as the capturing host sees it, so a "
               "super-packet is one frame whose IP total length is its real length%s. "
               "A client without GRO ACKs every second segment u after it arrives, a lone one "
               "0.5 ms + u after; out-of-order segments draw a SACK at once and more than "
               "2 MSS SACKed above a hole a fast retransmit (RFC 6675). A client with GRO takes "
               "interrupts every %d frame times (2u each, on a grid fixed to the capture "
               "clock, so a flow's start time decides where its bursts are cut) and hands each "
               "run of consecutive segments that came in since to TCP as one merged packet "
               "(so at most %d segments), which it ACKs at once (more than one segment) u "
               "later. Timestamps run on "
               "1 ms clocks (RFC 7323); a merged packet keeps the first segment's header. "
               + WHY_DATA + WHY_SNAP)


def offload_sizes(sim, at_sender):
    """Payload bytes of each data frame the capture point sees, in frame order."""
    recs = sorted(captured(sim, at_sender), key=lambda r: seen_at(r, at_sender))
    return [sim.nbytes(r) for r in recs if r[0] != "ack"]


def seg_runs(sizes):
    """Sizes in segments, runs compressed: '10 18 2 36 4 40 1 5x86' (+r: a short tail);
    frames per size where that says more briefly: '3 (50 frames), 4 (75 frames)'."""
    name = lambda x: "%d" % (x // SEG) if x % SEG == 0 else "%d+%d" % (x // SEG, x % SEG)
    runs = [(name(x), len(list(g))) for x, g in itertools.groupby(sizes)]
    if len(runs) > 40:
        return ", ".join("%s (%d frames)" % (name(x), sizes.count(x)) for x in sorted(set(sizes)))
    return " ".join(w if n == 1 else "%sx%d" % (w, n) for w, n in runs)


def offload_expect(c, sim, at_sender, why, verdict, cap=None, cap_start=None, ip_len0=False):
    """One offload flow: its verdict, its data rate as captured, and the function that
    makes its expected record (the flow fields, then tcpdiag.offload restated from the
    frames as written) from its cause, which depends on the sender's other flows."""
    sizes = offload_sizes(sim, at_sender)
    big = [x for x in sizes if x > SEG]
    share = 100.0 * sum(big) / sum(sizes)
    fields = {
        "tcpdiag.offload.verdict": verdict,
        # docs/offload.md "The MSS": the largest full segment, alone (at most 1448) or as
        # n = ceil(len / 1460) equal segments of a super-packet: every frame here is whole
        # segments of 1448 but for a short tail
        "tcpdiag.offload.mss": SEG if any(x <= SEG or x % SEG == 0 for x in sizes) else None,
        "tcpdiag.offload.max": max(sizes),
        "tcpdiag.offload.super_packets": len(big),
        # rounding, and whether the one retransmission (flow 1) counts
        "tcpdiag.offload.super_share": {"min": round(max(share - 0.5, 0), 1),
                                        "max": round(min(share + 0.5, 100), 1)},
        "tcpdiag.offload.ip_len_zero": len(big) if ip_len0 else 0,
        "tcpdiag.offload.cap": cap,
        "tcpdiag.offload.cap_mss": cap // SEG if cap else None,
        "tcpdiag.offload.cap_start": cap_start,
    }
    why += (" Data frames as captured, in segments of 1448 (+ a short tail): %s. Largest "
            "payload %d, %d frames above 1448 carrying %.2f %% of the %d payload bytes."
            % (seg_runs(sizes), max(sizes), len(big), share, sum(sizes)))
    model = OFFLOAD_WHY % (sim.u / 1000.0, " except where said otherwise" if ip_len0 else "",
                           sim.gro or GRO_FRAMES, sim.gro or GRO_FRAMES)
    return verdict, data_rate(sim, at_sender), lambda cause: sim_expect(c, at_sender, why, model,
                                                                        fields, cause)


def offload_flow(cap, t0, port, at_sender, segs, cc, **kw):
    return flight_flow(cap, t0, port, at_sender, segs, cc, hosts=OFFLOAD_HOSTS, **kw)


def lso_capped_flow(cap, t0, port):
    """Issue 5 + 6: illumos LSO; after a fast retransmit every burst is the whole 5 MSS flight."""
    c, sim, frames = offload_flow(cap, t0, port, True, LSO_ILLUMOS_SEGS, ILLUMOS_CC, tso=LSO_SEGS,
                                  gro=GRO_FRAMES, drop=lambda i, flight: i == 50)
    start = sim.recovered_at[0]
    sizes = offload_sizes(sim, True)
    first = sizes.index(5 * SEG, sizes.index(SEG))      # after the lone retransmission
    assert set(sizes[first:]) == {5 * SEG} and len(sizes) - first >= 80
    assert max(sizes[:first]) >= 40960 and min(sizes[:first - 1]) == 2 * SEG
    cap_start = cap.frame_number(frames[start, False])
    lost_in = next(sim.nbytes(r) for r in sim.log if r[0] == "data" and r[2] <= 50 < r[2] + r[5])
    why = ("An illumos sender with LSO (tcpdiag issues 5 and 6), captured on the sender: the "
           "stack hands the NIC all that cwnd allows at once, up to 45 segments (64 KB) per "
           "packet, and the client's GRO ACKs each merged run at once. Slow start from 10 "
           "segments with each ACK releasing twice what it acknowledged; the client's interrupt "
           "grid (40 us) cuts the bursts unevenly, so the slow-start packets hold %s segments "
           "(up to %d bytes). Segment 51 (inside the %d-segment packet) is lost on the wire; "
           "the SACK for the segments after it covers more than 2 MSS, so the server "
           "retransmits it alone (frame %d), sends nothing new until that is acknowledged, "
           "then keeps cwnd at 5 for good. From segment %d on (frame %d, the first new data "
           "after the repair) "
           "every burst is one 7240-byte packet (5 x 1448), one per round trip, the whole "
           "allowed flight (the flight plateau of issue 6 is 7240 too), %d times to the end: "
           "super-packets never exceed 7240 from frame %d on, and %d of the %d sit exactly "
           "there. The cap (k = 5) is below 60 KB. By the rate rule alone it would be "
           "normal (1 ms of this flow's rate, 7240 bytes per 20 ms, is 362 bytes, and "
           "7240 >= max(2 MSS, 362) = 2896), but it equals the flat flight plateau (every "
           "burst is the whole allowed flight, the illumos case): capped, cap 7240, cap_mss 5, "
           "cap_start %d. 1 MiB window: the window never binds."
           % (seg_runs(sizes[:first - 1]), max(sizes[:first]), lost_in // SEG,
              cap.frame_number(frames[50, True]), start + 1, cap_start, len(sizes) - first,
              cap_start, len(sizes) - first, sum(x > SEG for x in sizes), cap_start))
    return offload_expect(c, sim, True, why, "capped", 5 * SEG, cap_start)


def tso_iplen0_flow(cap, t0, port):
    """A Linux TSO sender captured by tcpdump on itself: IP total length 0 on super-packets."""
    c, sim, _ = offload_flow(cap, t0, port, True, 0, dict(iw=10), tso=LSO_SEGS, gro=GRO_FRAMES,
                             u=250, app=(LINUX_WRITES, 0), ip_len0=True)
    sizes = offload_sizes(sim, True)
    assert max(sizes) == LSO_SEGS * SEG and sum(sizes) >= 262144
    why = ("A Linux sender with TSO, captured with tcpdump on the sending host: the application "
           "writes %s bytes, each as soon as everything before it is acknowledged (%d bytes in "
           "all); the stack hands the NIC what cwnd allows at once in packets of up to 45 "
           "segments (65160 bytes, the 64 KB GSO limit), a write's short last segment ending "
           "its packet (the write of exactly 46 segments leaves as 45 + a lone 1448-byte "
           "segment, the largest at or below the MSS). Slow start from 10 segments, no loss, 1 MiB window; the client has GRO "
           "(interrupts every 10 us). Every frame longer than one "
           "segment has IPv4 total length 0, as such a capture shows a packet the NIC will "
           "split (the IP header checksum is computed over the 0, the TCP checksum over the "
           "real length); the record's original length is the real one, from which Wireshark "
           "(ip.tso_support, on by default) takes tcp.len. Super-packets of many sizes up to "
           "65160 bytes leave the sender: offloaded; ip_len_zero counts those frames."
           % (", ".join(map(str, LINUX_WRITES)), sum(LINUX_WRITES)))
    return offload_expect(c, sim, True, why, "offloaded", ip_len0=True)


def gro_receiver_flow(cap, t0, port):
    """GRO at the capturing client: merged super-packets say nothing about the sender."""
    c, sim, _ = offload_flow(cap, t0, port, False, 400, dict(iw=10, ssthresh=20, ai=True),
                             gro=GRO_FRAMES, u=500)
    sizes = offload_sizes(sim, False)
    merged = [x for x in sizes if x > SEG]
    assert sizes.count(SEG) + len(merged) == len(sizes) and len(set(merged)) >= 10
    assert min(merged) == 2 * SEG and max(merged) == GRO_FRAMES * SEG
    why = ("Captured on the client, whose NIC does GRO: the server sends 400 segments one by "
           "one (no offload; slow start to 20, then one more segment per round trip, no loss, "
           "1 MiB window). They arrive 10 ms later 1 us apart; the client's interrupts every "
           "20 us merge each run into one packet of %d to %d segments (at most 20), whose size "
           "varies with where the burst falls on the interrupt grid (%d times a lone segment, "
           "which the client ACKs 0.5 ms later as usual), and "
           "the client ACKs each merged packet at once. The capture shows only these merged "
           "packets (frame at the interrupt): super-packets seen at the receiver, GRO of the "
           "capturing host: coalesced, nothing known about the sender's offload."
           % (min(merged) // SEG, max(merged) // SEG, sizes.count(SEG)))
    return offload_expect(c, sim, False, why, "coalesced")


def mss_only_flow(cap, t0, port):
    """A sender without offload: a sustained transfer of MSS-sized segments."""
    c, sim, _ = offload_flow(cap, t0, port, True, 348, dict(iw=10, ssthresh=20, ai=True))
    assert set(offload_sizes(sim, True)) == {SEG}
    why = ("Captured on a sender without segmentation offload: 348 segments (503904 bytes) of "
           "exactly 1448 bytes, each its own frame, against a 1 MiB window; slow start 10, 20, "
           "then one more segment per round trip (Reno congestion avoidance, no loss) up to 32: "
           "14 round trips, 13 of them with 20 or more segments (well above 4 MSS) in flight, "
           "the window far from binding. A sustained transfer at the "
           "sender with headroom and no segment above the MSS: mss-capped.")
    return offload_expect(c, sim, True, why, "mss-capped")


def autosized_flow(cap, t0, port):
    """Linux GSO autosizing: one packet per ms of the pacing rate, not a cap."""
    c, sim, _ = offload_flow(cap, t0, port, True, 451, dict(iw=100), tso=LSO_SEGS,
                             pace=(1000000, PACE_SEGS))
    sizes = offload_sizes(sim, True)
    assert sizes[-1] == SEG and set(sizes[:-1]) == {3 * SEG, 4 * SEG}
    assert 2 * sizes.count(4 * SEG) >= len(sizes) - 1
    rate = sum(sizes) / (len(sizes) / 1000.0)       # bytes per second: one packet per ms
    why = ("A paced Linux sender, captured on the sender: one GSO packet per ms of %s "
           "segments (cycled), the last one the lone segment left, %d packets, 451 "
           "segments (653048 bytes), %.2f MB/s; cwnd "
           "(100 segments, about 72 in flight) and the 1 MiB window never bind; the client "
           "(no GRO) ACKs every second segment. Linux sizes a GSO packet to about 1 ms of the "
           "pacing rate (at least 2 segments): 1 ms here is %d bytes, so the largest packet "
           "(5792 = 4 MSS, %d of the %d super-packets) is what the rate allows, not a cap: "
           "offloaded, never capped. The packets are 3 or 4 segments whatever the averaging "
           "of the rate, and the flight (about 72 segments) is not flat at 4 MSS."
           % (", ".join(map(str, PACE_SEGS)), len(sizes), rate / 1e6, rate / 1000,
              sizes.count(4 * SEG), len(sizes) - 1))
    return offload_expect(c, sim, True, why, "offloaded")


def too_little_flow(cap, t0, port):
    """Two super-packets and done: too little to say anything."""
    c, sim, _ = offload_flow(cap, t0, port, True, 0, dict(iw=10), tso=LSO_SEGS, gro=GRO_FRAMES,
                             app=([20000], 0))
    assert offload_sizes(sim, True) == [10 * SEG, 20000 - 10 * SEG]
    why = ("Captured on a TSO sender: one 20000-byte write, sent as a 10-segment packet "
           "(14480, the initial window) and, on the client's ACK, a packet of the 5520 bytes "
           "left (3 x 1448 + 1176). Under 64 KB of new data: unknown. No segment is at "
           "or below the MSS, so there is no mss to report.")
    return offload_expect(c, sim, True, why, "unknown")


def offload_causes(made):
    """tcpdiag.diag.cause of each crafted-offload flow, by port.  made: port ->
    (verdict, data rate, record).  All six come from one sender, 198.51.100.50, so
    offload-capped compares an MSS-only flow with that sender's offloaded flows."""
    rate = {port: r for port, (_, r, _) in made.items()}
    used = sorted(port for port, (verdict, _, _) in made.items() if verdict == "offloaded")
    median = statistics.median(rate[p] for p in used)
    peers = ("the same sender's offloaded flows (%s) ran at %s MB/s over their data phase, "
             "median %.2f MB/s" % (", ".join(map(str, used)),
                                   " and ".join("%.2f" % (rate[p] / 1e6) for p in used), median / 1e6))
    slower = lambda port: "%.2f MB/s, %.2f times slower" % (rate[port] / 1e6, median / rate[port])
    assert median >= 1.5 * rate[41004] and median >= 1.5 * rate[41003]
    short_run = ("none", "One 20000-byte write, done in two round trips without loss: too "
                 "short to be slow for any of the causes (and it used offload itself).")
    return {
        41001: ("sender-limited", "After its one retransmission the sender holds the flight "
                "flat at 5 MSS for the rest of the transfer with a 1 MiB window and no further "
                "loss (the illumos plateau). Its 7240-byte LSO cap is that plateau, which "
                "explains it: not offload-capped, and sender-limited comes first anyway."),
        41002: ("none", "It used offload itself. Slow start without loss against a 1 MiB "
                "window; each write follows the last ACK of the one before at once, so the "
                "sender is never idle with nothing outstanding (not app-limited): none of "
                "the causes holds."),
        41003: ("none", "The sender sent MSS-sized segments without offload and the flow is "
                "slower than its offloaded peers (%s; %s), but it is captured at the client, "
                "whose GRO merges the segments: the capture does not show the sender's "
                "segments as MSS-only (verdict coalesced), the first condition of "
                "offload-capped fails. cwnd growth without loss or window limit: none of the "
                "other causes holds." % (slower(41003), peers)),
        41004: ("offload-capped", "MSS-only segments at the sender (mss-capped) with no "
                "plateau (the flight grows by a segment per round) and no loss or ECN signal "
                "(no collapse), while %s; this flow ran at %s (at least 1.5). 41001 (LSO "
                "packets capped by its flight plateau) and 41006 (too little data for a "
                "verdict) do not count as offloaded." % (peers, slower(41004))),
        41005: ("none", "It used offload itself (packets sized to 1 ms of its pacing rate). "
                "The pacing keeps the flight near 72 segments, far below cwnd and the window, "
                "for about 6 round trips: fewer than the 10 a plateau needs, so not "
                "sender-limited; no loss: none of the causes holds."),
        41006: short_run,
    }


def build_offload(outdir):
    cap = Capture("crafted-offload")
    made, t0 = {}, 0.0
    # the start phase (us) against the client's interrupt grid shapes the GRO runs
    for phase, port, make in ((2, 41001, lso_capped_flow),
                              (8, 41002, tso_iplen0_flow),
                              (17, 41003, gro_receiver_flow),
                              (0, 41004, mss_only_flow),
                              (0, 41005, autosized_flow),
                              (0, 41006, too_little_flow)):
        made[port] = make(cap, t0 + phase / 1000.0, port)
        t0 = -(-after_last(cap) // 100) * 100.0     # on the next whole 100 ms
    causes = offload_causes(made)
    flows = [record(causes[port]) for port, (_, _, record) in made.items()]
    write_capture(outdir, cap,
                  "Segmentation offload (tcpdiag.offload): six downloads from "
                  "198.51.100.50:443 to 192.0.2.50, one after the other, each on its own "
                  "port, simulated ACK by ACK and written as the capturing host sees them. "
                  "41001 illumos LSO at the sender, capped at the 5 MSS flight after a fast "
                  "retransmit; 41002 Linux TSO at the sender with IPv4 total length 0 on its "
                  "super-packets; 41003 GRO at the capturing client; 41004 a sender without "
                  "offload; 41005 Linux GSO autosized to 1 ms of a 5 MB/s pacing rate; 41006 "
                  "20 KB, too little.", flows)
