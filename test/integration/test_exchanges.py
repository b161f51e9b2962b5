"""Exchange records (issue 37, item 3: "record": "exchange" in the command's json, csv
and ek) against the ground truth of their making, never tcpdiag's output.

- The lab's request/response flows (captures/lab/next, made by captures/lab/timebudget.py
  with rr.py): each exchange the client logged is one record, at every capture point,
  with the request's bytes (rr.py's 100 B: timebudget.py never sets --request), the reply's
  bytes the client read, the server's wait as the lab measured it (request complete at
  the server to the reply's first byte written), and the think time before the next
  request (the client's own wait before it). Tolerances as test_time_budget.py's, per
  exchange: 2 path round trips + 10 ms, the delay lines' holds on a shared machine.
- A crafted connection of many tiny exchanges, written here with known times: every
  exchange a record with its bytes and its server time, and the streamed command's
  memory flat whatever their number (hostile input must not grow it)."""
import csv
import decimal
import io
import json
import os
import struct

import pytest

import command
import tshark
from lab_next import NEXT
from lab_think import POINTS, THINK

REQUEST = 100       # rr.py's --request default; timebudget.py never passes another
LAB = sorted(NEXT.glob("lab-tb-*.expected.json"))


def exchange_records(pcap, options=()):
    out = command.run(["--format", "json", *options, pcap]).stdout
    return [r for r in map(json.loads, out.splitlines()) if r["record"] == "exchange"]


def lab_flows():
    for path in LAB:
        expected = json.loads(path.read_text())
        for flow in expected["flows"]:
            if "time_budget" in flow:
                yield pytest.param(path, flow, id=f"{path.name[len('lab-tb-'):-len('.expected.json')]}"
                                                  f"-s{flow['select']['tcp.stream']}")


_records = {}


def records_of(path, stream):
    if path not in _records:
        _records[path] = exchange_records(path.with_name(path.name.replace(".expected.json", ".pcap")))
    return [r for r in _records[path] if r["tcp.stream"] == stream]


@pytest.mark.parametrize("path,flow", list(lab_flows()))
def test_exchanges_against_the_lab(path, flow):
    truth = flow["time_budget"]
    logged = truth["exchanges"]
    got = records_of(path, flow["select"]["tcp.stream"])
    tolerance = 2 * truth["path_rtt_s"] + 0.010

    assert [r["tcpdiag.exchange.index"] for r in got] == list(range(1, len(logged) + 1))
    cut = "dead-peer" in path.name     # the reply was cut off: the client read less than was sent
    for k, (record, x) in enumerate(zip(got, logged)):
        where = f"exchange {k + 1}"
        assert record["tcpdiag.exchange.bytes_c2s"] == REQUEST, where
        if cut:
            assert record["tcpdiag.exchange.bytes_s2c"] >= x["reply_bytes"], where
        else:
            assert record["tcpdiag.exchange.bytes_s2c"] == x["reply_bytes"], where
        server = record["tcpdiag.exchange.server_time"]
        if truth["client_request_retransmissions"]:
            # the client resent its request into a full accept queue: the lab's wait runs
            # through the resends, which the budget charges to stall
            server += record["tcpdiag.exchange.stall"]
        assert server == pytest.approx(x["server_wait_s"], abs=tolerance), where
        think = logged[k + 1]["client_wait_s"] if k + 1 < len(logged) else 0.0
        assert record["tcpdiag.exchange.think"] == pytest.approx(think, abs=tolerance), where
        # one 100 B request is one segment: sent at once
        assert record["tcpdiag.exchange.client_time"] == 0, where


