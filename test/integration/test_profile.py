"""The tcpdiag configuration profile (profiles/tcpdiag): its colouring rules, applied
by tshark exactly as the GUI applies them (`-C tcpdiag --color`), and its columns.

What each flow must look like comes from how its capture was made (the
expected.json files): a flow diagnosed with a cause gets its cause's rule, a healthy
one keeps Wireshark's own colours, and Wireshark's alarm rules ("Bad TCP" first)
keep every packet they colour without the profile."""
import json
import re

import pytest

from tshark import CAPTURES, ROOT, fields, run

PROFILES = ROOT / "profiles"
COLORFILTERS = PROFILES / "tcpdiag" / "colorfilters"
NOT_A_FINDING = {"none", "unknown"}
# tshark finds the profile as a personal one (test/tshark-with-plugin copies it).
WITH_PROFILES = {"TCPDIAG_PROFILES": str(PROFILES)}


def rules():
    """(name, filter) of every enabled rule of the profile, in order."""
    return [tuple(line.split("@")[1:3]) for line in COLORFILTERS.read_text().splitlines()
            if line.startswith("@")]


def alarm_rules():
    """Wireshark's "Bad TCP", and whatever else the profile places before its own
    rules: they must keep winning on their packets."""
    names = [name for name, _ in rules()]
    first_ours = next(i for i, name in enumerate(names) if name.startswith("tcpdiag: "))
    return {"Bad TCP"} | set(names[:first_ours])


def coloured(pcap, profile):
    """(rule name, stream) per packet, two passes so that the diagnosis exists."""
    args = ["-r", pcap, "-2", "--color", "-T", "fields", "-e", "frame.coloring_rule.name", "-e", "tcp.stream"]
    if profile:
        args = ["-C", profile] + args
    out = run(args, environ=WITH_PROFILES).stdout
    return [tuple((line.split("\t") + [""])[:2]) for line in out.splitlines()]


def expected_causes(capture):
    """tcp.stream -> the set of causes the capture's making allows."""
    spec = json.loads((CAPTURES / (capture + ".expected.json")).read_text())
    causes = {}
    for flow in spec["flows"]:
        cause = flow["expect"]["tcpdiag.diag.cause"]
        causes[str(flow["select"]["tcp.stream"])] = set(cause) if isinstance(cause, list) else {cause}
    return causes


def test_every_cause_has_one_rule_and_one_colour():
    """One rule per diagnosed cause of docs/diagnosis.md, each its own background."""
    lines = [line for line in COLORFILTERS.read_text().splitlines() if line.startswith("@tcpdiag: ")]
    causes = [line.split("@")[1][len("tcpdiag: "):] for line in lines]
    diagnosis = (ROOT / "docs" / "diagnosis.md").read_text()
    # the vocabulary table's ranked rows, one per cause in order of precedence
    vocabulary = re.findall(r"^\| \d+ \| `([a-z-]+)` \|", diagnosis, re.MULTILINE)
    assert len(causes) == len(set(causes)) == len(vocabulary) >= 22
    assert causes == vocabulary
    backgrounds = [line.split("@")[3].split("]")[0] for line in lines]
    assert len(set(backgrounds)) == len(backgrounds)


def test_rules_compile():
    for _, flt in rules():
        run(["-r", CAPTURES / "lab-cc-cubic-loss-server.pcap", "-2", "-c", "1", "-Y", flt])


def test_wireshark_rules_sit_around_ours():
    """Bad TCP first; the rules that colour whole protocols (TCP last but for UDP and
    the rest) after ours, or a slow flow would never get its colour."""
    names = [name for name, _ in rules()]
    ours = [i for i, name in enumerate(names) if name.startswith("tcpdiag: ")]
    assert names[0] == "Bad TCP"
    assert ours == list(range(ours[0], ours[0] + len(ours)))
    assert ours[-1] < names.index("HTTP") < names.index("TCP")


@pytest.mark.parametrize("capture", ["lab-offload-ecn-mixed-server", "lab-cc-cubic-loss-server"])
def test_profile_colours_flows_by_cause_and_keeps_wiresharks_alarms(capture):
    """lab-offload-ecn-mixed-server: three downloads, only the ECN one collapses (and
    a healthy one has a Bad TCP packet); lab-cc-cubic-loss-server: one path-loss
    download whose retransmissions Wireshark colours Bad TCP."""
    pcap = CAPTURES / (capture + ".pcap")
    causes = expected_causes(capture)
    default = coloured(pcap, None)
    profiled = coloured(pcap, "tcpdiag")
    alarms = alarm_rules()
    assert len(default) == len(profiled) > 0
    diagnosed = {stream for stream, cause in causes.items() if not cause & NOT_A_FINDING}
    assert diagnosed, "the capture must hold a slow flow"
    assert any(name == "Bad TCP" for name, _ in default), "the capture must hold Bad TCP packets"
    for (before, stream), (after, same_stream) in zip(default, profiled):
        assert stream == same_stream
        if before in alarms:
            assert after == before
        elif stream in diagnosed:
            assert after in {f"tcpdiag: {cause}" for cause in causes[stream]}
        else:
            assert after == before and not after.startswith("tcpdiag")
    seen = {stream for name, stream in profiled if name.startswith("tcpdiag: ")}
    assert seen == diagnosed


