"""The fleet path (docs/fleet.md): every bundled capture through `tcpdiag -j 2
--format json` into one NDJSON table, the example DuckDB queries of docs/fleet/
run over it, and their answers checked against how the captures were made: the
expectations each capture's .expected.json derives from the lab configuration
and the crafted generator (captures/README.md). Also: the ek bulk output is
index/document line pairs."""
import json
import duckdb
import pytest

import command
from tshark import CAPTURES, ROOT

QUERIES = ROOT / "docs" / "fleet"
NEGOTIATED = {"classic", "accecn", "accecn-classic"}
PCAPS = sorted(CAPTURES.glob("*.pcap"))


@pytest.fixture(scope="module")
def fleet(tmp_path_factory):
    """A DuckDB connection whose view `flows` (docs/fleet/flows.sql) reads the
    NDJSON of all bundled captures, and those records."""
    folder = tmp_path_factory.mktemp("fleet")
    out = command.run(["-j", 2, "--format", "json"] + PCAPS).stdout
    (folder / "tcpdiag-bundled.ndjson").write_text(out)
    con = duckdb.connect()
    con.execute(f"SET file_search_path = '{folder}'")
    con.execute((QUERIES / "flows.sql").read_text())
    return con, [r for r in map(json.loads, out.splitlines()) if r["record"] == "flow"]


def query(con, name):
    cur = con.execute((QUERIES / f"{name}.sql").read_text())
    columns = [d[0] for d in cur.description]
    return [dict(zip(columns, row)) for row in cur.fetchall()]


def expected_flows():
    """(capture path as the command names it, expectations) of every flow the
    expected-results files describe."""
    for pcap in PCAPS:
        spec = json.loads(pcap.with_name(pcap.stem + ".expected.json").read_text())
        for flow in spec.get("flows", []):
            yield str(pcap), flow["expect"]


def definite(expect, name):
    """An expected value that is one value (not a list of acceptable ones), else None."""
    value = expect.get(name)
    return value if isinstance(value, str) else None


def test_every_capture_is_in_the_table(fleet):
    con, records = fleet
    files = {row[0] for row in con.execute("SELECT DISTINCT file FROM flows").fetchall()}
    assert files == {str(p) for p in PCAPS if any(r["file"] == str(p) for r in records)}
    assert con.execute("SELECT count(*) FROM flows").fetchone()[0] == len(records)


def test_servers_whose_ecn_flows_react_loss_like(fleet):
    con, _ = fleet
    found = {(r["file"], r["server"]) for r in query(con, "ecn-loss-like-servers")}
    must, must_not = set(), set()
    for capture, expect in expected_flows():
        reaction = definite(expect, "tcpdiag.cc.reaction")
        if definite(expect, "tcpdiag.ecn.outcome") not in NEGOTIATED or reaction is None:
            continue
        key = (capture, expect["tcpdiag.flow.server"])
        (must if reaction == "loss-like" else must_not).add(key)
    must_not -= must
    assert must, "the bundled CUBIC and Reno ECN captures react loss-like"
    assert must <= found
    assert not (must_not & found), "BBR and DCTCP-like senders are not loss-like"


def test_hosts_with_stalls(fleet):
    con, _ = fleet
    rows = query(con, "hosts-with-stalls")
    found = {(r["file"], r["host"]): r for r in rows}
    expected = {}
    described = set()
    for capture, expect in expected_flows():
        described.add(capture)
        host = definite(expect, "tcpdiag.host.stall")
        if host:
            expected[(capture, host)] = expected.get((capture, host), 0) + 1
    # the stall lab drops the server's output for 4 s under 6 concurrent downloads
    assert {k for k in found if k[0] in described} == set(expected)
    for key, flows in expected.items():
        assert found[key]["flows_waited"] == flows
        assert found[key]["longest_stall_s"] >= 4.0


def test_flows_capped_by_offload_per_sender(fleet):
    con, _ = fleet
    found = {(r["file"], r["sender"]): r for r in query(con, "offload-capped-per-sender")}
    capped, uncapped = {}, set()
    for capture, expect in expected_flows():
        verdict = definite(expect, "tcpdiag.offload.verdict")
        if verdict is None or definite(expect, "tcpdiag.flow.data_sender") not in ("server", "client"):
            continue
        sender = expect["tcpdiag.flow." + expect["tcpdiag.flow.data_sender"]]
        if verdict in ("capped", "mss-capped"):
            capped[(capture, sender)] = capped.get((capture, sender), 0) + 1
        else:
            uncapped.add((capture, sender))
    assert capped, "the offload-off lab and the crafted capped sender are capped"
    for key, flows in capped.items():
        assert key in found and found[key]["capped_flows"] >= flows
    for key in uncapped - set(capped):
        assert key not in found


