"""Where the source builds English for a player outside the catalogs: an inventory of ``pbem/``,
``games/`` and ``templates/``, read as syntax (Python's AST, Jinja's lexer), not run.

A check that every catalog entry is translated cannot see a sentence that never became an entry. This
reads the code that makes what players read and finds the literal words in it that no catalog holds:

- **sinks**, everywhere: the message of an error a player is answered with (:class:`GameError`,
  :class:`UserError`, an order file's or an address's error, and every subclass of them), the text of
  a game's :class:`Event`, and what the CLI commands a player runs (``template``, ``check``,
  ``submit``, ``report``, ``status``) print. What reaches one may hold no literal English at all
  outside a catalog call (``_``, ``N_``, ``T_``, ``TN_``, ``P_``, ``ngettext``...), however it is
  built: an f-string, ``+``, ``%``, ``.format``, ``.join``, or a local name or module constant
  assigned from one (followed to its assignments, so ``text = f"..."; raise GameError(c, text)`` is
  seen);
- **the modules that write for players** (:data:`PLAYER_MODULES`: reports, replies, notices, order
  templates, the games' views and events): every literal there that reads as English prose (two
  words, or letters glued to a placeholder as in ``f"{days}d"``) is a finding, wherever it goes,
  unless its place says it is not for a player (:func:`_exempt`: a docstring, a log line, a
  comparison with what a player wrote, a key, a pattern, a programming error's message);
- **templates**: the literal text of every Jinja template outside ``{% trans %}`` and outside tags,
  and every string literal in an expression that is not the argument of ``_()``.

What is left is either a fault or an entry of :data:`ALLOWED` in the test, each with its reason.
A finding is ``(path, function, text)``: stable across line moves, and precise (allowing one literal
does not allow its neighbours).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from jinja2 import Environment

ROOT = Path(__file__).resolve().parents[2]

#: the catalog calls and which of their positional arguments are messages: a literal there is a catalog
#: message; their other arguments (``T_("{space} holds {whose}", whose=...)``) are values like any other,
#: and English passed as one is English the reader meets
CATALOG_CALLS: dict[str, tuple[int, ...]] = {
    "_": (0,),
    "N_": (0,),
    "T_": (0,),
    "gettext": (0,),
    "comment": (0,),
    "TN_": (0, 1),
    "P_": (0, 1),
    "ngettext": (0, 1),
    "plural": (0, 1),
    "pgettext": (0, 1),
}
#: the error types whose message a player is answered with, and the index of that message among the
#: constructor's arguments (their subclasses, found in the source, inherit it)
PLAYER_ERRORS = {"GameError": 1, "RulesError": 1, "UserError": 0, "OrderFileError": 0, "AddressError": 0}
#: other constructors whose argument a player reads: a game's event (its ``text``)
PLAYER_CALLS = {"Event": (0, "text")}
#: the CLI commands a player runs (``pbem <command>``): what they print is for that player
PLAYER_COMMANDS = {
    "pbem/cli/games.py": ("submit", "check", "report", "status"),
    "pbem/cli/orderfiles.py": ("template",),
}
#: the modules that write what a player reads: every English literal in them is a finding
PLAYER_MODULES = (
    # pbem/render/ but screenshots.py (a developer's look at the mails) and environment.py (finding the
    # templates: the operator's setup)
    "pbem/render/reports.py",
    "pbem/render/tables.py",
    "pbem/render/jinja_context.py",
    "pbem/render/mail_html.py",
    "pbem/render/patches.py",
    "pbem/render/pictures.py",
    "pbem/render/png.py",
    "pbem/render/preview.py",
    "pbem/render/calendar.py",
    "pbem/outbox/replies.py",
    "pbem/outbox/compose.py",
    "pbem/outbox/calendar_part.py",
    "pbem/cron/deadlines.py",
    "pbem/cron/notices.py",
    "pbem/mail/commands.py",
    "pbem/mail/welcome.py",
    "pbem/mail/password_reset.py",
    "pbem/intake/explain.py",
    "pbem/archive/page.py",
    "pbem/play/status.py",
    "games/*/views.py",
    "games/*/view.py",
    "games/*/template.py",
    "games/*/words.py",
    "games/*/turn.py",
    "games/*/engine.py",
    "games/*/rules.py",
    "games/*/seasons.py",
    "games/*/scoring.py",
    "games/*/upkeep.py",
    "games/*/orders.py",
)
#: raising one of these is a bug's report or the operator's (a missing font), not an answer: the host
#: answers players with the errors of PLAYER_ERRORS only (a builtin error that escaped is a crash)
PROGRAMMING_ERRORS = frozenset(
    {
        "ValueError",
        "TypeError",
        "RuntimeError",
        "KeyError",
        "LookupError",
        "AssertionError",
        "NotImplementedError",
        "IndexError",
        "AttributeError",
        "FileNotFoundError",
        "OSError",
    }
)
#: calls whose string arguments are patterns, keys or names, never words: regular expressions,
#: attribute and mapping look-ups, string tests, struct and date formats, SQL
NOT_WORDS_CALLS = frozenset(
    {
        "compile",
        "match",
        "fullmatch",
        "search",
        "sub",
        "split",
        "findall",
        "finditer",
        "getattr",
        "hasattr",
        "setattr",
        "get",
        "pop",
        "setdefault",
        "startswith",
        "endswith",
        "replace",
        "strip",
        "rstrip",
        "lstrip",
        "strftime",
        "strptime",
        "text",
        "execute",
        "get_template",
        "select_template",
        "Path",
        "joinpath",
        "glob",
        "rglob",
        "field",
        "Field",
        "TypeVar",
        "cast",
        "NewType",
        "namedtuple",
        "warn",
        "add_catalog_source",
    }
)
#: receivers of logging calls: their lines go to the operator's log
LOGGERS = frozenset({"log", "logger", "logging", "_log", "LOG"})

_PLACEHOLDER = re.compile(r"\{[^{}]*\}|%\([^)]*\)[sd]|%[sd]")
_WORD = re.compile(r"[A-Za-z][a-z]+|[A-Z]{2,}")
#: a token that is code, not a word: ids, keys, paths, addresses, markup, formats, a placeholder glued on
_CODE = re.compile(r"[\d@/_\\=+#%&.:\[\]{}()<>$|*~^`-]|^[A-Z][a-z]+(?:[A-Z][a-z]*)+$|^[a-z]+[A-Z]")
_EDGES = ",:;!?\"'«»„“”‘’…·—–"
#: a YAML line of an order template (or one commented out): its key and value are the order grammar as
#: the player writes it; what follows its own ``#`` is prose. A key must be one of the order file's
#: (:func:`order_keys`), so a label ("deadline: {}") is not taken for one
_YAML_LINE = re.compile(r"(?m)^(\s*(?:#\s*)?(?:-\s+)?)(?:([A-Za-z_][\w-]*):|\[\]|-\s)[^#\n]*")
#: the order file's envelope keys
ENVELOPE_KEYS = frozenset({"game", "player", "password", "turn", "orders", "language", "timezone"})


@cache
def order_keys() -> frozenset[str]:
    """What a YAML line of an order file may start with: the envelope's keys and every game's steps'
    and fields' names (:func:`tests.i18n.foreign.order_words`, read from the games' step models)."""
    from tests.i18n.foreign import order_words

    return ENVELOPE_KEYS | order_words()


def _order_line(match: re.Match[str]) -> str:
    key = match.group(2)
    known = key is None or all(part in order_keys() for part in re.split(r"[_-]", key.lower()))
    return " " if known else match.group()


#: an HTML tag with its attributes (a report's markup built in code)
_TAGS = re.compile(r"</?[a-z][a-z0-9]*(?:\s[^<>]*)?/?>")


@dataclass(frozen=True)
class Finding:
    """A literal a player may read that no catalog holds: where, in which function, and its words."""

    path: str
    function: str
    text: str
    line: int
    why: str

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.path, self.function, self.text)

    def __str__(self) -> str:
        return f"{self.path}:{self.line} ({self.function}, {self.why}): {self.text!r}"


def words(text: str) -> list[str]:
    """The words of a literal once its placeholders (glued to what touches them: ``{days}d`` is a
    unit, ``{}.html`` a file name), YAML lines of the order grammar and code-shaped tokens are set
    aside."""
    plain = _YAML_LINE.sub(_order_line, _PLACEHOLDER.sub("\x00", _TAGS.sub(" ", text)))
    found = []
    for token in plain.split():
        token = token.strip(_EDGES)
        if "\x00" in token:
            bare = token.replace("\x00", " ").strip(_EDGES + " ")
            if re.fullmatch(r"[A-Za-z]{1,3}", bare):  # a unit or suffix on a number: "{days}d", "{n}th"
                found.append(bare)
                continue
            token = token.replace("\x00", "0")
        if not token or _CODE.search(token):
            continue
        found += _WORD.findall(token)
    return found


def english(node: ast.AST) -> str | None:
    """The literal text of ``node`` if it reads as English for a person, else None: a string of two
    words or more (one word alone is an id: ``"orange"``, ``"pass"``), an f-string with a word."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value if len(words(node.value)) >= 2 else None
    if isinstance(node, ast.JoinedStr):
        literal = "".join(p.value if isinstance(p, ast.Constant) else "{}" for p in node.values)
        return literal if words(literal) else None
    return None


