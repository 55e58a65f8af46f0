"""The layering of the code (README "Code layout"), checked on the real import graph.

    config (settings, queues, the Celery app)
      <- tenancy (tenants and the data every layer reads about them; the tenant scoping of every model)
        <- core (errors, dispatch, job ledger, heartbeat, policy, admin scoping)
          <- memory, tasks, webhooks, usage, tools
            <- assistants (the chat turn)
              <- api, web
                <- mcp_api
                  <- config.urls, config.asgi, config.wsgi (the wiring)

A module imports only from its own layer or the layers below it; no two modules import each other, directly or
round a longer loop; a job module is imported by no service (a service sends a job by its name through
core.dispatch). grimp (the engine of import-linter) reads every import statement, the ones inside functions and
under TYPE_CHECKING included: an import moved into a function to dodge a cycle is still a cycle.

The same, one level up, between the top-level folders (the figure issue 40 set): a folder imports only folders
below it, but for config's wiring modules, which sit at the top although their folder sits at the bottom; and no
two folders import each other (the wiring's imports aside: config is the bottom and the top at once).
"""

from __future__ import annotations

from pathlib import Path

import grimp
import pytest
from django.apps import apps
from django.conf import settings

# Bottom first. A module belongs to the layer of the longest prefix that names it.
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("config", ("config",)),
    ("tenancy", ("tenancy",)),
    ("core", ("core",)),
    ("memory, tasks, webhooks, usage, tools", ("memory", "tasks", "webhooks", "usage", "tools")),
    ("assistants (the chat turn)", ("assistants",)),
    ("api, web", ("api", "web")),
    ("mcp_api", ("mcp_api",)),
    ("wiring", ("config.urls", "config.asgi", "config.wsgi")),
]
PACKAGES = sorted({prefix.split(".")[0] for _layer, prefixes in LAYERS for prefix in prefixes})
WIRING = LAYERS[-1][1]
# The folder-level arrows that may go up: the wiring's (config.urls, config.asgi) into the folders it serves.
MAX_WIRING_ARROWS = 4

# Cycles known and owned by another change, each with who removes it. The test fails when one of them is gone
# (delete its entry) as much as when a new one appears.
# Cycles accepted for now, each with the reason; the test fails when one is gone so that its entry is removed.
KNOWN_CYCLES: dict[frozenset[str], str] = {}


def layer_of(module: str) -> int:
    """The index in LAYERS of `module` (longest matching prefix wins)."""
    best, best_len = -1, -1
    for index, (_name, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best_len:
                best, best_len = index, len(prefix)
    if best < 0:
        raise LookupError(f"{module} is in no layer: add it to LAYERS (tests/foundation/test_layers.py).")
    return best


def upward_imports(graph: grimp.ImportGraph) -> list[str]:
    """Every import from a module into a module of a higher layer, as 'importer:line -> imported (layers)'."""
    found = []
    for importer in sorted(graph.modules):
        for imported in sorted(graph.find_modules_directly_imported_by(importer)):
            low, high = layer_of(importer), layer_of(imported)
            if high > low:
                lines = sorted(d["line_number"] for d in graph.get_import_details(importer=importer, imported=imported))
                found.append(
                    f"{importer}:{','.join(map(str, lines))} -> {imported} ({LAYERS[low][0]} imports {LAYERS[high][0]})"
                )
    return found


def import_cycles(graph: grimp.ImportGraph) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative): each is a set of modules
    that import each other, directly or round a loop."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    cycles: list[frozenset[str]] = []
    counter = 0
    for root in sorted(graph.modules):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.find_modules_directly_imported_by(child)))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    cycles.append(frozenset(component))
    return cycles


def job_module_imports(graph: grimp.ImportGraph) -> list[str]:
    """Imports of a job module (`<app>.jobs`) by anything but another job module."""
    return sorted(
        f"{importer} -> {imported}"
        for imported in graph.modules
        if imported.rsplit(".", 1)[-1] == "jobs"
        for importer in graph.find_modules_that_directly_import(imported)
        if importer.rsplit(".", 1)[-1] != "jobs"
    )


def folder_imports(graph: grimp.ImportGraph) -> dict[tuple[str, str], list[str]]:
    """Every import between two top-level folders, as {(importer folder, imported folder): ['module -> module']}.
    The wiring modules count as the folder "config (wiring)"."""
    found: dict[tuple[str, str], list[str]] = {}
    for importer in sorted(graph.modules):
        for imported in sorted(graph.find_modules_directly_imported_by(importer)):
            a, b = _folder(importer), _folder(imported)
            if a != b and b != "config (wiring)":
                found.setdefault((a, b), []).append(f"{importer} -> {imported}")
    return found


def _folder(module: str) -> str:
    if any(module == w or module.startswith(w + ".") for w in WIRING):
        return "config (wiring)"
    return module.split(".")[0]


