"""The expected tcpdiag.diag.cause of a lab flow, from the scenario's configuration.

The causes and their precedence are docs/diagnosis.md's: the first that holds is the
flow's cause. Each is decided from what the lab configured (ECN sysctls, the CE marker,
the congestion control, dropping bottlenecks, handshake options, buffers, pacing, the
writer's pauses, where tcpdump started), never from tcpdiag's output. The run's logs
(the kernel's TCP_INFO) confirm the configuration's effect; captures/lab/README.md lists
what was checked.

The cause does not depend on the capture point: every analysis it rests on works at the
sender and at the receiver alike (docs/flight.md, docs/congestion.md).
"""

# CUBIC and Reno cut cwnd on every ECN echo as on a loss; BBR v1 sets cwnd from its
# bandwidth x min_rtt model and ignores ECE (the cc-bbr-* runs: cwnd after/before 1.0).
LOSS_LIKE_CC = ("cubic", "reno")
# docs/congestion.md: a collapse is at most COLLAPSE_MSS in flight for COLLAPSE_ROUNDS
# round trips in a row (tcpdiag's collapse_mss / collapse_min_rounds defaults).
COLLAPSE_MSS, COLLAPSE_ROUNDS = 4, 10
MSS = 1460                  # MTU 1500 everywhere (IPv6 1440: the rounds only grow)
WINDOW_CEILING = 65535      # the largest window without scaling
# Slow start reaches the 64 KiB ceiling within ~3 round trips; a transfer of at least
# this many ceiling windows then runs at the ceiling nearly all the time (the lab's
# at_ceiling needs >= 0.8 x the ceiling throughput).
CEILING_WINDOWS = 10
WHY_MARK = "diagnosis: "    # starts the why part add_diag appends (and replaces)
LONG_RTT_MS = 100           # the engine's long_rtt_ms: a round trip this long bounds a short exchange
SLOW_START_ROUNDS = 4       # ...whose data takes at most this many round trips (round-trip-bound)
INITIAL_WINDOW = 10         # Linux's initial window, in segments


def per_conn(value, index):
    """A configuration value that may be given per connection (a list)."""
    return value[index] if isinstance(value, list) else value


def marker(cfg):
    """What marks CE on the server->client ECT packets, or None."""
    if cfg.get("mark"):
        return f"the router marks CE at random (p={cfg['mark']:g}) on the server's ECT packets"
    sojourn = cfg.get("shaper", {}).get("mark_sojourn_ms")
    if sojourn:
        return f"the server-side FIFO marks CE on every ECT frame queued longer than {sojourn} ms"
    return None


def holds_floor(cfg, index):
    """Whether marks keep a loss-like sender at its floor for a collapse's length: the
    scenario says so (`collapse`, per connection where a list: the lab's own check from
    TCP_INFO), or a random marker
    with p >= 1/COLLAPSE_MSS still marks about one packet per round trip of a
    COLLAPSE_MSS-segment window, so each round trip's cut (at most one per window) undoes
    its growth, and the transfer lasts COLLAPSE_ROUNDS round trips even at that window."""
    return per_conn(cfg.get("collapse"), index) or (cfg.get("mark", 0) * COLLAPSE_MSS >= 1 and
                                   cfg["bytes"] >= COLLAPSE_ROUNDS * COLLAPSE_MSS * MSS)


