"""The docs hold true (issue 27): every Python block of README.md and
docs/*.md runs, and every environment variable and devarray function the
pages name exists.

A block runs as written in a fresh interpreter (on the default backend: the
host in CI, the GPU where there is one), after the code of an HTML comment
right above it that says what the page assumes, as JSON:

    <!-- test {"setup": "import numpy as np; a = np.ones(3)"} -->

Keys: "setup" (code run first), "continues" (true: the page's previous
block runs first, in the same interpreter), "needs" (modules: the block is
skipped without them, and fails under DEVARRAY_REQUIRE_GPU=1 when it is a
GPU library), "gpus" (1: a CUDA device, 2: two; skipped with fewer, failed
under DEVARRAY_REQUIRE_GPU / DEVARRAY_REQUIRE_GPUS), "raises" (the name of
the exception its last statement raises on purpose), "skip" (why it cannot
run here: a fragment of a recipe that a named test runs whole)."""

import glob
import importlib.util
import json
import os
import re
import subprocess
import sys

import pytest

import devarray
from _multigpu import need_gpus

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAGES = ["README.md"] + sorted(os.path.relpath(p, ROOT)
                               for p in glob.glob(os.path.join(ROOT, "docs", "*.md")))
BLOCK_RE = re.compile(r"(?:<!-- test (?P<directive>\{.*?\}) -->\n)?```python\n(?P<code>.*?)```",
                      re.S)
# the GPU machine has these; elsewhere their blocks skip
GPU_LIBRARIES = ("cupy", "torch", "jax", "numba")
TIMEOUT = 120


def blocks_of(page):
    """[(line, directive, code)] of the page's Python blocks, in order."""
    with open(os.path.join(ROOT, page), encoding="utf-8") as f:
        text = f.read()
    found = []
    for match in BLOCK_RE.finditer(text):
        directive = json.loads(match.group("directive") or "{}")
        unknown = set(directive) - {"setup", "continues", "needs", "gpus", "raises", "skip"}
        assert not unknown, "%s: unknown keys %s" % (page, sorted(unknown))
        line = text.count("\n", 0, match.start("code"))
        found.append((line, directive, match.group("code")))
    return found


BLOCKS = [(page, i) for page in PAGES for i in range(len(blocks_of(page)))]


def program(page, index):
    """The code that runs block `index` of `page`: its setup and, for a
    block that continues, the blocks before it."""
    blocks = blocks_of(page)
    first = index
    while first > 0 and blocks[first][1].get("continues"):
        first -= 1
    parts = []
    for line, directive, code in blocks[first:index + 1]:
        parts.append(directive.get("setup", ""))
        parts.append(code)
    return "\n".join(parts)


def _require_gpu(kind):
    return os.environ.get(kind, "") not in ("", "0")


def _need(directive):
    if "skip" in directive:
        pytest.skip(directive["skip"])
    gpus = directive.get("gpus", 0)
    if gpus >= 2:
        need_gpus(gpus)
    elif gpus == 1 and not devarray._core._cuda_available():
        if _require_gpu("DEVARRAY_REQUIRE_GPU"):
            pytest.fail("DEVARRAY_REQUIRE_GPU=1 but CUDA is not available", pytrace=False)
        pytest.skip("needs a GPU: CUDA is not available here")
    for module in directive.get("needs", ()):
        if importlib.util.find_spec(module) is None:
            if module in GPU_LIBRARIES and _require_gpu("DEVARRAY_REQUIRE_GPU"):
                pytest.fail("DEVARRAY_REQUIRE_GPU=1 but %s is not installed" % module,
                            pytrace=False)
            pytest.skip("needs %s, which is not installed" % module)


@pytest.mark.parametrize("page,index", BLOCKS,
                         ids=["%s:%d" % (p, blocks_of(p)[i][0]) for p, i in BLOCKS])
def test_block_runs(page, index):
    line, directive, code = blocks_of(page)[index]
    _need(directive)
    source = program(page, index)
    raises = directive.get("raises")
    if raises:
        # the last statement raises on purpose: run it apart and check the type
        head, _, last = source.rstrip().rpartition("\n")
        source = ("%s\ntry:\n    %s\nexcept %s:\n    pass\nelse:\n"
                  "    raise SystemExit('the last line did not raise %s')\n"
                  % (head, last, raises, raises))
    path = os.pathsep.join(p for p in (ROOT, os.environ.get("PYTHONPATH")) if p)
    env = dict(os.environ, PYTHONPATH=path, PYTHONWARNINGS="ignore",
               XLA_PYTHON_CLIENT_PREALLOCATE="false")
    done = subprocess.run([sys.executable, "-c", source], cwd=ROOT, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True, timeout=TIMEOUT)
    assert done.returncode == 0, "%s line %d:\n%s" % (page, line, done.stdout[-3000:])


# ---- names the pages use ------------------------------------------------------

