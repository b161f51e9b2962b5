"""Where the time went (tcpdiag issue 29): the tb-* scenarios, each beside a control that
differs in one setting, run with the request/response generator rr.py, and the ground
truth of each flow's time budget and expected cause, written to captures/lab/next/.

Every value comes from the generators' own CLOCK_REALTIME timings (the clock tcpdump
stamps packets with; all namespaces share it), their TCP_INFO, the namespaces' nstat
counters, the router's rule counters and, for SYN / SYN-ACK times, tshark's standard
fields on the lab's own captures; never from tcpdiag. captures/lab/next/README.md names
the causes and says how each value was obtained.

lab.py dispatches a scenario whose configuration holds `timebudget` here, handing over
its own module (`lab`), whose topology, capture and teardown functions are reused.
"""
import os
import subprocess
import time

import labrun

LAB = os.path.dirname(os.path.abspath(__file__))
NEXT = os.path.join(LAB, "next")
CAPTURE_AT = {"-client": "client", "-router": "router", "-server": "server"}
ACCEPT_CLIENTS = 12
ACCEPT_STAGGER = 0.05       # s between the clients' connects: more than a round trip
REPLY = 1000
# tb-tail-loss: 20 full segments (1448 B of payload with timestamps) and a last one of
# TAIL_PAYLOAD, whose IP length (20 + 32 + payload) no other segment has, so the
# router can drop exactly it (and, once, its tail-loss probe)
TAIL_PAYLOAD = 500
TAIL_REPLY = 20 * 1448 + TAIL_PAYLOAD
SLOW_READ = dict(rcvbuf=16384, read_chunk=4096, read_pause=0.1)
ZW_REPLY = 150_000
# A part of the budget that names the cause must cost at least this share of the
# flow's active time (connect to last reply byte) and at least MIN_COST_S.
MIN_SHARE, MIN_COST_S = 0.3, 0.2


def rr(**kw):
    """A tb-* scenario: rr.py's options (server: backlog, accept_interval, think; client:
    clients, sequential, stagger, requests, wait, idle, rcvbuf, read_chunk, read_pause; both:
    reply), the delay lines (ms one way, client side and server side), router drop
    rules (`drop`) and what the self-check needs (`needs`)."""
    base = dict(timebudget=True, backlog=16, accept_interval=0.0, think=0.0, clients=1,
                sequential=True, stagger=0.0, requests=1, wait=0.0, idle=0.0, reply=REPLY, delay=(10, 10),
                drop=[], client_ecn=0, server_ecn=2, cc="cubic", captures=CAPTURE_AT)
    base.update(kw)
    return base


# Router rules (FORWARD, in the router namespace): a first SYN-ACK, and the last segment
# of the reply and its probe (two identical rules: each drops the first packet it sees).
SYNACK_ONCE = ("-i", "r-eth1", "-o", "r-eth0", "-p", "tcp", "--tcp-flags", "SYN,ACK", "SYN,ACK",
               "-m", "statistic", "--mode", "nth", "--every", "1000000", "--packet", "0", "-j", "DROP")
TAIL_ONCE = ("-i", "r-eth1", "-o", "r-eth0", "-p", "tcp", "-m", "length", "--length",
             str(20 + 32 + TAIL_PAYLOAD), "-m", "statistic", "--mode", "nth", "--every", "1000000",
             "--packet", "0", "-j", "DROP")

# tb-dead-peer: from the reply's 300 000th byte on (conntrack's count of the reply
# direction), the router drops everything the server sends: none of its data or
# retransmissions reach the client again
DEAD_AFTER = 300_000
DEAD_FROM = ("-i", "r-eth1", "-o", "r-eth0", "-p", "tcp", "-m", "connbytes", "--connbytes",
             f"{DEAD_AFTER}:", "--connbytes-dir", "reply", "--connbytes-mode", "bytes", "-j", "DROP")
BULK_REPLY = 2_000_000
DEAD_TIMEOUTS = dict(user_timeout_ms=8000, recv_timeout=12.0)

