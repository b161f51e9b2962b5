#!/usr/bin/python3
"""Cross-check the crafted captures against their expected files, using only
Wireshark's own dissection (tshark -T fields), not tcpdiag.

Usage:  /usr/bin/python3 captures/crafted/check-crafted.py [CAPTURES_DIR]

For every captures/crafted-*.expected.json it reads the pcap with plain tshark
(no tcpdiag needed), rebuilds each selected flow from Wireshark's tcp.stream /
tcp.port, tcp.flags, tcp.len, ip.dsfield.ecn / ipv6.tclass.ecn and MSS option
fields, applies the outcome table of docs/fields.md and the tcpdiag brief, and
compares with every expected value it can compute.  It proves that the pcaps
say what the expected files claim (as Wireshark decodes them); it does not test
tcpdiag.  For robustness_only files it checks that tshark exits 0 and prints no
dissector bug.  Exit status 0 when everything agrees.
"""

import glob
import itertools
import json
import os
import subprocess
import sys

# Shared with make-crafted.py: names, RFC rows and docs/fields.md rules only.
# Every fact they are applied to comes from tshark's fields below.
from rfc_tables import (ACCECN_FEEDBACK, ACCECN_SYNACK_OUTCOME, CLASSIC_SYNACK_OUTCOME,
                        CODEPOINTS, ECN_NAME, NEGOTIATED, data_class, data_sender)

FIELDS = ["frame.number", "tcp.stream", "tcp.port", "ip.src", "ip.dst",
          "ipv6.src", "ipv6.dst", "tcp.srcport", "tcp.dstport", "tcp.flags",
          "tcp.seq_raw", "tcp.len", "ip.dsfield.ecn", "ipv6.tclass.ecn",
          "tcp.options.mss_val", "icmp.type", "icmpv6.type",
          "frame.len", "ip.len", "ip.hdr_len", "ipv6.plen", "tcp.hdr_len"]


def payload(r):
    """(payload bytes, from the IP header?): tcp.len, or what the IP length gives when
    the frame is shorter than it (a record whose original length was rewritten)."""
    n = int(r["tcp.len"] or 0)
    if not r["tcp.hdr_len"]:
        return n, False
    if r["ip.len"]:
        whole, before = int(r["ip.len"]), int(r["ip.hdr_len"])
    elif r["ipv6.plen"] and int(r["ipv6.plen"]):
        whole, before = int(r["ipv6.plen"]) + 40, 40
    else:
        return n, False
    ip_n = whole - before - int(r["tcp.hdr_len"])
    return (ip_n, True) if whole and int(r["frame.len"]) - 14 < whole and ip_n > n else (n, False)


