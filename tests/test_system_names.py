"""No code outside a system's own folder names a system id (issue 23): what the core needs from a system is declared
on RuleSystem (die marks, group calls, odds that read the encounter, team talk, challenges…), so a new system is
one folder and one registry line. The registry (app/systems/__init__.py) is the one place that names ids.

The rule, as this test reads it:
- Python (app/): a string literal equal to a registered system id, anywhere but in app/systems/<that id>/ and the
  registry, fails — except a docstring, a dict literal's key, a subscript (`body["dice"]`) and the first argument
  of `.get(...)`: those read a record's field that happens to be spelled like an id (an entry's "dice"), never a
  system. A literal in another position that is such a field is listed in FIELDS with the reason.
- Templates and static files (templates/, static/, app/systems/<x>/templates and static): a quoted id ("art",
  'cat') or `system_data.<id>` outside that system's folder fails. Words in text (a sentence "roll the dice")
  are not quoted, so they never match.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from app.systems import FOLDERS, SYSTEMS

ROOT = Path(__file__).resolve().parent.parent
APP = ROOT / "app"
REGISTRY = APP / "systems" / "__init__.py"

# Literals that are a field of a record spelled like a system id, by file: why each is not a system id.
FIELDS: dict[tuple[str, str], str] = {
    ("app/rolls/chain.py", "dice"): "HIDDEN_FIELDS lists the entry body's fields: 'dice' is the faces rolled",
    ("app/systems/cat/templates/_narrator.html", "dice"): "the advantage form's field: how many dice",
    ("app/systems/catfight/log.py", "cat"): "a duel event's key: the cat it names",
    ("app/systems/catfight/rules/__init__.py", "dice"): "a rule error's field: the dice that stay tied",
}


def _owner(path: Path) -> str | None:
    """The system whose folder holds the file (app/systems/<id>/…), else None."""
    parts = path.relative_to(ROOT).parts
    if parts[:2] == ("app", "systems") and len(parts) > 3:
        return parts[2]
    return None


def _allowed_nodes(tree: ast.AST) -> set[int]:
    """The ids of string constants that are a docstring, a dict key, a subscript or a .get()'s first argument."""
    allowed: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                allowed.add(id(first.value))
        elif isinstance(node, ast.Dict):
            allowed.update(id(k) for k in node.keys if k is not None)
        elif isinstance(node, ast.Subscript):
            allowed.add(id(node.slice))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "get"
            and node.args
        ):
            allowed.add(id(node.args[0]))
    return allowed


