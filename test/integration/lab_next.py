"""The lab's everyday slow exchanges (issue 29) in captures/lab/next, each at the
client, the router and the server (captures/lab/next/README.md), and the flows whose
expected cause the engine does not reach yet, with why: the tests mark them as strict
xfails, so the day the engine gets one right its entry must go."""
from tshark import CAPTURES

NEXT = CAPTURES / "lab" / "next"

# None today: every lab flow reads its cause at every capture point. An entry names a
# pcap and why the engine misses it.
KNOWN_MISSES = {}
