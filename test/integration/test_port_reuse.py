"""Real kernels' captures that reuse one address/port pair: lab-port-reuse.pcap, six
downloads from client port 32000 to the same server port, ended four ways, so that
the later SYNs met the server's TIME_WAIT socket, the client's own, or nothing; and
lab-port-reuse-ipv6.pcap, four such over IPv6 (captures/lab/README.md). Wireshark gives each connection its own tcp.stream; the
plugin takes its flows from Wireshark's conversations, the command numbers streams
itself (cmd/streams.c). Ground truth: the generators' log (logs/<scenario>.json) and
the expected file's connection list, both written by the lab from its configuration and
logs, never from tshark or tcpdiag."""
import json
from types import SimpleNamespace

import pytest

import command
from tshark import CAPTURES, fields, run

SCENARIOS = ["port-reuse", "port-reuse-ipv6"]
# Per-flow fields the plugin puts on every frame of a flow; the command has them once per flow.
FLOW_FIELDS = ["tcpdiag.flow.client_port", "tcpdiag.flow.server_port", "tcpdiag.flow.packets",
               "tcpdiag.flow.c2s.bytes", "tcpdiag.flow.s2c.bytes", "tcpdiag.flow.duration",
               "tcpdiag.flow.irtt", "tcpdiag.diag.cause"]


@pytest.fixture(scope="module", params=SCENARIOS)
def case(request):
    """One capture: its pcap, expected file, the lab's log, the connections and the server."""
    name = request.param
    expected = json.loads((CAPTURES / f"lab-{name}.expected.json").read_text())
    return SimpleNamespace(pcap=CAPTURES / f"lab-{name}.pcap", expected=expected,
                           log=json.loads((CAPTURES / "lab" / "logs" / f"{name}.json").read_text()),
                           connections=expected["connections"],
                           server=expected["flows"][0]["expect"]["tcpdiag.flow.server"])


def test_ground_truth_is_one_port_and_the_logged_bytes(case):
    """The expected file and the log agree: one client port, connections in connect() order,
    each with the bytes the server sent and the client read."""
    log, conns = case.log, case.connections
    ports = {c["local"][1] for c in log["client"]} | {s["remote"][1] for s in log["server"]}
    assert ports == {log["config"]["reuse"]["port"]} == {c["client_port"] for c in conns}
    assert [c["index"] for c in log["client"]] == list(range(len(conns)))
    assert [c["tcp.stream"] for c in conns] == list(range(len(conns)))
    assert [c["s2c_bytes"] for c in conns] == [c["bytes"] for c in log["client"]] \
        == [s["bytes"] for s in log["server"]]
    assert len(set(c["s2c_bytes"] for c in conns)) == len(conns), "sizes tell streams apart"
    assert len(conns) == case.expected["flow_count"]


@pytest.fixture(scope="module")
def plain(case, tmp_path_factory):
    """tshark without the plugin (an empty plugin folder), two-pass as the plugin's run."""
    empty = tmp_path_factory.mktemp("no-plugin")
    names = ["frame.number", "tcp.stream", "ip.src", "ipv6.src", "tcp.srcport", "tcp.flags.syn",
             "tcp.flags.ack", "tcp.len"]
    args = ["-r", case.pcap, "-2", "-T", "fields", "-E", "separator=\t", "-E", "occurrence=a"]
    for name in names:
        args += ["-e", name]
    rows = [dict(zip(names, line.split("\t"))) for line in run(args, plugin=empty).stdout.splitlines()]
    # tcp.analysis.reused_ports has no value to print (FT_NONE): its frames by a filter.
    reused = set(run(["-r", case.pcap, "-2", "-Y", "tcp.analysis.reused_ports", "-T", "fields",
                      "-e", "frame.number"], plugin=empty).stdout.split())
    for r in rows:
        r["reused_ports"] = r["frame.number"] in reused
    return rows


@pytest.fixture(scope="module")
def plugin(case):
    return fields(case.pcap, ["frame.number", "tcp.stream"] + FLOW_FIELDS)


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


def test_tshark_sees_the_reuse(case, plain):
    """A check on the capture: Wireshark itself starts a stream per connection, and flags
    tcp.analysis.reused_ports on the SYN of every connection after the first."""
    streams = sorted({int(r["tcp.stream"]) for r in plain})
    assert streams == list(range(len(case.connections)))
    for c in case.connections:
        syns = [r for r in plain if int(r["tcp.stream"]) == c["tcp.stream"]
                and r["tcp.flags.syn"] in ("1", "True") and r["tcp.flags.ack"] in ("0", "False")]
        assert len(syns) == 1, (c, syns)
        assert int(syns[0]["tcp.srcport"]) == c["client_port"]
        assert syns[0]["reused_ports"] == (c["tcp.stream"] > 0), (c, syns[0])
    # and the payload per stream is the log's
    for c in case.connections:
        s2c = sum(int(r["tcp.len"]) for r in plain
                  if int(r["tcp.stream"]) == c["tcp.stream"] and case.server in (r["ip.src"], r["ipv6.src"]))
        assert s2c == c["s2c_bytes"], c["why"]


def test_plugin_has_one_flow_per_connection(case, plain, plugin):
    """Under tshark -2 the plugin leaves Wireshark's tcp.stream as it was, frame for frame,
    has exactly one flow per connection, each holding exactly its stream's frames and the
    bytes the server sent on that connection."""
    assert [(r["frame.number"], r["tcp.stream"]) for r in plugin] == \
        [(r["frame.number"], r["tcp.stream"]) for r in plain]
    flows = plugin_flows(plugin)
    assert sorted(flows) == [c["tcp.stream"] for c in case.connections]
    for c in case.connections:
        flow = flows[c["tcp.stream"]]
        frames = sum(int(r["tcp.stream"]) == c["tcp.stream"] for r in plain)
        assert int(flow["tcpdiag.flow.packets"]) == frames, (flow, c["why"])
        assert int(flow["tcpdiag.flow.client_port"]) == c["client_port"]
        assert int(flow["tcpdiag.flow.server_port"]) == c["server_port"]
        assert int(flow["tcpdiag.flow.s2c.bytes"]) == c["s2c_bytes"], (flow, c["why"])
        assert int(flow["tcpdiag.flow.c2s.bytes"]) == 0


def test_command_numbers_streams_as_the_plugin(case, plugin):
    """The tcpdiag command's streams (cmd/streams.c) are the plugin's, flow for flow, with
    the same ports, packets, bytes, timing and cause."""
    flows = plugin_flows(plugin)
    ours = command.flows(case.pcap)
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
    assert [f["tcpdiag.flow.s2c.bytes"] for f in ours] == [c["s2c_bytes"] for c in case.connections]
