"""Think time is not lost time (tcpdiag issue 37): the think-* scenarios, each beside a
control that differs in one setting, run with rr.py through mech.py's run (its topology,
router rules, timed rules and captures), and their ground truth, written to
captures/lab/think/.

Every value comes from the applications and the kernel: the generators' CLOCK_REALTIME
timings (the clock tcpdump stamps packets with), their TCP_INFO, the namespaces' nstat
counters, the router's rule counters and the times its timed rules went in and out, and
tshark's standard fields on the lab's own captures (which frames a capture holds, when);
never tcpdiag. captures/lab/think/README.md says how each value was obtained.

lab.py dispatches a scenario whose configuration holds `think` here, handing over its own
module (`lab`).
"""
import os
import subprocess

import labrun
import mech
import timebudget

LAB = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(LAB, "think")

# think-*: 10 requests on one keep-alive connection, the client's pause before each (the
# first at once); the pauses after an answer are a user's think time (42 s in all)
PAUSES = [0, 0.5, 1, 2, 5, 10, 20, 0.5, 1, 2]
REQUESTS = len(PAUSES)
REPLY = 1000
SLOW_ANSWER, SLOW_S = 5, 1.0
# think-lossy: the router drops each reply (one 1000 B segment: IP length 20 + 32 + 1000)
# twice and lets the third copy through. Rule A drops every third such packet from the
# first, rule B every second of those A let through: of each reply's three transmissions
# (the original, then a tail-loss probe or a timeout, then a timeout) the last gets there,
# so every loss ends with a retransmission timeout
REPLY_LEN = 20 + 32 + REPLY
LOSSY = [("filter", "FORWARD", ("-i", "r-eth1", "-o", "r-eth0", "-p", "tcp", "-m", "length",
                                "--length", str(REPLY_LEN), "-m", "statistic", "--mode", "nth",
                                "--every", str(n), "--packet", "0", "-j", "DROP"))
         for n in (3, 2)]
# think-greet*: an SMTP-like server writes a 200 B greeting on accept; the client reads it,
# pauses, then sends 3 requests
GREET = 200
GREET_PAUSES = [5, 2, 2]
# think-peer-*: a 200 kB download (not a multiple of the 1448 B segment: the last is
# short), the client keeps the connection 4 s, then closes; from 2.5 s the router drops all
# the server sends, so the server's ACK of the client's FIN and its own FIN never arrive
PEER_REPLY = 200_000
PEER_IDLE = 4.0
FROM_SERVER = ("-i", "r-eth1", "-o", "r-eth0", "-j", "DROP")
# (the rule is lifted, and the captures stop, at 12.5 s: before a FIN could get through)
PEER_GONE_AT, PEER_GONE_FOR = 2.5, 10.0
# think-outage-*: a 2 MB download through a 2 Mbit/s server->client bottleneck (the
# client's 32 kB receive buffer keeps its window, so the FIFO never overflows); 3 s in,
# the router drops everything it forwards for N s; the capture is cut to start 1 s
# before the outage (editcap -A), mid-flow
OUTAGE_REPLY = 2_000_000
OUTAGE_AT, OUTAGE_CUT_BEFORE = 3.0, 1.0
OUTAGE_SHAPER = dict(rate_mbit=2)
EVERYTHING = ("-j", "DROP")
# think-lan-20: a 5 MB download through a 20 Mbit/s FIFO of 100 frames on a path with no
# added delay (the delay lines hold nothing: round trip under 1 ms)
LAN_REPLY = 5_000_000
LAN_SHAPER = dict(rate_mbit=20, queue_limit=100)
# think-long: many small exchanges over minutes, each answered at once
LONG_REQUESTS, LONG_PAUSE = 50, 3.0
# think-queue-grow: the interactive flow starts while the download's slow start fills the FIFO
GROW_HEAD_START, GROW_BULK, GROW_PACING_MBIT = 0.3, 8_000_000, 11
# think-syn-firewall: the router drops every SYN to port 5001; the client gives connect()
# up after 12 s (the kernel's SYNs at about +1, +2, +3, +4, +5, +7, +11 s)
SYN_DROP = ("-i", "r-eth0", "-o", "r-eth1", "-p", "tcp", "--syn", "--dport", "5001", "-j", "DROP")
SYN_GIVE_UP = 12.0


