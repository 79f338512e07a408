/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "accel-bus.h"
#include "accel-client.h"

/* GET_INVALIDATED_PROPERTIES: tpacceld sends values, but should it ever invalidate, fetch them.
 * DO_NOT_CONNECT_SIGNALS: the proxy would subscribe to every signal of the interface, Sample too. */
#define PROXY_FLAGS                                                                                         \
        (G_DBUS_PROXY_FLAGS_DO_NOT_AUTO_START | G_DBUS_PROXY_FLAGS_GET_INVALIDATED_PROPERTIES |             \
         G_DBUS_PROXY_FLAGS_DO_NOT_CONNECT_SIGNALS)

static const struct {
        AccelSignals bit;
        const char *member;
} signal_members[] = {
        {ACCEL_SIGNAL_SAMPLE, "Sample"}, {ACCEL_SIGNAL_TILT, "Tilt"},
        {ACCEL_SIGNAL_SHOCK, "Shock"},   {ACCEL_SIGNAL_HEADS_PARKED, "HeadsParked"},
        {ACCEL_SIGNAL_MOVED, "Moved"},
};

typedef struct Subscription {
        AccelClient *client;
        const char *member;
        GVariantType *type; /* its arguments as the XML declares them, e.g. "(dds)" for Tilt */
        guint id;           /* 0 while not subscribed */
} Subscription;

struct AccelClient {
        TpaccelAccelerometer *proxy;
        Subscription subscriptions[G_N_ELEMENTS(signal_members)];
        gboolean samples_subscribed; /* SubscribeSamples() sent to the current instance of the service */
        gulong owner_handler;
};

/* tpacceld sends Sample only while someone subscribed (SubscribeSamples); the subscription ends when
 * this connection leaves the bus or the service restarts. Fire and forget: a failure (an old service,
 * or it is gone) only means no Sample. */
static void call_samples(AccelClient *client, const char *method)
{
        GDBusProxy *proxy = G_DBUS_PROXY(client->proxy);

        g_dbus_connection_call(g_dbus_proxy_get_connection(proxy), ACCEL_BUS_NAME, ACCEL_OBJECT,
                               ACCEL_INTERFACE, method, NULL, NULL, G_DBUS_CALL_FLAGS_NO_AUTO_START, -1,
                               NULL, NULL, NULL);
        g_debug("%s", method);
}

/* Subscribes to Sample at the service while the client wants it and the service is there. */
static void sync_samples(AccelClient *client)
{
        g_autofree char *owner = g_dbus_proxy_get_name_owner(G_DBUS_PROXY(client->proxy));
        gboolean want = FALSE;

        for (size_t i = 0; i < G_N_ELEMENTS(signal_members); i++)
                if (signal_members[i].bit == ACCEL_SIGNAL_SAMPLE)
                        want = client->subscriptions[i].id != 0 && owner;

        if (want == client->samples_subscribed)
                return;
        client->samples_subscribed = want;
        if (owner)
                call_samples(client, want ? "SubscribeSamples" : "UnsubscribeSamples");
}

static void on_name_owner(GObject *proxy, GParamSpec *pspec, gpointer userdata)
{
        AccelClient *client = userdata;

        client->samples_subscribed = FALSE; /* a new instance (or none) knows no subscription of ours */
        sync_samples(client);
}

static GVariantType *signal_type(const char *member)
{
        GDBusSignalInfo *info =
                g_dbus_interface_info_lookup_signal(tpaccel_accelerometer_interface_info(), member);
        g_autoptr(GString) type = g_string_new("(");

        g_assert(info);
        for (GDBusArgInfo **arg = info->args; arg && *arg; arg++)
                g_string_append(type, (*arg)->signature);
        g_string_append_c(type, ')');
        return g_variant_type_new(type->str);
}

/* Hands a signal of the service's current instance to the generated code, which emits it as the
 * proxy's typed GObject signal. That code trusts the arguments to match the XML: check them here. */
static void on_signal(GDBusConnection *bus, const char *sender, const char *path, const char *interface,
                      const char *member, GVariant *params, gpointer userdata)
{
        Subscription *s = userdata;
        g_autofree char *owner = g_dbus_proxy_get_name_owner(G_DBUS_PROXY(s->client->proxy));

        if (!owner || g_strcmp0(owner, sender) != 0)
                return; /* not (yet) the instance whose properties the proxy holds */
        if (!g_variant_is_of_type(params, s->type)) {
                g_debug("Ignoring %s with arguments %s", member, g_variant_get_type_string(params));
                return;
        }
        g_signal_emit_by_name(s->client->proxy, "g-signal", sender, member, params);
}

