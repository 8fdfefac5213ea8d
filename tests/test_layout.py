"""The source layout rules of issues 15 and 26, checked so that CI fails when
they break.

- src/ holds module.c and a folder per layer of docs/design.md; a file uses
  (includes, or calls) files of its own folder and of the layers below it
  only, never one above: LAYERS, lowest first.
- No file in src/, kernels/ or bench/ is over 800 lines.
- No cycle of files that include each other: the graph of `#include "x.h"`
  edges between the files of src/ and kernels/ (a quoted name is looked up
  next to the including file, then in src/ and kernels/, as the compiler's
  -Isrc -Ikernels do).
- No cycle of files that call each other: each .c of src/ is compiled to an
  object file, `nm` lists the symbols it defines and the ones it uses, and
  file A depends on file B when A uses a symbol that B defines.  A strongly
  connected component of more than one file is a cycle.

The compile uses the system C compiler (`cc`) with the Python headers, and
with -DDEVARRAY_HAVE_CUDA and the CUDA headers when they are found (as
tests/lint.sh finds them), so the CUDA branches' calls count too.  Without
`cc` or `nm` that test is skipped; CI has both.  The tests below the rules
feed the checks small graphs and trees with known cycles, so that a check
that can no longer fail is noticed.

    python -m pytest -q tests/test_layout.py
"""

import os
import re
import shlex
import shutil
import subprocess
import sysconfig
from concurrent.futures import ThreadPoolExecutor

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCE_DIRS = ("src", "kernels")
# the folders whose files MAX_LINES limits: the C sources and the benchmarks
LINE_LIMIT_DIRS = SOURCE_DIRS + ("bench",)
MAX_LINES = 800

INCLUDE_RE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.MULTILINE)

# The layers, lowest first (docs/design.md): the kernels and their launcher
# interface; dtypes and errors; the kernels' host twins; CUDA, devices,
# streams, memory and backends; the array object and the machinery of
# elementwise ops, reductions, copies and views; conversions and exchange;
# the array API's functions; the type's tables and the Python types; and
# src/ itself, the module init.
LAYERS = ("kernels", "src/base", "src/host", "src/runtime", "src/core", "src/interop",
          "src/ops", "src/api", "src")


# ---- the checks, as functions of plain data ---------------------------------


def strongly_connected_components(graph):
    """Tarjan's algorithm, iterative.  `graph` maps node -> iterable of nodes;
    nodes that appear only as targets count too.  Returns a list of sets."""
    nodes = set(graph)
    for targets in graph.values():
        nodes.update(targets)
    index, low, on_stack, stack, components = {}, {}, set(), [], []
    counter = 0
    for root in sorted(nodes):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.add(member)
                        if member == node:
                            break
                    components.append(component)
            elif child not in index:
                index[child] = low[child] = counter
                counter += 1
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(graph.get(child, ())))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return components


def cyclic_components(graph):
    """The strongly connected components of `graph` that hold a cycle: more
    than one node, or one node with an edge to itself.  Sorted lists, in
    sorted order, so reports are stable."""
    found = []
    for component in strongly_connected_components(graph):
        node = min(component)
        if len(component) > 1 or node in graph.get(node, ()):
            found.append(sorted(component))
    return sorted(found)


def closed_path(graph, component):
    """A shortest cycle through the first node of `component`, found breadth
    first inside it: [a, b, ..., a]."""
    start = component[0]
    members = set(component)
    parent = {start: None}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for child in sorted(graph.get(node, ())):
                if child == start:
                    path = [start]
                    while node is not None:
                        path.append(node)
                        node = parent[node]
                    return path[::-1]
                if child in members and child not in parent:
                    parent[child] = node
                    following.append(child)
        frontier = following
    raise AssertionError("no cycle through %r in %r" % (start, component))


