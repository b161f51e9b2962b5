/* The command's pcap reader (cmd/pcap_file.c) on files built here byte by byte from
 * the pcap format (tcpdump.org's pcap-savefile(5), and wiretap's reading of it): both
 * byte orders and both time units, records that cross its windows and blocks, files
 * cut short, records over wiretap's largest, and the files it leaves to wiretap whole;
 * each test once on a regular file (mapped) and once through a pipe (read()). A file
 * that grows or shrinks while it is read, mapped. */
#include <glib.h>
#include <glib/gstdio.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include "pcap_file.h"

enum { USEC, NSEC };

typedef struct file_spec {
    bool swapped;
    int unit;
    uint16_t major, minor;
    uint32_t snaplen, linktype;
} file_spec;

static const file_spec PLAIN = { false, USEC, 2, 4, 262144, 1 };

static void put32(GByteArray *b, uint32_t v, bool swapped)
{
    if (swapped)
        v = GUINT32_SWAP_LE_BE(v);
    g_byte_array_append(b, (const guint8 *)&v, 4);
}

static void put16(GByteArray *b, uint16_t v, bool swapped)
{
    if (swapped)
        v = GUINT16_SWAP_LE_BE(v);
    g_byte_array_append(b, (const guint8 *)&v, 2);
}

static GByteArray *header(file_spec s)
{
    GByteArray *b = g_byte_array_new();

    /* the magic is written in the writer's order: swapped, it reads reversed here */
    put32(b, s.unit == USEC ? 0xA1B2C3D4 : 0xA1B23C4D, s.swapped);
    put16(b, s.major, s.swapped);
    put16(b, s.minor, s.swapped);
    put32(b, 0, s.swapped);     /* thiszone */
    put32(b, 0, s.swapped);     /* sigfigs */
    put32(b, s.snaplen, s.swapped);
    put32(b, s.linktype, s.swapped);
    return b;
}

/* The byte at i of record n's data: a record read from the wrong place shows. */
static uint8_t pattern(uint32_t n, uint32_t i)
{
    return (uint8_t)(n * 31 + i * 7 + 1);
}

static void record(GByteArray *b, bool swapped, uint32_t n, uint32_t sec, uint32_t frac, uint32_t caplen, uint32_t wire)
{
    put32(b, sec, swapped);
    put32(b, frac, swapped);
    put32(b, caplen, swapped);
    put32(b, wire, swapped);
    for (uint32_t i = 0; i < caplen; i++) {
        uint8_t v = pattern(n, i);
        g_byte_array_append(b, &v, 1);
    }
}

/* How the tests hand the reader its bytes: a regular file, which it maps, or a
 * pipe, which it reads with read(). */
static bool through_pipe;

typedef struct pipe_writer {
    int fd;
    GByteArray *bytes;
} pipe_writer;

/* The writing end: every byte, or as many as the reader takes before it closes. */
static gpointer feed_pipe(gpointer data)
{
    pipe_writer *w = data;

    for (guint done = 0; done < w->bytes->len;) {
        ssize_t n = write(w->fd, w->bytes->data + done, w->bytes->len - done);
        if (n <= 0)
            break;
        done += (guint)n;
    }
    close(w->fd);
    g_byte_array_free(w->bytes, TRUE);
    g_free(w);
    return NULL;
}

/* The bytes as a file, open for reading at its start; with path, its name is kept
 * there (the caller unlinks it). */
static int as_file_named(GByteArray *b, char **path)
{
    char *name = NULL;
    int fd;

    if (through_pipe) {
        int ends[2];
        pipe_writer *w = g_new(pipe_writer, 1);
        g_assert_cmpint(pipe(ends), ==, 0);
        w->fd = ends[1];
        w->bytes = b;
        g_thread_unref(g_thread_new("pipe", feed_pipe, w));
        return ends[0];
    }
    fd = g_file_open_tmp("test_pcap_file-XXXXXX", &name, NULL);
    g_assert_cmpint(fd, >=, 0);
    g_assert_cmpint(write(fd, b->data, b->len), ==, (ssize_t)b->len);
    g_assert_cmpint(lseek(fd, 0, SEEK_SET), ==, 0);
    if (path)
        *path = name;
    else {
        g_unlink(name);
        g_free(name);
    }
    g_byte_array_free(b, TRUE);
    return fd;
}