def rr_flow(role, *, pauses=None, reply=REPLY, client_args=(), server_args=(), server_count=1, **kw):
    """mech.flow with rr.py's think-time options: the client's pause before each request
    (`pauses`), extra client / server options, and how many connections the server takes."""
    f = mech.flow(role, reply=reply, requests=len(pauses) if pauses else kw.pop("requests", 1), **kw)
    extra = ["--waits", ",".join(f"{p:g}" for p in pauses)] if pauses else []
    return dict(f, client_args=extra + list(client_args), server_args=list(server_args),
                server_count=server_count, pauses=pauses)


def think(story, flows, needs, **kw):
    """A think-* scenario: mech.mech's configuration (delay lines, shaper, rules, timed rules
    (at_s, for_s, table, chain, rule), capture_tail_s, cut_s) run by mech.do_run."""
    cfg = mech.mech(story, flows, needs, **kw)
    del cfg["mech"]
    cfg["think"] = True
    return cfg


def pauses_story(pauses):
    return ("the client pauses " + ", ".join(f"{p:g}" for p in pauses[1:]) +
            f" s before requests 2-{len(pauses)} ({sum(pauses):g} s of think time)")


SCENARIOS = {
    "think-pauses": think(
        f"one keep-alive connection, {REQUESTS} requests of 100 B, each answered at once with "
        f"{REPLY} B; {pauses_story(PAUSES)}; 40 ms round trip",
        [rr_flow("pauses", pauses=PAUSES)], "think"),
    "think-none": think(
        f"the control of think-pauses: the same {REQUESTS} requests with no pause between them",
        [rr_flow("no-pauses", pauses=[0] * REQUESTS)], "think"),
    "think-slow-answer": think(
        f"think-pauses with the server sleeping {SLOW_S:g} s before answer {SLOW_ANSWER} (only)",
        [rr_flow("slow-answer", pauses=PAUSES, server_args=("--think", str(SLOW_S), "--think-at",
                                                             str(SLOW_ANSWER)))], "slow-answer"),
    "think-lossy": think(
        "think-pauses over a path whose router drops each reply twice (iptables statistic nth on "
        f"the reply's {REPLY_LEN} B IP length), so that each ends in a retransmission timeout",
        [rr_flow("lossy", pauses=PAUSES)], "lossy", rules=LOSSY, client_retransmits=True),
    "think-greet": think(
        f"an SMTP-like control connection: the server greets ({GREET} B) on accept; the client "
        f"reads the greeting, pauses {GREET_PAUSES[0]:g} s, sends a 100 B command, then two more "
        f"{GREET_PAUSES[1]:g} s apart, each answered at once with {REPLY} B; 40 ms round trip",
        [rr_flow("greet", pauses=GREET_PAUSES, client_args=("--greet", str(GREET)),
                 server_args=("--greet", str(GREET)))], "greet"),
    "think-greet-prompt": think(
        "the control of think-greet: the client answers the greeting and each reply at once",
        [rr_flow("greet-prompt", pauses=[0] * len(GREET_PAUSES), client_args=("--greet", str(GREET)),
                 server_args=("--greet", str(GREET)))], "greet"),
    "think-peer-leaves": think(
        f"a {PEER_REPLY // 1000} kB download read whole; the client keeps the connection "
        f"{PEER_IDLE:g} s, then closes; from {PEER_GONE_AT:g} s after the start (after the last "
        "data was acknowledged) the router drops all the server sends, so the client's FIN is "
        "retransmitted unanswered; 40 ms round trip",
        [rr_flow("peer-leaves", reply=PEER_REPLY, client_args=("--idle", str(PEER_IDLE)))],
        "peer-leaves", timed_rules=[(PEER_GONE_AT, PEER_GONE_FOR, "filter", "FORWARD", FROM_SERVER)],
        capture_tail_s=0.0),
    "think-peer-stays": think(
        "the control of think-peer-leaves: nothing dropped, the close completes",
        [rr_flow("peer-stays", reply=PEER_REPLY, client_args=("--idle", str(PEER_IDLE)))],
        "peer-stays", capture_tail_s=1.0),
    **{f"think-outage-{n}": think(
        f"a {OUTAGE_REPLY // 1_000_000} MB download through a {OUTAGE_SHAPER['rate_mbit']} Mbit/s "
        "server->client bottleneck (client SO_RCVBUF 32 kB); "
        f"{OUTAGE_AT:g} s in the router drops everything it forwards for {n} s (iptables -I "
        f"FORWARD -j DROP); the capture is cut to start {OUTAGE_CUT_BEFORE:g} s before the "
        "outage, mid-flow; 40 ms round trip",
        [rr_flow("outage", reply=OUTAGE_REPLY, client_args=("--rcvbuf", "32768"))],
        "outage", shaper=OUTAGE_SHAPER, timed_rules=[(OUTAGE_AT, n, "filter", "FORWARD", EVERYTHING)],
        cut_s=OUTAGE_AT - OUTAGE_CUT_BEFORE) for n in (10, 22)},
    "think-lan-20": think(
        f"a {LAN_REPLY // 1_000_000} MB download through a {LAN_SHAPER['rate_mbit']} Mbit/s "
        f"server->client FIFO of {LAN_SHAPER['queue_limit']} frames, no added delay (round trip "
        "under 1 ms)", [rr_flow("lan", reply=LAN_REPLY)], "lan", delay=(0, 0), shaper=LAN_SHAPER),
    "think-syn-firewall": think(
        "a firewall: the router drops every SYN to port 5001 (iptables FORWARD --syn --dport 5001 "
        f"-j DROP); the client gives connect() up after {SYN_GIVE_UP:g} s; the server listens but "
        "is never reached (its capture is empty); the full listen queue beside it is "
        "captures/lab/next's tb-accept-slow", [rr_flow("syn-dropped", server_count=0,
                                                       client_args=("--connect-timeout", str(SYN_GIVE_UP)))],
        "syn-firewall", rules=[("filter", "FORWARD", SYN_DROP)]),
    "think-queue": think(
        "mech-bloat again, for each exchange's own round trip: " + mech.SCENARIOS["mech-bloat"]["story"],
        mech.SCENARIOS["mech-bloat"]["flows"], "queue", delay=(5, 5), shaper=mech.BLOAT_SHAPER,
        sysctl=mech.BLOAT_RMEM),
    "think-queue-grow": think(
        f"think-queue with the download's sender paced at {GROW_PACING_MBIT:g} Mbit/s "
        f"(SO_MAX_PACING_RATE) into the {mech.BLOAT_SHAPER['rate_mbit']} Mbit/s FIFO, which so "
        f"fills at {GROW_PACING_MBIT - mech.BLOAT_SHAPER['rate_mbit']:g} Mbit/s, and the interactive "
        f"flow starting {GROW_HEAD_START:g} s after the {GROW_BULK // 1_000_000} MB download began: its "
        "exchanges' round trips grow",
        [rr_flow("bulk", port=5002, reply=GROW_BULK, cc="reno",
                 server_args=("--max-pacing-rate", str(int(GROW_PACING_MBIT * 1e6 / 8)))),
         mech.flow("interactive", requests=mech.BLOAT_EXCHANGES, start_after=GROW_HEAD_START)],
        "queue-grow", delay=(5, 5), shaper=mech.BLOAT_SHAPER, sysctl=mech.BLOAT_RMEM),
    "think-long": think(
        f"one keep-alive connection, {LONG_REQUESTS} requests of 100 B {LONG_PAUSE:g} s apart "
        f"({(LONG_REQUESTS - 1) * LONG_PAUSE:g} s), each answered at once with {REPLY} B; 40 ms "
        "round trip", [rr_flow("long", pauses=[0] + [LONG_PAUSE] * (LONG_REQUESTS - 1))], "think"),
}


