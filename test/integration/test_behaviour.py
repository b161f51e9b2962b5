"""How findings are presented: single pass vs two passes, where expert info lands,
the -z reports, the shipped colouring rules. The facts asserted come from how
the lab made each capture (captures/lab/README.md)."""
import re
import subprocess

from tshark import CAPTURES, ROOT, fields, run

CUBIC_CLIENT = CAPTURES / "lab-ecn-ce-cubic-client.pcap"
ONE_OF_N = CAPTURES / "lab-ecn-1-of-n.pcap"
ECN_FLOW_OF_N = "6"     # tcp.stream of the 7th connection, the only one with tcp_ecn=1


def flags(row):
    return int(row["tcp.flags"], 16)


def is_syn(row):
    return flags(row) & 0x12 == 0x02


def is_synack(row):
    return flags(row) & 0x12 == 0x12


def test_single_pass_shows_only_what_is_final():
    names = ["frame.number", "tcp.flags", "tcpdiag.ecn.outcome", "tcpdiag.ecn.s2c.ect0",
             "tcpdiag.flow.duration", "tcpdiag.flow.client"]
    rows = fields(CUBIC_CLIENT, names, two_pass=False)
    handshake = [r for r in rows if is_syn(r) or is_synack(r)]
    later = rows[len(handshake):]
    # an ECN request is settled only when the client answers the SYN-ACK
    assert handshake and all(r["tcpdiag.ecn.outcome"] == "" for r in handshake)
    assert all(r["tcpdiag.ecn.outcome"] == "classic" for r in later)
    # roles are final from the SYN on
    assert all(r["tcpdiag.flow.client"] == "10.77.1.2" for r in rows)
    # whole-flow counts and durations need the whole capture
    assert all(r["tcpdiag.ecn.s2c.ect0"] == "" and r["tcpdiag.flow.duration"] == "" for r in rows)


def test_two_pass_fills_every_packet():
    rows = fields(CUBIC_CLIENT, ["tcpdiag.ecn.outcome", "tcpdiag.ecn.s2c.ect0"])
    assert all(r["tcpdiag.ecn.outcome"] == "classic" for r in rows)
    assert len({r["tcpdiag.ecn.s2c.ect0"] for r in rows}) == 1


def expert_frames(pcap, expert):
    rows = fields(pcap, ["frame.number", "tcp.stream", "tcp.flags", "tcp.len"],
                  extra=["-Y", expert])
    return rows


def test_outcome_expert_on_the_settling_packet():
    rows = fields(ONE_OF_N, ["frame.number", "tcp.stream", "tcp.flags",
                             "tcpdiag.ecn.negotiated", "tcpdiag.ecn.not_negotiated"])
    negotiated = [r for r in rows if r["tcpdiag.ecn.negotiated"]]
    not_negotiated = [r for r in rows if r["tcpdiag.ecn.not_negotiated"]]
    # one classic flow, settled by the client's ACK of the SYN-ACK
    assert [r["tcp.stream"] for r in negotiated] == [ECN_FLOW_OF_N]
    first_ack = next(r for r in rows if r["tcp.stream"] == ECN_FLOW_OF_N
                     and not is_syn(r) and not is_synack(r))
    assert negotiated[0]["frame.number"] == first_ack["frame.number"]
    # 19 plain SYNs, each settled by the SYN itself
    assert len(not_negotiated) == 19 and all(is_syn(r) for r in not_negotiated)


def test_fallback_expert_on_the_retried_syn():
    rows = expert_frames(CAPTURES / "lab-ecn-blackhole.pcap", "tcpdiag.ecn.syn_fallback")
    assert len(rows) == 1
    assert is_syn(rows[0]) and flags(rows[0]) & 0xC0 == 0     # SYN without ECE/CWR


def test_unmarked_expert_on_first_bleached_data_segment():
    rows = fields(CAPTURES / "lab-ecn-bleached.pcap",
                  ["frame.number", "tcpdiag.dir", "tcp.len", "tcpdiag.ecn.data_unmarked"])
    marked = [r for r in rows if r["tcpdiag.ecn.data_unmarked"]]
    first_s2c_data = next(r for r in rows if r["tcpdiag.dir"] == "s2c" and int(r["tcp.len"]) > 0)
    assert [r["frame.number"] for r in marked] == [first_s2c_data["frame.number"]]


