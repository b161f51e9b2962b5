"""The TCP mechanisms behind everyday slow transfers (tcpdiag issue 30): the mech-*
scenarios, each beside a control that differs in one setting, run with the
request/response generator rr.py, and their ground truth, written to captures/lab/mech/.

Every value comes from the kernel and the applications: the generators' CLOCK_REALTIME
timings (the clock tcpdump stamps packets with), their TCP_INFO (and the server's TCP_INFO
samples), the namespaces' nstat counters, the router's rule counters and the delay line's
own counters and per-frame sojourns; tshark's standard fields read what the captures hold
(SYN options, which segment an ACK answers). Never tcpdiag. captures/lab/mech/README.md
names the proposed causes and says how each value was obtained.

lab.py dispatches a scenario whose configuration holds `mech` here, handing over its own
module (`lab`), whose topology, capture and teardown functions are reused.
"""
import csv
import os
import statistics
import subprocess
import threading
import time

import labrun
import timebudget

LAB = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(LAB, "mech")
CAPTURE_AT = {"-client": "client", "-router": "router", "-server": "server"}
# Linux's initial window (segments). After an idle longer than the RTO, tcp_cwnd_restart
# halves cwnd once per RTO of idle, never below it.
INITIAL_CWND = 10

# mech-nagle: each 500 B request written as 200 + 300 B, a 2 kB reply, 50 exchanges
NAGLE = dict(request=500, split=[200, 300], reply=2048, requests=50)
# mech-bloat: a 10 Mbit/s FIFO of 300 frames (~360 ms of 1514 B frames) on server -> client
BLOAT_SHAPER = dict(rate_mbit=10, queue_limit=300)
BLOAT_BULK = 10_000_000
BLOAT_HEAD_START = 1.5          # s the bulk download runs before the interactive flow connects
BLOAT_EXCHANGES = 12
# The bulk download runs Reno: CUBIC's HyStart left slow start at ~60 kB of flight in two
# tries (queue peaks 47 and 51 ms) and its cubic growth takes many seconds to fill the
# FIFO; Reno's slow start runs to the first drop, then its flight stays within a factor 2.
# And the client's receive buffer starts at 1 MB (net.ipv4.tcp_rmem), so the bulk flow's window
# lets it fill the FIFO at once (with the default 128 kB autotuning kept its flight at
# ~85 kB: a 47 ms queue)
BLOAT_RMEM = {"client": {"net.ipv4.tcp_rmem": "4096 1048576 6291456"}}
# mech-pmtu-*: the router's client-facing link (which the server's data leaves by) at 1400
PMTU_MTU = 1400
PMTU_REPLY = 1_000_000
FRAG_NEEDED = ("-p", "icmp", "--icmp-type", "fragmentation-needed")
# mech-ssr*: 2 MB chunks on one connection, the client pausing 1.5 s before each
SSR = dict(reply=2_000_000, requests=4, wait=1.5)
# mech-opts-*: the router strips the client's SYN options on its way to the server
STRIP = ("-i", "r-eth0", "-o", "r-eth1", "-p", "tcp", "--syn", "-j", "TCPOPTSTRIP",
         "--strip-options", "wscale,sack-permitted,timestamp")
MARK_SYN = ("-i", "r-eth0", "-o", "r-eth1", "-p", "tcp", "--syn", "-j", "ACCEPT")
OPTS_REPLY = 3_000_000
WINDOW_CEILING = 65535
# mech-reorder*: 3 % of the server's frames held back 2-4 ms in the delay line
REORDER = dict(reorder_share=0.03, reorder_ms="2,4")
REORDER_REPLY = 4_000_000


def flow(role, port=5001, *, request=100, reply=1000, requests=1, split=None, nodelay=False,
         wait=0.0, start_after=0.0, sample_ms=0.0, cc="cubic"):
    """One rr.py server/client pair: the server on `port` (congestion control `cc`), the
    client started `start_after` s after the client before it."""
    return dict(role=role, port=port, request=request, reply=reply, requests=requests,
                split=split, nodelay=nodelay, wait=wait, start_after=start_after,
                sample_ms=sample_ms, cc=cc)


def mech(story, flows, needs, **kw):
    """A mech-* scenario: its flows, the delay lines (ms one way, client side and server
    side), the server-side delay line's `shaper` options, namespace `sysctl`s, the router's
    client-facing MTU (`router_mtu`), router `rules` ((table, chain, rule)) and what the
    self-check needs (`needs`)."""
    base = dict(mech=True, story=story, flows=flows, needs=needs, delay=(10, 10), shaper={},
                sysctl={}, router_mtu=None, rules=[], client_ecn=0, server_ecn=2, cc="cubic",
                captures=CAPTURE_AT)
    base.update(kw)
    return base


def pmtu(story, needs, icmp_target):
    """mech-pmtu-*: a 1 MB download over the MTU hop, the router's ICMP "fragmentation
    needed" going to icmp_target (DROP or ACCEPT), the server probing the MTU."""
    return mech(story, [flow("download", reply=PMTU_REPLY, sample_ms=5)], needs,
                sysctl={"server": {"net.ipv4.tcp_mtu_probing": 1}}, router_mtu=PMTU_MTU,
                rules=[("filter", "OUTPUT", FRAG_NEEDED + ("-j", icmp_target))])


