#!/usr/bin/python3
"""A userspace delay line: a two-port Ethernet "wire" that holds every frame for D ms.

Run inside the lab's wire namespace. It opens an AF_PACKET raw socket on each of two
veth ends and copies every frame that arrives on one to the other, DELAY ms later
(the same delay both ways, so the wire adds 2*DELAY to a round trip).

The kernel has no netem here, hence this program. It is deliberately simple:
- one heap of (due time, arrival order, output socket, frame) on the monotonic clock,
  so frames leave in arrival order and exactly DELAY after they arrived;
- select() with a microsecond timeout, so departures are late by at most the
  scheduler's wake-up latency (tens of microseconds), never early;
- frames larger than the MTU cannot be sent, so the lab disables TSO/GSO/GRO on
  every veth (and TX checksum offload, so frames carry real checksums).

On SIGTERM/SIGINT it writes counters (frames in, out, too big, kernel drops) as one
JSON line to --stats and exits.
"""
import argparse
import heapq
import json
import select
import signal
import socket
import struct
import sys
import time

ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4          # sll_pkttype of frames this host sent itself
SOL_PACKET = 263
PACKET_STATISTICS = 6        # struct tpacket_stats { u32 tp_packets; u32 tp_drops; }
SO_RCVBUFFORCE = 33


class Stop(Exception):
    pass


def open_port(ifname):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)
    # Big receive buffer: a TCP sender without a bottleneck bursts a whole cwnd
    # (100+ frames) at veth speed; the default 208 KB would drop some of it.
    s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 8 << 20)
    s.bind((ifname, ETH_P_ALL))
    s.setblocking(False)
    return s


def kernel_drops(s):
    packets, drops = struct.unpack("II", s.getsockopt(SOL_PACKET, PACKET_STATISTICS, 8))
    return drops


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--a", required=True, help="first interface")
    ap.add_argument("--b", required=True, help="second interface")
    ap.add_argument("--delay-ms", type=float, required=True, help="one-way delay")
    ap.add_argument("--stats", help="file for the exit counters (JSON)")
    ap.add_argument("--ready", help="file to create once both sockets are open")
    args = ap.parse_args()

    delay = args.delay_ms / 1000.0
    port_a, port_b = open_port(args.a), open_port(args.b)
    other = {port_a: port_b, port_b: port_a}
    stats = {"a": args.a, "b": args.b, "delay_ms": args.delay_ms,
             "frames_in": 0, "frames_out": 0, "send_errors": 0, "max_queue": 0}

    def stop(signum, frame):
        raise Stop()
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)

    if args.ready:
        open(args.ready, "w").close()

    queue = []      # (due, order, out_socket, frame)
    order = 0
    try:
        while True:
            timeout = None
            if queue:
                timeout = max(0.0, queue[0][0] - time.monotonic())
            readable, _, _ = select.select([port_a, port_b], [], [], timeout)
            for s in readable:
                while True:                     # drain: several frames may be waiting
                    try:
                        frame, addr = s.recvfrom(65535)
                    except BlockingIOError:
                        break
                    if addr[2] == PACKET_OUTGOING:
                        continue                # our own transmission on this port
                    now = time.monotonic()
                    heapq.heappush(queue, (now + delay, order, other[s], frame))
                    order += 1
                    stats["frames_in"] += 1
            stats["max_queue"] = max(stats["max_queue"], len(queue))
            now = time.monotonic()
            while queue and queue[0][0] <= now:
                _, _, out, frame = heapq.heappop(queue)
                try:
                    out.send(frame)
                    stats["frames_out"] += 1
                except OSError as e:            # e.g. EMSGSIZE if offload was left on
                    stats["send_errors"] += 1
                    stats["last_error"] = str(e)
    except Stop:
        pass
    finally:
        stats["kernel_drops"] = kernel_drops(port_a) + kernel_drops(port_b)
        stats["left_in_queue"] = len(queue)
        line = json.dumps(stats)
        if args.stats:
            with open(args.stats, "w") as f:
                f.write(line + "\n")
        else:
            print(line, file=sys.stderr)


if __name__ == "__main__":
    main()
