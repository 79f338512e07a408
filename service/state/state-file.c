/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <assert.h>
#include <dirent.h>
#include <stddef.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ec-protocol.h"
#include "motion.h"
#include "state-file.h"
#include "strutil.h"
#include "strv.h"

#define REST_MIN INT16_MIN
#define REST_MAX INT16_MAX

void state_config_init(StateConfig *c)
{
        assert(c);

        *c = (StateConfig) {
                .sampling_rate = HDAPS_DEFAULT_SAMPLING_RATE,
                .oversampling_ratio = HDAPS_DEFAULT_OVERSAMPLING_RATIO,
                .filter_order = HDAPS_DEFAULT_FILTER_ORDER,
                .tilt_step = MOTION_TILT_STEP_DEFAULT,
                .shock_sensitivity = MOTION_SENSITIVITY_DEFAULT,
        };
}

void state_config_done(StateConfig *c)
{
        assert(c);

        c->protected_disks = strv_free(c->protected_disks);
}

int state_config_copy(StateConfig *dst, const StateConfig *src)
{
        char **disks = NULL;

        assert(dst);
        assert(src);

        if (src->protected_disks) {
                disks = strv_copy(src->protected_disks);
                if (!disks)
                        return -ENOMEM;
        }
        *dst = *src;
        dst->protected_disks = disks;
        return 0;
}

bool state_disk_name_valid(const char *name)
{
        assert(name);

        size_t n = strlen(name);

        if (n == 0 || n > STATE_DISK_NAME_MAX || streq(name, ".") || streq(name, ".."))
                return false;
        return strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") == n;
}

typedef struct Parser {
        const char *name;
        unsigned line;
        char **error;
} Parser;

/* "NAME:LINE: message", -EINVAL (or -ENOMEM). */
#define parse_error(p, ...) error_printf_at((p)->error, -EINVAL, (p)->name, (p)->line, __VA_ARGS__)

/* One key of the file: its name, how its value is parsed into the configuration, where (the field at
 * offset in StateConfig, of the type parse expects) and the accepted range for numbers. */
typedef struct StateKey StateKey;
struct StateKey {
        const char *name;
        int (*parse)(Parser *p, const StateKey *k, char *value, StateConfig *c);
        size_t offset;
        double min, max;
};

#define KEY_FIELD(c, k, type) ((type *) ((uint8_t *) (c) + (k)->offset))

static int parse_u64(Parser *p, const StateKey *k, const char *v, uint64_t *ret)
{
        char x[STR_EXCERPT_SIZE];
        uint64_t u;

        if (safe_atou64(v, &u) < 0)
                return parse_error(p, "%s: '%s' is not a number", k->name, str_excerpt(v, x));
        if (u < (uint64_t) k->min || u > (uint64_t) k->max)
                return parse_error(p, "%s: %" PRIu64 " is out of range %u..%u", k->name, u,
                                   (unsigned) k->min, (unsigned) k->max);
        *ret = u;
        return 0;
}

static int parse_unsigned(Parser *p, const StateKey *k, char *v, StateConfig *c)
{
        uint64_t u = 0; /* GCC 16 at -O3 cannot see that parse_error() is negative */
        int r = parse_u64(p, k, v, &u);
        if (r < 0)
                return r;
        *KEY_FIELD(c, k, unsigned) = (unsigned) u;
        return 0;
}

static int parse_bool(Parser *p, const StateKey *k, char *v, StateConfig *c)
{
        uint64_t u = 0; /* as in parse_unsigned(); "0" or "1" (range 0..1) */
        int r = parse_u64(p, k, v, &u);
        if (r < 0)
                return r;
        *KEY_FIELD(c, k, bool) = u;
        return 0;
}

static int parse_double(Parser *p, const StateKey *k, char *v, StateConfig *c)
{
        char x[STR_EXCERPT_SIZE], vs[STR_DOUBLE_SIZE], mins[STR_DOUBLE_SIZE], maxs[STR_DOUBLE_SIZE];
        double d;

        if (safe_atod(v, &d) < 0)
                return parse_error(p, "%s: '%s' is not a number", k->name, str_excerpt(v, x));
        if (d < k->min || d > k->max)
                return parse_error(p, "%s: %s is out of range %s..%s", k->name, str_double(d, vs),
                                   str_double(k->min, mins), str_double(k->max, maxs));
        *KEY_FIELD(c, k, double) = d;
        return 0;
}

