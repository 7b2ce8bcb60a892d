/* SPDX-License-Identifier: BSD-3-Clause */
/* A C program that embeds Meridian (static, environment prefix EMBED_MCA_,
 * exported names embed_meridian_*, component directory of this project) and
 * checks through the C API alone that it got what it configured.  Linked by
 * the C compiler: the library brings the C++ runtime and libm along.
 *
 * Run as:  embed_c alpha --mca coord_base_verbose warn --beta gamma
 * with EMBED_MCA_carto_base_verbose=max in the environment and
 * EMBED_COMPONENT_DIR naming the component directory configured, expanded.
 * Prints one line per check and exits 1 if any failed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <meridian/meridian.h>

static int failures = 0;

static void check(int ok, const char *what, const char *found)
{
    printf("%s: %s (found %s)\n", ok ? "ok" : "FAIL", what, found);
    failures += ok ? 0 : 1;
}

/* The value of a parameter as text, or "<...>" when it cannot be had. */
static const char *value_of(const char *name, char *buffer, size_t size)
{
    const int index = meridian_mca_base_param_find(name);
    if (index < 0) {
        snprintf(buffer, size, "<%s>", meridian_strerror(index));
    } else if (meridian_mca_base_param_value_string(index, buffer, size) <
               0) { /* else its length */
        snprintf(buffer, size, "<no value>");
    }
    return buffer;
}

int main(int argc, char **argv)
{
    char text[512];
    const int rc = meridian_init(&argc, &argv);
    check(rc == MERIDIAN_SUCCESS, "meridian_init succeeds", meridian_strerror(rc));
    if (rc != MERIDIAN_SUCCESS) {
        return 1;
    }

    check(strcmp(meridian_mca_base_env_prefix(), "EMBED_MCA_") == 0,
          "the environment prefix is the one configured", meridian_mca_base_env_prefix());

    /* --mca is Meridian's; the rest is the program's, in order. */
    text[0] = '\0';
    for (int i = 1; i < argc; ++i) {
        strncat(text, i > 1 ? " " : "", sizeof text - strlen(text) - 1);
        strncat(text, argv[i], sizeof text - strlen(text) - 1);
    }
    check(strcmp(text, "alpha --beta gamma") == 0 && argv[argc] == NULL,
          "--mca is taken out of argv, leaving 'alpha --beta gamma'", text);

    snprintf(text, sizeof text, "%d", meridian_carto_base_framework.verbose);
    check(meridian_carto_base_framework.verbose == MCA_BASE_VERBOSE_MAX,
          "EMBED_MCA_carto_base_verbose=max sets carto's verbosity to 100", text);
    snprintf(text, sizeof text, "%d", meridian_coord_base_framework.verbose);
    check(meridian_coord_base_framework.verbose == MCA_BASE_VERBOSE_WARN,
          "--mca coord_base_verbose warn sets coord's verbosity to 10", text);

    /* Third-party components are looked for first in this project's
     * directory. */
    const char *component_dir = getenv("EMBED_COMPONENT_DIR");
    value_of("mca_base_component_path", text, sizeof text);
    check(component_dir != NULL && strncmp(text, component_dir, strlen(component_dir)) == 0 &&
              text[strlen(component_dir)] == ':',
          "mca_base_component_path begins with the configured component directory", text);

    /* The components are inside the library: carto answers with a map. */
    mca_carto_graph_t *graph = NULL;
    const int graph_rc = meridian_mca_carto_base_get_host_graph(MCA_CARTO_ALL, &graph);
    const size_t vertices =
        graph_rc == MERIDIAN_SUCCESS ? meridian_mca_carto_graph_vertex_count(graph) : 0;
    const char *selected = meridian_mca_carto_base_selected_component();
    snprintf(text, sizeof text, "%s from %s, %zu vertices", meridian_strerror(graph_rc),
             selected != NULL ? selected : "no component", vertices);
    check(graph_rc == MERIDIAN_SUCCESS && vertices > 0, "a built-in carto component maps the host",
          text);
    meridian_mca_carto_graph_free(graph);

    meridian_finalize();
    printf("embed_c: %d check(s) failed\n", failures);
    return failures == 0 ? 0 : 1;
}
