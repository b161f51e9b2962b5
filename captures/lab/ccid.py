"""Naming the sender's congestion control (tcpdiag issue 12): the cc-id-* and
cc-bbr-step-2-of-10 scenarios and their expected tcpdiag.cc.algorithm / tcpdiag.cc.reaction.

Every expectation comes from the configured TCP_CONGESTION of the connection and the
server kernel's own TCP_INFO samples (reductions.summarize), never from tcpdiag. The
algorithm is asserted outright only where the kernel's record shows that the flow gave
an observer enough to tell ("enough signals", below); otherwise ["<algo>-like",
"unknown"], so abstaining passes and a wrong name always fails.
"""
import statistics

import reductions
from diagnosis_truth import per_conn

ALGORITHM = {"cubic": "cubic-like", "reno": "reno-like", "bbr": "bbr-like"}
MIN_SIGNALS = 3         # real reductions (cubic, reno) or signals without a cut (bbr) for "enough"
# CUBIC cuts cwnd to 0.7 x, Reno to 0.5 x (both at least 2 segments, rounded down), so
# only a median cut at or above / at or below these tells them apart; at windows of a
# few segments CUBIC's cuts are Reno's (4 -> 2, 7 -> 4) and only its regrowth differs.
CUBIC_MIN_CUT, RENO_MAX_CUT = 0.65, 0.55

# cc-id-*: six sequential downloads, connection i with CC_ID_CCS[i] and client tcp_ecn
# CC_ID_ECN[i] (server 2). The server-side FIFO step-marks ECT frames queued longer
# than MARK_FRAMES frame times and drops beyond a queue limit, so ECN flows get CE marks
# and the others losses. The threshold is counted in frames, not a fixed few ms: an
# unpaced sender releases 2-3 back-to-back frames per ACK, and a threshold below that
# marks every burst whatever the window, which collapses CUBIC (cc-cubic-ecn-step).
CC_ID_CCS = ["cubic", "cubic", "reno", "reno", "bbr", "bbr"]
CC_ID_ECN = [0, 1] * 3
MARK_FRAMES = 3.3
FRAME_BITS = 1514 * 8
STEP_ECN = (2, 7)       # cc-bbr-step-2-of-10: connections 3 and 8 request ECN


