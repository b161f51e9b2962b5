/* libFuzzer target for the command's pcap reader (cmd/pcap_file.c): arbitrary bytes
 * as a file, opened and read to its end or to the record it leaves to wiretap. Every
 * byte of every record handed out is read (ASan checks each lies in the reader's
 * block), and no record may be over wiretap's largest. */
#define _GNU_SOURCE
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>
#include "pcap_file.h"

/* what the records' bytes read into: kept, so the reads are made */
static volatile uint8_t sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *why = NULL;
    td_pcap_file *file;
    td_frame frame;
    int fd = memfd_create("fuzz_pcap_file", MFD_CLOEXEC);

    if (fd < 0 || write(fd, data, size) != (ssize_t)size || lseek(fd, 0, SEEK_SET) != 0)
        __builtin_trap();
    file = td_pcap_file_open(fd, &why);
    if (!file) {
        if (!why)
            __builtin_trap();
        close(fd);
        return 0;
    }
    for (;;) {
        td_pcap_step step = td_pcap_file_next(file, &frame, &why);
        if (step != TD_PCAP_PACKET) {
            if (step == TD_PCAP_LEAVE && !why)
                __builtin_trap();
            break;
        }
        if (frame.caplen > 262144 || frame.link != td_pcap_file_link(file))
            __builtin_trap();
        for (uint32_t i = 0; i < frame.caplen; i++)
            sink ^= frame.data[i];
    }
    td_pcap_file_close(file);
    return 0;
}
