/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A main() for fuzz targets in builds without libFuzzer: runs each file given (or each file in each
 * directory given) through LLVMFuzzerTestOneInput once, so the corpus is a regression test. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
        FILE *f = fopen(path, "rbe");
        if (!f) {
                fprintf(stderr, "%s: cannot open\n", path);
                return -1;
        }
        static uint8_t buf[1 << 20];
        size_t n = fread(buf, 1, sizeof(buf), f);
        fclose(f);
        LLVMFuzzerTestOneInput(buf, n);
        return 0;
}

int main(int argc, char **argv)
{
        unsigned runs = 0, errors = 0;
        for (int i = 1; i < argc; i++) {
                struct stat st;
                if (stat(argv[i], &st) < 0) {
                        fprintf(stderr, "%s: no such file or directory\n", argv[i]);
                        errors++;
                        continue;
                }
                if (!S_ISDIR(st.st_mode)) {
                        errors += run_file(argv[i]) < 0;
                        runs++;
                        continue;
                }
                DIR *d = opendir(argv[i]);
                struct dirent *de;
                while (d && (de = readdir(d))) {
                        if (de->d_name[0] == '.')
                                continue;
                        char path[4096];
                        snprintf(path, sizeof(path), "%s/%s", argv[i], de->d_name);
                        errors += run_file(path) < 0;
                        runs++;
                }
                if (d)
                        closedir(d);
        }
        printf("%u passed, %u failed\n", runs - errors, errors);
        return errors ? 1 : 0;
}
