"""docs/python.md's tutorial runs as written: its ```python blocks, in order, in one namespace,
from the repository's root (the blocks assert what they claim)."""

import os
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_the_tutorial_runs(capsys):
    text = (ROOT / "docs/python.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert len(blocks) >= 5
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        namespace = {"__name__": "tutorial"}
        for block in blocks:
            exec(compile(block, "docs/python.md", "exec"), namespace)
    finally:
        os.chdir(cwd)
    out = capsys.readouterr().out
    assert "(6, 256, 256) uint16 TYX" in out
    assert "stopped:" in out