def python_names(path: Path, ids: set[str]) -> Iterator[tuple[int, str]]:
    """(line, id) for each literal naming a system id in a position where it is one."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    allowed = _allowed_nodes(tree)
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and node.value in ids
            and id(node) not in allowed
        ):
            yield node.lineno, node.value


def text_names(text: str, ids: set[str]) -> Iterator[tuple[int, str]]:
    alternatives = "|".join(sorted(map(re.escape, ids), key=len, reverse=True))
    pattern = re.compile(rf"""(?<![\w-])["']({alternatives})["']|\bsystem_data\.({alternatives})\b""")
    for number, line in enumerate(text.splitlines(), 1):
        for match in pattern.finditer(line):
            yield number, match.group(1) or match.group(2)


def _sources() -> list[Path]:
    files = [p for p in APP.rglob("*.py") if p != REGISTRY]
    for folder in (ROOT / "templates", ROOT / "static", *(APP / "systems").glob("*/templates")):
        files += [p for p in folder.rglob("*") if p.suffix in (".html", ".js", ".css") and "htmx-" not in p.name]
    files += list((APP / "systems").glob("*/static/**/*.css"))
    return sorted(set(files))


def offences(path: Path, ids: set[str]) -> list[str]:
    owner = _owner(path)
    rel = str(path.relative_to(ROOT))
    text = path.read_text(encoding="utf-8")
    found = python_names(path, ids) if path.suffix == ".py" else text_names(text, ids)
    return [f"{rel}:{line}: {name!r}" for line, name in found if name != owner and (rel, name) not in FIELDS]


def test_no_code_outside_a_systems_folder_names_a_system_id() -> None:
    ids = set(SYSTEMS)
    found = [offence for path in _sources() for offence in offences(path, ids)]
    assert found == [], "a system id outside its folder: declare what the core needs on RuleSystem\n" + "\n".join(found)


@pytest.mark.parametrize(
    ("source", "named"),
    [
        ('if system == "art":\n    pass\n', ["art"]),
        ('x = SYSTEMS["cat"]\n', []),  # a subscript: not caught here (a KeyError at once if the id goes)
        ('kinds = ("rabbits",)\n', ["rabbits"]),
        ('f(system="catfight")\n', ["catfight"]),
        ('"""Rolls the dice."""\nbody = {"dice": []}\nfaces = body.get("dice")\n', []),
        ('"""The art of it."""\nname = "artful"\n', []),
    ],
)
def test_the_python_rule_catches_ids_and_passes_fields(source: str, named: list[str], tmp_path: Path) -> None:
    path = tmp_path / "x.py"
    path.write_text(source, encoding="utf-8")
    assert [name for _line, name in python_names(path, {"art", "cat", "catfight", "rabbits", "dice"})] == named


def test_the_template_rule_catches_quoted_ids_only() -> None:
    ids = {"art", "cat", "catfight", "rabbits", "dice"}
    text = (
        '{% if sid == "dice" %}\n<p>Roll the dice, cat.</p>\n{{ system_data.art.levels }}\n'
        "<i class=\"cat-die\" data-x='catfight'>\n"
    )
    assert [name for _line, name in text_names(text, ids)] == ["dice", "art", "catfight"]


def test_a_system_may_name_itself_in_its_own_folder() -> None:
    assert _owner(APP / "systems" / "art" / "marks.py") == "art"
    assert _owner(APP / "systems" / "art" / "templates" / "sheet.html") == "art"
    assert _owner(APP / "systems" / "__init__.py") is None and _owner(APP / "rolls" / "faces.py") is None


def test_the_shared_stylesheet_holds_no_systems_rules() -> None:
    """Each system's CSS is in its own static/ (linked only on its campaigns' pages): static/css/*.css has no
    selector of a system's own classes (`.<id>-…`)."""
    shared = "\n".join(p.read_text(encoding="utf-8") for p in sorted((ROOT / "static" / "css").glob("*.css")))
    found = sorted({m.group(0) for sid in SYSTEMS for m in re.finditer(rf"\.{re.escape(sid)}-[\w-]+", shared)})
    assert found == []


@pytest.mark.parametrize("system_id", sorted(SYSTEMS))
def test_a_systems_stylesheet_is_served_from_its_folder(system_id: str, client: TestClient) -> None:
    sheets = sorted((FOLDERS[system_id] / "static").glob("*.css"))
    if not sheets:
        pytest.skip(f"{system_id} has no stylesheet of its own")
    for css in sheets:
        r = client.get(f"/static/systems/{system_id}/{css.name}")
        assert r.status_code == 200 and r.text == css.read_text(encoding="utf-8")


# The core tests that play every system read them from the registry and the systems' own test folders
# (tests/systems/<id>/: leak_cases.py, two_languages.py, their own leak and log-face tests): they name no system id.
# Not yet the rule for every core test: many still do (the browser tests, the i18n gap lists, …; issue 23).
REGISTRY_DRIVEN_TESTS = (
    "tests/security/test_hidden_results.py",
    "tests/rolls/test_log_views.py",
    "tests/test_two_languages_table.py",
    "tests/utils/leak.py",
    "tests/utils/leak_world.py",
    "tests/utils/two_languages.py",
)


@pytest.mark.parametrize("rel", REGISTRY_DRIVEN_TESTS)
def test_the_registry_driven_tests_name_no_system_id(rel: str) -> None:
    found = [f"{rel}:{line}: {name!r}" for line, name in python_names(ROOT / rel, set(SYSTEMS))]
    assert found == [], "a system's part belongs in tests/systems/<id>/\n" + "\n".join(found)


# --- issue 38: the core reads no key of a system's outcome or encounter state ----------------------------------------
#
# What the core needs of an entry or an encounter is declared by the system (RuleSystem.marks, result_marks,
# result_total, result_details; its encounter kinds' view, awaited, challenged, title, teams: app/systems/kinds.py).
# The rule, as this test reads it:
# - Python outside app/systems/<id>/: a key read (`x["key"]`, `x.get("key")`, `"key" in x`) from an outcome or a
#   state — a name `outcome`, `state`, `team` or `teams`, an attribute `.outcome` / `.state` (not Starlette's
#   `request.state` / `app.state`), or what `["outcome"]` / `.get("state")` gave — fails, unless the key is one the
#   core writes itself in its own entries' outcomes (CORE_OUTCOME_KEYS: table talk, handouts, the X-card). A state
#   has no key of the core's.
# - Core templates and scripts (templates/, static/): `outcome.key`, `outcome["key"]`, `state.key`, `state["key"]`
#   likewise; a quoted encounter kind id ("duel", 'combat', "duel-…") fails as a system id does.

# The keys of the core's own entries' outcomes, and who writes them.
CORE_OUTCOME_KEYS: dict[str, str] = {
    "text": "a message's words (app/talk)",
    "mode": "a message's ooc / ic (app/talk)",
    "as": "the character a message speaks as (app/talk)",
    "as_character_id": "the character a message speaks as (app/talk)",
    "to": "a whisper's recipients (app/talk), a handout's audience (app/handouts)",
    "team": "the team talk's team: {encounter_id, key, name} (app/talk, from the kind's declared teams)",
    "handout_id": "the picture shown (app/handouts)",
    "title": "the picture's title (app/handouts)",
    "sha256": "the picture's hash (app/handouts)",
    "card": "the X-card (app/between/safety.py)",
    "commitments": "the log format's commitments (docs/LOG_FORMAT.md): the chain verifier checks any entry's",
    "openings": "the log format's openings of commitments (docs/LOG_FORMAT.md), likewise",
}
STARLETTE_STATE = {"request", "app", "self"}
_READ_FROM = {"outcome", "state", "team", "teams"}


def _is_record(node: ast.AST) -> bool:
    """Whether `node` is an outcome or a state (or a team of one), as the rule above reads it."""
    if isinstance(node, ast.BoolOp):  # `(encounter.state or {})`
        return any(_is_record(v) for v in node.values)
    if isinstance(node, ast.Name):
        return node.id in _READ_FROM
    if isinstance(node, ast.Attribute) and node.attr in ("outcome", "state"):
        base = node.value
        return not (
            (isinstance(base, ast.Name) and base.id in STARLETTE_STATE)
            or (isinstance(base, ast.Attribute) and base.attr in STARLETTE_STATE)
        )
    key = _read_key(node)
    return key is not None and key[1] in ("outcome", "state")


def _read_key(node: ast.AST) -> tuple[ast.AST, str] | None:
    """(what is read from, the key) for `x["key"]` and `x.get("key", …)`."""
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
        return node.value, node.slice.value
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "get"
        and node.args
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
    ):
        return node.func.value, node.args[0].value
    return None


