"""The reports' Jinja runtime: :meth:`jinja2.runtime.Context.call` with the same meaning, in fewer
steps, and autoescaped output written without a Markup object per value (:func:`escaped`).

Every call a template makes (a macro, ``_()``, ``range``, ``list.append``) goes through
``Context.call``, which asks twice whether the callee wants the context passed (two ``hasattr`` and
two ``_PassArg.from_obj`` calls), pops two keyword arguments the compiler adds inside loops and
blocks, and only then calls: about 2 µs a call on this machine, against 0.1 µs for the call itself,
and a Reef Encounter turn's reports make some 700 of them. Jinja lets an environment say which
context class its templates use (``Environment.context_class``); :class:`QuickContext` asks each
question once, with ``getattr`` defaults, and leaves every other method as Jinja has it. What a call
returns, and which arguments reach the callee, are Jinja's: ``tests/host/test_jinja_context.py``
checks them against ``Context.call`` case by case.

``view.me.screen`` on a plain dict goes through :meth:`jinja2.Environment.getattr`, which asks for an
attribute first and takes the item only once that raised :class:`AttributeError` (1.3 µs a look-up,
some 900 of them a Reef Encounter turn's reports); :class:`QuickAttributes` takes the item at once
where that attribute cannot exist.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import markupsafe
from jinja2 import Environment, nodes
from jinja2.compiler import CodeGenerator, Frame
from jinja2.runtime import Context
from jinja2.utils import _PassArg
from markupsafe import Markup, escape


class QuickContext(Context):
    def call(__self, __obj: Any, *args: Any, **kwargs: Any) -> Any:
        if __debug__:
            __traceback_hide__ = True  # Jinja's tracebacks skip this frame, as its own
        # a callable class whose __call__ takes a context: called through that method, as Jinja does
        # (its test, an attribute named __call__, not callable(): the same objects must qualify)
        pass_arg = getattr(getattr(__obj, "__call__", None), "jinja_pass_arg", None)  # noqa: B004
        if pass_arg is not None:
            __obj = __obj.__call__
        else:
            pass_arg = getattr(__obj, "jinja_pass_arg", None)
        if kwargs:
            loop_vars = kwargs.pop("_loop_vars", None)
            block_vars = kwargs.pop("_block_vars", None)
        else:
            loop_vars = block_vars = None
        if pass_arg is not None:
            if pass_arg is _PassArg.context:
                # the active context sees the variables set in loops and blocks, without changing it
                if loop_vars:
                    __self = __self.derived(loop_vars)  # type: ignore[assignment]
                if block_vars:
                    __self = __self.derived(block_vars)  # type: ignore[assignment]
                args = (__self, *args)
            elif pass_arg is _PassArg.eval_context:
                args = (__self.eval_ctx, *args)
            elif pass_arg is _PassArg.environment:
                args = (__self.environment, *args)
        try:
            return __obj(*args, **kwargs)
        except StopIteration:
            return __self.environment.undefined(
                "value was undefined because a callable raised a StopIteration exception"
            )


#: every name ``getattr`` finds on a plain dict (a dict has no attributes of its own, only its type's)
_DICT_ATTRIBUTES = frozenset(name for name in dir(dict) if hasattr({}, name))


class QuickAttributes(Environment):
    """An environment whose ``obj.name`` on a plain dict is Jinja's answer without the exception:
    ``getattr`` of a name that is not one of dict's attributes always raises, and Jinja then takes
    ``obj[name]`` (a missing key: undefined). Anything else, and a dict's own method names
    (``d.items``), go through Jinja's :meth:`~jinja2.Environment.getattr` as before."""

    def getattr(self, obj: Any, attribute: str) -> Any:
        if type(obj) is dict and attribute not in _DICT_ATTRIBUTES:
            try:
                return obj[attribute]
            except KeyError:
                return self.undefined(obj=obj, name=attribute)
        return super().getattr(obj, attribute)


# ------------------------------------------------------------------------------------- output escaping

#: markupsafe's own escaper of a plain string (its C speedup, else its Python twin), as ``escape``
#: calls it; ``None`` where a markupsafe release no longer has it: then ``escape`` does it all
_ESCAPE_INNER: Callable[[str], str] | None = getattr(markupsafe, "_escape_inner", None)


def escaped(value: Any) -> str:
    """``escape(value)`` as the text it is joined into a page as: the same characters, without making
    a :class:`Markup` of each ``{{ value }}`` first (0.7 us for a word, 1.2 us for a macro's Markup,
    1.4 us for a number, against 0.03-0.1 us here; an HTML report writes some 400 values)."""
    kind = type(value)
    if kind is Markup:
        return value  # safe already: escape() gives it back unchanged (its __html__ is itself)
    if kind is str and _ESCAPE_INNER is not None:
        return _ESCAPE_INNER(value)
    if kind is int or kind is float:
        return str(value)  # digits, a sign, '.', 'e', 'inf', 'nan': nothing to escape
    return escape(value)


class EscapingCodeGenerator(CodeGenerator):
    """Jinja's code generator, but an autoescaped ``{{ value }}`` goes through :func:`escaped`
    (``environment.escaped``) instead of markupsafe's ``escape``. An output's value is only ever
    joined into the text of its block, macro or ``{% set %}`` (which Jinja then marks safe as a
    whole), so the page is the same string either way; everything else (filters, ``~``, ``%``) is
    Jinja's and markupsafe's own."""

    def _output_child_pre(self, node: nodes.Expr, frame: Frame, finalize: Any) -> None:
        if frame.eval_ctx.autoescape and not frame.eval_ctx.volatile:
            self.write("environment.escaped(")
            if finalize.src is not None:
                self.write(finalize.src)
            return
        super()._output_child_pre(node, frame, finalize)
