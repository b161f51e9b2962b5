"""Parity: every committed capture through the plugin (tshark -2) and through the
tcpdiag command gives the same flows, under the same tcp.stream numbers, with the
same value for every per-flow field (issue 15). The reference is the plugin: this
test holds the two front ends of one core to one answer, and test_captures.py holds
the plugin's answers to how the captures were made."""
import json
import math
import re

import pytest

import command
from tshark import CAPTURES, fields, run

PCAPS = [p for p in sorted(CAPTURES.glob("*.pcap*")) if not p.name.endswith(".json")]

# Fields about the packet they are on, not about the flow: the command has no
# packet to put them on.
PER_PACKET = {"tcpdiag.dir", "tcpdiag.cc.event", "tcpdiag.cc.latency", "tcpdiag.cc.flight_before",
              "tcpdiag.cc.flight_after", "tcpdiag.cc.ratio"}
# The plugin's per-direction subtrees, by their labels: "Flight s2c: cwnd", or with
# unknown roles "Flight 192.0.2.1:443 → 198.51.100.2:5000: cwnd" (the sender first).
DIRECTION_TREE = re.compile(r"^(?:Flight|Congestion|Offload) (?P<who>.+?): ")


def plugin_leaves(tree, direction=None, out=None):
    """(direction, field, value) of every tcpdiag field in a tshark -T json tree;
    direction is None for a flow-wide field, else "c2s", "s2c" or the sender's
    "address:port". Expert info is per packet and left out."""
    out = [] if out is None else out
    for key, value in tree.items():
        if key == "_ws.expert":
            continue
        if isinstance(value, dict):
            m = DIRECTION_TREE.match(key)
            plugin_leaves(value, m.group("who").split(" → ")[0] if m else direction, out)
        elif key.startswith("tcpdiag.") and key not in PER_PACKET:
            for v in value if isinstance(value, list) else [value]:
                out.append((direction, key, v))
    return out


def endpoint_text(address, port):
    return f"[{address}]:{port}" if ":" in address else f"{address}:{port}"


def plugin_flows(pcap):
    """stream -> sorted [(direction, field, value)] at the first frame of each flow
    the plugin analysed; with unknown roles a direction is named as the command
    names it: fwd for data from the flow's first packet's sender, rev otherwise."""
    rows = fields(pcap, ["frame.number", "tcp.stream", "tcpdiag.flow.roles", "ip.src", "ipv6.src",
                         "tcp.srcport"])
    first = {}
    for row in rows:
        # A frame whose TCP header Wireshark gave up on has no tcp.stream, though the
        # plugin reads it into its conversation's flow: never a flow's first frame.
        # A frame's segment is its first TCP layer's: one after it is a packet its
        # payload carried (OpenFlow's packet-in), not a flow on this wire.
        if row["tcpdiag.flow.roles"] and row["tcp.stream"]:
            first.setdefault(int(row["tcp.stream"].split(",")[0]), row)
    if not first:
        return {}
    by_frame = {int(r["frame.number"]): s for s, r in first.items()}
    frames = ",".join(str(f) for f in sorted(by_frame))
    packets = json.loads(run(["-r", pcap, "-2", "-Y", f"frame.number in {{{frames}}}", "-T", "json",
                              "--no-duplicate-keys", "-J", "frame tcpdiag"]).stdout)
    flows = {}
    for packet in packets:
        layers = packet["_source"]["layers"]
        stream = by_frame[int(layers["frame"]["frame.number"])]
        row = first[stream]
        source = (row["ipv6.src"] or row["ip.src"]).split(",")[-1]
        fwd = endpoint_text(source, row["tcp.srcport"].split(",")[-1])
        leaves = []
        for direction, name, value in plugin_leaves(layers["tcpdiag"]):
            if direction not in (None, "c2s", "s2c"):
                direction = "fwd" if direction == fwd else "rev"
            leaves.append((direction, name, value))
        flows[stream] = grouped(leaves)
    return flows


def command_leaves(record):
    out = []
    for key, value in record.items():
        if key in ("file", "tcp.stream"):
            continue
        if isinstance(value, dict):
            out += [(key, name, v) for name, v in value.items()]
        else:
            out.append((None, key, value))
    return grouped((direction, name, v) for direction, name, value in out
                   for v in (value if isinstance(value, list) else [value]))


def grouped(leaves):
    """(direction, field) -> its values, in the order given (a repeated field keeps
    its order: tcpdiag.opts.default_mss is the client's, then the server's)."""
    out = {}
    for direction, name, value in leaves:
        out.setdefault((direction or "", name), []).append(value)
    return out


def same_value(plugin, ours):
    """tshark prints every value as text: a double with 15 significant digits, a
    relative time with 9 decimals; the command keeps doubles to 17 digits."""
    if isinstance(ours, str):
        return plugin == ours
    if isinstance(ours, float) or isinstance(plugin, str) and "." in plugin:
        return math_close(float(plugin), float(ours))
    return plugin == str(ours)


def math_close(a, b):
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)


@pytest.mark.parametrize("pcap", PCAPS, ids=lambda p: p.name)
def test_command_matches_plugin(pcap):
    plugin = plugin_flows(pcap)
    ours = {r["tcp.stream"]: command_leaves(r) for r in command.flows(pcap)}
    assert sorted(ours) == sorted(plugin), "the same flows under the same tcp.stream numbers"
    for stream, theirs in plugin.items():
        mine = ours[stream]
        assert sorted(mine) == sorted(theirs), f"stream {stream}: the same fields"
        for key, values in theirs.items():
            got = mine[key]
            assert len(got) == len(values) and all(same_value(p, o) for p, o in zip(values, got)), \
                f"stream {stream} {key}: plugin {values}, command {got}"


@pytest.mark.parametrize("pcap", PCAPS, ids=lambda p: p.name)
def test_command_prints_the_plugin_reports(pcap):
    """The text output is tshark's -z tcpdiag,diagnosis, flows and hosts reports,
    in the order tshark prints them, after one line that counts the frames."""
    tshark_text = run(["-r", pcap, "-2", "-q", "-z", "tcpdiag,hosts", "-z", "tcpdiag,flows",
                       "-z", "tcpdiag,diagnosis"]).stdout
    ours = command.run([pcap]).stdout
    first, _, rest = ours.partition("\n")
    assert first.startswith(f"tcpdiag: {pcap}: ")
    assert rest == tshark_text


def test_an_unreadable_file_fails_alone(tmp_path):
    """A missing file, a file that is no capture and one cut short each get a line on
    stderr and make the exit status 1; the readable file is still analysed, and the
    cut one keeps the flows read before the cut. Without a terminal, stderr carries
    nothing else (no progress)."""
    good = CAPTURES / "lab-ecn-1-of-n.pcap"
    not_capture = tmp_path / "notes.txt"
    not_capture.write_text("not a capture\n")
    cut = tmp_path / "cut.pcap"
    cut.write_bytes(good.read_bytes()[:5000])
    missing = tmp_path / "missing.pcap"
    proc = command.run(["-j", 2, "--format", "json", missing, not_capture, good, cut], check=False)
    assert proc.returncode == 1
    errors = proc.stderr.splitlines()
    assert [e.split(":")[1].strip() for e in errors] == [str(missing), str(not_capture), str(cut)]
    files = [json.loads(line)["file"] for line in proc.stdout.splitlines()]
    assert files.count(str(good)) == 20            # the lab's 20 downloads
    assert files.count(str(cut)) >= 1
