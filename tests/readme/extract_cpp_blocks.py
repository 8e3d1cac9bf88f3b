#!/usr/bin/env python3
"""The README's C++ blocks as compilable functions, so they cannot go stale.

    extract_cpp_blocks.py README.md out.inc

Each `### ` section with ```cpp blocks becomes `void readme_<slug>(ReadmeFixture& fixture)`:
its blocks in order in one scope (a later block uses what an earlier one made),
between README_PROLOGUE_<slug> (the fixture's names the blocks use) and
README_EPILOGUE_<slug> (the checks on what they made), which
test_readme_cpp.cpp defines. `#include` lines go to the top of the file."""
import re
import sys


def slug(heading: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", heading.lower()).strip("_")


def main(readme: str, out: str) -> None:
    text = open(readme, encoding="utf-8").read()
    sections = {}
    heading = None
    includes = []
    for part in re.split(r"^(### .*)$", text, flags=re.M):
        if part.startswith("### "):
            heading = part[4:].strip()
            continue
        for block in re.findall(r"^```cpp\n(.*?)^```", part, flags=re.S | re.M):
            lines = block.splitlines()
            includes += [l for l in lines if l.startswith("#include")]
            body = [l for l in lines if not l.startswith("#include")]
            sections.setdefault(slug(heading or "top"), []).append("\n".join(body))
    if not sections:
        sys.exit(f"{readme}: no ```cpp blocks found")
    with open(out, "w", encoding="utf-8") as f:
        f.write(f"// Generated from {readme} by tests/readme/extract_cpp_blocks.py: do not edit.\n")
        for inc in dict.fromkeys(includes):
            f.write(inc + "\n")
        for name, blocks in sections.items():
            f.write(f"\n#define README_HAS_{name} 1\n")
            f.write(f"inline void readme_{name}(ReadmeFixture& fixture) {{\n    README_PROLOGUE_{name}\n")
            for i, b in enumerate(blocks, 1):
                f.write(f"    // ---- README block {i} of '{name}'\n{b}\n")
            f.write(f"    README_EPILOGUE_{name}\n}}\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