def expected_cause(cfg, index):
    """(cause, why) of connection `index` (0-based, in connect() order) of a scenario."""
    if "diag_cause" in cfg:
        return per_conn(cfg["diag_cause"], index), "set by the scenario (diag_cause)"
    ecn = per_conn(cfg["client_ecn"], index)
    ecn_fact = f"client tcp_ecn={ecn}, server tcp_ecn={cfg['server_ecn']}"
    negotiated = ecn == 1 and cfg["server_ecn"] != 0 and not cfg.get("blackhole")
    marks = marker(cfg) if negotiated and not cfg.get("bleach") else None
    loss_like = per_conn(cfg["cc"], index) in LOSS_LIKE_CC
    drops = cfg.get("bottleneck_drops") or cfg.get("shaper", {}).get("drops")
    opts = per_conn(cfg.get("client_opts", 1), index) and cfg.get("server_opts", 1)
    cc = per_conn(cfg["cc"], index).upper()
    size = f"{cfg['bytes']} B {cc} download"

    if cfg.get("midflow"):
        return "unknown", ("tcpdump started after connect() returned, so the capture has no "
                           "handshake: no window scale and no round trip, and the diagnosis "
                           "abstains" + (f" (although the sender was paced at {cfg['pace']} B/s)"
                                         if cfg.get("pace") else ""))
    if cfg.get("blackhole") and ecn == 1:
        return "ecn-blackhole", (f"{ecn_fact}: the router drops SYNs carrying ECE+CWR, so the "
                                 "client (tcp_ecn_fallback=1) retries without them after a 1 s "
                                 "retransmission timeout")
    if marks and loss_like and holds_floor(cfg, index):
        held = ("the lab's TCP_INFO check proved cwnd at its floor under continuing marks"
                if per_conn(cfg.get("collapse"), index) else
                f"at p x {COLLAPSE_MSS} >= 1 even a {COLLAPSE_MSS}-segment window draws about "
                "one mark per round trip, whose cut undoes that round trip's growth, and "
                f"{cfg['bytes']} B is {cfg['bytes'] // (COLLAPSE_MSS * MSS)} such windows "
                f"(>= {COLLAPSE_ROUNDS} round trips)")
        return "window-collapse", (f"{ecn_fact}: ECN negotiated and {marks}; the {cc} sender of "
                                   f"this {cfg['bytes']} B download cuts its window on each "
                                   f"echo, and {held}")
    if not opts and cfg["bytes"] >= CEILING_WINDOWS * WINDOW_CEILING:
        rtt = 2 * sum(cfg["delay"])
        return "missing-options", (
            "tcp_window_scaling = tcp_sack = tcp_timestamps = "
            f"{per_conn(cfg.get('client_opts', 1), index)} at the client, "
            f"{cfg.get('server_opts', 1)} at the server: no window scaling, so the client's "
            f"window stays <= {WINDOW_CEILING} B, a ceiling of {WINDOW_CEILING} B per {rtt} ms "
            "round trip; "
            f"the {size} is {cfg['bytes'] // WINDOW_CEILING} such windows, so it runs at "
            "the ceiling")
    if cfg.get("rcvbuf"):
        return "receive-window", (f"the client sets SO_RCVBUF={cfg['rcvbuf']} before connect(), "
                                  "so the window it offers stays small and the sender fills it")
    if cfg.get("sndbuf") or cfg.get("pace"):
        limits = [f"SO_SNDBUF={cfg['sndbuf']}" if cfg.get("sndbuf") else "",
                  f"SO_MAX_PACING_RATE={cfg['pace']} B/s" if cfg.get("pace") else ""]
        return "sender-limited", (f"the server sets {' and '.join(filter(None, limits))}: its "
                                  "flight sits flat far below the client's window")
    if marks and loss_like:
        return "ecn-loss-reaction", (
            f"{ecn_fact}: ECN negotiated and {marks}; the {cc} sender cuts its window on each "
            "echo as on a loss, and the marks are not frequent enough to hold it at "
            f"{COLLAPSE_MSS} segments" + (
                ", and nothing drops: no loss recovery" if not drops else
                "; the queue also drops, but marks come first and the lab checked that the "
                "kernel's ECN responses are at least as many as its loss recoveries (TCP_INFO)"))
    if drops and loss_like:
        return "path-loss", (f"a {size} through a bottleneck queue that drops: "
                             f"{cc} cuts its window by a constant factor in each loss recovery")
    if drops and per_conn(cfg.get("bbr_cuts", 0), index) >= 2:
        return ["none", "path-loss"], (
            f"a {size} through a queue that drops, {ecn_fact}: BBR v1 does not cut by a constant "
            "factor, but in loss recovery it sets cwnd to the packets still in flight, and the "
            f"lab's TCP_INFO shows {per_conn(cfg['bbr_cuts'], index)} episodes where that shrank "
            "the flight: path-loss (two recoveries that cut) may hold or not")
    if cfg.get("burst"):
        b, pause = cfg["burst"]
        return "app-limited", (f"the server writes {b} B and sleeps {pause:g} s, over and over: "
                               "it has nothing to send most of the time")

    facts = [f"a {size}, {ecn_fact}"]
    if not negotiated and marker(cfg):
        facts.append("ECN not negotiated, so the marker (ECT packets only) leaves it alone")
    if negotiated and cfg.get("bleach"):
        facts.append("ECN negotiated, but the router rewrites every server->client packet to "
                     "Not-ECT, so no mark reaches the sender")
    if marks and not loss_like:
        facts.append(f"{marks}, but {cc} does not cut its cwnd on ECE (BBR v1 sets it from its "
                     "bandwidth x min_rtt model)")
    if drops and not loss_like:
        facts.append(f"the queue drops, but {cc} does not cut by a constant factor on loss "
                     "(its cwnd follows its model)")
    if cfg.get("offload", {}).get("tso") is False:
        facts.append("TSO/GSO off on the server's veth caps every flow of that sender alike: a "
                     "host setting, not a per-flow cap (no flow of it used offload)")
    facts.append("nothing configured drops, marks what it reacts to, or limits window, "
                 "buffers, pacing or the application")
    rtt_ms = 2 * sum(cfg["delay"])
    slow_start_bytes = INITIAL_WINDOW * (2 ** SLOW_START_ROUNDS - 1) * MSS
    if rtt_ms >= LONG_RTT_MS and cfg.get("bytes") and cfg["bytes"] <= slow_start_bytes:
        # issue 29 (round-trip-bound), as the committed syn-retry-crossing files say since 4a913bd
        facts.insert(1, f"over the configured {rtt_ms / 1000:g} s round trip (at least long_rtt_ms, "
                        f"{LONG_RTT_MS} ms), slow start from {INITIAL_WINDOW} segments sends it in "
                        f"at most {SLOW_START_ROUNDS} data round trips: the handshake and those "
                        "round trips are nearly all of its active time, a short exchange on a long path")
        return "round-trip-bound", "; ".join(facts)
    return "none", "; ".join(facts)


