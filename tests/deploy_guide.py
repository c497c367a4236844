"""Reading docs/DEPLOY.md's shell blocks as commands, for tests/test_deploy_guide.py.

A block fenced ```sh is a list of commands: continuation lines are joined, comments dropped, and
each line split (shlex) into simple commands at ``&&``, ``||``, ``;`` and ``|``, with leading
``NAME=value`` assignments, ``sudo`` and output redirections taken apart. ``docker run`` and
``docker compose`` command lines are parsed into what they would start (image or service, its
arguments, environment and mounts), so the tests can check them against the image, compose.yaml and
the CLI, and run the Heyan commands that work offline.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["Command", "ContainerRun", "commands", "compose_run", "docker_run", "sections"]

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "DEPLOY.md"

_SPLIT = {"&&", "||", ";", "|"}
#: docker run options that take a value, and those that do not (anything else is an error: the
#: guide should use only options these tests understand).
_RUN_VALUED = {"--name", "--restart", "-v", "--volume", "-e", "--env", "-p", "--publish", "--network", "--user",
               "--entrypoint"}
_RUN_FLAGS = {"-d", "--detach", "--rm", "-i", "-t", "-it", "--no-deps", "-T"}


@dataclass(frozen=True, slots=True)
class Command:
    """One simple command of the guide: the section it is in, its words, assignments and stdout file."""

    section: str
    argv: tuple[str, ...]
    assigned: tuple[tuple[str, str], ...] = ()
    stdout_to: str | None = None
    line: str = ""


@dataclass(slots=True)
class ContainerRun:
    """What ``docker run IMAGE ARGS`` or ``docker compose run SERVICE ARGS`` would start."""

    target: str
    args: list[str]
    env: dict[str, str] = field(default_factory=dict)
    mounts: dict[str, str] = field(default_factory=dict)  # container path -> host path or volume
    entrypoint: str | None = None


def sections(text: str | None = None) -> list[tuple[str, str]]:
    """(section title, sh block) pairs, in order."""
    text = GUIDE.read_text(encoding="utf-8") if text is None else text
    out: list[tuple[str, str]] = []
    title = ""
    for part in re.split(r"(^```sh\n.*?^```$)", text, flags=re.S | re.M):
        if part.startswith("```sh\n"):
            out.append((title, part.removeprefix("```sh\n").removesuffix("```")))
        else:
            heads = re.findall(r"^#{2,3} (.+)$", part, re.M)
            title = heads[-1] if heads else title
    return out


def commands(text: str | None = None) -> list[Command]:
    found: list[Command] = []
    for title, block in sections(text):
        for line in block.replace("\\\n", " ").splitlines():
            words = shlex.split(line, comments=True)
            current: list[str] = []
            for word in [*words, ";"]:
                if word in _SPLIT:
                    if current:
                        found.append(_simple(title, current, line))
                    current = []
                else:
                    current.append(word)
    return found


def _simple(section: str, words: list[str], line: str) -> Command:
    assigned: list[tuple[str, str]] = []
    while words and (words[0] == "sudo" or re.fullmatch(r"[A-Z_][A-Z0-9_]*=.*", words[0])):
        word = words.pop(0)
        if word != "sudo":
            name, _, value = word.partition("=")
            assigned.append((name, value))
    argv: list[str] = []
    stdout_to = None
    i = 0
    while i < len(words):
        word = words[i]
        if word == ">":
            stdout_to = words[i + 1]
            i += 2
            continue
        if re.fullmatch(r"\d?>.*", word):  # 2>/dev/null and the like
            i += 1
            continue
        argv.append(word)
        i += 1
    return Command(section, tuple(argv), tuple(assigned), stdout_to, line.strip())


def docker_run(argv: tuple[str, ...]) -> ContainerRun:
    """``docker|podman run [options] IMAGE [ARGS...]``."""
    assert argv[:2] in (("docker", "run"), ("podman", "run")), argv
    rest = list(argv[2:])
    run = ContainerRun(target="", args=[])
    while rest and rest[0].startswith("-"):
        option = rest.pop(0)
        if option in _RUN_FLAGS:
            continue
        assert option in _RUN_VALUED, f"docker run option {option!r} is not one the guide's tests know"
        value = rest.pop(0)
        if option in ("-e", "--env"):
            name, _, given = value.partition("=")
            run.env[name] = given
        elif option in ("-v", "--volume"):
            source, target = value.split(":")[:2]
            run.mounts[target] = source
        elif option == "--entrypoint":
            run.entrypoint = value
    run.target, run.args = rest[0], rest[1:]
    return run


def compose_run(argv: tuple[str, ...]) -> ContainerRun:
    """``docker compose run [options] SERVICE [ARGS...]``."""
    assert argv[:3] in (("docker", "compose", "run"), ("podman", "compose", "run")), argv
    rest = list(argv[3:])
    while rest and rest[0].startswith("-"):
        option = rest.pop(0)
        assert option in _RUN_FLAGS, f"docker compose run option {option!r} is not one the guide's tests know"
    return ContainerRun(target=rest[0], args=rest[1:])
