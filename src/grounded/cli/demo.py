"""Phase 2 end to end, offline: the `grounded demo` command."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from grounded.cli.app import app, out
from grounded.engine import Engine
from grounded.present import context, render
from grounded.queries.verify import GROUNDED, NO_ANCHOR, UNGROUNDED
from grounded.scenario import Scenario, retraction_score, run


@app.command()
def demo() -> None:
    """Phase 2 end to end, offline: per-turn state, retraction queries, stale continuations checked from text."""
    from grounded.interpreter.anchor import AnchorIndex

    path = Path(str(resources.files("grounded.scenarios") / "phase2.yaml"))
    scenario = Scenario.load(path)
    engine = Engine(scenario.header)
    out.rule(f"[bold]{scenario.title}[/]: replaying the gold operations through the rules")
    for outcome in run(scenario, engine):
        if outcome.turn is None or outcome.update is None:
            break
        render.render_update(out, engine, outcome.update)
        out.print(context.summarize(engine, outcome.update, "text").replace("\n", "\n    "),
                  style="italic", markup=False)
        render.render_state(out, engine)
        out.print()

    out.rule(f"[bold]Context Renderer: the state the next Interpreter call sees ({DEMO_BUDGET}-token budget)")
    out.print(context.render_state(engine, budget=DEMO_BUDGET, fmt="markdown"), markup=False)

    out.rule("[bold]Retraction: what loses support if an observation is withdrawn?")
    gold = next(c.spec for c in scenario.expect if c.kind == "retraction")  # the paper's four queries
    for literal in gold["gold"]:
        for closure in (False, True):
            out.print(render.affected_line(engine.ask("affected", claim=literal, closure=closure)))
    for closure, name in ((False, "one-step Affected"), (True, "Affected*")):
        s = retraction_score(engine, gold["hypotheses"], gold["gold"], closure)
        out.print(f"{name:>17}: {s['correct']}/{s['decisions']} decisions correct, "
                  f"{s['exact']}/{s['queries']} queries exact, TP/FP/FN {s['tp']}/{s['fp']}/{s['fn']}")

    out.rule("[bold]Verify from text: does the next output still rest on the conversation?")
    index = AnchorIndex(engine)  # one index of the final state for every candidate
    out.print(f"(read by: {index.method})", style="dim", markup=False)
    for text in DEMO_CANDIDATES:
        tv = index.verify(text)
        out.print(f'candidate: "{text}"', markup=False)
        if not tv.findings:
            best = f"{tv.best[0]} at {tv.best[1]:.2f}" if tv.best else "nothing"
            out.print(f"  anchor: none (closest {best}, below {tv.threshold})", markup=False)
        for f in tv.findings:
            if f.verification.status == NO_ANCHOR and f.doubt:  # a clause no claim covers: what is missing
                out.print(f'  "{f.clause}": {f.doubt}', markup=False)
                continue
            out.print(f"  {f.describe()}: ", end="", markup=False)
            out.print(render.verification_line(f.verification))
        flag = tv.flag(engine)
        if flag:
            out.print(f"  flag: {flag}", style="yellow", markup=False)
        out.print(f"  -> {tv.verdict}: {tv.reason}", markup=False)


DEMO_BUDGET = 350
DEMO_VERDICT = {GROUNDED: "accept", UNGROUNDED: "reject (stale)", NO_ANCHOR: "abstain"}
"""What the demo would say of a single literal with each Verify status."""
DEMO_CANDIDATES = (
    "The Redis failure is what causes the auth failures.",
    "The retry storm from the token bug is exhausting the Redis connection pool.",
    "Redis exhaustion causes the token bug.",
    "Roll back the token refresh change; its retry storm is exhausting the Redis connection pool.",
    "The moon is made of cheese.",
)
