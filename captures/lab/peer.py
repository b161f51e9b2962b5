#!/usr/bin/python3
"""Traffic generator for the capture lab: a download server and a sequential client.

server: accepts connections and sends each one BYTES bytes, then closes.
        Congestion control is chosen per socket with setsockopt(TCP_CONGESTION)
        (the per-namespace sysctl is refused on this kernel); an optional
        SO_MAX_PACING_RATE makes a transfer last a known time.
client: opens COUNT connections one after another (never two at once, so
        Wireshark's tcp.stream numbers follow connection order), reads each to
        EOF and logs one JSON line per connection. Before each connect it may
        write net.ipv4.tcp_ecn of its own namespace (--ecn-schedule), which is
        how one connection in twenty requests ECN.

Both sides log what the kernel reports in TCP_INFO at the end of each connection
(negotiated ECN, advertised MSS, retransmissions, congestion control).
"""
import argparse
import json
import socket
import struct
import sys
import time

TCP_CONGESTION = getattr(socket, "TCP_CONGESTION", 13)
TCP_INFO = getattr(socket, "TCP_INFO", 11)
SO_MAX_PACING_RATE = 47
TCPI_OPT_ECN = 8             # "ECN was negotiated at TCP session init"
TCPI_OPT_ECN_SEEN = 16       # "we received at least one packet with ECT"
TCPI_OPT_TIMESTAMPS, TCPI_OPT_SACK, TCPI_OPT_WSCALE = 1, 2, 4
ECN_SYSCTL = "/proc/sys/net/ipv4/tcp_ecn"
# The handshake options a Linux SYN offers (and a SYN-ACK may echo), one sysctl each.
OPTS_SYSCTLS = {"tcp_window_scaling": "/proc/sys/net/ipv4/tcp_window_scaling",
                "tcp_sack": "/proc/sys/net/ipv4/tcp_sack",
                "tcp_timestamps": "/proc/sys/net/ipv4/tcp_timestamps"}


def recv_all(sock):
    """Reads until the peer closes; returns the byte count."""
    got = 0
    while True:
        chunk = sock.recv(1 << 16)
        if not chunk:
            return got
        got += len(chunk)


def tcp_info(sock):
    """The few TCP_INFO fields the lab uses (offsets of struct tcp_info, linux/tcp.h)."""
    raw = sock.getsockopt(socket.IPPROTO_TCP, TCP_INFO, 232)
    options = raw[5]
    u32 = lambda off: struct.unpack_from("I", raw, off)[0]
    info = {
        "ecn_negotiated": bool(options & TCPI_OPT_ECN),
        "ecn_seen": bool(options & TCPI_OPT_ECN_SEEN),
        "snd_mss": u32(16),
        "rcv_mss": u32(20),
        "rtt_us": u32(68),
        "snd_cwnd": u32(80),
        "advmss": u32(84),
        "total_retrans": u32(100),
        # Agreed handshake options (both sides announced them) and the agreed shifts:
        # byte 6 is the bitfield tcpi_snd_wscale:4 (low nibble), tcpi_rcv_wscale:4.
        "options": options,
        "ts_ok": bool(options & TCPI_OPT_TIMESTAMPS),
        "sack_ok": bool(options & TCPI_OPT_SACK),
        "wscale_ok": bool(options & TCPI_OPT_WSCALE),
        "snd_wscale": raw[6] & 0x0f,
        "rcv_wscale": raw[6] >> 4,
    }
    if len(raw) >= 200:
        info["delivered_ce"] = u32(196)
    return info


def cc_of(sock):
    return sock.getsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, 16).split(b"\0")[0].decode()


def emit(log, record):
    line = json.dumps(record, sort_keys=True)
    log.write(line + "\n")
    log.flush()


