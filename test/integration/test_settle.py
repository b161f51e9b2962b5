"""When a flow's verdict is given (issue 31, item 1; docs/diagnosis.md, "When a flow's
verdict is given"): a flow settles once the capture's clock has passed its close by
settle_window_s, and the command writes its record then, while the rest of the input
is still being read; the plugin settles by the same rule, so tshark and the command
give the same answers.

Ground truth: lab-cc-id-rtt120-client holds six downloads made one after the other
(tshark's conversation table: each starts after the one before has closed, at 0, 13,
28, 42, 60 and 73 s, each lasting 13-18 s). With a 5 s window the first closes at
13.0 s and settles by 18.3 s (the window and a point step of 1.25 s), long before the
capture's last packet at 86 s."""
import json
import os
import select
import struct
import subprocess

import pytest

import command
import tshark
from tshark import ROOT

LAB = ROOT / "captures" / "lab-cc-id-rtt120-client.pcap"
WINDOW = ["-o", "tcpdiag.settle_window_s:5"]


def pcap_packets(path):
    """A classic pcap file's header, and its records as (time in s, bytes) in order."""
    data = path.read_bytes()
    header, at, packets = data[:24], 24, []
    while at + 16 <= len(data):
        seconds, micros, length = struct.unpack_from("<III", data, at)
        packets.append((seconds + micros / 1e6, data[at:at + 16 + length]))
        at += 16 + length
    return header, packets


def read_line(stream, seconds):
    """The next line of an unbuffered pipe (Popen's bufsize=0: a buffered reader's
    readline may take the next line too, which select then no longer sees), or None
    when nothing came within the time given."""
    ready, _, _ = select.select([stream], [], [], seconds)
    return stream.readline() if ready else None


def write_all(stream, data):
    """All of data into an unbuffered pipe: its write is one write(2), which may take
    less than all of it and says how much (a buffered writer loops; this one must)."""
    view = memoryview(data)
    while view:
        view = view[stream.write(view):]