# ----------------------------------------------------------------------------------
# One run: mech.py's, then the cut
# ----------------------------------------------------------------------------------
def do_run(lab, name, cfg, tmp):
    res = mech.do_run(lab, name, cfg, tmp)
    if cfg.get("cut_s") is not None:
        # the captures start mid-flow: cut_s after the first client began connecting
        start = res["client"][0]["connect_began"] + cfg["cut_s"]
        res["cut_at"] = start
        for suffix, path in res["pcaps"].items():
            cut = path.replace(".pcap", "-cut.pcap")
            subprocess.run(["editcap", "-A", f"{start:.6f}", path, cut], check=True)
            res["pcaps"][suffix] = cut
    return res


def frames(pcap, display):
    """Epochs of the frames matching display at this capture."""
    return [float(r[0]) for r in mech.tshark(pcap, display, "frame.time_epoch")]


def silences(times, at_least):
    """(seconds, start epoch) of the gaps of at least `at_least` s between frames."""
    return [(b - a, a) for a, b in zip(times, times[1:]) if b - a >= at_least]


# ----------------------------------------------------------------------------------
# Ground truth per flow
# ----------------------------------------------------------------------------------
def pauses(c):
    """Per exchange, the client's pause before its request as its generator measured it: from
    the previous reply's last byte read (the greeting's, or connect() for the first)."""
    before = [c["greeting"]["last_byte"] if "greeting" in c else c["connected"]]
    before += [x["reply_last_byte"] for x in c["exchanges"][:-1]]
    return [mech.r6(x["request_sent"] - b) for x, b in zip(c["exchanges"], before)]