def test_expert_groups_and_severities():
    out = run(["-r", CAPTURES / "lab-ecn-blackhole.pcap", "-2", "-q", "-z", "expert"]).stdout
    warns = out.split("Warns")[1].split("Notes")[0]
    assert re.search(r"Sequence\s+tcpdiag\s+ECN-setup SYN was retried", warns)
    out = run(["-r", CUBIC_CLIENT, "-2", "-q", "-z", "expert"]).stdout
    notes = out.split("Notes")[1].split("Chats")[0]
    assert re.search(r"Protocol\s+tcpdiag\s+ECN negotiated: classic", notes)
    assert "Errors" not in out


def test_host_warning_on_the_slow_ecn_flow_only():
    rows = fields(ONE_OF_N, ["tcp.stream", "tcpdiag.host.ecn_slower"])
    warned = {r["tcp.stream"] for r in rows if r["tcpdiag.host.ecn_slower"]}
    assert warned == {ECN_FLOW_OF_N}


def test_flows_report_lists_every_flow():
    out = run(["-r", ONE_OF_N, "-2", "-q", "-z", "tcpdiag,flows"]).stdout
    lines = [line for line in out.splitlines() if re.match(r"^\d+\s", line)]
    assert len(lines) == 20
    outcomes = {line.split()[0]: line.split()[-7] for line in lines}
    # every lab connection had a full Linux handshake: nothing missing
    assert all(line.split()[-6] == "none" for line in lines)
    # 150 kB downloads through an unloaded path: a few slow-start round trips,
    # too short for a plateau, never held by the sender
    assert all(line.split()[-5] in ("cwnd", "unknown") for line in lines)
    assert all(line.split()[-4] == "-" for line in lines)
    # captured at the client: a receiver's side cannot tell whether the sender offloaded
    assert all(line.split()[-2] == "unknown" for line in lines)
    # the cause column: the ECN flow's window collapsed under p=0.25 marking, the
    # 19 others met no marks and no loss (lab-ecn-1-of-n.expected.json says why)
    causes = {line.split()[0]: line.split()[-1] for line in lines}
    assert causes.pop(ECN_FLOW_OF_N) == "window-collapse"
    assert set(causes.values()) == {"none"}
    # no loss anywhere; only the ECN flow's data met the router's CE marker
    reactions = {line.split()[0]: line.split()[-3] for line in lines}
    assert reactions.pop(ECN_FLOW_OF_N) != "no-signal"
    assert set(reactions.values()) == {"no-signal"}
    assert outcomes[ECN_FLOW_OF_N] == "classic"
    assert sum(v == "not-requested" for v in outcomes.values()) == 19
    assert all("10.77.1.2:" in line and "-> 10.77.2.2:5001" in line for line in lines)


def test_hosts_report_is_drawn_from_the_whole_capture_in_one_pass_too():
    # tshark draws reports after its last pass, when every packet has been read
    single = run(["-r", ONE_OF_N, "-q", "-z", "tcpdiag,hosts"]).stdout
    double = run(["-r", ONE_OF_N, "-2", "-q", "-z", "tcpdiag,hosts"]).stdout
    assert single == double
    row = next(line for line in double.splitlines() if line.startswith("10.77.1.2"))
    # the lab made 20 connections from this client, one of them with ECN
    assert row.split()[1:4] == ["20", "1", "1"]
    assert "ECN flows slower" in row


def test_capture_position_preference_overrides_inference():
    rows = fields(CUBIC_CLIENT, ["tcpdiag.flow.vantage"],
                  extra=["-o", "tcpdiag.capture_position:near-server"])
    assert {r["tcpdiag.flow.vantage"] for r in rows} == {"near-server"}


def test_disabling_the_protocol_removes_its_fields():
    rows = fields(CUBIC_CLIENT, ["tcpdiag.ecn.outcome"], extra=["--disable-protocol", "tcpdiag"])
    assert all(r["tcpdiag.ecn.outcome"] == "" for r in rows)