@pytest.mark.parametrize("point", POINTS)
def test_a_growing_queue_is_no_server_wait(point):
    """think-queue-grow: a paced download fills the FIFO on the server's way to the client
    while the interactive flow makes 12 exchanges, whose round trips the delay line's log
    gives as 55 ms growing to 298 ms; the server answered each at once (its waits, as the
    lab measured them, 0.10 s in all, 94 ms of it in the last), and the client sent its next
    request at once (its pauses under 0.1 ms). Each exchange's server time is the server's,
    and its think time the client's, at every capture point, within the tolerance above:
    near the client and at the router the replies' timestamps show how much longer each took
    on its way than the SYN-ACK, which before read as the server's wait; at the server the
    bulk flow's rounds on the same path show the queue the replies met on their way out,
    which before read as the client's think time (issue 37, item 6)."""
    path = THINK / f"lab-think-queue-grow-{point}.expected.json"
    flow = next(f for f in json.loads(path.read_text())["flows"] if "queue_filled_by" in f["truth"]["queue"])
    truth = flow["truth"]
    got = exchange_records(path.with_name(path.name.replace(".expected.json", ".pcap")))
    got = [r for r in got if r["tcp.stream"] == flow["select"]["tcp.stream"]]
    tolerance = 2 * truth["path_rtt_s"] + 0.010

    assert len(got) == len(truth["exchanges"])
    assert truth["exchanges"][-1]["round_trip_s"] >= 3 * truth["exchanges"][0]["round_trip_s"]
    for k, (record, x) in enumerate(zip(got, truth["exchanges"])):
        assert record["tcpdiag.exchange.server_time"] == pytest.approx(x["server_wait_s"], abs=tolerance), \
            f"exchange {k + 1}: round trip {x['round_trip_s']:.3f} s"
        pause = truth["exchanges"][k + 1]["client_pause_s"] if k + 1 < len(truth["exchanges"]) else 0.0
        assert record["tcpdiag.exchange.think"] == pytest.approx(pause, abs=tolerance), \
            f"exchange {k + 1}: round trip {x['round_trip_s']:.3f} s"


def test_one_slow_answer_is_found_by_its_frame():
    """tb-server-delay: the server sleeps 1 s before each reply (its log's config), and
    tb-server-prompt, its control, answers at once: every exchange of the first is over
    0.5 s, none of the control's."""
    slow = exchange_records(NEXT / "lab-tb-server-delay-client.pcap")
    prompt = exchange_records(NEXT / "lab-tb-server-prompt-client.pcap")
    config = json.loads((NEXT.parent / "logs" / "tb-server-delay.json").read_text())["config"]
    assert len(slow) == config["clients"] * config["requests"]
    assert all(r["tcpdiag.exchange.server_time"] >= config["think"] - 0.010 for r in slow)
    assert prompt and all(r["tcpdiag.exchange.server_time"] < 0.5 for r in prompt)


def test_exchanges_join_their_flows_in_every_format():
    """Each exchange record names its flow as the flow's record does (tcp.stream, and
    the Community ID), comes before it, and the three formats give the same exchanges."""
    pcap = NEXT / "lab-tb-client-wait-router.pcap"
    lines = [json.loads(line) for line in command.run(["-F", "json", pcap]).stdout.splitlines()]
    flows = {r["tcp.stream"]: r for r in lines if r["record"] == "flow"}
    seen_flow = set()
    for r in lines:
        if r["record"] == "flow":
            seen_flow.add(r["tcp.stream"])
        elif r["record"] == "exchange":
            assert r["tcp.stream"] not in seen_flow, "an exchange after its flow's record"
            assert r["tcpdiag.flow.community_id"] == flows[r["tcp.stream"]]["tcpdiag.flow.community_id"]
    from_json = [(r["tcp.stream"], r["tcpdiag.exchange.index"], r["tcpdiag.exchange.frame"])
                 for r in lines if r["record"] == "exchange"]
    rows = list(csv.DictReader(io.StringIO(command.run(["-F", "csv", pcap]).stdout)))
    from_csv = [(int(r["tcp.stream"]), int(r["tcpdiag.exchange.index"]), int(r["tcpdiag.exchange.frame"]))
                for r in rows if r["record"] == "exchange"]
    docs = [json.loads(line) for line in command.run(["-F", "ek", pcap]).stdout.splitlines()[1::2]]
    from_ek = [(d["tcp_stream"], d["layers"]["tcpdiag"]["tcpdiag_tcpdiag_exchange_index"],
                d["layers"]["tcpdiag"]["tcpdiag_tcpdiag_exchange_frame"]) for d in docs if d.get("record") == "exchange"]
    assert from_json and from_json == from_csv == from_ek
    # --slow leaves them out: they leave before their flow's verdict is known
    assert not exchange_records(pcap, ["--slow"])