SCENARIOS = {
    "mech-nagle": mech(
        f"one connection, {NAGLE['requests']} exchanges: the client writes each "
        f"{NAGLE['request']} B request as two send() calls ({NAGLE['split'][0]} + "
        f"{NAGLE['split'][1]} B) with Nagle on, the server answers each whole request at once "
        f"with {NAGLE['reply']} B; 20 ms round trip (5 ms delay line each side)",
        [flow("exchanges", **NAGLE)], "nagle", delay=(5, 5)),
    "mech-nagle-nodelay": mech(
        "the control of mech-nagle: the same two send() calls per request with TCP_NODELAY",
        [flow("exchanges", nodelay=True, **NAGLE)], "no-nagle", delay=(5, 5)),
    "mech-bloat": mech(
        f"a {BLOAT_BULK // 1_000_000} MB download (port 5002) fills a "
        f"{BLOAT_SHAPER['rate_mbit']} Mbit/s server->client bottleneck whose FIFO holds "
        f"{BLOAT_SHAPER['queue_limit']} frames (~360 ms; the download's sender runs Reno, the "
        f"client's tcp_rmem starts at 1 MB); {BLOAT_HEAD_START:g} s after it began an "
        f"interactive flow (port 5001) makes {BLOAT_EXCHANGES} exchanges of a 100 B request and "
        "a 1000 B reply through the same queue; 20 ms round trip (5 ms delay line each side)",
        [flow("bulk", 5002, reply=BLOAT_BULK, cc="reno"),
         flow("interactive", requests=BLOAT_EXCHANGES, start_after=BLOAT_HEAD_START)],
        "queue", delay=(5, 5), shaper=BLOAT_SHAPER, sysctl=BLOAT_RMEM),
    "mech-bloat-idle": mech(
        "the control of mech-bloat: the interactive flow alone through the same idle bottleneck",
        [flow("interactive", requests=BLOAT_EXCHANGES)], "no-queue", delay=(5, 5),
        shaper=BLOAT_SHAPER, sysctl=BLOAT_RMEM),
    "mech-pmtu-blackhole": pmtu(
        f"one {PMTU_REPLY // 1_000_000} MB download; the router's client-facing link (r-eth0, "
        f"which the server's data leaves by) has MTU {PMTU_MTU} and the router's own ICMP "
        "\"fragmentation needed\" is dropped (iptables OUTPUT), so full-size segments vanish; "
        "server net.ipv4.tcp_mtu_probing=1; 40 ms round trip", "blackhole", "DROP"),
    "mech-pmtu-icmp": pmtu(
        "the control of mech-pmtu-blackhole: the same MTU hop, the router's ICMP "
        "\"fragmentation needed\" let through (counted by an ACCEPT rule)", "icmp", "ACCEPT"),
    "mech-ssr": mech(
        f"one connection, {SSR['requests']} requests; the client pauses {SSR['wait']:g} s before "
        f"each, the server answers each with {SSR['reply'] // 1_000_000} MB; server "
        "net.ipv4.tcp_slow_start_after_idle=1 (the default); 40 ms round trip",
        [flow("chunks", sample_ms=1, **SSR)], "restart",
        sysctl={"server": {"net.ipv4.tcp_slow_start_after_idle": 1}}),
    "mech-ssr-off": mech(
        "the control of mech-ssr: server net.ipv4.tcp_slow_start_after_idle=0",
        [flow("chunks", sample_ms=1, **SSR)], "no-restart",
        sysctl={"server": {"net.ipv4.tcp_slow_start_after_idle": 0}}),
    "mech-opts-stripped": mech(
        f"one {OPTS_REPLY // 1_000_000} MB download; the router strips window scaling, SACK "
        "permitted and timestamps from the client's SYN on its way to the server (iptables "
        "mangle TCPOPTSTRIP; the option bytes become NOPs); 40 ms round trip",
        [flow("download", reply=OPTS_REPLY)], "stripped",
        rules=[("mangle", "FORWARD", STRIP)]),
    "mech-opts-kept": mech(
        "the control of mech-opts-stripped: the client's SYN crosses the router untouched "
        "(counted by an ACCEPT rule)",
        [flow("download", reply=OPTS_REPLY)], "kept",
        rules=[("mangle", "FORWARD", MARK_SYN)]),
    "mech-reorder": mech(
        f"one {REORDER_REPLY // 1_000_000} MB download; the server-side delay line holds "
        f"{REORDER['reorder_share']:.0%} of the server's frames back an extra 2-4 ms (uniform), "
        "so later frames overtake them: reordering without loss; 40 ms round trip",
        [flow("download", reply=REORDER_REPLY)], "reorder", shaper=REORDER),
    "mech-reorder-none": mech(
        "the control of mech-reorder: nothing held back",
        [flow("download", reply=REORDER_REPLY)], "no-reorder"),
}


# ----------------------------------------------------------------------------------
# One run
# ----------------------------------------------------------------------------------
def snmp(lab, ns, proto):
    """One protocol's counters of /proc/net/snmp in a namespace (Tcp RetransSegs, Icmp ...)."""
    lines = [line.split() for line in lab.run("cat", "/proc/net/snmp", ns=ns, out=True).splitlines()
             if line.startswith(proto + ":")]
    return {k: int(v) for k, v in zip(lines[0][1:], lines[1][1:])}


def rule_counts(lab, cfg):
    """Packets each configured router rule matched, in configuration order."""
    counts = []
    for table, chain, _ in cfg["rules"]:
        out = lab.run("iptables-legacy", "-t", table, "-L", chain, "-v", "-x", "-n",
                      ns=lab.NS_ROUTER, out=True)
        counts += [int(line.split()[0]) for line in out.splitlines()[2:] if line.strip()]
    return counts