def reply_sends(res, port):
    """Per reply, at the server's capture: the epochs of each transmission of its first
    segment (tshark: the server's data frames, grouped by sequence number)."""
    by_seq = {}
    for when, seq in mech.tshark(res["pcaps"]["-server"], f"tcp.srcport == 5001 && tcp.dstport == {port} "
                            "&& tcp.len > 0", "frame.time_epoch", "tcp.seq"):
        by_seq.setdefault(int(seq), []).append(float(when))
    return [by_seq[s] for s in sorted(by_seq)]


def fin_sends(pcap, port):
    """Epochs of the client's FIN transmissions at this capture."""
    return frames(pcap, f"tcp.srcport == {port} && tcp.flags.fin == 1")


def flow_truths(cfg, res):
    one_way = sum(cfg["delay"]) / 1000
    rtt = 2 * one_way
    flows = []
    for f, c, s in zip(cfg["flows"], res["client"], res["server"]):
        if "connect_error" in c:
            flows.append(syn_truth(cfg, res, f, c))
            continue
        ex = mech.exchanges(c, s, one_way)
        p = pauses(c)
        for x, w in zip(ex, p):
            x["client_pause_s"] = w
        greeted = "greeting" in c
        truth = {"connect_s": mech.r6(c["connected"] - c["connect_began"]),
                 "active_s": mech.r6(c["exchanges"][-1]["reply_last_byte"] - c["connect_began"]),
                 "duration_s": mech.r6(c["close"] - c["connect_began"]),
                 "idle_s": mech.r6(c["close"] - c["exchanges"][-1]["reply_last_byte"]),
                 # a pause after an answer (or after the greeting) is think time; the one
                 # after connect(), before the first request, kept the server waiting
                 "think_s": mech.r6(sum(p) if greeted else sum(p[1:])),
                 "client_wait_s": 0.0 if greeted else p[0],
                 "server_wait_s": mech.r6(sum(x["server_wait_s"] for x in ex)),
                 "response_median_s": mech.median([x["response_s"] for x in ex]),
                 "path_rtt_s": rtt, "exchanges": ex,
                 "client_tcp_info": c["tcp_info"], "server_tcp_info": s["tcp_info"]}
        if greeted:
            truth["greeting"] = {"read_after_connect_s": mech.r6(c["greeting"]["last_byte"] - c["connected"]),
                                 "bytes": c["greeting"]["bytes"]}
        t = {"role": f["role"], "client": c, "server_port": f["port"], "port": c["local_port"],
             "exchanges": ex, "truth": truth}
        need = cfg["needs"]
        if need == "lossy":
            sends = reply_sends(res, c["local_port"])
            truth["losses"] = {"reply_sends_s": [[mech.r6(x - xs[0]) for x in xs] for xs in sends],
                               "stalls_s": [mech.r6(xs[-1] - xs[0]) for xs in sends],
                               "stall_s": mech.r6(sum(xs[-1] - xs[0] for xs in sends)),
                               "rule_packets": res["rule_counters"],
                               "server_TCPTimeouts": res["nstat"]["server"].get("TCPTimeouts", 0),
                               "server_TCPLossProbes": res["nstat"]["server"].get("TCPLossProbes", 0)}
        if need in ("peer-leaves", "peer-stays"):
            truth["close"] = {"client_fin_sends_s": [mech.r6(x - c["close"]) for x in
                                                      fin_sends(res["pcaps"]["-client"], c["local_port"])],
                              "timed_rules": res.get("timed_rules", [])}
        if need == "outage":
            truth["outage"] = outage_truth(res, c)
        if need in ("queue", "queue-grow"):
            truth["queue"] = mech.bloat_truth(res, c, flows + [t])
            for x, ce in zip(ex, c["exchanges"]):
                x["reply_sojourn_ms"] = max((soj for when, soj, _, _, dport in res["sojourns"]
                                             if dport == c["local_port"] and
                                             ce["request_sent"] <= when <= ce["reply_last_byte"]),
                                            default=0.0)
                x["round_trip_s"] = mech.r6(rtt + x["reply_sojourn_ms"] / 1000)
        if need == "lan":
            ex0 = c["exchanges"][0]
            truth["lan"] = {"goodput_mbit_s": mech.r6(ex0["reply_bytes"] * 8 / (ex0["reply_last_byte"]
                                                                          - ex0["reply_first_byte"]) / 1e6),
                            "bottleneck_mbit_s": LAN_SHAPER["rate_mbit"],
                            "client_min_rtt_us": c["tcp_info"]["min_rtt_us"],
                            "server_min_rtt_us": s["tcp_info"]["min_rtt_us"],
                            "queue_peak_ms": res["delay_lines"][-1].get("max_sojourn_ms"),
                            "queue_dropped_frames": res["delay_lines"][-1].get("dropped", 0),
                            "server_total_retrans": s["tcp_info"]["total_retrans"]}
        t["cause"], t["why"] = cause(cfg, t)
        flows.append(t)
    return flows


