/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "idle-exit.h"
#include "options.h"
#include "strutil.h"

#define STATE_DIR_DEFAULT LOCALSTATEDIR "/lib/tpaccel"

enum {
        ARG_SYSTEM = 0x100,
        ARG_SESSION,
        ARG_ADDRESS,
        ARG_BACKEND,
        ARG_TRACE,
        ARG_TRACE_LOOP,
        ARG_SIM_FAULT,
        ARG_STATE_DIR,
        ARG_SYSFS_ROOT,
        ARG_SYSROOT,
        ARG_EXIT_IDLE_TIME,
        ARG_SENSOR_PROXY,
        ARG_INPUT_DIR,
        ARG_USER,
        ARG_DUMP,
        ARG_DIAGNOSE,
        ARG_PORT_LOG,
        ARG_LOCK_FILE,
        ARG_FORCE,
        ARG_VERSION,
};

static const struct option long_options[] = {
        {"system", no_argument, NULL, ARG_SYSTEM},
        {"session", no_argument, NULL, ARG_SESSION},
        {"address", required_argument, NULL, ARG_ADDRESS},
        {"backend", required_argument, NULL, ARG_BACKEND},
        {"trace", required_argument, NULL, ARG_TRACE},
        {"trace-loop", no_argument, NULL, ARG_TRACE_LOOP},
        {"sim-fault", required_argument, NULL, ARG_SIM_FAULT},
        {"state-dir", required_argument, NULL, ARG_STATE_DIR},
        {"sysfs-root", required_argument, NULL, ARG_SYSFS_ROOT},
        {"sysroot", required_argument, NULL, ARG_SYSROOT},
        {"exit-idle-time", required_argument, NULL, ARG_EXIT_IDLE_TIME},
        {"sensor-proxy", required_argument, NULL, ARG_SENSOR_PROXY},
        {"input-dir", required_argument, NULL, ARG_INPUT_DIR},
        {"user", required_argument, NULL, ARG_USER},
        {"dump", required_argument, NULL, ARG_DUMP},
        {"diagnose", optional_argument, NULL, ARG_DIAGNOSE},
        {"port-log", required_argument, NULL, ARG_PORT_LOG},
        {"lock-file", required_argument, NULL, ARG_LOCK_FILE},
        {"force", no_argument, NULL, ARG_FORCE},
        {"verbose", no_argument, NULL, 'v'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, ARG_VERSION},
        {},
};

#define HELP_COLUMN 25 /* where an option's description starts */
#define HELP_WIDTH  79

/* The fault kinds from their table, wrapped in the description column. */
static void print_fault_kinds(void)
{
        int column = HELP_WIDTH;

        for (unsigned k = 0; k < _SIM_FAULT_MAX; k++) {
                const char *kind = sim_fault_kind_to_string(k), *comma = k + 1 < _SIM_FAULT_MAX ? "," : "";

                if (column + 1 + (int) (strlen(kind) + strlen(comma)) > HELP_WIDTH)
                        column = printf("\n%*s", HELP_COLUMN, "") - 1;
                else
                        column += printf(" ");
                column += printf("%s%s", kind, comma);
        }
        printf("\n");
}

void options_sim_fault_help(void)
{
        for (unsigned k = 0; k < _SIM_FAULT_MAX; k++)
                printf("%s\n", sim_fault_kind_to_string(k));
}

