#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The layering check: a file of a lower floor never includes one of a higher.

    opal/                          0  the core: utilities, classes, MCA base, datastore
    mca/<fw>/<fw>.h ...            1  a framework's interface (mca/<fw>/ has a framework.am)
    mca/<fw>/base/                 2  a framework's base
    components/<dir>/              3  components; none includes another's files
    mca/<dir>/ (not a framework)   4  above the frameworks: the runtime, the tools, QMP

Usage: layers.py TOP.  Reads every C and C++ file of those directories and
resolves its #include lines ("opal/...", <meridian/...> and names beside the
file); includes of the system or of generated files outside the tree are not
judged.  Prints one line per violation, FILE:LINE: what includes what and
why it may not, and exits 1 when there is one; 0 otherwise.
"""
import os
import re
import sys

SOURCE = re.compile(r".*\.(c|cc|h|hpp)$")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
FLOOR_NAMES = {
    0: "opal",
    1: "a framework's interface",
    2: "a framework's base",
    3: "a component",
    4: "above the frameworks",
}


def frameworks(top):
    mca = os.path.join(top, "mca")
    if not os.path.isdir(mca):
        return set()
    return {d for d in os.listdir(mca) if os.path.isfile(os.path.join(mca, d, "framework.am"))}


def place(path, known):
    """(floor, group) of a top-relative path, or None when it is not judged."""
    parts = path.split("/")
    if parts[0] == "opal":
        return 0, "opal"
    if parts[0] == "include" and len(parts) == 3 and parts[1] == "meridian":
        # rename.h and meridian_config.h are under everything; the umbrella
        # headers include everything.
        if parts[2] in ("meridian.h", "meridian.hpp"):
            return 4, "include"
        return 0, "include"
    if parts[0] == "components" and len(parts) > 2:
        return 3, "components/" + parts[1]
    if parts[0] == "mca" and len(parts) == 2:
        return 4, "mca"
    if parts[0] == "mca" and len(parts) > 2:
        if parts[1] not in known:
            return 4, "mca/" + parts[1]
        if parts[2] == "base" and len(parts) > 3:
            return 2, "mca/" + parts[1] + "/base"
        if len(parts) == 3:
            return 1, "mca/" + parts[1]
        # mca/<fw>/<other dir>/...: above the framework's base.
        return 4, "mca/" + parts[1] + "/" + parts[2]
    return None


def resolve(top, including, quote, name):
    """The top-relative path an include names, or None (system, generated)."""
    if quote == "<":
        if not name.startswith("meridian/"):
            return None
        rest = name[len("meridian/"):]
        if rest.startswith(("opal/", "mca/")):
            return rest
        return "include/meridian/" + rest
    beside = os.path.normpath(os.path.join(os.path.dirname(including), name))
    if os.path.isfile(os.path.join(top, beside)):
        return beside
    if name.startswith(("opal/", "mca/", "components/")):
        return name
    return None


def check(top):
    known = frameworks(top)
    problems = []
    for root in ("opal", "mca", "components", "include/meridian"):
        for dirpath, dirnames, filenames in os.walk(os.path.join(top, root)):
            dirnames[:] = sorted(d for d in dirnames if not os.path.islink(os.path.join(dirpath, d)))
            for filename in sorted(filenames):
                if not SOURCE.match(filename):
                    continue
                full = os.path.join(dirpath, filename)
                if os.path.islink(full):
                    continue
                path = os.path.relpath(full, top)
                here = place(path, known)
                if here is None:
                    continue
                with open(full, encoding="utf-8", errors="replace") as source:
                    for number, line in enumerate(source, 1):
                        match = INCLUDE.match(line)
                        if not match:
                            continue
                        target = resolve(top, path, match.group(1), match.group(2))
                        there = place(target, known) if target else None
                        if there is None:
                            continue
                        problem = judge(here, there)
                        if problem:
                            problems.append(
                                f"{path}:{number}: {FLOOR_NAMES[here[0]]} (floor {here[0]}) includes "
                                f"{target}, {FLOOR_NAMES[there[0]]} (floor {there[0]}): {problem}"
                            )
    return problems


def judge(here, there):
    if there[0] > here[0]:
        return "a lower floor never includes a higher one"
    if here[0] == 3 and there[0] == 3 and here[1] != there[1]:
        return "a component never includes another component's files"
    return None


def main():
    if len(sys.argv) != 2:
        print("usage: layers.py TOP", file=sys.stderr)
        return 2
    problems = check(sys.argv[1])
    for problem in sorted(problems):
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
