"""The lab's ground truth for issue 37 in captures/lab/think (its README.md): think time,
a slow answer and losses among the pauses, a server that speaks first, the close, outages
seen mid-flow, a LAN bottleneck, a growing queue, SYNs a firewall drops and a long-lived
connection, each at the client, the router and the server; and the captures whose expected
values today's engine misses, with why: the tests mark them as strict xfails, so the day the
engine gets one right its entry must go."""
from tshark import CAPTURES

THINK = CAPTURES / "lab" / "think"
POINTS = ("client", "router", "server")

# pcap: why the engine misses it (the rule at fault), per issue 37's items; none left
THINK_KNOWN_MISSES = {}
