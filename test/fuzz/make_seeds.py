#!/usr/bin/python3
"""Seeds for fuzz_decode: the first frames of committed captures, bare,
re-wrapped in each encapsulation test/integration/wrap_capture.py makes, and cut
into IP fragments as test/integration/fragment_capture.py cuts them, in the
fuzzer's input format (fuzz_decode.c), so that half a minute of fuzzing starts
inside every tunnel the decoder reads, and in its reassembly table, instead of
searching for a valid IP header.

    test/fuzz/make_seeds.py OUT_DIR
"""
import os
import pathlib
import struct
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "test" / "integration"))
from fragment_capture import MODES, fragment  # noqa: E402
from wrap_capture import ENCAPSULATIONS, read_pcap, wrap  # noqa: E402

SOURCES = ["lab-ecn-1-of-n.pcap", "lab-ipv6.pcap", "crafted-hostile.pcap"]
FRAMES = 8
FRAGMENTED_FRAMES = 16      # the handshake, then the first data segment's pieces and more
# cmd/decode.h's td_link values, as fuzz_decode.c reads its link byte
TD_LINK_ETHERNET, TD_LINK_PPP = 1, 9
LINKTYPE_PPP = 9


def seed(path, frames=FRAMES):
    """One fuzzer input: the version byte (4.0), then per frame its captured length
    (2 bytes, little-endian), its link, and its bytes."""
    _, linktype, _, records = read_pcap(path)
    link = TD_LINK_PPP if linktype == LINKTYPE_PPP else TD_LINK_ETHERNET
    out = [b"\x00"]
    for _, _, _, frame in records[:frames]:
        frame = frame[:1599]
        out.append(struct.pack("<HB", len(frame), link) + frame)
    return b"".join(out)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = pathlib.Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        for name in SOURCES:
            source = ROOT / "captures" / name
            (out / f"bare-{name}").write_bytes(seed(source))
            for encapsulation in ENCAPSULATIONS:
                wrapped = os.path.join(scratch, f"{encapsulation}-{name}")
                wrap(encapsulation, source, wrapped)
                (out / f"{encapsulation}-{name}").write_bytes(seed(wrapped))
            for mode in MODES:
                if (mode == "ipv6") == (name == "lab-ipv6.pcap"):
                    pieces = os.path.join(scratch, f"fragments-{mode}-{name}")
                    fragment(mode, source, pieces)
                    (out / f"fragments-{mode}-{name}").write_bytes(seed(pieces, FRAGMENTED_FRAMES))


if __name__ == "__main__":
    main()
