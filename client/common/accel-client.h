/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* tpacceld as both clients see it: the TpaccelAccelerometer proxy that gdbus-codegen makes from
 * data/org.thinkpad.Accelerometer.xml, plus the signals a client asks for.
 *
 * The proxy keeps the properties (GetAll when the service appears, PropertiesChanged, emptied when it
 * leaves; follow it with "g-properties-changed" and "notify::g-name-owner") and calls the service's
 * current instance only: it never starts the service (DO_NOT_AUTO_START), and its calls fail while
 * the service is missing. The service's signals arrive as the proxy's typed GObject signals ("sample",
 * "tilt", "shock", "heads-parked"), checked against the XML's signature first; only the ones the
 * client asked for are subscribed to, one match rule each, so that neither the bus daemon nor the
 * client wakes up for Sample unless it is shown. For Sample the client also calls SubscribeSamples on
 * the service (tpacceld sends Sample only then), again after the service restarted, and
 * UnsubscribeSamples when Sample is no longer wanted. */

#include <gio/gio.h>

#include "accel-generated.h"

typedef enum AccelSignals {
        ACCEL_SIGNAL_SAMPLE = 1 << 0,
        ACCEL_SIGNAL_TILT = 1 << 1,
        ACCEL_SIGNAL_SHOCK = 1 << 2,
        ACCEL_SIGNAL_HEADS_PARKED = 1 << 3,
        ACCEL_SIGNAL_MOVED = 1 << 4,
} AccelSignals;

typedef struct AccelClient AccelClient;

/* Makes the proxy for tpacceld on bus (its properties loaded if the service runs) and subscribes to
 * signals. The async form calls callback when done; accel_client_new_finish() returns the client.
 * NULL and *error on failure (the connection is closed, or cancelled). */
AccelClient *accel_client_new_sync(GDBusConnection *bus, AccelSignals signals, GError **error);
void accel_client_new(GDBusConnection *bus, AccelSignals signals, GCancellable *cancellable,
                      GAsyncReadyCallback callback, gpointer userdata);
AccelClient *accel_client_new_finish(GAsyncResult *result, GError **error);

void accel_client_free(AccelClient *client);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(AccelClient, accel_client_free)

/* The proxy (owned by the client). */
TpaccelAccelerometer *accel_client_get_proxy(AccelClient *client);

/* Subscribes to exactly these signals from now on. */
void accel_client_set_signals(AccelClient *client, AccelSignals signals);

/* The properties the proxy holds, as GetAll's a{sv} (empty while the service is missing). */
GVariant *accel_client_dup_properties(AccelClient *client);

/* True while the service is on the bus and its properties are known. */
gboolean accel_client_is_present(AccelClient *client);