def describe_cycles(graph, why=None):
    """A failure message for the cycles of `graph` ("" when there are none):
    per cyclic component its files, one cycle through it (a -> b -> a), and
    every edge between its files, with `why[(a, b)]` (e.g. the symbols used)
    when given."""
    lines = []
    for component in cyclic_components(graph):
        members = set(component)
        count = "1 file" if len(component) == 1 else "%d files" % len(component)
        lines.append("in a circle (%s): %s" % (count, ", ".join(component)))
        lines.append("  a cycle: " + " -> ".join(closed_path(graph, component)))
        lines.append("  every edge among them:")
        for a in component:
            for b in sorted(set(graph.get(a, ())) & members):
                reason = ""
                if why is not None and (a, b) in why:
                    names = sorted(why[(a, b)])
                    reason = "  uses " + ", ".join(names[:6])
                    if len(names) > 6:
                        reason += ", ... (%d in all)" % len(names)
                lines.append("    %s -> %s%s" % (a, b, reason))
    return "\n".join(lines)


def include_graph(root):
    """file -> set of files it includes, for the files of src/ and kernels/, as
    paths relative to `root`."""
    graph = {}
    for name in _source_files(root):
        if name.startswith("src/") and not name.endswith((".c", ".h")):
            continue
        with open(os.path.join(root, name), encoding="utf-8", errors="replace") as f:
            text = f.read()
        edges = set()
        for included in INCLUDE_RE.findall(text):
            target = _resolve_include(root, name, included)
            if target is not None:
                edges.add(target)
        graph[name] = edges
    return graph


def _resolve_include(root, including, included):
    candidates = [os.path.dirname(including)] + list(SOURCE_DIRS)
    for directory in candidates:
        path = os.path.normpath(os.path.join(directory, included))
        inside = path.split(os.sep)[0] in SOURCE_DIRS
        if inside and os.path.isfile(os.path.join(root, path)):
            return path.replace(os.sep, "/")
    return None


def _source_files(root, tops=SOURCE_DIRS):
    """Every file under the folders `tops` (SOURCE_DIRS unless said), as
    sorted relative paths."""
    names = []
    for top in tops:
        for directory, subdirs, files in os.walk(os.path.join(root, top)):
            subdirs[:] = sorted(d for d in subdirs if not d.startswith((".", "__")))
            for file in files:
                if not file.startswith("."):
                    path = os.path.relpath(os.path.join(directory, file), root)
                    names.append(path.replace(os.sep, "/"))
    return sorted(names)


def parse_nm(output):
    """(defined, undefined) external symbols from `nm -g -P` output."""
    defined, undefined = set(), set()
    for line in output.splitlines():
        fields = line.split()
        if len(fields) < 2:
            continue
        name, kind = fields[0], fields[1]
        if kind in ("U", "w", "v"):
            undefined.add(name)
        elif kind.isupper():
            defined.add(name)
    return defined, undefined


def call_graph(symbols):
    """`symbols` maps file -> (defined, undefined).  Returns (graph, why):
    file -> set of files defining a symbol it uses, and (a, b) -> the
    symbols behind the edge."""
    owner = {}
    for name, (defined, _) in symbols.items():
        for symbol in defined:
            owner.setdefault(symbol, set()).add(name)
    graph = {name: set() for name in symbols}
    why = {}
    for name, (_, undefined) in symbols.items():
        for symbol in undefined:
            for target in owner.get(symbol, ()):
                if target != name:
                    graph[name].add(target)
                    why.setdefault((name, target), set()).add(symbol)
    return graph, why


def layer_of(path):
    """The folder of `path` (src/core/array.c -> src/core), as LAYERS names it."""
    return os.path.dirname(path) or path


def upward_edges(graph, layers=LAYERS):
    """The edges of `graph` (file -> files it uses) from a layer to a higher
    one, sorted: [(a, b), ...]."""
    rank = {layer: i for i, layer in enumerate(layers)}
    return sorted((a, b) for a, targets in graph.items() for b in targets
                  if rank[layer_of(b)] > rank[layer_of(a)])


