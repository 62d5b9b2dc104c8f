/* bin/sim: dispatches to a subcommand; with none, runs an attention schedule (`sim --policy shift`). */
#include <string.h>

#include "cli.h"

typedef struct {
    const char *name;
    int (*run)(int argc, char **argv);
} Subcommand;

static const Subcommand subcommands[] = {
    { "attention", sim_cmd_attention },
    { "validate", sim_cmd_validate },
    { "pipeline", sim_cmd_pipeline },
    { "run", sim_cmd_run },
    { "sweep", sim_cmd_sweep },
    { "decode", sim_cmd_decode },
};

int main(int argc, char **argv)
{
    if (argc > 1 && argv[1][0] != '-')
        for (size_t i = 0; i < sizeof subcommands / sizeof subcommands[0]; i++)
            if (strcmp(argv[1], subcommands[i].name) == 0)
                return subcommands[i].run(argc - 1, argv + 1);
    return sim_cmd_attention(argc, argv);
}
