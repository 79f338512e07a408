/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <math.h>

#include "accel-props.h"
#include "client-i18n.h"
#include "tray-history.h"
#include "tray-window.h"

/* The most samples the plot keeps: TRAY_PLOT_SPAN_SEC at the interface's highest rate (1000/s). */
#define MAX_SAMPLING_RATE 1000
#define HISTORY_CAPACITY  (TRAY_PLOT_SPAN_SEC * MAX_SAMPLING_RATE)
#define USEC_PER_SEC      G_USEC_PER_SEC
/* Display ranges, in raw counts away from the rest position (about 157 counts per g): the bubble
 * reaches the rim at BUBBLE_RANGE_COUNTS (about 30 degrees), the plot spans +-PLOT_RANGE_COUNTS. */
#define BUBBLE_RANGE_COUNTS 80.0
#define PLOT_RANGE_COUNTS   200.0
#define LEVEL_SIZE_PX       220
#define PLOT_WIDTH_PX       440
#define PLOT_MARGIN_PX      28.0
#define BUBBLE_RADIUS_FRAC  0.12
#define LINE_WIDTH_PX       1.5
/* The status line wraps at about the width of the bubble and the plot together. */
#define STATUS_WIDTH_CHARS 70
#define NO_VALUE           "–"
/* A frame asked for and not painted this long: the compositor stopped the window's frame clock, which
 * is how a Wayland compositor hides a surface (xdg-shell has no minimized state and never unmaps). */
#define STALLED_USEC (3 * G_USEC_PER_SEC)

struct TrayWindow {
        GtkWidget *window;
        GtkWidget *level;
        GtkWidget *plot;
        GtkWidget *status;
        GtkWidget *orientation;
        GtkWidget *temperature;
        GtkWidget *tilt;
        GtkWidget *rate;
        SampleHistory history;
        int rest_x, rest_y;
        gboolean seen;     /* last told through on_visibility */
        gboolean x_mapped; /* the X window is mapped (map-event/unmap-event) */
        gboolean obscured; /* the compositor suspended the window (on_visibility_notify) */
        /* The frame clock: a redraw asked for at draw_asked_usec (0: none waiting) and not painted
         * STALLED_USEC later makes the window stalled until the clock paints again. */
        GdkFrameClock *clock;
        gulong after_paint_id;
        gint64 draw_asked_usec;
        gboolean stalled;
        GCallback on_visibility;
        gpointer userdata;
};

static void build(TrayWindow *w);

static void set_source_rgb_hex(cairo_t *cr, guint32 rgb)
{
        cairo_set_source_rgb(cr, ((rgb >> 16) & 0xff) / 255.0, ((rgb >> 8) & 0xff) / 255.0,
                             (rgb & 0xff) / 255.0);
}

/* Tango palette. */
#define COLOR_FRAME  0x555753
#define COLOR_GLASS  0xeeeeec
#define COLOR_BUBBLE 0x8ae234
#define COLOR_RIM    0x4e9a06
#define COLOR_X      0x3465a4
#define COLOR_Y      0xcc0000
#define COLOR_GRID   0xbabdb6

