"""The README's Python section runs as written: its code block, unchanged, in a
fresh interpreter, and what it prints is what its comments say."""
import os
import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def readme_python_block():
    text = README.read_text()
    section = text.split("### From Python", 1)[1]
    match = re.search(r"```python\n(.*?)```", section, re.S)
    assert match, "README: no ```python block under '### From Python'"
    return match.group(1)


def test_readme_python_section_runs_as_written(tmp_path):
    code = readme_python_block()
    script = tmp_path / "readme_example.py"
    script.write_text(code)
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=600,
                         env=dict(os.environ), cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    # The lines the block's comments announce, in order.
    assert lines[0] == "netcl.Shape((1, 32, 32, 32)) float32", lines[0]
    assert lines[1].startswith("CONV2D_"), lines[1]  # last_plan: what ran and why
    assert "CONV2D_WINOGRAD" in lines, out.stdout
    assert "CONV2D_NAIVE" in lines, out.stdout
    assert "(1, 16, 32, 32) (32, 16, 3, 3) (32,) naive" in lines, out.stdout  # the gradients' shapes and plan
    assert lines[-1] == "True", out.stdout  # the PyOpenCL buffer's result equals the Tensor path's
