#!/usr/bin/python3
"""Request/response traffic generator for the time-budget scenarios (tcpdiag issue 29):
a server that answers fixed-size requests, and clients that send them, each side
logging its own CLOCK_REALTIME timings (the clock tcpdump stamps packets with) as JSON
lines, so that where a flow's time went can be told from the applications themselves.

server: listen(BACKLOG); accepts one connection, hands it to a thread, sleeps
        ACCEPT_INTERVAL s, accepts the next (a slow accept loop when > 0). Per request
        of REQUEST bytes it sleeps THINK s (only before answer THINK_AT when given), then
        writes REPLY bytes; a server that speaks first writes GREET bytes on accept, before
        the first request (an SMTP/FTP greeting); logs per exchange
        when the request was read whole and when the reply's write began and ended
        (or failed: with USER_TIMEOUT_MS, TCP_USER_TIMEOUT ends a connection whose
        data stays unacknowledged that long).
client: CLIENTS connections, all connecting at once (one thread each, released
        together, each STAGGER s after the one before) or one after another
        (--sequential). Each (after reading the server's GREET bytes, when it greets)
        sends REQUESTS requests, waiting WAIT s before each one (or WAITS, one a request:
        a user's think times), reads each reply whole (optionally READ_CHUNK
        bytes every READ_PAUSE s from an SO_RCVBUF of RCVBUF: a slow reader), then
        stays idle IDLE s with the connection open and closes. Logs when connect()
        began and returned, and per exchange when the request was written and the
        reply's first and last byte read (a reply is given up after RECV_TIMEOUT s
        without data); TCP_INFO (total_retrans counts SYN
        retransmissions too) at the end. With CONNECT_TIMEOUT a connect() that has not
        completed by then is given up and logged with its error (SYNs never answered).
"""
import argparse
import json
import socket
import struct
import sys
import threading
import time

TCP_INFO = getattr(socket, "TCP_INFO", 11)
TCP_USER_TIMEOUT = getattr(socket, "TCP_USER_TIMEOUT", 18)
SO_MAX_PACING_RATE = getattr(socket, "SO_MAX_PACING_RATE", 47)
PAYLOAD = bytes(range(256)) * 256


def tcp_info(sock):
    """The TCP_INFO fields the time budget and the mechanisms read (struct tcp_info
    offsets of Linux 6.x: options 5 (bits: 1 timestamps, 2 SACK, 4 window
    scaling), wscale 6 (send << 4 | receive), snd_mss 16, pmtu 60, dsack_dups 216, reord_seen 220)."""
    raw = sock.getsockopt(socket.IPPROTO_TCP, TCP_INFO, 256)
    get = lambda off, fmt="I": struct.unpack_from(fmt, raw, off)[0]
    return {"retransmits": raw[2], "backoff": raw[4], "options": raw[5], "wscale": raw[6],
            "rto_us": get(8), "rtt_us": get(68),
            "total_retrans": get(100), "snd_cwnd": get(80), "rcv_space": get(96),
            "ato_us": get(12), "snd_mss": get(16), "pmtu": get(60), "snd_ssthresh": get(76),
            "min_rtt_us": get(148), "bytes_retrans": get(208, "Q"), "dsack_dups": get(216),
            "reord_seen": get(220), "rcv_ooopack": get(224)}


# a sample row: epoch, snd_cwnd, snd_ssthresh, unacked, total_retrans, snd_mss, ca_state
SAMPLE_FIELDS = ("epoch", "snd_cwnd", "snd_ssthresh", "unacked", "total_retrans", "snd_mss", "ca_state")


def sample(sock, every, rows, done):
    """Appends a TCP_INFO row (SAMPLE_FIELDS) every `every` s until done is set."""
    while not done.is_set():
        try:
            raw = sock.getsockopt(socket.IPPROTO_TCP, TCP_INFO, 104)
        except OSError:
            break
        get = lambda off: struct.unpack_from("I", raw, off)[0]
        rows.append((round(time.time(), 6), get(80), get(76), get(24), get(100), get(16), raw[1]))
        time.sleep(every)


def read_exactly(sock, n, chunk=1 << 16, pause=0.0):
    """Reads n bytes, or fewer when the peer closes or a receive timeout (set on the
    socket) passes without data; returns (first byte's time, last byte's time, bytes read)."""
    got, first, last = 0, None, None
    while got < n:
        try:
            data = sock.recv(min(chunk, n - got))
        except socket.timeout:
            break
        if not data:
            break
        last = time.time()
        if first is None:
            first = last
        got += len(data)
        if pause and got < n:
            time.sleep(pause)
    return first, last, got