def cc_id(rtt_ms, rate_mbit, queue_limit, size):
    """A cc-id scenario: `rtt_ms` of delay line, a `rate_mbit` FIFO holding `queue_limit`
    frames, `size` bytes per download."""
    frame_ms = FRAME_BITS / (rate_mbit * 1000)
    shaper = dict(rate_mbit=rate_mbit, queue_limit=queue_limit,
                  mark_sojourn_ms=round(MARK_FRAMES * frame_ms), drops=True)
    return dict(
        story=f"one client makes {len(CC_ID_CCS)} sequential {size / 1e6:g} MB downloads; the server "
              "sets TCP_CONGESTION per connection and the client tcp_ecn before each connect: "
              + ", ".join(f"{cc}/ecn {'on' if e else 'off'}" for cc, e in zip(CC_ID_CCS, CC_ID_ECN))
              + f" (server tcp_ecn 2); {rtt_ms // 4} ms delay line each side of the router "
              f"({rtt_ms} ms round trip); a {rate_mbit} Mbit/s server->client FIFO that marks CE on "
              f"ECT frames queued longer than {shaper['mark_sojourn_ms']} ms ({MARK_FRAMES} frame "
              f"times) and drops frames that find {queue_limit} waiting",
        client_ecn=CC_ID_ECN, server_ecn=2, cc=CC_ID_CCS, bytes=size,
        delay=(rtt_ms // 4, rtt_ms // 4), shaper=shaper, cc_id=True,
        captures={"-server": "server", "-client": "client"})


SCENARIOS = {
    # 4 Mbit/s: a 13.7-frame BDP, so a loss cycle (W_max ~26 -> 0.7 x, regrowth ~0.5
    # segment per round trip) lasts ~15 round trips: ~5 per 3 s transfer
    "cc-id-rtt40": cc_id(40, 4, 12, 1_500_000),
    # 1 Mbit/s keeps the BDP at 10 frames and the cycle near 10 round trips (1.2 s), so
    # 1.5 MB (12 s) still holds several; a faster line would need more bytes per cycle
    "cc-id-rtt120": cc_id(120, 1, 10, 1_500_000),
    "cc-bbr-step-2-of-10": dict(
        story="the issue's case: one client makes 10 sequential 1 MB downloads from a BBR server; "
              f"client tcp_ecn=1 for connections {STEP_ECN[0] + 1} and {STEP_ECN[1] + 1}, 0 for the "
              "others (server 2); 10 ms delay line each side (40 ms round trip); a 4 Mbit/s "
              "server->client FIFO that never drops and marks CE on ECT frames queued longer "
              "than 5 ms (a step AQM: BBR's 1.25 probing phase queues ~0.25 BDP = 10 ms)",
        client_ecn=[int(i in STEP_ECN) for i in range(10)], server_ecn=2, cc="bbr",
        bytes=1_000_000, delay=(10, 10), shaper=dict(rate_mbit=4, mark_sojourn_ms=5),
        cc_id=True, captures={"-server": "server", "-client": "client"}),
}


def median(xs):
    return round(statistics.median(xs), 3) if xs else None


def judge(cfg, i, k, collapsed):
    """The kernel's facts for connection i (k: reductions.summarize of its samples;
    collapsed: lab.py's collapse rule held), the expected algorithm and reaction with
    their why, and the problems that fail the run."""
    cc = per_conn(cfg["cc"], i)
    ecn = per_conn(cfg["client_ecn"], i) == 1 and cfg["server_ecn"] != 0
    eps = k["episodes"]
    cwrs = [e for e in eps if e["state"] == "CWR"]
    losses = [e for e in eps if e["state"] != "CWR"]
    echoed = k["delivered_ce"] > 0
    # docs/congestion.md: ECN responses decide the reaction on a flow that got echoes,
    # losses otherwise; episodes from CUBIC's floor could not cut and say nothing
    deciding = [e for e in (cwrs if echoed else losses) if e["cwnd_before"] > reductions.FLOOR]
    # CUBIC and Reno are window-limited (cwnd = flight): their cwnd ratio is their cut
    # factor. BBR paces below its cwnd, and its recovery sets cwnd to the packets still in
    # flight: only cwnd against the flight it had says whether the flight shrank.
    ratio = median([e["ratio" if cc != "bbr" else "flight_ratio"] for e in deciding])
    cuts = [e for e in eps if e["cut"] and not e["silent"]]
    cut_ratio = median([e["ratio"] for e in cuts])
    echo = k["echo_response"]
    tag = f"connection {i}"
    bad = []
    facts = (f"{cc.upper()}, ECN {'negotiated' if ecn else 'off'}; the server kernel's TCP_INFO: "
             f"{len(cwrs)} CWR and {len(losses)} Recovery/Loss episodes, {len(cuts)} real reductions "
             f"seen on the wire" + (f" (median cwnd ratio {cut_ratio})" if cuts else "") + ", "
             f"{k['total_retrans']} retransmissions, "
             f"delivered_ce {k['delivered_ce']} in {echo['slots_with_echo']} round trips, "
             f"median cwnd {'ratio' if cc != 'bbr' else 'after / flight before'} over the "
             f"{'CWR' if echoed else 'loss'} episodes {ratio}")
    if ecn and not echoed:
        bad.append(f"{tag}: ECN negotiated but no ECE-acked delivery (delivered_ce 0)")
    if collapsed and not ecn:
        bad.append(f"{tag}: cwnd collapsed without ECN: the expected cause would need loss-driven "
                   "collapse, which diagnosis_truth does not derive")
    if cc != "bbr":
        if len(cuts) < MIN_SIGNALS:
            bad.append(f"{tag}: {len(cuts)} real reductions, a loss-based flow needs {MIN_SIGNALS}")
        if not (ratio and reductions.LOSS_LIKE_RATIO[0] <= ratio <= reductions.LOSS_LIKE_RATIO[1]):
            bad.append(f"{tag}: median cwnd ratio {ratio}: not a multiplicative cut")
        if ecn and len(losses) > len(cwrs):
            bad.append(f"{tag}: more loss recoveries ({len(losses)}) than ECN responses "
                       f"({len(cwrs)}): ecn-loss-reaction and path-loss both fit docs/diagnosis.md")
        tells = cut_ratio is not None and (cut_ratio >= CUBIC_MIN_CUT if cc == "cubic"
                                           else cut_ratio <= RENO_MAX_CUT)
        enough = len(cuts) >= MIN_SIGNALS and tells
        reaction = "loss-like"
        rule = (f"enough: {len(cuts)} >= {MIN_SIGNALS} real reductions and their median "
                f"{cut_ratio} {'>=' if cc == 'cubic' else '<='} "
                f"{CUBIC_MIN_CUT if cc == 'cubic' else RENO_MAX_CUT}, a cut only {cc.upper()} makes"
                if enough else
                f"not enough: {len(cuts)} real reductions with median {cut_ratio}, which CUBIC "
                "(0.7, rounded down at small windows) and Reno (0.5) could both have made")
        why_reaction = "each signal cut cwnd by a constant factor: loss-like"
    else:
        quiet_losses = sum(not e["cut"] for e in losses)
        cut_free = (ratio is None or ratio >= reductions.NO_CUT_RATIO) and \
            (not echoed or echo["median_ratio"] >= reductions.NO_CUT_RATIO)
        if not (echoed or losses or k["total_retrans"]):
            reaction, why_reaction = "no-signal", "no echo, no loss: no-signal"
        elif not (echoed or losses):
            reaction = ["no-signal", "none"]
            why_reaction = ("retransmissions without a recovery episode (tail-loss probes): a "
                            "capture may count them as losses or not: no-signal or none")
        elif cut_free:
            reaction = "none"
            why_reaction = (f"signals came and cwnd did not fall below the flight (median {ratio}, "
                            f"per echoing round trip {echo['median_ratio']}): BBR sets it from its "
                            "model: none")
        else:
            # BBR v1's loss recovery (bbr_set_cwnd_to_recover_or_restore): cwnd = packets in
            # flight (the lost ones no longer count) + acked on entering it, the prior cwnd
            # restored on leaving it. The flight shrinks by what was lost, for about a round
            # trip: neither a constant-factor cut nor nothing.
            reaction = ["none", "loss-like"]
            why_reaction = (f"in loss recovery the kernel set cwnd to the packets still in flight "
                            f"(median {ratio} of the flight before) and restored it on leaving "
                            "recovery (BBR v1's packet conservation): none or loss-like")
        rounds = echo["slots_with_echo"]
        # An algorithm shows in how it answers signals (the rule, docs/congestion.md):
        # BBR's gain cycle without signals is not an answer, so it alone is not enough.
        enough = rounds >= MIN_SIGNALS or quiet_losses >= MIN_SIGNALS
        rule = (f"{'enough' if enough else 'not enough'}: {rounds} round trips with echoes, "
                f"{quiet_losses} loss episodes without a cut, needs {MIN_SIGNALS} of either "
                f"({k['probe_up_entries']} ProbeBW 1.25 phases, TCP_CC_INFO pacing gain, are BBR's own "
                "and answer no signal)")
    algorithm = ALGORITHM[cc] if enough else [ALGORITHM[cc], "unknown"]
    return {"cc": cc, "ecn": ecn, "algorithm": algorithm, "reaction": reaction,
            "enough": enough, "cwr_episodes": len(cwrs), "loss_episodes": len(losses),
            "cuts": len(cuts), "cut_ratio": cut_ratio, "problems": bad,
            "why": f"{facts}; algorithm: configured TCP_CONGESTION {cc}, {rule}; reaction: {why_reaction}"}


def expect(j, e, why):
    """Sets the flow's algorithm and reaction from judge()'s verdict j."""
    e["tcpdiag.cc.algorithm"] = j["algorithm"]
    e["tcpdiag.cc.reaction"] = j["reaction"]
    why.append(j["why"])


def ce_problems(clients, marked):
    """Every CE mark went to one of the ECN flows: the client kernels' tcpi_received_ce
    add up to the marker's count (each flow's own count is then its expected CE)."""
    got = sum(c["tcp_info"].get("received_ce", 0) for c in clients)
    return [] if got == marked else [f"the client kernels received {got} CE segments, the "
                                     f"marker set {marked}"]
