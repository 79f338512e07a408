/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* tpaccel's kernel shim: just enough of the kernel's interfaces for tp_smapi 0.43's thinkpad_ec.c and
 * hdaps.c to compile, unmodified, as a user-space shared object (tests/reference/). Port I/O goes to
 * the EC emulator through the port log, delays move the emulator's virtual clock, jiffies are read
 * from that clock, the timer is fired by the runner, and DMI, sysfs, input and the platform bus are
 * just records the runner inspects. The functions named shim_* live in reference-runner.c (exported
 * from the executable, resolved when the runner dlopen()s the reference object). No reference code is
 * copied here: only the kernel interfaces it calls. */

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#ifndef __KERNEL__
#define __KERNEL__
#endif

/* linux/types.h */
typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int16_t s16;
typedef unsigned short umode_t;
typedef unsigned long kernel_ulong_t;

/* linux/compiler.h, linux/init.h, linux/module.h */
#define __must_check __attribute__((warn_unused_result))
#define __init
#define __exit
#define __initconst
#define THIS_MODULE ((void *) 0)
#define MODULE_AUTHOR(x)
#define MODULE_DESCRIPTION(x)
#define MODULE_VERSION(x)
#define MODULE_LICENSE(x)
#define MODULE_PARM_DESC(n, d)
#define module_param_named(name, var, type, perm)
#define EXPORT_SYMBOL_GPL(sym)
/* The runner calls the init and exit functions through the wrapper translation units. */
#define module_init(fn)
#define module_exit(fn)
static inline int try_module_get(void *m)
{
        (void) m;
        return 1;
}
static inline void module_put(void *m)
{
        (void) m;
}

/* linux/version.h: a kernel new enough for timer_setup() and the one-argument DEFINE_SEMAPHORE. */
#define KERNEL_VERSION(a, b, c) (((a) << 16) + ((b) << 8) + (c))
#define LINUX_VERSION_CODE      KERNEL_VERSION(5, 10, 0)

