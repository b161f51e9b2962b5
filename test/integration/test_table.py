"""Statistics > tcpdiag: the stat-tap tables (plugin/table-tcpdiag.c), through the
`-z` names tshark gives them. The GUI dialog fills the same tables from the same
tap (test/gui/smoke opens Wireshark itself); the expected rows come from how each
capture was made (its expected.json)."""
import json

from tshark import CAPTURES, run

MIXED = "lab-offload-ecn-mixed-server"
STALL = "lab-host-stall-client"
FLOW_COLUMNS = ["Rank by time lost", "Stream", "Client -> server", "Cause", "Time lost (s)", "Slowdown",
                "Evidence frame", "Duration (s)", "Packets", "ECN", "Limit", "Reaction", "Offload", "Fix", "Summary"]


def expectations(capture):
    spec = json.loads((CAPTURES / (capture + ".expected.json")).read_text())
    return spec, {str(f["select"]["tcp.stream"]): f["expect"] for f in spec["flows"]}


def table_rows(capture, table, two_pass=True):
    """The rows tshark prints for one table: a list of column lists."""
    args = ["-r", CAPTURES / (capture + ".pcap"), "-q", "-z", table] + (["-2"] if two_pass else [])
    lines = run(args).stdout.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith(("Rank by time lost |", "Host |")))
    rows = []
    for line in lines[header + 2:]:
        if line.startswith("====="):
            break
        rows.append([cell.strip() for cell in line.split(" |")[:-1]])
    return lines[header], rows


def flow_rows(capture, table="tcpdiag,table", two_pass=True):
    """The flow table's rows as dicts by column name."""
    header, rows = table_rows(capture, table, two_pass)
    names = header.split(" |")[:-1]
    return header, [dict(zip(names, row)) for row in rows]


def test_tables_are_registered_beside_the_reports():
    names = {line.strip() for line in run(["-z", "help"], check=False).stderr.splitlines()}
    assert {"tcpdiag,table", "tcpdiag,host-table", "tcpdiag,flows", "tcpdiag,diagnosis"} <= names


def test_flow_table_one_row_per_flow_with_its_cause():
    """Three downloads: tcp_ecn 0, 1, 0; only the ECN one is CE-marked and collapses."""
    spec, flows = expectations(MIXED)
    header, rows = flow_rows(MIXED)
    assert header.split(" |")[:-1] == FLOW_COLUMNS
    assert sorted(row["Stream"] for row in rows) == sorted(flows) and len(rows) == spec["flow_count"]
    for row in rows:
        expect = flows[row["Stream"]]
        assert row["Cause"] == expect["tcpdiag.diag.cause"]
        assert row["ECN"] == expect["tcpdiag.ecn.outcome"]
        client, server = expect["tcpdiag.flow.client"], expect["tcpdiag.flow.server"]
        assert row["Client -> server"] == f"{client}:{expect['tcpdiag.flow.client_port']} -> {server}:5001"
        assert int(row["Packets"]) > 0 and float(row["Duration (s)"]) > 0
        # A finding points at its evidence, and its summary is the diagnosis's own words.
        assert (row["Cause"] == "none") == row["Summary"].startswith("Healthy")


def test_flow_table_ranks_by_time_lost_with_cost_and_fix():
    """Issue 21: Slowdown, Time lost and Fix columns; the first column, which the
    dialog opens sorted on, ranks the flows by time lost (most first)."""
    _, rows = flow_rows(STALL)
    ranked = sorted(rows, key=lambda row: int(row["Rank by time lost"]))
    assert [int(row["Rank by time lost"]) for row in ranked] == list(range(1, len(rows) + 1))
    lost = [float(row["Time lost (s)"]) for row in ranked]
    assert lost == sorted(lost, reverse=True) and lost[0] > 7
    assert all(float(row["Slowdown"]) > 1 for row in rows)
    assert all(row["Fix"].startswith("Find what stopped the host's network stack") for row in rows)
    _, healthy = flow_rows(MIXED)
    assert {row["Fix"] for row in healthy if row["Cause"] == "none"} == {"-"}


def test_flow_table_agrees_with_the_flows_report():
    """The same verdicts as `-z tcpdiag,flows`, whose output the table leaves alone."""
    args = ["-r", CAPTURES / (MIXED + ".pcap"), "-2", "-q", "-z", "tcpdiag,flows"]
    alone = run(args).stdout
    together = run(args + ["-z", "tcpdiag,table"]).stdout
    assert alone in together
    report = {line.split()[0]: line.split() for line in alone.splitlines() if line[:1].isdigit()}
    _, rows = flow_rows(MIXED)
    for row in rows:
        assert report[row["Stream"]][-1] == row["Cause"]
        assert report[row["Stream"]][-3:-1] == [row["Reaction"], row["Offload"]]


