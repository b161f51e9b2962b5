"""The lab's everyday slow exchanges (issue 29) in captures/lab/next and the TCP
mechanisms behind them (issue 30) in captures/lab/mech, each at the client, the router
and the server (the folders' README.md), and the flows whose expected cause the engine
does not reach yet, with why: the tests mark them as strict xfails, so the day the
engine gets one right its entry must go."""
from tshark import CAPTURES

NEXT = CAPTURES / "lab" / "next"

# None today: every lab flow reads its cause at every capture point. An entry names a
# pcap and why the engine misses it.
KNOWN_MISSES = {}

MECH = CAPTURES / "lab" / "mech"

# The mechanisms the engine does not name (issue 30), per (pcap, tcp.stream): none
# today. A pcap with any of them is a known miss for the tests that judge a whole file.
MECH_KNOWN_MISSES = {}
MECH_PCAP_MISSES = {pcap: why for (pcap, _), why in MECH_KNOWN_MISSES.items()}