def do_run(lab, name, cfg, tmp):
    a = lab.ADDR[4]
    res = {"scenario": name}
    shaper = dict(cfg["shaper"])
    if "rate_mbit" in shaper:
        shaper["sojourn_log"] = os.path.join(tmp, "sojourns.csv")
    try:
        lab.build(dict(cfg, shaper=shaper), tmp)
        for ns in (lab.NS_CLIENT, lab.NS_SERVER):
            lab.sysctl(ns, "net.ipv4.tcp_ecn", 0)
        names = {"client": lab.NS_CLIENT, "server": lab.NS_SERVER, "router": lab.NS_ROUTER}
        for side, keys in cfg["sysctl"].items():
            for key, value in keys.items():
                lab.sysctl(names[side], key, value)
        if cfg["router_mtu"]:
            lab.run("ip", "link", "set", "r-eth0", "mtu", str(cfg["router_mtu"]), ns=lab.NS_ROUTER)
        for table, chain, rule in cfg["rules"]:
            lab.run("iptables-legacy", "-t", table, "-A", chain, *rule, ns=lab.NS_ROUTER)
        res["router_rules"] = [" ".join(("iptables-legacy", "-t", t, "-A", c) + r)
                               for t, c, r in cfg["rules"]]
        res["sysctl"] = {side: {k: lab.sysctl(ns, k) for k in
                                ("net.ipv4.tcp_mtu_probing", "net.ipv4.tcp_slow_start_after_idle",
                                 "net.ipv4.tcp_base_mss", "net.ipv4.tcp_retries1",
                                 "net.ipv4.tcp_window_scaling", "net.ipv4.tcp_sack",
                                 "net.ipv4.tcp_timestamps", "net.ipv4.tcp_reordering",
                                 "net.ipv4.tcp_rmem")}
                         for side, ns in (("client", lab.NS_CLIENT), ("server", lab.NS_SERVER))}
        res["router_mtu"] = int(lab.run("cat", "/sys/class/net/r-eth0/mtu", ns=lab.NS_ROUTER, out=True))
        lab.run(lab.PY, "-c", lab.WARM_UP, a["server"], ns=lab.NS_CLIENT)
        gen = os.path.join(LAB, "rr.py")
        servers = []
        for i, f in enumerate(cfg["flows"]):
            slog = os.path.join(tmp, f"server-{i}.jsonl")
            servers.append(lab.start(lab.PY, gen, "server", "--bind", a["server"], "--port",
                                     str(f["port"]), "--request", str(f["request"]), "--reply",
                                     str(f["reply"]), "--count", str(f.get("server_count", 1)),
                                     "--log", slog,
                                     "--sample-ms", str(f["sample_ms"]), "--cc", f["cc"],
                                     *f.get("server_args", ()), ns=lab.NS_SERVER))
            lab.wait_for(lambda: os.path.exists(slog) and os.path.getsize(slog) > 0, "server")
        pcaps = {s: os.path.join(tmp, f"lab-{name}{s}.pcap") for s in cfg["captures"]}
        dumps = {s: lab.start_tcpdump(p, pcaps[s]) for s, p in cfg["captures"].items()}
        t0 = time.monotonic()
        timed = timed_rules(lab, cfg.get("timed_rules", ()))
        clients = []
        for i, f in enumerate(cfg["flows"]):
            time.sleep(f["start_after"])
            ccmd = [lab.PY, gen, "client", "--connect", a["server"], "--port", str(f["port"]),
                    "--requests", str(f["requests"]), "--request", str(f["request"]),
                    "--reply", str(f["reply"]), "--wait", str(f["wait"]),
                    "--log", os.path.join(tmp, f"client-{i}.jsonl")]
            if f["split"]:
                ccmd += ["--split", ",".join(map(str, f["split"]))]
            if f["nodelay"]:
                ccmd.append("--nodelay")
            ccmd += f.get("client_args", ())
            clients.append(lab.start(*ccmd, ns=lab.NS_CLIENT))
        for c in clients:
            if c.wait(300) != 0:
                raise RuntimeError("client failed")
        for s in servers:
            s.wait(30)
        res["run_s"] = round(time.monotonic() - t0, 2)
        if timed:
            timed.join()
            res["timed_rules"] = timed.log
        # the close's retransmissions, where a scenario wants them in the captures
        time.sleep(0.3 + 2 * sum(cfg["delay"]) / 1000 + cfg.get("capture_tail_s", 0))
        res["tcpdump"] = {s: lab.stop_tcpdump(p) for s, p in dumps.items()}
        res["nstat"] = {"client": timebudget.netstat(lab, lab.NS_CLIENT),
                        "server": timebudget.netstat(lab, lab.NS_SERVER)}
        res["snmp"] = {"server_tcp": snmp(lab, lab.NS_SERVER, "Tcp"),
                       "router_icmp": snmp(lab, lab.NS_ROUTER, "Icmp")}
        res["rule_counters"] = rule_counts(lab, cfg)
    finally:
        lab.teardown()
    res["delay_lines"] = [lab.read_jsonl(os.path.join(tmp, f"delayline-{x}.json"))[0]
                          for x, *_ in lab.delay_lines(cfg)]
    res["client"] = [[r for r in lab.read_jsonl(os.path.join(tmp, f"client-{i}.jsonl"))
                      if r["event"] == "conn"][0] for i in range(len(cfg["flows"]))]
    # None for a server that served no one (its clients' SYNs never reached it)
    res["server"] = [next((r for r in lab.read_jsonl(os.path.join(tmp, f"server-{i}.jsonl"))
                           if r["event"] == "served"), None) for i in range(len(cfg["flows"]))]
    res["sojourns"] = read_sojourns(shaper.get("sojourn_log"))
    res["pcaps"] = pcaps
    return res


def timed_rules(lab, rules):
    """Starts a thread that inserts each router rule (at_s, for_s, table, chain, rule) at_s
    after now and deletes it for_s later (an outage, a peer that vanishes), logging in its
    `log` when each went in and out (CLOCK_REALTIME, the captures' clock) and the packets it
    matched; None without rules."""
    if not rules:
        return None

    def apply():
        start = time.monotonic()
        events = sorted([(r[0], "in", r) for r in rules] + [(r[0] + r[1], "out", r) for r in rules],
                        key=lambda e: e[0])
        for at, what, (at_s, for_s, table, chain, rule) in events:
            time.sleep(max(0.0, start + at - time.monotonic()))
            if what == "in":
                lab.run("iptables-legacy", "-t", table, "-I", chain, *rule, ns=lab.NS_ROUTER)
                thread.log.append({"rule": " ".join((table, chain) + tuple(rule)),
                                   "inserted": time.time()})
                continue
            out = lab.run("iptables-legacy", "-t", table, "-L", chain, "-v", "-x", "-n",
                          ns=lab.NS_ROUTER, out=True)
            lab.run("iptables-legacy", "-t", table, "-D", chain, *rule, ns=lab.NS_ROUTER)
            entry = next(e for e in thread.log if e["rule"] == " ".join((table, chain) + tuple(rule))
                         and "deleted" not in e)
            # the inserted rule is the chain's first (-I), its counters on the listing's third line
            entry.update(deleted=time.time(), packets=int(out.splitlines()[2].split()[0]))

    thread = threading.Thread(target=apply)
    thread.log = []
    thread.start()
    return thread


