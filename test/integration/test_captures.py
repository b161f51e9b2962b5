"""Every committed capture against its expected-results file (captures/README.md).

The expected values were derived from how each capture was made (lab
configuration, RFC tables), never from tcpdiag's output."""
import json

import pytest

from lab_next import KNOWN_MISSES, MECH, MECH_PCAP_MISSES, NEXT
from lab_think import THINK, THINK_KNOWN_MISSES
from tshark import CAPTURES, fields, run

OUTCOMES = {"not-requested", "classic", "declined", "reflected", "accecn", "accecn-classic",
            "fallback", "invalid", "unknown"}
MISSES = {**KNOWN_MISSES, **MECH_PCAP_MISSES, **THINK_KNOWN_MISSES}
PCAPS = [pytest.param(p, id=p.name,
                      marks=[pytest.mark.xfail(strict=True, reason=MISSES[p.name])] if p.name in MISSES else [])
         for p in sorted(CAPTURES.glob("*.pcap")) + sorted(NEXT.glob("*.pcap")) + sorted(MECH.glob("*.pcap"))
         + sorted(THINK.glob("*.pcap"))]
SELECTOR_FIELDS = ["frame.number", "tcp.stream", "tcp.srcport", "tcp.dstport", "tcp.flags",
                   "ip.src", "ipv6.src"]


def expected_of(pcap):
    path = pcap.with_name(pcap.stem + ".expected.json")
    assert path.exists(), f"{pcap.name} has no expected-results file {path.name}"
    return json.loads(path.read_text())


def matches(actual, expected):
    """Compares one printed tshark value with an expected-file value."""
    if expected is None:
        return actual == ""
    if isinstance(expected, list):
        return any(matches(actual, e) for e in expected)
    if actual == "":
        return False
    if isinstance(expected, dict):
        value = float(actual)
        return expected.get("min", value) <= value <= expected.get("max", value)
    if isinstance(expected, (int, float)) and not isinstance(expected, bool):
        return float(actual) == float(expected)
    return actual == str(expected)


def own_stream(row):
    """The stream of the frame's own segment: the first TCP layer's. A TCP payload
    dissected as a packet (OpenFlow's packet-in) adds the inner packet's after it."""
    return row["tcp.stream"].split(",")[0]


def selected(rows, select):
    if "tcp.stream" in select:
        return [r for r in rows if own_stream(r) == str(select["tcp.stream"])]
    port = str(select["tcp.port"])
    packets = [r for r in rows if port in (r["tcp.srcport"], r["tcp.dstport"])]
    streams = {r["tcp.stream"] for r in packets}
    assert len(streams) == 1, f"tcp.port {port} selects streams {sorted(streams)}, not one flow"
    if streams == {""}:
        return packets        # headers too short for Wireshark to assign a stream
    return [r for r in rows if r["tcp.stream"] in streams]


def is_syn(row):
    return row["tcp.flags"] != "" and int(row["tcp.flags"], 16) & 0x12 == 0x02


@pytest.mark.parametrize("pcap", PCAPS)
def test_capture(pcap):
    exp = expected_of(pcap)
    if exp.get("robustness_only"):
        check_robustness(pcap)
        return
    names = set()
    for flow in exp["flows"]:
        names.update(flow["expect"])
    for entry in exp.get("hosts", []):
        names.update(entry["expect"])
    for entry in exp.get("senders", []):
        names.update(entry["expect"])
        for flow in entry["flows"]:
            names.update(flow["expect"])
    names = SELECTOR_FIELDS + ["tcp.len"] + sorted(names - set(SELECTOR_FIELDS) - {"tcp.len"})
    rows = fields(pcap, names)

    streams = {own_stream(r) for r in rows} - {""}
    if "flow_count" in exp:
        assert len(streams) == exp["flow_count"], f"streams in capture: {sorted(streams)}"

    failures = []
    for flow in exp["flows"]:
        packets = selected(rows, flow["select"])
        assert packets, f"{flow['select']} selects no packet"
        for name, want in flow["expect"].items():
            bad = [(r["frame.number"], r[name]) for r in packets if not matches(r[name], want)]
            if bad:
                failures.append(f"{flow['select']} {name}: expected {want!r}, got {bad[:3]}"
                                f" ({len(bad)} of {len(packets)} packets) -- {flow.get('why', '')}")

    for entry in exp.get("hosts", []):
        client = entry["client"]
        syn_streams = {r["tcp.stream"] for r in rows
                       if is_syn(r) and client in (r["ip.src"], r["ipv6.src"])}
        assert syn_streams, f"no SYN from {client}"
        firsts = [next(r for r in rows if r["tcp.stream"] == s) for s in sorted(syn_streams, key=int)]
        for name, want in entry["expect"].items():
            bad = [(r["frame.number"], r[name]) for r in firsts if not matches(r[name], want)]
            if bad:
                failures.append(f"host {client} {name}: expected {want!r}, got {bad[:3]}"
                                f" -- {entry.get('why', '')}")

    for entry in exp.get("senders", []):
        failures += sender_failures(rows, entry)
    assert not failures, "\n".join(failures)