def describe_upward(edges, why=None):
    lines = []
    for a, b in edges:
        reason = ""
        if why is not None and (a, b) in why:
            names = sorted(why[(a, b)])
            reason = "  uses " + ", ".join(names[:6]) + (
                ", ... (%d in all)" % len(names) if len(names) > 6 else "")
        lines.append("    %s (%s) -> %s (%s)%s" % (a, layer_of(a), b, layer_of(b), reason))
    return "\n".join(lines)


# ---- compiling for the call graph -------------------------------------------


def _cuda_include():
    """The CUDA include directory, found as tests/lint.sh finds it, or None."""
    homes = [os.environ.get("CUDA_HOME", ""), os.environ.get("CUDA_PATH", ""),
             "/usr/local/cuda"]
    for home in homes:
        if home and os.path.isfile(os.path.join(home, "include", "cuda_runtime_api.h")):
            return os.path.join(home, "include")
    nvcc = shutil.which("nvcc")
    if nvcc is not None:
        home = os.path.dirname(os.path.dirname(os.path.realpath(nvcc)))
        if os.path.isfile(os.path.join(home, "include", "cuda_runtime_api.h")):
            return os.path.join(home, "include")
    return None


def _require_tools():
    for tool in ("cc", "nm"):
        if shutil.which(tool) is None:
            pytest.skip("the call-graph check needs `%s`, which is not installed"
                        % tool)


def compile_symbols(root, sources, out_dir, flags):
    """Compile each of `sources` (paths relative to `root`) into `out_dir`,
    two at a time, and return file -> (defined, undefined) from nm."""

    def one(source):
        obj = os.path.join(out_dir, source.replace("/", "_") + ".o")
        # -O0: the quickest compile, and every call stays a call
        command = ["cc", "-c", "-std=c11", "-O0", *flags, source, "-o", obj]
        done = subprocess.run(command, cwd=root, capture_output=True, text=True)
        if done.returncode != 0:
            return source, None, "%s\n%s" % (shlex.join(command), done.stderr)
        listed = subprocess.run(["nm", "-g", "-P", obj], capture_output=True, text=True)
        if listed.returncode != 0:
            return source, None, "nm %s\n%s" % (obj, listed.stderr)
        return source, parse_nm(listed.stdout), None

    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(one, sources))
    failures = [error for _, _, error in results if error is not None]
    if failures:
        pytest.fail("could not compile for the call-graph check:\n"
                    + "\n".join(failures), pytrace=False)
    return {source: symbols for source, symbols, _ in results}


# ---- the rules on this tree -------------------------------------------------


def test_no_source_file_over_800_lines():
    counts = {}
    for name in _source_files(ROOT, LINE_LIMIT_DIRS):
        with open(os.path.join(ROOT, name), "rb") as f:
            counts[name] = f.read().count(b"\n")
    offenders = {name: n for name, n in counts.items() if n > MAX_LINES}
    largest_first = sorted(offenders.items(), key=lambda item: (-item[1], item[0]))
    if offenders:
        pytest.fail("files over %d lines in %s (split them by concern):\n"
                    % (MAX_LINES, ", ".join(d + "/" for d in LINE_LIMIT_DIRS))
                    + "\n".join("    %s: %d lines" % item for item in largest_first),
                    pytrace=False)


def test_include_graph_has_no_cycle():
    graph = include_graph(ROOT)
    if cyclic_components(graph):
        pytest.fail("files in src/ and kernels/ that include each other in a "
                    "circle:\n" + describe_cycles(graph), pytrace=False)


def test_every_folder_is_a_layer():
    folders = {layer_of(name) for name in _source_files(ROOT)}
    assert folders <= set(LAYERS), (
        "folders that are no layer of tests/test_layout.py's LAYERS (place them "
        "among the layers there and in docs/design.md): %s" % sorted(folders - set(LAYERS)))
    assert not [name for name in _source_files(ROOT)
                if layer_of(name) == "src" and name != "src/module.c"], \
        "only module.c lives in src/ itself; other files go in a layer's folder"


def test_include_graph_points_down():
    graph = include_graph(ROOT)
    edges = upward_edges(graph)
    if edges:
        pytest.fail("includes from a layer to a higher one (LAYERS, lowest first: %s):\n"
                    % ", ".join(LAYERS) + describe_upward(edges), pytrace=False)