def write_all(sock, n):
    while n:
        n -= sock.send(PAYLOAD[:min(n, len(PAYLOAD))])


def emit(log, lock, record):
    with lock:
        log.write(json.dumps(record, sort_keys=True) + "\n")
        log.flush()


def serve(args):
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if args.cc:
        ls.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, args.cc.encode())
    ls.bind((args.bind, args.port))
    ls.listen(args.backlog)
    log, lock = open(args.log, "a"), threading.Lock()
    emit(log, lock, {"event": "listening", "backlog": args.backlog, "at": time.time()})
    threads = []
    for index in range(args.count):
        conn, peer = ls.accept()
        accepted = time.time()
        if args.user_timeout_ms:
            conn.setsockopt(socket.IPPROTO_TCP, TCP_USER_TIMEOUT, args.user_timeout_ms)
        if args.max_pacing_rate:
            # TCP's own pacing (no fq needed): a sender a little faster than a bottleneck
            # fills its queue slowly, at the difference of the rates
            conn.setsockopt(socket.SOL_SOCKET, SO_MAX_PACING_RATE, args.max_pacing_rate)
        t = threading.Thread(target=answer, args=(conn, peer, index, accepted, args, log, lock))
        t.start()
        threads.append(t)
        if args.accept_interval and index + 1 < args.count:
            time.sleep(args.accept_interval)
    for t in threads:
        t.join()


def answer(conn, peer, index, accepted, args, log, lock):
    exchanges, samples, done = [], [], threading.Event()
    greeted = None
    if args.greet:
        write_all(conn, args.greet)
        greeted = time.time()
    if args.sample_ms:
        sampler = threading.Thread(target=sample, args=(conn, args.sample_ms / 1000, samples, done))
        sampler.start()
    while True:
        _, read, got = read_exactly(conn, args.request)
        if got < args.request:
            break                       # the client closed
        if args.think_at in (0, len(exchanges) + 1):
            time.sleep(args.think)
        began = time.time()
        try:
            write_all(conn, args.reply)
        except OSError as e:        # TCP_USER_TIMEOUT passed: the peer stopped answering
            exchanges.append({"request_read": read, "reply_write_began": began,
                              "write_error": e.strerror, "write_error_at": time.time()})
            break
        exchanges.append({"request_read": read, "reply_write_began": began,
                          "reply_write_ended": time.time()})
    info = tcp_info(conn)
    done.set()
    if args.sample_ms:
        sampler.join()
    conn.close()
    record = {"event": "served", "accept_index": index, "peer_port": peer[1],
              "accepted": accepted, "exchanges": exchanges, "tcp_info": info}
    if greeted:
        record["greeting_written"] = greeted
    if args.sample_ms:
        record.update(sample_fields=SAMPLE_FIELDS, samples=samples)
    emit(log, lock, record)


def client(args):
    log, lock = open(args.log, "a"), threading.Lock()
    go = threading.Barrier(args.clients) if not args.sequential else None
    threads = []
    for index in range(args.clients):
        t = threading.Thread(target=converse, args=(index, args, go, log, lock))
        t.start()
        if args.sequential:
            t.join()
            time.sleep(args.gap)
        threads.append(t)
    for t in threads:
        t.join()


