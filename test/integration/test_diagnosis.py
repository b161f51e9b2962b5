"""The diagnosis as users meet it: the -z tcpdiag,diagnosis report, the expert
items that carry the answer, and what every flow's answer must look like. The
expected causes come from the captures' expected files (written from how each
capture was made); the numbers from the lab's own logs."""
import json
import re

import pytest

from tshark import CAPTURES, fields, run

ONE_OF_N = CAPTURES / "lab-ecn-1-of-n.pcap"
ECN_FLOW_OF_N = "6"
STALL_CLIENT = CAPTURES / "lab-host-stall-client.pcap"
STALL_CONTROL = CAPTURES / "lab-host-stall-control-server.pcap"
LAB_LOGS = CAPTURES / "lab" / "logs"
CAUSES = {"none", "host-stall", "ecn-blackhole", "handshake-retry", "dead-peer", "pmtu-blackhole",
          "window-collapse", "options-stripped", "missing-options", "zero-window", "queueing-delay",
          "nagle-delayed-ack", "receive-window", "sender-limited", "offload-capped",
          "ecn-loss-reaction", "path-loss", "slow-start-restart", "retransmission-timeout", "server-delay", "client-delay",
          "round-trip-bound", "app-limited", "unknown"}
FINDINGS = CAUSES - {"none", "unknown"}
PCAPS = sorted(p for p in CAPTURES.glob("*.pcap")
               if not json.loads(p.with_name(p.stem + ".expected.json").read_text()).get("robustness_only"))


def report(pcap):
    return run(["-r", pcap, "-2", "-q", "-z", "tcpdiag,diagnosis"]).stdout


def expected_flows(pcap):
    """tcp.stream -> what the expected file expects of that flow (flows selected by
    port mapped to their stream with Wireshark's own fields)."""
    exp = json.loads(pcap.with_name(pcap.stem + ".expected.json").read_text())
    by_port = {}
    for r in fields(pcap, ["tcp.stream", "tcp.srcport", "tcp.dstport"]):
        for port in (r["tcp.srcport"], r["tcp.dstport"]):
            by_port.setdefault(port, set()).add(r["tcp.stream"])
    flows = {}
    for f in exp["flows"]:
        select = f["select"]
        streams = {str(select["tcp.stream"])} if "tcp.stream" in select else by_port[str(select["tcp.port"])]
        assert len(streams) == 1, (select, streams)
        flows[streams.pop()] = f["expect"]
    return flows


def expected_causes(pcap):
    """tcp.stream -> the cause the expected file gives."""
    return {stream: expect["tcpdiag.diag.cause"] for stream, expect in expected_flows(pcap).items()}


def test_report_tells_the_ecn_lottery():
    """lab-ecn-1-of-n: one of the client's 20 connections negotiated ECN and its
    window collapsed; the generator measured it 7.75x slower than the other 19
    (logs/ecn-1-of-n.json), asserted as at least half of that as the host rule is."""
    out = report(ONE_OF_N)
    assert "diagnosis of 20 flows: 1 slow, 19 healthy, 0 not diagnosed" in out
    finding = re.search(r"^1\. 10\.77\.1\.2 \(client\): 1 of 20 connections negotiated ECN; the server cut its "
                        r"window on every echo until the flight sat at (\d+) segments for (\d+) round trips; "
                        r"that flow was ([\d.]+)x slower than this client's 19 other flows", out, re.M)
    assert finding, out
    floor, rounds, slowdown = int(finding[1]), int(finding[2]), float(finding[3])
    assert floor <= 4 and rounds >= 10            # docs/congestion.md: what a collapse is
    assert slowdown >= json.loads((LAB_LOGS / "ecn-1-of-n.json").read_text())["slowdown"]["min"]
    assert f"Cause: window-collapse; 1 flow (stream {ECN_FLOW_OF_N})" in out
    assert "Fix: BBR on the sender (Linux net.ipv4.tcp_congestion_control=bbr)" in out
    assert "Confirm: ECN off at the client" in out and "net.inet.tcp.ecn_initiate_out=0" in out
    assert not re.search(r"^2\. ", out, re.M)


def test_report_of_a_healthy_capture_is_one_line():
    out = report(CAPTURES / "lab-no-ecn.pcap")
    assert "diagnosis of 1 flow: 0 slow, 1 healthy, 0 not diagnosed" in out
    assert "No slow flow: every flow with a diagnosis is healthy." in out
    assert "Fix:" not in out


