#!/usr/bin/env python3
"""House style 9 (docs/architecture.md): a function fits a screen, 60 lines of body at most. Lists every C
function in sim/, dag/ and policies/ whose body (the lines between its braces) is longer, and fails on any
that tests/function-length.allow does not name with a reason; an allow-list entry that no longer matches a
long function fails too, so the list only shrinks. Run by make test (tests/cli_style.sh)."""
import os
import re
import sys

LIMIT = 60
DIRS = ("sim", "dag", "policies")
NAME = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*\(")


def functions(path):
    """(name, body lines) of each function defined at file scope: a line '{' or one ending in ') {' at
    column 0 after its signature, closed by '}' at column 0."""
    lines = open(path, encoding="utf-8").read().split("\n")
    sig = []
    for i, line in enumerate(lines):
        if line.startswith("{") and sig:
            start, text = i, " ".join(sig)
        elif line and not line[0].isspace() and line.rstrip().endswith(") {") and "=" not in line:
            start, text = i, line
        else:
            if line and not line[0].isspace() and not line.startswith(("}", "#", "/", "*")):
                sig = sig + [line] if sig and not sig[-1].rstrip().endswith(";") else [line]
            elif not line.strip() or line.startswith(("#", "}")):
                sig = []
            continue
        sig = []
        m = None
        for m in NAME.finditer(text.split("(")[0] + "("):
            pass
        end = next((j for j in range(start + 1, len(lines)) if lines[j].startswith("}")), None)
        if m and end is not None:
            yield m.group(1), end - start - 1


def main(root):
    allow = {}
    with open(os.path.join(root, "tests/function-length.allow"), encoding="utf-8") as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                key, _, reason = line.partition(" ")
                if not reason.strip():
                    print("tests/function-length.allow: %s has no reason" % key)
                    return 1
                allow[key] = reason.strip()
    long_ones, bad = set(), 0
    for top in DIRS:
        for d, _, files in sorted(os.walk(os.path.join(root, top))):
            for name in sorted(files):
                if not name.endswith(".c"):
                    continue
                path = os.path.join(d, name)
                rel = os.path.relpath(path, root)
                for fn, n in functions(path):
                    if n <= LIMIT:
                        continue
                    key = "%s:%s" % (rel, fn)
                    long_ones.add(key)
                    if key not in allow:
                        print("%s: %d lines, over %d (house style 9): split it, or name it in "
                              "tests/function-length.allow with the reason" % (key, n, LIMIT))
                        bad += 1
    for key in sorted(set(allow) - long_ones):
        print("tests/function-length.allow: %s is no longer over %d lines (or gone): remove the entry" % (key, LIMIT))
        bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))
