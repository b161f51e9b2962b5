/* The GUI's capture file as tcpdiag needs it: whether the file has been read whole
 * (verdicts that need the whole capture exist only then), and, once it has, the
 * display filter applied again when it ran on what was known before: a filter on
 * tcpdiag fields given at open (-Y) or typed while the file loaded never stays a
 * partial answer (docs/gui.md, "Never half an answer").
 *
 * Wireshark's GUI answers through epan/plugin_if.h (4.0 to 4.6). tshark registers
 * no GUI: there a frame dissected again always belongs to the second pass. */

#include "ws_compat.h"

#include <string.h>

#include <epan/packet.h>
#include <epan/plugin_if.h>

#include "gui-tcpdiag.h"

/* The sequential read of this file is over (reset with the file's state). */
static bool read_whole;
/* The display filter to apply again once the GUI is idle, or NULL. */
static char *filter_to_refresh;
static guint refresh_timer;

static void *state_of(capture_file *cf, void *user_data _U_)
{
    return GINT_TO_POINTER((int)cf->state + 1);
}

static void *reading_of(capture_file *cf, void *user_data _U_)
{
    return GINT_TO_POINTER(cf->read_lock || cf->state == FILE_READ_IN_PROGRESS ? 2 : 1);
}

static void *filter_of(capture_file *cf, void *user_data _U_)
{
    return g_strdup(cf->dfilter ? cf->dfilter : "");
}

bool tcpdiag_file_read(void)
{
    void *state;

    if (read_whole)
        return true;
    state = plugin_if_get_capture_file(state_of, NULL);
    /* No GUI (tshark), or a GUI whose file is read (a re-dissection after a
     * preference change, which ends no sequential read). */
    if (!state || GPOINTER_TO_INT(state) - 1 != FILE_READ_IN_PROGRESS) {
        read_whole = true;
        return true;
    }
    return false;
}

/* Runs from the GUI's event loop (GLib's, which Qt's dispatcher iterates on Linux),
 * never inside the read: a refilter from within it would be refused. */
static gboolean refresh_view(gpointer user_data _U_)
{
    if (GPOINTER_TO_INT(plugin_if_get_capture_file(reading_of, NULL)) == 2)
        return G_SOURCE_CONTINUE;
    plugin_if_apply_filter(filter_to_refresh, TRUE);
    g_free(filter_to_refresh);
    filter_to_refresh = NULL;
    refresh_timer = 0;
    return G_SOURCE_REMOVE;
}

/* The end of the sequential read. A filter naming tcpdiag ran on first-pass
 * verdicts: apply it again once the GUI is idle. Wireshark's GUI skips a filter
 * equal to the one applied (plugin_if_apply_filter does not force it), so the
 * same filter goes with one more trailing space. */
static void file_read_whole(void)
{
    char *filter;

    read_whole = true;
    filter = plugin_if_get_capture_file(filter_of, NULL);
    if (!filter)
        return;
    if (strstr(filter, "tcpdiag") && !refresh_timer) {
        filter_to_refresh = g_strconcat(filter, " ", NULL);
        g_free(filter);
        refresh_timer = g_timeout_add(100, refresh_view, NULL);
    } else
        g_free(filter);
}

static void forget_file(void)
{
    read_whole = false;
}

void tcpdiag_gui_register(void)
{
    register_init_routine(forget_file);
    register_postseq_cleanup_routine(file_read_whole);
}