def test_report_names_the_stalled_host_once():
    """lab-host-stall-client: the server dropped all it sent for 4 s under six
    concurrent downloads (logs/host-stall.json)."""
    out = report(STALL_CLIENT)
    assert "diagnosis of 6 flows: 6 slow, 0 healthy" in out
    assert re.search(r"^1\. 10\.77\.2\.2 \(host\): 6 flows; .*Host 10\.77\.2\.2 sent nothing on any flow for "
                     r"[\d.]+ s \(6 of 6 flows waiting\)", out, re.M)
    assert "Cause: host-stall; 6 flows (streams 0 1 2 3 4 5)" in out
    assert "netstat -m" in out
    assert not re.search(r"^2\. ", out, re.M)


def test_report_counts_the_application_apart():
    """lab-host-stall-control-server: each of six writers sent 16 kB bursts 120 ms
    apart and paused once for 4 s (logs/host-stall-control.json); nothing on the path
    limited them. The headline counts them apart from the slow flows, no time is
    called lost (the application's pauses are not the network's), and the text names
    the pause: at least the configured one less two round trips (the lab's own check
    of each flow's longest gap), at most it."""
    log = json.loads((LAB_LOGS / "host-stall-control.json").read_text())["config"]
    pause, rtt = log["long_pause"][0], 2 * sum(log["delay"]) / 1000
    out = report(STALL_CONTROL)
    assert "diagnosis of 6 flows: 0 slow, 6 limited by their application, 0 healthy, 0 not diagnosed" in out
    assert "No slow flow: the network held none back" in out
    named = re.search(r"longest pause ([\d.]+) s, ended at frame (\d+)\): the network was not the limit", out)
    assert named, out
    assert pause - 2 * rtt <= float(named[1]) <= pause
    assert f"evidence from frame {named[2]}" in out
    assert " lost" not in out


def test_report_counts_what_it_cannot_diagnose():
    """lab-midflow: tcpdump started mid-transfer, so no handshake."""
    out = report(CAPTURES / "lab-midflow.pcap")
    assert "0 slow, 0 healthy, 1 not diagnosed" in out
    assert re.search(r"Not diagnosed: 1 flow \(1: handshake not captured", out)


def expert_rows(pcap, expert):
    return fields(pcap, ["frame.number", "tcp.stream", "tcpdiag.diag.frame"], extra=["-Y", expert])


# The answer packets, by their fields (docs/fields.md): each flow of a finding has its
# rank on its evidence packet, the finding's flow that lost most also what the finding is.
FINDING_FIELDS = ["frame.number", "tcp.stream", "tcpdiag.diag.frame", "tcpdiag.diag.finding",
                  "tcpdiag.diag.findings", "tcpdiag.diag.finding_who", "tcpdiag.diag.finding_role",
                  "tcpdiag.diag.finding_flows", "tcpdiag.diag.finding_lost"]
FINDING_WARNINGS = " || ".join(f"tcpdiag.finding.{cause.replace('-', '_')}" for cause in sorted(FINDINGS))


def finding_rows(pcap):
    return fields(pcap, FINDING_FIELDS, extra=["-Y", "tcpdiag.diag.finding"])


@pytest.mark.parametrize("pcap", [ONE_OF_N, STALL_CLIENT, CAPTURES / "crafted-flight.pcap",
                                  CAPTURES / "lab-opts-client-mixed.pcap"],
                         ids=lambda p: p.name)
def test_one_warning_and_one_fix_per_finding(pcap):
    """Expert Information reads as answers (issue 21): one Warning and one Fix Note per
    finding of the report, on the evidence packet of its flow that lost most, and one
    Note on the evidence packet of each other flow of the finding; together exactly
    the flows the expected files call slow. The fields on those packets say the same:
    ranks 1 to N, each finding's flows of one expected cause and as many as its lead
    counts, N on every lead."""
    causes = expected_causes(pcap)
    slow = {s for s, cause in causes.items() if cause in FINDINGS}
    findings = re.findall(r"^\d+\. ", report(pcap), re.M)
    rows = finding_rows(pcap)
    leads = [r for r in rows if r["tcpdiag.diag.findings"]]
    warnings = expert_rows(pcap, FINDING_WARNINGS)
    fixes = expert_rows(pcap, "tcpdiag.diag.advice")
    assert len(leads) == len(findings)
    assert sorted(r["tcp.stream"] for r in rows) == sorted(slow)
    assert [r["frame.number"] for r in leads] == [r["frame.number"] for r in warnings] == \
        [r["frame.number"] for r in fixes]
    assert all(r["frame.number"] == r["tcpdiag.diag.frame"] for r in rows)
    by_rank = {}
    for r in rows:
        by_rank.setdefault(int(r["tcpdiag.diag.finding"]), []).append(r["tcp.stream"])
    assert sorted(by_rank) == list(range(1, len(findings) + 1))
    for lead in leads:
        streams = by_rank[int(lead["tcpdiag.diag.finding"])]
        assert int(lead["tcpdiag.diag.findings"]) == len(findings)
        assert int(lead["tcpdiag.diag.finding_flows"]) == len(streams)
        assert len({causes[s] for s in streams}) == 1, streams
        assert lead["tcpdiag.diag.finding_role"] in ("client", "server", "host")