def test_columns_stream_and_cause():
    """The profile's packet list: Wireshark's columns with Stream and Cause before Info."""
    out = run(["-C", "tcpdiag", "-2", "-r", CAPTURES / "lab-offload-ecn-mixed-server.pcap", "-T", "tabs"],
              environ=WITH_PROFILES).stdout
    rows = [line.split("\t") for line in out.splitlines()]
    causes = expected_causes("lab-offload-ecn-mixed-server")
    # No., Time, Source, (arrow), Destination, Protocol, Length, Stream, Cause, Info
    for row in rows:
        stream, cause = row[7].strip(), row[8].strip()
        assert cause in causes[stream]


def test_profile_preferences_are_the_plugins_own_at_their_defaults():
    """Every tcpdiag preference the plugin registers is in the profile, at its default
    (the profile gathers them for tuning); a renamed or removed preference would make
    Wireshark warn about the profile on every start."""
    registered = {}
    for line in run(["-G", "defaultprefs"]).stdout.splitlines():
        if line.startswith("#tcpdiag."):
            key, _, value = line[1:].partition(": ")
            registered[key] = value
    profile = {}
    for line in (PROFILES / "tcpdiag" / "preferences").read_text().splitlines():
        if line.startswith("tcpdiag."):
            key, _, value = line.partition(": ")
            profile[key] = value
    assert registered and profile == registered


IO_GRAPHS = PROFILES / "tcpdiag" / "io_graphs"
# What each I/O Graph preset counts over a whole flow, as the flow's own counters say it
# (summed over its data directions): a round trip per acknowledged round, each event once.
PRESET_TOTALS = {
    "Flight per round trip (bytes)": "tcpdiag.flight.rounds",
    "CE-marked data (x1000)": "tcpdiag.cc.ce",
    "ECN echo episodes (x1000)": "tcpdiag.cc.ece_episodes",
    "CWR responses (x1000)": "tcpdiag.cc.cwr",
    "Loss recoveries (x1000)": "tcpdiag.cc.losses",
}


def presets():
    """The I/O Graph presets: one list of the UAT's nine columns per line (a column is
    a quoted string; \\x22 is a quote inside one)."""
    rows = []
    for line in IO_GRAPHS.read_text().splitlines():
        if line and not line.startswith("#"):
            assert line.startswith('"') and line.endswith('"')
            rows.append([c.replace("\\x22", '"') for c in line[1:-1].split('","')])
    return rows


def test_io_graph_presets_load_on_every_version():
    """Nine columns, as 4.0 and 4.4 read them (4.6 adds a tenth and reads nine); every
    preset enabled, for the selected packet's flow, its filter and Y field valid here."""
    assert [row[1] for row in presets()] == list(PRESET_TOTALS)
    for enabled, _, flt, colour, style, y_axis, y_field, sma, factor in presets():
        assert enabled == "TRUE" and flt.startswith("tcp.stream == ${tcp.stream} && ")
        assert colour.startswith("#") and len(colour) == 7 and sma == "None" and factor in ("1", "1000")
        assert style in ("Line", "Impulse") and y_axis in ("MAX(Y Field)", "Packets")
        run(["-r", CAPTURES / "lab-ecn-1-of-n.pcap", "-2", "-c", "1", "-Y", flt])
        if y_field:
            run(["-r", CAPTURES / "lab-ecn-1-of-n.pcap", "-2", "-c", "1", "-Y", y_field])


@pytest.mark.parametrize("capture", ["lab-ecn-1-of-n", "lab-cc-cubic-loss-server", "lab-cc-cubic-ecn-collapse-client"])
def test_io_graph_presets_count_what_the_flow_reports(capture):
    """Each preset, on each flow, marks as many packets as tcpdiag counts for the flow:
    the graph of a flow adds up to its tree's numbers."""
    pcap = CAPTURES / (capture + ".pcap")
    totals = {}
    for row in fields(pcap, ["tcp.stream", "tcpdiag.flow.packets"] + list(PRESET_TOTALS.values())):
        if row["tcpdiag.flow.packets"] and row["tcp.stream"] not in totals:
            totals[row["tcp.stream"]] = {field: sum(int(v) for v in row[field].split(",") if v)
                                         for field in PRESET_TOTALS.values()}
    assert totals
    for _, name, flt, *_ in presets():
        counter = PRESET_TOTALS[name]
        marked = run(["-r", pcap, "-2", "-T", "fields", "-e", "tcp.stream",
                      "-Y", flt.replace("tcp.stream == ${tcp.stream} && ", "")]).stdout.split()
        for stream, flow in totals.items():
            assert marked.count(stream) == flow[counter], (name, stream)
    assert sum(flow["tcpdiag.flight.rounds"] for flow in totals.values()) > 0