def syn_truth(cfg, res, f, c):
    """A connection never made: the client's SYNs at its capture (from the first), the rule's
    count, and when connect() gave up."""
    syns = timebudget.handshake_rows(res["pcaps"]["-client"])[c["local_port"]]["syn"]
    truth = {"connect_error": c["connect_error"],
             "gave_up_after_s": mech.r6(c["connect_gave_up"] - c["connect_began"]),
             "syn_times_s": [mech.r6(x - syns[0]) for x in syns], "rule_packets": res["rule_counters"],
             "client_TCPSynRetrans": res["nstat"]["client"].get("TCPSynRetrans", 0),
             "path_rtt_s": 2 * sum(cfg["delay"]) / 1000, "response_median_s": None,
             "client_tcp_info": c["tcp_info"]}
    t = {"role": f["role"], "client": c, "server_port": f["port"], "port": c["local_port"],
         "exchanges": [], "truth": truth}
    t["cause"], t["why"] = cause(cfg, t)
    return t


def outage_truth(res, c):
    """The drop window as the router applied it, and per capture point the silences of at
    least 1 s in the flow's frames (the cut capture) and the stall: from the last frame
    before the rule went in to the first after it came out (the retransmission that got
    through, which the backoff sent after the window: its wait is the timeouts' too)."""
    rule = res["timed_rules"][0]
    out = {"window_s": mech.r6(rule["deleted"] - rule["inserted"]), "dropped_packets": rule["packets"],
           "began_after_cut_s": mech.r6(rule["inserted"] - res["cut_at"]), "silences": {}, "stall_s": {}}
    for suffix, pcap in res["pcaps"].items():
        times = frames(pcap, f"tcp.port == {c['local_port']}")
        point = mech.CAPTURE_AT[suffix]
        out["silences"][point] = [
            {"seconds": mech.r6(g), "began_after_outage_s": mech.r6(a - rule["inserted"])}
            for g, a in silences(times, 1.0)]
        out["stall_s"][point] = mech.r6(min(x for x in times if x >= rule["deleted"]) -
                                   max(x for x in times if x < rule["inserted"]))
    # at the server, the segment that got through after the window, from its first send (it
    # may have waited in the bottleneck's FIFO before the router dropped it)
    sends = {}
    for when, seq in mech.tshark(res["pcaps"]["-server"], f"tcp.srcport == 5001 && tcp.len > 0",
                            "frame.time_epoch", "tcp.seq"):
        sends.setdefault(int(seq), []).append(float(when))
    through = min((w, seq) for seq, ws in sends.items() for w in ws if w >= rule["deleted"])
    out["server_first_send_to_retransmission_s"] = mech.r6(through[0] - sends[through[1]][0])
    out["server_TCPTimeouts"] = res["nstat"]["server"].get("TCPTimeouts", 0)
    return out


