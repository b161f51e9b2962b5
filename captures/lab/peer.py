#!/usr/bin/python3
"""Traffic generator for the capture lab: a download server and a client.

server: accepts connections and sends each one BYTES bytes, then closes; one
        connection after another, or each in its own thread (--concurrent).
        Congestion control is chosen per socket with setsockopt(TCP_CONGESTION)
        (the per-namespace sysctl is refused on this kernel), one for all
        connections or one per connection in accept order (--cc cubic,reno,bbr); an optional
        SO_MAX_PACING_RATE makes a transfer last a known time, an optional
        SO_SNDBUF bounds what the kernel may hold unacked (--bytes and --pace take
        one value for all connections or one per connection in accept order), and --burst/--pause
        make the application the bottleneck; --long-pause D --long-pause-at
        T0,T1,.. makes the writer of the i-th accepted connection sleep once for
        D s at its first burst boundary Ti s after its first write (the pause's
        CLOCK_REALTIME start and end are logged). With --tcpinfo a thread polls
        TCP_INFO every ~1 ms while a connection sends and the "served" record
        gets the kernel's busy / rwnd-limited / sndbuf-limited split.
client: opens COUNT connections one after another (never two at once, so
        Wireshark's tcp.stream numbers follow connection order), reads each to
        EOF and logs one JSON line per connection. With --parallel it still
        connects them one after another (each connect() returns before the next
        starts, so tcp.stream still follows connection order) but reads all of
        them at the same time, one thread each. Before each connect it may
        write net.ipv4.tcp_ecn of its own namespace (--ecn-schedule), which is
        how one connection in twenty requests ECN. An optional SO_RCVBUF, set
        before connect(), clamps the receive window from the SYN on. With --late K
        the last K connections each wait for a line on stdin before connecting
        (lab.py opens one at a chosen moment, e.g. while the server is silenced).
        With --bind-port P every connection is made from the same local port P
        (SO_REUSEADDR, bind, then connect), and --close says per connection how it
        ends (see CLOSES; port-reuse).

Both sides log what the kernel reports in TCP_INFO at the end of each connection
(negotiated ECN, advertised MSS, retransmissions, congestion control).
"""
import argparse
import gzip
import json
import socket
import struct
import subprocess
import sys
import threading
import time

TCP_CONGESTION = getattr(socket, "TCP_CONGESTION", 13)
TCP_INFO = getattr(socket, "TCP_INFO", 11)
TCP_CC_INFO = 26
# struct tcp_bbr_info (linux/inet_diag.h): bw_lo, bw_hi, min_rtt, pacing_gain, cwnd_gain
BBR_INFO = struct.Struct("5I")
BBR_UNIT = 256
SO_MAX_PACING_RATE = 47
TCPI_OPT_ECN = 8             # "ECN was negotiated at TCP session init"
TCPI_OPT_ECN_SEEN = 16       # "we received at least one packet with ECT"
TCPI_OPT_TIMESTAMPS, TCPI_OPT_SACK, TCPI_OPT_WSCALE = 1, 2, 4
ECN_SYSCTL = "/proc/sys/net/ipv4/tcp_ecn"
# The handshake options a Linux SYN offers (and a SYN-ACK may echo), one sysctl each.
OPTS_SYSCTLS = {"tcp_window_scaling": "/proc/sys/net/ipv4/tcp_window_scaling",
                "tcp_sack": "/proc/sys/net/ipv4/tcp_sack",
                "tcp_timestamps": "/proc/sys/net/ipv4/tcp_timestamps"}
# How a connection ends (--close, one per connection, given to client and server alike),
# and so which socket, if any, still holds the address/port pair when the next connect()
# from the same port comes:
#   server-fin             the server sends FIN after its last byte; the client reads to
#                          EOF and closes (FIN): the server is the active closer and its
#                          socket stays in TIME_WAIT (the client's goes LAST_ACK -> CLOSED)
#   server-fin-client-rst  the server sends FIN after its last byte; the client reads to
#                          EOF and aborts (SO_LINGER {1, 0}): a RST ends both sockets
#   client-rst             the server sends its bytes and waits; the client reads them all
#                          and aborts (RST) before any FIN: nothing is left on either side
#   client-fin             the server sends its bytes and waits; the client reads them all
#                          and closes first (FIN), then the server: the client's socket
#                          stays in TIME_WAIT. A connect() from a port bound beforehand takes
#                          it over when it holds a timestamp, whatever tcp_tw_reuse says
#                          (that sysctl governs ephemeral ports only); without timestamps
#                          it is refused, EADDRNOTAVAIL (captures/lab/README.md)
CLOSES = ("server-fin", "server-fin-client-rst", "client-rst", "client-fin")
LINGER_ABORT = struct.pack("ii", 1, 0)      # struct linger {l_onoff = 1, l_linger = 0}