def read_sojourns(path):
    """The delay line's per-frame rows (epoch, sojourn ms, length, sport, dport), or []."""
    if not path:
        return []
    with open(path) as f:
        return [(float(r["epoch"]), float(r["sojourn_ms"]), int(r["length"]), int(r["sport"]),
                 int(r["dport"])) for r in csv.DictReader(f)]


# ----------------------------------------------------------------------------------
# What the captures hold, from tshark's standard fields
# ----------------------------------------------------------------------------------
def tshark(pcap, display, *fields):
    out = subprocess.run(["tshark", "-n", "-r", pcap, "-T", "fields", "-E", "separator=/t",
                          "-E", "occurrence=a", "-E", "aggregator=,", "-Y", display,
                          *[x for f in fields for x in ("-e", f)]],
                         check=True, text=True, capture_output=True).stdout
    return [line.split("\t") for line in out.splitlines()]


def delayed_acks(pcap, port, first_part):
    """Per request, at this capture: the time from the request's first part (a client
    segment of `first_part` bytes) to the server's next segment acknowledging it, and
    whether that segment was a pure ACK (the delayed ACK) rather than the reply."""
    rows = tshark(pcap, f"tcp.port == {port} && tcp.flags.syn == 0",
                  "frame.time_epoch", "tcp.srcport", "tcp.seq", "tcp.len", "tcp.ack")
    out, waiting = [], None
    for when, sport, seq, length, ack in rows:
        when, length = float(when), int(length)
        if int(sport) == port and length == first_part:
            waiting = (when, int(seq) + length)
        elif int(sport) != port and waiting and int(ack) >= waiting[1]:
            out.append({"after_s": round(when - waiting[0], 6), "pure_ack": length == 0})
            waiting = None
    return out


def part_gaps(pcap, port, first_part):
    """Per request at the client: first part's segment -> the next client data segment
    (the second part, which Nagle holds until the first is acknowledged)."""
    rows = tshark(pcap, f"tcp.srcport == {port} && tcp.len > 0", "frame.time_epoch", "tcp.len")
    gaps = []
    for (t0, n0), (t1, _) in zip(rows, rows[1:]):
        if int(n0) == first_part:
            gaps.append(round(float(t1) - float(t0), 6))
    return gaps


def syn_options(pcap, port):
    """Option kinds of the client's SYN and the server's SYN-ACK at this capture."""
    rows = tshark(pcap, f"tcp.port == {port} && tcp.flags.syn == 1", "tcp.flags.ack",
                  "tcp.option_kind", "tcp.window_size_value")
    out = {}
    for ack, kinds, window in rows:
        key = "synack" if ack in ("1", "True") else "syn"
        out.setdefault(key, {"option_kinds": [int(k) for k in kinds.split(",") if k],
                             "window": int(window)})
    return out


def max_in_flight(pcap, port):
    """The largest tcp.analysis.bytes_in_flight of the server's segments at this capture."""
    rows = tshark(pcap, f"tcp.srcport == 5001 && tcp.dstport == {port} && tcp.len > 0",
                  "tcp.analysis.bytes_in_flight")
    return max((int(r[0]) for r in rows if r[0]), default=0)


def server_data(pcap, port):
    """(epoch, tcp.len) of the server's data segments at this capture."""
    rows = tshark(pcap, f"tcp.srcport == 5001 && tcp.dstport == {port} && tcp.len > 0",
                  "frame.time_epoch", "tcp.len")
    return [(float(w), int(n)) for w, n in rows]


def longest_silence(frames):
    """(seconds, start epoch) of the longest gap between consecutive frames (epoch first)."""
    gaps = [(b[0] - a[0], a[0]) for a, b in zip(frames, frames[1:])]
    return max(gaps, default=(0.0, None))


# ----------------------------------------------------------------------------------
# Ground truth per flow
# ----------------------------------------------------------------------------------
def r6(v):
    return round(v, 6)


def exchanges(c, s, one_way):
    """Per exchange (s): response (request written -> reply's last byte read), the
    server's wait (request complete at the server -> reply's first write) and reply bytes."""
    return [{"response_s": r6(ce["reply_last_byte"] - ce["request_sent"]),
             "server_wait_s": r6(se["reply_write_began"] - ce["request_sent"] - one_way),
             "reply_bytes": ce["reply_bytes"]}
            for ce, se in zip(c["exchanges"], s["exchanges"])]


def median(xs):
    return r6(statistics.median(xs)) if xs else None


def nagle_truth(res, c):
    port = c["local_port"]
    server_side = delayed_acks(res["pcaps"]["-server"], port, NAGLE["split"][0])
    held = part_gaps(res["pcaps"]["-client"], port, NAGLE["split"][0])
    delayed = [x["after_s"] for x in server_side if x["pure_ack"]]
    return {"server_DelayedACKs": res["nstat"]["server"].get("DelayedACKs", 0),
            "first_part_acked_after_s": [x["after_s"] for x in server_side],
            "pure_acks_of_first_part": len(delayed),
            "delayed_ack_interval_median_s": median(delayed),
            "second_part_after_first_s": held,
            "second_part_after_first_median_s": median(held)}