static gboolean draw_level(GtkWidget *widget, cairo_t *cr, gpointer userdata)
{
        TrayWindow *w = userdata;
        double width = gtk_widget_get_allocated_width(widget);
        double height = gtk_widget_get_allocated_height(widget);
        double cx = width / 2, cy = height / 2;
        double radius = MIN(width, height) / 2 - 6;
        double bubble = radius * BUBBLE_RADIUS_FRAC * 2;
        double dx = 0, dy = 0;
        gboolean have_sample = w->history.count > 0;

        if (have_sample) {
                const HistorySample *s = sample_history_get(&w->history, w->history.count - 1);
                /* The bubble rises to the high side: right side up (roll > 0, x grows) moves it right,
                 * front edge up (pitch > 0, y grows) moves it towards the user (down). */
                dx = (s->x - w->rest_x) / BUBBLE_RANGE_COUNTS;
                dy = (s->y - w->rest_y) / BUBBLE_RANGE_COUNTS;
                double r = hypot(dx, dy);
                if (r > 1) {
                        dx /= r;
                        dy /= r;
                }
        }

        cairo_set_line_width(cr, LINE_WIDTH_PX * 2);
        cairo_arc(cr, cx, cy, radius, 0, 2 * G_PI);
        set_source_rgb_hex(cr, COLOR_GLASS);
        cairo_fill_preserve(cr);
        set_source_rgb_hex(cr, COLOR_FRAME);
        cairo_stroke(cr);

        cairo_set_line_width(cr, LINE_WIDTH_PX);
        set_source_rgb_hex(cr, COLOR_GRID);
        cairo_arc(cr, cx, cy, bubble * 1.4, 0, 2 * G_PI);
        cairo_stroke(cr);
        cairo_move_to(cr, cx - radius, cy);
        cairo_line_to(cr, cx + radius, cy);
        cairo_move_to(cr, cx, cy - radius);
        cairo_line_to(cr, cx, cy + radius);
        cairo_stroke(cr);

        /* No sample, no bubble: an empty level does not pretend to know the tilt. */
        if (!have_sample)
                return TRUE;
        cairo_arc(cr, cx + dx * (radius - bubble), cy + dy * (radius - bubble), bubble, 0, 2 * G_PI);
        set_source_rgb_hex(cr, COLOR_BUBBLE);
        cairo_fill_preserve(cr);
        set_source_rgb_hex(cr, COLOR_RIM);
        cairo_stroke(cr);
        return TRUE;
}

static void plot_axis(TrayWindow *w, cairo_t *cr, double left, double top, double width, double height,
                      guint64 newest, gboolean use_y, guint32 color)
{
        gboolean started = FALSE;

        set_source_rgb_hex(cr, color);
        for (size_t i = 0; i < w->history.count; i++) {
                const HistorySample *s = sample_history_get(&w->history, i);
                double age = (double) (newest - s->time_usec) / USEC_PER_SEC;
                double value = use_y ? s->y - w->rest_y : s->x - w->rest_x;
                double px = left + width * (1 - age / TRAY_PLOT_SPAN_SEC);
                double py = top + height / 2 - CLAMP(value / PLOT_RANGE_COUNTS, -1, 1) * height / 2;

                if (!started)
                        cairo_move_to(cr, px, py);
                else
                        cairo_line_to(cr, px, py);
                started = TRUE;
        }
        cairo_stroke(cr);
}

static void plot_label(cairo_t *cr, double x, double y, const char *text)
{
        cairo_move_to(cr, x, y);
        cairo_show_text(cr, text);
}