def full_mss(sizes, announced=1460):
    """docs/offload.md "The MSS": the largest full segment, alone or as k = ceil(n / MSS)
    equal segments of a super-packet within the MSS less the 12-byte timestamp option
    (every crafted data segment above the MSS carries it); None when none."""
    full = [n for n in sizes if 0 < n <= announced]
    full += [n // k for n in sizes if n > announced for k in (-(-n // announced),)
             if n % k == 0 and n // k <= announced - 12]
    return max(full) if full else None


def tshark_rows(pcap, fields, occurrence="f", prefs=()):
    """Runs plain tshark; returns (exit code, stdout, stderr, one dict per frame)."""
    cmd = ["tshark", "-n", "-r", pcap, "-T", "fields", "-E", "occurrence=" + occurrence,
           "-E", "aggregator=,", "-E", "separator=\t"]
    for pref in prefs:
        cmd += ["-o", pref]
    for f in fields:
        cmd += ["-e", f]
    p = subprocess.run(cmd, capture_output=True, text=True)
    rows = []
    for line in p.stdout.splitlines():
        v = line.split("\t")
        rows.append(dict(zip(fields, v + [""] * (len(fields) - len(v)))))
    return p.returncode, p.stdout, p.stderr, rows


OPT_FIELDS = ["tcp.stream", "tcp.srcport", "tcp.dstport", "tcp.flags", "tcp.option_kind",
              "tcp.options.wscale.shift", "tcp.len", "ipv6.src", "tcp.options", "tcp.hdr_len"]
OPT_KIND_NAMES = {2: "mss", 3: "wscale", 4: "sack_perm", 8: "ts", 34: "tfo", 30: "mptcp",
                  172: "accecn", 174: "accecn"}
# docs/fields.md "tcpdiag.opts": option names in their fixed order, by TCP option kind
OPT_NAMES = (("mss", {"2"}), ("wscale", {"3"}), ("sack_perm", {"4"}), ("ts", {"8"}),
             ("tfo", {"34"}), ("mptcp", {"30"}), ("accecn", {"172", "174"}))


def opt_list(r):
    kinds = set(r["tcp.option_kind"].split(",")) if r["tcp.option_kind"] else set()
    names = [n for n, k in OPT_NAMES if kinds & k]
    return names, ",".join(names) or "none"


def unreadable(r):
    """The option names a SYN's bytes leave open, from the raw option bytes (RFC 9293
    §3.2 format): after a cut, or a length below 2, anything not read; after an option
    that overruns the header, that option only. None when every byte was read."""
    declared = int(r["tcp.hdr_len"] or 20) - 20
    shown = r["tcp.options"] if r["tcp.options"] != "<MISSING>" else ""      # cut by the snaplen
    raw = bytes.fromhex(shown)
    read, at = set(), 0
    all_names = [n for n, _ in OPT_NAMES]
    if len(raw) < declared:
        return [n for n in all_names if n not in opt_list(r)[0]]
    while at < len(raw) and raw[at] != 0:
        if raw[at] == 1:
            at += 1
            continue
        if at + 1 >= len(raw) or at + raw[at + 1] > len(raw):
            return [OPT_KIND_NAMES[raw[at]]] if raw[at] in OPT_KIND_NAMES else None
        if raw[at + 1] < 2:
            return [n for n in all_names if n not in read]
        read.add(OPT_KIND_NAMES.get(raw[at]))
        at += raw[at + 1]
    return None


def opts_analyse(rows, cport):
    """tcpdiag.opts.* facts from Wireshark's option kinds (SYN, SYN-ACK, later TS)."""
    out = {}
    syn = [r for r in rows if r["tcp.flags"] and int(r["tcp.flags"], 16) & 0x12 == 0x02]
    sa = [r for r in rows if r["tcp.flags"] and int(r["tcp.flags"], 16) & 0x12 == 0x12]
    if not syn or not sa:
        return out
    (cn, out["tcpdiag.opts.client"]), (sn, out["tcpdiag.opts.server"]) = opt_list(syn[-1]), opt_list(sa[-1])
    ws = lambda r: int(r["tcp.options.wscale.shift"]) if r["tcp.options.wscale.shift"] else None
    out["tcpdiag.opts.client_wscale"], out["tcpdiag.opts.server_wscale"] = ws(syn[-1]), ws(sa[-1])
    # RFC 7323 §3.2: timestamps after the handshake prove both SYNs carried them
    later_ts = any("ts" in opt_list(r)[0] for r in rows if int(r["tcp.flags"] or "0", 16) & 0x02 == 0)
    open_c, open_s = unreadable(syn[-1]) or [], unreadable(sa[-1]) or []
    for role, names, left in (("client", cn, open_c), ("server", sn, open_s)):
        out["tcpdiag.opts.%s_unreadable" % role] = ",".join(left) or None
        if left and not names:
            out["tcpdiag.opts." + role] = None
        if later_ts:
            names.append("ts")
            if "ts" in left:
                left.remove("ts")
    used = {}
    for k, a in (("wscale", "wscale"), ("sack", "sack_perm"), ("ts", "ts")):
        known_absent = any(a not in n and a not in left for n, left in ((cn, open_c), (sn, open_s)))
        used[k] = "no" if known_absent else "yes" if a in cn and a in sn else "unknown"
        out["tcpdiag.opts.%s_used" % k] = used[k]
    settled = "unknown" not in used.values()
    out["tcpdiag.opts.missing"] = (",".join(k for k in used if used[k] == "no") or "none") if settled else None
    audited = (("mss", "mss"), ("wscale", "wscale"), ("sack", "sack_perm"), ("ts", "ts"))
    lo = lambda n, left: (None if any(a in left for _, a in audited)
                          else ",".join(k for k, a in audited if a not in n) or "none")
    out["tcpdiag.opts.left_out_by_client"] = lo(cn, open_c)
    out["tcpdiag.opts.left_out_by_server"] = lo(sn, open_s)
    both = {k: used[k] == "yes" for k in used}
    out["tcpdiag.opts.window_ceiling"] = 65535 if used["wscale"] == "no" else None
    v6 = bool(syn[-1]["ipv6.src"])
    sent_mss = all("mss" in n or "mss" in left for n, left in ((cn, open_c), (sn, open_s)))
    out["tcpdiag.opts.default_mss"] = None if sent_mss else (1220 if v6 else 536)
    stripped = []
    if both["ts"]:
        for d, mine in (("c2s", True), ("s2c", False)):
            seq = [("ts" in opt_list(r)[0]) for r in rows
                   if int(r["tcp.flags"] or "0", 16) & 0x02 == 0 and (r["tcp.srcport"] == cport) == mine]
            if any(not x for x in seq):
                stripped.append(d)
    out["tcpdiag.opts.ts_stripped"] = {0: None, 1: (stripped or [None])[0], 2: "both"}[len(stripped)]
    return out


FLIGHT_FIELDS = ["frame.number", "tcp.stream", "tcp.srcport", "tcp.flags", "tcp.seq",
                 "tcp.nxtseq", "tcp.ack", "tcp.len", "tcp.window_size", "frame.time_epoch",
                 "tcp.analysis.retransmission"]
PLATEAU_ROUNDS = 8          # the brief: at least 8 flat rounds


def usec(r):
    """frame.time_epoch in integer microseconds (a float would blur 1 us margins)."""
    sec, frac = r["frame.time_epoch"].split(".")
    return int(sec) * 1000000 + int(frac[:6].ljust(6, "0"))


def flight_rounds(rows, cport):
    """The server's rounds, its flight as it knew it, from Wireshark's seq/nxtseq/ack.

    Flight at data segment X = X.nxtseq - the highest client ACK the server had
    when it sent X: an earlier frame, and, when the capture is at the client, one
    SYN -> SYN-ACK time earlier still.  A round starts at the first new data after
    the previous one ended and ends once an ACK covering that segment counts.
    Returns (seen_from, rounds, rwnd windows); a round is a dict."""
    flags = lambda r: int(r["tcp.flags"] or "0", 16)
    syn = next(r for r in rows if flags(r) & 0x12 == 0x02)
    sa = next(r for r in rows if flags(r) & 0x12 == 0x12)
    ack = next(r for r in rows if r["tcp.srcport"] == cport and flags(r) == 0x10)
    at_sender = usec(sa) - usec(syn) < usec(ack) - usec(sa)
    lag = 0 if at_sender else usec(sa) - usec(syn)
    acks = [r for r in rows if r["tcp.srcport"] == cport and flags(r) & 0x10]
    k = hi = top = 0
    rounds, cur, prev_t = [], None, usec(ack)
    for r in rows:
        t, gap, prev_t = usec(r), usec(r) - prev_t, usec(r)
        if r["tcp.srcport"] == cport or int(r["tcp.len"] or 0) == 0:
            continue
        while k < len(acks) and int(acks[k]["frame.number"]) < int(r["frame.number"]) \
                and usec(acks[k]) + lag <= t:
            hi = max(hi, int(acks[k]["tcp.ack"]))
            k += 1
        if cur and hi >= cur["first_end"]:
            rounds.append(cur)
            cur = None
        retx = r["tcp.analysis.retransmission"] != ""
        if cur is None and not retx and int(r["tcp.seq"]) >= top:
            # idle: nothing outstanding, and the flow was silent for over a round trip
            idle = bool(rounds) and hi >= top and gap > usec(ack) - usec(syn)
            cur = {"first_end": int(r["tcp.nxtseq"]), "flight": 0, "retx": False, "idle": idle,
                   "frame": int(r["frame.number"]), "t": t}
        cur["flight"] = max(cur["flight"], int(r["tcp.nxtseq"]) - hi)
        cur["retx"] |= retx
        cur["last_frame"] = int(r["frame.number"])
        top = max(top, int(r["tcp.nxtseq"]))
    rounds.append(cur)
    return "sender" if at_sender else "receiver", rounds, acks


def plateau(rounds, mss):
    """The longest run of >= PLATEAU_ROUNDS rounds, none with a retransmission or after
    an idle gap, whose flights stay within max(1 MSS, 10 %) of each other: (first
    round index, last round index) or None."""
    best = None
    for i in range(len(rounds)):
        j, lo, top = i, None, None
        while j < len(rounds) and not rounds[j]["retx"] and (j == i or not rounds[j]["idle"]):
            f = rounds[j]["flight"]
            nlo, ntop = min(lo or f, f), max(top or f, f)
            if ntop - nlo > max(mss, ntop / 10.0):
                break
            lo, top, j = nlo, ntop, j + 1
        if j - i >= PLATEAU_ROUNDS and (best is None or j - i > best[1] + 1 - best[0]):
            best = (i, j - 1)
    return best


def flight_analyse(rows, cport):
    """tcpdiag.flight.* values of the server's data, and the rounds (for the claims)."""
    seen_from, rounds, acks = flight_rounds(rows, cport)
    mss = full_mss([int(r["tcp.len"] or 0) for r in rows if r["tcp.srcport"] != cport])
    out = {"tcpdiag.flight.dir": "s2c", "tcpdiag.flight.seen_from": seen_from,
           "tcpdiag.flight.rwnd": max(int(r["tcp.window_size"]) for r in acks)}
    p = plateau(rounds, mss)
    keys = ("plateau", "plateau_mss", "plateau_onset", "headroom")
    out.update(("tcpdiag.flight." + k, None) for k in keys)
    if p:
        value = max(r["flight"] for r in rounds[p[0]:p[1] + 1])
        first, last = rounds[p[0]]["frame"], rounds[p[1]]["last_frame"]
        offered = [int(r["tcp.window_size"]) for r in acks if first <= int(r["frame.number"]) <= last]
        prev = rounds[p[0] - 1] if p[0] else None
        onset = ("start" if prev is None else "retransmission" if prev["retx"]
                 else "idle" if rounds[p[0]]["idle"] else "none")
        out.update(zip(("tcpdiag.flight." + k for k in keys),
                       (value, value / mss, onset, min(offered) - value)))
    return out, rounds, p


# What each crafted-flight flow's "why" says about its rounds, in segments of 1448
# bytes (r: the round list; retx: indices of rounds with a retransmission).
def _segs(r):
    return [x["flight"] / 1448.0 for x in r]


def _retx(r):
    return [i for i, x in enumerate(r) if x["retx"]]


def _sawtooth(r):
    s = _segs(r)
    steps = all(s[i] == (20 if r[i - 1]["retx"] else 40 if r[i]["retx"] else s[i - 1] + 1)
                for i in range(2, len(s)))
    return s[:2] == [10, 20] and len(_retx(r)) == 3 and steps


ILLUMOS_CLAIM = ("rounds of 10, 20 and 40 segments, the loss repaired in round 3, then "
                 "exactly 5 in every round",
                 lambda r: _segs(r)[:3] == [10, 20, 40] and _retx(r) == [2]
                 and set(_segs(r)[3:]) == {5})
FLIGHT_CLAIMS = {
    40901: ILLUMOS_CLAIM,
    40902: ILLUMOS_CLAIM,
    40903: ("11 segments in every round (a shorter last one as the data runs out), no loss",
            lambda r: set(_segs(r)[:-1]) == {11} and _segs(r)[-1] <= 11 and not _retx(r)),
    40904: ("10, 20, then one more per round up to 40; 3 losses in a round at 40, each "
            "followed by 20", _sawtooth),
    40905: ("30 rounds of 16 segments, each after 200 ms with nothing outstanding, no loss",
            lambda r: _segs(r) == [16] * 30 and all(x["idle"] for x in r[1:]) and not _retx(r)),
    40906: ("10, 20, 40, 80, 160, 320 and 363 segments (525624 B >= 512 KiB), no loss",
            lambda r: _segs(r) == [10, 20, 40, 80, 160, 320, 363] and not _retx(r)),
    41201: ("after the short first write, 8 segments in flight in every round but the "
            "ramp at the start and the drain at the end, no loss",
            lambda r: not _retx(r) and max(_segs(r)) == 8 and _segs(r).count(8) >= 40),
}


def runs(words):
    """Words with repeats compressed: '10 20 40R 5x127'."""
    return " ".join(w if n == 1 else "%sx%d" % (w, n)
                    for w, n in ((w, len(list(g))) for w, g in itertools.groupby(words)))


def summary(rounds, p):
    """Round flights in segments, runs compressed: '10 20 40R 5x127'."""
    text = runs("%g%s%s" % (x["flight"] / 1448.0, "R" if x["retx"] else "", "I" if x["idle"] else "")
                for x in rounds)
    if p:
        text += "; plateau rounds %d-%d from frame %d" % (p[0] + 1, p[1] + 1, rounds[p[0]]["frame"])
    return text


def stream(rows, st):
    return [r for r in rows if r["tcp.stream"] == st]


def flight_check(read, st, cport, expect):
    """tcpdiag.flight.* values, a note, and whether the rounds show what the why says."""
    fa, rounds, p = flight_analyse(stream(read(FLIGHT_FIELDS), st), cport)
    claim = FLIGHT_CLAIMS.get(int(cport))
    return fa, summary(rounds, p), claim and claim[0], claim is not None and claim[1](rounds)


OFFLOAD_FIELDS = FLIGHT_FIELDS + ["tcp.options.mss_val", "tcp.options.timestamp.tsval", "ip.len",
                                  "ip.hdr_len", "tcp.hdr_len", "frame.len", "frame.cap_len"]
SNAPLEN = 128


def offload_profile(rows, cport, written_len):
    """The server's payload sizes as Wireshark shows them (tcp.len), checked against the
    frame, IP and TCP lengths, and what the why tells about them.  written_len: IPv4
    total length as written, from a pass with ip.tso_support off (by default Wireshark
    shows a 0 as the length the frame implies)."""
    flags = lambda r: int(r["tcp.flags"] or "0", 16)
    syn = next(r for r in rows if flags(r) & 0x12 == 0x02)
    data = [r for r in rows if r["tcp.srcport"] != cport and int(r["tcp.len"] or 0) > 0]
    bad = [r["frame.number"] for r in rows
           if int(r["frame.cap_len"]) != min(int(r["frame.len"]), SNAPLEN)
           or int(r["ip.len"]) != int(r["frame.len"]) - 14
           or int(r["tcp.len"]) != int(r["ip.len"]) - int(r["ip.hdr_len"]) - int(r["tcp.hdr_len"])]
    sizes = [int(r["tcp.len"]) for r in data]
    announced = int(syn["tcp.options.mss_val"])
    fits = [n for n in sizes if n <= announced]
    mss = full_mss(sizes, announced)
    # with no segment that fits, a super-packet is one above the announced MSS
    unit = max(fits) if fits else announced
    big = [n for n in sizes if n > unit]
    top, new = 0, []                # new data: not below the highest sequence number sent
    for r in data:
        new.append(int(r["tcp.seq"]) >= top)
        top = max(top, int(r["tcp.nxtseq"]))
    # the cap: the last super-packet's size, from the first super-packet after the last larger one
    supers = [i for i, n in enumerate(sizes) if n > unit]
    cap = sizes[supers[-1]] if supers else None
    above = [i for i in supers if sizes[i] > cap]
    start = next(i for i in supers if not above or i > above[-1]) if supers else None
    nxt = {r["frame.number"]: i for i, r in enumerate(rows)}
    answered = all(i + 1 < len(rows) and rows[i + 1]["tcp.srcport"] == cport
                   and rows[i + 1]["tcp.ack"] == r["tcp.nxtseq"]
                   and usec(rows[i + 1]) - usec(r) <= 1
                   for r in data if int(r["tcp.len"]) > unit for i in (nxt[r["frame.number"]],))
    out = {
        "tcpdiag.offload.mss": mss,
        "tcpdiag.offload.max": max(sizes),
        "tcpdiag.offload.super_packets": len(big),
        "tcpdiag.offload.super_share": round(100.0 * sum(big) / sum(sizes), 2),
        "tcpdiag.offload.ip_len_zero": sum(written_len[r["frame.number"]] == "0" for r in rows),
    }
    return out, {
        "sizes": sizes, "t": [usec(r) for r in data], "new": new, "mss": mss, "bad_lengths": bad,
        "zero": [written_len[r["frame.number"]] == "0" for r in data],
        "cap": cap, "cap_index": start, "cap_start": start is not None and int(data[start]["frame.number"]),
        "answered": answered, "rounds": flight_rounds(rows, cport)[1],
    }


def after_retx(p):
    """Index of the first new data after the (only) retransmission."""
    return p["new"].index(True, p["new"].index(False))


def spaced(p, first, lo, hi):
    """Data frames from index `first` on leave lo to hi us apart."""
    return all(lo <= b - a <= hi for a, b in zip(p["t"][first:], p["t"][first + 1:]))


# What each crafted-offload flow's "why" says about its data frames (p: the profile).
OFFLOAD_CLAIMS = {
    41001: ("slow-start packets of at least 4 sizes reaching 40 KB, one retransmission, then "
            "from the first new data after it only 7240-byte packets, one per round trip "
            "(20.0 to 20.1 ms apart), at least 80: the cap starts there",
            lambda p: p["new"].count(False) == 1 and p["cap"] == 7240
            and p["cap_index"] == after_retx(p) and set(p["sizes"][after_retx(p):]) == {7240}
            and len(p["sizes"]) - after_retx(p) >= 80 and spaced(p, after_retx(p), 20000, 20100)
            and max(p["sizes"][:after_retx(p)]) >= 40960 and len(set(p["sizes"][:after_retx(p)])) >= 4),
    41002: ("at least 256 KB; super-packets of at least 5 sizes up to 45 x 1448, each a "
            "multiple of 1448 unless it ends a write; IPv4 total length 0 on exactly the "
            "frames above 1448",
            lambda p: sum(p["sizes"]) >= 262144 and max(p["sizes"]) == 45 * 1448
            and len({n for n in p["sizes"] if n > 1448}) >= 5
            and p["zero"] == [n > p["mss"] for n in p["sizes"]]),
    41003: ("at the client: merged packets of 2 to 20 segments, at least 10 sizes, each "
            "ACKed by the next frame at most 1 us later; the other frames lone 1448-byte segments",
            lambda p: all(n == 1448 or 2 * 1448 <= n <= 20 * 1448 for n in p["sizes"])
            and len(set(p["sizes"]) - {1448}) >= 10 and p["answered"]),
    41004: ("at least 256 KB, no segment above 1448, at least 8 rounds with 4 MSS or more "
            "in flight",
            lambda p: sum(p["sizes"]) >= 262144 and max(p["sizes"]) <= 1448
            and sum(r["flight"] >= 4 * 1448 for r in p["rounds"]) >= 8),
    41005: ("one packet per ms of 3 or 4 segments (at least half of them 4), the last a lone "
            "segment: the largest is at least 1 ms of the rate (bytes over the data frames' "
            "span + 1 ms)",
            lambda p: set(p["sizes"][:-1]) == {3 * 1448, 4 * 1448} and p["sizes"][-1] == 1448
            and spaced(p, 0, 1000, 1000) and 2 * p["sizes"].count(4 * 1448) >= len(p["sizes"]) - 1
            and max(p["sizes"]) >= sum(p["sizes"]) * 1000.0 / (p["t"][-1] - p["t"][0] + 1000)),
    41006: ("20000 bytes in 2 super-packets",
            lambda p: len(p["sizes"]) == 2 and min(p["sizes"]) > 1448 and sum(p["sizes"]) == 20000),
    41201: ("one 880-byte segment, then 200 packets of 2 x 1448 bytes, 5.5 ms apart",
            lambda p: p["sizes"] == [880] + [2 * 1448] * 200 and spaced(p, 1, 5500, 5500)),
}


def offload_check(read, st, cport, expect):
    """tcpdiag.offload.* values, a note, and whether the frames show what the why says.
    The cap fields are compared only where the file says capped: whether a cap is one
    (rate, flight plateau) is tcpdiag's call, not this script's."""
    written_len = {r["frame.number"]: r["ip.len"] for r in read(
        ["frame.number", "ip.len"], ("ip.tso_support:FALSE",))}
    out, p = offload_profile(stream(read(OFFLOAD_FIELDS), st), cport, written_len)
    claim = OFFLOAD_CLAIMS.get(int(cport))
    sizes = runs("%d" % (n // 1448) if n % 1448 == 0 else "%d+%d" % (n // 1448, n % 1448)
                 for n in p["sizes"])
    note = "%s; %s" % (sizes if len(sizes) < 120 else sizes[:117] + "...", out)
    if p["cap"]:
        note += "; last super-packet size %d from frame %d" % (p["cap"], p["cap_start"])
    if expect.get("tcpdiag.offload.verdict") == "capped":
        out.update({"tcpdiag.offload.cap": p["cap"], "tcpdiag.offload.cap_mss": p["cap"] // p["mss"],
                    "tcpdiag.offload.cap_start": p["cap_start"]})
    if p["bad_lengths"]:
        note += "; frame, IP and TCP lengths disagree in frames %s" % p["bad_lengths"]
    return out, note, claim and claim[0], claim is not None and claim[1](p) and not p["bad_lengths"]


# The checks of the simulated downloads, by the tcpdiag fields they answer for.
SIM_CHECKS = (("tcpdiag.flight.", flight_check), ("tcpdiag.offload.", offload_check))


def triple(flags):
    f = int(flags, 16)
    return (f >> 8 & 1, f >> 7 & 1, f >> 6 & 1), f


def ecn_of(r):
    v = r["ip.dsfield.ecn"] or r["ipv6.tclass.ecn"]
    return ECN_NAME[int(v)] if v != "" else None


def src(r):
    return r["ip.src"] or r["ipv6.src"]


def dst(r):
    return r["ip.dst"] or r["ipv6.dst"]


def outcome_of(syns, synacks):
    """The tcpdiag outcome table (docs/fields.md + brief)."""
    if not syns:
        return "unknown", None
    first = syns[0][0]
    ecn_req = first in ((0, 1, 1), (1, 1, 1))
    if ecn_req and any(s[0] == (0, 0, 0) and s[1] == syns[0][1] for s in syns[1:]):
        return "fallback", None
    if first == (0, 0, 0):
        return "not-requested", None
    if not ecn_req:
        return "invalid", None
    if not synacks:
        return "unknown", None
    sa = synacks[-1]
    if first == (0, 1, 1):
        return CLASSIC_SYNACK_OUTCOME.get(sa, "invalid"), None
    if sa in ACCECN_FEEDBACK:
        return "accecn", ACCECN_FEEDBACK[sa]
    return ACCECN_SYNACK_OUTCOME.get(sa, "invalid"), None


def analyse(rows):
    """Per-flow facts Wireshark shows, for one flow's frames (in order)."""
    syns, synacks, syn_rows, synack_rows = [], [], [], []
    quotes = [r for r in rows if r["icmp.type"] or r["icmpv6.type"]]      # quoted headers
    rows = [r for r in rows if not (r["icmp.type"] or r["icmpv6.type"])]
    packets = len(rows)
    for r in rows:
        if not r["tcp.flags"]:
            continue
        t, f = triple(r["tcp.flags"])
        if f & 0x02 and not f & 0x10:
            syns.append((t, r["tcp.seq_raw"]))
            syn_rows.append(r)
        elif f & 0x02 and f & 0x10:
            synacks.append(t)
            synack_rows.append(r)
    out = {}
    if syn_rows:
        client, server = src(syn_rows[0]), dst(syn_rows[0])
        cport, sport = syn_rows[0]["tcp.srcport"], syn_rows[0]["tcp.dstport"]
    elif synack_rows:
        client, server = dst(synack_rows[0]), src(synack_rows[0])
        cport, sport = synack_rows[0]["tcp.dstport"], synack_rows[0]["tcp.srcport"]
    else:
        client = None
    outcome, fb = outcome_of(syns, synacks)
    out["tcpdiag.ecn.outcome"] = outcome
    out["tcpdiag.ecn.accecn_feedback"] = fb
    out["tcpdiag.flow.packets"] = packets
    out["tcpdiag.flow.icmp_quotes"] = len(quotes) or None
    if client is None:
        out["tcpdiag.flow.roles"] = "unknown"
        out["tcpdiag.flow.data_sender"] = "unknown"
        for k in ("client", "server", "client_port", "server_port", "client_mss", "server_mss"):
            out["tcpdiag.flow." + k] = None
        for k in ("syn_ip_ecn", "synack_ip_ecn", "c2s.data", "s2c.data"):
            out["tcpdiag.ecn." + k] = None
        return out
    out["tcpdiag.flow.roles"] = "known"
    out["tcpdiag.flow.client"], out["tcpdiag.flow.server"] = client, server
    out["tcpdiag.flow.client_port"], out["tcpdiag.flow.server_port"] = int(cport), int(sport)
    mss = lambda rs: int(rs[0]["tcp.options.mss_val"]) if rs and rs[0]["tcp.options.mss_val"] else None
    out["tcpdiag.flow.client_mss"] = mss(syn_rows[-1:]) if syn_rows else None
    out["tcpdiag.flow.server_mss"] = mss(synack_rows[-1:]) if synack_rows else None
    out["tcpdiag.ecn.syn_ip_ecn"] = ecn_of(syn_rows[-1]) if syn_rows else None
    out["tcpdiag.ecn.synack_ip_ecn"] = ecn_of(synack_rows[-1]) if synack_rows else None
    counts = {"c2s": dict.fromkeys(CODEPOINTS, 0), "s2c": dict.fromkeys(CODEPOINTS, 0)}
    nbytes = {"c2s": 0, "s2c": 0}
    from_ip = 0
    for r in rows:
        n, derived = payload(r)
        from_ip += derived
        if n <= 0:
            continue
        d = "c2s" if (src(r), r["tcp.srcport"]) == (client, cport) else "s2c"
        counts[d][ecn_of(r).replace("-", "_")] += 1
        nbytes[d] += n
    for d in ("c2s", "s2c"):
        for k, v in counts[d].items():
            out["tcpdiag.ecn.%s.%s" % (d, k)] = v
        out["tcpdiag.ecn.%s.data" % d] = data_class(outcome, counts[d])
        out["tcpdiag.flow.%s.bytes" % d] = nbytes[d]
    out["tcpdiag.flow.data_sender"] = data_sender(nbytes["c2s"] > 0, nbytes["s2c"] > 0)
    out["tcpdiag.flow.sizes_from_ip"] = from_ip or None
    return out


def matches(exp, got):
    if isinstance(exp, list):
        return got in exp
    if isinstance(exp, dict):
        return got is not None and exp.get("min", got) <= got <= exp.get("max", got)
    return exp == got


def check_file(path, capdir):
    doc = json.load(open(path))
    pcap = os.path.join(capdir, doc["capture"])
    rc, out, err, rows = tshark_rows(pcap, FIELDS)
    problems = []
    if rc != 0:
        problems.append("tshark exit %d" % rc)
    if "dissector bug" in (out + err).lower():
        problems.append("tshark reported a dissector bug")
    if doc.get("robustness_only"):
        return problems, 0, []
    streams = {r["tcp.stream"] for r in rows if r["tcp.stream"] != ""}
    if doc["flow_count"] != len(streams):
        problems.append("flow_count %s, tshark has %d streams" % (doc["flow_count"], len(streams)))
    checked = 0
    opt_rows = None
    passes = {}

    def read(fields, prefs=()):
        """tshark rows of one more pass over the file (fields, preferences), kept."""
        key = (tuple(fields), tuple(prefs))
        if key not in passes:
            passes[key] = tshark_rows(pcap, fields, prefs=prefs)[3]
        return passes[key]
    notes = []
    flows_by_client = {}
    for s in sorted(streams, key=int):
        a = analyse([r for r in rows if r["tcp.stream"] == s])
        if a["tcpdiag.flow.roles"] == "known":
            flows_by_client.setdefault(a["tcpdiag.flow.client"], []).append(a)
    for fl in doc["flows"]:
        sel = fl["select"]
        if "tcp.stream" in sel:
            sel_rows = [r for r in rows if r["tcp.stream"] == str(sel["tcp.stream"])]
        else:
            p = str(sel["tcp.port"])
            sel_rows = [r for r in rows if p in (r["tcp.srcport"], r["tcp.dstport"])]
        if not sel_rows:
            problems.append("%s selects no frame" % sel)
            continue
        ss = {r["tcp.stream"] for r in sel_rows}
        if ss == {""}:
            # Wireshark made no flow of these frames: every tcpdiag field must be absent
            for k, v in fl["expect"].items():
                if v is not None:
                    problems.append("%s: no tcp.stream, but %s expected %r" % (sel, k, v))
            checked += 1
            continue
        if len(ss) != 1:
            problems.append("%s selects frames of streams %s" % (sel, sorted(ss)))
            continue
        a = analyse(sel_rows)
        if any(k.startswith("tcpdiag.opts.") for k in fl["expect"]):
            if opt_rows is None:
                opt_rows = tshark_rows(pcap, OPT_FIELDS, "a")[3]
            st = sel_rows[0]["tcp.stream"]
            a.update(opts_analyse([r for r in opt_rows if r["tcp.stream"] == st],
                                  str(a.get("tcpdiag.flow.client_port"))))
        for prefix, check in SIM_CHECKS:
            if not any(k.startswith(prefix) for k in fl["expect"]):
                continue
            port = a["tcpdiag.flow.client_port"]
            values, note, claim, holds = check(read, sel_rows[0]["tcp.stream"], str(port),
                                               fl["expect"])
            a.update(values)
            notes.append("%s: %s" % (port, note))
            if not holds:
                problems.append("%s: the capture does not show what the why says (%s): %s"
                                % (port, claim, note))
        for k, v in fl["expect"].items():
            if k in a:
                if not matches(v, a[k]):
                    problems.append("%s %s: expected %r, Wireshark fields give %r" % (sel, k, v, a[k]))
        checked += 1
    for h in doc.get("hosts", []):
        fl = flows_by_client.get(h["client"], [])
        conns = [f for f in fl if f["tcpdiag.ecn.syn_ip_ecn"] is not None]
        if any(k.startswith("tcpdiag.host.opts_") for k in h["expect"]):
            if opt_rows is None:
                opt_rows = tshark_rows(pcap, OPT_FIELDS, "a")[3]
            miss = 0
            for f in conns:
                syn = [r for r in opt_rows if r["tcp.srcport"] == str(f["tcpdiag.flow.client_port"])
                       and r["tcp.flags"] and int(r["tcp.flags"], 16) & 0x12 == 0x02]
                miss += bool(syn) and not {"wscale", "sack_perm", "ts"} <= set(opt_list(syn[-1])[0])
            h_opts = {"tcpdiag.host.opts_missing_conns": miss}
            h_opts["tcpdiag.host.opts_share"] = (
                "%d of %d connections sent SYNs without wscale, sack or ts" % (miss, len(conns)))
            for k, v in h["expect"].items():
                if k in h_opts and not matches(v, h_opts[k]):
                    problems.append("host %s %s: expected %r, got %r" % (h["client"], k, v, h_opts[k]))
        got = {"tcpdiag.host.conns": len(conns),
               "tcpdiag.host.ecn_negotiated": sum(f["tcpdiag.ecn.outcome"] in NEGOTIATED for f in conns)}
        for k, v in h["expect"].items():
            if k in got and not matches(v, got[k]):
                problems.append("host %s %s: expected %r, got %r" % (h["client"], k, v, got[k]))
    return problems, checked, notes


def main():
    capdir = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(
        os.path.dirname(os.path.abspath(__file__)))
    bad = 0
    for path in sorted(glob.glob(os.path.join(capdir, "crafted-*.expected.json"))):
        problems, n, notes = check_file(path, capdir)
        print("%-45s %s (%d flows checked)" % (os.path.basename(path),
                                                "OK" if not problems else "FAIL", n))
        for p in notes + problems:
            print("    " + p)
        bad += bool(problems)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