def test_finding_fields_name_whose_fix_it_is():
    """The window-collapse flow of lab-ecn-1-of-n is its client's finding (its ECN
    setting is the knob); the finding's fields on its evidence packet say so."""
    expect = expected_flows(ONE_OF_N)[ECN_FLOW_OF_N]
    [lead] = [r for r in finding_rows(ONE_OF_N) if r["tcpdiag.diag.findings"]]
    assert lead["tcp.stream"] == ECN_FLOW_OF_N
    assert (lead["tcpdiag.diag.finding"], lead["tcpdiag.diag.findings"]) == ("1", "1")
    assert (lead["tcpdiag.diag.finding_who"], lead["tcpdiag.diag.finding_role"]) == \
        (expect["tcpdiag.flow.client"], "client")
    assert lead["tcpdiag.diag.finding_flows"] == "1"
    assert float(lead["tcpdiag.diag.finding_lost"]) > 0


def test_host_stall_is_one_warning():
    """A 6-flow host stall is one Warning, titled by its cause when grouped, not 7
    Warnings and 6 identical fixes (issue 21); the stall itself stays a Note. Its
    finding is about the stalled host, as the expected file names it, and holds the
    six flows."""
    out = run(["-r", STALL_CLIENT, "-2", "-q", "-z", "expert,warn"]).stdout
    warns = out.split("Warns")[1]
    assert len(re.findall(r"tcpdiag", warns)) == 1
    stalled = {expect["tcpdiag.host.stall"] for expect in expected_flows(STALL_CLIENT).values()}
    [lead] = [r for r in finding_rows(STALL_CLIENT) if r["tcpdiag.diag.findings"]]
    assert (lead["tcpdiag.diag.finding"], lead["tcpdiag.diag.findings"]) == ("1", "1")
    assert ({lead["tcpdiag.diag.finding_who"]}, lead["tcpdiag.diag.finding_role"]) == (stalled, "host")
    assert int(lead["tcpdiag.diag.finding_flows"]) == len(expected_flows(STALL_CLIENT))
    assert len(expert_rows(STALL_CLIENT, "tcpdiag.diag.advice")) == 1
    assert len(expert_rows(STALL_CLIENT, "tcpdiag.host.stalled")) == 1
    assert expert_rows(STALL_CONTROL, "tcpdiag.host.stalled") == []


def test_a_flow_without_options_is_one_warning():
    """The option-less flows' finding is the one Warning; what the missing option did
    to each flow is a Note beside its answer (issue 21)."""
    out = run(["-r", CAPTURES / "lab-opts-client-mixed.pcap", "-2", "-q", "-z", "expert,warn"]).stdout
    assert len(re.findall(r"tcpdiag", out.split("Warns")[1])) == 1


def test_expert_items_are_titled_by_cause():
    """Expert Information's grouped view titles each group by the item's registered
    summary: per cause one item for findings and one for their other flows, named by
    the cause, and a capture-wide one (tshark 4.0 has no -G expert: the expert items
    are listed among the fields)."""
    titles = {row.split("\t")[2]: row.split("\t")[1] for row in run(["-G", "fields"]).stdout.splitlines()
              if row.startswith("F\ttcpdiag") or "\ttcpdiag." in row}
    for cause in FINDINGS:
        key = cause.replace("-", "_")
        words = cause.replace("-", " ").replace("ecn ", "ECN ")
        assert titles["tcpdiag.finding." + key] == "Slow flow: " + words
        assert titles["tcpdiag.finding." + key + ".flow"] == f"Slow flow: {words} (another flow of the finding)"
    assert titles["tcpdiag.capture"] == "tcpdiag: capture diagnosis"
    assert "tcpdiag.diag.slow" not in titles


CAPTURE_FIELDS = ["frame.number", "tcpdiag.capture.headline", "tcpdiag.capture.flows", "tcpdiag.capture.slow",
                  "tcpdiag.capture.app_limited", "tcpdiag.capture.healthy", "tcpdiag.capture.undiagnosed"]