SCENARIOS = {
    "tb-accept-slow": rr(
        story=f"listen backlog 1 and an accept loop that accepts one connection every 1.5 s; "
              f"{ACCEPT_CLIENTS} clients connect {ACCEPT_STAGGER * 1000:g} ms apart (0.55 s in "
              f"all, each handshake done before the next SYN), each sends one 100 B request and "
              f"reads a {REPLY} B reply; 10 ms delay line each side (40 ms round trip)",
        backlog=1, accept_interval=1.5, clients=ACCEPT_CLIENTS, sequential=False,
        stagger=ACCEPT_STAGGER, needs="syn-drops"),
    "tb-accept-fast": rr(
        story=f"the control of tb-accept-slow: the same backlog 1 and {ACCEPT_CLIENTS} clients "
              f"{ACCEPT_STAGGER * 1000:g} ms apart, an accept loop that accepts at once",
        backlog=1, clients=ACCEPT_CLIENTS, sequential=False, stagger=ACCEPT_STAGGER,
        needs="no-retries"),
    "tb-accept-slow-burst": rr(
        story=f"as tb-accept-slow with all {ACCEPT_CLIENTS} clients connecting at the same "
              "instant: every SYN finds the accept queue empty and the SYN queue (backlog 1) "
              "full, so the server answers with SYN cookies; connect() returns in one round "
              "trip, and the full accept queue then drops each client's ACK and request "
              "(ListenOverflows), which the client retransmits with backed-off timeouts",
        backlog=1, accept_interval=1.5, clients=ACCEPT_CLIENTS, sequential=False,
        needs="accept-overflow"),
    "tb-server-delay": rr(
        story=f"two sequential connections, three 100 B requests each; the server sleeps 1 s "
              f"after reading each request, then writes a {REPLY} B reply; 40 ms round trip",
        think=1.0, clients=2, requests=3, needs="server-wait"),
    "tb-server-prompt": rr(
        story="the control of tb-server-delay: the server answers at once",
        clients=2, requests=3, needs="no-retries"),
    "tb-client-wait": rr(
        story=f"one keep-alive connection, three requests; the client waits 1.5 s before each "
              f"(also the first, after connect); the server answers at once; 40 ms round trip",
        requests=3, wait=1.5, needs="client-wait"),
    "tb-plain": rr(
        story="the control of tb-client-wait, tb-keepalive-idle, tb-synack-loss and "
              f"tb-tail-loss: one connection, three requests, {TAIL_REPLY} B replies sent at "
              "once; 40 ms round trip",
        requests=3, reply=TAIL_REPLY, needs="no-retries"),
    "tb-keepalive-idle": rr(
        story=f"one connection, one request and a {REPLY} B reply, then the connection stays "
              "open and idle for 8 s before the client closes it; 40 ms round trip",
        idle=8.0, needs="idle"),
    "tb-rtt-300": rr(
        story=f"one connection, one 100 B request and a {REPLY} B reply over a 300 ms round trip "
              "(10 ms delay line on the client side, 140 ms on the server side)",
        delay=(10, 140), needs="no-retries"),
    "tb-rtt-20": rr(
        story="the control of tb-rtt-300: the same exchange over a 20 ms round trip (5 ms each side)",
        delay=(5, 5), needs="no-retries"),
    "tb-zero-window": rr(
        story=f"one connection, one request, a {ZW_REPLY // 1000} kB reply; the client set "
              "SO_RCVBUF 16384 before connect() and reads at most 4 kB every 100 ms (40 kB/s, "
              "a tenth of what the window lets the path carry): the buffer fills, zero windows; "
              "40 ms round trip",
        reply=ZW_REPLY, **SLOW_READ, needs="zero-window"),
    "tb-fast-reader": rr(
        story="the control of tb-zero-window: the same 16 kB SO_RCVBUF, read as fast as it comes",
        reply=ZW_REPLY, rcvbuf=SLOW_READ["rcvbuf"], needs="no-zero-window"),
    "tb-synack-loss": rr(
        story="as tb-plain; the router drops the server's first SYN-ACK (iptables statistic nth), "
              "so the server retransmits it (and the client its SYN)",
        requests=3, reply=TAIL_REPLY, drop=[SYNACK_ONCE], needs="synack-retry"),
    "tb-tail-loss": rr(
        story=f"as tb-plain; the router drops the last segment of the first reply "
              f"({TAIL_PAYLOAD} B, the only frame of its length) and the tail-loss probe that "
              "repeats it, so the reply ends with a retransmission timeout",
        requests=3, reply=TAIL_REPLY, drop=[TAIL_ONCE, TAIL_ONCE], needs="timeout"),
    "tb-dead-peer": rr(
        story=f"one connection, one request, a {BULK_REPLY // 1_000_000} MB reply; once "
              f"{DEAD_AFTER // 1000} kB of it have passed, the router drops everything the server "
              "sends (iptables connbytes): its retransmissions are never answered; the server "
              f"gives up after TCP_USER_TIMEOUT {DEAD_TIMEOUTS['user_timeout_ms']} ms, the client "
              f"after {DEAD_TIMEOUTS['recv_timeout']:g} s without data; 40 ms round trip",
        reply=BULK_REPLY, drop=[DEAD_FROM], **DEAD_TIMEOUTS, needs="dead-peer"),
    "tb-bulk": rr(
        story=f"the control of tb-dead-peer: the same {BULK_REPLY // 1_000_000} MB reply and "
              "timeouts, nothing dropped",
        reply=BULK_REPLY, **DEAD_TIMEOUTS, needs="no-retries"),
}


