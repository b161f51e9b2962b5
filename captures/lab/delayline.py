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

Optional bottleneck on the b -> a direction (--rate-mbit; in the lab b -> a is always
server -> client): frames from b are serialized one after another at RATE (a FIFO, so a
queue builds when they arrive faster), then delayed as usual. Since the FIFO is
deterministic, each frame's queueing delay (sojourn: arrival to start of transmission)
is known when it arrives, and the frame is handled then:
- --queue-limit N: a frame that finds N frames waiting or in transmission is dropped
  (counted in "dropped");
- --mark-sojourn-ms K: an IPv4 ECT(0)/ECT(1) frame whose sojourn exceeds K leaves with
  CE (ECN bits rewritten, header checksum recomputed; counted in "ce_marked"), a step
  marker as in DCTCP-style AQMs. Not-ECT and non-IPv4 frames are never marked.
Without --rate-mbit the line forwards exactly as before.

Two more options on the b -> a direction, for the mechanism scenarios (mech.py):
- --sojourn-log FILE (with --rate-mbit): one CSV row per admitted frame, written at exit:
  CLOCK_REALTIME of arrival, sojourn in ms, frame length, TCP source and destination port
  (0 when not IPv4/TCP), so a flow's own queueing delay is known frame by frame;
- --reorder-share P --reorder-ms LO,HI: each frame is held back, with probability P, an
  extra uniform LO..HI ms (after any bottleneck), so the frames behind it overtake it:
  reordering without loss (counted in "held_back"; --seed makes the draw repeatable).