def recv_exactly(sock, n):
    """Reads n bytes (the peer has not closed yet); returns the byte count."""
    got = 0
    while got < n:
        chunk = sock.recv(min(1 << 16, n - got))
        if not chunk:
            break
        got += len(chunk)
    return got


def time_wait_sockets():
    """This namespace's TCP sockets in TIME_WAIT, as ss lists them: [local, peer] each."""
    out = subprocess.run(["ss", "-Htan", "state", "time-wait"], check=True, text=True,
                         capture_output=True).stdout
    return [line.split()[-2:] for line in out.splitlines() if line.strip()]


def recv_all(sock):
    """Reads until the peer closes; returns the byte count."""
    got = 0
    while True:
        chunk = sock.recv(1 << 16)
        if not chunk:
            return got
        got += len(chunk)


# struct tcp_info (linux/tcp.h): byte offset and struct format of each field the lab
# reads. The u64 fields sit at 8-byte-aligned offsets (checked against offsetof()).
TCPI = {
    "ca_state": (1, "B"), "rto": (8, "I"), "snd_mss": (16, "I"), "rcv_mss": (20, "I"), "unacked": (24, "I"),
    "lost": (32, "I"), "retrans": (36, "I"), "rtt_us": (68, "I"), "snd_ssthresh": (76, "I"),
    "snd_cwnd": (80, "I"), "advmss": (84, "I"), "total_retrans": (100, "I"),
    "bytes_acked": (120, "Q"), "busy_time": (168, "Q"), "rwnd_limited": (176, "Q"),
    "sndbuf_limited": (184, "Q"), "delivered": (192, "I"), "delivered_ce": (196, "I"),
    "bytes_sent": (200, "Q"), "snd_wnd": (228, "I"), "received_ce": (248, "I"),
}
TCPI_LEN = 232          # sizeof(struct tcp_info) up to and including tcpi_snd_wnd
TCPI_RECEIVED_CE_END = 252     # kernels since 6.18 (AccECN counters) reach this far
TCPI_ASK = 512          # newer kernels have a longer struct; they return min(ask, theirs)


def raw_tcp_info(sock):
    raw = sock.getsockopt(socket.IPPROTO_TCP, TCP_INFO, TCPI_ASK)
    if len(raw) < TCPI_LEN:
        raise RuntimeError(f"TCP_INFO returned {len(raw)} bytes, need {TCPI_LEN}")
    return raw


def tcpi(raw, names):
    return {n: struct.unpack_from(TCPI[n][1], raw, TCPI[n][0])[0] for n in names}


def tcp_info(sock):
    """The TCP_INFO fields the lab logs at the end of a connection."""
    raw = raw_tcp_info(sock)
    options = raw[5]
    info = {
        "ecn_negotiated": bool(options & TCPI_OPT_ECN),
        "ecn_seen": bool(options & TCPI_OPT_ECN_SEEN),
        **tcpi(raw, ("snd_mss", "rcv_mss", "rtt_us", "snd_cwnd", "advmss", "total_retrans",
                     "delivered_ce", "rto", "busy_time", "rwnd_limited", "sndbuf_limited")),
        # Agreed handshake options (both sides announced them) and the agreed shifts:
        # byte 6 is the bitfield tcpi_snd_wscale:4 (low nibble), tcpi_rcv_wscale:4.
        "options": options,
        "ts_ok": bool(options & TCPI_OPT_TIMESTAMPS),
        "sack_ok": bool(options & TCPI_OPT_SACK),
        "wscale_ok": bool(options & TCPI_OPT_WSCALE),
        "snd_wscale": raw[6] & 0x0f,
        "rcv_wscale": raw[6] >> 4,
    }
    if len(raw) >= TCPI_RECEIVED_CE_END:
        # CE-marked segments this side received (a 6.18 field): the receiver's own count.
        info.update(tcpi(raw, ("received_ce",)))
    return info


