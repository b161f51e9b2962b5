"""Parity: every committed capture through the plugin (tshark -2) and through the
tcpdiag command gives the same flows, under the same tcp.stream numbers, with the
same value for every per-flow field (issue 15). The reference is the plugin: this
test holds the two front ends of one core to one answer, and test_captures.py holds
the plugin's answers to how the captures were made."""
import array
import fcntl
import gzip
import json
import math
import os
import re
import signal
import subprocess
import termios
import time

import pytest

import command
from test_diagnosis import expected_causes
from tshark import CAPTURES, fields, run

PCAPS = [p for p in sorted(CAPTURES.glob("*.pcap*")) if not p.name.endswith(".json")]

# Fields about the packet they are on, not about the flow: the command has no
# packet to put them on. The answer packets' fields (the finding on its flows'
# evidence packets, the capture's headline on its first packet) are among them.
PER_PACKET = {"tcpdiag.dir", "tcpdiag.flight.round", "tcpdiag.cc.event", "tcpdiag.cc.latency",
              "tcpdiag.cc.flight_before", "tcpdiag.cc.flight_after", "tcpdiag.cc.ratio",
              "tcpdiag.diag.finding", "tcpdiag.diag.findings", "tcpdiag.diag.finding_who",
              "tcpdiag.diag.finding_role", "tcpdiag.diag.finding_flows", "tcpdiag.diag.finding_lost",
              "tcpdiag.capture.headline", "tcpdiag.capture.flows", "tcpdiag.capture.slow",
              "tcpdiag.capture.app_limited", "tcpdiag.capture.healthy", "tcpdiag.capture.undiagnosed"}
# The plugin's per-direction subtrees, by their labels: "Flight s2c: cwnd", or with
# unknown roles "Flight 192.0.2.1:443 → 198.51.100.2:5000: cwnd" (the sender first).
DIRECTION_TREE = re.compile(r"^(?:Flight|Congestion|Offload) (?P<who>.+?): ")


def plugin_leaves(tree, direction=None, out=None):
    """(direction, field, value) of every tcpdiag field in a tshark -T json tree;
    direction is None for a flow-wide field, else "c2s", "s2c" or the sender's
    "address:port". Expert info is per packet and left out."""
    out = [] if out is None else out
    for key, value in tree.items():
        if key == "_ws.expert":
            continue
        if isinstance(value, dict):
            m = DIRECTION_TREE.match(key)
            plugin_leaves(value, m.group("who").split(" → ")[0] if m else direction, out)
        elif key.startswith("tcpdiag.") and key not in PER_PACKET:
            for v in value if isinstance(value, list) else [value]:
                out.append((direction, key, v))
    return out


def endpoint_text(address, port):
    return f"[{address}]:{port}" if ":" in address else f"{address}:{port}"


def plugin_flows(pcap, prefs=()):
    """stream -> sorted [(direction, field, value)] at the first frame of each flow
    the plugin analysed; with unknown roles a direction is named as the command
    names it: fwd for data from the flow's first packet's sender, rev otherwise.
    prefs: tshark arguments setting preferences (-o NAME:VALUE)."""
    rows = fields(pcap, ["frame.number", "tcp.stream", "tcpdiag.flow.roles", "ip.src", "ipv6.src",
                         "tcp.srcport"], extra=prefs)
    first = {}
    for row in rows:
        # A frame whose TCP header Wireshark gave up on has no tcp.stream, though the
        # plugin reads it into its conversation's flow: never a flow's first frame.
        # A frame's segment is its first TCP layer's: one after it is a packet its
        # payload carried (OpenFlow's packet-in), not a flow on this wire.
        if row["tcpdiag.flow.roles"] and row["tcp.stream"]:
            first.setdefault(int(row["tcp.stream"].split(",")[0]), row)
    if not first:
        return {}
    by_frame = {int(r["frame.number"]): s for s, r in first.items()}
    frames = ",".join(str(f) for f in sorted(by_frame))
    packets = json.loads(run(["-r", pcap, "-2", "-Y", f"frame.number in {{{frames}}}", "-T", "json",
                              "--no-duplicate-keys", "-J", "frame tcpdiag"] + list(prefs)).stdout)
    flows = {}
    for packet in packets:
        layers = packet["_source"]["layers"]
        stream = by_frame[int(layers["frame"]["frame.number"])]
        row = first[stream]
        source = (row["ipv6.src"] or row["ip.src"]).split(",")[-1]
        fwd = endpoint_text(source, row["tcp.srcport"].split(",")[-1])
        leaves = []
        for direction, name, value in plugin_leaves(layers["tcpdiag"]):
            if name.startswith("tcpdiag.exchange."):
                continue    # the exchange that begins at this frame (test_exchanges.py)
            if direction not in (None, "c2s", "s2c"):
                direction = "fwd" if direction == fwd else "rev"
            leaves.append((direction, name, value))
        flows[stream] = grouped(leaves)
    return flows