def record_reads(source: str) -> Iterator[tuple[int, str, str]]:
    """(line, "outcome" or "state", key) for each key the source reads from an outcome or a state."""
    for node in ast.walk(ast.parse(source)):
        found = _read_key(node)
        pairs: list[tuple[ast.AST, str]] = [found] if found is not None else []
        if (
            isinstance(node, ast.Compare)
            and isinstance(node.left, ast.Constant)
            and isinstance(node.left.value, str)
            and all(isinstance(op, ast.In | ast.NotIn) for op in node.ops)
        ):
            pairs += [(c, node.left.value) for c in node.comparators]
        for source_node, key in pairs:
            if key in ("outcome", "state") or not _is_record(source_node):
                continue
            text = ast.unparse(source_node)
            what = "outcome" if "outcome" in text else "state"
            yield node.lineno, what, key


def record_offences(path: Path) -> list[str]:
    rel = str(path.relative_to(ROOT))
    return [
        f"{rel}:{line}: {what}[{key!r}]"
        for line, what, key in record_reads(path.read_text(encoding="utf-8"))
        if what == "state" or key not in CORE_OUTCOME_KEYS
    ]


_TEMPLATE_READ = re.compile(r"""\b(outcome|state)(?:\.([A-Za-z_]\w*)|\[["']([\w-]+)["']\])""")
_TEMPLATE_METHODS = {"items", "keys", "values"}


def template_reads(text: str) -> Iterator[tuple[int, str, str]]:
    for number, line in enumerate(text.splitlines(), 1):
        for match in _TEMPLATE_READ.finditer(line):
            if line[: match.start()].endswith(("request.", "app.")):
                continue
            key = match.group(2) or match.group(3)
            if key not in _TEMPLATE_METHODS:
                yield number, match.group(1), key