# ----------------------------------------------------------------------------------
# TCP_INFO poller: what limits the sender's flight, in the kernel's own accounting
# ----------------------------------------------------------------------------------
POLL_S = 0.001
SAMPLE_FIELDS = ("snd_cwnd", "snd_ssthresh", "ca_state", "unacked", "retrans", "total_retrans",
                 "lost", "rtt_us", "busy_time", "rwnd_limited", "sndbuf_limited", "delivered",
                 "delivered_ce", "bytes_acked", "bytes_sent", "snd_wnd")


class Poller(threading.Thread):
    """Samples TCP_INFO every ~1 ms from accept until everything written (the data and
    the FIN) is acked: the first sample with tcpi_unacked == 0 after `written` is set."""

    def __init__(self, conn):
        super().__init__(daemon=True)
        self.conn = conn
        self.written = threading.Event()
        # (monotonic s, CLOCK_REALTIME s, {field: value}); the wall clock is tcpdump's,
        # so a sample can be placed among the packets of a capture.
        self.samples = []

    def run(self):
        while True:
            done = self.written.is_set()    # read first: the sample then follows the FIN
            s = tcpi(raw_tcp_info(self.conn), SAMPLE_FIELDS)
            s["pacing_gain"] = pacing_gain(self.conn)
            self.samples.append((time.monotonic(), time.time(), s))
            if done and s["unacked"] == 0:
                return
            time.sleep(POLL_S)


def pacing_gain(sock):
    """BBR's pacing gain now, x BBR_UNIT (ProbeBW cycles 320, 192, 256 x 6; startup 739,
    drain 88), from TCP_CC_INFO; 0 for cubic and reno, whose modules report nothing."""
    raw = sock.getsockopt(socket.IPPROTO_TCP, TCP_CC_INFO, BBR_INFO.size)
    return BBR_INFO.unpack(raw)[3] if len(raw) == BBR_INFO.size else 0


def flight_verdict(samples, t_first_write):
    """Splits the transfer window (first write -> last byte and FIN acked) the way
    net/ipv4/tcp.c reports it: tcpi_busy_time is the sum of the BUSY, RWND_LIMITED and
    SNDBUF_LIMITED chronographs (BUSY runs while the write or retransmit queue holds
    data; the limited ones take precedence while they run), so busy minus the two
    limited times is time the congestion window governed, and window minus busy is
    time the application left the socket with nothing to send."""
    t_end, _, last = samples[-1]
    window_us = round((t_end - t_first_write) * 1e6)
    busy, rwnd, sndbuf = last["busy_time"], last["rwnd_limited"], last["sndbuf_limited"]
    times_us = {"cwnd": busy - rwnd - sndbuf, "rwnd": rwnd, "sender": sndbuf,
                "app": max(0, window_us - busy)}    # busy counts whole jiffies (4 ms here)
    total = sum(times_us.values())
    return {"window_us": window_us, "busy_time_us": busy, "rwnd_limited_us": rwnd,
            "sndbuf_limited_us": sndbuf, "samples": len(samples),
            "times_ms": {k: round(v / 1000, 1) for k, v in times_us.items()},
            "shares": {k: round(v / total, 3) for k, v in times_us.items()},
            "dominant": max(times_us, key=times_us.get)}


def write_samples(out, index, t0, samples):
    for t, wall, s in samples:
        out.write(f"{index},{round((t - t0) * 1e6)}," + ",".join(str(s[k]) for k in SAMPLE_FIELDS)
                  + f",{round(wall * 1e6)},{s['pacing_gain']}\n")


def cc_of(sock):
    return sock.getsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, 16).split(b"\0")[0].decode()


def emit(log, record):
    line = json.dumps(record, sort_keys=True)
    log.write(line + "\n")
    log.flush()


def send_bytes(conn, n, payload):
    while n:
        n -= conn.send(payload[:min(n, len(payload))])


def write_all(conn, args, payload, pause_at=None):
    """Writes --bytes; with --burst, B bytes then --pause s of silence, repeatedly, as an
    application that has nothing more to send yet. With pause_at, the first burst
    boundary at least pause_at s after the first write sleeps --long-pause s instead;
    returns that pause's CLOCK_REALTIME start and end (None without one)."""
    left = args.bytes
    t0 = time.monotonic()
    long_pause = None
    while left:
        n = min(args.burst or left, left)
        send_bytes(conn, n, payload)
        left -= n
        if not left:
            break
        if long_pause is None and pause_at is not None and time.monotonic() - t0 >= pause_at:
            start = time.time()
            time.sleep(args.long_pause)
            long_pause = {"start": start, "end": time.time(), "after_bytes": args.bytes - left}
        elif args.pause:
            time.sleep(args.pause)
    return long_pause


