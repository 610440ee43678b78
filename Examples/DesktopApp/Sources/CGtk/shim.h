#ifndef DESKTOPAPP_CGTK_SHIM_H
#define DESKTOPAPP_CGTK_SHIM_H

// GTK 4, and GLib with it. Swift calls GTK's functions directly; the type-cast macros (GTK_WINDOW() and the like) are
// pointer conversions in Swift.
#include <gtk/gtk.h>
#include <glib-unix.h>

#endif
