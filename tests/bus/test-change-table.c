/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The table from change bits to property names (service/bus/bus-face.c) against the accelerometer
 * object's vtable: every bit has a row naming a property that emits PropertiesChanged, every such
 * property is some bit's row or alias, once, and the bits follow the vtable's order (ChangeBit's
 * promise, service/daemon/observer.h). A missing row would put a NULL in the middle of a
 * PropertiesChanged list and silently drop every property after it. */
#include <stdbool.h>

#include "bus-accelerometer.h"
#include "bus-face.h"
#include "test-helpers.h"

#define VTABLE_PROPERTIES_MAX 128

typedef struct Emitting {
        const char *names[VTABLE_PROPERTIES_MAX];
        unsigned n;
} Emitting;

static Emitting emitting_properties(void)
{
        Emitting e = {};

        for (const sd_bus_vtable *v = bus_accelerometer_vtable(); v->type != _SD_BUS_VTABLE_END; v++) {
                bool property =
                        v->type == _SD_BUS_VTABLE_PROPERTY || v->type == _SD_BUS_VTABLE_WRITABLE_PROPERTY;
                if (property && (v->flags & SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE) &&
                    e.n < VTABLE_PROPERTIES_MAX)
                        e.names[e.n++] = v->x.property.member;
        }
        return e;
}

/* The index of name among the emitting properties, or -1. */
static int index_of(const Emitting *e, const char *name)
{
        for (unsigned i = 0; name && i < e->n; i++)
                if (strcmp(e->names[i], name) == 0)
                        return (int) i;
        return -1;
}

TEST(test_every_bit_has_a_row_naming_an_emitting_property)
{
        Emitting e = emitting_properties();

        CHECK(e.n > 0 && e.n < VTABLE_PROPERTIES_MAX);
        for (unsigned bit = 0; bit < _CHANGE_BIT_MAX; bit++) {
                const char *alias = NULL, *name = bus_change_property(bit, &alias);

                if (!name)
                        fprintf(stderr, "change bit %u (after %s) has no row in change_properties[]\n", bit,
                                bit > 0 ? bus_change_property(bit - 1, NULL) : "none");
                else if (index_of(&e, name) < 0)
                        fprintf(stderr, "change bit %u names %s, not an EMITS_CHANGE property\n", bit, name);
                CHECK(index_of(&e, name) >= 0);
                CHECK(!alias || index_of(&e, alias) >= 0);
        }
        CHECK(bus_change_property(_CHANGE_BIT_MAX, NULL) == NULL);
}

TEST(test_every_emitting_property_is_one_bits)
{
        Emitting e = emitting_properties();

        for (unsigned i = 0; i < e.n; i++) {
                unsigned rows = 0;

                for (unsigned bit = 0; bit < _CHANGE_BIT_MAX; bit++) {
                        const char *alias = NULL, *name = bus_change_property(bit, &alias);
                        rows += (name && strcmp(name, e.names[i]) == 0) +
                                (alias && strcmp(alias, e.names[i]) == 0);
                }
                if (rows != 1)
                        fprintf(stderr, "the EMITS_CHANGE property %s is named by %u change rows\n",
                                e.names[i], rows);
                CHECK_EQ(rows, 1);
        }
}

TEST(test_bits_follow_the_vtable_order)
{
        Emitting e = emitting_properties();
        int previous = -1;

        for (unsigned bit = 0; bit < _CHANGE_BIT_MAX; bit++) {
                int at = index_of(&e, bus_change_property(bit, NULL));

                if (at >= 0 && at <= previous)
                        fprintf(stderr, "change bit %u (%s) comes before %s in the vtable\n", bit,
                                e.names[at], e.names[previous]);
                CHECK(at > previous);
                previous = at;
        }
}

int main(void)
{
        RUN(test_every_bit_has_a_row_naming_an_emitting_property);
        RUN(test_every_emitting_property_is_one_bits);
        RUN(test_bits_follow_the_vtable_order);
        return test_summary();
}