def per_conn(values, index, kind=int):
    """One value of a comma-separated option given for all connections or one each."""
    parts = values.split(",")
    return kind(parts[index] if len(parts) > 1 else parts[0])


def serve(args):
    family = socket.AF_INET6 if ":" in args.bind else socket.AF_INET
    ls = socket.socket(family, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ccs = args.cc.split(",")
    if len(ccs) > 1 and len(ccs) != args.count:
        sys.exit("--cc needs one value, or one per connection")
    for option in (args.bytes, args.pace, args.close):
        if "," in option and len(option.split(",")) != args.count:
            sys.exit("--bytes, --pace and --close need one value, or one per connection")
    if set(args.close.split(",")) - set(CLOSES):
        sys.exit(f"--close: one of {', '.join(CLOSES)}")
    ls.bind((args.bind, args.port))
    ls.listen(16)
    log = open(args.log, "a") if args.log else sys.stdout
    emit(log, {"event": "listening", "bind": args.bind, "port": args.port, "cc": ccs})
    series = gzip.open(args.tcpinfo, "wt") if args.tcpinfo else None
    if series:
        series.write("conn,t_us," + ",".join(SAMPLE_FIELDS) + ",epoch_us,pacing_gain\n")
    payload = bytes(range(256)) * 256           # 64 KiB, not all zeros
    pause_at = [float(x) for x in args.long_pause_at.split(",")] if args.long_pause_at else []
    if pause_at and len(pause_at) != args.count:
        sys.exit("--long-pause-at needs one time per connection")
    lock = threading.Lock()     # the log and the sample file are shared by concurrent connections
    threads = []
    served = 0
    # Set on the listener so the SYN-ACK and the accepted socket already use it: a child
    # socket takes the listener's congestion control when its handshake completes. The
    # next connection's is set as soon as this one is accepted; sequential clients
    # connect the next only after this one closed (lab.py checks each accepted socket's).
    ls.setsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, ccs[0].encode())
    while args.count == 0 or served < args.count:
        conn, peer = ls.accept()
        ls.setsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, ccs[(served + 1) % len(ccs)].encode())
        conn_args = argparse.Namespace(**{**vars(args), "bytes": per_conn(args.bytes, served),
                                          "pace": per_conn(args.pace, served),
                                          "close": per_conn(args.close, served, str)})
        job = (conn_args, log, series, lock, payload, conn, peer, served,
               pause_at[served] if pause_at else None)
        if args.concurrent:
            threads.append(threading.Thread(target=serve_conn, args=job))
            threads[-1].start()
        else:
            serve_conn(*job)
        served += 1
    for t in threads:
        t.join()
    if series:
        series.close()


def serve_conn(args, log, series, lock, payload, conn, peer, index, pause_at):
    """Sends one accepted connection (the index-th) its bytes and logs its record."""
    t_accept = time.monotonic()
    start = time.time()
    extra = {}
    if series:
        poller = Poller(conn)
        poller.start()
    if args.pace:
        conn.setsockopt(socket.SOL_SOCKET, SO_MAX_PACING_RATE, args.pace)
    if args.sndbuf:
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, args.sndbuf)
        # Linux doubles the value (bookkeeping overhead) and locks it: no autotuning.
        extra["sndbuf_set"] = args.sndbuf
        extra["sndbuf_readback"] = conn.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF)
    if args.burst:
        extra.update(burst_bytes=args.burst, pause_s=args.pause)
    t_write = time.monotonic()
    first_write = time.time()
    long_pause = write_all(conn, args, payload, pause_at)
    if long_pause:
        extra.update(long_pause=long_pause, first_write=first_write)
    if args.close.startswith("server-fin"):
        conn.shutdown(socket.SHUT_WR)       # FIN after the last byte
    if series:
        poller.written.set()
        poller.join(60)
        if poller.is_alive() or not poller.samples or poller.samples[-1][2]["unacked"]:
            raise RuntimeError("TCP_INFO poller ended before everything was acked")
        extra["flight"] = flight_verdict(poller.samples, t_write)
        extra["flight"]["first_write_after_accept_us"] = round((t_write - t_accept) * 1e6)
        with lock:
            write_samples(series, index, t_accept, poller.samples)
    conn.settimeout(30)
    ended = "eof"
    try:
        while conn.recv(4096):              # wait for the client's FIN (or RST)
            pass
    except ConnectionResetError:
        ended = "reset"
    info = tcp_info(conn)
    local = conn.getsockname()
    cc = cc_of(conn)
    end = time.time()
    conn.close()
    if args.reuse_log:
        # After server-fin the socket is already in TIME_WAIT here (the client's FIN
        # came in FIN_WAIT_2); the next SYN from the same port meets it.
        extra.update(close=args.close, ended=ended, closed_at=time.time(),
                     time_wait_after_close=time_wait_sockets())
    elif ended != "eof":
        raise RuntimeError(f"connection {index}: the client reset it")
    with lock:
        emit(log, {"event": "served", "index": index, "local": [local[0], local[1]],
                   "remote": [peer[0], peer[1]], "bytes": args.bytes, "cc": cc,
                   "pace_Bps": args.pace, "start": start, "end": end,
                   "tcp_info": info, **extra})


