/* libFuzzer target for the command's pcap reader (cmd/pcap_file.c): arbitrary bytes
 * as a file, opened and read to its end or to the record it leaves to wiretap, twice:
 * mapped (a memfd, a regular file) and through a pipe (read() into the reader's
 * block, where ASan checks that each byte handed out lies in it). The two ways must
 * hand out the same records and stop the same way, and no record may be over
 * wiretap's largest. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "pcap_file.h"

/* What one way of reading made of the bytes: a running hash of every record's fields
 * and bytes (so that every byte handed out is read), and how it stopped. */
typedef struct reading {
    uint64_t hash;
    uint32_t records;
    int opened;
    td_pcap_step last;
    const char *why;
} reading;

static void mix(reading *r, uint64_t v)
{
    r->hash = (r->hash ^ v) * 0x100000001b3ull;
}

static reading read_all(int fd)
{
    reading r = { 0xcbf29ce484222325ull, 0, 0, TD_PCAP_END, NULL };
    td_frame frame;
    td_pcap_file *file = td_pcap_file_open(fd, &r.why);

    if (!file) {
        if (!r.why)
            __builtin_trap();
        close(fd);
        return r;
    }
    r.opened = 1;
    for (;;) {
        td_pcap_step step = td_pcap_file_next(file, &frame, &r.why);
        if (step != TD_PCAP_PACKET) {
            if (step == TD_PCAP_LEAVE && !r.why)
                __builtin_trap();
            r.last = step;
            break;
        }
        if (frame.caplen > 262144 || frame.link != td_pcap_file_link(file))
            __builtin_trap();
        r.records++;
        mix(&r, frame.caplen);
        mix(&r, frame.wire_len);
        mix(&r, (uint64_t)frame.time_ns);
        for (uint32_t i = 0; i < frame.caplen; i++)
            mix(&r, frame.data[i]);
    }
    td_pcap_file_close(file);
    return r;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int fd = memfd_create("fuzz_pcap_file", MFD_CLOEXEC);
    int ends[2];
    reading mapped, piped;

    if (fd < 0 || write(fd, data, size) != (ssize_t)size || lseek(fd, 0, SEEK_SET) != 0)
        __builtin_trap();
    mapped = read_all(fd);
    /* the whole input fits the pipe's buffer, written before the reading starts */
    if (pipe2(ends, O_CLOEXEC) != 0 || fcntl(ends[1], F_SETPIPE_SZ, 1 << 20) < 0)
        __builtin_trap();
    if (size > (size_t)fcntl(ends[1], F_GETPIPE_SZ)) {
        close(ends[0]);
        close(ends[1]);
        return 0;
    }
    if (size && write(ends[1], data, size) != (ssize_t)size)
        __builtin_trap();
    close(ends[1]);
    piped = read_all(ends[0]);
    if (mapped.opened != piped.opened || mapped.records != piped.records || mapped.hash != piped.hash ||
        mapped.last != piped.last || strcmp(mapped.why ? mapped.why : "", piped.why ? piped.why : "") != 0)
        __builtin_trap();
    return 0;
}
