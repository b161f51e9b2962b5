"""A real kernel's capture that reuses one address/port pair: lab-port-reuse.pcap, six
downloads from client port 32000 to the same server port, ended four ways, so that
the later SYNs met the server's TIME_WAIT socket, the client's own, or nothing
(captures/lab/README.md). Wireshark gives each connection its own tcp.stream; the
plugin takes its flows from Wireshark's conversations, the command numbers streams
itself (cmd/streams.c). Ground truth: the generators' log (logs/port-reuse.json) and
the expected file's connection list, both written by the lab from its configuration and
logs, never from tshark or tcpdiag."""
import json

import pytest

import command
from tshark import CAPTURES, fields, run

PCAP = CAPTURES / "lab-port-reuse.pcap"
EXPECTED = json.loads((CAPTURES / "lab-port-reuse.expected.json").read_text())
LOG = json.loads((CAPTURES / "lab" / "logs" / "port-reuse.json").read_text())
CONNECTIONS = EXPECTED["connections"]
SERVER = EXPECTED["flows"][0]["expect"]["tcpdiag.flow.server"]
# Per-flow fields the plugin puts on every frame of a flow; the command has them once per flow.
FLOW_FIELDS = ["tcpdiag.flow.client_port", "tcpdiag.flow.server_port", "tcpdiag.flow.packets",
               "tcpdiag.flow.c2s.bytes", "tcpdiag.flow.s2c.bytes", "tcpdiag.flow.duration",
               "tcpdiag.flow.irtt", "tcpdiag.diag.cause"]


def test_ground_truth_is_one_port_and_the_logged_bytes():
    """The expected file and the log agree: one client port, connections in connect() order,
    each with the bytes the server sent and the client read."""
    ports = {c["local"][1] for c in LOG["client"]} | {s["remote"][1] for s in LOG["server"]}
    assert ports == {LOG["config"]["reuse"]["port"]}
    assert [c["index"] for c in LOG["client"]] == list(range(len(CONNECTIONS)))
    assert [c["tcp.stream"] for c in CONNECTIONS] == list(range(len(CONNECTIONS)))
    assert [c["s2c_bytes"] for c in CONNECTIONS] == [c["bytes"] for c in LOG["client"]] \
        == [s["bytes"] for s in LOG["server"]]
    assert len(set(c["s2c_bytes"] for c in CONNECTIONS)) == len(CONNECTIONS), "sizes tell streams apart"


@pytest.fixture(scope="module")
def plain(tmp_path_factory):
    """tshark without the plugin (an empty plugin folder), two-pass as the plugin's run."""
    empty = tmp_path_factory.mktemp("no-plugin")
    names = ["frame.number", "tcp.stream", "ip.src", "tcp.srcport", "tcp.flags.syn", "tcp.flags.ack",
             "tcp.len", "tcp.analysis.reused_ports"]
    args = ["-r", PCAP, "-2", "-T", "fields", "-E", "separator=\t", "-E", "occurrence=a"]
    for name in names:
        args += ["-e", name]
    out = run(args, plugin=empty).stdout
    return [dict(zip(names, line.split("\t"))) for line in out.splitlines()]


@pytest.fixture(scope="module")
def plugin():
    return fields(PCAP, ["frame.number", "tcp.stream"] + FLOW_FIELDS)


def plugin_flows(rows):
    """tcp.stream -> the plugin's per-flow values, one flow per stream (asserted: every
    frame of the stream carries the same flow)."""
    flows = {}
    for r in rows:
        assert r["tcpdiag.flow.packets"], f"frame {r['frame.number']}: no tcpdiag flow"
        flows.setdefault(int(r["tcp.stream"]), set()).add(tuple(r[f] for f in FLOW_FIELDS))
    for stream, values in flows.items():
        assert len(values) == 1, f"stream {stream}: frames carry {len(values)} different tcpdiag flows"
    return {s: dict(zip(FLOW_FIELDS, v.pop())) for s, v in flows.items()}


def test_tshark_sees_the_reuse(plain):
    """A check on the capture: Wireshark itself starts a stream per connection, and flags
    tcp.analysis.reused_ports on the SYN of every connection after the first."""
    streams = sorted({int(r["tcp.stream"]) for r in plain})
    assert streams == list(range(len(CONNECTIONS)))
    for c in CONNECTIONS:
        syns = [r for r in plain if int(r["tcp.stream"]) == c["tcp.stream"]
                and r["tcp.flags.syn"] in ("1", "True") and r["tcp.flags.ack"] in ("0", "False")]
        assert len(syns) == 1, (c, syns)
        assert int(syns[0]["tcp.srcport"]) == c["client_port"]
        reused = syns[0]["tcp.analysis.reused_ports"] != ""
        assert reused == (c["tcp.stream"] > 0), (c, syns[0])
    # and the payload per stream is the log's
    for c in CONNECTIONS:
        s2c = sum(int(r["tcp.len"]) for r in plain
                  if int(r["tcp.stream"]) == c["tcp.stream"] and r["ip.src"] == SERVER)
        assert s2c == c["s2c_bytes"], c["why"]


def test_plugin_has_one_flow_per_connection(plain, plugin):
    """Under tshark -2 the plugin leaves Wireshark's tcp.stream as it was, frame for frame,
    has exactly one flow per connection, each holding exactly its stream's frames and the
    bytes the server sent on that connection."""
    assert [(r["frame.number"], r["tcp.stream"]) for r in plugin] == \
        [(r["frame.number"], r["tcp.stream"]) for r in plain]
    flows = plugin_flows(plugin)
    assert sorted(flows) == [c["tcp.stream"] for c in CONNECTIONS]
    for c in CONNECTIONS:
        flow = flows[c["tcp.stream"]]
        frames = sum(int(r["tcp.stream"]) == c["tcp.stream"] for r in plain)
        assert int(flow["tcpdiag.flow.packets"]) == frames, (flow, c["why"])
        assert int(flow["tcpdiag.flow.client_port"]) == c["client_port"]
        assert int(flow["tcpdiag.flow.server_port"]) == c["server_port"]
        assert int(flow["tcpdiag.flow.s2c.bytes"]) == c["s2c_bytes"], (flow, c["why"])
        assert int(flow["tcpdiag.flow.c2s.bytes"]) == 0


def test_command_numbers_streams_as_the_plugin(plugin):
    """The tcpdiag command's streams (cmd/streams.c) are the plugin's, flow for flow, with
    the same ports, packets, bytes, timing and cause."""
    flows = plugin_flows(plugin)
    ours = command.flows(PCAP)
    assert [f["tcp.stream"] for f in ours] == sorted(flows), [f["tcp.stream"] for f in ours]
    for f in ours:
        theirs = flows[f["tcp.stream"]]
        for name in FLOW_FIELDS:
            want = theirs[name]
            got = f.get(name)
            if name in ("tcpdiag.flow.duration", "tcpdiag.flow.irtt"):
                assert got is not None and abs(float(want) - got) < 1e-6, (f["tcp.stream"], name, want, got)
            else:
                assert str(got) == want, (f["tcp.stream"], name, want, got)
    assert [f["tcpdiag.flow.s2c.bytes"] for f in ours] == [c["s2c_bytes"] for c in CONNECTIONS]