void options_help(const char *program)
{
        printf("Usage: %s [OPTIONS]\n"
               "\n"
               "tpacceld serves the ThinkPad HDAPS accelerometer as org.thinkpad.Accelerometer on D-Bus.\n"
               "\n"
               "  --system               serve on the system bus (default)\n"
               "  --session              serve on the session bus (demo); callers with our uid need no "
               "polkit\n"
               "  --address=ADDR         connect to the bus at ADDR (tests)\n"
               "  --backend=KIND         auto (default: the kernel hdaps driver if loaded, else the EC by\n"
               "                         ioperm, else /dev/port), ioperm, devport, kernel or sim (the EC\n"
               "                         emulator)\n"
               "  --trace=FILE           sim: replay this motion trace instead of the demo motion\n"
               "  --trace-loop           sim: restart the trace after its last row\n"
               "  --sim-fault=KIND[:P][@FROM-TO]\n"
               "                         sim: inject a fault with probability P per transaction, between\n"
               "                         FROM and TO seconds after start if given; repeatable;\n"
               "                         --sim-fault=help lists the kinds, one a line. KIND is one of",
               program);
        print_fault_kinds();
        printf("  --state-dir=DIR        where the configuration is kept (default %s)\n"
               "  --sysfs-root=DIR       sysfs tree for disk protection (default /sys)\n"
               "  --force                ioperm, devport: drive the EC ports even when a safety check of\n"
               "                         auto fails (not a ThinkPad with HDAPS, ports owned, kernel "
               "driver)\n"
               "  --lock-file=PATH       the machine's EC lock (default $RUNTIME_DIRECTORY/ec.lock, else\n"
               "                         /run/tpaccel/ec.lock; sim: only when given)\n"
               "  --sysroot=DIR          backend detection and access below DIR: DMI, /proc/ioports,\n"
               "                         /sys/module, the hdaps device, /dev/port, run/tpaccel/ec.lock\n"
               "                         (tests; default /)\n"
               "  --exit-idle-time=SEC   without an accelerometer, exit after SEC s with no calls and\n"
               "                         no claims (for D-Bus activation; default 0: never)\n"
               "  --sensor-proxy=MODE    serve net.hadess.SensorProxy for screen rotation: auto (default:\n"
               "                         unless iio-sensor-proxy runs or is activatable), yes or no\n"
               "  --input-dir=DIR        where the tablet-mode switch is looked for (default /dev/input)\n"
               "  --user=NAME            when started as root: run as NAME once port access is held\n"
               "                         (every capability is dropped in any case)\n"
               "  --dump=N               no bus: print N readouts as CSV, power off, exit\n"
               "  --diagnose[=FORMAT]    no bus: print the diagnosis report (text, or json), power\n"
               "                         off, exit (tpaccelctl diagnose runs this when tpacceld is not\n"
               "                         running)\n"
               "  --port-log=FILE        write every EC port access to FILE as CSV (time_us,dir,port,\n"
               "                         value), for bug reports; not with --backend=kernel\n"
               "  -v, --verbose          debug logging\n"
               "  -h, --help             this help\n"
               "      --version          print the version\n",
               STATE_DIR_DEFAULT);
}

static int bad(const char *fmt, ...) _printf_(1, 2);
static int bad(const char *fmt, ...)
{
        va_list ap;

        fputs("tpacceld: ", stderr);
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputc('\n', stderr);
        return -EINVAL;
}