static int as_file(GByteArray *b)
{
    return as_file_named(b, NULL);
}

static td_pcap_file *open_ok(GByteArray *b)
{
    const char *why = NULL;
    td_pcap_file *f = td_pcap_file_open(as_file(b), &why);

    g_assert_nonnull(f);
    return f;
}

/* NULL at open, and why */
static const char *refused(GByteArray *b)
{
    const char *why = NULL;
    int fd = as_file(b);
    td_pcap_file *f = td_pcap_file_open(fd, &why);

    g_assert_null(f);
    g_assert_nonnull(why);
    close(fd);
    return why;
}

static void expect_record(td_pcap_file *f, uint32_t n, int64_t time_ns, uint32_t caplen, uint32_t wire)
{
    td_frame frame;
    const char *why = NULL;

    g_assert_cmpint(td_pcap_file_next(f, &frame, &why), ==, TD_PCAP_PACKET);
    g_assert_cmpint(frame.time_ns, ==, time_ns);
    g_assert_cmpuint(frame.caplen, ==, caplen);
    g_assert_cmpuint(frame.wire_len, ==, wire);
    for (uint32_t i = 0; i < caplen; i++)
        if (frame.data[i] != pattern(n, i))
            g_error("record %u, byte %u: %u, not %u", n, i, frame.data[i], pattern(n, i));
}

static void expect_step(td_pcap_file *f, td_pcap_step step, const char *why_expected)
{
    td_frame frame;
    const char *why = NULL;

    g_assert_cmpint(td_pcap_file_next(f, &frame, &why), ==, step);
    if (why_expected)
        g_assert_cmpstr(why, ==, why_expected);
}

static void test_both_orders_and_units(void)
{
    for (int swapped = 0; swapped < 2; swapped++)
        for (int unit = USEC; unit <= NSEC; unit++) {
            file_spec s = { swapped, unit, 2, 4, 65535, 113 };
            GByteArray *b = header(s);
            td_pcap_file *f;
            record(b, swapped, 0, 1700000000, 123456, 60, 60);
            record(b, swapped, 1, 1700000001, 999999, 1514, 1514);
            record(b, swapped, 2, 1700000002, 0, 96, 1514);     /* snapped */
            f = open_ok(b);
            g_assert_cmpint(td_pcap_file_link(f), ==, TD_LINK_SLL);
            expect_record(f, 0, 1700000000LL * 1000000000 + 123456LL * (unit == USEC ? 1000 : 1), 60, 60);
            expect_record(f, 1, 1700000001LL * 1000000000 + 999999LL * (unit == USEC ? 1000 : 1), 1514, 1514);
            expect_record(f, 2, 1700000002LL * 1000000000, 96, 1514);
            expect_step(f, TD_PCAP_END, NULL);
            expect_step(f, TD_PCAP_END, NULL);
            td_pcap_file_close(f);
        }
}

/* Sizes from 0 to the largest, over several of the reader's 1 MiB blocks, so that
 * records and record headers are split by a block's end at many offsets. */
static uint32_t size_of(uint32_t n)
{
    static const uint32_t sizes[] = { 0, 1, 15, 16, 17, 54, 1514, 9014, 65535, 262144, 4093, 131073 };
    return sizes[n % G_N_ELEMENTS(sizes)] + (n / G_N_ELEMENTS(sizes)) % 5;
}

static void test_records_across_blocks(void)
{
    enum { RECORDS = 240 };
    GByteArray *b = header(PLAIN);
    td_pcap_file *f;

    for (uint32_t n = 0; n < RECORDS; n++) {
        uint32_t caplen = MIN(size_of(n), 262144);
        record(b, false, n, 1000 + n, n, caplen, caplen + 4);
    }
    g_assert_cmpuint(b->len, >, 8u << 20);
    f = open_ok(b);
    for (uint32_t n = 0; n < RECORDS; n++) {
        uint32_t caplen = MIN(size_of(n), 262144);
        expect_record(f, n, (1000LL + n) * 1000000000 + n * 1000LL, caplen, caplen + 4);
    }
    expect_step(f, TD_PCAP_END, NULL);
    td_pcap_file_close(f);
}

