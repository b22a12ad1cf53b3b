"""axe-core in the browser tests: every page state a test visits is checked for serious and critical
accessibility violations. axe is a test asset only (tests/browser/vendor/axe-4.14.1.min.js, MPL-2.0, its
licence header kept; the app never serves it); it is injected through the DevTools protocol, so the page's
strict CSP stays on."""

from __future__ import annotations

from pathlib import Path
from typing import Any

AXE = Path(__file__).resolve().parent / "vendor" / "axe-4.14.1.min.js"
SERIOUS = ("serious", "critical")

RUN = """
async () => {
  const result = await axe.run(document, {resultTypes: ["violations"]});
  return result.violations.filter(v => v.impact === "serious" || v.impact === "critical").map(v =>
    v.id + " (" + v.impact + "): " + v.nodes.slice(0, 4).map(n => n.target.join(" ") + " " +
      (n.failureSummary || "").split("\\n").slice(1, 2).join("")).join(" | "));
}
"""


def install(context: Any) -> None:
    """Load axe into every page of this browser context (before the page's own scripts)."""
    context.add_init_script(path=str(AXE))


def violations(page: Any, label: str) -> list[str]:
    """The serious and critical violations on the page as it is now, each prefixed with `label`."""
    found: list[str] = page.evaluate(RUN)
    return [f"{label}: {v}" for v in found]


# WCAG 2.2 A and AA (axe's tags; 2.2 added only AA rules to axe): the promise of docs/ACCESSIBILITY.md.
WCAG = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]

RUN_ALL = """
async (tags) => {
  const result = await axe.run(document, {runOnly: {type: "tag", values: tags}, resultTypes: ["violations"]});
  return result.violations.map(v =>
    v.id + " (" + v.impact + "): " + v.nodes.slice(0, 4).map(n => n.target.join(" ") + " " +
      (n.failureSummary || "").split("\\n").slice(1, 2).join("")).join(" | "));
}
"""


def wcag_violations(page: Any, label: str) -> list[str]:
    """Every WCAG 2.2 A/AA violation on the page as it is now, of any impact, each prefixed with `label`."""
    found: list[str] = page.evaluate(RUN_ALL, WCAG)
    return [f"{label}: {v}" for v in found]