@pytest.fixture(scope="module")
def calls(tmp_path_factory):
    """(graph, why) of the src/ .c files' calls, compiled once."""
    _require_tools()
    python_include = sysconfig.get_paths()["include"]
    flags = ["-Isrc", "-Ikernels", "-I" + python_include]
    cuda_include = _cuda_include()
    if cuda_include is not None:
        flags += ["-DDEVARRAY_HAVE_CUDA", "-I" + cuda_include]
    sources = [name for name in _source_files(ROOT)
               if name.startswith("src/") and name.endswith(".c")]
    out = str(tmp_path_factory.mktemp("layout-objects"))
    return call_graph(compile_symbols(ROOT, sources, out, flags))


def test_call_graph_has_no_cycle(calls):
    graph, why = calls
    if cyclic_components(graph):
        pytest.fail("src/ .c files that call each other in a circle (a lower "
                    "layer calls a higher one; move the function down, or the "
                    "caller up):\n" + describe_cycles(graph, why), pytrace=False)


def test_call_graph_points_down(calls):
    graph, why = calls
    edges = upward_edges(graph)
    if edges:
        pytest.fail("calls from a layer to a higher one (LAYERS, lowest first: %s; "
                    "move the function down, or the caller up):\n" % ", ".join(LAYERS)
                    + describe_upward(edges, why), pytrace=False)


# Paths into the tree as docs, comments and tests name them: a name of
# src/, kernels/, tests/, bench/, docs/ or examples/ up to its last word
# character, not part of a longer path, or such a name after `../`s (a
# link relative to the naming file).
PATH_RE = re.compile(
    r"(?<![\w/.])((?:\.\./)*(?:src|kernels|tests|bench|docs|examples)/[\w./-]*\w)")
# files whose paths are examples, not the tree's
PATH_EXAMPLES = ("tests/test_layout.py", "tests/test_docs.py")


def missing_paths(root, names):
    """(file, path) for each path PATH_RE finds in `names` (files relative to
    root) that exists neither from the root nor beside the file; a glob
    (the path followed by `*` or `{`) is not a path."""
    missing = []
    for name in names:
        with open(os.path.join(root, name), encoding="utf-8", errors="replace") as f:
            text = f.read()
        for match in PATH_RE.finditer(text):
            path = match.group(1)
            if text[match.end():match.end() + 1] in ("*", "{"):
                continue
            beside = os.path.exists(os.path.join(root, os.path.dirname(name), path))
            if not (beside or (not path.startswith("../") and
                               os.path.exists(os.path.join(root, path)))):
                missing.append((name, path))
    return missing


def test_paths_named_in_the_tree_exist():
    """Every path into src/, kernels/, tests/, bench/, docs/ and examples/ that
    the docs, README, comments and tests name exists (after a file moves, its
    old path is found here)."""
    listed = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True)
    if listed.returncode != 0:
        pytest.skip("not a git checkout: " + listed.stderr.strip())
    names = [n for n in listed.stdout.split()
             if n.endswith((".md", ".py", ".pyi", ".c", ".h", ".cu", ".cuh", ".sh", ".toml"))
             and n not in PATH_EXAMPLES and os.path.exists(os.path.join(ROOT, n))]
    names.append(".ci/run")
    missing = missing_paths(ROOT, names)
    assert not missing, "paths that do not exist:\n" + "\n".join(
        "    %s: %s" % item for item in missing)


# ---- the checks can fail ----------------------------------------------------


def test_missing_paths_are_found(tmp_path):
    (tmp_path / "src" / "core").mkdir(parents=True)
    (tmp_path / "src" / "core" / "array.c").write_text("")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text(
        "see src/core/array.c and src/array.c, the src/host/host_*.c files, "
        "kernels/reduce_{sum,prod}.cu, ../src/core/array.c and ../src/array.c")
    assert missing_paths(str(tmp_path), ["docs/a.md"]) == [("docs/a.md", "src/array.c"),
                                                           ("docs/a.md", "../src/array.c")]