def command_leaves(record):
    out = []
    for key, value in record.items():
        if key in ("record", "file", "tcp.stream"):
            continue
        if isinstance(value, dict):
            out += [(key, name, v) for name, v in value.items()]
        else:
            out.append((None, key, value))
    return grouped((direction, name, v) for direction, name, value in out
                   for v in (value if isinstance(value, list) else [value]))


def grouped(leaves):
    """(direction, field) -> its values, in the order given (a repeated field keeps
    its order: tcpdiag.opts.default_mss is the client's, then the server's)."""
    out = {}
    for direction, name, value in leaves:
        out.setdefault((direction or "", name), []).append(value)
    return out


def same_value(plugin, ours):
    """tshark prints every value as text: a double with 15 significant digits, a
    relative time with 9 decimals; the command keeps doubles to 17 digits."""
    if isinstance(ours, str):
        return plugin == ours
    if isinstance(ours, float) or isinstance(plugin, str) and "." in plugin:
        return math_close(float(plugin), float(ours))
    return plugin == str(ours)


def math_close(a, b):
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)


def assert_same_flows(pcap, prefs=()):
    """The command and the plugin, with the same preferences, on one capture."""
    plugin = plugin_flows(pcap, prefs)
    ours = {r["tcp.stream"]: command_leaves(r) for r in command.flows(pcap, options=prefs)}
    assert sorted(ours) == sorted(plugin), "the same flows under the same tcp.stream numbers"
    for stream, theirs in plugin.items():
        mine = ours[stream]
        assert sorted(mine) == sorted(theirs), f"stream {stream}: the same fields"
        for key, values in theirs.items():
            got = mine[key]
            assert len(got) == len(values) and all(same_value(p, o) for p, o in zip(values, got)), \
                f"stream {stream} {key}: plugin {values}, command {got}"


@pytest.mark.parametrize("pcap", PCAPS, ids=lambda p: p.name)
def test_command_matches_plugin(pcap):
    assert_same_flows(pcap)


@pytest.mark.parametrize("pcap", PCAPS, ids=lambda p: p.name)
def test_command_prints_the_plugin_reports(pcap):
    """With --flows, the text output is tshark's -z tcpdiag,diagnosis, flows and
    hosts reports, in the order tshark prints them, after one line that counts the
    frames."""
    tshark_text = run(["-r", pcap, "-2", "-q", "-z", "tcpdiag,hosts", "-z", "tcpdiag,flows",
                       "-z", "tcpdiag,diagnosis"]).stdout
    ours = command.run(["--flows", pcap]).stdout
    first, _, rest = ours.partition("\n")
    assert first.startswith(f"tcpdiag: {pcap}: ")
    assert rest == tshark_text