void accel_client_set_signals(AccelClient *client, AccelSignals signals)
{
        GDBusConnection *bus = g_dbus_proxy_get_connection(G_DBUS_PROXY(client->proxy));

        for (size_t i = 0; i < G_N_ELEMENTS(signal_members); i++) {
                gboolean want = (signals & signal_members[i].bit) != 0;
                Subscription *s = &client->subscriptions[i];

                if (want == (s->id != 0))
                        continue;
                if (!want) {
                        g_dbus_connection_signal_unsubscribe(bus, s->id);
                        s->id = 0;
                        g_debug("Unsubscribed from %s", s->member);
                        continue;
                }
                s->id = g_dbus_connection_signal_subscribe(bus, ACCEL_BUS_NAME, ACCEL_INTERFACE, s->member,
                                                           ACCEL_OBJECT, /* arg0= */ NULL,
                                                           G_DBUS_SIGNAL_FLAGS_NONE, on_signal, s, NULL);
                g_debug("Subscribed to %s", s->member);
        }
        sync_samples(client);
}

static AccelClient *client_new(TpaccelAccelerometer *proxy, AccelSignals signals)
{
        AccelClient *client = g_new0(AccelClient, 1);

        client->proxy = proxy;
        for (size_t i = 0; i < G_N_ELEMENTS(signal_members); i++)
                client->subscriptions[i] = (Subscription) {
                        .client = client,
                        .member = signal_members[i].member,
                        .type = signal_type(signal_members[i].member),
                };
        /* Claims and reads; Calibrate and the setters pass their own (polkit may prompt). */
        g_dbus_proxy_set_default_timeout(G_DBUS_PROXY(proxy), ACCEL_CALL_TIMEOUT_MS);
        client->owner_handler =
                g_signal_connect(proxy, "notify::g-name-owner", G_CALLBACK(on_name_owner), client);
        accel_client_set_signals(client, signals);
        return client;
}

AccelClient *accel_client_new_sync(GDBusConnection *bus, AccelSignals signals, GError **error)
{
        TpaccelAccelerometer *proxy = tpaccel_accelerometer_proxy_new_sync(bus, PROXY_FLAGS, ACCEL_BUS_NAME,
                                                                           ACCEL_OBJECT, NULL, error);

        return proxy ? client_new(proxy, signals) : NULL;
}

static void on_proxy_ready(GObject *source, GAsyncResult *result, gpointer userdata)
{
        g_autoptr(GTask) task = userdata;
        GError *error = NULL;
        TpaccelAccelerometer *proxy = tpaccel_accelerometer_proxy_new_finish(result, &error);

        if (!proxy) {
                g_task_return_error(task, error);
                return;
        }
        g_task_return_pointer(task, client_new(proxy, GPOINTER_TO_UINT(g_task_get_task_data(task))),
                              (GDestroyNotify) accel_client_free);
}

void accel_client_new(GDBusConnection *bus, AccelSignals signals, GCancellable *cancellable,
                      GAsyncReadyCallback callback, gpointer userdata)
{
        GTask *task = g_task_new(NULL, cancellable, callback, userdata);

        g_task_set_task_data(task, GUINT_TO_POINTER(signals), NULL);
        tpaccel_accelerometer_proxy_new(bus, PROXY_FLAGS, ACCEL_BUS_NAME, ACCEL_OBJECT, cancellable,
                                        on_proxy_ready, task);
}

AccelClient *accel_client_new_finish(GAsyncResult *result, GError **error)
{
        return g_task_propagate_pointer(G_TASK(result), error);
}

void accel_client_free(AccelClient *client)
{
        if (!client)
                return;
        accel_client_set_signals(client, 0);
        g_signal_handler_disconnect(client->proxy, client->owner_handler);
        for (size_t i = 0; i < G_N_ELEMENTS(signal_members); i++)
                g_variant_type_free(client->subscriptions[i].type);
        g_clear_object(&client->proxy);
        g_free(client);
}

TpaccelAccelerometer *accel_client_get_proxy(AccelClient *client)
{
        return client->proxy;
}

GVariant *accel_client_dup_properties(AccelClient *client)
{
        g_auto(GStrv) names = g_dbus_proxy_get_cached_property_names(G_DBUS_PROXY(client->proxy));
        g_auto(GVariantBuilder) builder = G_VARIANT_BUILDER_INIT(G_VARIANT_TYPE_VARDICT);

        for (char **name = names; name && *name; name++) {
                g_autoptr(GVariant) value =
                        g_dbus_proxy_get_cached_property(G_DBUS_PROXY(client->proxy), *name);
                if (value)
                        g_variant_builder_add(&builder, "{sv}", *name, value);
        }
        return g_variant_ref_sink(g_variant_builder_end(&builder));
}

gboolean accel_client_is_present(AccelClient *client)
{
        g_autofree char *owner = g_dbus_proxy_get_name_owner(G_DBUS_PROXY(client->proxy));
        g_autoptr(GVariant) known =
                g_dbus_proxy_get_cached_property(G_DBUS_PROXY(client->proxy), "HasAccelerometer");

        return owner && known;
}