def test_records_leave_while_the_input_is_still_open():
    """The first download's record comes out of a pipe that holds only the capture's
    first 40 s, and stays open: its flow settled, nothing waits for the input's end.
    40 s, not less: the first download settles at 18.3 s, 275 kB into the file (on a
    quiet machine its record leaves once 300 kB are in, with Wireshark 4.0 and 4.4 alike),
    yet in the Wireshark 4.4 chroot under the suite's load 25 s, 365 kB, gave no record in
    60 s in 3 of 11 runs, for a reason not established; 40 s is 601 kB.
    The records given early are those the whole file gives with the same window, and
    every flow has exactly one."""
    header, packets = pcap_packets(LAB)
    first_seconds = [p for t, p in packets if t - packets[0][0] < 40]
    proc = subprocess.Popen([str(command.command_path()), "-F", "json"] + WINDOW + ["-"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0)
    try:
        write_all(proc.stdin, header + b"".join(first_seconds))
        # the download's exchange comes just before its flow's record, with it
        exchanges = []
        while True:
            line = read_line(proc.stdout, 60)
            assert line, "no record while the input stayed open"
            early = json.loads(line)
            if early["record"] != "exchange":
                break
            exchanges.append(early)
        assert early["record"] == "flow" and early["tcp.stream"] == 0
        assert [x["tcp.stream"] for x in exchanges] == [0]
        assert early["tcpdiag.flow.state"] != "open"
        write_all(proc.stdin, b"".join(p for t, p in packets[len(first_seconds):]))
        out, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == 0, err
    streamed = exchanges + [early] + [json.loads(line) for line in out.splitlines()]
    whole = command.records(LAB, options=WINDOW)
    assert sorted(r.get("tcp.stream", -1) for r in streamed if r["record"] != "exchange") == [-1, 0, 1, 2, 3, 4, 5]
    assert [dict(r, file=None) for r in streamed if r["record"] == "exchange"] == \
        [dict(r, file=None) for r in whole if r["record"] == "exchange"]
    by_stream = {r["tcp.stream"]: dict(r, file=None) for r in streamed if r["record"] == "flow"}
    assert by_stream == {r["tcp.stream"]: dict(r, file=None) for r in whole if r["record"] == "flow"}


def test_the_window_is_the_rule_of_every_output():
    """With a 5 s window, the worst ECN flow (stream 3, closed at 59.7 s) settles before
    stream 4, which has not closed then: it is compared with the client's 2 flows
    without ECN settled by then, not the whole file's 3, and costs more. The text
    report, the json records and tshark with the plugin all say so; and with a short
    history, which forgets the flows that ended 10 s before, they agree again."""
    def costs(options):
        return {r["tcp.stream"]: (r["tcpdiag.diag.cause"], r.get("tcpdiag.diag.lost"))
                for r in command.flows(LAB, options=options)}
    whole, windowed = costs([]), costs(WINDOW)
    assert whole[3][0] == windowed[3][0] == "ecn-loss-reaction"
    assert windowed[3][1] > whole[3][1]
    assert "this client's 2 other flows" in command.run(WINDOW + [LAB]).stdout
    assert "this client's 3 other flows" in command.run([LAB]).stdout
    # a 10 s history (twice the window, the idle timeout no longer): flows that ended
    # earlier are forgotten, in both front ends alike
    short_history = WINDOW + ["-o", "tcpdiag.idle_timeout_s:5"]
    forgetting = costs(short_history)
    assert forgetting != windowed
    for options, expected in (([], whole), (WINDOW, windowed), (short_history, forgetting)):
        rows = tshark.fields(LAB, ["tcp.stream", "tcpdiag.diag.cause", "tcpdiag.diag.lost"],
                             extra=["-Y", "tcpdiag.diag.cause"] + options)
        seen = {}
        for row in rows:
            lost = float(row["tcpdiag.diag.lost"]) if row["tcpdiag.diag.lost"] else None
            seen[int(row["tcp.stream"])] = (row["tcpdiag.diag.cause"], lost)
        assert seen.keys() == expected.keys()
        for stream, (cause, lost) in expected.items():
            assert seen[stream][0] == cause
            assert (seen[stream][1] is None) == (lost is None)
            if lost is not None:
                assert abs(seen[stream][1] - lost) < 1e-6


PLAIN = ROOT / "captures" / "lab" / "next" / "lab-tb-plain-client.pcap"


def repeated_download(path, copies, every_s):
    """A capture of `copies` downloads one after the other, every_s apart: the real
    download of lab-tb-plain-client (one flow, 114 packets, 0.32 s, client port 52008)
    again and again, its k-th copy moved k x every_s later and given client port
    10000 + k % 50000. Compressed time for hours of traffic, as issue 31 allows; each
    copy's own packets stay as the kernel sent them (TCP checksums aside, which
    nothing here verifies)."""
    header, packets = pcap_packets(PLAIN)
    base = int(packets[0][0])
    with open(path, "wb") as out:
        out.write(header)
        for k in range(copies):
            port = struct.pack("!H", 10000 + k % 50000)
            for _, raw in packets:
                seconds, micros = struct.unpack_from("<II", raw)
                frame = bytearray(raw)
                struct.pack_into("<I", frame, 0, seconds + k * every_s)
                tcp = 16 + 14 + (frame[16 + 14] & 0x0F) * 4     # record header, Ethernet, IPv4
                for at in (tcp, tcp + 2):                       # the client's port, either side
                    if frame[at:at + 2] == b"\xcb\x28":
                        frame[at:at + 2] = port
                out.write(frame)


@pytest.mark.skipif("ASAN_OPTIONS" in os.environ,
                    reason="ASan's quarantine holds what is freed: its peaks are not the command's")
def test_memory_stays_flat_over_hours_of_capture(tmp_path):
    """Issue 31: memory is bounded by the flows open at once and the history, not by the
    capture's length. 2,000 and 8,000 downloads two seconds apart (1.1 and 4.4 hours
    of capture time): the json run of the longer peaks within 10 % of the shorter's,
    where the text report, which keeps every flow for its end-of-run form, grows
    with them. Every download gets its record, once."""
    short, long_ = tmp_path / "short.pcap", tmp_path / "long.pcap"
    repeated_download(short, 2000, 2)
    repeated_download(long_, 8000, 2)
    # command.peak_kib fixes the addresses: with them randomised one run's peak moved by
    # up to 5 % (8,852-9,476 KiB for the same file), and a median of three still failed
    # once under load (9,224 against 10,176 KiB); fixed, 9,440 and 10,080 every run.
    json_short, json_long = command.peak_kib(["-F", "json", short]), command.peak_kib(["-F", "json", long_])
    text_short, text_long = command.peak_kib([short]), command.peak_kib([long_])
    assert json_long <= 1.1 * json_short, (json_short, json_long)
    assert text_long - text_short > 3 * (json_long - json_short), (text_short, text_long, json_short, json_long)
    flows = command.flows(long_)
    assert len(flows) == 8000
    assert len({r["tcp.stream"] for r in flows}) == 8000
    assert {r["tcpdiag.flow.state"] for r in flows} == {"closed"}