def test_an_unreadable_file_fails_alone(tmp_path):
    """A missing file, a file that is no capture and one cut short each get a line on
    stderr and make the exit status 1; the readable file is still analysed, and the
    cut one keeps the flows read before the cut. Without a terminal, stderr carries
    nothing else (no progress)."""
    good = CAPTURES / "lab-ecn-1-of-n.pcap"
    not_capture = tmp_path / "notes.txt"
    not_capture.write_text("not a capture\n")
    cut = tmp_path / "cut.pcap"
    cut.write_bytes(good.read_bytes()[:5000])
    missing = tmp_path / "missing.pcap"
    proc = command.run(["-j", 2, "--format", "json", missing, not_capture, good, cut], check=False)
    assert proc.returncode == 1
    errors = proc.stderr.splitlines()
    assert [e.split(":")[1].strip() for e in errors] == [str(missing), str(not_capture), str(cut)]
    records = [json.loads(line) for line in proc.stdout.splitlines()]
    files = [r["file"] for r in records if r["record"] == "flow"]
    assert files.count(str(good)) == 20            # the lab's 20 downloads
    assert files.count(str(cut)) >= 1
    # each file's status record, after its flows: the first 5,000 bytes of the
    # capture hold its 24-byte header and whole records of 16 + caplen bytes
    status = {r["file"]: r for r in records if r["record"] == "file"}
    assert list(status) == [str(missing), str(not_capture), str(good), str(cut)]
    assert status[str(missing)]["file.status"] == "unreadable" and status[str(missing)]["file.error"]
    assert status[str(good)]["file.status"] == "read" and "file.error" not in status[str(good)]
    assert status[str(good)]["file.flows"] == 20
    assert status[str(good)]["file.frames"] == int(fields(good, ["frame.number"], two_pass=False)[-1]["frame.number"])
    assert status[str(cut)]["file.status"] == "cut-short" and status[str(cut)]["file.error"]
    assert status[str(cut)]["file.frames"] == whole_records(cut.read_bytes())
    csv_rows = command.run(["--format", "csv", missing, good, cut], check=False).stdout.splitlines()
    assert csv_rows[0].startswith("record,file,tcp.stream,")
    assert [row.split(",", 2)[:2] for row in csv_rows[1:] if row.startswith("file,")] == [
        ["file", str(missing)], ["file", str(good)], ["file", str(cut)]]


def whole_records(pcap_bytes):
    """The records of a little-endian pcap file that are there in full."""
    at, count = 24, 0
    while at + 16 <= len(pcap_bytes):
        caplen = int.from_bytes(pcap_bytes[at + 8:at + 12], "little")
        if at + 16 + caplen > len(pcap_bytes):
            break
        at, count = at + 16 + caplen, count + 1
    return count


# The command as a Unix tool (issue 20, point 3): tcpdiag(1) documents each behaviour.
PCAP = CAPTURES / "lab-ecn-1-of-n.pcap"          # the lab's 20 downloads
OTHER = CAPTURES / "lab-midflow.pcap"


def run_bytes(args, **kwargs):
    """The command with bytes arguments and output (names that are not UTF-8)."""
    return subprocess.run([command.command_path()] + list(args), capture_output=True, timeout=300, **kwargs)


def test_options_take_their_value_attached_or_apart():
    """-j2 and -j 2 (and the long forms) are one option, as are -Fjson and --format json;
    -j 0 is one file at a time per CPU. The output is the same whatever -j."""
    expected = command.run(["--format", "json", PCAP, OTHER]).stdout
    for jobs in (["-j2"], ["-j", "2"], ["--jobs=2"], ["--jobs", "2"], ["-j", "0"]):
        assert command.run(jobs + ["-Fjson", PCAP, OTHER]).stdout == expected, jobs


@pytest.mark.parametrize("args, says", [
    (["-j", "x", PCAP], "-j x: expected the number of files to analyse at a time"),
    (["-j", "-1", PCAP], "-j -1: expected the number"),
    (["-j", "1025", PCAP], "from 1 to 1024"),
    (["-j2x", PCAP], "-j 2x: expected the number"),
    ([PCAP, "-j"], "-j needs a value"),
    (["--format", "xml", PCAP], 'unknown format "xml"'),
    (["--no-such-option", PCAP], "unknown option --no-such-option"),
    (["-x.pcap"], "unknown option -x (a file whose name starts with - goes after --)"),
    ([], "no capture file given"),
    (["-o", "tcpdiag.no_such_pref:1", PCAP], "-o tcpdiag.no_such_pref: no such preference"),
    (["-o", "tcp.analyze_sequence_numbers:TRUE", PCAP], "no such preference"),
    (["-o", "tcpdiag.capture_position", PCAP], "expected NAME:VALUE"),
    (["-o", "tcpdiag.capture_position:sideways", PCAP], '"sideways" is not a capture position'),
    (["-o", "tcpdiag.max_flows:many", PCAP], '"many" is not a decimal number'),
    (["-o", "tcpdiag.stall_min_ms:-5", PCAP], '"-5" is not a decimal number'),
    (["-o", "tcpdiag.stall_min_ms:4294967296", PCAP], "from 0 to 4294967295"),
    (["--follow", PCAP, OTHER], "--follow reads one dumpcap ring"),
    (["--follow", "--merge", PCAP], "--follow reads one dumpcap ring"),
    (["--follow", "-"], "--follow reads one dumpcap ring"),
])
def test_usage_errors_exit_2_and_say_what_is_wrong(args, says):
    proc = command.run(args, check=False)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.startswith("tcpdiag: ") and says in proc.stderr.splitlines()[0], proc.stderr
    assert "usage: tcpdiag" in proc.stderr