def add_diag(flow, cfg, index):
    """Sets the diagnosis expectations of an expected-file flow entry (connection `index`)
    and appends their why, replacing one appended before: rewriting is idempotent."""
    cause, why = expected_cause(cfg, index)
    flow["expect"]["tcpdiag.diag.cause"] = cause
    # The host-stall scenarios (a `stall` drop, or the control's `long_pause`) write their
    # own host-stall expectations (lab.py stall_expect); every other scenario silenced no
    # host, so the field must be absent (null).
    if "stall" not in cfg and "long_pause" not in cfg:
        flow["expect"]["tcpdiag.host.stall"] = None
        why += "; no host was silenced, so no host stall"
    # Never a wrong algorithm name (docs/congestion.md): the configured congestion
    # control or unknown, wherever the scenario does not judge whether the kernel's
    # record gave enough answers to tell (captures/lab/ccid.py does for cc-id-*).
    if "cc_id" not in cfg:
        algorithm = per_conn(cfg["cc"], index) + "-like"
        flow["expect"]["tcpdiag.cc.algorithm"] = [algorithm, "unknown"]
        why += f"; the server's congestion control is {algorithm[:-5]}: cc.algorithm {algorithm} or unknown"
    label = cause if isinstance(cause, str) else " or ".join(cause)     # a list: any of them
    flow["why"] = flow["why"].split("; " + WHY_MARK)[0] + "; " + WHY_MARK + label + ": " + why
    return flow