def read_sysctl(path):
    with open(path) as f:
        return int(f.read())


def write_sysctl(path, value):
    with open(path, "w") as f:
        f.write(str(value))


def client(args):
    servers = args.connect.split(",")
    if len(servers) > 1 and len(servers) != args.count:
        sys.exit("--connect: one address, or one per connection")
    family = socket.AF_INET6 if ":" in servers[0] else socket.AF_INET
    schedule = [int(x) for x in args.ecn_schedule.split(",")] if args.ecn_schedule else []
    if schedule and len(schedule) != args.count:
        sys.exit("--ecn-schedule needs one value per connection")
    opts = [int(x) for x in args.opts_schedule.split(",")] if args.opts_schedule else []
    if opts and len(opts) != args.count:
        sys.exit("--opts-schedule needs one value per connection")
    closes = args.close.split(",") if args.close else []
    expect = [int(x) for x in args.expect.split(",")] if args.expect else []
    for schedule_ in (closes, expect):
        if schedule_ and len(schedule_) != args.count:
            sys.exit("--close and --expect need one value per connection")
    if set(closes) - set(CLOSES):
        sys.exit(f"--close: one of {', '.join(CLOSES)}")
    if {"client-rst", "client-fin"} & set(closes) and not expect:
        sys.exit("--close client-*: the client must know how many bytes to read (--expect)")
    log = open(args.log, "a") if args.log else sys.stdout
    lock = threading.Lock()     # parallel readers share the log
    readers = []
    for i in range(args.count):
        if i >= args.count - args.late:
            sys.stdin.readline()                # lab.py says when
        if schedule:
            write_sysctl(ECN_SYSCTL, schedule[i])
        ecn_sysctl = read_sysctl(ECN_SYSCTL)
        if opts:
            for path in OPTS_SYSCTLS.values():
                write_sysctl(path, opts[i])
        extra = {}
        if opts:
            extra["opts_sysctls"] = {k: read_sysctl(path) for k, path in OPTS_SYSCTLS.items()}
        s = socket.socket(family, socket.SOCK_STREAM)
        if args.rcvbuf:
            # Before connect(): the SYN's window and the window clamp already follow it.
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, args.rcvbuf)
            extra.update(rcvbuf_set=args.rcvbuf,
                         rcvbuf_readback=s.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF))
        if args.bind_port:
            # What still holds the pair in this namespace (the previous connection's
            # TIME_WAIT after client-fin), then the same local port again.
            extra["time_wait_before_connect"] = time_wait_sockets()
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind(("::" if family == socket.AF_INET6 else "0.0.0.0", args.bind_port))
        start = time.time()
        t0 = time.monotonic()
        s.connect((servers[i if len(servers) > 1 else 0], args.port))
        t_conn = time.monotonic()
        local, remote = s.getsockname(), s.getpeername()
        # One line the moment the connection is up (lab.py waits for it to start a
        # mid-flow capture or a stall), then the full record when the transfer is over.
        print(json.dumps({"event": "connected", "index": i, "local_port": local[1]}), flush=True)
        record = {"event": "conn", "index": i, "local": [local[0], local[1]],
                  "remote": [remote[0], remote[1]], "tcp_ecn_sysctl": ecn_sysctl,
                  "start": start, "connect_s": t_conn - t0, **extra}
        close = closes[i] if closes else None
        if close:
            record["close"] = close
        how = (close, expect[i] if expect else 0)
        if args.parallel:
            readers.append(threading.Thread(target=download, args=(s, t0, record, log, lock, *how)))
            readers[-1].start()
        else:
            download(s, t0, record, log, lock, *how)
            if args.gap:
                time.sleep(args.gap)
    for r in readers:
        r.join()