ENV_RE = re.compile(r"\b(DEVARRAY_[A-Z0-9_]*[A-Z0-9])\b")
NAME_RE = re.compile(r"`(devarray(?:\.[A-Za-z_][A-Za-z0-9_]*)+)")
# `devarray.h` and the like are files
FILE_SUFFIXES = (".h", ".py", ".pyi", ".md", ".so", ".cu")
SOURCES = ("setup.py", "devarray", "src", "tests", "bench", "examples", ".ci")


def _source_text():
    texts = []
    for top in SOURCES:
        path = os.path.join(ROOT, top)
        files = [path] if os.path.isfile(path) else [
            os.path.join(d, f) for d, _, fs in os.walk(path) for f in fs
            if f.endswith((".py", ".c", ".h", ".sh", ".cu")) or f == "run"]
        for name in files:
            if os.path.basename(name) != "test_docs.py":
                with open(name, encoding="utf-8", errors="replace") as f:
                    texts.append(f.read())
    return "\n".join(texts)


def _page_texts():
    for page in PAGES + ["bench/README.md"]:
        with open(os.path.join(ROOT, page), encoding="utf-8") as f:
            yield page, f.read()


def test_environment_variables_exist():
    """Every DEVARRAY_* variable a page names is read somewhere in the code."""
    code = _source_text()
    missing = sorted({(page, name) for page, text in _page_texts()
                      for name in ENV_RE.findall(text) if name not in code})
    assert not missing, "variables the docs name that no code reads: %s" % missing


def _resolve(dotted):
    """The object `dotted` (devarray.x.y) names, importing submodules as
    needed; None when there is none."""
    parts = dotted.split(".")
    obj = importlib.import_module(parts[0])
    for i, part in enumerate(parts[1:], 1):
        if hasattr(obj, part):
            obj = getattr(obj, part)
            continue
        try:
            obj = importlib.import_module(".".join(parts[:i + 1]))
        except ImportError:
            return None
    return obj


def test_functions_named_exist():
    """Every `devarray.name` (and `devarray.module.name`) in the pages exists;
    names in devarray.dask need dask."""
    missing = []
    for page, text in _page_texts():
        for dotted in sorted(set(NAME_RE.findall(text))):
            if dotted.endswith(FILE_SUFFIXES):
                continue
            if dotted.startswith("devarray.dask") and importlib.util.find_spec("dask") is None:
                continue
            if _resolve(dotted) is None:
                missing.append((page, dotted))
    assert not missing, "names the docs use that devarray lacks: %s" % missing


LINK_RE = re.compile(r"\]\((?P<page>[\w./-]*\.md)?#(?P<anchor>[\w-]+)\)")
HEADING_RE = re.compile(r"^#{1,6} (.+)$", re.M)


def anchor_of(heading):
    """The anchor GitHub gives a heading: lower case, backticks and
    punctuation dropped, spaces to hyphens."""
    text = heading.strip().lower().replace("`", "")
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def broken_links(pages):
    """(page, link) for each `[..](page.md#anchor)` or `[..](#anchor)` in
    `pages` (name -> text) whose page has no heading with that anchor;
    pages outside `pages` are read from disk beside the linking page."""
    broken = []
    for page, text in pages.items():
        for match in LINK_RE.finditer(text):
            target = os.path.normpath(os.path.join(os.path.dirname(page), match.group("page")
                                                   or os.path.basename(page)))
            if target in pages:
                target_text = pages[target]
            elif os.path.exists(os.path.join(ROOT, target)):
                with open(os.path.join(ROOT, target), encoding="utf-8") as f:
                    target_text = f.read()
            else:
                broken.append((page, match.group(0)))
                continue
            anchors = {anchor_of(h) for h in HEADING_RE.findall(target_text)}
            if match.group("anchor") not in anchors:
                broken.append((page, match.group(0)))
    return broken


def test_links_to_headings_exist():
    """Every link to a heading (page.md#anchor) finds that heading."""
    broken = broken_links(dict(_page_texts()))
    assert not broken, "links to headings that do not exist: %s" % broken


# ---- the checks can fail -------------------------------------------------------


def test_a_broken_link_is_found():
    pages = {"docs/a.md": "# Title\n## The `x` rule (b)\nsee [r](#the-x-rule-b), "
                          "[t](a.md#title) and [gone](#nothing)\n"}
    assert broken_links(pages) == [("docs/a.md", "](#nothing)")]

def test_blocks_and_directives_are_read():
    text = ('<!-- test {"setup": "x = 1", "continues": true} -->\n'
            "```python\nprint(x)\n```\n\n```python\ny = 2\n```\n")
    found = [(m.group("directive"), m.group("code")) for m in BLOCK_RE.finditer(text)]
    assert found == [('{"setup": "x = 1", "continues": true}', "print(x)\n"),
                     (None, "y = 2\n")]


def test_a_name_devarray_lacks_is_found():
    assert _resolve("devarray.asarray") is devarray.asarray
    assert _resolve("devarray.no_such_function") is None
    assert _resolve("devarray.build.load") is not None