def test_follow_of_a_ring_in_a_missing_folder_says_so(tmp_path):
    """--follow lists the ring's folder for its files: one that cannot be read is the
    file's error (exit status 1), not a wait for ever."""
    proc = command.run(["--follow", "-F", "json", tmp_path / "gone" / "ring.pcapng"], check=False)
    assert proc.returncode == 1
    assert "No such file or directory" in proc.stderr
    assert json.loads(proc.stdout.splitlines()[-1])["file.status"] == "unreadable"


def test_double_dash_ends_the_options(tmp_path):
    """After --, a name that starts with - is a file (here in the current folder)."""
    (tmp_path / "-j.pcap").write_bytes(PCAP.read_bytes())
    records = [json.loads(line) for line in
               command.run(["--format", "json", "--", "-j.pcap"], cwd=tmp_path).stdout.splitlines()]
    assert {r["file"] for r in records} == {"-j.pcap"}
    assert [r["record"] for r in records if r["record"] != "exchange"] == ["flow"] * 20 + ["file"]


def test_a_write_error_exits_3_with_the_reason():
    with open("/dev/full", "w") as full:
        proc = subprocess.run([command.command_path(), PCAP], stdout=full, stderr=subprocess.PIPE, text=True,
                              timeout=300, env=dict(os.environ, LC_ALL="C"))
    assert proc.returncode == 3
    assert proc.stderr == "tcpdiag: cannot write the output: No space left on device\n"


def test_exit_status_is_0_when_every_file_is_read():
    assert command.run([PCAP, OTHER]).returncode == 0


def test_json_and_csv_are_utf8_whatever_the_file_name(tmp_path):
    """A file name is bytes: each byte that is not UTF-8 becomes U+FFFD in json, ek
    and csv, and the record still names the file's folder and the rest of its name."""
    link = os.path.join(os.fsencode(tmp_path), b"caf\xe9-\xff\xfe.pcap")
    os.symlink(PCAP, link)
    shown = f"{tmp_path}/caf\ufffd-\ufffd\ufffd.pcap"
    for output in ("json", "ek", "csv"):
        proc = run_bytes(["--format", output, link])
        assert proc.returncode == 0
        text = proc.stdout.decode("utf-8")          # strict: fails on any invalid byte
        status_records = 0 if output == "ek" else 1       # json and csv say how the file was read
        # the flows' records and the file's, the exchanges' beside them naming it too
        if output == "csv":
            rows = [row.split(",") for row in text.splitlines()[1:]]
            assert {row[1] for row in rows} == {shown}
            assert sum(row[0] != "exchange" for row in rows) == 20 + status_records
        else:
            documents = [json.loads(line) for line in text.splitlines() if '"index"' not in line]
            assert {d["file"] for d in documents} == {shown}
            assert sum(d.get("record") != "exchange" for d in documents) == 20 + status_records