def bloat_truth(res, c, flows):
    port = c["local_port"]
    mine = [soj for _, soj, _, _, dport in res["sojourns"] if dport == port]
    out = {"queue_peak_ms": res["delay_lines"][-1]["max_sojourn_ms"],
           "queue_dropped_frames": res["delay_lines"][-1]["dropped"],
           "frames_queued": len(mine)}
    if mine:
        out.update(sojourn_median_ms=round(statistics.median(mine), 3),
                   sojourn_max_ms=round(max(mine), 3), sojourn_min_ms=round(min(mine), 3))
    bulk = [f for f in flows if f["role"] == "bulk"]
    if bulk and bulk[0]["client"] is c:
        ex = c["exchanges"][0]
        out["goodput_mbit_s"] = round(ex["reply_bytes"] * 8 / (ex["reply_last_byte"] - ex["reply_first_byte"]) / 1e6, 3)
        out["bottleneck_mbit_s"] = BLOAT_SHAPER["rate_mbit"]
    elif bulk:
        # the flow that filled the queue, as the issue wants it named
        out["queue_filled_by"] = {"client_port": bulk[0]["port"], "server_port": bulk[0]["server_port"]}
        out["bulk_last_byte_after_this_flow_s"] = r6(
            bulk[0]["client"]["exchanges"][-1]["reply_last_byte"] - c["exchanges"][-1]["reply_last_byte"])
    return out


def pmtu_truth(res, c, s):
    port = c["local_port"]
    at_client = server_data(res["pcaps"]["-client"], port)
    every = [(float(w),) for (w,) in tshark(res["pcaps"]["-client"], f"tcp.port == {port}",
                                             "frame.time_epoch")]
    gap, start = longest_silence(every)
    sizes = [n for _, n in server_data(res["pcaps"]["-server"], port)]
    rows = [dict(zip(s["sample_fields"], r)) for r in s["samples"]]
    mss_changes = []
    for r in rows:
        if not mss_changes or r["snd_mss"] != mss_changes[-1][1]:
            mss_changes.append((r6(r["epoch"] - c["connected"]), r["snd_mss"]))
    ext = res["nstat"]["server"]
    return {"server_nstat": {k: ext.get(k, 0) for k in ("TCPMTUPFail", "TCPMTUPSuccess",
                                                         "TCPTimeouts", "TCPLossProbes")},
            "server_RetransSegs": res["snmp"]["server_tcp"].get("RetransSegs"),
            "router_icmp_OutDestUnreachs": res["snmp"]["router_icmp"].get("OutDestUnreachs"),
            "icmp_rule_packets": res["rule_counters"][0],
            "server_snd_mss_final": s["tcp_info"]["snd_mss"],
            "server_pmtu_final": s["tcp_info"]["pmtu"],
            "server_total_retrans": s["tcp_info"]["total_retrans"],
            "snd_mss_changes_s": mss_changes,
            "longest_silence_at_client_s": r6(gap),
            "silence_began_after_connect_s": r6(start - c["connected"]) if start else None,
            "server_segment_sizes_sent": sorted(set(sizes)),
            "largest_segment_reaching_client": max((n for _, n in at_client), default=0)}


def ssr_truth(c, s, rtt):
    """Per chunk: the server's cwnd in its last sample before the reply's write (what the
    idle left) and the smallest in the round trip after the write began (where the
    restart, applied on the first send after idle, put it), and the chunk's time."""
    rows = [dict(zip(s["sample_fields"], r)) for r in s["samples"]]
    chunks = []
    for ce, se in zip(c["exchanges"], s["exchanges"]):
        began = se["reply_write_began"]
        before = [r for r in rows if r["epoch"] < began]
        after = [r["snd_cwnd"] for r in rows if began <= r["epoch"] <= began + rtt]
        chunks.append({"cwnd_before_write": before[-1]["snd_cwnd"] if before else None,
                       "cwnd_min_first_rtt": min(after) if after else None,
                       "idle_before_s": r6(began - (s["exchanges"][len(chunks) - 1]["reply_write_ended"]
                                                    if chunks else s["accepted"])),
                       "chunk_s": r6(ce["reply_last_byte"] - ce["reply_first_byte"]),
                       "response_s": r6(ce["reply_last_byte"] - ce["request_sent"])})
    later = [x["response_s"] for x in chunks[1:]]
    return {"chunks": chunks, "later_chunks_response_median_s": median(later),
            "pauses_s": r6(sum(x["idle_before_s"] for x in chunks)),
            "server_total_retrans": s["tcp_info"]["total_retrans"]}


def opts_truth(res, c, s):
    port = c["local_port"]
    seen = {point: syn_options(res["pcaps"][suffix], port) for suffix, point in CAPTURE_AT.items()}
    return {"syn_and_synack_options": seen,
            "strip_rule_packets": res["rule_counters"][0],
            "server_tcpi_options": s["tcp_info"].get("options"),
            "max_bytes_in_flight_at_server": max_in_flight(res["pcaps"]["-server"], port),
            "transfer_s": r6(c["exchanges"][0]["reply_last_byte"] - c["connect_began"])}


def reorder_truth(res, c, s):
    ti = s["tcp_info"]
    return {"held_back_frames": res["delay_lines"][-1].get("held_back", 0),
            "server_data_frames": len(server_data(res["pcaps"]["-server"], c["local_port"])),
            "server_reord_seen": ti["reord_seen"], "server_dsack_dups": ti["dsack_dups"],
            "server_total_retrans": ti["total_retrans"],
            "client_rcv_ooopack": c["tcp_info"]["rcv_ooopack"],
            "transfer_s": r6(c["exchanges"][0]["reply_last_byte"] - c["connect_began"])}