/* A file that ends inside a record leaves that record and the rest to wiretap, whose
 * error words the command gives; after whole records it ends cleanly. */
static void test_files_cut_short(void)
{
    for (int cut = 0; cut < 3; cut++) {
        GByteArray *b = header(PLAIN);
        td_pcap_file *f;
        for (uint32_t n = 0; n < 5; n++)
            record(b, false, n, 10, n, 100, 100);
        if (cut == 1)
            g_byte_array_set_size(b, b->len - 5);           /* the last record's data */
        if (cut == 2)
            g_byte_array_set_size(b, b->len - 100 - 7);     /* its header */
        f = open_ok(b);
        for (uint32_t n = 0; n < 4; n++)
            expect_record(f, n, 10LL * 1000000000 + n * 1000, 100, 100);
        if (cut == 0) {
            expect_record(f, 4, 10LL * 1000000000 + 4000, 100, 100);
            expect_step(f, TD_PCAP_END, NULL);
        } else
            expect_step(f, TD_PCAP_LEAVE, cut == 1 ? "a record cut short" : "a record header cut short");
        td_pcap_file_close(f);
    }
}

/* wiretap's largest record for these link types is 262,144 bytes; past its first
 * records, one longer is an error there: left to it. One longer than the snapshot
 * length is kept whole, as wiretap keeps it. */
static void test_record_lengths(void)
{
    file_spec s = PLAIN;
    GByteArray *b;
    td_pcap_file *f;

    s.snaplen = 200;
    b = header(s);
    for (uint32_t n = 0; n < 3; n++)
        record(b, false, n, 1, 0, 200, 1500);
    record(b, false, 3, 1, 0, 1500, 1500);
    record(b, false, 4, 1, 0, 262144, 262144);
    record(b, false, 5, 1, 0, 262145, 262145);
    f = open_ok(b);
    for (uint32_t n = 0; n < 3; n++)
        expect_record(f, n, 1000000000, 200, 1500);
    expect_record(f, 3, 1000000000, 1500, 1500);
    expect_record(f, 4, 1000000000, 262144, 262144);
    expect_step(f, TD_PCAP_LEAVE, "a record over 262,144 bytes");
    td_pcap_file_close(f);
}

/* Past the first records, a fraction of a second of a million or more is read as
 * wiretap reads it: times 1,000 in 32 bits (microseconds), stored as a signed int. */
static void test_odd_fractions_read_as_wiretap(void)
{
    GByteArray *b = header(PLAIN);
    td_pcap_file *f;

    for (uint32_t n = 0; n < 3; n++)
        record(b, false, n, 5, 0, 10, 10);
    record(b, false, 3, 5, 5000000, 10, 10);        /* 5e9 mod 2^32 = 705,032,704 */
    record(b, false, 4, 5, 3000000, 10, 10);        /* 3e9: negative as an int */
    f = open_ok(b);
    for (uint32_t n = 0; n < 3; n++)
        expect_record(f, n, 5000000000LL, 10, 10);
    expect_record(f, 3, 5000000000LL + 705032704, 10, 10);
    expect_record(f, 4, 5000000000LL + 3000000000LL - 4294967296LL, 10, 10);
    td_pcap_file_close(f);

    /* nanoseconds: no guessing at variants, and the fraction as it stands */
    file_spec s = PLAIN;
    s.unit = NSEC;
    b = header(s);
    record(b, false, 0, 5, 2000000000, 10, 10);
    f = open_ok(b);
    expect_record(f, 0, 5000000000LL + 2000000000LL, 10, 10);
    expect_step(f, TD_PCAP_END, NULL);
    td_pcap_file_close(f);
}

