"""What a page looks like in Chromium, measured once per page and width: the requests it made, the
console errors it logged, what sticks out sideways, the rendered size of every SVG and of every
piece of text, and whether chosen elements can be seen.

"Scrolls on purpose" means an ancestor with ``overflow-x: auto`` or ``scroll``: a wide board or
table inside such a box is meant to be swiped, not cut off.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, ConsoleMessage, Page, Request

#: the smallest text a player has to read, in CSS pixels as rendered (SVG text scaled with its SVG)
MIN_TEXT_PX = 11.0
#: WCAG 2 level AA for body text: text against its background
MIN_CONTRAST = 4.5
#: the same for large text and for symbols that are not words (a star, an anchor)
MIN_LARGE_CONTRAST = 3.0
WIDTHS = {"desktop": 1100, "phone": 400}
HEIGHT = 900

# Shared helpers of the scripts below.
_HELPERS = """
window.__look = {
  scrollsOnPurpose(el) {
    for (let a = el.parentElement; a && a !== document.documentElement; a = a.parentElement) {
      const o = getComputedStyle(a).overflowX;
      if (o === 'auto' || o === 'scroll') return true;
    }
    return false;
  },
  describe(el) {
    let s = el.tagName.toLowerCase();
    if (el.id) s += '#' + el.id;
    const cls = el.getAttribute('class');
    if (cls) s += '.' + cls.trim().split(/\\s+/).join('.');
    const label = el.getAttribute('aria-label');
    if (label) s += `[${label}]`;
    const text = (el.textContent || '').trim().replace(/\\s+/g, ' ').slice(0, 40);
    return text && !label ? `${s} "${text}"` : s;
  },
  rgb(c) {
    const m = c && c.match(/rgba?\\(([^)]+)\\)/);
    if (!m) return null;
    const [r, g, b, a = 1] = m[1].split(',').map(Number);
    return {r, g, b, a};
  },
  // WCAG 2 contrast ratio of two colours
  contrast(x, y) {
    const channel = (v) => (v /= 255) <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
    const lum = (c) => 0.2126 * channel(c.r) + 0.7152 * channel(c.g) + 0.0722 * channel(c.b);
    const [p, q] = [lum(x), lum(y)];
    return (Math.max(p, q) + 0.05) / (Math.min(p, q) + 0.05);
  },
  outside(r, b) {
    const e = 0.5;
    return r.left < b.left - e || r.right > b.right + e || r.top < b.top - e || r.bottom > b.bottom + e;
  },
  // clipped by an ancestor that hides overflow (a scrolling ancestor clips on purpose)
  clippedBy(el) {
    const r = el.getBoundingClientRect();
    for (let a = el.parentElement; a && a !== document.documentElement; a = a.parentElement) {
      const st = getComputedStyle(a);
      if (!['hidden', 'clip'].includes(st.overflowX) && !['hidden', 'clip'].includes(st.overflowY)) continue;
      if (this.outside(r, a.getBoundingClientRect())) return this.describe(a);
    }
    return null;
  },
};
"""

_SIDEWAYS = """
() => {
  const L = window.__look, vw = document.documentElement.clientWidth, out = [], found = [];
  for (const el of document.body.querySelectorAll('*')) {
    const inSvg = el.closest('svg');
    if (inSvg && inSvg !== el) continue;  // an SVG's shapes are judged with the SVG
    if (found.some(f => f.contains(el))) continue;  // the outermost offender says it all
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    if ((r.right > vw + 0.5 || r.left < -0.5) && !L.scrollsOnPurpose(el)) {
      found.push(el);
      out.push(`${L.describe(el)} spans x ${Math.round(r.left)}..${Math.round(r.right)} of ${vw}`);
    }
  }
  // a word too long to wrap runs out of its box without widening it: only its text's own box shows it
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    if (!node.textContent.trim() || !el || el.closest('svg') || found.some(f => f.contains(el))) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    const r = range.getBoundingClientRect();
    if ((r.width || r.height) && (r.right > vw + 0.5 || r.left < -0.5) && !L.scrollsOnPurpose(node)) {
      found.push(el);
      out.push(`text of ${L.describe(el)} spans x ${Math.round(r.left)}..${Math.round(r.right)} of ${vw}`);
    }
  }
  return {scrollWidth: document.documentElement.scrollWidth, clientWidth: vw, sticking_out: out};
}
"""

_SVGS = """
() => {
  const L = window.__look, vw = document.documentElement.clientWidth, out = [];
  for (const svg of document.querySelectorAll('svg')) {
    if (svg.parentElement.closest('svg')) continue;
    const quiet = ['defs', 'title', 'desc', 'style'];
    const drawn = [...svg.children].some(c => !quiet.includes(c.tagName.toLowerCase()));
    if (!drawn) continue;  // a holder of shared patterns draws nothing by design
    const r = svg.getBoundingClientRect();
    out.push({what: L.describe(svg), width: r.width, height: r.height, left: r.left, right: r.right,
              scrolls: L.scrollsOnPurpose(svg), viewport: vw});
  }
  return out;
}
"""

# SVG clips what it draws to its own box, and nothing keeps two labels apart but the template's arithmetic
_SVG_LABELS = """
() => {
  const cut = [], overlapping = [];
  for (const svg of document.querySelectorAll('svg')) {
    if (svg.parentElement.closest('svg')) continue;
    const box = svg.getBoundingClientRect();
    if (!box.width || !box.height) continue;
    const drawn = (t) => t.textContent.trim() && t.getClientRects().length;
    const labels = [...svg.querySelectorAll('text')].filter(drawn);
    const rects = labels.map(t => t.getBoundingClientRect());
    const name = (t) => `"${t.textContent.trim()}"`;
    const where = svg.getAttribute('aria-label') || 'an svg';
    labels.forEach((label, i) => {
      const r = rects[i];
      if (window.__look.outside(r, box)) cut.push(`${name(label)} in ${where}`);
      for (let j = i + 1; j < labels.length; j++) {
        const q = rects[j];
        const w = Math.min(r.right, q.right) - Math.max(r.left, q.left);
        const h = Math.min(r.bottom, q.bottom) - Math.max(r.top, q.top);
        // glyph boxes include line spacing: a pixel of contact is not an overlap a reader notices
        if (w > 1 && h > 1) overlapping.push(`${name(label)} and ${name(labels[j])} in ${where}`);
      }
    });
  }
  return {cut, overlapping};
}
"""

_TEXT_SIZES = """
() => {
  const L = window.__look, seen = new Map();
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.textContent.trim();
    const el = node.parentElement;
    if (!text || !el || el.closest('title, style, script, defs')) continue;
    if (!el.getClientRects().length) continue;  // not rendered
    const st = getComputedStyle(el);
    if (st.visibility !== 'visible') continue;
    let px = parseFloat(st.fontSize);
    if (el.closest('svg')) {
      const m = el.getScreenCTM();
      px *= Math.sqrt(Math.abs(m.a * m.d - m.b * m.c));
    }
    const key = `${L.describe(el)} @ ${px.toFixed(1)}px`;
    if (!seen.has(key)) seen.set(key, px);
  }
  return [...seen].map(([what, px]) => ({what, px}));
}
"""

# WCAG 2 contrast of HTML text against the first opaque background behind it (SVG text sits on drawn
# shapes, which no computed style reveals, so it is judged on the screenshots instead)
_CONTRAST = """
() => {
  const L = window.__look, seen = new Map(), found = new Map();
  const behind = (el) => {
    if (!el) return {r: 255, g: 255, b: 255, a: 1};
    if (!found.has(el)) {
      const c = L.rgb(getComputedStyle(el).backgroundColor);
      found.set(el, c && c.a > 0.5 ? c : behind(el.parentElement));
    }
    return found.get(el);
  };
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    if (!node.textContent.trim() || !el || el.closest('svg, title, style, script')) continue;
    if (!el.getClientRects().length) continue;
    const ratio = L.contrast(L.rgb(getComputedStyle(el).color), behind(el));
    const key = `${L.describe(el)} at ${ratio.toFixed(2)}:1`;
    if (!seen.has(key)) seen.set(key, {what: key, ratio, large: false});
  }
  return [...seen.values()];
}
"""

# SVG text against the last shape painted before it (SVG paints in document order) that covers its
# middle. Lines are not backgrounds; a label on a pattern cannot be judged and is left out.
_SVG_CONTRAST = """
() => {
  const L = window.__look, seen = new Map();
  const covers = ({box: b, round}, x, y) => {
    if (round) {
      const [rx, ry] = [b.width / 2, b.height / 2];
      return rx > 0 && ry > 0 && ((x - b.left - rx) / rx) ** 2 + ((y - b.top - ry) / ry) ** 2 <= 1;
    }
    return x >= b.left && x <= b.right && y >= b.top && y <= b.bottom;
  };
  // what a shape paints: its box, and its fill (a colour, 'pattern', or null for none)
  const paint = (shape) => {
    const st = getComputedStyle(shape);
    let fill = st.fill.startsWith('url(') ? 'pattern' : L.rgb(st.fill);
    if (parseFloat(st.fillOpacity) <= 0.5 || (fill && fill.a !== undefined && fill.a <= 0.5)) fill = null;
    const round = ['circle', 'ellipse'].includes(shape.tagName.toLowerCase());
    return {box: shape.getBoundingClientRect(), round, fill};
  };
  for (const svg of document.querySelectorAll('svg')) {
    if (svg.parentElement.closest('svg')) continue;
    const painted = [];
    for (const el of svg.querySelectorAll('rect, circle, ellipse, path, polygon, text')) {
      if (el.tagName.toLowerCase() !== 'text') {
        if (el.closest('defs, pattern, clipPath, mask, symbol, marker')) continue;  // not painted in place
        const p = paint(el);
        if (p.fill) painted.push(p);
        continue;
      }
      if (!el.textContent.trim() || !el.getClientRects().length) continue;
      const r = el.getBoundingClientRect(), [x, y] = [r.left + r.width / 2, r.top + r.height / 2];
      let under = null;
      for (let i = painted.length - 1; i >= 0 && !under; i--)
        if (covers(painted[i], x, y)) under = painted[i].fill;
      if (under === 'pattern') continue;
      if (!under) {  // nothing drawn there: the page behind the SVG
        for (let a = svg; a && !under; a = a.parentElement) {
          const c = L.rgb(getComputedStyle(a).backgroundColor);
          if (c && c.a > 0.5) under = c;
        }
      }
      const st = getComputedStyle(el), px = parseFloat(st.fontSize);
      // WCAG: large text (24 px, or 18.66 px bold) and symbols that are not words need 3:1
      const symbol = !/[\\p{L}\\p{N}]/u.test(el.textContent);
      const large = symbol || px >= 24 || (px >= 18.66 && parseInt(st.fontWeight) >= 700);
      const ratio = L.contrast(L.rgb(st.fill), under || {r: 255, g: 255, b: 255, a: 1});
      const key = `${L.describe(el)} at ${ratio.toFixed(2)}:1`;
      if (!seen.has(key)) seen.set(key, {what: key, ratio, large});
    }
  }
  return [...seen.values()];
}
"""

_SHOWN = """
(selector) => {
  const L = window.__look, vw = document.documentElement.clientWidth;
  return [...document.querySelectorAll(selector)].map(el => {
    const r = el.getBoundingClientRect(), st = getComputedStyle(el);
    let faded = false;
    for (let a = el; a; a = a.parentElement) if (parseFloat(getComputedStyle(a).opacity) === 0) faded = true;
    return {
      what: L.describe(el), text: (el.innerText || el.textContent || '').trim(),
      visible: r.width > 0 && r.height > 0 && st.visibility === 'visible' && !faded,
      inside: (r.left >= -0.5 && r.right <= vw + 0.5) || L.scrollsOnPurpose(el),
      clipped_by: L.clippedBy(el),
    };
  });
}
"""


# One round trip to the browser per page: every measurement at once.
_MEASURE = f"""
(watch) => {{
  {_HELPERS}
  return {{
    sideways: ({_SIDEWAYS})(),
    svgs: ({_SVGS})(),
    labels: ({_SVG_LABELS})(),
    text_sizes: ({_TEXT_SIZES})(),
    contrasts: ({_CONTRAST})(),
    shown: Object.fromEntries(watch.map(selector => [selector, ({_SHOWN})(selector)])),
    svg_contrasts: ({_SVG_CONTRAST})(),
  }};
}}
"""


@dataclass
class Shown:
    """One element a player must be able to read."""

    what: str
    text: str
    visible: bool
    inside: bool
    clipped_by: str | None

    @property
    def readable(self) -> bool:
        return self.visible and self.inside and self.clipped_by is None


@dataclass(repr=False)
class Look:
    """A page as Chromium laid it out at one width."""

    url: str
    width: int
    requests: list[str]
    console_errors: list[str]
    scroll_width: int
    client_width: int
    sticking_out: list[str]
    svgs: list[dict[str, Any]]
    text_sizes: list[dict[str, Any]]
    #: the contrast of each piece of text with what lies behind it
    contrasts: list[dict[str, Any]]
    #: SVG labels reaching past the edge of their SVG, which hides what lies beyond
    labels_cut: list[str]
    #: pairs of SVG labels drawn over each other
    labels_overlapping: list[str]
    #: the elements matching each selector the viewer was asked to watch
    shown: dict[str, list[Shown]]

    def __repr__(self) -> str:  # short, for assertion messages
        return f"<{self.url} at {self.width} px>"

    def small_text(self) -> list[str]:
        return [f"{t['what']}" for t in self.text_sizes if t["px"] < MIN_TEXT_PX - 0.05]

    def faint_text(self) -> list[str]:
        return [
            c["what"]
            for c in self.contrasts
            if c["ratio"] < (MIN_LARGE_CONTRAST if c["large"] else MIN_CONTRAST)
        ]

    def svg_problems(self) -> list[str]:
        problems = []
        for svg in self.svgs:
            if svg["width"] < 1 or svg["height"] < 1:
                problems.append(f"{svg['what']} is drawn {svg['width']:.0f}×{svg['height']:.0f} px")
            elif (svg["left"] < -0.5 or svg["right"] > svg["viewport"] + 0.5) and not svg["scrolls"]:
                problems.append(f"{svg['what']} spans x {svg['left']:.0f}..{svg['right']:.0f}")
        return problems


class Viewer:
    """One tab per width in a browser, reused page after page; a page is measured once."""

    def __init__(self, browser: Browser, watch: Sequence[str] = (), shots: Path | None = None) -> None:
        self._browser = browser
        self._watch = list(watch)
        self._shots = shots
        self._tabs: dict[int, Page] = {}
        self._looks: dict[tuple[str, int], Look] = {}
        self._requests: list[str] = []
        self._errors: list[str] = []

    def _tab(self, width: int) -> Page:
        if width not in self._tabs:
            page = self._browser.new_page(viewport={"width": width, "height": HEIGHT})
            page.on("request", self._on_request)
            page.on("console", self._on_console)
            page.on("pageerror", lambda exc: self._errors.append(f"uncaught: {exc}"))
            # nothing may leave the machine, even when a template breaks the rule being tested
            page.route(re.compile(r"^(https?|wss?|ftp)://"), lambda route: route.abort())
            self._tabs[width] = page
        return self._tabs[width]

    def _on_request(self, request: Request) -> None:
        self._requests.append(request.url)

    def _on_console(self, message: ConsoleMessage) -> None:
        if message.type == "error":
            self._errors.append(message.text)

    def look(self, path: Path, width: int) -> Look:
        url = path.resolve().as_uri()
        if (url, width) not in self._looks:
            page = self._tab(width)
            self._requests.clear()
            self._errors.clear()
            page.goto(url, wait_until="load")
            found = page.evaluate(_MEASURE, self._watch)
            self._looks[url, width] = Look(
                url=url,
                width=width,
                requests=list(self._requests),
                console_errors=list(self._errors),
                scroll_width=found["sideways"]["scrollWidth"],
                client_width=found["sideways"]["clientWidth"],
                sticking_out=found["sideways"]["sticking_out"],
                svgs=found["svgs"],
                text_sizes=found["text_sizes"],
                contrasts=found["contrasts"] + found["svg_contrasts"],
                labels_cut=found["labels"]["cut"],
                labels_overlapping=found["labels"]["overlapping"],
                shown={key: [Shown(**s) for s in found["shown"][key]] for key in self._watch},
            )
            if self._shots is not None:
                page.screenshot(path=str(self._shots / f"{path.stem}-{width}.png"), full_page=True)
        return self._looks[url, width]
