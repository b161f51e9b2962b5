"""A live capture through a pipe (issue 31): real downloads between two network
namespaces, captured with `dumpcap -w -` and piped into `tcpdiag -F json -`, give
each finished flow's record while the capture still runs, not when it stops.

The lab: two namespaces joined by a veth pair (as test/bench/make-capture builds
them; offloads off, so every frame is wire-sized), a small HTTP/1.0 server in one
serving a file of FILE_SIZE bytes (the whole answer in its send buffer at once), and a client in the other that downloads it
DOWNLOADS times one after the other, PAUSE s apart, then makes one tiny request
LAST_GAP s after the last download. dumpcap captures on the client's veth.

Ground truth is the lab's, never tcpdiag's output: the client's ports (getsockname),
the bytes it received (the file plus the HTTP header; the body must be FILE_SIZE),
and the moments it began each connection. With tcpdiag.settle_window_s:1 a closed
download settles once the capture's clock passes its last packet by 1 s, i.e. at
the next connection's first packet, PAUSE (> 1) s later; the tiny request does that
for the last download. So each download's record must be on tcpdiag's standard
output before dumpcap is stopped, the first ones even before the client begins the
connection after next. These are healthy downloads on an idle link: their cause
must be "none".

On a busy machine (the full suite, other builds beside it) nothing here may rest on
a fixed time:
- dumpcap prints "Capturing on ..." before it opens the interface; only its "File:"
  line comes once the interface is open with its filter (dumpcap.c: capture_loop_start
  opens the input and sets the filter, opens the output, then reports the file). The
  client begins only then, so every connection is captured from its SYN: a client
  begun on "Capturing on" had its first download captured mid-flow, without its
  handshake, so without roles, and its record without client or server port
  (issue 36: a KeyError on tcpdiag.flow.server_port under load);
- the client's receive buffer holds a whole answer, so a client starved of CPU by
  other jobs cannot close its window (one descheduled for 300 ms made a "healthy"
  download a true zero-window one), and the server reads its files before it
  listens, so no disk read lies between a request and its answer;
- waits are polls with a generous bound, and the reader thread is joined, not
  slept on."""
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time

import pytest

import command

FILE_SIZE = 2_000_000
DOWNLOADS = 3
PAUSE = 1.5             # s between downloads: more than the settle window
LAST_GAP = 2.0          # s between the last download and the tiny request
WINDOW = 1              # tcpdiag.settle_window_s
PORT = 8080
SEGMENT = 1500 - 40     # the veth's MTU less the IPv4 and TCP headers: no segment carries more
CLIENT_ADDR, SERVER_ADDR = "10.77.251.1", "10.77.251.2"
WAIT = 60               # s, a bound: for records that should arrive in well under one

# The server, run in its namespace: HTTP/1.0, one connection at a time, a file of the
# folder given. The whole answer goes into the socket's send buffer at once (sized to
# hold it), so the kernel alone paces the transfer: a server starved of CPU by other
# jobs (python3 -m http.server copies 64 kB at a time) would be app-limited, truly.
SERVER = r"""
import os, socket, sys
addr, port, folder = sys.argv[1], int(sys.argv[2]), sys.argv[3]
SO_SNDBUFFORCE = 32
files = {}
for name in os.listdir(folder):         # read before listening: no disk on the answer's path
    with open(os.path.join(folder, name), "rb") as f:
        files[name] = f.read()
listener = socket.create_server((addr, port))
print("listening", flush=True)
while True:
    conn, _ = listener.accept()
    with conn:
        request = b""
        while b"\r\n\r\n" not in request:
            chunk = conn.recv(4096)
            if not chunk:
                break
            request += chunk
        body = files[os.path.basename(request.split()[1].decode())]
        answer = f"HTTP/1.0 200 OK\r\nContent-Length: {len(body)}\r\n\r\n".encode() + body
        conn.setsockopt(socket.SOL_SOCKET, SO_SNDBUFFORCE, len(answer) + (1 << 16))
        conn.sendall(answer)
        conn.shutdown(socket.SHUT_WR)
        while conn.recv(4096):          # the client's FIN
            pass
"""