def test_a_folder_is_walked_in_sorted_order_and_non_captures_are_skipped(tmp_path):
    """Every capture under the folder, depth first, names sorted; text files, a JSON
    file (which Wireshark opens, for its content), a fifo and a link to a folder are
    skipped, counted on one line, and are not errors."""
    captures = {tmp_path / "b" / "x.pcap": PCAP, tmp_path / "a" / "z.pcap": OTHER,
                tmp_path / "a" / "deeper" / "y.pcap.gz": PCAP}
    for path, source in captures.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        data = source.read_bytes()
        path.write_bytes(gzip.compress(data) if path.suffix == ".gz" else data)
    (tmp_path / "notes.txt").write_text("These notes are about the captures in this folder.\n" * 3)
    (tmp_path / "a" / "deeper" / "README.md").write_text("# Captures\n\nTaken on the client.\n")
    (tmp_path / "a" / "how-made.json").write_text('{"client": "10.0.0.1", "downloads": 20}\n')
    os.mkfifo(tmp_path / "a" / "fifo")
    os.symlink(tmp_path / "a", tmp_path / "c-link-to-a")
    proc = command.run(["--format", "json", tmp_path])
    order = []
    for line in proc.stdout.splitlines():
        name = json.loads(line)["file"]
        if not order or order[-1] != name:
            order.append(name)
    assert order == [str(p) for p in sorted(captures, key=lambda p: p.relative_to(tmp_path).parts)]
    assert proc.stderr == ("tcpdiag: 5 files in the folders given skipped: not packet captures, or no TCP "
                           "segment before an error\n")


def test_a_capture_cut_short_in_a_folder_is_an_error(tmp_path):
    (tmp_path / "cut.pcap").write_bytes(PCAP.read_bytes()[:5000])
    (tmp_path / "whole.pcap").write_bytes(PCAP.read_bytes())
    proc = command.run([tmp_path], check=False)
    assert proc.returncode == 1
    assert proc.stderr.startswith(f"tcpdiag: {tmp_path / 'cut.pcap'}: ")


def test_standard_input_and_a_pipe():
    """- reads one capture from standard input, a file or a pipe, as that file."""
    expected = [dict(r, file="-") for r in command.records(PCAP)]
    with open(PCAP, "rb") as capture:
        from_file = run_bytes(["--format", "json", "-"], stdin=capture)
    from_pipe = run_bytes(["--format", "json", "-"], input=PCAP.read_bytes())
    for proc in (from_file, from_pipe):
        assert proc.returncode == 0
        assert [json.loads(line) for line in proc.stdout.splitlines()] == expected


def pcap_prefix(path, packets):
    """A classic pcap file's header and its first `packets` records, as bytes."""
    data = path.read_bytes()
    at, cut = 24, data[:24]
    for _ in range(packets):
        length = int.from_bytes(data[at + 8:at + 12], "little")
        cut += data[at:at + 16 + length]
        at += 16 + length
    return cut


