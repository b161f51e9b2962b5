"""The kernel's congestion responses, read from the server's ~1 ms TCP_INFO samples
(peer.py server --tcpinfo): when the sender reduced, by how much, and whether its
window collapsed.

A reduction episode starts at the first sample in which the kernel is in
TCP_CA_CWR (2), TCP_CA_Recovery (3) or TCP_CA_Loss (4) where the sample before was
- in Open (0) or Disorder (1): tcp_enter_cwr (an ECE, at most once per window: it holds
  CWR until the segment after high_seq, the one carrying CWR, is acked),
  tcp_enter_recovery (loss) or tcp_enter_loss (RTO); or
- in CWR or Recovery while this one is in Loss: an RTO during a reduction; or
- in CWR/Recovery/Loss with a higher ssthresh: the kernel ended one reduction and began
  the next between the two samples. tcp_fastretrans_alert does that on one ACK when the
  ACK that ends CWR carries ECE again, so the state never reads Open; each
  tcp_init_cwnd_reduction sets ssthresh anew (CUBIC: 0.7 x cwnd, at least 2), so the
  drop shows it. (BBR keeps ssthresh, so its back-to-back CWR entries merge; at
  ssthresh 2 so do CUBIC's.)
These are the moments the sender responds on the wire (the CWR flag on its next new
segment, or the retransmission that starts a recovery). Whether the window follows is
measured, not assumed: cwnd before = the sample before the start; after = the minimum
over the episode, from its start through the first sample after it (CUBIC's cwnd is
then exactly ssthresh), but at most two median round trips after the start (so a
long BBR CWR stretch or an RTO's slow start is judged by its first round trips).
An episode whose cwnd fell to CUT x before or less, and to CUT x the segments then
unacked or less, is one of the kernel's real reductions ("cut"): one that shrinks the
flight; the others are responses the window did not follow (BBR, whose cwnd comes
from its model, and whose loss recovery sets cwnd to the flight it already has;
CUBIC already at its floor of 2). "flight_ratio" is cwnd after / the smaller of cwnd
and unacked before. The median ratio is taken
over the episodes that started above that floor, where a cut was possible. An
episode after which the sender sent nothing more (at the very end of a transfer) is
"silent": real, but invisible in any capture.
"""
import csv
import gzip
import statistics

CA_CWR, CA_LOSS = 2, 4
CUT = 0.85          # an episode whose cwnd fell to this share or less is a real reduction
# median cwnd after/before of a multiplicative cut: CUBIC 0.7, Reno 0.5, both rounded down
# (Reno 7 -> 3 = 0.43, 9 -> 4 = 0.44)
LOSS_LIKE_RATIO = (0.4, 0.8)
NO_CUT_RATIO = 0.9              # BBR: median after/before at least this, i.e. no cut
FLOOR = 2           # the smallest ssthresh CUBIC/Reno set (tcp_reno_ssthresh, cubictcp_recalc_ssthresh)
CA_NAMES = {2: "CWR", 3: "Recovery", 4: "Loss"}
PROBE_UP = 320      # BBR's ProbeBW pacing gain 1.25 x BBR_UNIT (256): the phase that starts a gain cycle


def read_samples(path):
    """{connection index: [sample rows as ints]}"""
    conns = {}
    with gzip.open(path, "rt") as f:
        for row in csv.DictReader(f):
            r = {k: int(v) for k, v in row.items()}
            conns.setdefault(r["conn"], []).append(r)
    return conns


def starts_episode(prev, cur):
    if cur["ca_state"] < CA_CWR:
        return False
    return (prev["ca_state"] < CA_CWR
            or (cur["ca_state"] == CA_LOSS and prev["ca_state"] < CA_LOSS)
            or cur["snd_ssthresh"] < prev["snd_ssthresh"])


def episodes(rows, rtt_us):
    starts = [i for i in range(1, len(rows)) if starts_episode(rows[i - 1], rows[i])]
    out = []
    for n, i in enumerate(starts):
        end = i
        nxt = starts[n + 1] if n + 1 < len(starts) else len(rows)
        while end < nxt and rows[end]["ca_state"] >= CA_CWR:
            end += 1
        t0 = rows[i]["t_us"]
        span = [r for r in rows[i:min(end, nxt, len(rows) - 1) + 1] if r["t_us"] <= t0 + 2 * rtt_us]
        before = rows[i - 1]["snd_cwnd"]
        after = min(r["snd_cwnd"] for r in span)
        # What the sender had out (tcpi_unacked, packets_out): a cwnd that falls only to
        # the flight it already had (BBR paces below its cwnd, and its loss recovery
        # sets cwnd to the packets in flight) shrinks nothing on the wire.
        flight = min(before, rows[i - 1]["unacked"]) or before
        out.append({"t": rows[i]["epoch_us"] / 1e6, "state": CA_NAMES[rows[i]["ca_state"]],
                    "gap_ms": round((t0 - rows[i - 1]["t_us"]) / 1000, 2),
                    "cwnd_before": before, "cwnd_after": after, "ratio": round(after / before, 3),
                    "unacked_before": rows[i - 1]["unacked"],
                    "flight_ratio": round(after / flight, 3),
                    "cut": after <= CUT * flight,
                    # nothing was sent after it (the transfer's last ACKs): no CWR flag or
                    # retransmission can show it on the wire
                    "silent": rows[-1]["bytes_sent"] == rows[i]["bytes_sent"],
                    "ssthresh": rows[i]["snd_ssthresh"],
                    "duration_ms": round((rows[min(end, len(rows) - 1)]["t_us"] - t0) / 1000, 1),
                    "delivered_ce": rows[i]["delivered_ce"]})
    return out


