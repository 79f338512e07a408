/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Dropping privileges once the backend holds its port access (privileges.h). */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <pwd.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "log.h"
#include "macros.h"
#include "privileges.h"

/* A new state directory: readable by all, as systemd's StateDirectory= makes it (the unit's UMask=
 * still narrows what is inside). */
#define STATE_DIR_MODE 0755

static inline void closedirp(DIR **d)
{
        if (*d)
                closedir(*d);
}

typedef struct CapSets {
        struct __user_cap_header_struct header;
        struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
} CapSets;

static int caps_get(CapSets *ret)
{
        *ret = (CapSets) {.header = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0}};
        if (syscall(SYS_capget, &ret->header, ret->data) < 0)
                return -errno;
        return 0;
}

static bool caps_empty(const CapSets *c)
{
        for (size_t i = 0; i < ELEMENTSOF(c->data); i++)
                if (c->data[i].effective || c->data[i].permitted || c->data[i].inheritable)
                        return false;
        return true;
}

/* Creates the state directory if it is missing. Failure is logged once by state_dir_check(). */
static void state_dir_create(const char *state_dir)
{
        if (mkdir(state_dir, STATE_DIR_MODE) < 0 && errno != EEXIST)
                log_debug_errno(-errno, "Cannot create the state directory %s: %m", state_dir);
}

/* Chowns a directory (what names it in the log) and the regular files directly in it: the state
 * directory, so that the daemon can still replace its state file after the switch (the writer renames
 * a temporary file over it), and the EC lock's directory. */
static int chown_dir(const char *dir, const char *what, uid_t uid, gid_t gid)
{
        _cleanup_(closedirp) DIR *d = NULL;
        struct dirent *de;
        struct stat st;
        int fd;

        fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) {
                if (errno == ENOENT)
                        return 0;
                return log_error_errno(-errno, "Cannot open %s %s: %m", what, dir);
        }
        d = fdopendir(fd);
        if (!d) {
                int r = -errno;
                close(fd);
                return log_error_errno(r, "Cannot read %s %s: %m", what, dir);
        }
        if (fstat(dirfd(d), &st) == 0 && st.st_uid != uid)
                log_info("Handing %s %s (owned by uid %u) to uid %u", what, dir, (unsigned) st.st_uid,
                         (unsigned) uid);
        if (fchown(dirfd(d), uid, gid) < 0)
                return log_error_errno(-errno, "Cannot hand %s %s to uid %u: %m", what, dir, (unsigned) uid);
        while ((de = readdir(d))) {
                /* Never a hard link: it could be a link to some other file of the system. */
                if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode) ||
                    st.st_nlink > 1)
                        continue;
                if (fchownat(dirfd(d), de->d_name, uid, gid, AT_SYMLINK_NOFOLLOW) < 0)
                        return log_error_errno(-errno, "Cannot hand %s/%s to uid %u: %m", dir, de->d_name,
                                               (unsigned) uid);
        }
        return 0;
}

/* Says loudly, once, at start when the daemon cannot write its state directory as what it now is. */
static void state_dir_check(const char *state_dir)
{
        struct stat st;

        if (access(state_dir, W_OK | X_OK) == 0)
                return;
        if (stat(state_dir, &st) < 0)
                log_error_errno(
                        -errno,
                        "Cannot use the state directory %s: %m. Settings changed now will be lost at "
                        "restart",
                        state_dir);
        else
                log_error_errno(
                        -EACCES,
                        "Cannot write the state directory %s (owner uid %u, mode %04o) as uid %u: %m. "
                        "Settings changed now will be lost at restart; start tpacceld as root "
                        "with --user=%s, or give the directory to uid %u",
                        state_dir, (unsigned) st.st_uid, (unsigned) (st.st_mode & 07777),
                        (unsigned) geteuid(), TPACCEL_USER, (unsigned) geteuid());
}

