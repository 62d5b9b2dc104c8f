#!/usr/bin/env python3
"""`make docs`: docs/dashsim.1, the man page, generated from the program's own --help texts.

Usage: scripts/man-page.py BIN/SIM > docs/dashsim.1 (tests/cli_manual.sh checks that the committed page is what
this prints, so an option added to a --help and not to the page fails the tests). The page has the usage line
of every command (SYNOPSIS), a fixed DESCRIPTION, each command's options as --help words them (an indented
"  --flag ARG   text" line becomes a tagged paragraph, its deeper-indented lines continue it, a line ending in
':' heads a subsection), EXIT STATUS, FILES and SEE ALSO. Same program, same bytes: no date.
"""
import re
import subprocess
import sys

COMMANDS = ["run", "sweep", "search", "pipeline", "decode", "validate", "calibrate", "perfetto"]

DESCRIPTION = r"""
.B dashsim
simulates, in integer nanoseconds, the deterministic attention backward pass of a schedule on a GPU of
streaming multiprocessors (SMs): every (KV tile, Q tile) task computes its partial dQ tile and adds it to
its dQ row in the plan's accumulation order, behind a semaphore. It reports the makespan, the critical path
of the realised schedule, where the bubbles are, the DASH paper's closed form where one exists and the
Lemma 1 count. With \fB\-\-seqlen\fR it ranks the schedules for a real attention shape, with FA3's tiles
and costs from a measured hardware profile. Its numbers are model numbers, and every report says which
model made them.
.PP
The subcommands run JSON configs and sweeps with a hardware cost model (\fBrun\fR, \fBsweep\fR), search a
schedule for any block mask (\fBsearch\fR), simulate Cube/Vector preload pipelines (\fBpipeline\fR) and
split\-KV decoding (\fBdecode\fR), compare the model with traces measured on a GPU (\fBvalidate\fR), make a
hardware profile from calibration kernels (\fBcalibrate\fR), and show a measured trace beside the model's
run of the same plan in Perfetto (\fBperfetto\fR).
.PP
\fB\-\fR as a file to read is standard input; as a file to write it is standard output, and the command's
report (its summary or \fB\-\-json\fR object) then goes to standard error. Outputs are written as a set,
all or none, through temporary files renamed into place. On a terminal, long runs (sweeps, search) show
their progress on standard error.
""".strip("\n")

EXIT_STATUS = r"""
.TP
.B 0
success.
.TP
.B 1
a check failed: validation beyond its tolerance, or a regression against \fB\-\-baseline\fR.
.TP
.B 2
bad usage or bad input (an unknown option, a malformed config, plan, trace or mask, a cap exceeded, a
failed job), with one sentence on standard error naming the problem and where.
.TP
.B 130
interrupted (SIGINT): a sweep writes the points already complete, and no temporary file is left; 143
(SIGTERM) and 141 (SIGPIPE) likewise remove every temporary file.
""".strip("\n")

FILES = r"""
.TP
.I PREFIX/share/dashsim/configs
presets, example configs and sweeps; a config named without a path is found here.
.TP
.I PREFIX/share/dashsim/configs/profiles
hardware profiles (the default one is h100\-sxm.json).
.TP
.I PREFIX/share/doc/dashsim
the documents the options name as docs/NAME.md (formats, models, outputs).
""".strip("\n")

SEE_ALSO = r"""
.BR gnuplot (1)
draws \fB\-\-gantt\fR and \fB\-\-plot\fR,
.BR dot (1)
(Graphviz) draws \fB\-\-dot\fR, and
.BR pkg\-config (1)
gives the flags of the library:
\fBpkg\-config \-\-cflags \-\-libs dashsim\fR for \fI<dashsim/dashsim.h>\fR
(docs/api.md).
The documents under \fIPREFIX/share/doc/dashsim\fR (README.md, and docs/NAME.md as the options name them)
give the formats and the models in full.
""".strip("\n")


def roff(text):
    """Text for a roff line: backslashes and minus signs escaped, 'sim' as installed ('dashsim')."""
    text = re.sub(r"(?<![\w/.-])sim(?=\s|$)", "dashsim", text)
    text = text.replace("\\", "\\e").replace("-", "\\-")
    return "\\&" + text if text[:1] in (".", "'") else text


def help_text(sim, command):
    args = [sim] + ([command] if command else []) + ["--help"]
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout.rstrip("\n").split("\n")


def synopsis(lines):
    """The usage lines: 'usage: X' and the lines indented under it."""
    out = [lines[0][len("usage: "):]]
    for line in lines[1:]:
        if not line.startswith("       "):
            break
        out.append(line.strip())
    return out, lines[len(out):]


def body(lines):
    """--help's lines after its usage as roff: option entries, continuations, subsections, paragraphs."""
    out, in_option = [], False
    for line in lines:
        indent = len(line) - len(line.lstrip(" "))
        text = line.strip()
        if not text:
            continue
        if indent == 2 and text.startswith("-"):
            tag, desc = (re.split(r"\s{2,}", text, maxsplit=1) + [""])[:2]  # "--flag ARG" then the words
            out += [".TP", ".B " + roff(tag)] + ([roff(desc)] if desc else [])
            in_option = True
        elif indent > 2 and in_option:
            out.append(roff(text))
        elif indent > 2:
            out += [".IP", roff(text)]
        elif text.endswith(":"):
            out += [".SS " + roff(text[:-1])]
            in_option = False
        else:
            out += [".PP", roff(text)]
            in_option = False
    return out


def main():
    sim = sys.argv[1] if len(sys.argv) > 1 else "bin/sim"
    version = subprocess.run([sim, "--version"], check=True, capture_output=True, text=True).stdout.split()[-1]
    page = ['.\\" Generated by scripts/man-page.py from the --help of every command: edit those, then `make docs`.',
            '.TH DASHSIM 1 "" "dashsim %s" "User Commands"' % version,
            ".SH NAME", "dashsim \\- scheduling simulator and DAG analyzer for tiled attention kernels",
            ".SH SYNOPSIS", ".nf"]
    sections = []
    for command in [None] + COMMANDS:
        usage, rest = synopsis(help_text(sim, command))
        page += [roff(u) for u in usage]
        sections.append((command, rest))
    page += [".fi", ".SH DESCRIPTION", DESCRIPTION]
    for command, rest in sections:
        page.append(".SH OPTIONS" if command is None else '.SH "dashsim %s"' % command)
        page += body(rest)
    page += [".SH EXIT STATUS", EXIT_STATUS, ".SH FILES", FILES, ".SH SEE ALSO", SEE_ALSO]
    sys.stdout.write("\n".join(page) + "\n")


if __name__ == "__main__":
    main()