/* One count of "X,Y" at *v: an optional '-' and digits, ended by the character after it, stored
 * in *ret, *v moved past the number. A part that is not a number is quoted from where it starts. */
static int parse_count(Parser *p, const StateKey *k, char **v, int *ret)
{
        char *s = *v, *end = s + (*s == '-'), x[STR_EXCERPT_SIZE];
        int64_t l;
        int r;

        end += strspn(end, "0123456789");
        char saved = *end;
        *end = '\0';
        r = safe_atoi64(s, &l);
        *end = saved;
        if (r < 0)
                return parse_error(p, "%s: expected two integers 'X,Y', got '%s'", k->name,
                                   str_excerpt(s, x));
        if (l < REST_MIN || l > REST_MAX)
                return parse_error(p, "%s: %" PRId64 " is out of range %d..%d", k->name, l, REST_MIN,
                                   REST_MAX);
        *ret = (int) l;
        *v = end;
        return 0;
}

/* "X,Y": two signed 16-bit counts into has_rest, rest_x and rest_y (no offset). */
static int parse_rest(Parser *p, const StateKey *k, char *v, StateConfig *c)
{
        char *s = v, x[STR_EXCERPT_SIZE];
        int rx = 0, ry = 0, r; /* as in parse_unsigned() */

        r = parse_count(p, k, &s, &rx);
        if (r < 0)
                return r;
        if (*s != ',')
                return parse_error(p, "%s: expected two integers 'X,Y', got '%s'", k->name,
                                   str_excerpt(v, x));
        s++;
        r = parse_count(p, k, &s, &ry);
        if (r < 0)
                return r;
        if (*s != '\0')
                return parse_error(p, "%s: expected two integers 'X,Y', got '%s'", k->name,
                                   str_excerpt(v, x));
        c->has_rest = true;
        c->rest_x = rx;
        c->rest_y = ry;
        return 0;
}

