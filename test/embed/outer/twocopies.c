/* SPDX-License-Identifier: BSD-3-Clause */
/* One process, three Meridians: this project's two libraries, each with an
 * embedded copy (outer_embed.so: embed_meridian_*, EMBED_MCA_; outer_other.so:
 * other_meridian_*, OTHER_MCA_), and the standalone libmeridian.so
 * (meridian_*, MERIDIAN_MCA_), all loaded RTLD_GLOBAL, where any name one
 * of them exports would be found by the others.  Each starts, reads its own
 * environment prefix, and keeps its own parameters: a value set in one copy
 * is not seen by the others.
 *
 * Run as:  twocopies DIR STANDALONE
 * DIR holding outer_embed.so and outer_other.so, STANDALONE the path of
 * libmeridian.so, and in the environment EMBED_MCA_carto_base_verbose=3,
 * OTHER_MCA_carto_base_verbose=4 and MERIDIAN_MCA_carto_base_verbose=5.
 * Prints one line per check and exits 1 if any failed. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*start_fn)(void);
typedef const char *(*prefix_fn)(void);
typedef int (*set_fn)(const char *, const char *);
typedef int (*get_fn)(const char *, char *, size_t);

/* What the process calls in one copy. */
struct copy {
    const char *label;
    const char *env_prefix; /* expected */
    const char *verbose;    /* carto_base_verbose from the environment, expected */
    void *handle;
    start_fn start;
    start_fn stop;
    prefix_fn prefix;
    set_fn set;
    get_fn get;
};

static int failures = 0;

static void check(int ok, const char *label, const char *what, const char *found)
{
    printf("%s: %s: %s (found %s)\n", ok ? "ok" : "FAIL", label, what, found);
    failures += ok ? 0 : 1;
}

static void *symbol(struct copy *c, const char *name)
{
    void *address = dlsym(c->handle, name);
    if (address == NULL) {
        check(0, c->label, "exports the function it needs", name);
    }
    return address;
}

/* The standalone library's own C API, wrapped like the outer libraries. */
static int (*standalone_init)(int *, char ***);
static int (*standalone_find)(const char *);
static int (*standalone_set_value)(int, const char *);
static int (*standalone_value_string)(int, char *, size_t);

static int standalone_start(void)
{
    return standalone_init(NULL, NULL);
}

static int standalone_set(const char *name, const char *value)
{
    const int index = standalone_find(name);
    return index < 0 ? index : standalone_set_value(index, value);
}

static int standalone_get(const char *name, char *buffer, size_t size)
{
    const int index = standalone_find(name);
    if (index < 0) {
        return index;
    }
    return standalone_value_string(index, buffer, size) < 0 ? -1 : 0;
}

static const char *value(struct copy *c, const char *name, char *buffer, size_t size)
{
    if (c->get(name, buffer, size) != 0) {
        snprintf(buffer, size, "<no value>");
    }
    return buffer;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: twocopies DIR STANDALONE\n");
        return 2;
    }
    struct copy copies[3] = {
        {"outer_embed.so", "EMBED_MCA_", "3", NULL, NULL, NULL, NULL, NULL, NULL},
        {"outer_other.so", "OTHER_MCA_", "4", NULL, NULL, NULL, NULL, NULL, NULL},
        {"libmeridian.so", "MERIDIAN_MCA_", "5", NULL, NULL, NULL, NULL, NULL, NULL},
    };
    char path[4096];
    for (int i = 0; i < 3; ++i) {
        struct copy *c = &copies[i];
        if (i < 2) {
            snprintf(path, sizeof path, "%s/%s", argv[1], c->label);
        } else {
            snprintf(path, sizeof path, "%s", argv[2]);
        }
        c->handle = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
        check(c->handle != NULL, c->label, "loads beside the others, RTLD_GLOBAL",
              c->handle != NULL ? path : dlerror());
        if (c->handle == NULL) {
            return 1;
        }
        if (i < 2) {
            const char *copy = i == 0 ? "embed" : "other";
            char name[64];
            snprintf(name, sizeof name, "outer_%s_start", copy);
            c->start = (start_fn)symbol(c, name);
            snprintf(name, sizeof name, "outer_%s_stop", copy);
            c->stop = (start_fn)symbol(c, name);
            snprintf(name, sizeof name, "outer_%s_env_prefix", copy);
            c->prefix = (prefix_fn)symbol(c, name);
            snprintf(name, sizeof name, "outer_%s_set", copy);
            c->set = (set_fn)symbol(c, name);
            snprintf(name, sizeof name, "outer_%s_get", copy);
            c->get = (get_fn)symbol(c, name);
        } else {
            standalone_init = (int (*)(int *, char ***))symbol(c, "meridian_init");
            c->start = standalone_start;
            c->stop = (start_fn)symbol(c, "meridian_finalize");
            c->prefix = (prefix_fn)symbol(c, "meridian_mca_base_env_prefix");
            standalone_find = (int (*)(const char *))symbol(c, "meridian_mca_base_param_find");
            standalone_set_value =
                (int (*)(int, const char *))symbol(c, "meridian_mca_base_param_set_value");
            standalone_value_string =
                (int (*)(int, char *, size_t))symbol(c, "meridian_mca_base_param_value_string");
            c->set = standalone_set;
            c->get = standalone_get;
        }
        if (failures > 0) {
            return 1;
        }
    }

    char text[256];
    char other[256];
    for (int i = 0; i < 3; ++i) {
        struct copy *c = &copies[i];
        const int rc = c->start();
        snprintf(text, sizeof text, "%d", rc);
        check(rc == 0, c->label, "starts", text);
        if (rc != 0) {
            return 1;
        }
    }
    for (int i = 0; i < 3; ++i) {
        struct copy *c = &copies[i];
        const char *prefix = c->prefix();
        check(strcmp(prefix, c->env_prefix) == 0, c->label, "reads its own environment prefix",
              prefix);
        value(c, "carto_base_verbose", text, sizeof text);
        check(strcmp(text, c->verbose) == 0, c->label,
              "takes carto_base_verbose from its own prefix's variable", text);
    }
    /* Set in one copy, seen there only. */
    const int rc = copies[0].set("carto_base_verbose", "7");
    snprintf(text, sizeof text, "%d", rc);
    check(rc == 0, copies[0].label, "sets carto_base_verbose to 7", text);
    value(&copies[0], "carto_base_verbose", text, sizeof text);
    check(strcmp(text, "7") == 0, copies[0].label, "has the value it was set", text);
    for (int i = 1; i < 3; ++i) {
        value(&copies[i], "carto_base_verbose", other, sizeof other);
        check(strcmp(other, copies[i].verbose) == 0, copies[i].label,
              "keeps its own value when another copy's is set", other);
    }
    for (int i = 2; i >= 0; --i) {
        const int stopped = copies[i].stop();
        snprintf(text, sizeof text, "%d", stopped);
        check(stopped == 0, copies[i].label, "finalizes", text);
    }
    printf("twocopies: %d check(s) failed\n", failures);
    return failures == 0 ? 0 : 1;
}
