"""The Tools > TCP diagnosis window (lua/tcpdiag_window.lua) run under tshark, with
Wireshark's GUI calls stubbed (lua_window_stubs.lua): what it lists and what its
buttons do, against the captures' expected files and the -z tcpdiag,diagnosis report
it follows. The window reads the answer packets' fields, so this checks that those
fields tell it everything. test/gui/smoke drives it in the real GUI on one capture."""
import json
import os
import pathlib
import re
import shutil
import tempfile

import pytest

from test_diagnosis import FINDINGS, expected_causes, report
from tshark import CAPTURES, ROOT, fields, run

WINDOW = ROOT / "lua" / "tcpdiag_window.lua"
STUBS = pathlib.Path(__file__).with_name("lua_window_stubs.lua")
FINDING = re.compile(r"^([> ]) (\d+)\. ([a-z-]+): (\S+) \((client|server|host)\), (\d+) flows?"
                     r"(?:, (.+?) lost(?: over (\S+ m?s))?)?\n"
                     r"     (.+)\n"
                     r"     Flows: (.+); evidence at frame (\d+)\n"
                     r"     Fix: (.+)\n"
                     r"(?:     Slowest exchanges of stream (\d+) \(of (\d+)\): (.+)\n)?", re.M)
SLOW_EXCHANGE = re.compile(r"#(\d+) at frame (\d+) \((\S+ m?s), server (\S+ m?s)\)")


def window(pcap):
    """(the texts the window showed, the button actions after it first showed a
    diagnosis). Both scripts are staged where tshark's unprivileged user reads them."""
    stage = tempfile.mkdtemp(prefix="tcpdiag-lua-")
    try:
        os.chmod(stage, 0o755)
        for script in (WINDOW, STUBS):
            shutil.copy(script, stage)
            os.chmod(os.path.join(stage, script.name), 0o644)
        out = run(["-r", pcap, "-2", "-q", "-X", f"lua_script:{stage}/{STUBS.name}",
                   "-X", f"lua_script1:{stage}/{WINDOW.name}"]).stdout
    finally:
        shutil.rmtree(stage)
    shown = re.findall(r"^---- window\n(.*?)^---- end\n", out, re.M | re.S)
    diagnosed = out.find("---- window\ntcpdiag: ")
    after = re.sub(r"^---- window\n.*?^---- end\n", "", out[out.find("---- end\n", diagnosed):], flags=re.M | re.S)
    actions = [tuple(line.split(": ", 1)) for line in after.splitlines()[1:] if line != "apply_filter"]
    return shown, actions


def seconds(label):
    """A duration as the tree labels it ("1.42 s", "718 ms", "0.421 ms"), in seconds; 0
    for none."""
    if not label:
        return 0
    value, unit = label.split(" ")
    return float(value) / (1000 if unit == "ms" else 1)


@pytest.mark.parametrize("pcap", ["lab-ecn-1-of-n.pcap", "lab-host-stall-client.pcap", "crafted-flight.pcap",
                                  "lab-opts-client-mixed.pcap", "lab-host-stall-control-server.pcap"])
