/* Arguments to files. A walk follows links to files but not links to folders
 * (a link back up would never end); entries that are neither files nor folders
 * (fifos, sockets, devices) are skipped unopened: opening a fifo would wait. */
#include "inputs.h"

#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void add(td_inputs *in, const char *path, bool in_directory)
{
    td_input file = { g_strdup(path), in_directory };
    g_array_append_val(in->files, file);
}

static void walk(td_inputs *in, const char *folder)
{
    DIR *dir = opendir(folder);
    GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
    struct dirent *entry;

    if (!dir) {
        g_ptr_array_add(in->errors, g_strdup_printf("%s: %s", folder, g_strerror(errno)));
        g_ptr_array_free(names, TRUE);
        return;
    }
    while ((entry = readdir(dir)))
        if (strcmp(entry->d_name, ".") != 0 && strcmp(entry->d_name, "..") != 0)
            g_ptr_array_add(names, g_strdup(entry->d_name));
    closedir(dir);
    qsort(names->pdata, names->len, sizeof(char *), by_name);
    for (guint i = 0; i < names->len; i++) {
        char *path = g_build_filename(folder, g_ptr_array_index(names, i), NULL);
        struct stat link, target;
        if (lstat(path, &link) != 0)
            g_ptr_array_add(in->errors, g_strdup_printf("%s: %s", path, g_strerror(errno)));
        else if (S_ISDIR(link.st_mode))
            walk(in, path);
        else if (S_ISREG(link.st_mode) || (S_ISLNK(link.st_mode) && stat(path, &target) == 0 &&
                                           S_ISREG(target.st_mode)))
            add(in, path, true);
        else
            in->skipped++;
        g_free(path);
    }
    g_ptr_array_free(names, TRUE);
}

td_inputs *td_inputs_collect(char **args, int count)
{
    td_inputs *in = g_new0(td_inputs, 1);

    in->files = g_array_new(FALSE, FALSE, sizeof(td_input));
    in->errors = g_ptr_array_new_with_free_func(g_free);
    for (int i = 0; i < count; i++) {
        struct stat st;
        if (strcmp(args[i], "-") != 0 && stat(args[i], &st) == 0 && S_ISDIR(st.st_mode))
            walk(in, args[i]);
        else
            add(in, args[i], false);
    }
    return in;
}

void td_inputs_free(td_inputs *in)
{
    if (!in)
        return;
    for (guint i = 0; i < in->files->len; i++)
        g_free(g_array_index(in->files, td_input, i).path);
    g_array_free(in->files, TRUE);
    g_ptr_array_free(in->errors, TRUE);
    g_free(in);
}

/* A ring file's name: STEM_NNNNN_YYYYMMDDHHMMSS and EXT (dumpcap -b -w STEM.EXT);
 * its number, or -1 when the name is not one. */
static gint64 ring_number(const char *name, const char *stem, const char *ext)
{
    size_t stem_len = strlen(stem), ext_len = strlen(ext), len = strlen(name);
    const char *p = name + stem_len + 1, *digits = p;

    if (len < stem_len + 1 + ext_len || strncmp(name, stem, stem_len) != 0 || name[stem_len] != '_' ||
        strcmp(name + len - ext_len, ext) != 0)
        return -1;
    while (g_ascii_isdigit(*p))
        p++;
    if (p - digits < 5 || *p != '_')
        return -1;
    for (int i = 1; i <= 14; i++)
        if (!g_ascii_isdigit(p[i]))
            return -1;
    if (p + 15 != name + len - ext_len)
        return -1;
    return g_ascii_strtoll(digits, NULL, 10);
}

typedef struct ring_file {
    gint64 number;
    char *path;
} ring_file;

static int by_number(const void *a, const void *b)
{
    const ring_file *x = a, *y = b;
    return (x->number > y->number) - (x->number < y->number);
}

GPtrArray *td_ring_files(const char *ring, char **error)
{
    char *folder = g_path_get_dirname(ring), *base = g_path_get_basename(ring);
    char *dot = strrchr(base, '.');
    char *ext = g_strdup(dot && dot != base ? dot : "");
    GArray *found = g_array_new(FALSE, FALSE, sizeof(ring_file));
    GPtrArray *paths = g_ptr_array_new_with_free_func(g_free);
    DIR *dir = opendir(folder);
    struct dirent *entry;

    if (dot && dot != base)
        *dot = '\0';
    if (!dir) {
        *error = g_strdup_printf("%s: %s", folder, g_strerror(errno));
        g_ptr_array_free(paths, TRUE);
        paths = NULL;
    }
    while (dir && (entry = readdir(dir))) {
        ring_file f = { ring_number(entry->d_name, base, ext), NULL };
        if (f.number < 0)
            continue;
        f.path = g_build_filename(folder, entry->d_name, NULL);
        g_array_append_val(found, f);
    }
    if (dir)
        closedir(dir);
    g_array_sort(found, by_number);
    for (guint i = 0; i < found->len; i++) {
        char *path = g_array_index(found, ring_file, i).path;
        if (paths)
            g_ptr_array_add(paths, path);
        else
            g_free(path);
    }
    g_array_free(found, TRUE);
    g_free(folder);
    g_free(base);
    g_free(ext);
    return paths;
}