static int parse_disks(Parser *p, const StateKey *k, char *v, StateConfig *c)
{
        _cleanup_strv_free_ char **disks = NULL;
        char ***ret = KEY_FIELD(c, k, char **), *save = NULL, x[STR_EXCERPT_SIZE];
        int r;

        disks = calloc(1, sizeof(char *));
        if (!disks)
                return -ENOMEM;
        for (char *w = strtok_r(v, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
                if (!state_disk_name_valid(w))
                        return parse_error(p, "%s: '%s' is not a block device name", k->name,
                                           str_excerpt(w, x));
                if (strv_contains(disks, w))
                        return parse_error(p, "%s: '%s' is listed twice", k->name, w);
                if (strv_length(disks) >= STATE_DISKS_MAX)
                        return parse_error(p, "%s: more than %d disks", k->name, STATE_DISKS_MAX);
                char *copy = strdup(w);
                if (!copy)
                        return -ENOMEM;
                r = strv_consume(&disks, copy);
                if (r < 0)
                        return r;
        }
        strv_free(*ret);
        *ret = TAKE_PTR(disks);
        return 0;
}

static const StateKey state_keys[] = {
        {"sampling_rate", parse_unsigned, offsetof(StateConfig, sampling_rate), HDAPS_SAMPLING_RATE_MIN,
         HDAPS_SAMPLING_RATE_MAX},
        {"oversampling_ratio", parse_unsigned, offsetof(StateConfig, oversampling_ratio),
         HDAPS_OVERSAMPLING_RATIO_MIN, EC_RATE_MAX},
        {"filter_order", parse_unsigned, offsetof(StateConfig, filter_order), EC_FILTER_ORDER_MIN,
         EC_FILTER_ORDER_MAX},
        {"invert", parse_bool, offsetof(StateConfig, invert), 0, 1},
        {"rest_position", parse_rest, 0, REST_MIN, REST_MAX},
        {"tilt_step", parse_double, offsetof(StateConfig, tilt_step), MOTION_TILT_STEP_MIN,
         MOTION_TILT_STEP_MAX},
        {"shock_sensitivity", parse_double, offsetof(StateConfig, shock_sensitivity), MOTION_SENSITIVITY_MIN,
         MOTION_SENSITIVITY_MAX},
        {"protected_disks", parse_disks, offsetof(StateConfig, protected_disks), 0, 0},
        {"input_devices", parse_bool, offsetof(StateConfig, input_devices), 0, 1},
};

static const StateKey *state_key_find(const char *name)
{
        for (size_t i = 0; i < ELEMENTSOF(state_keys); i++)
                if (streq(state_keys[i].name, name))
                        return &state_keys[i];
        return NULL;
}

static char *strip(char *s)
{
        char *e;

        s += strspn(s, " \t");
        e = s + strlen(s);
        while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
                *--e = '\0';
        return s;
}

int state_config_parse(const char *text, size_t len, const char *name, StateConfig *ret,
                       char ***ret_warnings, char **ret_error)
{
        _cleanup_strv_free_ char **warnings = NULL;
        StateConfig c;
        Parser p = {.name = name, .error = ret_error};
        bool seen[ELEMENTSOF(state_keys)] = {};
        size_t pos = 0;
        int r;

        assert(text || len == 0);
        assert(name);
        assert(ret);
        assert(ret_error);

        *ret_error = NULL;
        state_config_init(&c);

        while (pos < len) {
                const char *nl = memchr(text + pos, '\n', len - pos);
                size_t n = nl ? (size_t) (nl - (text + pos)) : len - pos;
                char line[STATE_LINE_MAX + 1];

                p.line++;
                if (n > STATE_LINE_MAX) {
                        r = parse_error(&p, "line longer than %d bytes", STATE_LINE_MAX);
                        goto fail;
                }
                if (memchr(text + pos, '\0', n)) {
                        r = parse_error(&p, "NUL byte in line");
                        goto fail;
                }
                memcpy(line, text + pos, n);
                line[n] = '\0';
                pos += n + 1;

                char *s = strip(line), x[STR_EXCERPT_SIZE];
                if (*s == '\0' || *s == '#')
                        continue;

                char *eq = strchr(s, '=');
                if (!eq) {
                        r = parse_error(&p, "expected 'key=value', got '%s'", str_excerpt(s, x));
                        goto fail;
                }
                *eq = '\0';
                char *key = strip(s), *value = strip(eq + 1);
                if (*key == '\0') {
                        r = parse_error(&p, "empty key");
                        goto fail;
                }

                const StateKey *k = state_key_find(key);
                if (!k) {
                        char *w = NULL;
                        r = error_printf_at(&w, 0, name, p.line, "unknown key '%s', ignoring",
                                            str_excerpt(key, x));
                        if (r >= 0)
                                r = strv_consume(&warnings, w);
                        if (r < 0)
                                goto fail;
                        continue;
                }
                r = k->parse(&p, k, value, &c);
                if (r < 0)
                        goto fail;
                if (seen[k - state_keys]) {
                        r = parse_error(&p, "duplicate key '%s'", key);
                        goto fail;
                }
                seen[k - state_keys] = true;
        }

        if ((uint64_t) c.sampling_rate * c.oversampling_ratio > EC_RATE_MAX) {
                r = error_printf(ret_error, -EINVAL,
                                 "%s: sampling_rate %u x oversampling_ratio %u exceeds %u", name,
                                 c.sampling_rate, c.oversampling_ratio, EC_RATE_MAX);
                if (!*ret_error)
                        r = -ENOMEM;
                goto fail;
        }

        *ret = c;
        for (char **w = warnings; ret_warnings && w && *w; w++) {
                r = strv_consume(ret_warnings, TAKE_PTR(*w));
                if (r < 0)
                        return r; /* *ret is valid; only warnings were lost */
        }
        return 0;

fail:
        state_config_done(&c);
        return r;
}

int state_config_format(const StateConfig *c, char **ret)
{
        _cleanup_free_ char *disks = NULL, *rest = NULL;

        assert(c);
        assert(ret);

        disks = strv_join(c->protected_disks, " ");
        if (!disks)
                return -ENOMEM;
        if (c->has_rest) {
                if (asprintf(&rest, "rest_position=%d,%d\n", c->rest_x, c->rest_y) < 0)
                        return -ENOMEM;
        }
        if (asprintf(ret,
                     "# tpacceld state: written by the daemon; edit while it is stopped, or send it SIGHUP "
                     "after.\n"
                     "sampling_rate=%u\n"
                     "oversampling_ratio=%u\n"
                     "filter_order=%u\n"
                     "invert=%d\n"
                     "%s"
                     "tilt_step=%.17g\n"
                     "shock_sensitivity=%.17g\n"
                     "protected_disks=%s\n"
                     "%s",
                     c->sampling_rate, c->oversampling_ratio, c->filter_order, c->invert, rest ? rest : "",
                     c->tilt_step, c->shock_sensitivity, disks,
                     c->input_devices ? "input_devices=1\n" : "") < 0)
                return -ENOMEM;
        return 0;
}

#define STATE_FILE_SIZE_MAX (64 * 1024)

/* Opens path for reading without following a link and without blocking (a FIFO planted there must not
 * hang start-up), and accepts only a regular file with one link, owned by the daemon's own uid. */
static int open_state_file(const char *path, char **ret_error)
{
        _cleanup_close_ int fd = -1;
        struct stat st;
        int r;

        fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
        if (fd < 0) {
                r = -errno;
                if (r == -ENOENT)
                        return r;
                if (r == -ELOOP)
                        return error_printf(ret_error, r, "%s: is a symbolic link, not following it", path);
                return error_printf(ret_error, r, "%s: %s", path, strerror(-r));
        }
        if (fstat(fd, &st) < 0)
                return error_printf(ret_error, -errno, "%s: %s", path, strerror(errno));
        if (S_ISDIR(st.st_mode))
                return error_printf(ret_error, -EISDIR, "%s: is a directory, not a state file", path);
        if (!S_ISREG(st.st_mode))
                return error_printf(ret_error, -EINVAL, "%s: is not a regular file (%s), not reading it",
                                    path,
                                    S_ISFIFO(st.st_mode)   ? "a FIFO"
                                    : S_ISSOCK(st.st_mode) ? "a socket"
                                    : S_ISCHR(st.st_mode)  ? "a character device"
                                    : S_ISBLK(st.st_mode)  ? "a block device"
                                                           : "not a file");
        if (st.st_uid != geteuid())
                return error_printf(ret_error, -EPERM, "%s: is owned by uid %u, not by the daemon's uid %u",
                                    path, (unsigned) st.st_uid, (unsigned) geteuid());
        if (st.st_nlink > 1)
                return error_printf(ret_error, -EPERM, "%s: has %lu hard links, a state file has one", path,
                                    (unsigned long) st.st_nlink);
        /* Regular files never block; reads are plain from here on. */
        if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0)
                return error_printf(ret_error, -errno, "%s: %s", path, strerror(errno));
        return TAKE_FD(fd);
}

