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
