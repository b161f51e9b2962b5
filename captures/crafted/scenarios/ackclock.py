"""AckClock, the event simulator behind crafted-flight.pcap and
crafted-offload.pcap: one ACK-clocked download, event by event, written as the
server or the client captures it."""

import bisect
import heapq

from .packets import ACK, BASE_EPOCH, Conn
from .expected import expect


SEG = 1460 - 12             # MSS 1460 minus the timestamp option
ONE_WAY_NS = 10000000       # each way, no queue anywhere: every round trip is 20 ms
DELACK_NS = 500000          # a lone in-order segment is ACKed 0.5 ms after it arrived
MIB_WINDOW = 8192           # window field << 7 = 1 MiB offered by the client


class AckClock:
    """One download, event by event, in nanoseconds: the server sends, the
    client receives and ACKs, each ONE_WAY_NS from the other.

    Time grid (u ns): the server's NIC sends a frame every 2u, on even
    multiples of u; the client answers u after an arrival (or DELACK_NS + u for
    a lone segment), so ACKs reach the server on odd multiples of u and no ACK
    ever shares an instant with a data segment, at either end.  The server
    answers an ACK on the next NIC slot (u later when the NIC is idle).

    cc: iw (segments), ssthresh, ai (additive increase above ssthresh, else a
    flat cwnd), after_loss(cwnd) -> (cwnd, ssthresh).  Recovery: fast
    retransmit on the 3rd SACKed duplicate ACK, nothing new until the
    retransmission is acknowledged, then the reduced cwnd.  drop(i, flight):
    whether new segment i, sent with `flight` segments outstanding, is lost
    (at most one loss until it is repaired).  app: (bytes of each write, idle
    ns after everything is acknowledged), or None for a bulk transfer of segs
    full segments; a write that is no multiple of SEG ends in a short segment.

    Segmentation offload: tso, the most segments the server hands over as one
    packet (TSO/GSO/LSO; never past the end of a write, as a short segment can
    only be a packet's last); the NIC puts its segments on the wire 2u apart.
    pace: (ns, segments per packet, cycled): the server sends one packet per
    tick instead of on ACKs.  gro: the client's NIC interrupts every gro frame
    times (2u each) and hands over each run of consecutive segments that came
    in since as one merged packet (GRO/LRO), so the client ACKs it at once."""

    def __init__(self, segs, rwnd, cc, u=1000, drop=None, app=None, tso=1, pace=None,
                 gro=None):
        self.u, self.rwnd, self.drop, self.app = u, rwnd, drop, app
        self.tso, self.pace, self.gro = tso, pace, gro
        self.cwnd, self.ssthresh = cc["iw"], cc.get("ssthresh", float("inf"))
        self.ai, self.after_loss = cc.get("ai", False), cc.get("after_loss")
        self.queued = list(app[0]) if app else [segs * SEG]
        self.starts, self.write_ends = [0], []  # byte offset of each segment; segment ends of writes
        self.avail = self.writes = 0
        self.take_write()
        self.una = self.nxt = self.ai_count = 0
        self.recover = self.lost = self.reduced = None
        self.nic_free = 0
        self.rcv, self.ooo, self.pending, self.token = 0, set(), 0, 0
        self.nic_rx = []            # (segment, retx) landed at the client since its last interrupt
        self.events, self.n = [], 0
        # ("data", sent, i, retx, arrived, segments) / ("ack", sent, arrives, ack, sack) /
        # ("rx", handed over, i, retx, True, segments): a GRO packet as the client sees it
        self.log = []
        self.max_lag = 0            # longest wait of a segment after the event that released it
        self.recovered_at = []      # index of the first new segment after each repair

    def push(self, t, kind, arg):
        self.n += 1
        heapq.heappush(self.events, (t, self.n, kind, arg))

    def run(self):
        while self.events:
            t, _, kind, arg = heapq.heappop(self.events)
            getattr(self, kind)(t, arg)

    def nbytes(self, rec):
        """Payload bytes of a data or rx log record."""
        return self.starts[rec[2] + rec[5]] - self.starts[rec[2]]

    def take_write(self):
        """The application's next write joins the send queue as whole segments."""
        n = self.queued.pop(0)
        for _ in range(-(-n // SEG)):
            self.starts.append(self.starts[-1] + min(SEG, n))
            n -= SEG
        self.avail = len(self.starts) - 1
        self.write_ends.append(self.avail)
        self.writes += 1

    # -- server ------------------------------------------------------------
    def send(self, now, i, n=1, retx=False):
        slot = 2 * self.u
        dep = max(self.nic_free, (now // slot + 1) * slot)
        self.nic_free = dep + slot * n
        self.max_lag = max(self.max_lag, dep - now)
        arrives = [retx or not self.dropped(i + j) for j in range(n)]
        for j in range(n):
            if arrives[j]:
                self.push(dep + ONE_WAY_NS + slot * j, "land", (i + j, retx))
        self.log.append(("data", dep, i, retx, any(arrives), n))

    def dropped(self, i):
        if self.lost is None and self.drop and self.drop(i, i + 1 - self.una):
            self.lost = i
        return self.lost == i

    def allowed(self):
        """How many new segments cwnd, the window and the data allow now."""
        n = 0
        while (self.recover is None and self.nxt + n < self.avail
               and self.nxt + n - self.una < self.cwnd
               and self.starts[self.nxt + n + 1] - self.starts[self.una] <= self.rwnd):
            n += 1
        return n

    def burst(self, now, n):
        """n new segments leave now, in packets of at most tso segments."""
        end = self.nxt + n
        while self.nxt < end:
            write_end = self.write_ends[bisect.bisect_right(self.write_ends, self.nxt)]
            size = min(self.tso, end - self.nxt, write_end - self.nxt)
            self.send(now, self.nxt, size)
            self.nxt += size

    def start(self, now, _):
        if self.pace:
            self.tick(now, 0)
        else:
            self.pump(now)

    def pump(self, now, _=None):
        if not self.pace:
            self.burst(now, self.allowed())

    def tick(self, now, k):
        self.burst(now, min(self.allowed(), self.pace[1][k % len(self.pace[1])]))
        if self.nxt < self.avail:
            self.push(now + self.pace[0], "tick", k + 1)

    def grow(self, acked):
        if self.cwnd < self.ssthresh:
            self.cwnd += acked
        elif self.ai:
            self.ai_count += acked
            while self.ai_count >= self.cwnd:
                self.ai_count -= self.cwnd
                self.cwnd += 1

    def ack_in(self, now, ack):
        a, sack = ack
        if a > self.una:
            acked, self.una = a - self.una, a
            if self.recover is not None:
                assert a >= self.recover, "a partial ACK: the flows repair one loss at a time"
                (self.cwnd, self.ssthresh), self.recover, self.lost = self.reduced, None, None
                self.ai_count = 0
                self.recovered_at.append(self.nxt)
            else:
                self.grow(acked)
            self.pump(now)
            if self.app and self.una == self.avail and self.queued:
                self.push(now + self.app[1], "write", None)
        elif sack and self.recover is None and sack[1] - sack[0] >= 3:
            # RFC 6675 IsLost: more than 2 MSS SACKed above the hole (each
            # out-of-order segment alone draws a duplicate ACK: the 3rd one)
            self.recover, self.reduced = self.nxt, self.after_loss(self.cwnd)
            self.send(now, self.una, retx=True)

    def write(self, now, _):
        self.take_write()
        if self.pace:
            self.tick(now, 0)       # a paced sender's ticks stopped when its queue ran dry
        else:
            self.pump(now)

    # -- client ------------------------------------------------------------
    def land(self, now, seg):
        """A segment reaches the client's NIC."""
        if not self.gro:
            self.arrive(now, (seg[0], 1))
            return
        self.nic_rx.append(seg)
        if len(self.nic_rx) == 1:
            period = 2 * self.u * self.gro
            self.push(-(-now // period) * period, "interrupt", None)

    def interrupt(self, now, _):
        runs = []
        for i, retx in self.nic_rx:
            if runs and runs[-1][0] + runs[-1][2] == i:
                runs[-1][1] |= retx
                runs[-1][2] += 1
            else:
                runs.append([i, retx, 1])
        self.nic_rx = []
        for i, retx, n in runs:
            self.log.append(("rx", now, i, retx, True, n))
            self.arrive(now, (i, n))

    def arrive(self, now, pkt):
        i, n = pkt
        assert i >= self.rcv, "no segment arrives twice"
        if i > self.rcv:                       # beyond the hole: SACK it at once
            self.ooo.update(range(i, i + n))
            self.ack_out(now + self.u, (min(self.ooo), max(self.ooo) + 1))
            return
        filled = bool(self.ooo)
        self.rcv += n
        while self.rcv in self.ooo:
            self.ooo.remove(self.rcv)
            self.rcv += 1
        self.pending += n
        if filled or self.pending >= 2:
            self.ack_out(now + self.u, None)
        else:
            self.token += 1
            self.push(now + DELACK_NS + self.u, "delack", self.token)

    def delack(self, now, token):
        if token == self.token and self.pending:
            self.ack_out(now, None)

    def ack_out(self, now, sack):
        assert sack is None or sack[1] - sack[0] == len(self.ooo), "one hole at a time"
        self.pending = 0
        self.token += 1
        self.log.append(("ack", now, now + ONE_WAY_NS, self.rcv, sack))
        self.push(now + ONE_WAY_NS, "ack_in", (self.rcv, sack))


def seen_at(rec, at_sender):
    """When an AckClock log record passes the server (at_sender) or the client, in ns."""
    if rec[0] == "data":
        return rec[1] + (0 if at_sender else ONE_WAY_NS)
    return rec[2] if at_sender and rec[0] == "ack" else rec[1]


def captured(sim, at_sender):
    """The log records the capture point sees: a lost segment never reaches the client;
    a client with GRO sees the merged packets its NIC hands over, not the segments."""
    if at_sender:
        return [r for r in sim.log if r[0] != "rx"]
    assert sim.gro or all(r[5] == 1 for r in sim.log if r[0] == "data"), \
        "TSO packets reach the client as segments: capture them at the sender"
    return [r for r in sim.log if r[0] == "ack" or r[0] == ("rx" if sim.gro else "data") and r[4]]


def data_phase_timestamps(c, sim):
    """(TSval, TSecr) of each AckClock log record, as 1 ms clocks would stamp them
    (RFC 7323): each side's TSval is its send time in ms, continuing its handshake
    values, and echoes the newest TSval that had *reached* it when it sent. The
    echo is what the sender knew, whatever the capture point: at the client the
    data echoes an ACK sent a round trip earlier, not the one just captured."""
    t0 = min(r[1] for r in sim.log)
    handshake = dict(c.ts)
    base = {"c": c.ts["c"] + 1, "s": c.ts["s"] + 1}
    clock = lambda d, t: base[d] + (t - t0) // 1000000
    acks = sorted((r[2], clock("c", r[1])) for r in sim.log if r[0] == "ack")    # reach the server
    datas = sorted((r[1] + ONE_WAY_NS, clock("s", r[1])) for r in sim.log if r[0] == "data" and r[4])

    def newest(arrivals, t, before):
        i = bisect.bisect_right(arrivals, (t, float("inf")))
        return arrivals[i - 1][1] if i else before

    # a GRO packet keeps the header of its first segment
    carrier = {(r[2] + j, r[3]): r for r in sim.log if r[0] == "data" for j in range(r[5])}

    def stamp(rec):
        if rec[0] == "rx":
            return stamp(carrier[rec[2], rec[3]])
        if rec[0] == "data":
            return clock("s", rec[1]), newest(acks, rec[1], handshake["c"])
        return clock("c", rec[1]), newest(datas, rec[1], handshake["s"])
    c.ts["c"] = clock("c", max(r[1] for r in sim.log)) + 1      # close() continues the clocks
    c.ts["s"] = clock("s", max(r[1] for r in sim.log)) + 1
    return stamp


def flight_flow(cap, t0, port, at_sender, segs, cc, window=MIB_WINDOW, syn_window=None,
                hosts=("192.0.2.40", "198.51.100.40"), ip_len0=False, **kw):
    """A download on `port` whose data phase is an AckClock (segs, cc, kw) against
    the client's window, captured at the server (at_sender) or at the client.
    ip_len0: packets longer than one segment show IPv4 total length 0, as a
    capture on a TSO sender can (the NIC fills it in).

    Handshake at the server: SYN arrives, SYN-ACK 0.1 ms later, the client's ACK
    20 ms after that.  At the client: SYN, SYN-ACK 20 ms later, ACK 0.1 ms
    after.  The client sends no payload, its window field is `window` (scale
    7) after the SYN.  Returns the Conn, the AckClock and, per (segment index,
    retransmission), the index of its record (to name frame numbers)."""
    c = Conn(cap, t0, hosts[0], hosts[1], port)
    c.syn(window=syn_window)
    c.synack(dt=0.1 if at_sender else 20.0)
    c.pure_ack("c", dt=20.0 if at_sender else 0.1, window=window)
    sim = AckClock(segs, window << 7, cc, **kw)
    # the server starts on the handshake ACK, ONE_WAY_NS after the client sent it
    sim.push(c.t * 1000 + (0 if at_sender else ONE_WAY_NS), "start", None)
    sim.run()
    assert sim.max_lag <= 100000, "a segment left more than 0.1 ms after its ACK"
    stamp = data_phase_timestamps(c, sim)
    frames = {}
    for rec in sorted(captured(sim, at_sender), key=lambda r: seen_at(r, at_sender)):
        dt = (seen_at(rec, at_sender) // 1000 - c.t) / 1000.0
        ts = [("NOP", None), ("NOP", None), ("Timestamp", stamp(rec))]
        if rec[0] != "ack":
            frames[rec[2], rec[3]] = len(cap.records)
            n = sim.nbytes(rec)
            c.emit("s", ACK, n=n, seq=c.s_isn + 1 + sim.starts[rec[2]], dt=dt, opts=ts,
                   ip_len0=ip_len0 and n > SEG)
        else:
            sack = rec[4] and [("NOP", None), ("NOP", None),
                               ("SAck", tuple(c.s_isn + 1 + sim.starts[x] for x in rec[4]))]
            c.emit("c", ACK, ack=c.s_isn + 1 + sim.starts[rec[3]], dt=dt, window=window,
                   opts=ts + (sack or []))
    c.close(c_window=window)
    return c, sim, frames


AT_SERVER = (" Captured at the server: SYN arrives, SYN-ACK leaves 0.1 ms later, the "
             "client's ACK arrives 20 ms after that (vantage near-server, seen_from sender).")
AT_CLIENT = (" Captured at the client: SYN leaves, SYN-ACK arrives 20 ms later, the ACK "
             "leaves 0.1 ms after (vantage near-client, seen_from receiver).")


def sim_expect(c, at_sender, why, model, fields, cause):
    """The expected record of a simulated download: the flow fields, then `fields`;
    the why tells where it was captured and how the simulation works (model)."""
    why += (AT_SERVER if at_sender else AT_CLIENT) + model
    return expect(c, "not-requested", why, cause=cause,
                  vantage="near-server" if at_sender else "near-client", overrides=fields)


def data_phase(sim, at_sender):
    """The captured records, and the data phase as captured: first data frame, last ACK (ns)."""
    recs = captured(sim, at_sender)
    t = lambda r: seen_at(r, at_sender)
    return recs, min(t(r) for r in recs if r[0] != "ack"), max(t(r) for r in recs if r[0] == "ack")


def data_rate(sim, at_sender):
    """Payload bytes per second over the data phase as captured."""
    recs, t0, t_end = data_phase(sim, at_sender)
    return sum(sim.nbytes(r) for r in recs if r[0] != "ack") * 1e9 / (t_end - t0)


def after_last(cap):
    """The next flow starts 100 ms after the last packet so far (ms from BASE_EPOCH)."""
    return max(r[0] for r in cap.records) / 1000.0 - BASE_EPOCH * 1000 + 100.0
