/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The tray's window: a bubble level and a plot of x and y over the last TRAY_PLOT_SPAN_SEC seconds,
 * plus orientation, temperature and tilt readouts. Samples only queue a redraw, so drawing is
 * coalesced to the frame clock whatever the sampling rate. */

#include <gtk/gtk.h>

#define TRAY_PLOT_SPAN_SEC 10

typedef struct TrayWindow TrayWindow;

/* on_visibility is called when the window becomes seen or unseen (tray_window_is_seen()). A window
 * destroyed from outside (XDestroyWindow) is made again, hidden: the TrayWindow stays valid. */
TrayWindow *tray_window_new(GCallback on_visibility, gpointer userdata);
void tray_window_free(TrayWindow *w);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(TrayWindow, tray_window_free)

void tray_window_present(TrayWindow *w);
/* The window as a dialog's parent while it is shown (mapped), else NULL. */
GtkWindow *tray_window_dialog_parent(TrayWindow *w);
/* Shown, mapped and not minimized (not on another workspace): worth drawing, so worth the full rate and
 * the samples. */
gboolean tray_window_is_seen(TrayWindow *w);

void tray_window_add_sample(TrayWindow *w, guint64 time_usec, int x, int y);
void tray_window_set_rest(TrayWindow *w, int x, int y);

/* The readouts; temperature NULL while it is not known. status is a line shown above them ("" when all
 * is well); it wraps. */
void tray_window_set_readouts(TrayWindow *w, const char *orientation, const int *temperature, double pitch,
                              double roll, guint sampling_rate);
/* Forgets the samples and empties the readouts, bubble and plot: nothing is known (no service, or no
 * accelerometer). */
void tray_window_clear(TrayWindow *w);
void tray_window_set_status(TrayWindow *w, const char *status);