def test_shipped_colouring_rules_compile():
    rules = (ROOT / "docs" / "colorfilters").read_text().splitlines()
    filters = [line.split("@")[2] for line in rules if line.startswith("@")]
    assert filters
    for flt in filters:
        run(["-r", CUBIC_CLIENT, "-2", "-Y", flt])


OPTS = CAPTURES / "crafted-opts.pcap"


def test_noopt_expert_on_the_option_less_syns_only():
    """crafted-opts: the SYNs of 40801 (IPv4) and 40802 (IPv6) carry no option at all."""
    rows = fields(OPTS, ["frame.number", "tcp.flags", "tcp.srcport", "tcp.hdr_len",
                         "tcpdiag.opts.noopt"])
    flagged = [r for r in rows if r["tcpdiag.opts.noopt"]]
    assert sorted(r["tcp.srcport"] for r in flagged) == ["40801", "40802"]
    assert all(is_syn(r) and r["tcp.hdr_len"] == "20" for r in flagged)


def test_ts_vanished_on_first_segment_without_timestamps():
    """40804: the server's data segments after the 10th carry no option."""
    rows = fields(OPTS, ["frame.number", "tcp.srcport", "tcp.len", "tcp.options.timestamp.tsval",
                         "tcpdiag.opts.ts_vanished"])
    server_data = [r for r in rows if r["tcp.srcport"] == "443" and int(r["tcp.len"] or 0) > 0]
    flow = [r for r in rows if r["tcpdiag.opts.ts_vanished"]]
    assert len(flow) == 1
    first_bare = next(r for r in rows if r["frame.number"] == flow[0]["frame.number"])
    assert first_bare["tcp.options.timestamp.tsval"] == ""
    assert server_data and any(r["tcp.options.timestamp.tsval"] for r in server_data)


def test_limiting_expert_where_the_unscaled_window_was_the_limit():
    """40803: the server dropped window scaling and the transfer ran at 65535 B per RTT."""
    rows = fields(OPTS, ["tcp.stream", "tcp.port", "tcpdiag.opts.limiting", "tcpdiag.opts.missing_info"])
    limiting = {r["tcp.port"] for r in rows if r["tcpdiag.opts.limiting"]}
    noted = {r["tcp.port"] for r in rows if r["tcpdiag.opts.missing_info"]}
    assert limiting == {"40803,443"} or limiting == {"443,40803"}
    assert {p for port in noted for p in port.split(",")} >= {"40801", "40802"}


FLIGHT = CAPTURES / "crafted-flight.pcap"
CUBIC_RANDOM = CAPTURES / "lab-cc-cubic-ecn-random-server.pcap"


def test_flight_and_congestion_need_the_whole_capture():
    names = ["tcpdiag.flight.limit", "tcpdiag.cc.reaction", "tcpdiag.offload.verdict", "tcpdiag.cc.event"]
    assert all(not any(r.values()) for r in fields(FLIGHT, names, two_pass=False))


def test_sender_limited_warning_where_each_plateau_starts():
    """crafted-flight: the illumos plateau starts at frame 130 (captured at the
    sender) and 1268 (at the receiver), as make-crafted.py built them."""
    rows = expert_frames(FLIGHT, "tcpdiag.flight.sender_limited")
    assert [r["frame.number"] for r in rows] == ["130", "1268"]


def test_one_collapse_warning_on_the_ecn_flow_only():
    rows = expert_frames(ONE_OF_N, "tcpdiag.cc.window_collapse")
    assert [r["tcp.stream"] for r in rows] == [ECN_FLOW_OF_N]