# ----------------------------------------------------------------------------------
# One run
# ----------------------------------------------------------------------------------
def netstat(lab, ns):
    """All TcpExt counters of a namespace (fresh per run, so absolute values)."""
    lines = [line.split() for line in lab.run("cat", "/proc/net/netstat", ns=ns, out=True).splitlines()
             if line.startswith("TcpExt:")]
    return {k: int(v) for k, v in zip(lines[0][1:], lines[1][1:])}


def drop_counters(lab):
    out = lab.run("iptables-legacy", "-L", "FORWARD", "-v", "-x", "-n", ns=lab.NS_ROUTER, out=True)
    return [int(line.split()[0]) for line in out.splitlines()[2:] if line.strip()]


def do_run(lab, name, cfg, tmp):
    a = lab.ADDR[4]
    n = cfg["clients"]
    res = {"scenario": name}
    try:
        lab.build(cfg, tmp)
        for ns in (lab.NS_CLIENT, lab.NS_SERVER):
            lab.sysctl(ns, "net.ipv4.tcp_ecn", 0)
        for rule in cfg["drop"]:
            lab.run("iptables-legacy", "-A", "FORWARD", *rule, ns=lab.NS_ROUTER)
        res["router_rules"] = [" ".join(("iptables-legacy", "-A", "FORWARD") + r) for r in cfg["drop"]]
        res["sysctl"] = {ns: {k: lab.sysctl(ns, k) for k in
                              ("net.ipv4.tcp_syncookies", "net.ipv4.tcp_syn_retries",
                               "net.ipv4.tcp_synack_retries", "net.ipv4.tcp_early_retrans")}
                         for ns in (lab.NS_CLIENT, lab.NS_SERVER)}
        lab.run(lab.PY, "-c", lab.WARM_UP, a["server"], ns=lab.NS_CLIENT)
        slog, clog = os.path.join(tmp, "server.jsonl"), os.path.join(tmp, "client.jsonl")
        gen = os.path.join(LAB, "rr.py")
        server = lab.start(lab.PY, gen, "server", "--bind", a["server"], "--port", str(lab.PORT),
                           "--backlog", str(cfg["backlog"]), "--accept-interval",
                           str(cfg["accept_interval"]), "--think", str(cfg["think"]),
                           "--reply", str(cfg["reply"]), "--count", str(n), "--log", slog,
                           "--user-timeout-ms", str(cfg.get("user_timeout_ms", 0)),
                           ns=lab.NS_SERVER)
        lab.wait_for(lambda: os.path.exists(slog) and os.path.getsize(slog) > 0, "server")
        pcaps = {s: os.path.join(tmp, f"lab-{name}{s}.pcap") for s in cfg["captures"]}
        dumps = {s: lab.start_tcpdump(p, pcaps[s]) for s, p in cfg["captures"].items()}
        ccmd = [lab.PY, gen, "client", "--connect", a["server"], "--port", str(lab.PORT),
                "--clients", str(n), "--requests", str(cfg["requests"]), "--reply", str(cfg["reply"]),
                "--wait", str(cfg["wait"]), "--idle", str(cfg["idle"]), "--log", clog]
        if cfg["sequential"]:
            ccmd.append("--sequential")
        if cfg["stagger"]:
            ccmd += ["--stagger", str(cfg["stagger"])]
        for key in ("rcvbuf", "read_chunk", "read_pause", "recv_timeout"):
            if key in cfg:
                ccmd += ["--" + key.replace("_", "-"), str(cfg[key])]
        t0 = time.monotonic()
        client = lab.start(*ccmd, ns=lab.NS_CLIENT)
        if client.wait(120) != 0:
            raise RuntimeError("client failed")
        server.wait(30)
        res["run_s"] = round(time.monotonic() - t0, 2)
        time.sleep(0.3 + 2 * sum(cfg["delay"]) / 1000)
        res["tcpdump"] = {s: lab.stop_tcpdump(p) for s, p in dumps.items()}
        res["nstat"] = {"client": netstat(lab, lab.NS_CLIENT), "server": netstat(lab, lab.NS_SERVER)}
        res["drop_counters"] = drop_counters(lab) if cfg["drop"] else []
    finally:
        lab.teardown()
    res["delay_lines"] = [lab.read_jsonl(os.path.join(tmp, f"delayline-{x}.json"))[0]
                          for x, *_ in lab.delay_lines(cfg)]
    res["client"] = sorted((r for r in lab.read_jsonl(clog) if r["event"] == "conn"),
                           key=lambda r: r["index"])
    res["server"] = sorted((r for r in lab.read_jsonl(slog) if r["event"] == "served"),
                           key=lambda r: r["accept_index"])
    res["pcaps"] = pcaps
    return res