def test_a_signal_ends_a_live_run_cleanly():
    """Issue 31, item 2: a live capture piped in (tcpdump -U -w - | tcpdiag -) that the
    user stops: SIGINT reaches tcpdiag while its input is still open and quiet. The
    reader wakes, the flows read until then are analysed and written, and the run
    exits 0. Ground truth: the first 40 packets of lab-tb-plain-client (a connection
    whose FINs are its frames 112 and 113) make one flow, with no FIN: open."""
    lab = CAPTURES / "lab" / "next" / "lab-tb-plain-client.pcap"
    proc = subprocess.Popen([str(command.command_path()), "--format", "json", "-"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        proc.stdin.write(pcap_prefix(lab, 40))
        proc.stdin.flush()
        # The pipe stays open. A stop ends the reading at the next record, so the
        # signal must come once tcpdiag has taken all 40: the pipe empty and its
        # reader asleep in a read of it (wiretap reads again only when it has used
        # up what it read). Waited for, not slept on (a fixed 0.5 s was a guess that
        # a busy machine can outlast).
        deadline = time.monotonic() + 60
        while (pipe_holds(proc.stdin) or not reading_an_empty_pipe(proc.pid)) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not pipe_holds(proc.stdin) and reading_an_empty_pipe(proc.pid), \
            f"tcpdiag is not waiting on its input: {wait_channels(proc.pid)}"
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)     # closes stdin only after tcpdiag has answered
    finally:
        proc.kill()
    assert proc.returncode == 0, err
    assert b"stopped by a signal" in err
    flows = [json.loads(line) for line in out.splitlines() if json.loads(line)["record"] == "flow"]
    assert len(flows) == 1
    assert flows[0]["tcpdiag.flow.packets"] == 40
    assert flows[0]["tcpdiag.flow.state"] == "open"


def pipe_holds(pipe):
    """Bytes written to the pipe that its reader has not taken yet (FIONREAD)."""
    waiting = array.array("i", [0])
    fcntl.ioctl(pipe.fileno(), termios.FIONREAD, waiting)
    return waiting[0]


def wait_channels(pid):
    """Where in the kernel each thread of the process sleeps (/proc/PID/task/*/wchan)."""
    channels = []
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/wchan") as f:
                channels.append(f.read().strip())
        except OSError:                 # the thread ended meanwhile
            pass
    return channels


def reading_an_empty_pipe(pid):
    """Whether a thread of the process sleeps in a read of an empty pipe: the kernel's
    pipe_read (anon_pipe_read from Linux 6.15 on; pipe_wait, pipe_wait_readable in
    older ones)."""
    return any(c.endswith("pipe_read") or c.startswith("pipe_wait") for c in wait_channels(pid))


def tshark_preferences():
    """The plugin's preferences as tshark lists them: name -> default value."""
    listing = run(["-G", "defaultprefs"]).stdout
    return dict(re.findall(r"^#(tcpdiag\.\w+): (.*)$", listing, re.MULTILINE))


def test_the_preferences_are_the_plugins():
    """-o takes every tcpdiag preference tshark lists, with tshark's default as its
    value (capture_position's given as Wireshark prints it, its description), and
    the defaults change nothing; an unknown name lists exactly those names."""
    prefs = tshark_preferences()
    assert "tcpdiag.capture_position" in prefs
    listed = command.run(["-o", "tcpdiag.unknown:1", PCAP], check=False).stderr
    assert sorted(re.findall(r"tcpdiag\.\w+", listed.split("tcpdiag's:")[1].splitlines()[0])) == sorted(prefs)
    defaults = [arg for name, value in prefs.items() for arg in ("-o", f"{name}:{value}")]
    assert command.run(defaults + ["--format", "json", PCAP]).stdout == \
        command.run(["--format", "json", PCAP]).stdout


def test_a_preference_sets_what_it_sets_in_wireshark():
    """The lab capture was taken on the client's host (auto says near-client);
    declared near the server, every flow says so, and every field matches the
    plugin's under the same -o in tshark."""
    prefs = ("-o", "tcpdiag.capture_position:near-server")
    assert {r["tcpdiag.flow.vantage"] for r in command.flows(PCAP)} == {"near-client"}
    assert {r["tcpdiag.flow.vantage"] for r in command.flows(PCAP, options=prefs)} == {"near-server"}
    assert_same_flows(PCAP, prefs)


def test_the_man_page_is_installed_and_documents_every_option(tmp_path):
    """cmake --install puts tcpdiag(1) into share/man/man1; the page names every
    option --help lists and every exit status."""
    build = command.command_path().parent.parent
    subprocess.run(["cmake", "--install", build], env=dict(os.environ, DESTDIR=str(tmp_path)), check=True,
                   capture_output=True, timeout=300)
    pages = list(tmp_path.rglob("tcpdiag.1"))
    assert [p.parent.relative_to(tmp_path).parts[-3:] for p in pages] == [("share", "man", "man1")]
    page = pages[0].read_text()
    options = set(re.findall(r"(?<![\w-])(--?[a-zA-Z][\w-]*)", command.run(["--help"]).stdout))
    assert {"-j", "--jobs", "-F", "--format", "-o", "--option", "-h", "--help", "--version"} <= options
    for option in options:
        assert option.replace("-", "\\-") in page, option
    exit_status = page.split(".SH EXIT STATUS")[1].split(".SH")[0]
    assert re.findall(r"^\.B (\d)$", exit_status, re.MULTILINE) == ["0", "1", "2", "3"]


# The answer first (issue 20, point 5): which flows are slow comes from how each
# capture was made (its .expected.json), never from the command's own output.
NOT_SLOW = {"none", "unknown"}


def expectations(pcap):
    """The expected flows of pcap, if they name one cause for every flow; else None
    (a list of acceptable causes, or flows the expectations do not cover)."""
    spec = json.loads(pcap.with_name(pcap.name.split(".pcap")[0] + ".expected.json").read_text())
    flows = spec.get("flows", [])
    if spec.get("flow_count") != len(flows) or not all(
            isinstance(f["expect"].get("tcpdiag.diag.cause"), str) for f in flows):
        return None
    return flows


def slow_by_construction(pcap):
    """The streams of pcap whose expected cause is neither none nor unknown, the
    streams expected healthy (none), and every stream."""
    streams = {int(stream): cause for stream, cause in expected_causes(pcap).items()}
    slow = {s for s, c in streams.items() if c not in NOT_SLOW}
    healthy = {s for s, c in streams.items() if c == "none"}
    return slow, healthy, set(streams)


DEFINED = [p for p in PCAPS if expectations(p) is not None]


def table_streams(text):
    """The stream of every row of the text report's per-flow table, and its line
    on the rows left out."""
    table = text.split("tcpdiag: per-flow diagnosis\n", 1)[1].split("=" * 20, 1)[0]
    rows = [line for line in table.splitlines()[1:] if line and line[0].isdigit()]
    left_out = [line for line in table.splitlines() if line.startswith("(") and "left out" in line]
    return {int(line.split()[0]) for line in rows}, left_out


@pytest.mark.parametrize("pcap", DEFINED, ids=lambda p: p.name)
def test_slow_shows_the_flows_slow_by_construction_in_every_format(pcap):
    slow, _, _ = slow_by_construction(pcap)
    as_json = {r["tcp.stream"] for r in command.flows(pcap, options=["--slow"])}
    csv_rows = command.run(["--slow", "--format", "csv", pcap]).stdout.splitlines()[1:]
    as_csv = {int(row.split(",")[2]) for row in csv_rows if row.startswith("flow,")}
    ek = [json.loads(line) for line in command.run(["--slow", "--format", "ek", pcap]).stdout.splitlines()]
    as_ek = {doc["tcp_stream"] for doc in ek[1::2]}
    as_text, _ = table_streams(command.run(["--slow", pcap]).stdout)
    assert as_json == slow
    assert as_csv == as_json == as_ek == as_text


@pytest.mark.parametrize("pcap", DEFINED, ids=lambda p: p.name)
def test_text_table_leaves_out_the_healthy_flows_unless_asked(pcap):
    slow, healthy, every = slow_by_construction(pcap)
    shown, left_out = table_streams(command.run([pcap]).stdout)
    assert slow <= shown
    assert not (shown & healthy)
    assert shown == every - healthy
    if healthy:
        assert left_out == [f"({len(healthy)} flow{'s' if len(healthy) > 1 else ''} left out: "
                            "healthy, cause none; --flows shows every flow)"]
    else:
        assert not left_out
    shown_all, left_out = table_streams(command.run(["--flows", pcap]).stdout)
    assert shown_all == every and not left_out


def test_summary_answers_first_for_every_capture(tmp_path):
    """--summary over the committed captures: a line for each file with a slow flow,
    naming how many of its flows are slow and their causes; one line for the files
    with none; the findings ranked by the time they lost; all within a screen. An
    unreadable file says so."""
    missing = tmp_path / "gone.pcap"
    proc = command.run(["--summary", "-j", 2] + PCAPS + [missing], check=False)
    assert proc.returncode == 1
    lines = proc.stdout.splitlines()
    by_file = dict(line.split(": ", 1) for line in lines if ".pcap: " in line)
    # A line per file with a slow flow (or unreadable), then a tail that does not grow
    # with the files: the healthy files' count, a blank line, the ranking's title, its
    # 10 lines and how many more (it was "at most 60 lines" for the bundled set, which
    # grows with every capture committed).
    assert len(lines) == len(by_file) + 14
    assert by_file[str(missing)].startswith("not read: ")
    healthy_files = 0
    for pcap in DEFINED:
        slow, _, every = slow_by_construction(pcap)
        if not slow:
            assert str(pcap) not in by_file
            healthy_files += 1
            continue
        causes = {f["expect"]["tcpdiag.diag.cause"] for f in expectations(pcap)} - NOT_SLOW
        line = by_file[str(pcap)]
        # the application's own pauses are counted apart, as the text report's headline counts them
        by_app = sum(1 for c in expected_causes(pcap).values() if c == "app-limited")
        apart = f", {by_app} limited by {'its' if by_app == 1 else 'their'} application" if by_app else ""
        assert line.startswith(f"{len(every)} flow{'s' if len(every) > 1 else ''}, {len(slow) - by_app} slow{apart}: ")
        named = set(re.findall(r"(?:: |, )([a-z-]+) \(", line))
        assert named == causes, line
    assert any(re.fullmatch(r"and \d+ files read whole, no slow flow \(\d+ flows\)", line) for line in lines)
    ranked = lines[lines.index(next(l for l in lines if l.startswith("Findings ranked by time lost"))) + 1:]
    lost = [float(m.group(1)) * (1 if m.group(2) == "s" else 1e-3)
            for m in (re.match(r" ?\d+\. [a-z-]+: ([\d.]+) (m?s) lost", line) for line in ranked) if m]
    assert len(lost) == 10 and lost == sorted(lost, reverse=True)
    assert re.fullmatch(r"\.\.\. and \d+ more \(tcpdiag FILE reports each file in full\)", ranked[10])
    # the host-stall captures lose the most: six or seven flows each wait out a
    # host that fell silent for seconds (captures/README.md)
    assert ranked[0].split(": ")[0].endswith("host-stall")
    assert "lab-host-stall" in ranked[0] and ", streams 0, 1, 2, 3, 4, 5" in ranked[0]


def test_merge_reads_a_ring_buffer_as_the_whole_capture(tmp_path):
    """--merge: a capture split by editcap -c into files of 1,000 packets (as a
    dumpcap ring buffer rotates) gives the flows and fields of the whole file, in
    whatever order the parts are given; file by file, flows that cross a boundary
    lose their handshake. The records name the first file given."""
    whole = CAPTURES / "lab-host-stall-client.pcap"
    subprocess.run(["editcap", "-c", "1000", whole, tmp_path / "ring.pcap"], check=True, capture_output=True)
    parts = sorted(tmp_path.iterdir())
    assert len(parts) > 2

    def without_file(records):
        return [{k: v for k, v in r.items() if k != "file"} for r in records]

    expected = without_file(command.records(whole))
    merged = command.records(*parts, options=["--merge"])
    assert without_file(merged) == expected
    assert {r["file"] for r in merged} == {str(parts[0])}
    assert without_file(command.records(*reversed(parts), options=["--merge"])) == expected
    apart = command.flows(*parts)
    assert len(apart) != len([r for r in expected if r["record"] == "flow"])


def test_merge_of_a_folder_leaves_out_what_is_not_a_capture(tmp_path):
    """--merge on a folder: the ring buffer's parts are merged as when named, and
    files beside them that are not captures (a note that wiretap would open as
    media, bytes in no known format) are left out and counted, not errors; named
    on the command line, such a file is an error."""
    whole = CAPTURES / "lab-host-stall-client.pcap"
    folder = tmp_path / "ring"
    folder.mkdir()
    subprocess.run(["editcap", "-c", "1000", whole, folder / "ring.pcap"], check=True, capture_output=True)
    parts = sorted(folder.iterdir())
    (folder / "README.txt").write_text("hello\n")
    (folder / "zz.bin").write_bytes(b"\x00\x01garbage")

    def without_file(records):
        return [{k: v for k, v in r.items() if k != "file"} for r in records]

    proc = command.run(["--merge", "--format", "json", folder])
    merged = [json.loads(line) for line in proc.stdout.splitlines()]
    assert without_file(merged) == without_file(command.records(whole))
    assert {r["file"] for r in merged} == {str(parts[0])}
    assert "2 files in the folders given skipped" in proc.stderr
    named = command.run(["--merge", "--format", "json"] + parts + [folder / "zz.bin"], check=False)
    assert named.returncode == 1 and "zz.bin" in named.stderr


@pytest.mark.skipif("ASAN_OPTIONS" in os.environ,
                    reason="ASan's quarantine holds every freed record string: its peaks are not the command's")
def test_records_leave_as_they_are_made(tmp_path):
    """A capture's flow records leave as they are made instead of being composed whole
    first (issue 31): on a 100,000-SYN flood, whose JSON records alone are 120 MB,
    each record format peaks within 1.2 times --summary's peak, which keeps no record
    (test/bench/records measures the million-SYN flood)."""
    flood = tmp_path / "flood.pcap"
    subprocess.run([command.ROOT / "test" / "bench" / "make-synflood", flood, "--flows", "100000"], check=True,
                   capture_output=True)
    summary = command.peak_kib(["--summary", flood])
    for form in ("json", "csv", "ek"):
        assert command.peak_kib(["-F", form, flood]) <= 1.2 * summary, form