def flow_truths(cfg, res):
    one_way = sum(cfg["delay"]) / 1000
    rtt = 2 * one_way
    flows = []
    for f, c, s in zip(cfg["flows"], res["client"], res["server"]):
        ex = exchanges(c, s, one_way)
        t = {"role": f["role"], "client": c, "server_port": f["port"],
             "port": c["local_port"], "exchanges": ex,
             "truth": {"connect_s": r6(c["connected"] - c["connect_began"]),
                       "active_s": r6(c["exchanges"][-1]["reply_last_byte"] - c["connect_began"]),
                       "response_median_s": median([x["response_s"] for x in ex]),
                       "path_rtt_s": rtt, "exchanges": ex,
                       "client_tcp_info": c["tcp_info"], "server_tcp_info": s["tcp_info"]}}
        flows.append(t)
    for t, s in zip(flows, res["server"]):
        need, c = cfg["needs"], t["client"]
        if need in ("nagle", "no-nagle"):
            t["truth"]["nagle"] = nagle_truth(res, c)
        elif need in ("queue", "no-queue"):
            t["truth"]["queue"] = bloat_truth(res, c, flows)
        elif need in ("blackhole", "icmp"):
            t["truth"]["pmtu"] = pmtu_truth(res, c, s)
        elif need in ("restart", "no-restart"):
            t["truth"]["restart"] = ssr_truth(c, s, rtt)
        elif need in ("stripped", "kept"):
            t["truth"]["options"] = opts_truth(res, c, s)
        elif need in ("reorder", "no-reorder"):
            t["truth"]["reordering"] = reorder_truth(res, c, s)
        t["cause"], t["why"] = cause(cfg, t)
    return flows


# ----------------------------------------------------------------------------------
# Expected cause (the proposed names: mech/README.md)
# ----------------------------------------------------------------------------------
def cause(cfg, t):
    need, tr = cfg["needs"], t["truth"]
    rtt_ms = tr["path_rtt_s"] * 1000
    med = tr["response_median_s"]
    if need == "nagle":
        n = tr["nagle"]
        return "nagle-delayed-ack", (
            f"each request's second send() waited for the ACK of its first (Nagle), which the "
            f"server delayed (server TcpExtDelayedACKs {n['server_DelayedACKs']}, median "
            f"{n['delayed_ack_interval_median_s'] * 1000:.1f} ms to the pure ACK): median exchange "
            f"{med * 1000:.1f} ms over a {rtt_ms:g} ms round trip, {tr['active_s']:.2f} s in all")
    if need == "no-nagle":
        return "none", (f"TCP_NODELAY: both parts left at once; median exchange {med * 1000:.1f} ms "
                        f"over a {rtt_ms:g} ms round trip, {tr['active_s']:.2f} s in all; a 2 kB "
                        "prompt reply per request is not a limited sender")
    if need == "queue" and t["role"] == "interactive":
        q = tr["queue"]
        return "queueing-delay", (
            f"its replies waited behind the bulk download in the bottleneck's FIFO (median "
            f"sojourn {q['sojourn_median_ms']:.0f} ms, peak {q['queue_peak_ms']:.0f} ms): median "
            f"exchange {med * 1000:.0f} ms over a {rtt_ms:g} ms path")
    if need == "queue":
        return "none", ("the bulk download that filled the queue runs at the bottleneck's rate: "
                        "it is not slow because of the queue it builds")
    if need == "no-queue":
        return "none", (f"the bottleneck idle (median sojourn "
                        f"{tr['queue'].get('sojourn_median_ms', 0):.1f} ms): median exchange "
                        f"{med * 1000:.1f} ms over a {rtt_ms:g} ms path")
    if need == "blackhole":
        p = tr["pmtu"]
        return "pmtu-blackhole", (
            f"full-size segments died at the {PMTU_MTU} B hop and its ICMP was dropped "
            f"({p['icmp_rule_packets']} dropped): nothing reached the client for "
            f"{p['longest_silence_at_client_s']:.2f} s until MTU probing lowered the MSS "
            f"(server TCPTimeouts {p['server_nstat']['TCPTimeouts']}, final snd_mss "
            f"{p['server_snd_mss_final']}); {tr['active_s']:.2f} s in all")
    if need == "icmp":
        p = tr["pmtu"]
        return "none", (f"the router's {p['icmp_rule_packets']} ICMP \"fragmentation needed\" "
                        f"reached the server, which lowered its MSS to {p['server_snd_mss_final']} "
                        f"at once: {tr['active_s']:.2f} s in all")
    if need in ("restart", "no-restart"):
        return restart_cause(need, tr["restart"], tr["server_tcp_info"]["snd_mss"], tr["path_rtt_s"])
    if need == "stripped":
        o = tr["options"]
        return "options-stripped", (
            f"the router replaced the SYN's window scale, SACK permitted and timestamps with "
            f"NOPs: the window stays unscaled, flight at most {o['max_bytes_in_flight_at_server']} B "
            f"at the server; {o['transfer_s']:.2f} s")
    if need == "kept":
        o = tr["options"]
        return "none", (f"all options negotiated: flight up to {o['max_bytes_in_flight_at_server']} B, "
                        f"{o['transfer_s']:.2f} s")
    r = tr["reordering"]
    return "none", (f"{r['held_back_frames']} of the server's frames ({r['server_data_frames']} "
                    f"data frames) held back 2-4 ms; "
                    f"server reord_seen {r['server_reord_seen']}, dsack_dups {r['server_dsack_dups']}, "
                    f"total_retrans {r['server_total_retrans']}: reordering is reported, not a cause; "
                    f"{r['transfer_s']:.2f} s" if need == "reorder" else
                    f"nothing held back, {r['transfer_s']:.2f} s")


def slow_start_rounds(segments, start, ceiling):
    """Round trips to send `segments` from a window of `start`, doubling each round up to
    `ceiling` (the cwnd the idle found: ssthresh keeps at least 3/4 of it)."""
    rounds, sent, window = 0, 0, max(start, 1)
    while sent < segments:
        sent += window
        window = min(2 * window, max(ceiling, window))
        rounds += 1
    return rounds


