"""The ``heyan`` command line's typer classes: how every group and command shows its options.

Kept apart from ``cli_common`` (which imports the runtime) so light command groups such as
``heyan bench`` use them too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import typer
from typer.core import TyperCommand, TyperGroup, TyperOption
from typer.models import CommandFunctionType

__all__ = ["Command", "Group", "Typer"]


def _plain_metavar(param: object) -> None:
    """Typer's rich help prints a type after every option, flags included ("--json <bool>",
    "--help <bool>", "--tenant <str>"). A flag takes no value, so it shows none; an option shows
    the value it wants in capitals ("--tenant TENANT") unless it names its own metavar."""
    if isinstance(param, TyperOption) and param.metavar is None:
        param.metavar = "" if param.is_flag else (param.name or "value").upper()


class Command(TyperCommand):
    """Every ``heyan`` command: options show a plain metavar (see ``_plain_metavar``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for param in self.params:
            _plain_metavar(param)

    def get_help_option(self, ctx: Any) -> Any:
        option = super().get_help_option(ctx)
        _plain_metavar(option)
        return option


class Group(TyperGroup):
    """Every ``heyan`` command group: its ``--help`` shows no metavar either."""

    def get_help_option(self, ctx: Any) -> Any:
        option = super().get_help_option(ctx)
        _plain_metavar(option)
        return option


class Typer(typer.Typer):
    """``typer.Typer`` whose groups and commands use ``Group`` and ``Command``."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("cls", Group)
        super().__init__(**kwargs)

    def command(
        self, name: str | None = None, *, cls: type[TyperCommand] | None = None, **kwargs: Any
    ) -> Callable[[CommandFunctionType], CommandFunctionType]:
        return super().command(name, cls=cls or Command, **kwargs)