/* Files wiretap reads otherwise (or names a link type of): refused at open. */
static void test_left_to_wiretap(void)
{
    file_spec s;
    GByteArray *b;

    s = PLAIN;
    s.minor = 3;        /* lengths maybe swapped */
    g_assert_cmpstr(refused(header(s)), ==, "a pcap version other than 2.4");
    s = PLAIN;
    s.linktype = 147;   /* a user link type */
    g_assert_cmpstr(refused(header(s)), ==, "a link type the decoder does not read");
    s = PLAIN;
    s.linktype = 1 | 0x04000000 | (2u << 28);   /* Ethernet with a 32-bit FCS */
    g_assert_cmpstr(refused(header(s)), ==, "a link type the decoder does not read");

    b = g_byte_array_new();
    g_byte_array_append(b, (const guint8 *)"\x0a\x0d\x0d\x0a", 4);     /* pcapng */
    g_byte_array_set_size(b, 64);
    g_assert_cmpstr(refused(b), ==, "not a pcap file");
    b = g_byte_array_new();
    g_byte_array_append(b, (const guint8 *)"\xd4\xc3\xb2\xa1", 4);
    g_assert_cmpstr(refused(b), ==, "shorter than a pcap header");

    /* each of wiretap's signs of an older variant, in one of the first three records */
    for (int sign = 0; sign < 5; sign++) {
        s = PLAIN;
        s.snaplen = 1000;
        b = header(s);
        record(b, false, 0, 1, 0, 60, 60);
        switch (sign) {
        case 0: record(b, false, 1, 1, 1000000, 60, 60); break;        /* a whole second as a fraction */
        case 1: record(b, false, 1, 1, 0, 1001, 1001); break;          /* over the snapshot length */
        case 2: record(b, false, 1, 1, 0, 60, 59); break;              /* captured over the wire length */
        case 3: record(b, false, 1, 1, 0, 60, 128u * 1024 * 1024 + 1); break;
        case 4: record(b, false, 1, 1, 0, 60, 60); break;
        }
        record(b, false, 2, 1, 0, 60, 60);
        if (sign == 4)
            g_byte_array_set_size(b, b->len - 1);       /* the third cut short */
        g_assert_cmpstr(refused(b), ==,
                        sign == 4 ? "its first records cut short" : "first records wiretap reads as an older variant of pcap");
    }
    /* the same signs past the third record are no sign: the file is read */
    s = PLAIN;
    s.snaplen = 1000;
    b = header(s);
    for (uint32_t n = 0; n < 3; n++)
        record(b, false, n, 1, 0, 60, 60);
    record(b, false, 3, 1, 0, 60, 59);
    td_pcap_file *f = open_ok(b);
    for (uint32_t n = 0; n < 3; n++)
        expect_record(f, n, 1000000000, 60, 60);
    expect_record(f, 3, 1000000000, 60, 59);
    td_pcap_file_close(f);
}

/* A header and no record, or fewer than three: read, and ended cleanly. */
static void test_few_records(void)
{
    for (uint32_t records = 0; records < 3; records++) {
        GByteArray *b = header(PLAIN);
        td_pcap_file *f;
        for (uint32_t n = 0; n < records; n++)
            record(b, false, n, 7, 0, 40, 40);
        f = open_ok(b);
        for (uint32_t n = 0; n < records; n++)
            expect_record(f, n, 7000000000LL, 40, 40);
        expect_step(f, TD_PCAP_END, NULL);
        td_pcap_file_close(f);
    }
}

/* Records of 1,514 bytes over several windows, record n's time n seconds. */
enum { STEADY_CAPLEN = 1514, STEADY_RECORDS = 7000 };

static GByteArray *steady_file(uint32_t from, uint32_t records, bool with_header)
{
    GByteArray *b = with_header ? header(PLAIN) : g_byte_array_new();

    for (uint32_t n = from; n < from + records; n++)
        record(b, false, n, n, 0, STEADY_CAPLEN, STEADY_CAPLEN);
    return b;
}

/* A capture still being written: what was added before the reader reached the end of
 * what it had mapped is read too, as read() would read it. */
static void test_grows_while_read(void)
{
    char *path = NULL;
    GByteArray *more = steady_file(STEADY_RECORDS, 100, false);
    int fd = as_file_named(steady_file(0, STEADY_RECORDS, true), &path);
    td_pcap_file *f;
    const char *why = NULL;
    int append;

    f = td_pcap_file_open(fd, &why);
    g_assert_nonnull(f);
    expect_record(f, 0, 0, STEADY_CAPLEN, STEADY_CAPLEN);
    append = open(path, O_WRONLY | O_APPEND);
    g_assert_cmpint(write(append, more->data, more->len), ==, (ssize_t)more->len);
    close(append);
    for (uint32_t n = 1; n < STEADY_RECORDS + 100; n++)
        expect_record(f, n, n * 1000000000LL, STEADY_CAPLEN, STEADY_CAPLEN);
    expect_step(f, TD_PCAP_END, NULL);
    td_pcap_file_close(f);
    g_unlink(path);
    g_free(path);
    g_byte_array_free(more, TRUE);
}