def restart_share(r, mss, rtt):
    """What the restarts cost, as a share of the transfer time, from the kernel's cwnd
    before and after each later pause: per later chunk, the round trips its bytes took
    from the restarted window beyond those at the cwnd the idle found, at the path's
    round trip; the transfer time, every chunk's request to its last byte (the client's
    clock). A low and a high share, one round trip a chunk either way: the model counts
    whole rounds, and the kernel's ssthresh and ACK clock round them differently."""
    segments = -(-SSR["reply"] // mss)
    later = r["chunks"][1:]
    extra = sum(slow_start_rounds(segments, x["cwnd_min_first_rtt"], x["cwnd_before_write"]) -
                -(-segments // x["cwnd_before_write"]) for x in later)
    transfer = sum(x["response_s"] for x in r["chunks"])
    return (extra - len(later)) * rtt / transfer, (extra + len(later)) * rtt / transfer


def restart_cause(need, r, mss, rtt):
    """mech-ssr's cause (the restart, when it cost at least timebudget.MIN_SHARE, the share
    a cause is named from, of the transfer time, the pauses staying the client's; the
    client's pause before its first request, 1.5 s of a connection opened to be used,
    when it cost less; either within a round trip a chunk of the share) or its
    control's (the client's pauses), with the cwnd before and after each later pause."""
    cw = ", ".join(f"{x['cwnd_before_write']}->{x['cwnd_min_first_rtt']}" for x in r["chunks"][1:])
    median = r["later_chunks_response_median_s"]
    if need == "restart":
        low, high = restart_share(r, mss, rtt)
        said = (f"after each {SSR['wait']:g} s pause the server's cwnd restarted near the initial "
                f"window (halved per RTO of idle, never below {INITIAL_CWND}: before -> smallest in "
                f"the first round trip: {cw}); later chunks took {median:.3f} s (median); the "
                f"restarts cost {low:.0%}-{high:.0%} of the transfer time")
        if low >= timebudget.MIN_SHARE:
            return "slow-start-restart", said + "; the pauses stay the client's"
        first = ("; the client's pause before its first request (a connection opened to be used) "
                 "is then the largest cost")
        if high < timebudget.MIN_SHARE:
            return "client-delay", said + f", under {timebudget.MIN_SHARE:.0%}" + first
        return (["slow-start-restart", "client-delay"],
                said + f", around {timebudget.MIN_SHARE:.0%}: either" + first)
    return "client-delay", (
        f"tcp_slow_start_after_idle=0: cwnd kept across the pauses ({cw}); later chunks "
        f"{median:.3f} s (median); what remains is the client's {SSR['wait']:g} s pause before "
        "each request (issue 29's client-delay)")


# ----------------------------------------------------------------------------------
# Self-check: the kernel did what the scenario needs
# ----------------------------------------------------------------------------------
def problems(cfg, res, flows):
    bad = []
    need = cfg["needs"]
    for dl in res["delay_lines"]:
        lost = dl["frames_in"] - dl["frames_out"] - dl.get("dropped", 0)
        if dl["kernel_drops"] or dl["send_errors"] or lost:
            bad.append(f"delay line lost frames: {dl}")
    for suffix, st in res["tcpdump"].items():
        if st.get("dropped by kernel", 0):
            bad.append(f"tcpdump{suffix} dropped packets: {st}")
    for f, t in zip(cfg["flows"], flows):
        ex = t["exchanges"]
        if "connect_error" in t["truth"]:
            continue                    # a connection never made (its scenario checks why)
        if len(ex) != f["requests"] or any(x["reply_bytes"] != f["reply"] for x in ex):
            bad.append(f"{t['role']}: not every reply arrived whole")
        if t["truth"]["client_tcp_info"]["total_retrans"] and not cfg.get("client_retransmits"):
            # the expected c2s byte count is exact: the requests, each sent once (a scenario
            # whose replies are dropped lets the client probe its unanswered request)
            bad.append(f"{t['role']}: the client retransmitted")
    rtt = 2 * sum(cfg["delay"]) / 1000
    tr = flows[-1]["truth"]
    med = tr["response_median_s"]
    if need == "nagle":
        n = tr["nagle"]
        if n["server_DelayedACKs"] < NAGLE["requests"] // 2 or med < rtt + 0.03:
            bad.append(f"no Nagle/delayed-ACK stall: DelayedACKs {n['server_DelayedACKs']}, "
                       f"median exchange {med}")
    if need == "no-nagle" and med > rtt + 0.015:
        bad.append(f"the control's median exchange {med} s is more than a round trip + 15 ms")
    if need == "queue":
        q = tr["queue"]
        if q.get("sojourn_median_ms", 0) < 100 or med < 5 * rtt:
            bad.append(f"no queue built under the interactive flow: {q}, median exchange {med}")
        if q.get("bulk_last_byte_after_this_flow_s", -1) <= 0:
            bad.append("the bulk download ended before the interactive flow")
    if need == "no-queue" and (tr["queue"].get("sojourn_max_ms", 99) > 5 or med > 2 * rtt):
        bad.append(f"the idle bottleneck queued: {tr['queue']}, median exchange {med}")
    if need in ("blackhole", "icmp"):
        p = tr["pmtu"]
        if not p["icmp_rule_packets"] or p["server_snd_mss_final"] > PMTU_MTU - 52:
            bad.append(f"no MTU hop met: {p}")
        if need == "blackhole" and (not p["server_nstat"]["TCPTimeouts"] or p["longest_silence_at_client_s"] < 1):
            bad.append(f"no black hole: {p}")
        if need == "icmp" and (p["server_nstat"]["TCPTimeouts"] or p["longest_silence_at_client_s"] > 0.5):
            bad.append(f"the ICMP control stalled: {p}")
    if need in ("restart", "no-restart"):
        later = tr["restart"]["chunks"][1:]
        for x in later:
            before, low = x["cwnd_before_write"], x["cwnd_min_first_rtt"]
            if before is None or low is None:
                bad.append(f"no cwnd samples around a chunk: {x}")
            elif need == "restart" and (low > max(INITIAL_CWND, before / 8) or before < 3 * INITIAL_CWND):
                bad.append(f"no restart: {x}")
            elif need == "no-restart" and low < 0.8 * before:
                bad.append(f"cwnd fell over the pause without a restart: {x}")
            if x["idle_before_s"] < SSR["wait"]:
                bad.append(f"idle shorter than the pause: {x}")
    if need in ("stripped", "kept"):
        o = tr["options"]
        syn_c = o["syn_and_synack_options"]["client"]["syn"]["option_kinds"]
        syn_s = o["syn_and_synack_options"]["server"]["syn"]["option_kinds"]
        synack = o["syn_and_synack_options"]["server"]["synack"]["option_kinds"]
        if o["strip_rule_packets"] != 1 or not {3, 4, 8} <= set(syn_c):
            bad.append(f"the rule did not see the one SYN with all options: {o}")
        if need == "stripped" and ({3, 4, 8} & set(syn_s + synack) or syn_s.count(1) < 8):
            bad.append(f"options not stripped: server SYN {syn_s}, SYN-ACK {synack}")
        if need == "stripped" and o["max_bytes_in_flight_at_server"] > WINDOW_CEILING:
            bad.append(f"flight above the unscaled window: {o['max_bytes_in_flight_at_server']}")
        if need == "kept" and not {3, 4, 8} <= set(syn_s):
            bad.append(f"options lost in the control: server SYN {syn_s}")
    if need in ("reorder", "no-reorder"):
        r = tr["reordering"]
        if need == "reorder" and (r["held_back_frames"] < 0.01 * r["server_data_frames"]
                                  or not r["client_rcv_ooopack"]):
            bad.append(f"no reordering: {r}")
        if need == "no-reorder" and (r["held_back_frames"] or r["client_rcv_ooopack"]
                                     or r["server_total_retrans"]):
            bad.append(f"the control reordered or retransmitted: {r}")
    return bad


# ----------------------------------------------------------------------------------
# Expected files
# ----------------------------------------------------------------------------------
NSTAT_KEYS = ("DelayedACKs", "DelayedACKLocked", "DelayedACKLost", "TCPMTUPFail", "TCPMTUPSuccess",
              "TCPTimeouts", "TCPLossProbes", "TCPLossProbeRecovery", "TCPSACKReorder",
              "TCPTSReorder", "TCPDSACKRecv", "TCPDSACKOldSent", "TCPDSACKOfoRecv",
              "TCPOFOQueue", "TCPSpuriousRTOs", "TCPFullUndo", "TCPPartialUndo",
              "TCPDSACKUndo", "TCPLossUndo", "TCPFastRetrans", "TCPSlowStartRetrans",
              "TCPLostRetransmit", "TCPSackRecovery", "TCPRenoRecovery", "TCPSACKReneging",
              "TCPRcvCollapsed", "TCPBacklogCoalesce", "TCPWinProbe", "TCPSynRetrans")


OPTION_NAMES = ((3, "wscale"), (4, "sack_perm"), (8, "ts"))


def options_expect(seen):
    """tcpdiag.opts.* (the engine's existing fields) from the SYN and SYN-ACK option kinds
    tshark found at this capture point: what each side offered there, what is missing."""
    offered = lambda kinds: ",".join(["mss"] + [n for k, n in OPTION_NAMES if k in kinds])
    both = [n for k, n in OPTION_NAMES
            if k in seen["syn"]["option_kinds"] and k in seen["synack"]["option_kinds"]]
    missing = [n.replace("_perm", "") for _, n in OPTION_NAMES if n not in both]
    return {"tcpdiag.opts.client": offered(seen["syn"]["option_kinds"]),
            "tcpdiag.opts.server": offered(seen["synack"]["option_kinds"]),
            "tcpdiag.opts.missing": ",".join(missing) or "none"}


def expected(name, cfg, res, flows, suffix):
    point = cfg["captures"][suffix]
    streams = timebudget.handshake_rows(res["pcaps"][suffix])
    out = []
    for f, t in zip(cfg["flows"], flows):
        e = {"tcpdiag.flow.client": "10.77.1.2", "tcpdiag.flow.server": "10.77.2.2",
             "tcpdiag.flow.client_port": t["port"], "tcpdiag.flow.server_port": f["port"],
             "tcpdiag.flow.c2s.bytes": f["request"] * f["requests"],
             "tcpdiag.flow.s2c.bytes": {"min": f["reply"] * f["requests"]},
             "tcpdiag.diag.cause": t["cause"]}
        why = t["why"]
        if "options" in t["truth"]:
            seen = t["truth"]["options"]["syn_and_synack_options"][point]
            e.update(options_expect(seen))
            if t["cause"] == "options-stripped" and all(k in seen["syn"]["option_kinds"] for k, _ in OPTION_NAMES):
                # before the strip (003fc11): nothing here shows it, only a SYN-ACK without them
                e["tcpdiag.diag.cause"] = "missing-options"
                why += (f"; captured at the {point}, before the strip, the SYN shows all its options and "
                        "the SYN-ACK none: no packet here was touched by the strip, so this capture "
                        "cannot tell a server that left them out from a path that stripped them (only "
                        "the server capture's NOPs show the strip): missing-options, worded 'left out by "
                        "the server or stripped on the path'")
        out.append({"select": {"tcp.stream": streams[t["port"]]["stream"]},
                    "why": f"{t['role']} flow (client port {t['port']}): {why}",
                    "expect": e, "truth": t["truth"]})
    return labrun.expected_file(name, cfg, suffix, res["nstat"], NSTAT_KEYS, out)


def run_set(lab, name, out, run, truths, check, write_expected):
    """One scenario of a set built on this one's run (mech's, think.py's): run, check,
    keep its captures and expected files in `out`, its log without the captures."""
    return labrun.run_and_keep(
        lab, name, out, run, truths, check, write_expected,
        lambda res, flows: dict({k: v for k, v in res.items() if k not in ("pcaps", "sojourns")},
                                flows=[{k: v for k, v in t.items() if k != "client"} for t in flows]),
        lambda t: f"{t['role']} {t['port']}:{t['cause']}")


def scenario(lab, name):
    return run_set(lab, name, OUT, do_run, flow_truths, problems, expected)