def test_window_lists_the_reports_findings(pcap):
    """Headline, then per finding of the report, in its order: the cause its flows are
    expected to have, whose fix it is, its flows (together the flows the expected
    file calls slow, or held back by their application), the evidence frame and fix
    of its flow that lost most; its buttons filter on those flows, go to that frame
    and copy that fix."""
    pcap = CAPTURES / pcap
    shown, actions = window(pcap)
    causes = expected_causes(pcap)
    text = report(pcap)
    listing = next(s for s in shown if s.startswith("tcpdiag: "))
    assert shown[0].startswith("No tcpdiag diagnosis for this capture yet.")
    assert listing.splitlines()[0] == text.splitlines()[2]
    findings = FINDING.findall(listing)
    assert len(findings) == len(re.findall(r"^\d+\. ", text, re.M))
    leads = {r["tcpdiag.diag.finding"]: r for r in fields(
        pcap, ["tcpdiag.diag.finding", "frame.number", "tcpdiag.diag.fix", "tcpdiag.diag.finding_lost",
               "tcpdiag.diag.finding_span"],
        extra=["-Y", "tcpdiag.diag.findings"])}
    listed = []
    pressed = iter(actions)
    for rank, (mark, number, cause, _, _, count, lost, span, summary, flows, frame, fix, _, _, slowest) in \
            enumerate(findings, 1):
        streams = re.findall(r"tcp\.stream == (\d+)", flows)
        assert (mark, number) == (">" if rank == 1 else " ", str(rank))
        assert {causes[s] for s in streams} == {cause}
        assert int(count) == len(streams) and summary
        assert (frame, fix) == (leads[str(rank)]["frame.number"], leads[str(rank)]["tcpdiag.diag.fix"])
        assert seconds(lost) == pytest.approx(float(leads[str(rank)]["tcpdiag.diag.finding_lost"] or 0), abs=0.005)
        assert seconds(span) == pytest.approx(float(leads[str(rank)]["tcpdiag.diag.finding_span"] or 0), abs=0.005)
        listed += streams
        # Go to slowest exchange, pressed twice: the slowest, then the next (none without any)
        goes = [("goto_frame", f) for _, f, _, _ in SLOW_EXCHANGE.findall(slowest)[:2]]
        assert [next(pressed) for _ in range(3 + len(goes))] == \
            [("set_filter", flows), ("goto_frame", frame)] + goes + [("copy_to_clipboard", fix)]
    assert sorted(listed) == sorted(s for s, cause in causes.items() if cause in FINDINGS)
    if not [s for s, cause in causes.items() if cause in FINDINGS - {"app-limited"}]:
        assert listing.endswith(f"No slow flow ({listing.splitlines()[0][len('tcpdiag: '):]}).\n")


@pytest.mark.parametrize("pcap", ["lab-cc-bbr-step-2-of-10-client.pcap", "lab-no-ecn.pcap"])
def test_window_of_a_healthy_capture(pcap):
    """No finding: the headline and one line that says every flow is healthy."""
    pcap = CAPTURES / pcap
    shown, actions = window(pcap)
    flows = json.loads(pcap.with_name(pcap.stem + ".expected.json").read_text())["flow_count"]
    causes = expected_causes(pcap)
    assert set(causes.values()) == {"none"} and len(causes) == flows
    plural = "" if flows == 1 else "s"
    assert shown[-1] == f"{report(pcap).splitlines()[2]}\n\n{flows} flow{plural}, all healthy.\n"
    assert actions == []


def test_window_lists_the_slowest_exchanges():
    """lab-tb-server-delay-client: the server sleeps 1 s before each of its 3 replies on
    each connection (its log's config). The finding's flow that lost most lists its
    exchanges, the slowest first, each with a server time of the sleep; they are that
    stream's exchanges (tcpdiag.exchange.frame), and the button goes to them in turn."""
    pcap = CAPTURES / "lab" / "next" / "lab-tb-server-delay-client.pcap"
    config = json.loads((CAPTURES / "lab" / "logs" / "tb-server-delay.json").read_text())["config"]
    shown, actions = window(pcap)
    listing = next(s for s in shown if s.startswith("tcpdiag: "))
    finding = FINDING.search(listing)
    stream, seen, slowest = finding.group(13), finding.group(14), finding.group(15)
    assert int(seen) == config["requests"]
    listed = SLOW_EXCHANGE.findall(slowest)
    assert len(listed) == min(3, config["requests"])
    assert all(seconds(server) >= config["think"] - 0.010 for _, _, _, server in listed)
    actives = [seconds(active) for _, _, active, _ in listed]
    assert actives == sorted(actives, reverse=True)
    frames = {r["frame.number"] for r in fields(pcap, ["frame.number"],
                                                 extra=["-Y", f"tcp.stream == {stream} && tcpdiag.exchange.index"])}
    assert {f for _, f, _, _ in listed} <= frames
    assert ("goto_frame", listed[0][1]) in actions and ("goto_frame", listed[1][1]) in actions
