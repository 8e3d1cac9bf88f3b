"""The README's Python blocks run as written: each block, unchanged, in a fresh
interpreter, and what it prints is what its comments say. Every ```python block
of the README is one of these (a new one fails until it has its check here)."""
import os
import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def python_blocks():
    """{section heading: its ```python block} for every block in the README."""
    blocks = {}
    heading = None
    for part in re.split(r"^(### .*)$", README.read_text(), flags=re.M):
        if part.startswith("### "):
            heading = part[4:].strip()
            continue
        for block in re.findall(r"^```python\n(.*?)^```", part, flags=re.S | re.M):
            assert heading not in blocks, f"README: two ```python blocks under '### {heading}'"
            blocks[heading] = block
    return blocks


def run_block(code, tmp_path):
    script = tmp_path / "readme_example.py"
    script.write_text(code)
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=600,
                         env=dict(os.environ), cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    return out.stdout.splitlines()


def test_every_python_block_is_checked():
    assert set(python_blocks()) == {"From Python", "From PyTorch"}


def test_readme_python_section_runs_as_written(tmp_path):
    lines = run_block(python_blocks()["From Python"], tmp_path)
    # The lines the block's comments announce, in order.
    assert lines[0] == "netcl.Shape((1, 32, 32, 32)) float32", lines[0]
    assert lines[1].startswith("CONV2D_"), lines[1]  # last_plan: what ran and why
    assert "CONV2D_WINOGRAD" in lines, lines
    assert "CONV2D_NAIVE" in lines, lines
    assert any(l.startswith("(1, 16, 32, 32) (32, 16, 3, 3) (32,) ") for l in lines), lines  # the gradients' shapes
    assert lines[-1] == "True", lines  # the PyOpenCL buffer's result equals the Tensor path's


def test_readme_pytorch_section_runs_as_written(tmp_path):
    lines = run_block(python_blocks()["From PyTorch"], tmp_path)
    assert lines == ["torch.Size([1, 1000])", "20", "torch.Size([2, 3, 16, 16]) torch.Size([8, 3, 3, 3])"], lines


def test_every_relative_link_of_the_front_page_and_its_topic_documents_resolves():
    """The README links its topic documents, and they link each other: none may point nowhere."""
    root = README.parent
    documents = [README] + [root / p for p in re.findall(r"\]\(([^)#]+\.md)\)", README.read_text())]
    for doc in documents:
        assert doc.exists(), f"README links {doc.relative_to(root)}, which does not exist"
        for target in re.findall(r"\]\(([^)#:]+)\)", doc.read_text()):
            assert (doc.parent / target).exists(), f"{doc.relative_to(root)} links {target}, which does not exist"