# The client, run in its namespace: one JSON line per connection, as it begins it
# ("begin") and once it has read the whole answer ("done", with its port and bytes).
# Its receive buffer, set before it connects (so the window scale fits it), holds a
# whole answer several times over (the kernel counts each segment's buffer, not its
# payload): a client starved of CPU by other jobs never closes its window, and the
# download stays what the lab means it to be, healthy.
CLIENT = r"""
import json, socket, sys, time
server, port, n, pause, last_gap = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
size = int(sys.argv[6])
SO_RCVBUFFORCE = 33

def say(**kw):
    print(json.dumps(kw), flush=True)

def get(index, path):
    say(event="begin", index=index)
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 4 * size + (1 << 20))
    s.settimeout(60)
    s.connect((server, port))
    client_port = s.getsockname()[1]
    s.sendall(f"GET /{path} HTTP/1.0\r\nHost: {server}\r\n\r\n".encode())
    received = bytearray()
    while True:
        chunk = s.recv(1 << 16)
        if not chunk:
            break
        received += chunk
    s.close()
    head, _, body = bytes(received).partition(b"\r\n\r\n")
    say(event="done", index=index, port=client_port, bytes=len(received), body=len(body),
        status=head.split(b"\r\n")[0].decode())

for i in range(n):
    get(i, "file")
    time.sleep(pause if i + 1 < n else last_gap)
get(n, "tiny")
"""


def ip(*args, ns=None, check=True):
    cmd = ["ip", "netns", "exec", ns, *args] if ns else list(args)
    return subprocess.run(cmd, check=check, capture_output=True, text=True).stdout