def first_packet(rows, stream):
    return next(r for r in rows if r["tcp.stream"] == stream)


def sender_failures(rows, entry):
    """Per-sender rules sit on the first packet of every flow the sender
    sent data in; each listed flow's own expectations on its first packet."""
    address = entry["sender"]
    streams = {r["tcp.stream"] for r in rows
               if r["tcp.len"] not in ("", "0") and address in (r["ip.src"], r["ipv6.src"])}
    assert streams, f"no data from {address}"
    failures = []
    checks = [(first_packet(rows, s), entry["expect"]) for s in sorted(streams, key=int)]
    checks += [(first_packet(rows, str(flow["select"]["tcp.stream"])), flow["expect"])
               for flow in entry["flows"]]
    for row, expect in checks:
        for name, want in expect.items():
            if not matches(row[name], want):
                failures.append(f"sender {address} stream {row['tcp.stream']} {name}: expected {want!r}, "
                                f"got {row[name]!r} -- {entry.get('why', '')}")
    return failures


def check_robustness(pcap):
    """Hostile input: no crash, no dissector bug, only documented outcomes."""
    for args in (["-2", "-V"], ["-V"], ["-2", "-q", "-z", "tcpdiag,flows", "-z", "tcpdiag,hosts"]):
        proc = run(["-r", pcap] + args, check=False)
        assert proc.returncode == 0, proc.stderr[-2000:]
        for text in (proc.stdout, proc.stderr):
            assert "Dissector bug" not in text, text[-2000:]
    outcomes = {r["tcpdiag.ecn.outcome"] for r in fields(pcap, ["tcpdiag.ecn.outcome"])}
    assert outcomes <= OUTCOMES | {""}, outcomes


RESPONSES = 'tcpdiag.cc.event == "cwr" || tcpdiag.cc.event == "ace" || tcpdiag.cc.event == "loss"'
# The responses tcpdiag calls reductions (the frames with the tcpdiag.cc.reduction Note).
# What tcpdiag calls a reduction: the responses that carry the tcpdiag.cc.reduction
# Note (the flight fell below 0.9 of its level and stayed there a second round trip).
REDUCTIONS = "tcpdiag.cc.reduction"
KERNEL_PCAPS = [p for p in sorted(CAPTURES.glob("*.pcap")) if "kernel_reductions" in expected_of(p)]


@pytest.mark.parametrize("pcap", KERNEL_PCAPS, ids=[p.name for p in KERNEL_PCAPS])
def test_kernel_reductions_are_found(pcap):
    """At least 95 % of the sender kernel's own cwnd reductions (its TCP_INFO,
    polled every millisecond during the lab run) have a tcpdiag response event
    within one round trip, at either capture point. For flows whose configured
    congestion control is BBR, also the converse (issue 12): every tcpdiag reduction
    has a kernel episode within one round trip in which cwnd fell below 0.9 x the
    flight it had, so none is BBR's own flight change (its ProbeBW 0.75 phase, ProbeRTT)
    taken for a reaction."""
    rows = fields(pcap, ["tcp.stream", "frame.time_epoch"], extra=["-Y", RESPONSES])
    cuts = fields(pcap, ["tcp.stream", "frame.time_epoch", "tcpdiag.cc.ratio"], extra=["-Y", REDUCTIONS])
    for truth in expected_of(pcap)["kernel_reductions"]:
        stream = str(truth["select"]["tcp.stream"])
        events = [float(r["frame.time_epoch"]) for r in rows if r["tcp.stream"] == stream]
        rtt = truth["rtt_s"]
        found = [t for t in truth["times"] if any(abs(e - t) <= rtt for e in events)]
        assert len(found) >= 0.95 * len(truth["times"]), (
            f"stream {stream}: {len(found)} of {len(truth['times'])} kernel reductions have a tcpdiag "
            f"response within {rtt * 1000:.1f} ms; tcpdiag's: {events} -- {truth['why']}")
        if truth.get("cc") != "bbr":
            continue
        kernel = truth["flight_reduction_times"]
        invented = [(r["frame.time_epoch"], r["tcpdiag.cc.ratio"]) for r in cuts if r["tcp.stream"] == stream
                    and not any(abs(float(r["frame.time_epoch"]) - t) <= rtt for t in kernel)]
        assert not invented, (
            f"stream {stream} (BBR): {len(invented)} tcpdiag reductions (epoch, ratio) with no kernel "
            f"reduction within {rtt * 1000:.1f} ms: {invented[:5]}; kernel's: {kernel} -- {truth['why']}")