On SIGTERM/SIGINT it writes counters (frames in, out, too big, kernel drops) as one
JSON line to --stats and exits.
"""
import collections
import argparse
import heapq
import json
import random
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


ETH_HLEN = 14
ETH_P_IP = b"\x08\x00"
ECN_CE = 3


def ipv4_checksum(header):
    total = sum(struct.unpack(f"!{len(header) // 2}H", header))
    while total >> 16:
        total = (total & 0xffff) + (total >> 16)
    return ~total & 0xffff


def is_ect_ipv4(frame):
    return frame[12:14] == ETH_P_IP and frame[ETH_HLEN + 1] & 3 in (1, 2)


def mark_ce(frame):
    """The IPv4 frame with its ECN field set to CE and the header checksum redone."""
    ihl = (frame[ETH_HLEN] & 0x0f) * 4
    header = bytearray(frame[ETH_HLEN:ETH_HLEN + ihl])
    header[1] |= ECN_CE
    header[10:12] = b"\0\0"
    header[10:12] = struct.pack("!H", ipv4_checksum(bytes(header)))
    return frame[:ETH_HLEN] + bytes(header) + frame[ETH_HLEN + ihl:]


def tcp_ports(frame):
    """(source, destination) port of an IPv4 TCP frame, else (0, 0)."""
    if frame[12:14] != ETH_P_IP or frame[ETH_HLEN + 9] != 6:
        return 0, 0
    ihl = (frame[ETH_HLEN] & 0x0f) * 4
    return struct.unpack_from("!HH", frame, ETH_HLEN + ihl)


class Bottleneck:
    """FIFO serializer at a fixed rate with an optional frame limit and step CE marker."""

    def __init__(self, rate_mbit, limit, mark_s, stats, sojourns=None):
        self.byte_s = 8 / (rate_mbit * 1e6)
        self.limit, self.mark_s, self.stats = limit, mark_s, stats
        self.sojourns = sojourns            # rows for --sojourn-log, or None
        self.ends = collections.deque()     # transmission end of each frame not yet sent
        stats.update(rate_mbit=rate_mbit, queue_limit=limit, dropped=0, ce_marked=0,
                     ect_in=0, max_sojourn_ms=0.0,
                     mark_sojourn_ms=None if mark_s is None else mark_s * 1000)

    def admit(self, now, frame):
        """(time the frame leaves the bottleneck, frame as it leaves), or None if dropped."""
        while self.ends and self.ends[0] <= now:
            self.ends.popleft()
        if self.limit and len(self.ends) >= self.limit:
            self.stats["dropped"] += 1
            return None
        begin = self.ends[-1] if self.ends else now
        sojourn = begin - now
        self.stats["max_sojourn_ms"] = max(self.stats["max_sojourn_ms"], round(sojourn * 1000, 3))
        if self.sojourns is not None:
            self.sojourns.append((time.time(), sojourn * 1000, len(frame)) + tcp_ports(frame))
        if is_ect_ipv4(frame):
            self.stats["ect_in"] += 1
            if self.mark_s is not None and sojourn > self.mark_s:
                frame = mark_ce(frame)
                self.stats["ce_marked"] += 1
        self.ends.append(begin + len(frame) * self.byte_s)
        return self.ends[-1], frame


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--a", required=True, help="first interface")
    ap.add_argument("--b", required=True, help="second interface")
    ap.add_argument("--delay-ms", type=float, required=True, help="one-way delay")
    ap.add_argument("--stats", help="file for the exit counters (JSON)")
    ap.add_argument("--ready", help="file to create once both sockets are open")
    ap.add_argument("--rate-mbit", type=float, help="bottleneck rate for frames from b to a")
    ap.add_argument("--queue-limit", type=int, default=0, help="bottleneck: frames it holds (0: no limit)")
    ap.add_argument("--mark-sojourn-ms", type=float, help="bottleneck: CE-mark ECT frames queued longer")
    ap.add_argument("--sojourn-log", help="bottleneck: CSV of every frame's sojourn, written at exit")
    ap.add_argument("--reorder-share", type=float, default=0.0, help="b -> a: share of frames held back")
    ap.add_argument("--reorder-ms", default="2,4", help="b -> a: LO,HI ms a held frame waits extra")
    ap.add_argument("--seed", type=int, default=1, help="seed of the hold-back draw")
    args = ap.parse_args()

    delay = args.delay_ms / 1000.0
    port_a, port_b = open_port(args.a), open_port(args.b)
    other = {port_a: port_b, port_b: port_a}
    stats = {"a": args.a, "b": args.b, "delay_ms": args.delay_ms,
             "frames_in": 0, "frames_out": 0, "send_errors": 0, "max_queue": 0}
    shaper, sojourns = None, [] if args.sojourn_log else None
    if args.rate_mbit:
        mark_s = None if args.mark_sojourn_ms is None else args.mark_sojourn_ms / 1000
        shaper = Bottleneck(args.rate_mbit, args.queue_limit, mark_s, stats, sojourns)
    draw = random.Random(args.seed)
    hold_lo, hold_hi = (float(x) / 1000 for x in args.reorder_ms.split(","))
    if args.reorder_share:
        stats.update(reorder_share=args.reorder_share, reorder_ms=args.reorder_ms, held_back=0)

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
                    stats["frames_in"] += 1
                    leaves = now
                    if shaper and s is port_b:
                        admitted = shaper.admit(now, frame)
                        if admitted is None:
                            continue
                        leaves, frame = admitted
                    if args.reorder_share and s is port_b and draw.random() < args.reorder_share:
                        leaves += draw.uniform(hold_lo, hold_hi)
                        stats["held_back"] += 1
                    heapq.heappush(queue, (leaves + delay, order, other[s], frame))
                    order += 1
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
        if sojourns is not None:
            with open(args.sojourn_log, "w") as f:
                f.write("epoch,sojourn_ms,length,sport,dport\n")
                f.writelines(f"{t:.6f},{ms:.3f},{n},{sp},{dp}\n" for t, ms, n, sp, dp in sojourns)
        line = json.dumps(stats)
        if args.stats:
            with open(args.stats, "w") as f:
                f.write(line + "\n")
        else:
            print(line, file=sys.stderr)


if __name__ == "__main__":
    main()