def cause(cfg, t):
    need, tr = cfg["needs"], t["truth"]
    rtt_ms = tr["path_rtt_s"] * 1000
    if need == "think":
        return "none", (f"{len(tr['exchanges'])} exchanges, each answered at once (server waits "
                        f"{tr['server_wait_s']:.3f} s in all); the client's {tr['think_s']:.2f} s of "
                        "pauses after an answer are its think time, never lost")
    if need == "slow-answer":
        slow = tr["exchanges"][SLOW_ANSWER - 1]
        return "server-delay", (f"the server slept {SLOW_S:g} s before answer {SLOW_ANSWER}: its wait "
                                f"{slow['server_wait_s']:.3f} s ({tr['server_wait_s']:.3f} s over all "
                                f"exchanges); the client's {tr['think_s']:.2f} s of think time is not "
                                "lost")
    if need == "lossy":
        lo = tr["losses"]
        return "retransmission-timeout", (
            f"the router dropped each reply twice (rules {lo['rule_packets']}); each got through on a "
            f"retransmission timeout (server TCPTimeouts {lo['server_TCPTimeouts']}, TCPLossProbes "
            f"{lo['server_TCPLossProbes']}): {lo['stall_s']:.2f} s from first send to the copy that "
            f"arrived; {tr['think_s']:.2f} s of think time is not lost")
    if need == "greet":
        return "none", (f"the server greeted first; the client answered after {tr['think_s']:.2f} s "
                        "of pauses after the greeting and each reply (think time); every command "
                        "answered at once")
    if need == "peer-leaves":
        fins = tr["close"]["client_fin_sends_s"]
        return "none", (f"the {PEER_REPLY} B reply was read whole and acknowledged; then the server "
                        f"was cut off (router drop from {PEER_GONE_AT:g} s) and the client's FIN went "
                        f"out {len(fins)} times unanswered: the close, no time lost")
    if need == "peer-stays":
        return "none", f"the {PEER_REPLY} B reply read whole; the close completed"
    if need == "syn-firewall":
        return "handshake-retry", (
            f"the router dropped all {len(tr['syn_times_s'])} SYNs (rule count {tr['rule_packets']}; "
            f"sent at +{', +'.join(f'{x:g}' for x in tr['syn_times_s'][1:])} s); the client gave up "
            f"after {tr['gave_up_after_s']:.2f} s: no SYN-ACK ever came (a firewall, or the host down)")
    if need in ("queue", "queue-grow") and t["role"] == "interactive":
        q, ex = tr["queue"], tr["exchanges"]
        return "queueing-delay", (
            f"its replies waited behind the bulk download in the FIFO: each exchange's round trip "
            f"(path + its reply's sojourn) {min(x['round_trip_s'] for x in ex) * 1000:.0f}-"
            f"{max(x['round_trip_s'] for x in ex) * 1000:.0f} ms; the server answered at once "
            f"(its waits {tr['server_wait_s']:.3f} s in all)")
    if need in ("queue", "queue-grow"):
        return "none", "the bulk download that filled the queue runs at the bottleneck's rate"
    if need == "outage":
        o = tr["outage"]
        return "retransmission-timeout", (
            f"the router dropped everything for {o['window_s']:.2f} s ({o['dropped_packets']} "
            f"packets) mid-transfer; the server's retransmission timeouts (TCPTimeouts "
            f"{o['server_TCPTimeouts']}) bridged the silence")
    lan = tr["lan"]
    return "none", (f"a {LAN_REPLY} B download at {lan['goodput_mbit_s']:.1f} Mbit/s of the "
                    f"bottleneck's {lan['bottleneck_mbit_s']}, min round trip "
                    f"{lan['client_min_rtt_us']} us: the bottleneck's rate, healthy")


