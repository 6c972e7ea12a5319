"""The reports' Jinja context: :meth:`jinja2.runtime.Context.call` with the same meaning, in fewer steps.

Every call a template makes (a macro, ``_()``, ``range``, ``list.append``) goes through
``Context.call``, which asks twice whether the callee wants the context passed (two ``hasattr`` and
two ``_PassArg.from_obj`` calls), pops two keyword arguments the compiler adds inside loops and
blocks, and only then calls: about 2 µs a call on this machine, against 0.1 µs for the call itself,
and a Reef Encounter turn's reports make some 700 of them. Jinja lets an environment say which
context class its templates use (``Environment.context_class``); :class:`QuickContext` asks each
question once, with ``getattr`` defaults, and leaves every other method as Jinja has it. What a call
returns, and which arguments reach the callee, are Jinja's: ``tests/host/test_jinja_context.py``
checks them against ``Context.call`` case by case.
"""

from __future__ import annotations

from typing import Any

from jinja2.runtime import Context
from jinja2.utils import _PassArg


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
