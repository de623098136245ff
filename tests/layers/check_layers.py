#!/usr/bin/env python3
"""Checks that framework/src keeps the layering the README's table states.

    check_layers.py README.md framework/src      exit 0, or 1 listing each include across layers the wrong way
    check_layers.py --self-test                   the check itself, on a made-up tree with a bad include

The table is the one under the README heading "libmosaic's layers": one row per folder of
framework/src, its last column the folders its files may include (besides its own). Every folder
of framework/src must have a row, and every quoted include "folder/file" is checked against it.
"""
import os
import re
import sys
import tempfile

HEADING = "libmosaic's layers"
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/[^"]+"', re.M)


def read_rules(readme):
    """{folder: set of folders it may include}, from the README's table."""
    text = open(readme, encoding="utf-8").read()
    at = text.find(HEADING)
    if at < 0:
        raise SystemExit(f"{readme}: no heading '{HEADING}' (the layer table this test checks)")
    rules = {}
    for line in text[at:].splitlines()[1:]:
        if rules and not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        folder = re.fullmatch(r"`([a-z_]+)/`", cells[0]) if cells else None
        if not folder:
            continue
        rules[folder.group(1)] = set(re.findall(r"`([a-z_]+)/`", cells[-1]))
    if not rules:
        raise SystemExit(f"{readme}: the table under '{HEADING}' has no rows of the form | `folder/` | ... | `may/`, `include/` |")
    return rules


def check(rules, src):
    problems = []
    folders = sorted(d for d in os.listdir(src) if os.path.isdir(os.path.join(src, d)))
    for folder in folders:
        if folder not in rules:
            problems.append(f"{src}/{folder}/ has no row in the README's layer table; add one saying what it may include")
    for folder in folders:
        allowed = rules.get(folder, set()) | {folder}
        for dirpath, _, files in os.walk(os.path.join(src, folder)):
            for name in sorted(files):
                if not name.endswith((".cpp", ".hpp", ".h")):
                    continue
                path = os.path.join(dirpath, name)
                text = open(path, encoding="utf-8").read()
                for m in INCLUDE.finditer(text):
                    target = m.group(1)
                    if target in rules and target not in allowed:
                        line = text.count("\n", 0, m.start()) + 1
                        problems.append(f"{path}:{line}: {folder}/ includes {target}/, which the README's layer "
                                        f"table does not allow ({folder}/ may include: "
                                        f"{', '.join(sorted(allowed - {folder})) or 'nothing else'})")
    return problems


def self_test():
    with tempfile.TemporaryDirectory() as tmp:
        readme = os.path.join(tmp, "README.md")
        open(readme, "w").write(f"## {HEADING}\n\n| folder | holds | may include |\n| --- | --- | --- |\n"
                                "| `low/` | x | |\n| `high/` | y | `low/` |\n\nafter\n")
        src = os.path.join(tmp, "src")
        for folder, include in [("low", "low/a.hpp"), ("high", "low/a.hpp")]:
            os.makedirs(os.path.join(src, folder))
            open(os.path.join(src, folder, "a.hpp"), "w").write(f'#include "{include}"\n')
        rules = read_rules(readme)
        assert rules == {"low": set(), "high": {"low"}}, rules
        assert check(rules, src) == [], check(rules, src)
        open(os.path.join(src, "low", "b.cpp"), "w").write('// up the wrong way\n#include "high/a.hpp"\n')
        problems = check(rules, src)
        assert len(problems) == 1 and "low/b.cpp:2: low/ includes high/" in problems[0], problems
        os.makedirs(os.path.join(src, "stray"))
        assert any("stray/ has no row" in p for p in check(rules, src))
    print("self-test passed: a clean tree passes, an include up the layers and a folder without a row fail")


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        self_test()
        sys.exit(0)
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    problems = check(read_rules(sys.argv[1]), sys.argv[2])
    for p in problems:
        print(p)
    print(f"{len(problems)} include(s) across layers the wrong way" if problems else "layers respected")
    sys.exit(1 if problems else 0)
