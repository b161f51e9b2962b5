#!/usr/bin/python3
"""Traffic generator for the benchmark capture (test/bench/make-capture).

Like captures/lab/peer.py, whose TCP_INFO helpers it imports, but built for volume:
many concurrent downloads of varied sizes instead of one sequential stream.

server: listens on every --listen ADDR,PORT,CC (CC set on the listening socket, so
        the SYN-ACK and the accepted socket use it); one thread per connection.
        A client sends one request line "SIZE PACE\\n" (think HTTP GET); the server
        answers with SIZE bytes (paced with SO_MAX_PACING_RATE when PACE > 0),
        then FIN, waits for the client's FIN and logs one JSON line.
client: reads a plan (JSON: a list of batches {"ecn": 0|1, "conns": [{"src", "dst",
        "port", "size", "pace"}, ...]}). For each batch it writes its own namespace's
        net.ipv4.tcp_ecn, runs the batch's downloads with --workers at a time, and
        waits for all of them before the next batch, so every connection of a batch
        was opened under that batch's tcp_ecn. One JSON line per connection.
"""
import argparse
import json
import os
import socket
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "captures", "lab"))
import peer  # noqa: E402  (captures/lab/peer.py: tcp_info, cc_of, write_sysctl, ...)

LOG_LOCK = threading.Lock()
PAYLOAD = bytes(range(256)) * 256           # 64 KiB, not all zeros


def emit(log, record):
    with LOG_LOCK:
        peer.emit(log, record)


def family_of(addr):
    return socket.AF_INET6 if ":" in addr else socket.AF_INET


def serve_one(conn, remote, cc_name, log):
    try:
        conn.settimeout(60)
        request = b""
        while not request.endswith(b"\n"):
            chunk = conn.recv(64)
            if not chunk:
                return
            request += chunk
        size, pace = (int(x) for x in request.split())
        if pace:
            conn.setsockopt(socket.SOL_SOCKET, peer.SO_MAX_PACING_RATE, pace)
        start = time.time()
        left = size
        while left:
            left -= conn.send(PAYLOAD[:min(left, len(PAYLOAD))])
        conn.shutdown(socket.SHUT_WR)
        while conn.recv(4096):
            pass
        info = peer.tcp_info(conn)
        emit(log, {"event": "served", "remote": [remote[0], remote[1]], "bytes": size,
                   "pace_Bps": pace, "cc": peer.cc_of(conn), "listener_cc": cc_name,
                   "start": start, "end": time.time(), "tcp_info": info})
    except OSError as e:
        emit(log, {"event": "error", "remote": [remote[0], remote[1]], "error": str(e)})
    finally:
        conn.close()


def accept_loop(ls, cc_name, log):
    while True:
        conn, remote = ls.accept()
        threading.Thread(target=serve_one, args=(conn, remote, cc_name, log), daemon=True).start()


def server(args):
    log = open(args.log, "a")
    listeners = []
    for spec in args.listen:
        addr, port, cc = spec.split(",")
        ls = socket.socket(family_of(addr), socket.SOCK_STREAM)
        ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        ls.setsockopt(socket.IPPROTO_TCP, peer.TCP_CONGESTION, cc.encode())
        ls.bind((addr, int(port)))
        ls.listen(256)
        listeners.append((ls, cc))
    emit(log, {"event": "listening", "listen": args.listen,
               "cc": [peer.cc_of(ls) for ls, _ in listeners]})
    threads = [threading.Thread(target=accept_loop, args=(ls, cc, log), daemon=True)
               for ls, cc in listeners]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def download(c, batch_index, ecn, log, deadline):
    s = socket.socket(family_of(c["dst"]), socket.SOCK_STREAM)
    rec = {"event": "conn", "batch": batch_index, "tcp_ecn_sysctl": ecn, "src": c["src"],
           "dst": c["dst"], "port": c["port"], "size": c["size"], "pace": c["pace"]}
    try:
        s.settimeout(max(1.0, min(60.0, deadline - time.monotonic())))
        s.bind((c["src"], 0))
        t0 = time.monotonic()
        s.connect((c["dst"], c["port"]))
        rec["local_port"] = s.getsockname()[1]
        s.sendall(f"{c['size']} {c['pace']}\n".encode())
        got = peer.recv_all(s)
        rec["duration_s"] = time.monotonic() - t0
        rec["bytes"] = got
        rec["tcp_info"] = peer.tcp_info(s)
    except OSError as e:
        rec["error"] = str(e)
    finally:
        s.close()
    emit(log, rec)
    return rec


def client(args):
    with open(args.plan) as f:
        plan = json.load(f)
    log = open(args.log, "a")
    deadline = time.monotonic() + args.deadline
    failed = 0
    with ThreadPoolExecutor(max_workers=args.workers) as pool:
        for i, batch in enumerate(plan):
            if time.monotonic() > deadline:
                sys.exit(f"bulkpeer client: deadline of {args.deadline} s passed at batch {i}")
            peer.write_sysctl(peer.ECN_SYSCTL, batch["ecn"])
            recs = list(pool.map(lambda c: download(c, i, batch["ecn"], log, deadline),
                                 batch["conns"]))
            failed += sum(1 for r in recs if "error" in r or r["bytes"] != r["size"])
            print(json.dumps({"event": "batch", "index": i, "of": len(plan)}), flush=True)
    if failed:
        sys.exit(f"bulkpeer client: {failed} downloads failed or came up short")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="mode", required=True)
    s = sub.add_parser("server")
    s.add_argument("--listen", action="append", required=True, help="ADDR,PORT,CC (repeatable)")
    s.add_argument("--log", required=True)
    c = sub.add_parser("client")
    c.add_argument("--plan", required=True)
    c.add_argument("--workers", type=int, default=8)
    c.add_argument("--deadline", type=float, default=240, help="seconds for the whole plan")
    c.add_argument("--log", required=True)
    args = ap.parse_args()
    server(args) if args.mode == "server" else client(args)


if __name__ == "__main__":
    main()