static gboolean draw_plot(GtkWidget *widget, cairo_t *cr, gpointer userdata)
{
        TrayWindow *w = userdata;
        double width = gtk_widget_get_allocated_width(widget);
        double height = gtk_widget_get_allocated_height(widget);
        double left = PLOT_MARGIN_PX, top = PLOT_MARGIN_PX / 2;
        double pw = width - PLOT_MARGIN_PX * 1.5, ph = height - PLOT_MARGIN_PX * 1.5;
        guint64 newest;

        set_source_rgb_hex(cr, COLOR_GLASS);
        cairo_rectangle(cr, left, top, pw, ph);
        cairo_fill(cr);

        cairo_set_line_width(cr, 1);
        set_source_rgb_hex(cr, COLOR_GRID);
        for (int s = 0; s <= TRAY_PLOT_SPAN_SEC; s += 2) {
                double px = left + pw * s / TRAY_PLOT_SPAN_SEC;
                cairo_move_to(cr, px, top);
                cairo_line_to(cr, px, top + ph);
        }
        cairo_move_to(cr, left, top + ph / 2);
        cairo_line_to(cr, left + pw, top + ph / 2);
        cairo_stroke(cr);

        set_source_rgb_hex(cr, COLOR_FRAME);
        cairo_set_font_size(cr, 10);
        for (int s = 0; s <= TRAY_PLOT_SPAN_SEC; s += 2) {
                g_autofree char *label = g_strdup_printf("-%d s", TRAY_PLOT_SPAN_SEC - s);
                plot_label(cr, left + pw * s / TRAY_PLOT_SPAN_SEC - 10, top + ph + 14,
                           s == TRAY_PLOT_SPAN_SEC ? _("now") : label);
        }
        {
                g_autofree char *hi = g_strdup_printf("+%.0f", PLOT_RANGE_COUNTS);
                g_autofree char *lo = g_strdup_printf("-%.0f", PLOT_RANGE_COUNTS);
                plot_label(cr, 0, top + 8, hi);
                plot_label(cr, 0, top + ph, lo);
                plot_label(cr, 8, top + ph / 2 + 4, "0");
        }
        if (w->history.count == 0)
                return TRUE;

        set_source_rgb_hex(cr, COLOR_X);
        plot_label(cr, left + 6, top + 12, "x");
        set_source_rgb_hex(cr, COLOR_Y);
        plot_label(cr, left + 18, top + 12, "y");

        cairo_save(cr);
        cairo_rectangle(cr, left, top, pw, ph);
        cairo_clip(cr);
        cairo_set_line_width(cr, LINE_WIDTH_PX);
        cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
        newest = sample_history_get(&w->history, w->history.count - 1)->time_usec;
        plot_axis(w, cr, left, top, pw, ph, newest, FALSE, COLOR_X);
        plot_axis(w, cr, left, top, pw, ph, newest, TRUE, COLOR_Y);
        cairo_restore(cr);
        return TRUE;
}

/* Shown, mapped, not minimized, not suspended and painted. On X11 a window manager minimizing the window
 * sets _NET_WM_STATE_HIDDEN (GDK: ICONIFIED); one switching to another workspace unmaps it (xfwm4, mutter;
 * GDK: an unmap event, and ICONIFIED too when the window manager has no _NET_WM_STATE_HIDDEN), as does
 * anyone unmapping it from outside; until it is first mapped the window is WITHDRAWN. A Wayland
 * compositor says none of that (GNOME's minimize, a sway window on another workspace): it stops sending
 * frame callbacks, so the frame clock stalls (sway), or, with xdg-shell 6, suspends the window (mutter 45
 * and later, which keeps the frame clock of a minimized window going; GTK 3.24.4x tells it as a
 * visibility-notify-event, on_visibility_notify). */
static gboolean is_seen(TrayWindow *w)
{
        GdkWindow *window = gtk_widget_get_window(w->window);

        return gtk_widget_get_visible(w->window) && window && w->x_mapped && !w->stalled && !w->obscured &&
               !(gdk_window_get_state(window) & (GDK_WINDOW_STATE_ICONIFIED | GDK_WINDOW_STATE_WITHDRAWN));
}

static void tell_visibility(TrayWindow *w)
{
        gboolean seen = w->window && is_seen(w);

        if (seen == w->seen)
                return;
        w->seen = seen;
        g_debug("Window %s", seen ? "seen" : "unseen");
        if (w->on_visibility)
                ((void (*)(gpointer)) w->on_visibility)(w->userdata);
}

static void on_visibility(GtkWidget *widget, gpointer userdata)
{
        TrayWindow *w = userdata;

        /* Hidden or shown again: a new surface, whose frames and states are yet to come. */
        w->draw_asked_usec = 0;
        w->stalled = FALSE;
        w->obscured = FALSE;
        tell_visibility(w);
}

static gboolean on_window_state(GtkWidget *widget, GdkEventWindowState *event, gpointer userdata)
{
        tell_visibility(userdata);
        return FALSE;
}

/* Wayland: GTK (3.24.41 and later, built with xdg-shell 6) turns xdg_toplevel's "suspended" state, which a
 * compositor sets on a window nobody can see (mutter: minimized), into FULLY_OBSCURED, and its end into
 * UNOBSCURED. On X11 the event comes only with GDK_VISIBILITY_NOTIFY_MASK, which the window does not ask
 * for: there, unmap and ICONIFIED say it. */