/* linux/printk.h: into the runner's log (stderr with --verbose). */
#define KERN_ERR     "<3>"
#define KERN_WARNING "<4>"
#define KERN_INFO    "<6>"
#define KERN_DEBUG   "<7>"
void shim_printk(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#define printk(...) shim_printk(__VA_ARGS__)

/* asm/io.h: port I/O to the emulator, through the port log. */
uint8_t shim_inb(uint16_t port);
void shim_outb(uint8_t value, uint16_t port);
#define inb(port)         shim_inb(port)
#define outb(value, port) shim_outb(value, port)

/* linux/delay.h: the emulator's clock. */
void shim_delay_ns(uint64_t ns);
#define ndelay(n) shim_delay_ns((uint64_t) (n))
#define udelay(n) shim_delay_ns(1000u * (uint64_t) (n))
#define msleep(n) shim_delay_ns(1000000u * (uint64_t) (n))

/* linux/jiffies.h: Debian's HZ, read from the emulator's clock. */
#define HZ              250
#define INITIAL_JIFFIES 0ULL
uint64_t shim_jiffies(void);
#define jiffies          ((unsigned long) shim_jiffies())
#define get_jiffies_64() shim_jiffies()

/* linux/semaphore.h, linux/mutex.h: one thread, so a lock is a counter; contention is a bug. */
struct semaphore {
        int count;
};
#define DEFINE_SEMAPHORE(name) struct semaphore name = {.count = 1}
int shim_down_interruptible(struct semaphore *s);
int shim_down_trylock(struct semaphore *s);
void shim_up(struct semaphore *s);
#define down_interruptible(s) shim_down_interruptible(s)
#define down_trylock(s)       shim_down_trylock(s)
#define up(s)                 shim_up(s)
struct mutex {
        int locked;
};
#define DEFINE_MUTEX(name) struct mutex name = {.locked = 0}
#define mutex_lock(m)      ((m)->locked++)
#define mutex_unlock(m)    ((m)->locked--)

/* linux/timer.h: the runner fires a pending timer when the clock reaches it. */
struct timer_list {
        void (*function)(struct timer_list *t);
        unsigned long expires;
        bool pending;
};
#define timer_setup(t, fn, flags) ((t)->function = (fn), (t)->expires = 0, (t)->pending = false)
int shim_mod_timer(struct timer_list *t, unsigned long expires);
int shim_del_timer_sync(struct timer_list *t);
#define mod_timer(t, e)   shim_mod_timer(t, e)
#define del_timer_sync(t) shim_del_timer_sync(t)

/* linux/ioport.h */
void *shim_request_region(unsigned long start, unsigned long n, const char *name);
void shim_release_region(unsigned long start, unsigned long n);
#define request_region(s, n, name) shim_request_region(s, n, name)
#define release_region(s, n)       shim_release_region(s, n)

/* linux/dmi.h */
enum { DMI_NONE, DMI_BOARD_VENDOR, DMI_PRODUCT_VERSION };
#define DMI_DEV_TYPE_OEM_STRING (-2)
struct dmi_strmatch {
        unsigned char slot;
        char substr[79];
};
struct dmi_system_id {
        int (*callback)(const struct dmi_system_id *);
        const char *ident;
        struct dmi_strmatch matches[4];
        void *driver_data;
};
/* clang-format 14 lays a macro that is one braced initializer out as a block, 19 and 21 on one line:
 * this line is left as it is. */
// clang-format off
#define DMI_MATCH(a, b) {.slot = a, .substr = b}
// clang-format on
struct dmi_device {
        int type;
        const char *name;
};
const struct dmi_device *shim_dmi_find_device(int type, const char *name, const struct dmi_device *from);
int shim_dmi_check_system(const struct dmi_system_id *list);
#define dmi_find_device(t, n, f) shim_dmi_find_device(t, n, f)
#define dmi_check_system(l)      shim_dmi_check_system(l)

/* linux/pci_ids.h */
#define PCI_VENDOR_ID_IBM 0x1014

/* linux/device.h, linux/sysfs.h, linux/platform_device.h */
struct kobject {
        const struct attribute_group *group;
};
struct device {
        struct kobject kobj;
};
struct attribute {
        const char *name;
        umode_t mode;
};
struct device_attribute {
        struct attribute attr;
        ssize_t (*show)(struct device *dev, struct device_attribute *attr, char *buf);
        ssize_t (*store)(struct device *dev, struct device_attribute *attr, const char *buf, size_t count);
};
#define DEVICE_ATTR(_name, _mode, _show, _store)                                                            \
        struct device_attribute dev_attr_##_name = {                                                        \
                .attr = {.name = #_name, .mode = _mode}, .show = _show, .store = _store}
struct attribute_group {
        struct attribute **attrs;
};
int shim_sysfs_create_group(struct kobject *k, const struct attribute_group *g);
void shim_sysfs_remove_group(struct kobject *k, const struct attribute_group *g);
#define sysfs_create_group(k, g) shim_sysfs_create_group(k, g)
#define sysfs_remove_group(k, g) shim_sysfs_remove_group(k, g)
typedef struct pm_message {
        int event;
} pm_message_t;
struct platform_device {
        struct device dev;
};
struct device_driver {
        const char *name;
        void *owner;
};
struct platform_driver {
        int (*probe)(struct platform_device *dev);
        int (*suspend)(struct platform_device *dev, pm_message_t state);
        int (*resume)(struct platform_device *dev);
        struct device_driver driver;
};
int shim_platform_driver_register(struct platform_driver *drv);
void shim_platform_driver_unregister(struct platform_driver *drv);
struct platform_device *shim_platform_device_register_simple(const char *name, int id, void *res,
                                                             unsigned n);
void shim_platform_device_unregister(struct platform_device *pdev);
#define platform_driver_register(d)                 shim_platform_driver_register(d)
#define platform_driver_unregister(d)               shim_platform_driver_unregister(d)
#define platform_device_register_simple(n, i, r, c) shim_platform_device_register_simple(n, i, r, c)
#define platform_device_unregister(p)               shim_platform_device_unregister(p)
#define IS_ERR(p)                                   ((unsigned long) (p) >= (unsigned long) -4095)
#define PTR_ERR(p)                                  ((long) (p))

/* linux/input.h: the last reported values are what the runner reads as the tick's output. */
#define BIT(nr)  (1UL << (nr))
#define EV_ABS   0x03
#define ABS_X    0x00
#define ABS_Y    0x01
#define BUS_HOST 0x19
struct input_id {
        unsigned short bustype, vendor, product, version;
};
struct input_dev {
        const char *name, *phys;
        struct input_id id;
        unsigned long evbit[1];
        int (*open)(struct input_dev *dev);
        void (*close)(struct input_dev *dev);
        int abs[2];
        unsigned long syncs;
};
static inline struct input_dev *input_allocate_device(void)
{
        return calloc(1, sizeof(struct input_dev));
}
static inline void input_free_device(struct input_dev *d)
{
        free(d);
}
static inline int input_register_device(struct input_dev *d)
{
        (void) d;
        return 0;
}
static inline void input_unregister_device(struct input_dev *d)
{
        free(d); /* the kernel frees a registered device on unregister */
}
static inline void input_set_abs_params(struct input_dev *d, int axis, int min, int max, int fuzz, int flat)
{
        (void) d, (void) axis, (void) min, (void) max, (void) fuzz, (void) flat;
}
static inline void input_report_abs(struct input_dev *d, int code, int value)
{
        if (code == ABS_X || code == ABS_Y)
                d->abs[code] = value;
}
static inline void input_sync(struct input_dev *d)
{
        d->syncs++;
}