def tiny_exchanges(path, count, server_s=0.001, think_s=0.010):
    """One connection of `count` exchanges, each a 10 B request answered by a 20 B reply
    server_s later (the reply acknowledges the request), then think_s before the next
    request (which acknowledges the reply); the handshake's round trip 100 µs at a capture
    point beside the client (SYN → SYN-ACK 100 µs, the ACK at once). Ethernet, IPv4,
    TCP without options; checksums left 0, which nothing here verifies."""
    client, server = bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2])

    def frame(t, src, dst, sport, dport, seq, ack, flags, payload=b""):
        tcp = struct.pack("!HHIIBBHHH", sport, dport, seq, ack, 5 << 4, flags, 65535, 0, 0) + payload
        ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp), 0, 0, 64, 6, 0, src, dst) + tcp
        eth = b"\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01\x08\x00" + ip
        micros = round(t * 1e6)
        return struct.pack("<IIII", micros // 1_000_000, micros % 1_000_000, len(eth), len(eth)) + eth

    SYN, ACK, PSH = 0x02, 0x10, 0x08
    cseq, sseq, t = 1000, 5000, 1_000_000.0
    with open(path, "wb") as out:
        out.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        out.write(frame(t, client, server, 40000, 80, cseq, 0, SYN))
        out.write(frame(t + 0.0001, server, client, 80, 40000, sseq, cseq + 1, SYN | ACK))
        t += 0.0001
        out.write(frame(t, client, server, 40000, 80, cseq + 1, sseq + 1, ACK))
        cseq, sseq = cseq + 1, sseq + 1
        for _ in range(count):
            out.write(frame(t, client, server, 40000, 80, cseq, sseq, PSH | ACK, b"q" * 10))
            cseq += 10
            t += server_s
            out.write(frame(t, server, client, 80, 40000, sseq, cseq, PSH | ACK, b"r" * 20))
            sseq += 20
            t += think_s


def test_tiny_exchanges_are_each_a_record(tmp_path):
    pcap = tmp_path / "tiny.pcap"
    tiny_exchanges(pcap, 200)
    got = exchange_records(pcap)
    assert [r["tcpdiag.exchange.index"] for r in got] == list(range(1, 201))
    assert {r["tcpdiag.exchange.bytes_c2s"] for r in got} == {10}
    assert {r["tcpdiag.exchange.bytes_s2c"] for r in got} == {20}
    # the request's last byte to the reply's first, 1 ms, less the handshake's 100 µs
    assert {r["tcpdiag.exchange.server_time"] for r in got} == {0.0009}
    # 10 ms to the next request, less the round trip to the client (0 here: the capture
    # point is beside it); the last exchange has none
    assert {r["tcpdiag.exchange.think"] for r in got[:-1]} == {0.01}
    assert got[-1]["tcpdiag.exchange.think"] == 0


@pytest.mark.skipif("ASAN_OPTIONS" in os.environ,
                    reason="ASan's quarantine holds what is freed: its peaks are not the command's")
def test_memory_stays_flat_over_many_exchanges(tmp_path):
    """Hostile input, one connection of 40,000 and of 160,000 tiny exchanges: the json
    run (records streamed as the exchanges end) of the longer peaks within 10 % of the
    shorter's, and gives every exchange its record."""
    short, long_ = tmp_path / "short.pcap", tmp_path / "long.pcap"
    tiny_exchanges(short, 40_000)
    tiny_exchanges(long_, 160_000)
    json_short, json_long = command.peak_kib(["-F", "json", short]), command.peak_kib(["-F", "json", long_])
    assert json_long <= 1.1 * json_short, (json_short, json_long)
    out = command.run(["-F", "json", long_]).stdout
    assert out.count('"record":"exchange"') == 160_000


EXCHANGE_FIELDS = ["index", "frame", "bytes_c2s", "bytes_s2c", "active", "client_time", "server_time", "transfer",
                   "stall", "think"]


@pytest.mark.parametrize("pcap", sorted(NEXT.glob("lab-tb-*.pcap")), ids=lambda p: p.name)
def test_tshark_shows_the_commands_exchanges(pcap):
    """tshark -2 with the plugin puts each exchange on its first packet with the values
    of the command's record: both front ends read one engine and one field table."""
    names = ["frame.number", "tcp.stream"] + [f"tcpdiag.exchange.{k}" for k in EXCHANGE_FIELDS]
    shown = [(int(row["tcp.stream"]), int(row["frame.number"]), *(float(row[n]) for n in names[2:]))
             for row in tshark.fields(pcap, names) if row["tcpdiag.exchange.index"]]
    given = [(r["tcp.stream"], r["tcpdiag.exchange.frame"], *(float(r[f"tcpdiag.exchange.{k}"])
                                                            for k in EXCHANGE_FIELDS))
             for r in exchange_records(pcap)]
    assert shown and sorted(shown) == sorted(given)
    assert all(row[1] == row[3] for row in shown)     # on its own first frame


def test_tshark_finds_the_slow_requests():
    """The brief's filter: in tb-server-delay (the server sleeps 1 s before every reply)
    every request's first packet, and only those; none in its prompt control."""
    config = json.loads((NEXT.parent / "logs" / "tb-server-delay.json").read_text())["config"]
    slow = tshark.run(["-r", NEXT / "lab-tb-server-delay-server.pcap", "-2", "-Y",
                       "tcpdiag.exchange.server_time > 0.5", "-T", "fields", "-e", "frame.number"]).stdout.split()
    prompt = tshark.run(["-r", NEXT / "lab-tb-server-prompt-server.pcap", "-2", "-Y",
                         "tcpdiag.exchange.server_time > 0.5", "-T", "fields", "-e", "frame.number"]).stdout.split()
    assert len(slow) == config["clients"] * config["requests"]
    assert prompt == []


def ns(value):
    """A printed duration (seconds with up to 9 decimals) as integer nanoseconds."""
    return int(decimal.Decimal(str(value)) * 1_000_000_000)


ALL_PCAPS = sorted(p for p in command.ROOT.glob("captures/**/*.pcap"))


@pytest.mark.parametrize("pcap", ALL_PCAPS, ids=lambda p: str(p.relative_to(command.ROOT / "captures")))
def test_exchanges_add_up_to_their_flow(pcap):
    """On every committed capture: a flow's exchanges are numbered 1, 2, ... in frame
    order, only a flow that carried data has any, and their parts add up, to the
    nanosecond, to the flow's budget after its setup (exchange.h): think, transfer,
    stall, the server's answer waits (tcpdiag.time.server_delay), and active time."""
    out = command.run(["-F", "json", pcap]).stdout
    records = [json.loads(line, parse_float=decimal.Decimal) for line in out.splitlines()]
    by_stream = {}
    for r in records:
        if r["record"] == "exchange":
            by_stream.setdefault(r["tcp.stream"], []).append(r)
    for flow in (r for r in records if r["record"] == "flow"):
        got = by_stream.pop(flow["tcp.stream"], [])
        where = f"stream {flow['tcp.stream']}"
        if not got:
            # no new data as the budget reads it (crafted-hostile has a segment below
            # what its peer had already acknowledged): no exchange, and nothing in one
            assert flow["tcpdiag.time.think"] == 0 and flow["tcpdiag.time.server_delay"] == 0, where
            continue
        # a data direction has its own object (its flight), by role or, unknown, fwd/rev
        assert any(d in flow for d in ("c2s", "s2c", "fwd", "rev")), where
        assert [x["tcpdiag.exchange.index"] for x in got] == list(range(1, len(got) + 1)), where
        frames = [x["tcpdiag.exchange.frame"] for x in got]
        assert frames == sorted(frames), where
        assert len(got) >= flow["tcpdiag.time.exchanges"], where

        def total(key):
            return sum(ns(x[f"tcpdiag.exchange.{key}"]) for x in got)
        t = {k: ns(flow[f"tcpdiag.time.{k}"]) for k in ("think", "transfer", "stall", "server_delay", "active",
                                                            "setup")}
        assert total("think") == t["think"], where
        assert total("transfer") == t["transfer"], where
        assert total("stall") == t["stall"], where
        assert total("server_time") == t["server_delay"], where
        assert total("active") == t["active"] - t["setup"], where
        assert ns(got[-1]["tcpdiag.exchange.think"]) == 0, where
    assert not by_stream, f"exchanges of no flow: {sorted(by_stream)}"