# ----------------------------------------------------------------------------------
# What the captures hold, from tshark's standard fields
# ----------------------------------------------------------------------------------
def handshake_rows(pcap):
    """{client port: {"stream", "syn": [epochs], "synack": [epochs]}} from tshark."""
    out = subprocess.run(["tshark", "-n", "-r", pcap, "-T", "fields", "-E", "separator=/t",
                          "-Y", "tcp.flags.syn == 1", "-e", "frame.time_epoch", "-e", "tcp.stream",
                          "-e", "tcp.srcport", "-e", "tcp.dstport", "-e", "tcp.flags.ack"],
                         check=True, text=True, capture_output=True).stdout
    flows = {}
    for line in out.splitlines():
        when, stream, sport, dport, ack = line.split("\t")
        synack = ack in ("1", "True")
        port = int(dport if synack else sport)
        f = flows.setdefault(port, {"stream": int(stream), "syn": [], "synack": []})
        f["synack" if synack else "syn"].append(float(when))
    return flows


def tail_retransmissions(pcap, port):
    """Epochs of the server's frames carrying the reply's last TAIL_PAYLOAD bytes (the
    first reply's tail), from tshark: first transmission and each repeat that got there."""
    out = subprocess.run(["tshark", "-n", "-r", pcap, "-T", "fields", "-E", "separator=/t",
                          "-Y", f"tcp.dstport == {port} && tcp.len == {TAIL_PAYLOAD}",
                          "-e", "frame.time_epoch", "-e", "tcp.seq"],
                         check=True, text=True, capture_output=True).stdout
    rows = [line.split("\t") for line in out.splitlines()]
    first_seq = rows[0][1] if rows else None
    return [float(w) for w, s in rows if s == first_seq]


def retransmissions(pcap, port):
    """Epochs of the server's data frames that repeat bytes it had sent (their end at or
    below the highest end so far), from tshark at the server's capture."""
    out = subprocess.run(["tshark", "-n", "-r", pcap, "-T", "fields", "-E", "separator=/t",
                          "-Y", f"tcp.dstport == {port} && tcp.len > 0",
                          "-e", "frame.time_epoch", "-e", "tcp.seq", "-e", "tcp.len"],
                         check=True, text=True, capture_output=True).stdout
    times, high = [], 0
    for line in out.splitlines():
        when, seq, length = line.split("\t")
        end = int(seq) + int(length)
        if end <= high:
            times.append(float(when))
        high = max(high, end)
    return times