@pytest.mark.parametrize("pcap", [ONE_OF_N, STALL_CONTROL, CAPTURES / "lab-midflow.pcap",
                                  CAPTURES / "lab-opts-client-mixed.pcap"],
                         ids=lambda p: p.name)
def test_capture_headline_once(pcap):
    """The capture's headline, once, on the first packet: the Chat for people, the
    fields for the Lua window; the counts are the expected files' causes."""
    assert [r["frame.number"] for r in expert_rows(pcap, "tcpdiag.capture")] == ["1"]
    [row] = fields(pcap, CAPTURE_FIELDS, extra=["-Y", "tcpdiag.capture.flows"])
    causes = list(expected_causes(pcap).values())
    assert row["frame.number"] == "1"
    assert int(row["tcpdiag.capture.flows"]) == len(causes)
    assert int(row["tcpdiag.capture.slow"]) == len([c for c in causes if c in FINDINGS - {"app-limited"}])
    assert int(row["tcpdiag.capture.app_limited"]) == causes.count("app-limited")
    assert int(row["tcpdiag.capture.healthy"]) == causes.count("none")
    assert int(row["tcpdiag.capture.undiagnosed"]) == causes.count("unknown")
    assert report(pcap).splitlines()[2] == "tcpdiag: " + row["tcpdiag.capture.headline"]
    chat = run(["-r", pcap, "-2", "-q", "-z", "expert,chat"]).stdout
    assert row["tcpdiag.capture.headline"] in chat


@pytest.mark.parametrize("pcap", [CAPTURES / "lab-cc-bbr-ecn-step-server.pcap",
                                  CAPTURES / "lab-cc-bbr-ecn-random-server.pcap",
                                  CAPTURES / "lab-cc-cubic-ecn-collapse-server.pcap"],
                         ids=lambda p: p.name)
def test_no_reduction_note_without_a_cut(pcap):
    """A response Note only where the flight fell below 0.9 of what it was: BBR's CWRs
    (its cwnd never moved, TCP_INFO) and responses at a collapsed 2-segment floor
    cut nothing, and a "cut" that grew the flight is no cut."""
    rows = fields(pcap, ["tcpdiag.cc.ratio"], extra=["-Y", "tcpdiag.cc.reduction"])
    assert all(float(r["tcpdiag.cc.ratio"]) < 0.9 for r in rows)
    responses = fields(pcap, ["tcpdiag.cc.ratio"], extra=["-Y", "tcpdiag.cc.ratio >= 0.9"])
    assert responses, "the capture has responses that cut nothing, which must stay silent"


@pytest.mark.parametrize("pcap", PCAPS, ids=[p.name for p in PCAPS])
def test_every_answer_is_well_formed(pcap):
    """On every flow: a cause from the vocabulary, a summary Wireshark shows whole
    (at most 200 characters), a fix and a way to confirm it exactly for slow flows,
    and a reason whenever the answer is unknown."""
    names = ["tcp.stream", "tcpdiag.diag.cause", "tcpdiag.diag.summary", "tcpdiag.diag.fix",
             "tcpdiag.diag.confirm", "tcpdiag.diag.reason"]
    flows = {r["tcp.stream"]: r for r in fields(pcap, names) if r["tcpdiag.diag.cause"]}
    assert flows
    for stream, r in flows.items():
        cause = r["tcpdiag.diag.cause"]
        assert cause in CAUSES, (stream, cause)
        assert 0 < len(r["tcpdiag.diag.summary"]) <= 200, (stream, r["tcpdiag.diag.summary"])
        assert bool(r["tcpdiag.diag.fix"]) == bool(r["tcpdiag.diag.confirm"]) == (cause in FINDINGS), (stream, r)
        if cause == "unknown":
            assert r["tcpdiag.diag.reason"], stream


@pytest.mark.parametrize("pcap", PCAPS, ids=[p.name for p in PCAPS])
def test_one_answer(pcap):
    """The engine never contradicts itself (issue 19): no flow that a host rule calls
    slower (the tcpdiag.host.ecn_slower Note: its client's ECN flows are slower than
    its other flows) reads healthy."""
    rows = fields(pcap, ["tcp.stream", "tcpdiag.host.ecn_slower", "tcpdiag.diag.cause"])
    called_slower = {r["tcp.stream"] for r in rows if r["tcpdiag.host.ecn_slower"]}
    healthy = {r["tcp.stream"] for r in rows if r["tcpdiag.diag.cause"] == "none"}
    assert not called_slower & healthy, f"streams a host rule calls slower read healthy: {sorted(called_slower & healthy)}"