/* Looks up user: *ret_pw is NULL if it does not exist (logged). */
static int lookup_user(const char *user, struct passwd **ret_pw)
{
        errno = 0;
        *ret_pw = getpwnam(user);
        if (*ret_pw)
                return 0;
        if (errno != 0 && errno != ENOENT && errno != ESRCH)
                return log_error_errno(-errno, "Cannot look up the user %s: %m", user);
        log_warning("User %s does not exist (systemd-sysusers creates it from tpaccel.sysusers); "
                    "staying uid %u without any capability",
                    user, (unsigned) geteuid());
        return 0;
}

static int switch_user(const struct passwd *pw)
{
        if (pw->pw_uid == geteuid())
                return 0;
        if (setgroups(0, NULL) < 0)
                return log_error_errno(-errno, "Cannot drop the supplementary groups: %m");
        if (setresgid(pw->pw_gid, pw->pw_gid, pw->pw_gid) < 0)
                return log_error_errno(-errno, "Cannot switch to gid %u: %m", (unsigned) pw->pw_gid);
        if (setresuid(pw->pw_uid, pw->pw_uid, pw->pw_uid) < 0)
                return log_error_errno(-errno, "Cannot switch to user %s (uid %u): %m", pw->pw_name,
                                       (unsigned) pw->pw_uid);
        log_info("Running as user %s (uid %u, gid %u)", pw->pw_name, (unsigned) pw->pw_uid,
                 (unsigned) pw->pw_gid);
        return 0;
}

/* Empties the bounding set so that nothing executed later could ever get a capability back. Needs
 * CAP_SETPCAP; without it (a unit with User=) the unit's CapabilityBoundingSet= already limits it. */
static void drop_bounding_set(void)
{
        for (unsigned long cap = 0;; cap++) {
                int in_set = prctl(PR_CAPBSET_READ, cap, 0, 0, 0);
                if (in_set < 0)
                        return; /* EINVAL: past the last capability this kernel knows */
                if (in_set == 0)
                        continue;
                if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0) {
                        log_debug_errno(-errno, "Keeping the capability bounding set: %m");
                        return;
                }
        }
}

int privileges_drop(const char *user, const char *state_dir, const char *runtime_dir)
{
        CapSets caps;
        int r;

        /* Before the uid switch: emptying the bounding set needs CAP_SETPCAP. */
        drop_bounding_set();

        if (state_dir)
                state_dir_create(state_dir);
        if (geteuid() == 0) {
                struct passwd *pw = NULL;

                if (user) {
                        r = lookup_user(user, &pw);
                        if (r < 0)
                                return r;
                }
                /* Whoever had the directory before (a unit run as tpaccel, root by hand), it is ours
                 * now. Not fatal: state_dir_check() says what it means. */
                if (state_dir)
                        (void) chown_dir(state_dir, "the state directory", pw ? pw->pw_uid : 0,
                                         pw ? pw->pw_gid : 0);
                /* The EC lock's, when tpacceld created it: a later start as the user (the unit) can
                 * open the lock. */
                if (pw && runtime_dir && pw->pw_uid != geteuid()) {
                        r = chown_dir(runtime_dir, "the EC lock's directory", pw->pw_uid, pw->pw_gid);
                        if (r < 0)
                                return r;
                }
                if (pw) {
                        r = switch_user(pw);
                        if (r < 0)
                                return r;
                }
        }

        if (prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0) < 0)
                return log_error_errno(-errno, "Cannot clear keep-capabilities: %m");
        if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
                return log_error_errno(-errno, "Cannot clear the ambient capabilities: %m");

        caps = (CapSets) {.header = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0}};
        if (syscall(SYS_capset, &caps.header, caps.data) < 0)
                return log_error_errno(-errno, "Cannot drop the capabilities: %m");
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
                return log_error_errno(-errno, "Cannot set no_new_privs: %m");

        r = caps_get(&caps);
        if (r < 0)
                return log_error_errno(r, "Cannot read back the capabilities: %m");
        if (!caps_empty(&caps))
                return log_error_errno(-EPERM, "Capabilities are still held after dropping them");

        log_debug("Dropped every capability (uid %u, no_new_privs set)", (unsigned) geteuid());
        if (state_dir)
                state_dir_check(state_dir);
        return 0;
}