int state_config_load(const char *path, StateConfig *ret, char ***ret_warnings, char **ret_error)
{
        _cleanup_free_ char *text = NULL;
        _cleanup_close_ int fd = -1;
        size_t len = 0;
        ssize_t n;

        assert(path);
        assert(ret);
        assert(ret_error);

        *ret_error = NULL;
        fd = open_state_file(path, ret_error);
        if (fd < 0)
                return fd;

        text = malloc(STATE_FILE_SIZE_MAX + 1);
        if (!text)
                return -ENOMEM;
        while ((n = read(fd, text + len, STATE_FILE_SIZE_MAX + 1 - len)) != 0) {
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return error_printf(ret_error, -errno, "%s: %s", path, strerror(errno));
                }
                len += (size_t) n;
                if (len > STATE_FILE_SIZE_MAX)
                        return error_printf(ret_error, -EFBIG, "%s: larger than %d bytes", path,
                                            STATE_FILE_SIZE_MAX);
        }

        return state_config_parse(text, len, path, ret, ret_warnings, ret_error);
}

static int write_all(int fd, const char *buf, size_t len)
{
        while (len > 0) {
                ssize_t n = write(fd, buf, len);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                buf += n;
                len -= (size_t) n;
        }
        return 0;
}

/* Creates a new file next to the state file, in the directory dfd: a random name opened with O_EXCL, so
 * that no existing path (a symbolic link planted there, a stale file) is ever followed or truncated.
 * Returns the fd and the name in tmp (size STATE_TMP_NAME_MAX), or -errno. */