def _core_files(suffixes: tuple[str, ...]) -> list[Path]:
    return [p for p in _sources() if _owner(p) is None and p.suffix in suffixes]


def kind_ids() -> set[str]:
    return {kind for system in SYSTEMS.values() for kind in system.encounters}


def test_the_core_reads_no_key_of_a_systems_outcome_or_state() -> None:
    found = [offence for path in _core_files((".py",)) for offence in record_offences(path)]
    for path in _core_files((".html", ".js")):
        rel = str(path.relative_to(ROOT))
        found += [
            f"{rel}:{line}: {what}.{key}"
            for line, what, key in template_reads(path.read_text(encoding="utf-8"))
            if what == "state" or key not in CORE_OUTCOME_KEYS
        ]
    assert found == [], "the core reads a system's key: declare it on RuleSystem or its encounter kind\n" + "\n".join(
        found
    )


def test_no_core_template_or_script_names_an_encounter_kind() -> None:
    """A kind's words (a challenge to a duel) are its system's template (EncounterKind.challenge); a prompt's id
    prefix is the core's ("challenge-")."""
    kinds = kind_ids()
    alternatives = "|".join(sorted(map(re.escape, kinds), key=len, reverse=True))
    pattern = re.compile(rf"""(?<![\w-])["']({alternatives})(?:["']|-)""")
    found = []
    for path in _core_files((".html", ".js")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            found += [f"{path.relative_to(ROOT)}:{number}: {m.group(1)!r}" for m in pattern.finditer(line)]
    for path in _core_files((".py",)):
        found += [f"{path.relative_to(ROOT)}:{line}: {name!r}" for line, name in python_names(path, kinds)]
    assert found == []


@pytest.mark.parametrize(
    ("source", "reads"),
    [
        ('teams = encounter.state.get("teams")\n', [("state", "teams")]),
        ('x = "teams" in (encounter.state or {})\n', [("state", "teams")]),
        ('for item in outcome.get("breakdown") or []:\n    pass\n', [("outcome", "breakdown")]),
        ('members = team.get("members", [])\n', [("state", "members")]),
        ('s = body.get("outcome")["summaries"]\n', [("outcome", "summaries")]),
        ('k = outcome["kicker"]\n', [("outcome", "kicker")]),
        ('u = request.state.user\nv = request.app.state.settings\nw = body.get("outcome")\n', []),
        ('t = row.body["outcome"].get("text")\n', [("outcome", "text")]),
    ],
)
def test_the_record_rule_sees_each_way_to_read_a_key(source: str, reads: list[tuple[str, str]]) -> None:
    assert [(what, key) for _line, what, key in record_reads(source)] == reads


def test_the_template_record_rule_reads_attributes_and_subscripts() -> None:
    text = '{{ body.outcome.total }} {{ state["teams"] }} {% for k, v in state.items() %}{{ outcome.team }}\n'
    assert [(what, key) for _n, what, key in template_reads(text)] == [
        ("outcome", "total"),
        ("state", "teams"),
        ("outcome", "team"),
    ]


def test_the_shared_stylesheet_holds_no_systems_marks_or_classes() -> None:
    """A system's marks (RuleSystem.marks: `.die-<mark>`, `.badge.<mark>`) and the classes only its own templates use
    are styled in its static/, not in static/css/."""
    shared = "\n".join(p.read_text(encoding="utf-8") for p in sorted((ROOT / "static" / "css").glob("*.css")))
    own_marks = {mark for system in SYSTEMS.values() for mark in system.marks}
    found = sorted(
        {m.group(0) for mark in own_marks for m in re.finditer(rf"\.(?:die-|badge\.){re.escape(mark)}\b", shared)}
    )
    core_text = "\n".join(p.read_text(encoding="utf-8") for p in _core_files((".html", ".js", ".py")))
    for cls in sorted(set(re.findall(r"\.([a-z][\w-]*)", re.sub(r"/\*.*?\*/", "", shared, flags=re.S)))):
        if cls in core_text:
            continue
        users = {
            sid
            for sid in SYSTEMS
            if any(cls in p.read_text(encoding="utf-8") for p in (FOLDERS[sid] / "templates").rglob("*.html"))
        }
        if len(users) == 1:
            found.append(f".{cls} (only {users.pop()}'s templates use it)")
    assert found == [], "a system's CSS belongs in its static/\n" + "\n".join(found)