def zero_windows(pcap, port):
    """(count, seconds) of the client's zero windows at this capture, from tshark: each
    run of ACKs advertising window 0, from the first to the next ACK that opens it."""
    out = subprocess.run(["tshark", "-n", "-r", pcap, "-T", "fields", "-E", "separator=/t",
                          "-Y", f"tcp.srcport == {port} && tcp.flags.syn == 0",
                          "-e", "frame.time_epoch", "-e", "tcp.window_size"],
                         check=True, text=True, capture_output=True).stdout
    count, seconds, closed = 0, 0.0, None
    for line in out.splitlines():
        when, window = line.split("\t")
        if int(window) == 0 and closed is None:
            count, closed = count + 1, float(when)
        elif int(window) > 0 and closed is not None:
            seconds, closed = seconds + float(when) - closed, None
    return count, round(seconds, 6)


# ----------------------------------------------------------------------------------
# Ground truth: each flow's time budget from the generators' timings
# ----------------------------------------------------------------------------------
def budget(cfg, c, s, hs):
    """Where connection c's time went (seconds), from the client's log c, the server's s
    (the same client port), and the client capture's SYN times hs."""
    one_way = sum(cfg["delay"]) / 1000
    syns = hs["syn"]
    setup = {"connect_s": c["connected"] - c["connect_began"],
             "syn_times_s": [round(t - syns[0], 6) for t in syns],
             "syn_retransmissions": len(syns) - 1}
    exchanges = []
    ready = c["connected"]
    for k, (ce, se) in enumerate(zip(c["exchanges"], s["exchanges"])):
        arrived = ce["request_sent"] + one_way
        exchanges.append({
            "client_wait_s": ce["request_sent"] - ready,
            # request complete at the server (client's write + the configured one-way delay)
            # to the reply's first write: the server application's wait, a late accept included
            "server_wait_s": se["reply_write_began"] - arrived,
            "server_think_s": se["reply_write_began"] - se["request_read"],
            "response_s": ce["reply_last_byte"] - ce["request_sent"],
            "transfer_s": ce["reply_last_byte"] - ce["reply_first_byte"],
            "reply_bytes": ce["reply_bytes"]})
        ready = ce["reply_last_byte"]
    last = c["exchanges"][-1]["reply_last_byte"]
    # what the client retransmitted after its SYNs (its requests: the replies are the server's)
    requests_retransmitted = c["tcp_info"]["total_retrans"] - setup["syn_retransmissions"]
    # after a reply that never came whole the client was waiting for data, not idle
    cut_short = c["exchanges"][-1]["reply_bytes"] < cfg["reply"]
    end = c["close"] if cut_short else last
    out = {"duration_s": c["close"] - c["connect_began"],
           "client_request_retransmissions": requests_retransmitted,
           "active_s": end - c["connect_began"],
           "setup": setup,
           "accept_wait_s": s["accepted"] - c["connected"],
           "exchanges": exchanges,
           "idle_s": c["close"] - end}
    if cut_short:
        out["waiting_after_last_byte_s"] = c["close"] - last
    return {k: _round(v) for k, v in out.items()}