/* A file cut while it is read (tcpdump -W rewriting the oldest file of its ring):
 * the pages past the cut are gone, and touching one raises SIGBUS. The reader hands
 * out the records wholly before the cut intact, perhaps the one the cut fell in (its
 * bytes past the cut zeros, the handler's), then leaves the rest, and says why. */
static void test_shrinks_while_read(void)
{
    enum { CUT = 1 << 20 };
    char *path = NULL;
    int fd = as_file_named(steady_file(0, STEADY_RECORDS, true), &path);
    const uint32_t whole = (CUT - 24) / (16 + STEADY_CAPLEN);     /* records ending before the cut */
    td_pcap_file *f;
    const char *why = NULL;

    f = td_pcap_file_open(fd, &why);
    g_assert_nonnull(f);
    for (uint32_t n = 0; n < 100; n++)
        expect_record(f, n, n * 1000000000LL, STEADY_CAPLEN, STEADY_CAPLEN);
    g_assert_cmpint(truncate(path, CUT), ==, 0);
    for (uint32_t n = 100; n < whole; n++)
        expect_record(f, n, n * 1000000000LL, STEADY_CAPLEN, STEADY_CAPLEN);
    td_frame cut_in;
    if (td_pcap_file_next(f, &cut_in, &why) == TD_PCAP_PACKET) {
        /* its header lies before the cut; its bytes are read as the decoder would */
        const uint32_t before_cut = CUT - (24 + whole * (16 + STEADY_CAPLEN) + 16);
        g_assert_cmpuint(cut_in.caplen, ==, STEADY_CAPLEN);
        for (uint32_t i = 0; i < STEADY_CAPLEN; i++)
            g_assert_cmpuint(cut_in.data[i], ==, i < before_cut ? pattern(whole, i) : 0);
    }
    expect_step(f, TD_PCAP_LEAVE, "the file shrank while it was read");
    expect_step(f, TD_PCAP_LEAVE, "the file shrank while it was read");
    td_pcap_file_close(f);
    g_unlink(path);
    g_free(path);
}

static void run_mapped(gconstpointer test)
{
    through_pipe = false;
    ((void (*)(void))test)();
}

static void run_through_pipe(gconstpointer test)
{
    through_pipe = true;
    ((void (*)(void))test)();
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        void (*test)(void);
    } both_ways[] = {
        { "both_orders_and_units", test_both_orders_and_units },
        { "records_across_blocks", test_records_across_blocks },
        { "files_cut_short", test_files_cut_short },
        { "record_lengths", test_record_lengths },
        { "odd_fractions_read_as_wiretap", test_odd_fractions_read_as_wiretap },
        { "left_to_wiretap", test_left_to_wiretap },
        { "few_records", test_few_records },
    };

    g_test_init(&argc, &argv, NULL);
    signal(SIGPIPE, SIG_IGN);       /* a refused file's writer meets a closed pipe */
    for (size_t i = 0; i < G_N_ELEMENTS(both_ways); i++) {
        char *mapped = g_strdup_printf("/pcap_file/mapped/%s", both_ways[i].name);
        char *piped = g_strdup_printf("/pcap_file/read/%s", both_ways[i].name);
        g_test_add_data_func(mapped, (gconstpointer)both_ways[i].test, run_mapped);
        g_test_add_data_func(piped, (gconstpointer)both_ways[i].test, run_through_pipe);
        g_free(mapped);
        g_free(piped);
    }
    g_test_add_data_func("/pcap_file/mapped/grows_while_read", (gconstpointer)test_grows_while_read, run_mapped);
    g_test_add_data_func("/pcap_file/mapped/shrinks_while_read", (gconstpointer)test_shrinks_while_read, run_mapped);
    return g_test_run();
}
