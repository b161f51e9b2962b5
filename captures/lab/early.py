"""The ECN lottery behind an AQM that marks early (tcpdiag issue 19): the early-*
scenarios and each flow's expected tcpdiag.cc.reaction and diagnosis cost.

A step marker with a threshold of a few milliseconds of queue marks CE as soon as a
slow-start burst queues, so the first echoes arrive as slow start ends. A CUBIC or
Reno sender then cuts (CWR) and grows slowly from there, while the same client's
flows without ECN leave slow start by HyStart (or not at all: Reno has none) with no
cut, on a buffer deep enough never to drop. BBR drains at startup exit whatever the
signal and keeps its model's rate.

Every expectation comes from the configuration and the server kernel's own TCP_INFO
samples (reductions.summarize: ca_state CWR entries, the cwnd before and after them),
and the generator's measured durations; never from tcpdiag.
"""
import statistics

EARLY_N = 10
EARLY_BYTES = 1_000_000
EARLY_DELAY = (10, 10)          # ms each side of the router: a 40 ms round trip
# 40 Mbit/s, a FIFO with no limit (deep: it never drops), marking ECT frames that
# waited longer than 4 ms (13 frame times): the "few milliseconds"
EARLY_SHAPER = dict(rate_mbit=40, mark_sojourn_ms=4)
# The cost must show: the kernel's run is kept only when the ECN flows of a loss-like
# sender took at least this many times as long as the median flow without ECN.
MIN_COST_RATIO = 1.5
# docs/diagnosis.md: two measured responses make a reaction
MIN_RESPONSES = 2


def early(cc, ecn_at, story):
    return dict(
        story=f"one client makes {EARLY_N} sequential {EARLY_BYTES / 1e6:g} MB downloads from a "
              f"{cc.upper()} server; client tcp_ecn=1 for connection(s) "
              + ", ".join(str(i + 1) for i in ecn_at) + " only (server 2); "
              f"{EARLY_DELAY[0]} ms delay line each side (40 ms round trip); a "
              f"{EARLY_SHAPER['rate_mbit']} Mbit/s server->client FIFO that never drops and marks CE "
              f"on ECT frames queued longer than {EARLY_SHAPER['mark_sojourn_ms']} ms: " + story,
        client_ecn=[int(i in ecn_at) for i in range(EARLY_N)], server_ecn=2, cc=cc,
        bytes=EARLY_BYTES, delay=EARLY_DELAY, shaper=EARLY_SHAPER, early=True,
        captures={"-client": "client"})


SCENARIOS = {
    "early-cubic-2-of-10": early(
        "cubic", (2, 7),
        "the first marks come as slow start ends, CUBIC cuts there and grows slowly, the "
        "flows without ECN leave slow start by HyStart with no cut"),
    "early-reno-1-of-10": early(
        "reno", (4,),
        "as early-cubic-2-of-10 with a Reno sender (no HyStart: the flows without ECN stay in "
        "slow start) and one ECN connection"),
    "early-bbr-2-of-10": early(
        "bbr", (2, 7),
        "as early-cubic-2-of-10 with a BBR sender, which ignores ECE for its window"),
}


def judge(cfg, i, k, conn, others):
    """The kernel's facts for connection i (k: reductions.summarize of its samples; conn:
    its generator log; others: the generator logs of the client's connections without
    ECN): the expected reaction, the cost, the why, and the problems that fail the run."""
    cc = cfg["cc"]
    ecn = bool(cfg["client_ecn"][i])
    eps = k["episodes"]
    cwrs = [e for e in eps if e["state"] == "CWR"]
    losses = [e for e in eps if e["state"] != "CWR"]
    cuts = [e for e in cwrs if e["cut"] and not e["silent"]]
    tag = f"connection {i}"
    bad = []
    if losses or k["total_retrans"]:
        bad.append(f"{tag}: {len(losses)} loss episodes, {k['total_retrans']} retransmissions: the "
                   "FIFO has no limit and must never drop")
    other_s = statistics.median(c["duration_s"] for c in others)
    ratio = conn["duration_s"] / other_s
    facts = (f"{cc.upper()}, ECN {'negotiated' if ecn else 'off'}; the server kernel's TCP_INFO: "
             f"{len(cwrs)} CWR episodes (cwnd " +
             (", ".join(f"{e['cwnd_before']} -> {e['cwnd_after']}" for e in cwrs) or "no change") +
             f"), {len(losses)} Recovery/Loss, largest cwnd {k['cwnd_max']}, delivered_ce "
             f"{k['delivered_ce']}; the generator measured {conn['duration_s']:.3f} s against a "
             f"median {other_s:.3f} s for the client's {len(others)} connections without ECN "
             f"({ratio:.2f}x)")
    cost = None
    if not ecn:
        if cwrs or k["delivered_ce"]:
            bad.append(f"{tag}: ECN off but {len(cwrs)} CWR episodes, delivered_ce {k['delivered_ce']}")
        reaction, why = "no-signal", "no echo and no loss reached the sender: no-signal"
    elif cc == "bbr":
        echo = k["echo_response"]["median_ratio"]
        if not k["delivered_ce"]:
            bad.append(f"{tag}: ECN negotiated but no echo reached the BBR sender")
        if echo is not None and echo < 0.9:
            bad.append(f"{tag}: BBR's cwnd followed the echoes (median {echo} over the round trips "
                       "with echoes; needs >= 0.9)")
        reaction = "none" if len(cwrs) >= MIN_RESPONSES else ["none", "unknown"]
        why = (f"echoes came (delivered_ce {k['delivered_ce']}) and BBR's cwnd did not follow them "
               f"(median min cwnd of the next round trip / cwnd before, over the round trips with "
               f"echoes: {echo}): none" + ("" if len(cwrs) >= MIN_RESPONSES else
               f"; with {len(cwrs)} CWR episode(s), fewer than the {MIN_RESPONSES} responses a "
               "reaction needs, and it late in a short transfer, a capture may see it unanswered: "
               "none or unknown, never loss-like"))
    else:
        if not cuts:
            bad.append(f"{tag}: ECN negotiated but the kernel made no CWR cut")
        if ratio < MIN_COST_RATIO:
            bad.append(f"{tag}: the ECN flow took {ratio:.2f}x the others, the scenario needs "
                       f">= {MIN_COST_RATIO}")
        first = cwrs[0] if cwrs else None
        reaction = "loss-like"
        why = (f"the kernel cut cwnd at the echoes ({len(cuts)} CWR cuts, the first from "
               f"{first['cwnd_before'] if first else '?'} at ssthresh {first['ssthresh'] if first else '?'}) "
               f"and grew from there without returning to slow start: loss-like, although the "
               "first cut came as slow start ended")
        cost = ratio
    return {"ecn": ecn, "reaction": reaction, "ratio": ratio, "cost": cost, "problems": bad,
            "why": f"{facts}; reaction: {why}"}


def expect(j, e, why):
    """Sets the flow's reaction and, for a loss-like ECN flow, the cost against the
    client's flows without ECN: at least half the generator's ratio, as the host rule's
    slowdown is asserted (capture-based durations differ from the generator's)."""
    e["tcpdiag.cc.reaction"] = j["reaction"]
    why.append(j["why"])
    if j["cost"]:
        e["tcpdiag.diag.reference"] = "client-flows"
        e["tcpdiag.diag.slowdown"] = {"min": round(0.5 * j["cost"], 2)}
        why.append(f"cost: against the client's flows without ECN, at least half the generator's "
                   f"{j['cost']:.2f}x")