def _name(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def _receiver(func: ast.expr) -> str | None:
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        return func.value.id
    return None


class _Module:
    """One module's syntax with each node's parent and enclosing function."""

    def __init__(self, rel: str, source: str) -> None:
        self.rel = rel
        self.tree = ast.parse(source)
        self.parent: dict[ast.AST, ast.AST] = {}
        for node in ast.walk(self.tree):
            for child in ast.iter_child_nodes(node):
                self.parent[child] = node
        self.docstrings = {
            id(body[0].value)
            for node in ast.walk(self.tree)
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and (body := node.body)
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
        }

        #: (id of the scope, name): the values assigned to the name there
        self.assignments: dict[tuple[int, str], list[ast.expr]] = {}
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Assign):
                targets, value = node.targets, node.value
            elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and node.value is not None:
                targets, value = [node.target], node.value
            else:
                continue
            for target in targets:
                if isinstance(target, ast.Name):
                    key = (id(self.scope(node)), target.id)
                    self.assignments.setdefault(key, []).append(value)

    def ancestors(self, node: ast.AST) -> Iterator[ast.AST]:
        while node in self.parent:
            node = self.parent[node]
            yield node

    def function(self, node: ast.AST) -> str:
        names = [
            a.name
            for a in self.ancestors(node)
            if isinstance(a, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        ]
        return ".".join(reversed(names)) or "<module>"

    def scope(self, node: ast.AST) -> ast.AST:
        for a in self.ancestors(node):
            if isinstance(a, (ast.FunctionDef, ast.AsyncFunctionDef)):
                return a
        return self.tree


def _message_of(call: ast.AST, child: ast.AST) -> bool:
    """Whether ``child`` is a message argument of ``call``, a catalog call."""
    if not isinstance(call, ast.Call) or _name(call.func) not in CATALOG_CALLS:
        return False
    return any(call.args[i] is child for i in CATALOG_CALLS[_name(call.func)] if i < len(call.args))  # type: ignore[index]


def _draws(call: ast.Call) -> bool:
    """A call of the chance (``chance.pick(...)``, ``shuffled(chance, "label", ...)``): its literal is
    the draw's label, kept in the game's record for its checker, never in a player's text."""
    names = [_receiver(call.func)] + [a.id for a in call.args if isinstance(a, ast.Name)]
    return "chance" in names


def _exempt(module: _Module, node: ast.AST) -> str | None:
    """Why a literal in a player's module is not for a player, or None when it may be."""
    if id(node) in module.docstrings:
        return "docstring"
    child = node
    for a in module.ancestors(node):
        if isinstance(a, ast.Call):
            name, receiver = _name(a.func), _receiver(a.func)
            if _message_of(a, child):
                return "catalog"
            if _draws(a):
                return "draw label"
            if receiver in LOGGERS or name in LOGGERS:
                return "log line"
            if name in NOT_WORDS_CALLS:
                return "pattern or key"
        if isinstance(a, ast.Compare) or (isinstance(a, ast.match_case) and child is a.pattern):
            return "compared with input"
        if isinstance(a, ast.Subscript) and child is a.slice:
            return "key"
        if isinstance(a, ast.Dict) and any(child is k for k in a.keys):
            return "key"
        if isinstance(a, (ast.arg, ast.AnnAssign)) and child is getattr(a, "annotation", None):
            return "annotation"
        if isinstance(a, ast.Assert):
            return "assertion"
        if isinstance(a, ast.Raise):
            raised = a.exc.func if isinstance(a.exc, ast.Call) else a.exc
            if _name(raised) in PROGRAMMING_ERRORS if raised is not None else False:
                return "programming error"
            return None
        if isinstance(a, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            return None
        child = a
    return None


def _assigned(module: _Module, name: str, at: ast.AST) -> Iterator[ast.expr]:
    """What ``name`` is assigned in the scope of ``at`` (and at module level), every assignment."""
    yield from module.assignments.get((id(module.scope(at)), name), ())
    if module.scope(at) is not module.tree:
        yield from module.assignments.get((id(module.tree), name), ())


def reaching(module: _Module, expr: ast.expr, seen: frozenset[str] = frozenset()) -> Iterator[ast.AST]:
    """The literals with English words in them that ``expr`` is built from outside catalog calls,
    following local names and module constants to what they are assigned."""
    pending: list[ast.AST] = [expr]
    while pending:
        node = pending.pop()
        if english(node) is not None:
            yield node
            continue
        if isinstance(node, ast.Call) and _draws(node):
            continue  # what the chance gives is a game's value; its literal is the draw's label
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id not in seen:
            seen = seen | {node.id}
            for value in _assigned(module, node.id, node):
                yield from reaching(module, value, seen)
            continue
        if isinstance(node, ast.Call):
            # a method of a literal (``"...".format(...)``, ``" and ".join(...)``) and the arguments
            pending.append(node.func)
            pending.extend(a for a in node.args if not _message_of(node, a))
            pending.extend(k.value for k in node.keywords)
            continue
        if isinstance(node, (ast.Lambda, ast.FunctionDef)):
            continue
        pending.extend(ast.iter_child_nodes(node))


def _subclasses(modules: Iterable[_Module], roots: dict[str, int]) -> dict[str, int]:
    """``roots`` and every class of ``modules`` derived from one, by name, each with its root's index."""
    found = dict(roots)
    classes = [n for m in modules for n in ast.walk(m.tree) if isinstance(n, ast.ClassDef)]
    grew = True
    while grew:
        grew = False
        for cls in classes:
            for base in cls.bases:
                if _name(base) in found and cls.name not in found:
                    found[cls.name] = found[_name(base)]  # type: ignore[index]
                    grew = True
    return found


def _sink_arguments(module: _Module, errors: dict[str, int]) -> Iterator[tuple[ast.expr, str]]:
    for node in ast.walk(module.tree):
        if not isinstance(node, ast.Call):
            continue
        name = _name(node.func)
        index, keyword = None, None
        if name in errors:
            index, keyword = errors[name], "message"
        elif name in PLAYER_CALLS:
            index, keyword = PLAYER_CALLS[name]
        elif name in ("echo", "print", "secho") and module.function(node).split(".")[
            0
        ] in PLAYER_COMMANDS.get(module.rel, ()):
            index, keyword = 0, "message"
        if index is None:
            continue
        if len(node.args) > index and not isinstance(node.args[index], ast.Starred):
            yield node.args[index], f"{name}()"
        for k in node.keywords:
            if k.arg == keyword:
                yield k.value, f"{name}()"


def _player_module(rel: str) -> bool:
    return any(Path(rel).match(pattern) for pattern in PLAYER_MODULES)


def python_files() -> list[Path]:
    return sorted(
        p for p in [*ROOT.glob("pbem/**/*.py"), *ROOT.glob("games/**/*.py")] if "migrations" not in p.parts
    )


def scan_python(paths: Iterable[Path]) -> list[Finding]:
    """Every English literal a player may read in ``paths``, by the sinks and the player's modules."""
    return scan_sources({p.relative_to(ROOT).as_posix(): p.read_text(encoding="utf-8") for p in paths})


def scan_sources(sources: dict[str, str]) -> list[Finding]:
    """:func:`scan_python` of ``{path: source}``: the path says whether it is a player's module."""
    modules = [_Module(rel, source) for rel, source in sources.items()]
    errors = _subclasses(modules, PLAYER_ERRORS)
    found: dict[tuple[str, int, int], Finding] = {}

    def add(module: _Module, node: ast.AST, why: str) -> None:
        text = english(node) or ""
        key = (module.rel, node.lineno, node.col_offset)  # type: ignore[attr-defined]
        found.setdefault(key, Finding(module.rel, module.function(node), text, node.lineno, why))  # type: ignore[attr-defined]

    for module in modules:
        for node in ast.walk(module.tree):
            # an f-string as a message: filled before the catalog is asked, so no entry can match it
            if isinstance(node, ast.Call) and _name(node.func) in CATALOG_CALLS:
                for at in CATALOG_CALLS[_name(node.func)]:  # type: ignore[index]
                    if at < len(node.args) and isinstance(node.args[at], ast.JoinedStr):
                        add(module, node.args[at], "f-string as a message")
        for argument, sink in _sink_arguments(module, errors):
            for literal in reaching(module, argument):
                add(module, literal, f"reaches {sink}")
        if not _player_module(module.rel):
            continue
        for node in ast.walk(module.tree):
            if isinstance(module.parent.get(node), ast.JoinedStr):
                continue  # its f-string is judged whole
            if english(node) is not None and _exempt(module, node) is None:
                add(module, node, "player's module")
    return sorted(found.values(), key=lambda f: (f.path, f.line))


# ------------------------------------------------------------------------------------------ templates

#: what a template's text holds that is not words: comments, styles and scripts, tags, entities
_MARKUP = re.compile(r"(?s)<!--.*?-->|<(style|script)\b.*?</\2>|<[^>]*>|&[#\w]+;".replace("\\2", "\\1"))
#: Jinja's own syntax: comments, the style blocks (CSS), ``{% trans %}...{% endtrans %}`` (a message),
#: tags and expressions
_JINJA = re.compile(
    r"(?s)\{#.*?#\}|\{%-?\s*block\s+(?:style|webstyle)\b.*?\{%-?\s*endblock\b[^%]*%\}|"
    r"\{%-?\s*trans\b.*?\{%-?\s*endtrans\s*-?%\}|\{%.*?%\}|\{\{.*?\}\}"
)
_TEMPLATE_MESSAGE_CALLS = frozenset({"_", "gettext", "ngettext", "pgettext"})


def template_files() -> list[Path]:
    return sorted(ROOT.glob("templates/**/*.j2"))


def _blank(match: re.Match[str]) -> str:
    # a Jinja construct becomes a mark that glues to what touches it (an attribute's value stays one
    # token), its lines kept so a finding's line number is the template's
    return "\x00" + "\n" * match.group().count("\n")


def scan_template(rel: str, source: str) -> list[Finding]:
    """The literal words of a template outside ``{% trans %}`` and ``_()``: its text (markup aside)
    and the string literals of its expressions."""
    found = []
    text = _MARKUP.sub(lambda m: " " + "\n" * m.group().count("\n"), _JINJA.sub(_blank, source))
    for number, line in enumerate(text.splitlines(), 1):
        if words(line.replace("\x00", " ")):
            found.append(
                Finding(rel, "<text>", " ".join(line.replace("\x00", " ").split()), number, "template text")
            )
    env = Environment(extensions=["jinja2.ext.i18n"])
    in_trans = False
    block: list[str] = []  # the tokens of the tag or expression being read
    for number, kind, value in env.lex(source):
        if kind in ("block_begin", "variable_begin"):
            block = []
            continue
        if kind == "whitespace":
            continue
        if kind == "name" and not block and value in ("trans", "endtrans"):
            in_trans = value == "trans"
        block.append(value)
        if kind == "string" and not in_trans and len(words(value)) >= 2:
            # a message is the first argument of _(): ``_`` ``(`` just before it
            first = len(block) >= 3 and block[-2] == "(" and block[-3] in _TEMPLATE_MESSAGE_CALLS
            second = len(block) >= 5 and block[-2] == "," and block[-4] == "(" and block[-5] == "ngettext"
            if not (first or second):
                found.append(Finding(rel, "<expression>", value, number, "template literal"))
    return found


def scan_templates(paths: Iterable[Path]) -> list[Finding]:
    return [f for p in paths for f in scan_template(p.relative_to(ROOT).as_posix(), p.read_text("utf-8"))]
