"""The command's three readers (issue 38): its own for the classic pcap files it reads
exactly as wiretap does (cmd/pcap_file.c), libpcap for such pcapng files, wiretap for
everything else, and for the rest of a file the pcap reader stops in. Whichever reads
a file, its records are the same: a file wiretap must read (gzip'd, a pcapng whose
interfaces have different link types, a format libpcap does not read, standard input,
first records that look like an old variant of pcap) gives the records of the same
packets read by the pcap reader or libpcap. -v says which read each file, and why not
the faster ones."""
import gzip
import json
import shutil
import struct
import subprocess

import pytest

import command
from test_erf import write_erf
from tshark import CAPTURES
from wrap_capture import wrap

ETHERNET = CAPTURES / "lab-ecn-1-of-n.pcap"
OTHER = CAPTURES / "lab-ipv6.pcap"


def records_without_file(args, stdin=None):
    """Every NDJSON record, without the file's name (the copies have other names)."""
    proc = subprocess.run([str(command.command_path()), "--format", "json", *map(str, args)], input=stdin,
                          capture_output=True, timeout=300, check=True)
    return [{k: v for k, v in json.loads(line).items() if k != "file"} for line in proc.stdout.splitlines()]


def reader_of(path):
    """What -v says of the file: 'libpcap', or 'wiretap (why)'."""
    proc = command.run(["-v", "--summary", path])
    said = [line for line in proc.stderr.splitlines() if line.startswith(f"tcpdiag: {path}: read by ")]
    assert len(said) == 1, proc.stderr
    return said[0].split(": read by ", 1)[1]


PCAP_READER = "tcpdiag's pcap reader"


