"""One error root: every exception class Heyan defines derives from ``memory.errors.HeyanError``, so
one ``except HeyanError`` (the CLI's, a platform's) takes every error raised on purpose."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

from memory.errors import HeyanError

PACKAGES = ("memory", "bot", "jobs", "adapters", "prompts")


def _modules() -> list[str]:
    names = []
    for package in PACKAGES:
        root = importlib.import_module(package)
        names.append(package)
        names += [m.name for m in pkgutil.walk_packages(root.__path__, f"{package}.")]
    return names


def test_every_exception_class_derives_from_the_one_root() -> None:
    strays = []
    for name in _modules():
        module = importlib.import_module(name)
        for attr, value in vars(module).items():
            if (inspect.isclass(value) and issubclass(value, BaseException) and value.__module__ == name
                    and not issubclass(value, HeyanError)):
                strays.append(f"{name}.{attr}")
    assert not strays, strays


def test_the_cli_turns_any_of_them_into_one_line() -> None:
    import typer

    from adapters.cli.cli_common import run
    from bot.limits import SlowDown

    async def body(_: object) -> None:
        raise SlowDown("memory.edit", "user", 3.0)

    try:
        run(body)  # type: ignore[arg-type]
    except typer.Exit as exc:
        assert exc.exit_code == 2
    else:
        raise AssertionError("run() let the error through")