def upward_folder_imports(graph: grimp.ImportGraph) -> list[str]:
    """The folder-level arrows from a folder into a folder of a higher layer, the folder being where its name sits
    in LAYERS (config at the bottom, its wiring included), as 'a -> b'."""
    return sorted(f"{a} -> {b}" for a, b in folder_imports(graph) if layer_of(b) > layer_of(a.split(" ")[0]))


def mutual_folders(graph: grimp.ImportGraph) -> list[str]:
    """The pairs of folders that import each other, as 'a <-> b'."""
    pairs = folder_imports(graph)
    return sorted(f"{a} <-> {b}" for a, b in pairs if a < b and (b, a) in pairs)


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph(*PACKAGES, cache_dir=None)


def test_every_project_app_is_in_a_layer():
    root = Path(settings.BASE_DIR).resolve()
    project_apps = sorted(a.name for a in apps.get_app_configs() if Path(a.path).resolve().parent == root)
    assert project_apps, "no project app found under BASE_DIR"
    for name in project_apps:
        layer_of(name)  # raises with the sentence saying what to do


def test_no_import_goes_up_a_layer(graph):
    assert upward_imports(graph) == []


def test_no_two_modules_import_each_other(graph):
    cycles = import_cycles(graph)
    new = [sorted(c) for c in cycles if c not in KNOWN_CYCLES]
    assert new == [], "import cycles (a service dispatches a job by name; a shared type gets its own module)"
    gone = [sorted(c) for c in KNOWN_CYCLES if c not in cycles]
    assert gone == [], "these known cycles are gone: delete them from KNOWN_CYCLES"


def test_folders_import_downwards_but_for_the_wiring(graph):
    arrows = upward_folder_imports(graph)
    not_wiring = [a for a in arrows if not a.startswith("config (wiring) ")]
    assert not_wiring == [], [folder_imports(graph)[tuple(a.split(" -> "))] for a in not_wiring]
    assert len(arrows) <= MAX_WIRING_ARROWS, arrows


def test_no_two_folders_import_each_other(graph):
    assert mutual_folders(graph) == [], "two folders import each other: one of them must not know the other"


def test_no_service_imports_a_job_module(graph):
    assert job_module_imports(graph) == []


def test_the_checks_see_what_they_must_refuse():
    """The rules above, on a small graph holding one of each fault: an upward import, a pair, a longer loop, a
    service importing a job module, two folders importing each other; and a module of no layer is refused. The
    wiring may import upwards, and its imports make no pair with config."""
    g = grimp.ImportGraph()
    for module in (
        "core.ledger",
        "core.policy",
        "memory.services.a",
        "memory.services.b",
        "memory.services.c",
        "memory.jobs",
        "assistants.services.chat",
        "tenancy.models",
        "tasks.x",
        "tasks.y",
        "tasks.z",
        "webhooks.services",
        "config.urls",
        "config.queues",
    ):
        g.add_module(module)
    g.add_import(importer="core.ledger", imported="assistants.services.chat", line_number=3, line_contents="")
    g.add_import(importer="core.policy", imported="tenancy.models", line_number=1, line_contents="")
    g.add_import(importer="memory.services.a", imported="memory.services.b", line_number=1, line_contents="")
    g.add_import(importer="memory.services.b", imported="memory.services.a", line_number=1, line_contents="")
    g.add_import(importer="memory.services.c", imported="memory.jobs", line_number=1, line_contents="")
    g.add_import(importer="memory.jobs", imported="memory.services.c", line_number=1, line_contents="")
    for importer, imported in (("tasks.x", "tasks.y"), ("tasks.y", "tasks.z"), ("tasks.z", "tasks.x")):
        g.add_import(importer=importer, imported=imported, line_number=1, line_contents="")
    g.add_import(importer="memory.services.a", imported="webhooks.services", line_number=1, line_contents="")
    g.add_import(importer="webhooks.services", imported="memory.services.c", line_number=1, line_contents="")
    g.add_import(importer="config.urls", imported="core.ledger", line_number=1, line_contents="")
    g.add_import(importer="core.ledger", imported="config.queues", line_number=1, line_contents="")
    assert upward_imports(g) == [
        "core.ledger:3 -> assistants.services.chat (core imports assistants (the chat turn))"
    ]  # core.policy -> tenancy.models goes down; the wiring's config.urls -> core.ledger goes down from the top
    assert sorted(map(sorted, import_cycles(g))) == [
        ["memory.jobs", "memory.services.c"],
        ["memory.services.a", "memory.services.b"],
        ["tasks.x", "tasks.y", "tasks.z"],
    ]
    assert upward_folder_imports(g) == ["config (wiring) -> core", "core -> assistants"]
    assert mutual_folders(g) == ["memory <-> webhooks"]
    assert job_module_imports(g) == ["memory.services.c -> memory.jobs"]
    with pytest.raises(LookupError):
        layer_of("bench.run")