static gboolean on_visibility_notify(GtkWidget *widget, GdkEventVisibility *event, gpointer userdata)
{
        TrayWindow *w = userdata;

        w->obscured = event->state == GDK_VISIBILITY_FULLY_OBSCURED;
        g_debug("Window %s by the compositor", w->obscured ? "suspended" : "resumed");
        tell_visibility(w);
        return FALSE;
}

/* The frame clock painted: the compositor shows the window (again). */
static void on_after_paint(GdkFrameClock *clock, gpointer userdata)
{
        TrayWindow *w = userdata;

        w->draw_asked_usec = 0;
        if (!w->stalled)
                return;
        w->stalled = FALSE;
        tell_visibility(w);
}

static void forget_clock(TrayWindow *w)
{
        if (w->clock) {
                /* A safety net: GDK disposing the clock (an X window destroyed by another client) drops
                 * its handlers. tray-x11.c destroys such a window before GDK does, so the handler should
                 * still be there; if another path disposes the clock first, nothing is left to
                 * disconnect. */
                if (g_signal_handler_is_connected(w->clock, w->after_paint_id))
                        g_signal_handler_disconnect(w->clock, w->after_paint_id);
                g_clear_object(&w->clock);
        }
        w->after_paint_id = 0;
        w->draw_asked_usec = 0;
        w->stalled = FALSE;
}

static void on_realize(GtkWidget *widget, gpointer userdata)
{
        TrayWindow *w = userdata;

        forget_clock(w);
        w->clock = g_object_ref(gtk_widget_get_frame_clock(widget));
        w->after_paint_id = g_signal_connect(w->clock, "after-paint", G_CALLBACK(on_after_paint), w);
}

static void on_unrealize(GtkWidget *widget, gpointer userdata)
{
        forget_clock(userdata);
}

/* A redraw is asked for (a sample came, so this costs no wakeup of its own): one that waited
 * STALLED_USEC unpainted makes the window unseen. The redraw stays queued; the clock paints it when the
 * compositor shows the window again (on_after_paint). */
static void ask_redraw(TrayWindow *w)
{
        gint64 now = g_get_monotonic_time();

        gtk_widget_queue_draw(w->level);
        gtk_widget_queue_draw(w->plot);
        if (!w->clock || w->stalled)
                return;
        if (w->draw_asked_usec == 0)
                w->draw_asked_usec = now;
        else if (now - w->draw_asked_usec >= STALLED_USEC) {
                g_debug("Window not painted for %" G_GINT64_FORMAT " ms: the compositor hides it",
                        (now - w->draw_asked_usec) / 1000);
                w->stalled = TRUE;
                tell_visibility(w);
        }
}

static gboolean on_map_event(GtkWidget *widget, GdkEvent *event, gpointer userdata)
{
        TrayWindow *w = userdata;

        w->x_mapped = event->type == GDK_MAP;
        tell_visibility(w);
        return FALSE;
}

/* The window was destroyed by someone else (XDestroyWindow: xdotool windowclose, a window manager's
 * force close; GTK destroys the widget then): a new one, hidden, takes its place, so that "Show window"
 * and the readouts keep working. The samples are kept. */
static void on_destroyed(GtkWidget *widget, gpointer userdata)
{
        TrayWindow *w = userdata;

        g_message(_("The window was closed from outside; it is made again when asked for"));
        g_signal_handlers_disconnect_by_data(widget, w);
        forget_clock(w);
        w->window = NULL;
        w->x_mapped = FALSE;
        w->obscured = FALSE;
        build(w);
        tell_visibility(w);
}