def remove_namespace(ns):
    """End whatever still runs in the namespace (this test started it: the name is
    this process's), then delete it, and with it its end of the veth pair."""
    for pid in ip("ip", "netns", "pids", ns, check=False).split():
        try:
            os.kill(int(pid), signal.SIGKILL)
        except ProcessLookupError:
            pass
    ip("ip", "netns", "del", ns, check=False)


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """Two namespaces, a veth pair between them and the file server; names carry
    this process's pid, so parallel test workers never share them."""
    if os.geteuid() != 0:
        pytest.skip("needs root (network namespaces, dumpcap)")
    missing = [tool for tool in ("ip", "dumpcap", "ethtool") if not shutil.which(tool)]
    if missing:
        pytest.skip(f"needs {', '.join(missing)}")
    files = tmp_path_factory.mktemp("served")
    tag = os.getpid()
    client_ns, server_ns = f"tdlive-{tag}-c", f"tdlive-{tag}-s"
    client_if, server_if = f"tl{tag}c", f"tl{tag}s"       # at most 15 characters
    started = []
    try:
        for ns in (client_ns, server_ns):
            made = subprocess.run(["ip", "netns", "add", ns], capture_output=True, text=True)
            if made.returncode != 0 and "not permitted" in made.stderr.lower():
                # root without CAP_SYS_ADMIN (an unprivileged container): no lab here
                pytest.skip(f"network namespaces refused: {made.stderr.strip()}")
            assert made.returncode == 0, made.stderr
            ip("ip", "link", "set", "lo", "up", ns=ns)
        ip("ip", "link", "add", client_if, "netns", client_ns, "type", "veth",
           "peer", "name", server_if, "netns", server_ns)
        for ns, dev, addr in ((client_ns, client_if, CLIENT_ADDR), (server_ns, server_if, SERVER_ADDR)):
            ip("ethtool", "-K", dev, "tx", "off", "tso", "off", "gso", "off", "gro", "off", ns=ns)
            ip("ip", "addr", "add", f"{addr}/24", "dev", dev, ns=ns)
            ip("ip", "link", "set", dev, "up", ns=ns)
        (files / "file").write_bytes(bytes(range(256)) * (FILE_SIZE // 256) + bytes(FILE_SIZE % 256))
        (files / "tiny").write_bytes(b"tiny\n")
        server = subprocess.Popen(["ip", "netns", "exec", server_ns, sys.executable, "-c", SERVER, SERVER_ADDR,
                                   str(PORT), str(files)],
                                  stdout=subprocess.PIPE, text=True)
        started.append(server)
        line = server.stdout.readline()         # printed once the socket listens
        assert line.strip() == "listening", f"server: {line!r}"
        yield {"client_ns": client_ns, "client_if": client_if, "started": started}
    finally:
        for proc in reversed(started):
            if proc.poll() is None:
                proc.kill()
            proc.wait()
        for ns in (client_ns, server_ns):
            remove_namespace(ns)


def read_lines(stream, into):
    """Each line of the stream with the moment it arrived (time.monotonic)."""
    for line in stream:
        into.append((time.monotonic(), line))


def reader(stream, into):
    """A thread that appends the stream's lines to into until its end."""
    thread = threading.Thread(target=read_lines, args=(stream, into), daemon=True)
    thread.start()
    return thread


def wait_until(predicate, seconds):
    """Poll until the predicate holds, at most seconds (a bound, not a pace): whether
    it held."""
    deadline = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.05)
    return True


def start_dumpcap(ns, *args):
    """dumpcap started in the namespace, returned once it captures: its "File:" line
    (the output's name, "-" for standard output) comes after it has opened the
    interface and set the filter, where "Capturing on" comes before. Its standard
    error is read on, by the thread returned, into the list returned, so it never
    fills."""
    dumpcap = subprocess.Popen(["ip", "netns", "exec", ns, "dumpcap", *args],
                               stdout=subprocess.PIPE if args[-1] == "-" else subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
    lines = []
    stderr_reader = reader(dumpcap.stderr, lines)
    capturing = wait_until(lambda: any(line.startswith("File: ") for _, line in lines) or dumpcap.poll() is not None,
                           WAIT)
    said = "".join(line for _, line in lines)
    assert capturing and dumpcap.poll() is None, f"dumpcap is not capturing: {said!r}"
    assert said.startswith("Capturing on"), said
    return dumpcap, lines, stderr_reader


def run_client(lab):
    """The client's downloads and tiny request, each with the moment it began and
    ended; the downloads checked against the file served."""
    client = subprocess.Popen(["ip", "netns", "exec", lab["client_ns"], sys.executable, "-c", CLIENT, SERVER_ADDR,
                               str(PORT), str(DOWNLOADS), str(PAUSE), str(LAST_GAP), str(FILE_SIZE)],
                              stdout=subprocess.PIPE, text=True)
    lab["started"].append(client)
    events = []
    read_lines(client.stdout, events)
    assert client.wait(30) == 0
    events = [(t, json.loads(line)) for t, line in events]
    done = [e for _, e in events if e["event"] == "done"]
    assert len(done) == DOWNLOADS + 1
    for d in done[:DOWNLOADS]:
        assert d["status"].endswith("200 OK") and d["body"] == FILE_SIZE, d
    return events, done


def flow_records(out):
    """Flow records so far of tcpdiag's output lines to the server's port, by client
    port, with the moment each arrived. A flow seen without its handshake has no
    roles, so no ports: it is none of these (test_every_flow_was_seen_from_its_handshake
    says whether there was one)."""
    recs = ((t, json.loads(line)) for t, line in list(out))
    return {r["tcpdiag.flow.client_port"]: (t, r) for t, r in recs
            if r["record"] == "flow" and r.get("tcpdiag.flow.server_port") == PORT}


def without_roles(out):
    """The flow records of tcpdiag's output lines whose roles are not known."""
    recs = (json.loads(line) for _, line in list(out))
    return [r for r in recs if r["record"] == "flow" and r["tcpdiag.flow.roles"] != "known"]


@pytest.fixture(scope="module")
def live(lab):
    """One live run: dumpcap on the client's veth piped into tcpdiag while the
    client downloads; dumpcap is stopped once the downloads' records are out (or
    WAIT s have passed). What the client did, and tcpdiag's records with the moment
    each arrived on its standard output."""
    ns, started = lab["client_ns"], lab["started"]
    dumpcap, said, said_reader = start_dumpcap(ns, "-q", "-i", lab["client_if"], "-f", "tcp", "-s", "128", "-B", "32",
                                  "-w", "-")
    started.append(dumpcap)
    tcpdiag = subprocess.Popen([str(command.command_path()), "-F", "json",
                                "-o", f"tcpdiag.settle_window_s:{WINDOW}", "-"],
                               stdin=dumpcap.stdout, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    started.append(tcpdiag)
    dumpcap.stdout.close()                      # tcpdiag alone reads the pipe: dumpcap's end is its EOF
    out = []
    out_reader = reader(tcpdiag.stdout, out)

    events, done = run_client(lab)

    def arrived():
        return flow_records(out)

    # every download settles while the capture goes on (the last one at the tiny
    # request's first packet, before the client exits): wait for their records
    ports = [d["port"] for d in done[:DOWNLOADS]]
    wait_until(lambda: set(ports) <= arrived().keys(), WAIT)
    stopped = time.monotonic()
    dumpcap.send_signal(signal.SIGINT)
    dumpcap_rc = dumpcap.wait(WAIT)
    tcpdiag_rc = tcpdiag.wait(WAIT)
    for thread in (out_reader, said_reader):    # at their streams' end every line is in
        thread.join(WAIT)
        assert not thread.is_alive()
    return {"downloads": done[:DOWNLOADS], "tiny": done[DOWNLOADS],
            "begun": {e["index"]: t for t, e in events if e["event"] == "begin"},
            "records": arrived(), "without_roles": without_roles(out), "stopped": stopped,
            "files": [json.loads(line) for _, line in out if '"record":"file"' in line],
            "dumpcap": (dumpcap_rc, "".join(line for _, line in said)), "tcpdiag": (tcpdiag_rc, tcpdiag.stderr.read())}


def test_every_flow_was_seen_from_its_handshake(live):
    """The client began once dumpcap captured: every connection's SYN is in the
    capture, so every flow has its roles (and its ports, which the tests below key
    on)."""
    assert live["without_roles"] == [], live["dumpcap"]


def test_each_download_is_a_closed_flow_with_the_bytes_the_client_received(live):
    """The server's payload bytes on the wire are what the client received (at least
    FILE_SIZE for a download), more only by what the server sent again: at most a
    full segment for each retransmission. Not always more: a segment the capture saw
    only once, below the highest sequence seen (lost before the client's veth and
    sent again, or delivered out of order by a busy machine's two CPUs late enough
    to read as sent again), is counted a retransmission and adds no byte. Seen once
    under the full suite's load: 1 retransmission, s2c bytes = bytes received."""
    for d in live["downloads"] + [live["tiny"]]:
        assert d["port"] in live["records"], (d, live["dumpcap"])
        record = live["records"][d["port"]][1]
        assert record["tcpdiag.flow.state"] == "closed", record
        sent = record["tcpdiag.flow.s2c.bytes"]
        again = record["s2c"]["tcpdiag.flight.retransmissions"]
        assert d["bytes"] <= sent <= d["bytes"] + again * SEGMENT, (record, d, live["dumpcap"])
    for d in live["downloads"]:
        assert live["records"][d["port"]][1]["tcpdiag.flow.s2c.bytes"] >= FILE_SIZE


def test_a_downloads_record_arrives_while_the_capture_goes_on(live):
    """Download k settles when download k+1's first packet moves the clock past its
    end by more than the window: its record is out before the client even begins
    the connection after that (PAUSE s later), let alone before dumpcap stops."""
    for k, d in enumerate(live["downloads"][:-1]):
        assert d["port"] in live["records"], f"download {k + 1} gave no record"
        when = live["records"][d["port"]][0]
        assert when < live["stopped"], f"download {k + 1}'s record came only once dumpcap was stopped"
        assert when < live["begun"][k + 2], f"download {k + 1}'s record came after connection {k + 3} began"


def test_the_last_download_settles_on_a_later_tiny_request_before_the_capture_stops(live):
    """The tiny request LAST_GAP s after the last download moves the clock past
    that download's end by more than the window: it settles then, while the capture
    goes on."""
    last = live["downloads"][-1]
    assert last["port"] in live["records"]
    assert live["records"][last["port"]][0] < live["stopped"]


def test_healthy_downloads_on_an_idle_link_are_no_false_alarm(live):
    for d in live["downloads"] + [live["tiny"]]:
        record = live["records"][d["port"]][1]
        assert record["tcpdiag.diag.cause"] == "none", (record["tcpdiag.diag.summary"], record["s2c"])


def test_stopping_the_capture_ends_the_run_cleanly_with_the_file_record(live):
    """dumpcap stopped by SIGINT closes the pipe: tcpdiag settles what is left (the
    tiny request at least), writes the file record and exits 0."""
    assert live["dumpcap"][0] == 0, live["dumpcap"]
    assert live["tcpdiag"][0] == 0, live["tcpdiag"]
    assert live["tiny"]["port"] in live["records"]
    assert set(live["records"]) == {d["port"] for d in live["downloads"]} | {live["tiny"]["port"]}
    assert len(live["files"]) == 1 and live["files"][0]["file.flows"] == DOWNLOADS + 1, live["files"]


@pytest.fixture(scope="module")
def ring(lab, tmp_path_factory):
    """The same downloads captured into a dumpcap ring buffer of one-second files
    (dumpcap -b duration:1 -w ring.pcapng) that tcpdiag --follow reads as they are
    written; dumpcap is stopped, then tcpdiag by SIGINT, as a user ends the run."""
    folder = tmp_path_factory.mktemp("ring")
    name = folder / "ring.pcapng"
    ns, started = lab["client_ns"], lab["started"]
    dumpcap, _, _ = start_dumpcap(ns, "-q", "-i", lab["client_if"], "-f", "tcp", "-s", "128", "-b", "duration:1",
                               "-w", str(name))
    started.append(dumpcap)
    tcpdiag = subprocess.Popen([str(command.command_path()), "--follow", "-F", "json",
                                "-o", f"tcpdiag.settle_window_s:{WINDOW}", str(name)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    started.append(tcpdiag)
    out = []
    out_reader = reader(tcpdiag.stdout, out)
    _, done = run_client(lab)
    ports = [d["port"] for d in done[:DOWNLOADS]]
    wait_until(lambda: set(ports) <= flow_records(out).keys(), WAIT)
    stopped = time.monotonic()
    dumpcap.send_signal(signal.SIGINT)
    dumpcap_rc = dumpcap.wait(WAIT)
    tcpdiag.send_signal(signal.SIGINT)
    tcpdiag_rc = tcpdiag.wait(WAIT)
    out_reader.join(WAIT)                       # its standard output's end: every line is in
    assert not out_reader.is_alive()
    return {"downloads": done[:DOWNLOADS], "tiny": done[DOWNLOADS], "records": flow_records(out),
            "without_roles": without_roles(out), "stopped": stopped,
            "files": sorted(folder.glob("ring_*.pcapng")),
            "lines": [json.loads(line) for _, line in out],
            "dumpcap": dumpcap_rc, "tcpdiag": (tcpdiag_rc, tcpdiag.stderr.read())}


def test_every_followed_flow_was_seen_from_its_handshake(ring):
    assert ring["without_roles"] == []


def test_a_followed_ring_gives_records_while_dumpcap_writes_it(ring):
    """Each download's record comes while dumpcap still writes the ring: the file
    holding the packet that settles it is read once dumpcap goes on to the next."""
    assert len(ring["files"]) > 2, ring["files"]
    for k, d in enumerate(ring["downloads"]):
        assert d["port"] in ring["records"], f"download {k + 1} gave no record"
        assert ring["records"][d["port"]][0] < ring["stopped"], f"download {k + 1} came after dumpcap stopped"


def test_a_followed_ring_reads_as_its_files_merged(ring):
    """^C ends the run cleanly, the newest file read as dumpcap left it: every flow
    has its record, the same as --merge gives on the finished ring, and the one file
    record counts them all."""
    assert ring["dumpcap"] == 0
    assert ring["tcpdiag"][0] == 0, ring["tcpdiag"]
    followed = {r["tcp.stream"]: dict(r, file=None) for r in ring["lines"] if r["record"] == "flow"}
    merged = {r["tcp.stream"]: dict(r, file=None)
              for r in command.flows(*ring["files"], options=["--merge", "-o", f"tcpdiag.settle_window_s:{WINDOW}"])}
    assert followed == merged
    assert {d["port"] for d in ring["downloads"] + [ring["tiny"]]} <= set(ring["records"])
    files = [r for r in ring["lines"] if r["record"] == "file"]
    assert len(files) == 1 and files[0]["file.flows"] == len(followed)