def serve(args):
    family = socket.AF_INET6 if ":" in args.bind else socket.AF_INET
    ls = socket.socket(family, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # Set on the listener so the SYN-ACK and the accepted socket already use it.
    ls.setsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, args.cc.encode())
    ls.bind((args.bind, args.port))
    ls.listen(16)
    log = open(args.log, "a") if args.log else sys.stdout
    emit(log, {"event": "listening", "bind": args.bind, "port": args.port, "cc": cc_of(ls)})
    payload = bytes(range(256)) * 256           # 64 KiB, not all zeros
    served = 0
    while args.count == 0 or served < args.count:
        conn, peer = ls.accept()
        start = time.time()
        if args.pace:
            conn.setsockopt(socket.SOL_SOCKET, SO_MAX_PACING_RATE, args.pace)
        left = args.bytes
        while left:
            left -= conn.send(payload[:min(left, len(payload))])
        conn.shutdown(socket.SHUT_WR)           # FIN after the last byte
        conn.settimeout(30)
        while conn.recv(4096):                  # wait for the client's FIN
            pass
        info = tcp_info(conn)
        local = conn.getsockname()
        emit(log, {"event": "served", "local": [local[0], local[1]],
                   "remote": [peer[0], peer[1]], "bytes": args.bytes, "cc": cc_of(conn),
                   "pace_Bps": args.pace, "start": start, "end": time.time(),
                   "tcp_info": info})
        conn.close()
        served += 1


def read_sysctl(path):
    with open(path) as f:
        return int(f.read())


def write_sysctl(path, value):
    with open(path, "w") as f:
        f.write(str(value))


def client(args):
    family = socket.AF_INET6 if ":" in args.connect else socket.AF_INET
    schedule = [int(x) for x in args.ecn_schedule.split(",")] if args.ecn_schedule else []
    if schedule and len(schedule) != args.count:
        sys.exit("--ecn-schedule needs one value per connection")
    opts = [int(x) for x in args.opts_schedule.split(",")] if args.opts_schedule else []
    if opts and len(opts) != args.count:
        sys.exit("--opts-schedule needs one value per connection")
    log = open(args.log, "a") if args.log else sys.stdout
    for i in range(args.count):
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
        start = time.time()
        t0 = time.monotonic()
        s.connect((args.connect, args.port))
        t_conn = time.monotonic()
        local, remote = s.getsockname(), s.getpeername()
        # One line the moment the connection is up (lab.py waits for it to start a
        # mid-flow capture), then the full record when the transfer is over.
        print(json.dumps({"event": "connected", "index": i, "local_port": local[1]}), flush=True)
        got = recv_all(s)
        t_end = time.monotonic()
        info = tcp_info(s)
        s.close()
        duration = t_end - t0
        emit(log, {"event": "conn", "index": i, "local": [local[0], local[1]],
                   "remote": [remote[0], remote[1]], "tcp_ecn_sysctl": ecn_sysctl,
                   "start": start, "connect_s": t_conn - t0, "duration_s": duration,
                   "bytes": got, "throughput_Bps": got / duration, "tcp_info": info, **extra})
        if args.gap:
            time.sleep(args.gap)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="mode", required=True)
    s = sub.add_parser("server")
    s.add_argument("--bind", required=True)
    s.add_argument("--port", type=int, default=5001)
    s.add_argument("--bytes", type=int, required=True, help="bytes sent per connection")
    s.add_argument("--cc", default="cubic", help="cubic, reno or bbr")
    s.add_argument("--pace", type=int, default=0, help="SO_MAX_PACING_RATE in bytes/s")
    s.add_argument("--count", type=int, default=0, help="exit after this many (0: never)")
    s.add_argument("--log")
    c = sub.add_parser("client")
    c.add_argument("--connect", required=True)
    c.add_argument("--port", type=int, default=5001)
    c.add_argument("--count", type=int, default=1)
    c.add_argument("--ecn-schedule", help="tcp_ecn value per connection, e.g. 0,0,1,0")
    c.add_argument("--opts-schedule", help="value for tcp_window_scaling, tcp_sack and "
                   "tcp_timestamps per connection, e.g. 1,0,1,0")
    c.add_argument("--gap", type=float, default=0.05, help="seconds between connections")
    c.add_argument("--log")
    args = ap.parse_args()
    serve(args) if args.mode == "server" else client(args)


if __name__ == "__main__":
    main()