# ----------------------------------------------------------------------------------
# Self-check: the kernel and the applications did what the scenario needs
# ----------------------------------------------------------------------------------
def problems(cfg, res, flows):
    bad = mech.problems(dict(cfg, needs="think"), res, flows)
    if cfg["needs"] == "syn-firewall":
        bad += [f"the client connected: {t['role']}" for t in flows if "connect_error" not in t["truth"]]
    need, tr = cfg["needs"], flows[0]["truth"]
    rtt = tr["path_rtt_s"]
    ex = tr.get("exchanges", [])
    if need in ("think", "greet", "lossy", "slow-answer"):
        for i, x in enumerate(ex):
            late = x["server_wait_s"] - (SLOW_S if need == "slow-answer" and i == SLOW_ANSWER - 1 else 0)
            if late >= timebudget.MIN_COST_S:      # a wait that could be a cause of its own
                bad.append(f"exchange {i + 1}: the server waited {x['server_wait_s']} s")
        for x, w in zip(ex, cfg["flows"][0]["pauses"]):
            if x["client_pause_s"] < w or x["client_pause_s"] > w + 0.25:
                bad.append(f"a pause of {x['client_pause_s']} s where {w} s was configured")
    if need == "slow-answer" and ex[SLOW_ANSWER - 1]["server_wait_s"] < SLOW_S:
        bad.append(f"answer {SLOW_ANSWER} came without the server's sleep")
    if need == "lossy":
        lo = tr["losses"]
        if any(len(x) != 3 for x in lo["reply_sends_s"]) or lo["server_TCPTimeouts"] < REQUESTS:
            bad.append(f"not every reply sent 3 times, ending in a timeout: {lo}")
    if need == "peer-leaves":
        fins = tr["close"]["client_fin_sends_s"]
        rule = tr["close"]["timed_rules"][0]
        last = flows[0]["client"]["exchanges"][-1]["reply_last_byte"]
        if len(fins) < 4 or not last + rtt < rule["inserted"] < flows[0]["client"]["close"]:
            bad.append(f"no unanswered close after the data: FINs {fins}, rule {rule}, last byte {last}")
    if need == "peer-stays" and len(tr["close"]["client_fin_sends_s"]) != 1:
        bad.append(f"the control's FIN was retransmitted: {tr['close']}")
    if need == "outage":
        o = tr["outage"]
        ends = flows[0]["client"]["exchanges"][0]
        if not o["dropped_packets"] or ends["reply_last_byte"] < res["timed_rules"][0]["deleted"] + 1:
            bad.append(f"the outage did not fall inside the transfer: {o}")
        if not all(o["silences"].values()):
            bad.append(f"a capture point shows no silence: {o['silences']}")
    syns = len(tr.get("syn_times_s", ()))
    if need == "syn-firewall" and (syns < 5 or tr["rule_packets"] != [syns]):
        bad.append(f"not every SYN dropped by the rule: {tr}")
    if need == "queue":
        inter = flows[-1]["truth"]
        q = inter["queue"]
        if q.get("sojourn_median_ms", 0) < 100 or q.get("bulk_last_byte_after_this_flow_s", -1) <= 0:
            bad.append(f"no queue built under the interactive flow: {inter['queue']}")
    if need == "queue-grow":
        inter = flows[-1]["truth"]
        trips = [x["round_trip_s"] for x in inter["exchanges"]]
        outlived = inter["queue"].get("bulk_last_byte_after_this_flow_s", -1) > 0
        if trips[-1] < 3 * trips[0] or trips[-1] < 5 * rtt or not outlived:
            bad.append(f"the queue did not grow under the interactive flow: round trips {trips}")
    if need in ("queue", "queue-grow"):
        inter = flows[-1]["truth"]
        if any(x["server_wait_s"] >= timebudget.MIN_COST_S for x in inter["exchanges"]):
            bad.append("the server waited before an answer")
    if need == "lan":
        lan = tr["lan"]
        if lan["goodput_mbit_s"] < 0.8 * lan["bottleneck_mbit_s"] or lan["client_min_rtt_us"] >= 1000:
            bad.append(f"not a LAN bottleneck: {lan}")
    return bad


# ----------------------------------------------------------------------------------
# Expected files
# ----------------------------------------------------------------------------------
def request_frames(pcap, port, n):
    """(frame of request n, first frame of its reply) at this capture (tshark)."""
    rows = mech.tshark(pcap, f"tcp.port == {port} && tcp.len > 0", "frame.number", "tcp.srcport", "tcp.len")
    req = [int(f) for f, sp, _ in rows if int(sp) == port]
    return req[n - 1], next(int(f) for f, sp, _ in rows if int(sp) != port and int(f) > req[n - 1])


def c2s_bytes(f, resent):
    """The requests' bytes; with requests the client sent again (TCP_INFO's total_retrans,
    think-lossy's probes), up to those too."""
    sent = f["request"] * f["requests"]
    return {"min": sent, "max": sent + f["request"] * resent} if resent else sent