def download(s, t0, record, log, lock, close=None, expect=0):
    """Reads connection s to EOF (or, when the client closes first, its `expect` bytes),
    closes it as `close` says (see CLOSES), then logs its record with what the transfer
    took."""
    got = recv_exactly(s, expect) if close in ("client-rst", "client-fin") else recv_all(s)
    end = time.time()
    duration = time.monotonic() - t0
    info = tcp_info(s)
    if close in ("client-rst", "server-fin-client-rst"):
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, LINGER_ABORT)     # close() sends RST
    s.close()
    if close:
        record["closed_at"] = time.time()
    with lock:
        emit(log, {**record, "end": end, "duration_s": duration, "bytes": got,
                   "throughput_Bps": got / duration, "tcp_info": info})


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="mode", required=True)
    s = sub.add_parser("server")
    s.add_argument("--bind", required=True)
    s.add_argument("--port", type=int, default=5001)
    s.add_argument("--bytes", required=True, help="bytes sent per connection, or one value "
                   "per connection in accept order, e.g. 800000,10000")
    s.add_argument("--cc", default="cubic", help="cubic, reno or bbr; or one per connection, "
                   "e.g. cubic,reno,bbr")
    s.add_argument("--pace", default="0", help="SO_MAX_PACING_RATE in bytes/s (0: none), or "
                   "one value per connection")
    s.add_argument("--sndbuf", type=int, default=0, help="SO_SNDBUF of each accepted socket")
    s.add_argument("--burst", type=int, default=0, help="write this many bytes at a time ...")
    s.add_argument("--pause", type=float, default=0, help="... with this many seconds between")
    s.add_argument("--long-pause", type=float, default=0, help="seconds of one long pause ...")
    s.add_argument("--long-pause-at", help="... this many seconds after the first write, one "
                   "value per connection in accept order, e.g. 0.4,1.3")
    s.add_argument("--concurrent", action="store_true", help="serve each connection in its own thread")
    s.add_argument("--count", type=int, default=0, help="exit after this many (0: never)")
    s.add_argument("--tcpinfo", help="poll TCP_INFO every ~1 ms; samples to this .csv.gz")
    s.add_argument("--close", default="server-fin", help="how each connection ends, or one "
                   "per connection in accept order: " + ", ".join(CLOSES) + " (server-fin*: "
                   "FIN after the last byte; client-*: wait for the client's FIN or RST)")
    s.add_argument("--reuse-log", action="store_true", help="log each connection's close and "
                   "the TIME_WAIT sockets after it (and accept a client's RST)")
    s.add_argument("--log")
    c = sub.add_parser("client")
    c.add_argument("--connect", required=True, help="the server's address, or one per "
                   "connection, comma-separated")
    c.add_argument("--port", type=int, default=5001)
    c.add_argument("--count", type=int, default=1)
    c.add_argument("--ecn-schedule", help="tcp_ecn value per connection, e.g. 0,0,1,0")
    c.add_argument("--opts-schedule", help="value for tcp_window_scaling, tcp_sack and "
                   "tcp_timestamps per connection, e.g. 1,0,1,0")
    c.add_argument("--rcvbuf", type=int, default=0, help="SO_RCVBUF, set before connect()")
    c.add_argument("--late", type=int, default=0, help="the last LATE connections each wait "
                   "for a line on stdin before connecting")
    c.add_argument("--gap", type=float, default=0.05, help="seconds between connections")
    c.add_argument("--bind-port", type=int, default=0, help="make every connection from this "
                   "local port (SO_REUSEADDR, bind, connect)")
    c.add_argument("--close", help="how each connection ends, one per connection: "
                   + ", ".join(CLOSES) + " (default: as server-fin)")
    c.add_argument("--expect", help="bytes per connection, which the client reads before "
                   "closing first (--close client-rst / client-fin)")
    c.add_argument("--parallel", action="store_true", help="connect one after another, then "
                   "read all connections at once")
    c.add_argument("--log")
    args = ap.parse_args()
    serve(args) if args.mode == "server" else client(args)


if __name__ == "__main__":
    main()