def test_upward_edges_are_found():
    graph = {"src/core/a.c": {"src/runtime/b.h", "src/core/c.h"},
             "src/runtime/b.h": {"src/api/d.h", "kernels/e.h"},
             "src/api/d.h": {"src/core/a.c"}, "kernels/e.h": set(),
             "src/module.c": {"src/api/d.h"}}
    assert upward_edges(graph) == [("src/runtime/b.h", "src/api/d.h")]
    assert "src/runtime/b.h (src/runtime) -> src/api/d.h (src/api)" in describe_upward(
        upward_edges(graph))


def test_cycle_detector_finds_cycles():
    graph = {
        "a": {"b"},
        "b": {"c"},
        "c": {"a", "d"},
        "d": {"e"},
        "e": set(),
        "f": {"f"},
        "g": {"h"},
        "h": {"g", "e", "i"},
        "i": {"a", "h"},
    }
    assert cyclic_components(graph) == [["a", "b", "c"], ["f"], ["g", "h", "i"]]
    assert closed_path(graph, ["a", "b", "c"]) == ["a", "b", "c", "a"]
    assert closed_path(graph, ["f"]) == ["f", "f"]
    assert closed_path(graph, ["g", "h", "i"]) == ["g", "h", "g"]
    message = describe_cycles(graph)
    assert "in a circle (3 files): a, b, c\n  a cycle: a -> b -> c -> a" in message
    assert "in a circle (1 file): f\n  a cycle: f -> f" in message
    assert message.endswith("    h -> i\n    i -> h")
    assert "c -> d" not in message and "h -> e" not in message


def test_cycle_detector_passes_a_dag():
    graph = {"a": {"b", "c"}, "b": {"c"}, "c": {"d"}, "d": set()}
    assert cyclic_components(graph) == []
    assert describe_cycles(graph) == ""
    assert len(strongly_connected_components(graph)) == 4


def test_include_graph_resolves_and_finds_a_cycle(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "kernels").mkdir()
    (tmp_path / "src" / "a.h").write_text('#include "b.h"\n')
    (tmp_path / "src" / "b.h").write_text(
        '#include "../kernels/k.h"\n#include <stdio.h>\n')
    (tmp_path / "kernels" / "k.h").write_text('#include "a.h"  /* found in src/ */\n')
    (tmp_path / "src" / "a.c").write_text('#include "a.h"\n#include "missing.h"\n')
    graph = include_graph(str(tmp_path))
    assert graph == {
        "src/a.c": {"src/a.h"},
        "src/a.h": {"src/b.h"},
        "src/b.h": {"kernels/k.h"},
        "kernels/k.h": {"src/a.h"},
    }
    assert cyclic_components(graph) == [["kernels/k.h", "src/a.h", "src/b.h"]]


def test_call_graph_finds_a_cycle(tmp_path):
    _require_tools()
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.c").write_text(
        "int b_value(void);\nint a_value(void) { return 1; }\n"
        "int a_twice(void) { return 2 * b_value(); }\n")
    (tmp_path / "src" / "b.c").write_text(
        "int a_value(void);\nint b_value(void) { return a_value() + 1; }\n")
    (tmp_path / "src" / "c.c").write_text(
        "int a_value(void);\nint c_value(void) { return a_value(); }\n")
    out = tmp_path / "obj"
    out.mkdir()
    sources = ["src/a.c", "src/b.c", "src/c.c"]
    symbols = compile_symbols(str(tmp_path), sources, str(out), [])
    graph, why = call_graph(symbols)
    assert graph == {
        "src/a.c": {"src/b.c"},
        "src/b.c": {"src/a.c"},
        "src/c.c": {"src/a.c"},
    }
    assert cyclic_components(graph) == [["src/a.c", "src/b.c"]]
    message = describe_cycles(graph, why)
    assert "src/a.c -> src/b.c  uses b_value" in message
    assert "src/b.c -> src/a.c  uses a_value" in message