def test_ek_bulk_lines_are_index_document_pairs():
    """Index and document lines in pairs; the flows' documents in the NDJSON's order,
    the exchanges' marked "record": "exchange" (the NDJSON has as many)."""
    pcaps = [CAPTURES / "lab-ecn-1-of-n.pcap", CAPTURES / "lab-ipv6.pcap"]
    ndjson = command.records(*pcaps)
    flows = [r for r in ndjson if r["record"] == "flow"]
    lines = command.run(["--format", "ek"] + pcaps).stdout.splitlines()
    assert len(lines) == 2 * sum(r["record"] in ("flow", "exchange") for r in ndjson)
    docs = []
    for i in range(0, len(lines), 2):
        index, doc = json.loads(lines[i]), json.loads(lines[i + 1])
        assert set(index) == {"index"} and index["index"]["_index"].startswith("tcpdiag-")
        assert all("." not in key for key in doc["layers"]["tcpdiag"])
        docs.append(doc)
    assert sum(d.get("record") == "exchange" for d in docs) == sum(r["record"] == "exchange" for r in ndjson) > 0
    for flow, doc in zip(flows, (d for d in docs if "record" not in d), strict=True):
        assert doc["file"] == flow["file"] and doc["tcp_stream"] == flow["tcp.stream"]
        assert doc["layers"]["tcpdiag"]["tcpdiag_tcpdiag_diag_cause"] == flow["tcpdiag.diag.cause"]
        assert int(doc["timestamp"]) > 0


def test_every_query_runs_where_no_flow_carries_its_columns(tmp_path):
    """The column map in flows.sql: lab-midflow.pcap starts mid-flow (roles unknown,
    so no c2s or s2c, captures/README.md) and no host stalls there, so the table it
    makes lacks every column the shipped queries name; each query still runs, and
    finds nothing, as the capture's expectations say."""
    (tmp_path / "tcpdiag-midflow.ndjson").write_text(
        command.run(["--format", "json", CAPTURES / "lab-midflow.pcap"]).stdout)
    con = duckdb.connect()
    con.execute(f"SET file_search_path = '{tmp_path}'")
    raw = {d[0] for d in con.execute("SELECT * FROM read_json_auto('tcpdiag-*.ndjson')").description}
    assert not raw & {"c2s", "s2c", "tcpdiag.host.stall"}
    con.execute((QUERIES / "flows.sql").read_text())
    for sql in sorted(QUERIES.glob("*.sql")):
        if sql.name != "flows.sql":
            assert query(con, sql.stem) == [], sql.name
    assert con.execute("SELECT count(*) FROM flows").fetchone()[0] == 1


def test_one_status_row_per_file(fleet):
    """The files view: one row per capture, read whole, with its frames; every flow
    of the table belongs to a file listed there."""
    con, records = fleet
    rows = con.execute('SELECT file, "file.status", "file.frames", "file.flows", "file.error" FROM files').fetchall()
    assert sorted(r[0] for r in rows) == sorted(str(p) for p in PCAPS)
    assert {r[1] for r in rows} == {"read"} and {r[4] for r in rows} == {None}
    assert all(r[2] > 0 for r in rows)
    assert sum(r[3] for r in rows) == len(records)


EXCHANGE_SCHEMA = {
    "file": "VARCHAR", "tcp.stream": "BIGINT", "tcpdiag.flow.community_id": "VARCHAR",
    "tcpdiag.exchange.index": "BIGINT", "tcpdiag.exchange.frame": "BIGINT", "tcpdiag.exchange.bytes_c2s": "BIGINT",
    "tcpdiag.exchange.bytes_s2c": "BIGINT", "tcpdiag.exchange.active": "DOUBLE",
    "tcpdiag.exchange.client_time": "DOUBLE", "tcpdiag.exchange.server_time": "DOUBLE",
    "tcpdiag.exchange.transfer": "DOUBLE", "tcpdiag.exchange.stall": "DOUBLE", "tcpdiag.exchange.think": "DOUBLE",
}


def test_the_exchanges_table(fleet):
    """The exchanges view: its columns and types whatever the data, one row per
    exchange record, each joined to its flow; the flows view holds no exchange column."""
    con, records = fleet
    schema = {row[0]: row[1] for row in con.execute("DESCRIBE exchanges").fetchall()}
    assert schema == EXCHANGE_SCHEMA
    assert not [c for c in (d[0] for d in con.execute("SELECT * FROM flows").description)
                if c.startswith("tcpdiag.exchange.")]
    count = con.execute("SELECT count(*) FROM exchanges").fetchone()[0]
    joined = con.execute('SELECT count(*) FROM exchanges e JOIN flows f ON f.file = e.file '
                         'AND f."tcp.stream" = e."tcp.stream" AND f."tcpdiag.flow.community_id" = '
                         'e."tcpdiag.flow.community_id"').fetchone()[0]
    assert count > 0 and joined == count


def test_slow_requests(tmp_path):
    """slow-requests.sql on tb-server-delay (the server sleeps 1 s before each reply:
    its log's config) and its prompt control: each request of the first, none of the
    second."""
    lab = ROOT / "captures" / "lab"
    pcaps = [lab / "next" / "lab-tb-server-delay-router.pcap", lab / "next" / "lab-tb-server-prompt-router.pcap"]
    (tmp_path / "tcpdiag-lab.ndjson").write_text(command.run(["--format", "json"] + pcaps).stdout)
    con = duckdb.connect()
    con.execute(f"SET file_search_path = '{tmp_path}'")
    con.execute((QUERIES / "flows.sql").read_text())
    config = json.loads((lab / "logs" / "tb-server-delay.json").read_text())["config"]
    rows = query(con, "slow-requests")
    assert len(rows) == config["clients"] * config["requests"]
    assert {r["file"] for r in rows} == {str(pcaps[0])}
    assert all(r["server_time"] >= config["think"] - 0.010 and r["cause"] == "server-delay" for r in rows)