static GtkWidget *readout_label(GtkGrid *grid, int row, const char *title)
{
        GtkWidget *name = gtk_label_new(title);
        GtkWidget *value = gtk_label_new(NO_VALUE);

        gtk_widget_set_halign(name, GTK_ALIGN_END);
        gtk_style_context_add_class(gtk_widget_get_style_context(name), "dim-label");
        gtk_widget_set_halign(value, GTK_ALIGN_START);
        gtk_grid_attach(grid, name, 0, row, 1, 1);
        gtk_grid_attach(grid, value, 1, row, 1, 1);
        return value;
}

/* Makes the widgets (not shown). */
static void build(TrayWindow *w)
{
        GtkWidget *box, *row, *grid;

        w->window = gtk_window_new(GTK_WINDOW_TOPLEVEL);
        gtk_window_set_title(GTK_WINDOW(w->window), _("ThinkPad Accelerometer"));
        /* The size of its content (a fixed level and plot): tiling compositors (sway) float it instead of
         * stretching the plot over the screen. */
        gtk_window_set_resizable(GTK_WINDOW(w->window), FALSE);
        gtk_container_set_border_width(GTK_CONTAINER(w->window), 12);
        g_signal_connect(w->window, "delete-event", G_CALLBACK(gtk_widget_hide_on_delete), NULL);
        g_signal_connect(w->window, "show", G_CALLBACK(on_visibility), w);
        g_signal_connect(w->window, "hide", G_CALLBACK(on_visibility), w);
        g_signal_connect(w->window, "window-state-event", G_CALLBACK(on_window_state), w);
        g_signal_connect(w->window, "map-event", G_CALLBACK(on_map_event), w);
        g_signal_connect(w->window, "visibility-notify-event", G_CALLBACK(on_visibility_notify), w);
        g_signal_connect(w->window, "unmap-event", G_CALLBACK(on_map_event), w);
        g_signal_connect(w->window, "destroy", G_CALLBACK(on_destroyed), w);
        g_signal_connect(w->window, "realize", G_CALLBACK(on_realize), w);
        g_signal_connect(w->window, "unrealize", G_CALLBACK(on_unrealize), w);

        box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 8);
        gtk_container_add(GTK_CONTAINER(w->window), box);

        w->status = gtk_label_new("");
        /* A long reason wraps instead of widening the window. */
        gtk_label_set_line_wrap(GTK_LABEL(w->status), TRUE);
        gtk_label_set_max_width_chars(GTK_LABEL(w->status), STATUS_WIDTH_CHARS);
        gtk_label_set_xalign(GTK_LABEL(w->status), 0);
        gtk_label_set_selectable(GTK_LABEL(w->status), TRUE);
        gtk_widget_set_can_focus(w->status, FALSE);
        gtk_widget_set_no_show_all(w->status, TRUE);
        gtk_box_pack_start(GTK_BOX(box), w->status, FALSE, FALSE, 0);

        row = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 12);
        gtk_box_pack_start(GTK_BOX(box), row, TRUE, TRUE, 0);

        w->level = gtk_drawing_area_new();
        gtk_widget_set_size_request(w->level, LEVEL_SIZE_PX, LEVEL_SIZE_PX);
        g_signal_connect(w->level, "draw", G_CALLBACK(draw_level), w);
        gtk_box_pack_start(GTK_BOX(row), w->level, FALSE, FALSE, 0);

        w->plot = gtk_drawing_area_new();
        gtk_widget_set_size_request(w->plot, PLOT_WIDTH_PX, LEVEL_SIZE_PX);
        g_signal_connect(w->plot, "draw", G_CALLBACK(draw_plot), w);
        gtk_box_pack_start(GTK_BOX(row), w->plot, TRUE, TRUE, 0);

        grid = gtk_grid_new();
        gtk_grid_set_column_spacing(GTK_GRID(grid), 8);
        gtk_grid_set_row_spacing(GTK_GRID(grid), 2);
        gtk_box_pack_start(GTK_BOX(box), grid, FALSE, FALSE, 0);
        w->orientation = readout_label(GTK_GRID(grid), 0, _("Orientation"));
        w->tilt = readout_label(GTK_GRID(grid), 1, _("Tilt"));
        w->temperature = readout_label(GTK_GRID(grid), 2, _("Temperature"));
        w->rate = readout_label(GTK_GRID(grid), 3, _("Sampling rate"));

        gtk_widget_show_all(box);
}