def _round(v):
    if isinstance(v, float):
        return round(v, 6)
    if isinstance(v, dict):
        return {k: _round(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_round(x) for x in v]
    return v


def cause(cfg, b, stall):
    """(expected cause, why) from the budget b and the measured stall (tail loss)."""
    active = b["active_s"]
    big = lambda cost: cost >= MIN_COST_S and cost >= MIN_SHARE * active
    syn_cost = b["setup"]["syn_times_s"][-1] if b["setup"]["syn_retransmissions"] else 0.0
    if cfg["needs"] == "dead-peer":
        return "dead-peer", ("the router dropped everything the server sent from the reply's "
                             f"{DEAD_AFTER}th byte on: the server's retransmissions were never "
                             "answered until its TCP_USER_TIMEOUT ended the connection, and the "
                             "client gave up after its receive timeout")
    if cfg["needs"] == "synack-retry":
        return "handshake-retry", (f"the server's first SYN-ACK was dropped by the router; connect() "
                                   f"took {b['setup']['connect_s']:.3f} s of the flow's "
                                   f"{active:.3f} active s: the server side retried (its SYN-ACK "
                                   "timer) and the client retried its SYN")
    if big(syn_cost):
        return "handshake-retry", (f"{b['setup']['syn_retransmissions']} SYN retransmissions (at "
                                   f"{', '.join(f'+{t:g}' for t in b['setup']['syn_times_s'][1:])} s) "
                                   f"cost {syn_cost:.3f} s of {active:.3f} active s: the listen queue "
                                   "was full (server nstat TcpExtListenOverflows)")
    server = sum(max(0.0, x["server_wait_s"]) for x in b["exchanges"])
    if b["client_request_retransmissions"] and big(server):
        return "retransmission-timeout", (
            f"the client's SYN was answered (a SYN cookie) but the full accept queue dropped its "
            f"ACK and request, which it retransmitted {b['client_request_retransmissions']} times "
            f"with backed-off timeouts: the request reached the server application "
            f"{b['accept_wait_s']:.3f} s after connect() returned, of {active:.3f} active s "
            "(server nstat TcpExtListenOverflows); a slow accept behind it, but on the wire "
            "silences ended by timeout retransmissions")
    client = sum(x["client_wait_s"] for x in b["exchanges"])
    if big(server):
        return "server-delay", (f"the server's application waited {server:.3f} s in all between "
                                "each complete request and its reply's first byte (accept wait "
                                f"{b['accept_wait_s']:.3f} s), of {active:.3f} active s")
    if big(client):
        return "client-delay", (f"the client waited {client:.3f} s in all before its requests, of "
                                f"{active:.3f} active s, while the server had nothing pending")
    if stall and big(stall):
        return "retransmission-timeout", (f"the first reply's last segment and its probe were "
                                          f"dropped; the retransmission timeout ended a {stall:.3f} s "
                                          f"silence of {active:.3f} active s")
    if cfg["needs"] == "zero-window":
        return "zero-window", ("the receiving application read at most 4 kB every 100 ms from a "
                               "16 kB SO_RCVBUF: the client advertised zero windows (client nstat "
                               "TcpExtTCPToZeroWindowAdv), the receiver stopped reading")
    if cfg["needs"] == "no-zero-window":
        return "receive-window", ("a 16 kB receive buffer read as fast as data came: the window "
                                  "stayed small (never zero) and bounds the flight on a 40 ms path")
    rtt = 2 * sum(cfg["delay"]) / 1000
    if rtt >= 0.1:
        return "round-trip-bound", (f"nothing waited: the exchange took {active:.3f} s, "
                                    f"{active / rtt:.1f} round trips of {rtt * 1000:g} ms (handshake, "
                                    "request/reply); the same exchange at 20 ms takes ~0.05 s")
    return "none", (f"nothing cost {MIN_SHARE:.0%} of the {active:.3f} active s or {MIN_COST_S} s"
                    + (f"; the {b['idle_s']:.3f} s idle after the reply is not lost"
                       if b["idle_s"] > 1 else ""))


# ----------------------------------------------------------------------------------
# Self-check: the kernel did what the scenario needs
# ----------------------------------------------------------------------------------
def problems(cfg, res, flows):
    bad = []
    for dl in res["delay_lines"]:
        if dl["kernel_drops"] or dl["send_errors"] or dl["frames_in"] != dl["frames_out"]:
            bad.append(f"delay line lost frames: {dl}")
    for suffix, st in res["tcpdump"].items():
        if st.get("dropped by kernel", 0):
            bad.append(f"tcpdump{suffix} dropped packets: {st}")
    if len(res["client"]) != cfg["clients"] or len(res["server"]) != cfg["clients"]:
        bad.append(f"{len(res['client'])} client and {len(res['server'])} server records, "
                   f"{cfg['clients']} connections configured")
    need = cfg["needs"]
    for f in flows:
        b = f["budget"]
        whole = [x["reply_bytes"] == cfg["reply"] for x in b["exchanges"]]
        if need == "dead-peer":
            if all(whole) or not DEAD_AFTER * 0.5 < b["exchanges"][0]["reply_bytes"] < DEAD_AFTER * 1.5 \
                    or f["dead"]["server_gave_up"] is None or len(f["dead"]["retransmission_times_s"]) < 3:
                bad.append(f"port {f['port']}: the peer did not die as planned: {f['dead']}, "
                           f"read {b['exchanges'][0]['reply_bytes']}")
        elif not all(whole) or len(b["exchanges"]) != cfg["requests"]:
            bad.append(f"port {f['port']}: not every reply arrived whole")
    ext_s, ext_c = res["nstat"]["server"], res["nstat"]["client"]
    retries = [f["budget"]["setup"]["syn_retransmissions"] for f in flows]
    if need == "syn-drops":
        if not any(retries) or not ext_s.get("ListenOverflows"):
            bad.append(f"no SYN dropped: SYN retries {retries}, ListenOverflows "
                       f"{ext_s.get('ListenOverflows')}")
    elif need == "accept-overflow":
        if not ext_s.get("ListenOverflows") or not any(
                f["budget"]["client_request_retransmissions"] for f in flows):
            bad.append(f"no request dropped by a full accept queue: ListenOverflows "
                       f"{ext_s.get('ListenOverflows')}")
    if need not in ("synack-retry", "syn-drops") and any(retries):
        bad.append(f"SYN retries {retries} where the scenario has none")
    if need not in ("syn-drops", "accept-overflow") and (ext_s.get("ListenOverflows") or ext_s.get("ListenDrops")):
        bad.append(f"the listen queue overflowed: {ext_s.get('ListenOverflows')}")
    waits = [x for f in flows for x in f["budget"]["exchanges"]]
    if need == "server-wait" and any(x["server_wait_s"] < cfg["think"] for x in waits):
        bad.append("a server wait shorter than the configured think time")
    if need == "client-wait" and any(x["client_wait_s"] < cfg["wait"] for x in waits):
        bad.append("a client wait shorter than configured")
    if need == "idle" and any(f["budget"]["idle_s"] < cfg["idle"] for f in flows):
        bad.append("idle shorter than configured")
    if need == "zero-window" and not ext_c.get("TCPToZeroWindowAdv"):
        bad.append("the client never advertised a zero window")
    if need == "no-zero-window" and ext_c.get("TCPToZeroWindowAdv"):
        bad.append(f"the fast reader advertised zero windows ({ext_c['TCPToZeroWindowAdv']})")
    if need == "synack-retry":
        synacks = [len(f["server_synacks"]) for f in flows]
        # The server's SYN-ACK timer and the client's SYN timer both fire about 1 s in: a
        # SYN retry that reaches the server before the resent SYN-ACK reached the client is
        # answered with one more (seen on kernel 6.18: SYN-ACKs at +0, +1.009, +1.030 s).
        crossed = synacks == [3] and any(retries)
        if res["drop_counters"] != [1] or (synacks != [2] and not crossed) or \
                flows[0]["budget"]["setup"]["connect_s"] < 0.9:
            bad.append(f"SYN-ACK loss not as planned: drops {res['drop_counters']}, SYN-ACKs at "
                       f"the server {synacks}")
    if need == "timeout":
        if res["drop_counters"] != [1, 1] or not ext_s.get("TCPTimeouts"):
            bad.append(f"tail loss not as planned: drops {res['drop_counters']}, server "
                       f"TCPTimeouts {ext_s.get('TCPTimeouts')}")
    elif need not in ("syn-drops", "accept-overflow", "synack-retry", "dead-peer") and ext_s.get("TCPTimeouts"):
        bad.append(f"server timeouts ({ext_s['TCPTimeouts']}) where the scenario has none")
    return bad


# ----------------------------------------------------------------------------------
def flow_truths(cfg, res):
    """Per connection: ports, the budget, SYN-ACK times at the server, tail stall, cause."""
    hs_client = handshake_rows(res["pcaps"]["-client"])
    hs_server = handshake_rows(res["pcaps"]["-server"])
    servers = {s["peer_port"]: s for s in res["server"]}
    flows = []
    for c in res["client"]:
        port = c["local_port"]
        b = budget(cfg, c, servers[port], hs_client[port])
        synacks = hs_server[port]["synack"]
        f = {"index": c["index"], "port": port, "budget": b,
             "server_synacks": [round(t - synacks[0], 6) for t in synacks],
             "client_tcp_info": c["tcp_info"], "server_tcp_info": servers[port]["tcp_info"]}
        if cfg["needs"] == "timeout":
            tail = tail_retransmissions(res["pcaps"]["-server"], port)
            f["tail_sends_s"] = [round(t - tail[0], 6) for t in tail]
            f["stall_s"] = round(tail[-1] - tail[0], 6) if len(tail) > 1 else 0.0
        if cfg["needs"] == "dead-peer":
            se = servers[port]["exchanges"][-1]
            resent = retransmissions(res["pcaps"]["-server"], port)
            last = c["exchanges"][-1]["reply_last_byte"]
            # from the client's last byte read: the server's retransmissions (at its own
            # tap) and its giving up
            f["dead"] = {"last_byte_read_epoch": round(last, 6),
                         "server_gave_up": se.get("write_error"),
                         "seconds": round(se.get("write_error_at", 0) - last, 6),
                         "retransmission_times_s": [round(t - last, 6) for t in resent],
                         "client_gave_up_after_s": cfg["recv_timeout"]}
        if cfg["needs"] in ("zero-window", "no-zero-window"):
            n, secs = zero_windows(res["pcaps"]["-client"], port)
            f["zero_window"] = {"count": n, "seconds": secs}
        f["cause"], f["why"] = cause(cfg, b, f.get("stall_s"))
        flows.append(f)
    return flows


def expected(name, cfg, res, flows, suffix):
    """The expected file of one capture: streams found by client port in that pcap."""
    point = cfg["captures"][suffix]
    streams = handshake_rows(res["pcaps"][suffix])
    rtt = 2 * sum(cfg["delay"]) / 1000
    out = []
    for f in flows:
        e = {"tcpdiag.flow.client": "10.77.1.2", "tcpdiag.flow.server": "10.77.2.2",
             "tcpdiag.flow.client_port": f["port"], "tcpdiag.flow.server_port": 5001,
             # on the wire: each request, and each retransmission of it (TCP_INFO)
             "tcpdiag.flow.c2s.bytes": 100 * (cfg["requests"] + f["budget"]["client_request_retransmissions"]),
             "tcpdiag.flow.s2c.bytes": {"min": sum(x["reply_bytes"] for x in f["budget"]["exchanges"])},
             "tcpdiag.diag.cause": f["cause"]}
        budget = dict(f["budget"], server_synack_times_s=f["server_synacks"],
                      path_rtt_s=rtt)
        if "dead" in f:
            budget["stall"] = {"kind": "dead-peer", **f["dead"]}
        if "zero_window" in f:
            budget["stall"] = {"kind": "zero-window", **f["zero_window"]}
        if "stall_s" in f:
            budget["stall"] = {"kind": "retransmission-timeout", "seconds": f["stall_s"],
                               "tail_sends_s": f["tail_sends_s"]}
        out.append({"select": {"tcp.stream": streams[f["port"]]["stream"]},
                    "why": f"connection {f['index']} (client port {f['port']}): {f['why']}",
                    "expect": e, "time_budget": budget})
    return labrun.expected_file(name, cfg, suffix, res["nstat"], NSTAT_KEYS, out)


NSTAT_KEYS = ("ListenOverflows", "ListenDrops", "SyncookiesSent", "SyncookiesRecv",
              "TCPTimeouts", "TCPLossProbes", "TCPLossProbeRecovery", "TCPToZeroWindowAdv",
              "TCPFromZeroWindowAdv", "TCPWantZeroWindowAdv", "TCPSynRetrans",
              "TCPReqQFullDrop", "TCPReqQFullDoCookies", "TCPRcvQDrop")


def scenario(lab, name):
    return labrun.run_and_keep(
        lab, name, NEXT, do_run, flow_truths, problems, expected,
        lambda res, flows: dict({k: v for k, v in res.items() if k != "pcaps"}, flows=flows),
        lambda f: f"{f['port']}:{f['cause']}")