def expected(name, cfg, res, flows, suffix):
    point = cfg["captures"][suffix]
    pcap = res["pcaps"][suffix]
    streams = timebudget.handshake_rows(pcap)
    out = []
    for f, t in zip(cfg["flows"], flows):
        tr, n = t["truth"], len(t["exchanges"])
        rtt = tr["path_rtt_s"]
        if t["port"] not in streams and "cut_s" not in cfg:
            continue            # a capture the connection never reached (SYNs dropped before it)
        e = {"tcpdiag.diag.cause": t["cause"]}
        if "cut_s" not in cfg:
            e = {"tcpdiag.flow.client": "10.77.1.2", "tcpdiag.flow.server": "10.77.2.2",
                 "tcpdiag.flow.client_port": t["port"], "tcpdiag.flow.server_port": f["port"],
                 "tcpdiag.flow.c2s.bytes": c2s_bytes(f, tr["client_tcp_info"]["total_retrans"]),
                 "tcpdiag.flow.s2c.bytes": {"min": f["reply"] * f["requests"]}, **e}
        if t["cause"] == "none":
            e["tcpdiag.diag.lost"] = None           # healthy: no time lost
        if "connect_error" in tr:
            # no request ever sent; the cost is the SYNs' retries, at least the first to the
            # last SYN, at most the client's whole wait
            e.update({"tcpdiag.flow.c2s.bytes": 0, "tcpdiag.flow.s2c.bytes": 0,
                      "tcpdiag.diag.lost": {"min": mech.r6(tr["syn_times_s"][-1] - 0.01),
                                            "max": mech.r6(tr["gave_up_after_s"] + 0.01)}})
        if cfg["needs"] in ("queue", "queue-grow") and t["role"] == "interactive":
            # the server answered at once: its waits, never the queue's
            e["tcpdiag.time.server_wait"] = {"max": mech.r6(tr["server_wait_s"] + n * 0.01)}
        if tr.get("think_s", 0) > 0:
            # each pause is seen from this point's reply to its request: at most a round trip
            # (the exchange's own, its queue included) and 20 ms of delay-line hold more than
            # the client's own, never less than it less 10 ms
            e["tcpdiag.time.think"] = {"min": mech.r6(max(0.0, tr["think_s"] - 0.01 * n)),
                                       "max": mech.r6(tr["think_s"] + sum(x.get("round_trip_s", rtt) + 0.02
                                                                     for x in t["exchanges"]))}
        elif cfg["needs"] in ("think", "greet") and "think_s" in tr:
            e["tcpdiag.time.think"] = {"max": mech.r6(n * (rtt + 0.02))}
        if cfg["needs"] == "slow-answer":
            e["tcpdiag.diag.lost"] = {"min": mech.r6(tr["server_wait_s"] - 2 * rtt - 0.01),
                                      "max": mech.r6(tr["server_wait_s"] + 2 * rtt + 0.01)}
            e["tcpdiag.diag.frame"] = list(request_frames(pcap, t["port"], SLOW_ANSWER))
        if cfg["needs"] == "lossy":
            lo = tr["losses"]
            e["tcpdiag.diag.lost"] = {"min": mech.r6(lo["stall_s"] - n * (rtt + 0.01)),
                                      "max": mech.r6(lo["stall_s"] + n * (rtt + 0.01))}
        if cfg["needs"] == "outage":
            o = tr["outage"]
            stall = o["stall_s"][point]
            if point == "server":
                stall = max(stall, o["server_first_send_to_retransmission_s"])
            e["tcpdiag.diag.lost"] = {"min": mech.r6(o["window_s"] - 2 * rtt),
                                      "max": mech.r6(stall + 2 * rtt)}
        select = {"tcp.stream": streams[t["port"]]["stream"]} if "cut_s" not in cfg else {"tcp.stream": 0}
        out.append({"select": select, "why": f"{t['role']} flow (client port {t['port']}): {t['why']}",
                    "expect": e, "truth": tr})
    return labrun.expected_file(name, cfg, suffix, res["nstat"], mech.NSTAT_KEYS, out)


def scenario(lab, name):
    return mech.run_set(lab, name, OUT, do_run, flow_truths, problems, expected)
