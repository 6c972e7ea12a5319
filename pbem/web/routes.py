"""The routers of the web host beyond its own pages: each module that serves more (the orders form,
the JSON API) adds its router to :data:`ROUTERS` here, one import and one entry, and :mod:`pbem.web.app`
includes every one. A list, not a guarded import: a router that fails to import is an error at start,
never a feature silently missing."""

from __future__ import annotations

from fastapi import APIRouter

from pbem.web import api, orders

ROUTERS: list[APIRouter] = [orders.router, api.router]