def test_congestion_notes_one_per_response_not_per_packet():
    """cc-cubic-ecn-random at the server: every note sits on a CWR segment, and
    the sender's CWR segments are as many as the kernel's reductions the lab
    listed, never one per ECE-marked ACK."""
    notes = expert_frames(CUBIC_RANDOM, "tcpdiag.cc.reduction")
    cwr = fields(CUBIC_RANDOM, ["frame.number"], extra=["-Y", "tcp.flags.cwr == 1"])
    ece = fields(CUBIC_RANDOM, ["frame.number"], extra=["-Y", "tcp.flags.ece == 1 && tcp.len == 0"])
    assert notes and {r["frame.number"] for r in notes} <= {r["frame.number"] for r in cwr}
    assert len(notes) < len(ece)


def test_midflow_sizes_profiled_with_an_inferred_mss():
    """lab-midflow: tcpdump started mid-transfer (no handshake). The segment sizes
    are still profiled, with the MSS inferred from the largest full segment
    (Linux, timestamps on: 1448), but no offload verdict is claimed."""
    rows = fields(CAPTURES / "lab-midflow.pcap", ["tcpdiag.offload.verdict", "tcpdiag.offload.mss",
                                                  "tcpdiag.offload.mss_source", "tcpdiag.offload.reason"])
    assert {(r["tcpdiag.offload.verdict"], r["tcpdiag.offload.mss"], r["tcpdiag.offload.mss_source"])
            for r in rows} == {("unknown", "1448", "inferred")}
    assert all("handshake" in r["tcpdiag.offload.reason"] for r in rows)


def test_directions_without_roles_are_named_by_address():
    """crafted-accuracy 41207 was captured mid-flow (no roles): each per-direction
    subtree names its direction by the addresses the generator wrote."""
    out = run(["-2", "-r", CAPTURES / "crafted-accuracy.pcap", "-Y", "tcp.port == 41207", "-V"]).stdout
    server_to_client = "198.51.100.80:443 \u2192 192.0.2.80:41207"
    for subtree in ("Flight", "Congestion", "Offload"):
        assert f"{subtree} {server_to_client}: " in out, subtree
    assert not re.search(r"(Flight|Congestion|Offload) : ", out)


def test_max_flows_keeps_every_flow_whose_syn_is_answered():
    # The lab's 20 connections each answered their SYN at once: with room for only
    # 5 flows, the other 15 wait as lone SYNs and are kept at their SYN-ACK, SYN
    # frame included, so every packet and every verdict is the same as without a limit.
    names = ["frame.number", "tcp.stream", "tcpdiag.ecn.outcome", "tcpdiag.diag.cause", "tcpdiag.opts.client"]
    unlimited = fields(ONE_OF_N, names)
    limited = fields(ONE_OF_N, names, extra=["-o", "tcpdiag.max_flows:5"])
    assert limited == unlimited
    assert all(row["tcpdiag.ecn.outcome"] for row in limited if row["tcp.stream"])
    report = run(["-r", ONE_OF_N, "-2", "-q", "-o", "tcpdiag.max_flows:5", "-z", "tcpdiag,diagnosis"]).stdout
    assert "diagnosis of 20 flows" in report and "Not kept" not in report


def test_max_flows_counts_unanswered_syns(tmp_path):
    # 100 SYNs from forged sources, none answered (test/bench/make-synflood): with
    # room for 10 flows, 10 are flows and the 90 others are counted in the reports.
    flood = tmp_path / "flood.pcap"
    subprocess.run([str(ROOT / "test" / "bench" / "make-synflood"), str(flood), "--flows", "100"],
                   check=True, stdout=subprocess.DEVNULL)
    flood.chmod(0o644)
    tmp_path.chmod(0o755)
    out = run(["-r", flood, "-2", "-q", "-o", "tcpdiag.max_flows:10", "-z", "tcpdiag,flows",
               "-z", "tcpdiag,diagnosis"]).stdout
    assert "diagnosis of 10 flows" in out
    assert out.count("Not kept: 90 flows that were one SYN each, beyond the max_flows preference (10 flows)") == 2
    rows = [line for line in out.splitlines() if re.match(r"^\d+\s", line)]
    assert [line.split()[0] for line in rows] == [str(i) for i in range(10)]
    unlimited = run(["-r", flood, "-2", "-q", "-z", "tcpdiag,diagnosis"]).stdout
    assert "diagnosis of 100 flows" in unlimited and "Not kept" not in unlimited