def longest_low_stretch(rows, rtt_us, cwnd_max=4):
    """The longest run of samples with snd_cwnd <= cwnd_max: its length in ms and in
    median round trips, and in how many of those whole round trips tcpi_delivered_ce
    grew (ACKs with ECE arrived), i.e. whether marks kept coming while it stayed small."""
    runs, first = [], None
    for i, r in enumerate(rows + [None]):
        low = r is not None and r["snd_cwnd"] <= cwnd_max
        if low and first is None:
            first = i
        elif not low and first is not None:
            runs.append(rows[first:i])
            first = None
    if not runs:
        return None
    run = max(runs, key=lambda x: x[-1]["t_us"] - x[0]["t_us"])
    t0 = run[0]["t_us"]
    rtts = (run[-1]["t_us"] - t0) / rtt_us
    echoed = {(r["t_us"] - t0) // rtt_us for p, r in zip(run, run[1:])
              if r["delivered_ce"] > p["delivered_ce"]}
    return {"cwnd_max": cwnd_max, "start": run[0]["epoch_us"] / 1e6,
            "ms": round((run[-1]["t_us"] - t0) / 1000, 1), "rtts": round(rtts, 1),
            "whole_rtts_with_ce_echo": sum(k < int(rtts) for k in echoed),
            "delivered_ce_during": run[-1]["delivered_ce"] - run[0]["delivered_ce"]}


def echo_response(rows, rtt_us):
    """Whether cwnd follows the echoes, independently of the state machine: the
    connection cut into consecutive median-RTT slots; for each slot in which
    tcpi_delivered_ce grew (ACKs with ECE arrived), the minimum cwnd over the next slot
    divided by the cwnd at the start of the echoing slot. A sender that cuts per signal
    gives <= ~0.7; one whose window ignores ECN, ~1."""
    slots = {}
    for r in rows:
        slots.setdefault((r["t_us"] - rows[0]["t_us"]) // rtt_us, []).append(r)
    ratios = [min(r["snd_cwnd"] for r in slots[k + 1]) / slot[0]["snd_cwnd"]
              for k, slot in sorted(slots.items())
              if k + 1 in slots and slot[-1]["delivered_ce"] > slot[0]["delivered_ce"]]
    return {"slots_with_echo": len(ratios), "slots": len(slots),
            "median_ratio": round(statistics.median(ratios), 3) if ratios else None}


def summarize(rows):
    """Episodes and the numbers the lab's verdicts rest on, for one connection."""
    rtt_us = statistics.median(r["rtt_us"] for r in rows if r["rtt_us"])
    eps = episodes(rows, rtt_us)
    ratios = [e["ratio"] for e in eps if e["cwnd_before"] > FLOOR]
    return {"srtt_median_s": rtt_us / 1e6, "samples": len(rows), "episodes": eps,
            "count": len(eps), "by_state": {s: sum(e["state"] == s for e in eps) for s in CA_NAMES.values()},
            "median_ratio": round(statistics.median(ratios), 3) if ratios else None,
            "cuts": sum(e["cut"] for e in eps),
            "recoveries": sum(e["cut"] and e["state"] != "CWR" for e in eps),
            "cwnd_max": max(r["snd_cwnd"] for r in rows),
            # cwnd falling between two samples in Open/Disorder: not a congestion response
            # (BBR's model, or cwnd validation when the sender has nothing to send)
            "open_drops": sum(b["snd_cwnd"] < a["snd_cwnd"] for a, b in zip(rows, rows[1:])
                              if a["ca_state"] < CA_CWR and b["ca_state"] < CA_CWR),
            "delivered_ce": rows[-1]["delivered_ce"], "total_retrans": rows[-1]["total_retrans"],
            "low_stretch": longest_low_stretch(rows, rtt_us),
            # BBR (TCP_CC_INFO, files since the cc-id scenarios): ProbeBW's 1.25 phases
            # begun; two of them span one whole gain cycle (~8 round trips)
            "probe_up_entries": sum(b.get("pacing_gain") == PROBE_UP != a.get("pacing_gain")
                                    for a, b in zip(rows, rows[1:])),
            "echo_response": echo_response(rows, rtt_us)}