def pcap_records(data):
    """(offset, caplen) of each record of a classic pcap file's bytes, and its byte order."""
    endian = "<" if data[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
    off, records = 24, []
    while off < len(data):
        caplen = struct.unpack_from(endian + "I", data, off + 8)[0]
        records.append((off, caplen))
        off += 16 + caplen
    return records, endian


def byte_swapped(data):
    """The pcap file as a machine of the other byte order writes it (every header field
    swapped, the packets' bytes as they are)."""
    records, endian = pcap_records(data)
    other = ">" if endian == "<" else "<"
    out = bytearray(data)
    out[0:24] = struct.pack(other + "IHHiIII", *struct.unpack_from(endian + "IHHiIII", data, 0))
    for off, _ in records:
        out[off:off + 16] = struct.pack(other + "IIII", *struct.unpack_from(endian + "IIII", data, off))
    return bytes(out)


def test_pcap_is_read_by_the_pcap_reader_and_pcapng_by_libpcap(tmp_path):
    as_pcapng = tmp_path / "copy.pcapng"
    subprocess.run(["editcap", "-F", "pcapng", ETHERNET, as_pcapng], check=True)
    nanos = tmp_path / "copy-nanoseconds.pcap"
    subprocess.run(["editcap", "-F", "nsecpcap", ETHERNET, nanos], check=True)
    swapped = tmp_path / "copy-other-byte-order.pcap"
    swapped.write_bytes(byte_swapped(ETHERNET.read_bytes()))
    assert reader_of(ETHERNET) == PCAP_READER
    assert reader_of(as_pcapng) == "libpcap"
    assert reader_of(nanos) == PCAP_READER
    assert reader_of(swapped) == PCAP_READER
    expected = records_without_file([ETHERNET])
    assert records_without_file([as_pcapng]) == expected
    assert records_without_file([nanos]) == expected
    assert records_without_file([swapped]) == expected
    # and each as wiretap reads it
    for path in (ETHERNET, nanos, swapped):
        packed = tmp_path / (path.name + ".gz")
        packed.write_bytes(gzip.compress(path.read_bytes()))
        assert records_without_file([packed]) == expected


def test_a_gzipped_pcap_falls_back_to_wiretap(tmp_path):
    packed = tmp_path / "copy.pcap.gz"
    with open(ETHERNET, "rb") as raw, gzip.open(packed, "wb") as out:
        shutil.copyfileobj(raw, out)
    assert reader_of(packed) == "wiretap (gzip-compressed)"
    assert records_without_file([packed]) == records_without_file([ETHERNET])


def test_a_pcapng_with_two_link_types_falls_back_to_wiretap(tmp_path):
    """Ethernet and PPP interfaces in one pcapng: libpcap refuses such a file, wiretap
    reads it; its records are those of its two files merged, each read by the pcap reader."""
    ppp = tmp_path / "ppp.pcap"
    wrap("ppp", OTHER, ppp)
    both = tmp_path / "both.pcapng"
    subprocess.run(["mergecap", "-F", "pcapng", "-w", both, ETHERNET, ppp], check=True)
    assert reader_of(both) == "wiretap (interfaces with different link types)"
    assert reader_of(ppp) == PCAP_READER
    assert records_without_file([both]) == records_without_file(["--merge", ETHERNET, ppp])


@pytest.mark.parametrize("fmt", ["snoop", "erf"])
def test_a_format_libpcap_does_not_read_falls_back_to_wiretap(fmt, tmp_path):
    other = tmp_path / f"copy.{fmt}"
    if fmt == "erf":
        write_erf(ETHERNET, other)
    else:
        subprocess.run(["editcap", "-F", fmt, ETHERNET, other], check=True)
    assert reader_of(other) == "wiretap (neither pcap nor pcapng)"
    assert records_without_file([other]) == records_without_file([ETHERNET])


def test_records_longer_than_the_snapshot_length_are_read_whole(tmp_path):
    """libpcap would cut such a record down to the snapshot length; wiretap reads it
    whole, and so does the pcap reader. In one of the first three records wiretap takes
    it as a sign of an old variant of pcap, and guesses: such a file is wiretap's."""
    data = bytearray(ETHERNET.read_bytes())
    records, endian = pcap_records(data)
    first_three = max(caplen for _, caplen in records[:3])
    assert any(caplen > first_three for _, caplen in records[3:])
    later = tmp_path / "snaplen-of-the-first-three.pcap"
    data[16:20] = struct.pack(endian + "I", first_three)
    later.write_bytes(bytes(data))
    early = tmp_path / "snaplen-60.pcap"
    data[16:20] = struct.pack(endian + "I", 60)
    early.write_bytes(bytes(data))
    assert reader_of(later) == PCAP_READER
    assert reader_of(early) == "wiretap (first records wiretap reads as an older variant of pcap)"
    assert records_without_file([later]) == records_without_file([ETHERNET])
    assert records_without_file([early]) == records_without_file([ETHERNET])


def test_a_file_cut_short_is_read_on_by_wiretap(tmp_path):
    """The pcap reader hands the record a file ends in to wiretap, which says what is
    wrong in its words: the records and the error are those of wiretap alone."""
    cut = tmp_path / "cut.pcap"
    cut.write_bytes(ETHERNET.read_bytes()[:-10])
    packed = tmp_path / "cut.pcap.gz"
    packed.write_bytes(gzip.compress(cut.read_bytes()))
    ours = command.run(["-v", "--format", "json", cut], check=False)
    wiretaps = command.run(["--format", "json", packed], check=False)
    frames = len(pcap_records(ETHERNET.read_bytes())[0]) - 1
    assert f"read by wiretap from there on (the pcap reader stopped after frame {frames}: a record cut short)" \
        in ours.stderr
    assert ours.returncode == wiretaps.returncode == 1
    assert ours.stderr.splitlines()[-1] == wiretaps.stderr.splitlines()[-1].replace(str(packed), str(cut))
    without_file = lambda out: [{k: v for k, v in json.loads(line).items() if k != "file"}
                                for line in out.splitlines()]
    assert without_file(ours.stdout) == without_file(wiretaps.stdout)


def test_standard_input_is_read_by_wiretap():
    proc = subprocess.run([str(command.command_path()), "-v", "--summary", "-"], stdin=open(ETHERNET, "rb"),
                          capture_output=True, text=True, timeout=300, check=True)
    assert "tcpdiag: standard input: read by wiretap (standard input, read as it comes)" in proc.stderr
    assert records_without_file(["-"], stdin=ETHERNET.read_bytes()) == records_without_file([ETHERNET])


def test_without_v_nothing_is_said():
    assert "read by" not in command.run(["--summary", ETHERNET]).stderr