int options_parse(int argc, char *argv[], Options *ret)
{
        Options o = {
                .backend = BACKEND_AUTO,
                .state_dir = getenv("STATE_DIRECTORY") ?: STATE_DIR_DEFAULT,
        };
        bool system_given = false;
        int c;

        optind = 0;
        opterr = 0;
        while ((c = getopt_long(argc, argv, ":vh", long_options, NULL)) >= 0) {
                switch (c) {
                case ARG_SYSTEM:
                        system_given = true;
                        break;
                case ARG_SESSION:
                        o.session = true;
                        break;
                case ARG_ADDRESS:
                        if (!*optarg)
                                return bad("--address: the bus address is empty");
                        o.address = optarg;
                        break;
                case ARG_BACKEND:
                        o.backend = backend_kind_from_string(optarg);
                        if (o.backend < 0)
                                return bad("--backend=%s: unknown backend (expected auto, ioperm, devport, "
                                           "kernel or sim)",
                                           optarg);
                        break;
                case ARG_TRACE:
                        if (!*optarg)
                                return bad("--trace: the file name is empty");
                        o.trace = optarg;
                        break;
                case ARG_TRACE_LOOP:
                        o.trace_loop = true;
                        break;
                case ARG_SIM_FAULT: {
                        SimFault f;
                        _cleanup_free_ char *error = NULL;
                        if (streq(optarg, "help")) {
                                o.sim_fault_help = true;
                                break;
                        }
                        if (o.n_sim_faults >= SIM_FAULTS_MAX)
                                return bad("--sim-fault=%s: too many faults (at most %d)", optarg,
                                           SIM_FAULTS_MAX);
                        if (sim_fault_parse(optarg, &f, &error) < 0)
                                return bad("--sim-fault=%s: %s", optarg, error ? error : "invalid fault");
                        o.sim_faults[o.n_sim_faults++] = optarg;
                        break;
                }
                case ARG_STATE_DIR:
                        if (!*optarg)
                                return bad("--state-dir: the directory name is empty");
                        o.state_dir = optarg;
                        break;
                case ARG_SYSFS_ROOT:
                        if (!*optarg)
                                return bad("--sysfs-root: the directory name is empty");
                        o.sysfs_root = optarg;
                        break;
                case ARG_SYSROOT:
                        if (!*optarg)
                                return bad("--sysroot: the directory name is empty");
                        o.sysroot = optarg;
                        break;
                case ARG_EXIT_IDLE_TIME: {
                        unsigned n;
                        if (safe_atou(optarg, &n) < 0 || n > EXIT_IDLE_SEC_MAX)
                                return bad("--exit-idle-time=%s: expected seconds between 0 (never) and %u",
                                           optarg, EXIT_IDLE_SEC_MAX);
                        o.exit_idle_sec = n;
                        break;
                }
                case ARG_SENSOR_PROXY: {
                        int m = sensor_proxy_mode_from_string(optarg);
                        if (m < 0)
                                return bad("--sensor-proxy=%s: expected auto, yes or no", optarg);
                        o.sensor_proxy = m;
                        break;
                }
                case ARG_INPUT_DIR:
                        if (!*optarg)
                                return bad("--input-dir: the directory name is empty");
                        o.input_dir = optarg;
                        break;
                case ARG_USER:
                        if (!*optarg)
                                return bad("--user: the user name is empty");
                        o.user = optarg;
                        break;
                case ARG_DUMP: {
                        unsigned n;
                        if (safe_atou(optarg, &n) < 0 || n == 0 || n > DUMP_READOUTS_MAX)
                                return bad("--dump=%s: expected a number of readouts between 1 and %u",
                                           optarg, DUMP_READOUTS_MAX);
                        o.dump = n;
                        break;
                }
                case ARG_DIAGNOSE:
                        if (optarg && !streq(optarg, "text") && !streq(optarg, "json"))
                                return bad("--diagnose=%s: the format is text or json", optarg);
                        o.diagnose = optarg ?: "text";
                        break;
                case ARG_PORT_LOG:
                        if (!*optarg)
                                return bad("--port-log: the file name is empty");
                        o.port_log = optarg;
                        break;
                case ARG_LOCK_FILE:
                        if (!*optarg)
                                return bad("--lock-file: the file name is empty");
                        o.lock_file = optarg;
                        break;
                case ARG_FORCE:
                        o.force = true;
                        break;
                case 'v':
                        o.verbose = true;
                        break;
                case 'h':
                        o.help = true;
                        break;
                case ARG_VERSION:
                        o.version = true;
                        break;
                case ':':
                        return bad("%s: the option needs a value", argv[optind - 1]);
                case '?':
                default:
                        return bad("%s: unknown option (see --help)", argv[optind - 1]);
                }
        }

        if (optind < argc)
                return bad("%s: unexpected argument (tpacceld takes options only)", argv[optind]);
        if (system_given && o.session)
                return bad("--system and --session exclude each other");
        if (o.backend != BACKEND_SIM && (o.trace || o.trace_loop || o.n_sim_faults > 0))
                return bad("%s only works with --backend=sim", o.trace        ? "--trace"
                                                               : o.trace_loop ? "--trace-loop"
                                                                              : "--sim-fault");
        if (o.port_log && o.backend == BACKEND_KERNEL)
                return bad("--port-log=%s: the kernel backend makes no port access (the kernel's driver "
                           "does), so there is nothing to log; use --backend=ioperm or devport",
                           o.port_log);
        if (o.lock_file && o.backend == BACKEND_KERNEL)
                return bad("--lock-file=%s: the kernel backend makes no port access and takes no EC lock",
                           o.lock_file);
        if (o.force && o.backend != BACKEND_IOPERM && o.backend != BACKEND_DEVPORT)
                return bad("--force only applies to --backend=ioperm and --backend=devport");
        if (o.diagnose && o.dump)
                return bad("--diagnose and --dump exclude each other");
        if (o.trace_loop && !o.trace)
                return bad("--trace-loop needs --trace=FILE");

        *ret = o;
        return 0;
}