def converse(index, args, go, log, lock):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if args.nodelay:
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    if args.rcvbuf:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, args.rcvbuf)
    if args.recv_timeout:
        s.settimeout(args.recv_timeout)
    if go:
        go.wait()
        time.sleep(index * args.stagger)
    began = time.time()
    if args.connect_timeout:
        s.settimeout(args.connect_timeout)
    try:
        s.connect((args.connect, args.port))
    except OSError as e:        # no SYN-ACK within the timeout (or a refusal)
        emit(log, lock, {"event": "conn", "index": index, "local_port": s.getsockname()[1],
                         "connect_began": began, "connect_error": str(e),
                         "connect_gave_up": time.time(), "tcp_info": tcp_info(s)})
        s.close()
        return
    s.settimeout(args.recv_timeout or None)
    connected = time.time()
    greeting = None
    if args.greet:
        first, last, got = read_exactly(s, args.greet)
        greeting = {"first_byte": first, "last_byte": last, "bytes": got}
    exchanges = []
    for i in range(args.requests):
        time.sleep(args.waits[i] if args.waits else args.wait)
        sent = time.time()
        at = 0
        for part in args.split or [args.request]:
            s.sendall(PAYLOAD[at:at + part])
            at += part
        first, last, got = read_exactly(s, args.reply, args.read_chunk, args.read_pause)
        exchanges.append({"request_sent": sent, "reply_first_byte": first,
                          "reply_last_byte": last, "reply_bytes": got})
    time.sleep(args.idle)
    info = tcp_info(s)
    local = s.getsockname()[1]
    closing = time.time()
    s.close()
    record = {"event": "conn", "index": index, "local_port": local,
              "connect_began": began, "connected": connected, "exchanges": exchanges,
              "close": closing, "tcp_info": info}
    if greeting:
        record["greeting"] = greeting
    emit(log, lock, record)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="mode", required=True)
    s = sub.add_parser("server")
    s.add_argument("--bind", required=True)
    s.add_argument("--port", type=int, default=5001)
    s.add_argument("--backlog", type=int, default=16)
    s.add_argument("--accept-interval", type=float, default=0.0)
    s.add_argument("--think", type=float, default=0.0, help="s before each reply")
    s.add_argument("--think-at", type=int, default=0, help="sleep --think only before this "
                   "answer (1 for the first; 0: before every answer)")
    s.add_argument("--greet", type=int, default=0, help="bytes written on accept, before "
                   "the first request (a server that speaks first)")
    s.add_argument("--request", type=int, default=100, help="bytes per request")
    s.add_argument("--reply", type=int, default=1000, help="bytes per reply")
    s.add_argument("--user-timeout-ms", type=int, default=0, help="TCP_USER_TIMEOUT of each "
                   "accepted socket: give up when sent data stays unacknowledged this long")
    s.add_argument("--count", type=int, required=True, help="connections, then exit")
    s.add_argument("--cc", help="congestion control of the accepted sockets (TCP_CONGESTION)")
    s.add_argument("--max-pacing-rate", type=int, default=0, help="SO_MAX_PACING_RATE of each "
                   "accepted socket, bytes/s")
    s.add_argument("--sample-ms", type=float, default=0.0, help="sample TCP_INFO this often")
    s.add_argument("--log", required=True)
    c = sub.add_parser("client")
    c.add_argument("--connect", required=True)
    c.add_argument("--port", type=int, default=5001)
    c.add_argument("--clients", type=int, default=1)
    c.add_argument("--sequential", action="store_true")
    c.add_argument("--stagger", type=float, default=0.0, help="s between concurrent connects")
    c.add_argument("--gap", type=float, default=0.1, help="s between sequential connections")
    c.add_argument("--requests", type=int, default=1)
    c.add_argument("--request", type=int, default=100)
    c.add_argument("--reply", type=int, default=1000)
    c.add_argument("--wait", type=float, default=0.0, help="s before each request")
    c.add_argument("--waits", type=lambda v: [float(x) for x in v.split(",")], default=None,
                   help="s before each request, one a request (instead of --wait)")
    c.add_argument("--greet", type=int, default=0, help="bytes of the server's greeting, read "
                   "after connect() before the first request")
    c.add_argument("--connect-timeout", type=float, default=0.0, help="give connect() up after "
                   "this many s")
    c.add_argument("--idle", type=float, default=0.0, help="s idle after the last reply")
    c.add_argument("--rcvbuf", type=int, default=0)
    c.add_argument("--recv-timeout", type=float, default=0.0, help="give up a reply after "
                   "this many s without data")
    c.add_argument("--read-chunk", type=int, default=1 << 16)
    c.add_argument("--read-pause", type=float, default=0.0)
    c.add_argument("--split", type=lambda v: [int(x) for x in v.split(",")], default=None,
                   help="write each request as these parts, one send() each (they sum to --request)")
    c.add_argument("--nodelay", action="store_true", help="TCP_NODELAY: Nagle off")
    c.add_argument("--log", required=True)
    args = ap.parse_args()
    if args.mode == "client" and args.split and sum(args.split) != args.request:
        ap.error("--split parts must sum to --request")
    if args.mode == "client" and args.waits and len(args.waits) != args.requests:
        ap.error("--waits needs one value a request")
    serve(args) if args.mode == "server" else client(args)


if __name__ == "__main__":
    sys.exit(main())