def test_flow_table_is_empty_until_the_verdicts_are_final():
    """Single pass: no row shows a half-known cause (the GUI retaps a loaded file)."""
    _, rows = table_rows(MIXED, "tcpdiag,table", two_pass=False)
    assert rows == []


def test_flow_table_filter_keeps_the_flows_with_a_matching_frame():
    _, rows = flow_rows(MIXED, "tcpdiag,table,tcp.stream == 1")
    assert [row["Stream"] for row in rows] == ["1"]


def test_host_table_names_the_stalled_host():
    """The server's namespace dropped everything it sent for 4 s under 6 downloads."""
    _, flows = expectations(STALL)
    host = {f["tcpdiag.host.stall"] for f in flows.values()}
    _, rows = table_rows(STALL, "tcpdiag,host-table")
    stalls = [row for row in rows if row[2] == "host-stall"]
    assert len(stalls) == 1 and {stalls[0][0]} == host
    assert int(stalls[0][3]) == len(flows)


def test_host_table_has_no_stall_where_the_writers_paused_in_turn():
    _, rows = table_rows("lab-host-stall-control-client", "tcpdiag,host-table")
    assert all(row[2] != "host-stall" for row in rows)


def test_host_table_ecn_lottery_and_options_per_client():
    """Each client row carries what the generator did: its connections, ECN asked and
    negotiated, SYNs without options; a client whose ECN flows were measured slower
    (at least half the generator's own ratio) is an ecn-slower finding whose frame is
    the first packet of its ECN flow; otherwise a client with SYNs without options
    points at the first of them (lab-opts-client-mixed: connection 2, stream 1, whose
    SYN the configuration stripped of wscale, sack and ts)."""
    for capture in ["lab-ecn-1-of-n", "lab-offload-ecn-mixed-server", "lab-opts-client-mixed"]:
        spec, flows = expectations(capture)
        _, rows = table_rows(capture, "tcpdiag,host-table")
        for host in spec["hosts"]:
            expect = host["expect"]
            row = next(r for r in rows if r[0] == host["client"] and r[1] == "client")
            assert int(row[3]) == expect["tcpdiag.host.conns"]
            assert row[5].startswith(f"{expect['tcpdiag.host.ecn_requested']} of {expect['tcpdiag.host.conns']} "
                                     f"connections asked for ECN, {expect['tcpdiag.host.ecn_negotiated']} negotiated")
            missing = expect.get("tcpdiag.host.opts_missing_conns", 0)
            assert ("syns-without-options" in row[2]) == (missing > 0)
            assert f"; {missing} of " in row[5]
            slower = "tcpdiag.host.ecn_slowdown" in expect
            assert ("ecn-slower" in row[2]) == slower
            if slower:
                ecn_streams = {s for s, f in flows.items() if f["tcpdiag.ecn.outcome"] == "classic"}
                frame = run(["-r", CAPTURES / (capture + ".pcap"), "-Y", f"frame.number == {row[4]}",
                             "-T", "fields", "-e", "tcp.stream"]).stdout.split()
                assert frame and frame[0] in ecn_streams
            elif missing:
                without = min(int(s) for s, f in flows.items() if f.get("tcpdiag.opts.client") == "mss")
                frame = run(["-r", CAPTURES / (capture + ".pcap"), "-Y", f"frame.number == {row[4]}",
                             "-T", "fields", "-e", "tcp.stream", "-e", "tcp.flags.syn", "-e", "tcp.flags.ack",
                             "-e", "tcp.options.wscale.shift"]).stdout.split("\t")
                assert [f.strip() for f in frame] in (
                    [str(without), "1", "0", ""], [str(without), "True", "False", ""]), frame


def test_host_table_offload_per_sender():
    """The server's three flows: offloaded, capped (the ECN one), offloaded."""
    spec, _ = expectations(MIXED)
    sender = spec["senders"][0]
    expect = sender["expect"]
    _, rows = table_rows(MIXED, "tcpdiag,host-table")
    row = next(r for r in rows if r[0] == sender["sender"] and r[1] == "sender")
    assert row[2] == expect["tcpdiag.sender.offload"]
    assert int(row[3]) == expect["tcpdiag.sender.offloaded_flows"] + expect["tcpdiag.sender.capped_flows"]
    assert row[5].startswith(f"{expect['tcpdiag.sender.offloaded_flows']} flows offloaded, "
                             f"{expect['tcpdiag.sender.capped_flows']} not (in common: "
                             f"{expect['tcpdiag.sender.capped_common']})")