TrayWindow *tray_window_new(GCallback on_visibility_changed, gpointer userdata)
{
        TrayWindow *w = g_new0(TrayWindow, 1);

        w->on_visibility = on_visibility_changed;
        w->userdata = userdata;
        sample_history_init(&w->history, HISTORY_CAPACITY, (guint64) TRAY_PLOT_SPAN_SEC * USEC_PER_SEC);
        build(w);
        return w;
}

void tray_window_free(TrayWindow *w)
{
        if (!w)
                return;
        g_signal_handlers_disconnect_by_data(w->window, w);
        forget_clock(w);
        gtk_widget_destroy(w->window);
        sample_history_done(&w->history);
        g_free(w);
}

void tray_window_present(TrayWindow *w)
{
        gtk_window_present(GTK_WINDOW(w->window));
}

GtkWindow *tray_window_dialog_parent(TrayWindow *w)
{
        /* A hidden parent would only hide the dialog with it. */
        return gtk_widget_get_mapped(w->window) ? GTK_WINDOW(w->window) : NULL;
}

gboolean tray_window_is_seen(TrayWindow *w)
{
        return w->seen;
}

void tray_window_add_sample(TrayWindow *w, guint64 time_usec, int x, int y)
{
        sample_history_push(&w->history, time_usec, x, y);
        if (!w->seen)
                return;
        ask_redraw(w);
}

void tray_window_set_rest(TrayWindow *w, int x, int y)
{
        w->rest_x = x;
        w->rest_y = y;
}

static void show_readouts(TrayWindow *w, const char *orientation, const char *tilt, const char *temperature,
                          const char *rate)
{
        gtk_label_set_text(GTK_LABEL(w->orientation), orientation);
        gtk_label_set_text(GTK_LABEL(w->tilt), tilt);
        gtk_label_set_text(GTK_LABEL(w->temperature), temperature);
        gtk_label_set_text(GTK_LABEL(w->rate), rate);
        g_debug("Window readouts: orientation %s, tilt %s, temperature %s, rate %s, %zu samples",
                orientation, tilt, temperature, rate, w->history.count);
}

void tray_window_set_readouts(TrayWindow *w, const char *orientation, const int *temperature, double pitch,
                              double roll, guint sampling_rate)
{
        g_autofree char *temp = temperature ? g_strdup_printf("%d °C", *temperature) : g_strdup(NO_VALUE);
        g_autofree char *tilt = g_strdup_printf(_("pitch %+.1f°, roll %+.1f°"),
                                                accel_display_round(pitch, 1), accel_display_round(roll, 1));
        g_autofree char *rate = g_strdup_printf("%u Hz", sampling_rate);

        show_readouts(w, orientation, tilt, temp, rate);
}

void tray_window_clear(TrayWindow *w)
{
        if (w->history.count == 0 && g_str_equal(gtk_label_get_text(GTK_LABEL(w->rate)), NO_VALUE))
                return;
        sample_history_clear(&w->history);
        w->rest_x = w->rest_y = 0;
        show_readouts(w, NO_VALUE, NO_VALUE, NO_VALUE, NO_VALUE);
        gtk_widget_queue_draw(w->level);
        gtk_widget_queue_draw(w->plot);
}

void tray_window_set_status(TrayWindow *w, const char *status)
{
        gboolean was_shown = gtk_widget_get_visible(w->status);

        gtk_label_set_text(GTK_LABEL(w->status), status);
        gtk_widget_set_visible(w->status, status[0] != '\0');
        /* A toplevel keeps its size when its content shrinks: without the status line (the service is
         * back) the extra height would stay as an empty strip above the bubble level. Back to the
         * natural size. */
        if (was_shown && status[0] == '\0')
                gtk_window_resize(GTK_WINDOW(w->window), 1, 1);
}
