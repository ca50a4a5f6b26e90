"""The options of a command that reads a log are declared once (grounded.cli.app, ``reads_log``): each
command that takes them lists them where its signature names ``reading`` and receives them as one
``LogReading``; the commands call ``LogReading.load`` and nothing else loads a log."""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

import typer
from typer.testing import CliRunner

from grounded.cli.app import COMMANDS, DEFAULT_READING, LOG_OPTIONS, LogReading, app, reads_log

CLI = Path(__file__).resolve().parent.parent / "src" / "grounded" / "cli"
OPTIONS = {"extension": "--extension", "timeout": "--timeout", "partial": "--partial",
           "allow_rules_change": "--allow-rules-change", "no_cache": "--no-cache"}


def toy(*optional: str) -> tuple[typer.Typer, list[LogReading]]:
    """A one-command app whose command takes the log options and records what it was handed."""
    seen: list[LogReading] = []
    toy_app = typer.Typer()

    @toy_app.command()
    @reads_log(*optional)
    def look(file: Path, reading: LogReading = DEFAULT_READING,
             loud: bool = typer.Option(False, "--loud", help="Last.")) -> None:
        seen.append(reading)

    return toy_app, seen


def listed(help_text: str) -> list[str]:
    return re.findall(r"(--[a-z-]+)", help_text)


def test_a_command_gets_the_options_in_place_of_reading_and_them_as_one_value(tmp_path):
    rule = tmp_path / "r.pl"
    rule.write_text("")
    toy_app, seen = toy()
    runner = CliRunner()
    shown = listed(runner.invoke(toy_app, ["--help"], env={"COLUMNS": "200"}).output)
    assert [o for o in shown if o in (*OPTIONS.values(), "--loud")] == [*OPTIONS.values(), "--loud"]
    assert runner.invoke(toy_app, ["log.jsonl"]).exit_code == 0
    done = runner.invoke(toy_app, ["log.jsonl", "-x", str(rule), "--partial", "--allow-rules-change", "--no-cache",
                                   "--loud"])
    assert done.exit_code == 0, done.output
    assert seen == [DEFAULT_READING, LogReading([rule], True, True, True)]


def test_a_command_taking_some_of_the_options_refuses_the_others():
    toy_app, seen = toy("no_cache")
    runner = CliRunner()
    shown = listed(runner.invoke(toy_app, ["--help"], env={"COLUMNS": "200"}).output)
    assert [o for o in shown if o in OPTIONS.values()] == ["--extension", "--timeout", "--no-cache"]
    assert runner.invoke(toy_app, ["log.jsonl", "--partial"]).exit_code == 2
    assert runner.invoke(toy_app, ["log.jsonl", "--no-cache"]).exit_code == 0 and seen == [LogReading(no_cache=True)]


def test_the_log_options_are_declared_in_one_place():
    """No command module declares a log option itself but ``run`` (its --state and --quiet sit between them) and
    ``score`` (--no-cache alone); none loads a log but through ``LogReading``."""
    declares = re.compile(r"^\s+\w+: (Partial|AllowRulesChange|NoCache)\b", re.M)
    own = sorted(p.name for p in CLI.glob("*.py") if p.name != "app.py" and declares.search(p.read_text()))
    assert own == ["interpret.py", "run.py"]
    assert [p.name for p in CLI.glob("*.py") if "load_engine(" in p.read_text()] == ["app.py"]


def test_every_command_reading_a_log_by_reads_log_lists_the_options_it_did():
    """The commands built from ``reads_log`` take the options in LOG_OPTIONS' order, one after the other."""
    for module in sorted(set(COMMANDS.values())):
        importlib.import_module(f"grounded.cli.{module}")
    decorated = [info for info in app.registered_commands
                 if "reading" in inspect.signature(getattr(info.callback, "__wrapped__", lambda: None)).parameters]
    assert len(decorated) >= 9
    for info in decorated:
        names = list(inspect.signature(info.callback).parameters)
        taken = [n for n in names if n in LOG_OPTIONS]
        assert taken == [n for n in LOG_OPTIONS if n in taken] and taken[:2] == ["extension", "timeout"]
        first = names.index(taken[0])
        assert names[first:first + len(taken)] == taken, info.callback