#define STATE_TMP_NAME_MAX 64
#define STATE_TMP_TRIES    16
static int create_temp(int dfd, const char *base, char *tmp)
{
        for (unsigned i = 0; i < STATE_TMP_TRIES; i++) {
                uint64_t id;
                int fd;

                if (getrandom(&id, sizeof(id), GRND_NONBLOCK) != sizeof(id))
                        id = ((uint64_t) getpid() << 32) ^ (uint64_t) time(NULL) ^ ((uint64_t) i << 48);
                snprintf(tmp, STATE_TMP_NAME_MAX, ".%.24s.%016" PRIx64 ".tmp", base, id);
                fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0644);
                if (fd >= 0)
                        return fd;
                if (errno != EEXIST)
                        return -errno;
        }
        return -EEXIST;
}

static bool is_temp_name(const char *name, const char *base)
{
        size_t n = strlen(base), len = strlen(name);

        /* "." base "." 16 hex digits ".tmp" */
        if (len != 1 + n + 1 + 16 + 4 || name[0] != '.' || strncmp(name + 1, base, n) != 0 ||
            name[1 + n] != '.')
                return false;
        return strspn(name + 2 + n, "0123456789abcdef") == 16 && streq(name + 2 + n + 16, ".tmp");
}

int state_config_remove_stale(const char *path)
{
        _cleanup_free_ char *dir_copy = NULL, *base_copy = NULL;
        const char *base;
        struct dirent *de;
        DIR *d;
        int fd, n = 0;

        assert(path);

        dir_copy = strdup(path);
        base_copy = strdup(path);
        if (!dir_copy || !base_copy)
                return -ENOMEM;
        base = basename(base_copy);
        fd = open(dirname(dir_copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        d = fdopendir(fd);
        if (!d) {
                int r = -errno;
                close(fd);
                return r;
        }
        while ((de = readdir(d)))
                if (is_temp_name(de->d_name, base) && unlinkat(dirfd(d), de->d_name, 0) == 0)
                        n++;
        closedir(d);
        return n;
}

int state_config_save(const char *path, const StateConfig *c)
{
        _cleanup_free_ char *text = NULL, *dir_copy = NULL, *base_copy = NULL;
        _cleanup_close_ int fd = -1, dfd = -1;
        char tmp[STATE_TMP_NAME_MAX];
        const char *base;
        int r;

        assert(path);
        assert(c);

        r = state_config_format(c, &text);
        if (r < 0)
                return r;
        dir_copy = strdup(path);
        base_copy = strdup(path);
        if (!dir_copy || !base_copy)
                return -ENOMEM;
        base = basename(base_copy);

        /* Everything below is relative to the directory, and nothing in it is opened by name. */
        dfd = open(dirname(dir_copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0)
                return -errno;
        fd = create_temp(dfd, base, tmp);
        if (fd < 0)
                return fd;
        r = write_all(fd, text, strlen(text));
        if (r >= 0 && fsync(fd) < 0)
                r = -errno;
        /* rename() replaces whatever is at the state path (a link is replaced, never followed). */
        if (r >= 0 && renameat(dfd, tmp, dfd, base) < 0)
                r = -errno;
        if (r < 0) {
                (void) unlinkat(dfd, tmp, 0);
                return r;
        }
        (void) fsync(dfd);
        return 0;
}
