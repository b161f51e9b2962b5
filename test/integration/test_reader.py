"""The command's two readers (issue 38): libpcap for the pcap and pcapng files it reads
exactly as wiretap does, wiretap for everything else. Whichever reads a file, its
records are the same: a file wiretap must read (gzip'd, a pcapng whose interfaces
have different link types, a format libpcap does not read, standard input, a record
longer than the file's snapshot length) gives the records of the same packets read by
libpcap. -v says which library read each file, and why not libpcap."""
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


def test_pcap_and_pcapng_are_read_by_libpcap(tmp_path):
    as_pcapng = tmp_path / "copy.pcapng"
    subprocess.run(["editcap", "-F", "pcapng", ETHERNET, as_pcapng], check=True)
    nanos = tmp_path / "copy-nanoseconds.pcap"
    subprocess.run(["editcap", "-F", "nsecpcap", ETHERNET, nanos], check=True)
    assert reader_of(ETHERNET) == "libpcap"
    assert reader_of(as_pcapng) == "libpcap"
    assert reader_of(nanos) == "libpcap"
    assert records_without_file([as_pcapng]) == records_without_file([ETHERNET])
    assert records_without_file([nanos]) == records_without_file([ETHERNET])


def test_a_gzipped_pcap_falls_back_to_wiretap(tmp_path):
    packed = tmp_path / "copy.pcap.gz"
    with open(ETHERNET, "rb") as raw, gzip.open(packed, "wb") as out:
        shutil.copyfileobj(raw, out)
    assert reader_of(packed) == "wiretap (gzip-compressed)"
    assert records_without_file([packed]) == records_without_file([ETHERNET])


def test_a_pcapng_with_two_link_types_falls_back_to_wiretap(tmp_path):
    """Ethernet and PPP interfaces in one pcapng: libpcap refuses such a file, wiretap
    reads it; its records are those of its two files merged, each read by libpcap."""
    ppp = tmp_path / "ppp.pcap"
    wrap("ppp", OTHER, ppp)
    both = tmp_path / "both.pcapng"
    subprocess.run(["mergecap", "-F", "pcapng", "-w", both, ETHERNET, ppp], check=True)
    assert reader_of(both) == "wiretap (interfaces with different link types)"
    assert reader_of(ppp) == "libpcap"
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


def test_a_record_longer_than_the_snapshot_length_falls_back_to_wiretap(tmp_path):
    """libpcap would cut such a record down to the snapshot length; wiretap reads it
    whole, as it did before libpcap read anything."""
    data = bytearray(ETHERNET.read_bytes())
    endian = "<" if data[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
    data[16:20] = struct.pack(endian + "I", 60)
    short = tmp_path / "snaplen-60.pcap"
    short.write_bytes(bytes(data))
    assert reader_of(short) == "wiretap (a record longer than the file's snapshot length)"
    assert records_without_file([short]) == records_without_file([ETHERNET])


def test_standard_input_is_read_by_wiretap():
    proc = subprocess.run([str(command.command_path()), "-v", "--summary", "-"], stdin=open(ETHERNET, "rb"),
                          capture_output=True, text=True, timeout=300, check=True)
    assert "tcpdiag: standard input: read by wiretap (standard input, read as it comes)" in proc.stderr
    assert records_without_file(["-"], stdin=ETHERNET.read_bytes()) == records_without_file([ETHERNET])


def test_without_v_nothing_is_said():
    assert "read by" not in command.run(["--summary", ETHERNET]).stderr
