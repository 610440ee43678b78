#ifndef CGLIB_SHIM_H
#define CGLIB_SHIM_H

// GLib's main loop, for TokenAuthGLib: GMainContext, idle sources, GMainLoop. Nothing here needs a helper: the
// calls TokenAuthGLib makes are plain functions Swift can call.
#include <glib.h>

#endif
